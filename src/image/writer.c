/* writer: pages → codec chunks → chunk stream in swap slots → extent map →
 * header. Layout decisions are format.c's; this file only moves bytes. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "image/writer.h"
#include "image/pace.h"
#include "kernel/blockdev.h"
#include "progress/progress.h"
#include "util/cleanup.h"
#include "util/clock.h"
#include "util/thread.h"

/* Writes are coalesced up to this size where the slots are contiguous. */
#define STREAM_BUFFER_BYTES (1u << 20)
/* LZ4 at its default level goes up to this acceleration while the disk
 * waits for data (image/pace.h). */
#define LZ4_SPEED_MAX 8u

/* Stream buffers: one being filled, the others queued for or under I/O. One
 * I/O thread writes them while the engine reads and compresses the next:
 * writes are where a hibernation waits most (the kernel gets the same
 * overlap from asynchronous bios). */
#define IO_BUFFERS 3

struct io_buffer {
        uint8_t *data;
        uint64_t *slots; /* device offset of each page */
        size_t npages;
        bool busy; /* handed to the I/O thread, not written yet */
};

struct dmo_image_writer {
        struct dmo_image_writer_params p;
        struct dmo_blockdev *dev;
        int (*alloc_page)(void *ctx, uint64_t *byte_offset);
        void *alloc_ctx;
        struct dmo_progress *progress;
        struct dmo_codec *codec;
        struct dmo_image_crypto crypto; /* encrypted: the header's section */

        struct dmo_chunk *cur; /* being filled by the engine */
        uint64_t pages;        /* committed */
        uint64_t chunks;       /* written to the stream */
        uint64_t zero_pages;

        /* The tail of the stream not yet on disk: buf holds stream bytes
         * [stream_len - buf_len, stream_len); slots[i] is the device offset
         * of the buffer's page i. */
        uint8_t *buf;
        size_t buf_cap;
        size_t buf_len;
        uint64_t *slots;
        uint64_t stream_len;

        /* The I/O thread and its queue; under io_lock. buf/slots above point
         * into io[io_cur]. */
        struct io_buffer io[IO_BUFFERS];
        unsigned io_cur;
        unsigned io_queue[IO_BUFFERS], io_head, io_len;
        pthread_mutex_t io_lock;
        pthread_cond_t io_work, io_done;
        pthread_t io_thread;
        bool io_running, io_stop;
        int io_error; /* first write error of the I/O thread */

        struct dmo_extent *ext;
        uint64_t ext_cap;
        uint64_t n_ext;
        uint64_t *map_slots;
        uint64_t map_cap;

        struct dmo_pace pace;
        bool adaptive;               /* LZ4 at level 0: the speed follows the pace */
        uint64_t speed_sum, flushes; /* for the mean speed (stored buffers count as the fastest) */
        uint64_t stored_chunks;      /* non-zero pages kept as they were, no compressor */
        uint64_t wait_ns_seen, paced_ns; /* wait_ns and the time at the last pace decision */
        uint8_t *page;                   /* map and header pages are built here */
        uint64_t writes;
        uint64_t io_ns, wait_ns; /* in pwrite; waiting for the codec */
        uint64_t t0_ns;
        int error; /* sticky: the first failure */
        bool finished;
};

static uint64_t div_up(uint64_t a, uint64_t b)
{
        return a / b + (a % b != 0);
}

static int fail(struct dmo_image_writer *w, int err)
{
        if (!w->error)
                w->error = err;
        return w->error;
}

static int io_start(struct dmo_image_writer *w);
static void io_stop(struct dmo_image_writer *w);

/* Stream bytes of pages pages at most: every chunk stored raw (plus its
 * header, and tag when encrypted). */
static uint64_t worst_stream_bytes(const struct dmo_image_writer_params *p, uint64_t pages)
{
        const uint64_t chunks = div_up(pages, p->chunk_pages);
        const uint64_t per_chunk = DMO_CHUNK_HEADER_LEN + (p->key ? DMO_CRYPTO_TAG_LEN : 0);
        return chunks * per_chunk + pages * p->page_size;
}

int dmo_image_writer_new(const struct dmo_image_writer_params *params, struct dmo_blockdev *dev,
                         int (*alloc_page)(void *ctx, uint64_t *byte_offset), void *alloc_ctx,
                         struct dmo_progress *progress, struct dmo_image_writer **out)
{
        if (!params || !dev || !alloc_page || !out)
                return -EINVAL;
        struct dmo_image_writer_params p = *params;
        if (p.chunk_pages == 0)
                p.chunk_pages = DMO_CHUNK_MAX_PAGES;
        if (dmo_image_check_page_size(p.page_size) < 0 || p.chunk_pages > DMO_CHUNK_MAX_PAGES ||
            p.expected_pages == 0 || p.expected_pages > DMO_IMAGE_MAX_PAGES ||
            (unsigned)p.algo > DMO_COMPRESS_ZSTD || p.level < DMO_IMAGE_LEVEL_MIN ||
            p.level > DMO_IMAGE_LEVEL_MAX || !p.key != !p.envelope || (p.tpm && !p.key))
                return -EINVAL;
        if (p.envelope && dmo_crypto_envelope_check(p.envelope) < 0)
                return -EINVAL;

        struct dmo_image_writer *w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->p = p;
        w->dev = dev;
        w->alloc_page = alloc_page;
        w->alloc_ctx = alloc_ctx;
        w->progress = progress;
        w->t0_ns = dmo_clock_ns(CLOCK_MONOTONIC);
        w->paced_ns = w->t0_ns;
        w->adaptive = p.algo == DMO_COMPRESS_LZ4 && p.level == 0;
        dmo_pace_init(&w->pace, w->adaptive ? LZ4_SPEED_MAX : 1);

        const struct dmo_codec_params cp = {
            .dir = DMO_CODEC_ENCODE,
            .algo = p.algo,
            .level = p.level,
            .page_size = p.page_size,
            .chunk_pages = p.chunk_pages,
            .threads = p.threads,
            .encrypted = p.key != NULL,
            /* The store step's question (flush_stream) is asked only here. */
            .measure_costs = w->adaptive && p.key != NULL,
        };
        int r = dmo_codec_new(&cp, &w->codec);
        if (r < 0)
                goto fail;
        if (p.key) {
                /* Every chunk's tag names this image: its encryption section. */
                uint8_t sec[DMO_IMAGE_CRYPTO_LEN];
                w->crypto = (struct dmo_image_crypto){
                    .cipher = p.cipher ? p.cipher : dmo_crypto_cipher_preferred(),
                    .env = *p.envelope,
                };
                dmo_image_crypto_section(&w->crypto, sec);
                r = dmo_crypto_key_bind(p.key, w->crypto.cipher, sec, sizeof(sec));
                if (r < 0)
                        goto fail;
                r = dmo_codec_set_key(w->codec, p.key);
                if (r < 0)
                        goto fail;
        }

        /* Worst case: every chunk stored raw, every stream page its own
         * extent (no two slots adjacent). */
        const uint64_t ps = p.page_size;
        w->ext_cap = div_up(worst_stream_bytes(&p, p.expected_pages), ps);
        w->map_cap = dmo_map_pages_for(w->ext_cap, p.page_size);
        w->buf_cap = STREAM_BUFFER_BYTES < ps ? ps : STREAM_BUFFER_BYTES / ps * ps;

        r = -ENOMEM;
        w->ext = calloc(w->ext_cap, sizeof(*w->ext));
        w->map_slots = calloc(w->map_cap, sizeof(*w->map_slots));
        w->page = aligned_alloc(ps, ps);
        if (!w->ext || !w->map_slots || !w->page)
                goto fail;
        for (unsigned i = 0; i < IO_BUFFERS; i++) {
                w->io[i].slots = calloc(w->buf_cap / ps, sizeof(*w->io[i].slots));
                w->io[i].data = aligned_alloc(ps, w->buf_cap);
                if (!w->io[i].slots || !w->io[i].data)
                        goto fail;
                /* Touch everything now so no page fault allocates memory later. */
                memset(w->io[i].data, 0, w->buf_cap);
        }
        memset(w->page, 0, ps);
        w->buf = w->io[0].data;
        w->slots = w->io[0].slots;
        r = io_start(w);
        if (r < 0)
                goto fail;
        *out = w;
        return 0;
fail:
        dmo_image_writer_free(w);
        return r;
}

void dmo_image_writer_free(struct dmo_image_writer *w)
{
        if (!w)
                return;
        io_stop(w);
        dmo_codec_free(w->codec);
        free(w->ext);
        free(w->map_slots);
        for (unsigned i = 0; i < IO_BUFFERS; i++) {
                free(w->io[i].slots);
                free(w->io[i].data);
        }
        free(w->page);
        free(w);
}

static int dev_write(struct dmo_image_writer *w, const void *buf, size_t len, uint64_t off)
{
        uint64_t t0 = dmo_clock_ns(CLOCK_MONOTONIC);
        int r = dmo_blockdev_pwrite(w->dev, buf, len, off);
        uint64_t took = dmo_clock_ns(CLOCK_MONOTONIC) - t0;
        w->io_ns += took;
        if (r < 0)
                return r;
        w->writes++;
        if (w->progress)
                dmo_progress_add_bytes(w->progress, len, took);
        return 0;
}

static int alloc_slot(struct dmo_image_writer *w, uint64_t *off)
{
        int r = w->alloc_page(w->alloc_ctx, off);
        if (r < 0)
                return r;
        const uint64_t size = dmo_blockdev_size(w->dev);
        if (*off % w->p.page_size != 0 || size < w->p.page_size || *off > size - w->p.page_size)
                return -ERANGE; /* the allocator handed out something unusable */
        return 0;
}

/* A new stream page: its slot extends the last extent when adjacent. */
static int stream_page_slot(struct dmo_image_writer *w, uint64_t *off)
{
        int r = alloc_slot(w, off);
        if (r < 0)
                return r;
        const uint64_t ps = w->p.page_size;
        struct dmo_extent *last = w->n_ext ? &w->ext[w->n_ext - 1] : NULL;
        if (last && last->offset + last->pages * ps == *off) {
                last->pages++;
                return 0;
        }
        if (w->n_ext == w->ext_cap)
                return -EOVERFLOW;
        w->ext[w->n_ext++] = (struct dmo_extent){*off, 1};
        return 0;
}

/* Writes one buffer's pages, one request per run of adjacent slots. */
static int write_buffer(struct dmo_image_writer *w, const struct io_buffer *b)
{
        const size_t ps = w->p.page_size;
        for (size_t i = 0; i < b->npages;) {
                size_t j = i + 1;
                while (j < b->npages && b->slots[j] == b->slots[j - 1] + ps)
                        j++;
                int r = dev_write(w, b->data + i * ps, (j - i) * ps, b->slots[i]);
                if (r < 0)
                        return r;
                i = j;
        }
        return 0;
}

static void *io_main(void *arg)
{
        struct dmo_image_writer *w = arg;
        dmo_thread_set_name("dmo-write-io");
        pthread_mutex_lock(&w->io_lock);
        for (;;) {
                while (!w->io_len && !w->io_stop)
                        pthread_cond_wait(&w->io_work, &w->io_lock);
                if (!w->io_len)
                        break;
                struct io_buffer *b = &w->io[w->io_queue[w->io_head]];
                pthread_mutex_unlock(&w->io_lock);
                /* After an error the rest is dropped: the image is lost anyway. */
                int r = w->io_error ? 0 : write_buffer(w, b);
                pthread_mutex_lock(&w->io_lock);
                if (r < 0 && !w->io_error)
                        w->io_error = r;
                b->busy = false;
                w->io_head = (w->io_head + 1) % IO_BUFFERS;
                w->io_len--;
                pthread_cond_broadcast(&w->io_done);
        }
        pthread_mutex_unlock(&w->io_lock);
        return NULL;
}

static int io_start(struct dmo_image_writer *w)
{
        pthread_mutex_init(&w->io_lock, NULL);
        pthread_cond_init(&w->io_work, NULL);
        pthread_cond_init(&w->io_done, NULL);
        /* Signals belong to the engine's thread, as with the codec's workers. */
        int r = dmo_thread_start(&w->io_thread, io_main, w, DMO_THREAD_STACK_WORKER,
                                 DMO_THREAD_NO_SIGNALS);
        w->io_running = r == 0;
        return r;
}

static void io_stop(struct dmo_image_writer *w)
{
        if (!w->io_running)
                return;
        pthread_mutex_lock(&w->io_lock);
        w->io_stop = true;
        pthread_cond_broadcast(&w->io_work);
        pthread_mutex_unlock(&w->io_lock);
        pthread_join(w->io_thread, NULL);
        w->io_running = false;
        pthread_cond_destroy(&w->io_done);
        pthread_cond_destroy(&w->io_work);
        pthread_mutex_destroy(&w->io_lock);
}

/* Waits until buffer i is free (or, i < 0, every buffer); the first write
 * error, if any. */
static int io_wait(struct dmo_image_writer *w, int i, bool *waited)
{
        pthread_mutex_lock(&w->io_lock);
        while (i >= 0 ? w->io[i].busy : w->io_len > 0) {
                if (waited)
                        *waited = true;
                pthread_cond_wait(&w->io_done, &w->io_lock);
        }
        int r = w->io_error;
        pthread_mutex_unlock(&w->io_lock);
        return r;
}

/* Hands the buffered stream pages to the I/O thread (a partial last page
 * goes out zero padded) and continues in the next free buffer. */
static int flush_stream(struct dmo_image_writer *w)
{
        const size_t ps = w->p.page_size;
        if (w->buf_len == 0)
                return io_wait(w, -1, NULL);
        if (w->buf_len % ps)
                memset(w->buf + w->buf_len, 0, ps - w->buf_len % ps);
        pthread_mutex_lock(&w->io_lock);
        const bool disk_idle = w->io_len == 0; /* queued or being written */
        struct io_buffer *b = &w->io[w->io_cur];
        b->npages = div_up(w->buf_len, ps);
        b->busy = true;
        w->io_queue[(w->io_head + w->io_len) % IO_BUFFERS] = w->io_cur;
        w->io_len++;
        pthread_cond_signal(&w->io_work);
        pthread_mutex_unlock(&w->io_lock);

        w->io_cur = (w->io_cur + 1) % IO_BUFFERS;
        bool waited = false;
        int r = io_wait(w, (int)w->io_cur, &waited);
        if (w->adaptive) {
                /* The pace's step past LZ4's fastest stores the pages as they
                 * are (dmo_image_writer_allow_store). It pays only while the
                 * codec holds the data back (the engine waited for a busy
                 * slot a tenth of the time since the last decision or more);
                 * when the kernel's pages come slower than the codec takes
                 * them (two CPUs in check-vm), it would only add bytes. */
                const uint64_t now = dmo_clock_ns(CLOCK_MONOTONIC);
                bool codec_waited = (w->wait_ns - w->wait_ns_seen) * 10 > now - w->paced_ns;
                w->wait_ns_seen = w->wait_ns;
                w->paced_ns = now;
                bool faster = disk_idle && (w->pace.speed < LZ4_SPEED_MAX || codec_waited);
                unsigned speed = dmo_pace_update(&w->pace, faster, waited);
                /* Encrypted, a byte stored is a byte sealed: the step pays
                 * only where sealing the bytes LZ4 would save costs less
                 * than LZ4 (native AES does; under emulation check-vm's
                 * encrypted data phase took 20% longer with it). */
                if (speed > LZ4_SPEED_MAX && (!codec_waited || !dmo_codec_store_pays(w->codec)))
                        speed = w->pace.speed = LZ4_SPEED_MAX;
                dmo_codec_set_speed(w->codec,
                                    speed > LZ4_SPEED_MAX ? DMO_CODEC_SPEED_STORE : speed);
        }
        w->speed_sum += w->pace.speed > LZ4_SPEED_MAX ? LZ4_SPEED_MAX : w->pace.speed;
        w->flushes++;
        w->buf = w->io[w->io_cur].data;
        w->slots = w->io[w->io_cur].slots;
        w->buf_len = 0;
        return r;
}

static int stream_append(struct dmo_image_writer *w, const uint8_t *data, size_t len)
{
        const size_t ps = w->p.page_size;
        while (len) {
                if (w->buf_len == w->buf_cap) {
                        int r = flush_stream(w);
                        if (r < 0)
                                return r;
                }
                if (w->buf_len % ps == 0) {
                        int r = stream_page_slot(w, &w->slots[w->buf_len / ps]);
                        if (r < 0)
                                return r;
                }
                size_t n = ps - w->buf_len % ps;
                if (n > len)
                        n = len;
                memcpy(w->buf + w->buf_len, data, n);
                w->buf_len += n;
                w->stream_len += n;
                data += n;
                len -= n;
        }
        return 0;
}

static int write_chunk(struct dmo_image_writer *w, struct dmo_chunk *c)
{
        if (c->seq != w->chunks)
                return -EILSEQ; /* the codec broke its ordering promise */
        uint8_t hdr[DMO_CHUNK_HEADER_LEN];
        dmo_chunk_header_encode(hdr, c);
        int r = stream_append(w, hdr, sizeof(hdr));
        if (r == 0)
                r = stream_append(w, c->stored, c->payload_len);
        if (r < 0)
                return r;
        w->chunks++;
        w->zero_pages += (uint64_t)__builtin_popcountll(c->zero_map);
        if (!(c->flags & DMO_CHUNK_COMPRESSED) && c->payload_len > 0)
                w->stored_chunks++;
        return 0;
}

/* Writes out finished chunks in order; wait: until none is in flight. */
static int drain(struct dmo_image_writer *w, bool wait)
{
        for (;;) {
                struct dmo_chunk *c;
                int r = dmo_codec_collect(w->codec, &c, wait);
                if (r == -ENODATA || r == -EAGAIN)
                        return 0;
                if (r < 0)
                        return r;
                r = write_chunk(w, c);
                dmo_codec_release(w->codec, c);
                if (r < 0)
                        return r;
        }
}

int dmo_image_writer_page_buffers(struct dmo_image_writer *w, void **pages, size_t *n)
{
        if (w->error)
                return w->error;
        if (w->finished)
                return -EINVAL;
        if (w->pages >= w->p.expected_pages)
                return -EOVERFLOW;
        while (!w->cur) {
                int r = dmo_codec_acquire(w->codec, &w->cur);
                if (r == -EAGAIN) {
                        /* Every slot is busy: wait for the oldest and store it. */
                        struct dmo_chunk *c;
                        uint64_t t0 = dmo_clock_ns(CLOCK_MONOTONIC);
                        r = dmo_codec_collect(w->codec, &c, true);
                        w->wait_ns += dmo_clock_ns(CLOCK_MONOTONIC) - t0;
                        if (r < 0)
                                return fail(w, r);
                        r = write_chunk(w, c);
                        dmo_codec_release(w->codec, c);
                        if (r < 0)
                                return fail(w, r);
                        continue;
                }
                if (r < 0)
                        return fail(w, r);
                w->cur->npages = 0;
        }
        *pages = w->cur->pages + (size_t)w->cur->npages * w->p.page_size;
        uint64_t room = w->p.chunk_pages - w->cur->npages;
        uint64_t left = w->p.expected_pages - w->pages;
        *n = (size_t)(room < left ? room : left);
        return 0;
}

int dmo_image_writer_commit_pages(struct dmo_image_writer *w, size_t n)
{
        if (w->error)
                return w->error;
        if (!w->cur || n == 0 || n > w->p.chunk_pages - w->cur->npages ||
            n > w->p.expected_pages - w->pages)
                return -EINVAL;
        w->cur->npages += (uint32_t)n;
        w->pages += n;
        if (w->cur->npages < w->p.chunk_pages)
                return 0;
        int r = dmo_codec_submit(w->codec, w->cur);
        w->cur = NULL;
        if (r == 0)
                r = drain(w, false);
        return r < 0 ? fail(w, r) : 0;
}

/* The map goes into fresh slots after the stream; every slot is known
 * before the first page is encoded, because each page names its successor. */
static int write_map(struct dmo_image_writer *w, uint64_t *map_hash)
{
        const uint32_t ps = w->p.page_size;
        const uint32_t per = dmo_map_entries_per_page(ps);
        const uint64_t npages = dmo_map_pages_for(w->n_ext, ps);
        if (npages == 0 || npages > w->map_cap)
                return -EOVERFLOW;
        for (uint64_t i = 0; i < npages; i++) {
                int r = alloc_slot(w, &w->map_slots[i]);
                if (r < 0)
                        return r;
        }

        struct dmo_map_hasher mh;
        dmo_map_hash_begin(&mh);
        for (uint64_t i = 0; i < npages; i++) {
                const uint64_t first = i * per;
                const uint64_t left = w->n_ext - first;
                const uint32_t count = left < per ? (uint32_t)left : per;
                const uint64_t next = i + 1 < npages ? w->map_slots[i + 1] : 0;
                int r = dmo_map_page_encode(w->page, ps, (uint32_t)i, next, w->ext + first, count);
                if (r == 0)
                        r = dev_write(w, w->page, ps, w->map_slots[i]);
                if (r < 0)
                        return r;
                dmo_map_hash_page(&mh, w->page, ps);
        }
        *map_hash = dmo_map_hash_end(&mh);
        return 0;
}

static int finish(struct dmo_image_writer *w, const struct dmo_image_meta *meta,
                  struct dmo_image_result *res)
{
        const uint32_t ps = w->p.page_size;
        int r;

        if (w->cur) {
                if (w->cur->npages) {
                        r = dmo_codec_submit(w->codec, w->cur);
                        w->cur = NULL;
                        if (r < 0)
                                return r;
                } else {
                        dmo_codec_release(w->codec, w->cur);
                        w->cur = NULL;
                }
        }
        r = drain(w, true);
        if (r < 0)
                return r;
        if (w->pages == 0)
                return -ENODATA; /* an image has at least one page */
        r = flush_stream(w);
        if (r == 0)
                r = io_wait(w, -1, NULL); /* all data written before the map and header */
        if (r < 0)
                return r;

        struct dmo_image_header h = {
            .flags = meta->platform_mode ? DMO_IMAGE_F_PLATFORM : 0,
            .page_size = ps,
            .image_pages = w->pages,
            .compress = w->p.algo,
            .level = w->p.level,
            .chunk_pages = w->p.chunk_pages,
            .chunk_count = w->chunks,
            .stream_len = w->stream_len,
            .map_pages = (uint32_t)dmo_map_pages_for(w->n_ext, ps),
            .extent_count = w->n_ext,
            .identity = meta->identity,
            .start_ns = meta->start_ns,
            .end_ns = meta->end_ns ? meta->end_ns : dmo_clock_ns(CLOCK_REALTIME),
            .raw_bytes = w->pages * ps,
            .zero_pages = w->zero_pages,
        };
        r = write_map(w, &h.map_hash);
        if (r < 0)
                return r;
        h.map_offset = w->map_slots[0];
        h.stored_bytes = (div_up(w->stream_len, ps) + h.map_pages + 1) * ps;

        uint64_t header_offset;
        r = alloc_slot(w, &header_offset);
        if (r < 0)
                return r;
        /* The data and the map must be durable before the header exists. */
        r = dmo_blockdev_sync(w->dev);
        if (r < 0)
                return r;
        h.write_ns = dmo_clock_ns(CLOCK_MONOTONIC) - w->t0_ns;
        if (w->p.key) {
                h.flags |= DMO_IMAGE_F_ENCRYPTED;
                h.crypto = w->crypto;
                if (w->p.tpm) {
                        h.flags |= DMO_IMAGE_F_TPM;
                        h.tpm = *w->p.tpm;
                }
                r = dmo_image_header_mac(w->p.key, &h, w->ext, w->n_ext);
                if (r < 0)
                        return r;
        }
        r = dmo_image_header_encode(w->page, ps, &h);
        if (r < 0)
                return r;
        r = dev_write(w, w->page, ps, header_offset);
        if (r < 0)
                return r;
        r = dmo_blockdev_sync(w->dev);
        if (r < 0)
                return r;

        *res = (struct dmo_image_result){
            .sig =
                {
                    .major = DMO_IMAGE_MAJOR,
                    .minor = DMO_IMAGE_MINOR,
                    .page_size = ps,
                    .header_offset = header_offset,
                    .header_len = ps,
                    .header_hash = dmo_image_header_hash(w->page, ps),
                },
            .header_offset = header_offset,
            .image_pages = w->pages,
            .chunk_count = w->chunks,
            .extent_count = w->n_ext,
            .map_pages = h.map_pages,
            .stream_len = w->stream_len,
            .raw_bytes = h.raw_bytes,
            .stored_bytes = h.stored_bytes,
            .zero_pages = w->zero_pages,
            .write_ns = dmo_clock_ns(CLOCK_MONOTONIC) - w->t0_ns,
            .writes = w->writes,
            .mean_speed = w->flushes ? (double)w->speed_sum / (double)w->flushes : 1.0,
            .stored_chunks = w->stored_chunks,
            .io_ns = w->io_ns,
            .wait_ns = w->wait_ns,
        };
        return 0;
}

bool dmo_image_writer_allow_store(struct dmo_image_writer *w, uint64_t pages, uint64_t room)
{
        if (!w->adaptive)
                return false;
        const uint32_t ps = w->p.page_size;
        const uint64_t stream = worst_stream_bytes(&w->p, pages);
        /* The stream, a map page per entries' worth of single-page extents,
         * the header page. */
        const uint64_t need = stream + (dmo_map_pages_for(div_up(stream, ps), ps) + 1) * ps;
        const bool allow = need <= room;
        w->pace.max = allow ? 2 * LZ4_SPEED_MAX : LZ4_SPEED_MAX;
        if (w->pace.speed > w->pace.max) {
                w->pace.speed = w->pace.max;
                dmo_codec_set_speed(w->codec, w->pace.speed);
        }
        return allow;
}

int dmo_image_writer_finish(struct dmo_image_writer *w, const struct dmo_image_meta *meta,
                            struct dmo_image_result *res)
{
        if (w->error)
                return w->error;
        if (w->finished || !meta || !res)
                return -EINVAL;
        w->finished = true;
        int r = finish(w, meta, res);
        return r < 0 ? fail(w, r) : 0;
}
