/* reader: probe (signature → header → extent map) and the streaming
 * decoder (extents → read-ahead → chunk headers → codec → pages). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "image/reader.h"
#include "kernel/blockdev.h"
#include "util/thread.h"
#include "progress/progress.h"
#include "util/cleanup.h"
#include "util/clock.h"

/* Read-ahead per request, where the extent is long enough. */
#define READ_AHEAD_BYTES (1u << 20)
/* Requests a read-ahead thread keeps ready while the engine decodes and
 * hands pages to the kernel: reading is where a resume waits most. */
#define READ_BUFFERS 3
/* The most requests an encrypted image's prefetch may hold while the key
 * is asked for (dmo_image_reader_prefetch): 64 GiB of 1 MiB requests. */
#define PREFETCH_SLOTS_MAX 65536u

struct read_buffer {
        uint8_t *data;
        size_t len;
        int error;
        bool ready; /* read (or failed); the engine has not released it yet */
};

/* Hibernation signatures of other tools (kernel, suspend-utils, old
 * kernels), told apart from "no swap area at all" for the message. */
static const char foreign_magics[][DMO_SWAP_MAGIC_LEN] = {"S1SUSPEND", "S2SUSPEND", "ULSUSPEND",
                                                          "LINHIB0001"};

static int dev_read(void *ctx, void *buf, size_t len, uint64_t off)
{
        return dmo_blockdev_pread(ctx, buf, len, off);
}

static int probe_fail(struct dmo_image_info *info, enum dmo_image_fault f, int err)
{
        info->fault = f;
        return err;
}

static bool is_foreign(const uint8_t *page, uint32_t ps)
{
        for (size_t i = 0; i < DMO_ARRAY_SIZE(foreign_magics); i++)
                if (memcmp(page + ps - DMO_SWAP_MAGIC_LEN, foreign_magics[i], DMO_SWAP_MAGIC_LEN) ==
                    0)
                        return true;
        return false;
}

/* Reads and checks the extent map of a verified header into *ext (allocated). */
static int start_read_ahead(struct dmo_image_reader *r);

static int load_map(struct dmo_blockdev *dev, const struct dmo_image_info *info, uint8_t *page,
                    struct dmo_extent **ext_out)
{
        const struct dmo_image_header *h = &info->header;
        /* The header's checks bound extent_count by the stream, which is
         * bounded by image_pages; the device bounds what is plausible. */
        if (h->extent_count > info->device_size / h->page_size)
                return -EBADMSG;
        _cleanup_free_ struct dmo_extent *ext = calloc(h->extent_count, sizeof(*ext));
        _cleanup_free_ struct dmo_extent *scratch =
            calloc(dmo_map_scratch_len(h), sizeof(*scratch));
        if (!ext || !scratch)
                return -ENOMEM;
        const struct dmo_map_bounds b = {
            .device_size = info->device_size,
            .swap_header_offset = info->swap_header_offset,
            .header_offset = info->sig.header_offset,
        };
        int r = dmo_extent_map_load(h, &b, dev_read, dev, page, ext, scratch);
        if (r < 0)
                return r;
        *ext_out = dmo_steal_ptr(ext);
        return 0;
}

int dmo_image_probe(struct dmo_blockdev *dev, uint64_t header_page, uint32_t page_size,
                    struct dmo_image_info *info)
{
        if (!dev || !info || dmo_image_check_page_size(page_size) < 0)
                return -EINVAL;
        memset(info, 0, sizeof(*info));
        info->page_size = page_size;
        info->device_size = dmo_blockdev_size(dev);
        const uint64_t ps = page_size;
        if (header_page > info->device_size / ps - 1 || info->device_size < ps)
                return probe_fail(info, DMO_FAULT_NOT_SWAP, -ENODEV);
        info->swap_header_offset = header_page * ps;

        _cleanup_free_ uint8_t *page = aligned_alloc(ps, ps);
        if (!page)
                return -ENOMEM;
        int r = dmo_blockdev_pread(dev, page, ps, info->swap_header_offset);
        if (r < 0)
                return probe_fail(info, DMO_FAULT_SWAP_IO, r);

        r = dmo_sig_parse(page, page_size, &info->sig);
        if (r == -ENOENT)
                return r;
        if (r == -ENODEV)
                return probe_fail(
                    info, is_foreign(page, page_size) ? DMO_FAULT_FOREIGN : DMO_FAULT_NOT_SWAP, r);
        if (r == -EPROTONOSUPPORT)
                return probe_fail(info, DMO_FAULT_VERSION, r);
        if (r < 0)
                return probe_fail(info, DMO_FAULT_SIGNATURE, r);
        info->has_sig = true;

        const uint64_t hoff = info->sig.header_offset;
        if (hoff == info->swap_header_offset)
                return probe_fail(info, DMO_FAULT_SIGNATURE, -EBADMSG);
        if (hoff > info->device_size - ps)
                return probe_fail(info, DMO_FAULT_TRUNCATED, -EBADMSG);
        r = dmo_blockdev_pread(dev, page, ps, hoff);
        if (r < 0)
                return probe_fail(info, DMO_FAULT_HEADER_IO, r);

        enum dmo_image_fault f;
        r = dmo_image_header_decode(page, page_size, &info->header, &f);
        if (r < 0)
                return probe_fail(info, f, r);
        /* The signature names the exact header it was written for: a stale
         * or torn header cannot pass for the current one. */
        if (dmo_image_header_hash(page, ps) != info->sig.header_hash)
                return probe_fail(info, DMO_FAULT_HEADER_CHECKSUM, -EBADMSG);
        info->has_header = true;

        _cleanup_free_ struct dmo_extent *ext = NULL;
        r = load_map(dev, info, page, &ext);
        if (r == -EBADMSG) {
                /* Tell a device cut short from a scrambled map. */
                const struct dmo_image_header *h = &info->header;
                bool cut = h->map_offset > info->device_size - ps;
                return probe_fail(info, cut ? DMO_FAULT_TRUNCATED : DMO_FAULT_EXTENT_MAP, r);
        }
        if (r < 0)
                return probe_fail(info, r == -ENXIO ? DMO_FAULT_TRUNCATED : DMO_FAULT_EXTENT_IO,
                                  r == -ENXIO ? -EBADMSG : r);
        info->map_ok = true;
        for (uint64_t i = 0; i < info->header.extent_count && i < DMO_INFO_EXTENTS; i++)
                info->extents[info->n_extents++] = ext[i];
        return 0;
}

int dmo_image_discard(struct dmo_blockdev *dev, const struct dmo_image_info *info)
{
        if (!dev || !info || !info->has_sig || !info->has_header || !info->map_ok)
                return -EINVAL;
        const struct dmo_image_header *h = &info->header;
        const uint64_t ps = h->page_size;
        const uint64_t n = dmo_map_scratch_len(h);
        if (h->extent_count > info->device_size / ps)
                return -EBADMSG;
        _cleanup_free_ struct dmo_extent *ext = calloc(h->extent_count, sizeof(*ext));
        _cleanup_free_ struct dmo_extent *all = calloc(n, sizeof(*all));
        _cleanup_free_ uint8_t *page = aligned_alloc(ps, ps);
        if (!ext || !all || !page)
                return -ENOMEM;
        const struct dmo_map_bounds b = {
            .device_size = info->device_size,
            .swap_header_offset = info->swap_header_offset,
            .header_offset = info->sig.header_offset,
        };
        /* The loader leaves every slot the image claims in scratch, sorted:
         * map pages, extents and both header pages. */
        int r = dmo_extent_map_load(h, &b, dev_read, dev, page, ext, all);
        if (r < 0)
                return r;
        int first = 0;
        for (uint64_t i = 0; i < n; i++) {
                if (all[i].offset == info->swap_header_offset)
                        continue;
                r = dmo_blockdev_discard(dev, all[i].offset, all[i].pages * ps);
                if (r < 0 && !first)
                        first = r;
        }
        return first;
}

struct dmo_image_reader {
        struct dmo_image_info info;
        struct dmo_blockdev *dev;
        struct dmo_progress *progress;
        struct dmo_codec *codec;
        uint32_t capacity;
        uint32_t ps;
        bool encrypted;
        bool keyed; /* encrypted: the key is set and the header authenticated */

        struct dmo_extent *ext;
        uint64_t n_ext;

        /* The read-ahead thread walks the extents in buf_cap requests into
         * rb[filled % n_rb]; the engine consumes them in order and releases
         * each when it moves on. READ_BUFFERS requests are kept ready; while
         * an encrypted image waits for its key, up to prefetch_slots more
         * (dmo_image_reader_prefetch). Buffers are allocated as the thread
         * needs them and freed on release beyond READ_BUFFERS, so the
         * prefetched memory goes back as the restore consumes it. Counters
         * and buffer ownership under rb_lock. */
        struct read_buffer *rb;
        uint32_t n_rb;           /* READ_BUFFERS, plus the prefetch slots of an encrypted image */
        uint32_t prefetch_slots; /* extra requests allowed while not keyed */
        uint32_t allocated;      /* buffers in existence, spares included */
        uint8_t *spare[READ_BUFFERS]; /* released buffers kept for the next requests */
        uint32_t n_spare;
        uint64_t filled, consumed;
        uint64_t prefetched_bytes; /* read beyond READ_BUFFERS before the key came */
        bool exhausted;            /* every extent has been requested */
        bool holding;              /* the engine holds rb[consumed % n_rb] */
        bool rb_stop, rb_running;
        pthread_mutex_t rb_lock;
        pthread_cond_t rb_cond;
        pthread_t rb_thread;

        uint8_t *buf; /* read-ahead: buf[buf_off..buf_len) not consumed yet */
        size_t buf_cap;
        size_t buf_len;
        size_t buf_off;
        uint64_t stream_pos; /* stream bytes consumed */

        uint64_t parsed_chunks;
        uint64_t parsed_pages;

        struct dmo_chunk *cur; /* being delivered */
        uint32_t cur_idx;
        uint64_t delivered_pages;
        uint64_t delivered_chunks;
        uint64_t in_place_chunks; /* delivered by deliver_stored */
        int error;
        bool done;
};

void dmo_image_reader_free(struct dmo_image_reader *r)
{
        if (!r)
                return;
        if (r->rb_running) {
                pthread_mutex_lock(&r->rb_lock);
                r->rb_stop = true;
                pthread_cond_broadcast(&r->rb_cond);
                pthread_mutex_unlock(&r->rb_lock);
                pthread_join(r->rb_thread, NULL);
                pthread_cond_destroy(&r->rb_cond);
                pthread_mutex_destroy(&r->rb_lock);
        }
        dmo_codec_free(r->codec);
        free(r->ext);
        if (r->rb)
                for (uint32_t i = 0; i < r->n_rb; i++)
                        free(r->rb[i].data);
        for (uint32_t i = 0; i < r->n_spare; i++)
                free(r->spare[i]);
        free(r->rb);
        free(r);
}

int dmo_image_reader_new(const struct dmo_image_info *info, struct dmo_blockdev *dev,
                         unsigned threads, struct dmo_progress *progress,
                         struct dmo_image_reader **out)
{
        if (!info || !dev || !out || !info->has_sig || !info->has_header || !info->map_ok)
                return -EINVAL;
        const struct dmo_image_header *h = &info->header;
        struct dmo_image_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        r->info = *info;
        r->dev = dev;
        r->progress = progress;
        r->ps = h->page_size;
        r->n_ext = h->extent_count;
        r->encrypted = (h->flags & DMO_IMAGE_F_ENCRYPTED) != 0;

        int err = -ENOMEM;
        uint8_t *page = aligned_alloc(r->ps, r->ps);
        if (!page)
                goto fail;
        err = load_map(dev, &r->info, page, &r->ext);
        free(page);
        if (err < 0)
                goto fail;

        const struct dmo_codec_params cp = {
            .dir = DMO_CODEC_DECODE,
            .algo = (enum dmo_compress)h->compress,
            .level = h->level,
            .page_size = r->ps,
            .chunk_pages = h->chunk_pages,
            .threads = threads,
            .encrypted = r->encrypted,
        };
        err = dmo_codec_new(&cp, &r->codec);
        if (err < 0)
                goto fail;
        r->capacity = dmo_codec_payload_capacity(r->codec);

        err = -ENOMEM;
        r->buf_cap = READ_AHEAD_BYTES < r->ps ? r->ps : READ_AHEAD_BYTES / r->ps * r->ps;
        /* Only an encrypted image waits for a person: only it gets the
         * slots for a prefetch (their descriptors; no data until used), as
         * many as the stream has requests, at most PREFETCH_SLOTS_MAX. */
        uint64_t requests = 0;
        for (uint64_t i = 0; r->encrypted && i < r->n_ext; i++)
                requests += (r->ext[i].pages * r->ps + r->buf_cap - 1) / r->buf_cap;
        r->n_rb = READ_BUFFERS +
                  (uint32_t)(requests < PREFETCH_SLOTS_MAX ? requests : PREFETCH_SLOTS_MAX);
        r->rb = calloc(r->n_rb, sizeof(*r->rb));
        if (!r->rb)
                goto fail;
        for (unsigned i = 0; i < READ_BUFFERS; i++) {
                r->rb[i].data = aligned_alloc(r->ps, r->buf_cap);
                if (!r->rb[i].data)
                        goto fail;
                memset(r->rb[i].data, 0, r->buf_cap);
                r->allocated++;
        }
        err = start_read_ahead(r);
        if (err < 0)
                goto fail;
        *out = r;
        return 0;
fail:
        dmo_image_reader_free(r);
        return err;
}

int dmo_image_reader_set_key(struct dmo_image_reader *r, struct dmo_crypto_key *key)
{
        if (!r->encrypted || r->keyed || !key)
                return -EINVAL;
        uint8_t sec[DMO_IMAGE_CRYPTO_LEN];
        dmo_image_crypto_section(&r->info.header.crypto, sec);
        int err = dmo_crypto_key_bind(key, r->info.header.crypto.cipher, sec, sizeof(sec));
        if (err < 0)
                return err;
        err = dmo_image_header_mac_verify(key, &r->info.header, r->ext, r->n_ext);
        if (err < 0)
                return -EBADMSG;
        err = dmo_codec_set_key(r->codec, key);
        if (err < 0)
                return err;
        pthread_mutex_lock(&r->rb_lock);
        r->keyed = true; /* the prefetch ends: READ_BUFFERS ahead from now */
        pthread_cond_broadcast(&r->rb_cond);
        pthread_mutex_unlock(&r->rb_lock);
        return 0;
}

void dmo_image_reader_prefetch(struct dmo_image_reader *r, uint64_t bytes)
{
        if (!r->encrypted)
                return;
        uint64_t slots = bytes / r->buf_cap;
        pthread_mutex_lock(&r->rb_lock);
        const uint32_t most = r->n_rb - READ_BUFFERS;
        r->prefetch_slots = (uint32_t)(slots < most ? slots : most);
        pthread_cond_broadcast(&r->rb_cond);
        pthread_mutex_unlock(&r->rb_lock);
}

uint64_t dmo_image_reader_prefetched(struct dmo_image_reader *r)
{
        pthread_mutex_lock(&r->rb_lock);
        uint64_t n = r->prefetched_bytes;
        pthread_mutex_unlock(&r->rb_lock);
        return n;
}

/* How many requests may wait unconsumed: more only while an encrypted
 * image waits for its key. Under rb_lock. */
static uint64_t ready_limit(const struct dmo_image_reader *r)
{
        return READ_BUFFERS + (r->keyed ? 0 : r->prefetch_slots);
}

/* The read-ahead thread: every extent, in order, buf_cap at a time. */
static void *read_ahead_main(void *arg)
{
        struct dmo_image_reader *r = arg;
        dmo_thread_set_name("dmo-read-ahead");
        uint64_t ext_idx = 0, ext_pos = 0;
        pthread_mutex_lock(&r->rb_lock);
        for (;;) {
                while (ext_idx < r->n_ext && ext_pos == r->ext[ext_idx].pages * r->ps) {
                        ext_idx++;
                        ext_pos = 0;
                }
                if (ext_idx == r->n_ext) {
                        r->exhausted = true;
                        pthread_cond_broadcast(&r->rb_cond);
                        break;
                }
                while (r->filled - r->consumed >= ready_limit(r) && !r->rb_stop)
                        pthread_cond_wait(&r->rb_cond, &r->rb_lock);
                if (r->rb_stop)
                        break;
                struct read_buffer *b = &r->rb[r->filled % r->n_rb];
                if (!b->data && r->n_spare)
                        b->data = r->spare[--r->n_spare];
                if (!b->data) {
                        /* A prefetch slot: its memory now, outside the lock. */
                        pthread_mutex_unlock(&r->rb_lock);
                        uint8_t *data = aligned_alloc(r->ps, r->buf_cap);
                        pthread_mutex_lock(&r->rb_lock);
                        if (!data) { /* no more memory to read ahead into */
                                r->prefetch_slots = 0;
                                continue;
                        }
                        b->data = data;
                        r->allocated++;
                }
                const bool beyond = r->filled - r->consumed >= READ_BUFFERS;
                const struct dmo_extent *e = &r->ext[ext_idx];
                uint64_t n = e->pages * r->ps - ext_pos;
                if (n > r->buf_cap)
                        n = r->buf_cap;
                pthread_mutex_unlock(&r->rb_lock);
                const uint64_t t0 = dmo_clock_ns(CLOCK_MONOTONIC);
                int err = dmo_blockdev_pread(r->dev, b->data, n, e->offset + ext_pos);
                if (err == 0 && r->progress)
                        dmo_progress_add_bytes(r->progress, n, dmo_clock_ns(CLOCK_MONOTONIC) - t0);
                pthread_mutex_lock(&r->rb_lock);
                if (beyond && err == 0)
                        r->prefetched_bytes += n;
                b->len = n;
                b->error = err == -ENXIO ? -EBADMSG : err;
                b->ready = true;
                r->filled++;
                ext_pos += n;
                pthread_cond_broadcast(&r->rb_cond);
                if (err < 0) {
                        r->exhausted = true; /* nothing after a failed read is wanted */
                        break;
                }
        }
        pthread_mutex_unlock(&r->rb_lock);
        return NULL;
}

static int start_read_ahead(struct dmo_image_reader *r)
{
        pthread_mutex_init(&r->rb_lock, NULL);
        pthread_cond_init(&r->rb_cond, NULL);
        int err = dmo_thread_start(&r->rb_thread, read_ahead_main, r, DMO_THREAD_STACK_WORKER,
                                   DMO_THREAD_NO_SIGNALS);
        if (err < 0) {
                pthread_cond_destroy(&r->rb_cond);
                pthread_mutex_destroy(&r->rb_lock);
                return err;
        }
        r->rb_running = true;
        return 0;
}

/* Moves on to the next read-ahead request: releases the one consumed and
 * waits for the next to be read. */
static int refill(struct dmo_image_reader *r)
{
        pthread_mutex_lock(&r->rb_lock);
        if (r->holding) {
                struct read_buffer *done = &r->rb[r->consumed % r->n_rb];
                done->ready = false;
                if (r->n_rb > READ_BUFFERS) {
                        /* The next request may land in another slot: its
                         * buffer is kept for it, a prefetch's memory beyond
                         * that goes back. */
                        if (r->n_spare < READ_BUFFERS) {
                                r->spare[r->n_spare++] = done->data;
                        } else {
                                free(done->data);
                                r->allocated--;
                        }
                        done->data = NULL;
                }
                r->consumed++;
                r->holding = false;
                pthread_cond_broadcast(&r->rb_cond);
        }
        struct read_buffer *b = &r->rb[r->consumed % r->n_rb];
        while (!b->ready && !(r->exhausted && r->filled == r->consumed))
                pthread_cond_wait(&r->rb_cond, &r->rb_lock);
        int err = 0;
        if (!b->ready)
                err = -EBADMSG; /* the stream wants more than the extents hold */
        else if (b->error < 0)
                err = b->error;
        else
                r->holding = true;
        pthread_mutex_unlock(&r->rb_lock);
        if (err < 0)
                return err;
        r->buf = b->data;
        r->buf_len = b->len;
        r->buf_off = 0;
        return 0;
}

/* Consumes len stream bytes into dst; never past the header's stream length. */
static int stream_read(struct dmo_image_reader *r, void *dst, size_t len)
{
        if (len > r->info.header.stream_len - r->stream_pos)
                return -EBADMSG;
        uint8_t *d = dst;
        while (len) {
                if (r->buf_off == r->buf_len) {
                        int err = refill(r);
                        if (err < 0)
                                return err;
                }
                size_t n = r->buf_len - r->buf_off;
                if (n > len)
                        n = len;
                memcpy(d, r->buf + r->buf_off, n);
                r->buf_off += n;
                r->stream_pos += n;
                d += n;
                len -= n;
        }
        return 0;
}

/* Parses the next chunk record into c, checking it against everything the
 * header promises before the payload is touched. */
static int parse_chunk(struct dmo_image_reader *r, struct dmo_chunk *c)
{
        const struct dmo_image_header *h = &r->info.header;
        uint8_t hdr[DMO_CHUNK_HEADER_LEN];
        int err = stream_read(r, hdr, sizeof(hdr));
        if (err < 0)
                return err;
        err = dmo_chunk_header_decode(hdr, r->ps, h->chunk_pages, h->compress, r->encrypted, c);
        if (err < 0)
                return err;
        const uint64_t left = h->image_pages - r->parsed_pages;
        const uint64_t want = left < h->chunk_pages ? left : h->chunk_pages;
        if (c->seq != r->parsed_chunks || c->npages != want || c->payload_len > r->capacity)
                return -EBADMSG;
        err = stream_read(r, c->payload, c->payload_len);
        if (err < 0)
                return err;
        r->parsed_chunks++;
        r->parsed_pages += c->npages;
        /* The last record must end the stream exactly. */
        if (r->parsed_chunks == h->chunk_count &&
            (r->parsed_pages != h->image_pages || r->stream_pos != h->stream_len))
                return -EBADMSG;
        return 0;
}

/* Whether the next record is a chunk stored as it is (not compressed, no
 * zero page, not encrypted) lying whole in the read-ahead buffer in hand:
 * then its header, decoded and checked as parse_chunk checks it, is in c,
 * and nothing is consumed. Anything else, a bad header included, is left
 * to parse_chunk, which reports it. */
static bool next_is_stored_in_hand(const struct dmo_image_reader *r, struct dmo_chunk *c)
{
        const struct dmo_image_header *h = &r->info.header;
        const size_t in_hand = r->buf_len - r->buf_off;
        if (r->encrypted || in_hand < DMO_CHUNK_HEADER_LEN ||
            h->stream_len - r->stream_pos < DMO_CHUNK_HEADER_LEN)
                return false;
        if (dmo_chunk_header_decode(r->buf + r->buf_off, r->ps, h->chunk_pages, h->compress,
                                    r->encrypted, c) < 0)
                return false;
        const uint64_t left = h->image_pages - r->parsed_pages;
        const uint64_t want = left < h->chunk_pages ? left : h->chunk_pages;
        return c->seq == r->parsed_chunks && c->npages == want && c->flags == 0 &&
               c->zero_map == 0 && c->payload_len == (uint64_t)c->npages * r->ps &&
               c->payload_len <= in_hand - DMO_CHUNK_HEADER_LEN &&
               c->payload_len <= h->stream_len - r->stream_pos - DMO_CHUNK_HEADER_LEN;
}

/* Hands out the next chunk straight from the read-ahead buffer when it is
 * stored as it is and lies whole in it, with no chunk ahead of it in the
 * codec: checked on this thread (both checksums) and not copied into a
 * slot. In check-vm (one vCPU) copying those payloads took the engine's
 * thread as long as the kernel's own load of them. The pages stay valid
 * until the next call: the buffer is released only when the stream moves
 * past it. 1: handed out; 0: not such a chunk; <0: corrupt. */
static int deliver_stored(struct dmo_image_reader *r, const void **pages, size_t *n)
{
        const struct dmo_image_header *h = &r->info.header;
        if (r->parsed_chunks != r->delivered_chunks || r->parsed_chunks == h->chunk_count)
                return 0;
        if (r->buf_off == r->buf_len && r->stream_pos < h->stream_len) {
                int err = refill(r);
                if (err < 0)
                        return err;
        }
        struct dmo_chunk c;
        if (!next_is_stored_in_hand(r, &c))
                return 0;
        const uint8_t *payload = r->buf + r->buf_off + DMO_CHUNK_HEADER_LEN;
        if (dmo_codec_check_stored(r->codec, &c, payload) < 0)
                return -EBADMSG;
        const size_t len = DMO_CHUNK_HEADER_LEN + c.payload_len;
        r->buf_off += len;
        r->stream_pos += len;
        r->parsed_chunks++;
        r->parsed_pages += c.npages;
        if (r->parsed_chunks == h->chunk_count &&
            (r->parsed_pages != h->image_pages || r->stream_pos != h->stream_len))
                return -EBADMSG;
        r->delivered_chunks++;
        r->delivered_pages += c.npages;
        r->in_place_chunks++;
        *pages = payload;
        *n = c.npages;
        return 1;
}

/* Keeps the codec's slots busy with parsed chunks, up to the next one
 * deliver_stored can hand out without them. */
static int fill(struct dmo_image_reader *r)
{
        while (r->parsed_chunks < r->info.header.chunk_count) {
                struct dmo_chunk peek;
                if (next_is_stored_in_hand(r, &peek))
                        return 0;
                struct dmo_chunk *c;
                int err = dmo_codec_acquire(r->codec, &c);
                if (err == -EAGAIN)
                        return 0;
                if (err < 0)
                        return err;
                err = parse_chunk(r, c);
                if (err == 0)
                        err = dmo_codec_submit(r->codec, c);
                else
                        dmo_codec_release(r->codec, c);
                if (err < 0)
                        return err;
        }
        return 0;
}

static int next_pages(struct dmo_image_reader *r, const void **pages, size_t *n)
{
        const struct dmo_image_header *h = &r->info.header;
        if (r->cur && r->cur_idx < r->cur->npages) {
                *pages = r->cur->restored + (size_t)r->cur_idx * r->ps;
                *n = r->cur->npages - r->cur_idx;
                r->delivered_pages += *n;
                r->cur_idx = r->cur->npages;
                return 1;
        }
        if (r->cur) {
                dmo_codec_release(r->codec, r->cur);
                r->cur = NULL;
        }
        int err = deliver_stored(r, pages, n);
        if (err != 0)
                return err;
        err = fill(r);
        if (err < 0)
                return err;
        struct dmo_chunk *c;
        err = dmo_codec_collect(r->codec, &c, true);
        if (err == -ENODATA) {
                if (r->delivered_chunks != h->chunk_count || r->delivered_pages != h->image_pages ||
                    r->stream_pos != h->stream_len)
                        return -EBADMSG;
                r->done = true;
                return 0;
        }
        if (err < 0)
                return err;
        r->cur = c;
        r->cur_idx = 0;
        if (c->error || c->npages == 0)
                return -EBADMSG;
        r->delivered_chunks++;
        *pages = c->restored;
        *n = c->npages;
        r->cur_idx = c->npages;
        r->delivered_pages += c->npages;
        return 1;
}

uint64_t dmo_image_reader_chunks_in_place(const struct dmo_image_reader *r)
{
        return r->in_place_chunks;
}

int dmo_image_reader_next_pages(struct dmo_image_reader *r, const void **pages, size_t *n)
{
        if (r->error)
                return r->error;
        if (r->done)
                return 0;
        if (r->encrypted && !r->keyed)
                return -ENOKEY;
        int ret = next_pages(r, pages, n);
        if (ret < 0)
                r->error = ret;
        return ret;
}
