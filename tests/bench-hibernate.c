/* bench-hibernate: hibernate and resume throughput on the simulated kernel's
 * realistic page stream, side by side with baselines measured in the same run
 * on the same file system: raw dd of the same bytes, lz4 -1 and zstd -1 on
 * the same bytes, a raw read of the same bytes, and the engine's limits: its
 * own codec alone on the same stream (page generation + compression +
 * checksums, no I/O; for LZ4 at each speed its pace can pick), the codec
 * alone decoding the engine's own image (decompression + checksums + the
 * sim kernel's check of each page, no I/O), and the disk alone (raw O_DIRECT
 * write and read of the image's extents in the engine's requests). The
 * swap file is opened with O_DIRECT, as a block device is. The last line,
 * engine/limit, is the limit's time over the engine's each way (1.00: the
 * engine at its limit). Also ns per progress event,
 * the peak RSS and the locked memory (VmLck, VmPin: the engine locks memory
 * as on a real kernel) of the hibernate and resume processes, and the levers
 * measured rather than assumed: the disk with O_DIRECT and larger requests,
 * xxh3 against CRC32C. Encrypted against plain in the same run (passphrase
 * mode; the Argon2id derivation happens before the data phase and is not in
 * the figure), best of two of each, alternated. Prints figures; never fails
 * on time.
 *
 * --sizes 256M,1G,4G (make bench-scaling): the same hibernate and resume at
 * each size instead, with the codec alone beside each, to show the time
 * grows linearly with the image.
 *
 * --dormouse PATH (make bench): also runs that dormouse binary's hibernate and
 * resume on the simulated kernel with the splash drawing 1920x1080 frames
 * (png output) and memory locked (DORMOUSE_DEBUG_LOCK_MEMORY), and prints
 * the memory it reports at the end of the data phase (DORMOUSE_DEBUG_TIMING):
 * the locked memory with the splash's frame buffers in it.
 *
 * Usage: bench-hibernate [--size SIZE | --sizes LIST] [--dir DIR] [--threads N]
 *                        [--compress ALGO] [--dormouse PATH]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lz4.h>

#include "cli/config.h"
#include "codec/codec.h"
#include "codec/hash.h"
#include "crypto/crypto.h"
#include "image/format.h"
#include "image/reader.h"
#include "engine/engine.h"
#include "kernel/blockdev.h"
#include "kernel/sim_kernel.h"
#include "kernel/sim_pages.h"
#include "progress/progress.h"
#include "tests/bench-kernel-image.h"
#include "tests/codec-testutil.h"
#include "util/cleanup.h"

static double now_s(void)
{
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double run_timed(const char *cmd)
{
        double t0 = now_s();
        int rc = system(cmd);
        double t = now_s() - t0;
        if (rc != 0) {
                fprintf(stderr, "bench: \"%s\" failed (%d)\n", cmd, rc);
                return -1;
        }
        return t;
}

static off_t file_size(const char *path)
{
        struct stat st;
        return stat(path, &st) == 0 ? st.st_size : -1;
}

struct child_result {
        int rc;
        struct dmo_engine_stats stats;
        double wall_s;
        /* /proc/self/status at the end of the data phase (kB): locked and
         * pinned memory, which only grow while mlockall(MCL_FUTURE) is on. */
        long vmlck_kib, vmpin_kib;
};

static long status_kib(const char *field)
{
        FILE *f = fopen("/proc/self/status", "r");
        if (!f)
                return -1;
        char line[256];
        long v = -1;
        size_t n = strlen(field);
        while (fgets(line, sizeof(line), f))
                if (strncmp(line, field, n) == 0 && line[n] == ':') {
                        v = strtol(line + n + 1, NULL, 10);
                        break;
                }
        fclose(f);
        return v;
}

static void sample_locked(struct child_result *r)
{
        r->vmlck_kib = status_kib("VmLck");
        r->vmpin_kib = status_kib("VmPin");
}

static void stats_ready_hook(void *ctx, const struct dmo_engine_stats *stats)
{
        (void)stats;
        sample_locked(ctx);
}

static void before_restore_hook(void *ctx)
{
        sample_locked(ctx);
}

/* Runs one engine cycle in a child process, so its peak RSS is its own. */
static int in_child(int (*fn)(void *arg, struct child_result *res), void *arg,
                    struct child_result *res, long *maxrss_kib)
{
        int fds[2];
        if (pipe(fds) < 0)
                return -errno;
        pid_t pid = fork();
        if (pid == 0) {
                close(fds[0]);
                struct child_result r = {0};
                r.rc = fn(arg, &r);
                if (write(fds[1], &r, sizeof(r)) != (ssize_t)sizeof(r))
                        _exit(3);
                _exit(0);
        }
        close(fds[1]);
        ssize_t n = read(fds[0], res, sizeof(*res));
        close(fds[0]);
        int status;
        struct rusage ru;
        wait4(pid, &status, 0, &ru);
        *maxrss_kib = ru.ru_maxrss;
        return n == (ssize_t)sizeof(*res) ? 0 : -EIO;
}

struct cycle_args {
        const char *swap;
        uint64_t size;
        unsigned threads;
        enum dmo_compress compress;
        bool encrypt;     /* passphrase mode, cheapest Argon2id (not measured) */
        bool lock_memory; /* mlockall, as the engine does on a real kernel */
        bool direct_io;   /* the target with O_DIRECT, as a block device is opened */
};

static const char bench_pass[] = "bench passphrase";
static const struct dmo_kdf_costs bench_kdf = {DMO_KDF_OPSLIMIT_MIN, DMO_KDF_MEMLIMIT_MIN};

static int bench_unlock(void *ctx, const struct dmo_image_info *info, struct dmo_crypto_key **key)
{
        (void)ctx;
        return dmo_crypto_unwrap_passphrase(&info->header.crypto.env, bench_pass,
                                            sizeof(bench_pass) - 1, key);
}

static int hibernate_cycle(void *p, struct child_result *res)
{
        struct cycle_args *a = p;
        struct dmo_sim_params sp = {.size_bytes = a->size, .seed = 42, .direct_io = a->direct_io};
        struct dmo_snapshot *snap;
        struct dmo_progress *progress;
        if (dmo_sim_kernel_new(&sp, DMO_SNAPSHOT_HIBERNATE, &snap) < 0 ||
            dmo_progress_new(DMO_MODE_HIBERNATE, &progress) < 0)
                return -1;
        struct dmo_hibernate_config hc = {
            .target = {.path = a->swap},
            .compress = a->compress,
            .threads = a->threads,
            .image_size = -1,
            .shutdown = DMO_SHUTDOWN_PLATFORM,
            .lock_memory = a->lock_memory,
            .profile = true, /* the write requests: the raw write's request size */
            .progress = progress,
            .hooks = {.ctx = res, .stats_ready = stats_ready_hook},
        };
        struct dmo_crypto_key *key = NULL;
        struct dmo_crypto_envelope env;
        if (a->encrypt) {
                if (dmo_crypto_key_new(&key) < 0 ||
                    dmo_crypto_wrap_passphrase(key, bench_pass, sizeof(bench_pass) - 1, &bench_kdf,
                                               &env) < 0)
                        return -1;
                hc.key = key;
                hc.envelope = &env;
        }
        struct dmo_hibernate_result hr;
        double t0 = now_s();
        int r = dmo_engine_hibernate(snap, &hc, &hr);
        res->wall_s = now_s() - t0;
        res->stats = hr.stats;
        dmo_crypto_key_free(key);
        dmo_snapshot_free(snap);
        dmo_progress_free(progress);
        if (r < 0 || hr.outcome != DMO_HIBERNATE_POWERED_OFF)
                fprintf(stderr, "bench: hibernate: outcome %d, step %d, %s\n", hr.outcome, hr.step,
                        strerror(-hr.error));
        return r < 0 || hr.outcome != DMO_HIBERNATE_POWERED_OFF ? -1 : 0;
}

static int resume_cycle(void *p, struct child_result *res)
{
        struct cycle_args *a = p;
        struct dmo_sim_params sp = {.size_bytes = a->size, .seed = 42, .direct_io = a->direct_io};
        struct dmo_snapshot *snap;
        struct dmo_progress *progress;
        if (dmo_sim_kernel_new(&sp, DMO_SNAPSHOT_RESUME, &snap) < 0 ||
            dmo_progress_new(DMO_MODE_RESUME, &progress) < 0)
                return -1;
        struct dmo_resume_config rc = {
            .target = {.path = a->swap},
            .threads = a->threads,
            .progress = progress,
            .lock_memory = a->lock_memory,
            .profile = true, /* a clock read per batch of pages: where the time goes */
            .unlock = bench_unlock,
            .hooks = {.ctx = res, .before_restore = before_restore_hook},
        };
        struct dmo_resume_result rr;
        double t0 = now_s();
        dmo_engine_resume(snap, &rc, &rr);
        res->wall_s = now_s() - t0;
        res->stats = rr.stats;
        dmo_snapshot_free(snap);
        dmo_progress_free(progress);
        return rr.outcome == DMO_RESUME_RESTORED ? 0 : -1;
}

struct event_args {
        struct dmo_progress *p;
        atomic_uint_fast64_t *shared; /* the baseline: one atomic counter for all */
        uint64_t n;
};

static void *add_events(void *arg)
{
        struct event_args *a = arg;
        for (uint64_t i = 0; i < a->n; i++)
                dmo_progress_add_pages(a->p, 1);
        return NULL;
}

static void *add_shared(void *arg)
{
        struct event_args *a = arg;
        for (uint64_t i = 0; i < a->n; i++)
                atomic_fetch_add_explicit(a->shared, 1, memory_order_relaxed);
        return NULL;
}

/* Wall time per event per thread, best of three (a shared machine only
 * ever makes it slower). shared: time the baseline instead. */
static double ns_per_event(unsigned threads, bool shared)
{
        struct dmo_progress *p;
        if (dmo_progress_new(DMO_MODE_HIBERNATE, &p) < 0)
                return -1;
        atomic_uint_fast64_t counter = 0;
        struct event_args a = {p, &counter, 20 * 1000 * 1000};
        double best = 1e9;
        for (int round = 0; round < 3; round++) {
                pthread_t t[8];
                double t0 = now_s();
                for (unsigned i = 0; i < threads; i++)
                        pthread_create(&t[i], NULL, shared ? add_shared : add_events, &a);
                for (unsigned i = 0; i < threads; i++)
                        pthread_join(t[i], NULL);
                double dt = now_s() - t0;
                if (dt < best)
                        best = dt;
        }
        dmo_progress_free(p);
        return best * 1e9 / (double)a.n;
}

/* An image's chunk stream, kept in memory for the decode alone: each
 * chunk's fields as the image stores them, its payload in blob. */
struct encoded_chunk {
        struct dmo_chunk meta; /* the header fields the image carries; no buffers */
        uint64_t at;           /* where its payload starts in blob */
};

struct encoded {
        struct encoded_chunk *chunks;
        size_t n, cap;
        uint8_t *blob; /* mapped apart, and not inherited by the children */
        uint64_t blob_len, blob_cap;
        /* image_chunks(): where the stream lies on the device, in order. */
        struct dmo_extent *ext;
        uint64_t n_ext;
};

static void encoded_free(struct encoded *e)
{
        free(e->chunks);
        if (e->blob)
                munmap(e->blob, e->blob_cap);
        free(e->ext);
        *e = (struct encoded){0};
}

static int encoded_keep(struct encoded *e, const struct dmo_chunk *ch)
{
        if (e->n == e->cap)
                return -EOVERFLOW;
        e->chunks[e->n++] = (struct encoded_chunk){
            .meta = {.npages = ch->npages,
                     .flags = ch->flags,
                     .payload_len = ch->payload_len,
                     .zero_map = ch->zero_map,
                     .payload_hash = ch->payload_hash,
                     .pages_hash = ch->pages_hash},
            .at = e->blob_len,
        };
        memcpy(e->blob + e->blob_len, ch->stored, ch->payload_len);
        e->blob_len += ch->payload_len;
        return 0;
}

static struct dmo_codec_params codec_params(const struct cycle_args *a, enum dmo_codec_dir dir,
                                            uint32_t page_size)
{
        return (struct dmo_codec_params){
            .dir = dir,
            .algo = a->compress,
            .page_size = page_size,
            .chunk_pages = DMO_CHUNK_MAX_PAGES, /* the image writer's default */
            .threads = a->threads,
        };
}

/* Feeds pages pages to the codec in chunks of chunk_pages, fill() writing
 * page i, and hands each chunk back to done() before releasing it; 0, or
 * -1 when the codec failed. */
typedef void (*page_fill_fn)(void *ctx, uint64_t page, uint8_t *dst, uint32_t page_size);
typedef void (*chunk_done_fn)(void *ctx, const struct dmo_chunk *ch);

static int codec_run(struct dmo_codec *c, uint64_t pages, unsigned chunk_pages, uint32_t page_size,
                     page_fill_fn fill, void *fill_ctx, chunk_done_fn done, void *done_ctx)
{
        uint64_t next = 0;
        for (;;) {
                struct dmo_chunk *ch;
                while (next < pages && dmo_codec_acquire(c, &ch) == 0) {
                        uint64_t n = pages - next < chunk_pages ? pages - next : chunk_pages;
                        for (uint64_t k = 0; k < n; k++)
                                fill(fill_ctx, next + k, ch->pages + k * page_size, page_size);
                        ch->npages = (uint32_t)n;
                        next += n;
                        dmo_codec_submit(c, ch);
                }
                int r = dmo_codec_collect(c, &ch, true);
                if (r == -ENODATA)
                        return 0;
                if (r < 0)
                        return -1;
                done(done_ctx, ch);
                dmo_codec_release(c, ch);
        }
}

/* The simulated kernel's page i (seed 42, the engine's stream). */
static void sim_fill(void *ctx, uint64_t page, uint8_t *dst, uint32_t page_size)
{
        (void)ctx;
        dmo_sim_page_fill(42, page, dst, page_size);
}

static void add_payload(void *ctx, const struct dmo_chunk *ch)
{
        *(uint64_t *)ctx += ch->payload_len;
}

/* The engine's codec alone on the same stream: the simulated kernel's
 * pages generated into each chunk (what the engine's read from the kernel
 * costs here), compressed and checksummed by the same workers; no I/O, no
 * image format. speed: dmo_codec_set_speed()'s (0: the level's own).
 * Seconds, or < 0; *stored: payload bytes. */
static double codec_alone(const struct cycle_args *a, uint64_t pages, uint32_t page_size,
                          unsigned speed, uint64_t *stored)
{
        struct dmo_codec_params cp = codec_params(a, DMO_CODEC_ENCODE, page_size);
        struct dmo_codec *c;
        if (dmo_codec_new(&cp, &c) < 0)
                return -1;
        dmo_codec_set_speed(c, speed);
        uint64_t out = 0;
        double t0 = now_s();
        if (codec_run(c, pages, cp.chunk_pages, page_size, sim_fill, NULL, add_payload, &out) < 0) {
                dmo_codec_free(c);
                return -1;
        }
        double t = now_s() - t0;
        dmo_codec_free(c);
        *stored = out;
        return t;
}

/* The engine's codec alone decoding the chunks in e (the engine's image,
 * image_chunks()): the same chunks, workers and checksums, each payload
 * copied into its slot (as
 * the image reader copies it from its read-ahead), and every page handed
 * back checked as the simulated kernel checks what a resume gives it
 * (generated again from the seed and compared, on this thread, the
 * engine's; the first page is the sim kernel's header); no I/O, no image
 * format. Seconds, or < 0 (a chunk that did
 * not decode, or a page that differs). */
static double codec_decode_alone(const struct cycle_args *a, const struct encoded *e,
                                 uint32_t page_size)
{
        struct dmo_codec_params cp = codec_params(a, DMO_CODEC_DECODE, page_size);
        struct dmo_codec *c;
        if (dmo_codec_new(&cp, &c) < 0)
                return -1;
        uint8_t *expect = malloc(page_size);
        if (!expect) {
                dmo_codec_free(c);
                return -1;
        }
        size_t next = 0;
        uint64_t page = 0;
        int bad = 0;
        double t0 = now_s();
        for (;;) {
                struct dmo_chunk *ch;
                while (next < e->n && dmo_codec_acquire(c, &ch) == 0) {
                        const struct encoded_chunk *k = &e->chunks[next++];
                        dmo_test_chunk_for_decode(ch, &k->meta, e->blob + k->at);
                        dmo_codec_submit(c, ch);
                }
                int r = dmo_codec_collect(c, &ch, true);
                if (r == -ENODATA)
                        break;
                if (r < 0 || ch->error) {
                        bad = 1;
                        if (r < 0)
                                break;
                }
                for (uint32_t k = 0; !ch->error && k < ch->npages; k++, page++) {
                        if (page == 0)
                                continue; /* the sim kernel's header page */
                        dmo_sim_page_fill(42, page, expect, page_size);
                        if (memcmp(ch->restored + (size_t)k * page_size, expect, page_size) != 0)
                                bad = 1;
                }
                dmo_codec_release(c, ch);
        }
        double t = now_s() - t0;
        free(expect);
        dmo_codec_free(c);
        if (bad)
                fprintf(stderr, "bench: the codec alone did not decode what it encoded\n");
        return bad ? -1 : t;
}

static int read_dev(void *ctx, void *buf, size_t len, uint64_t off)
{
        return dmo_blockdev_pread(ctx, buf, len, off);
}

/* The chunks of the plain image in the swap file at path, read into memory
 * along its extents (untimed: the decode alone decodes them from there),
 * and the extents. 0 or < 0. */
static int image_chunks(const char *path, uint32_t page_size, struct encoded *e)
{
        *e = (struct encoded){0};
        struct dmo_blockdev *dev;
        if (dmo_blockdev_open(path, false, NULL, &dev) < 0)
                return -1;
        struct dmo_image_info info;
        const struct dmo_image_header *h = &info.header;
        struct dmo_extent *ext = NULL, *scratch = NULL;
        uint8_t *page = malloc(page_size);
        int r = -1;
        if (!page || dmo_image_probe(dev, 0, page_size, &info) < 0 ||
            (h->flags & DMO_IMAGE_F_ENCRYPTED))
                goto out;
        ext = calloc(h->extent_count, sizeof(*ext));
        scratch = calloc(dmo_map_scratch_len(h), sizeof(*scratch));
        const struct dmo_map_bounds b = {
            .device_size = info.device_size,
            .swap_header_offset = info.swap_header_offset,
            .header_offset = info.sig.header_offset,
        };
        e->cap = h->chunk_count;
        e->chunks = calloc(e->cap, sizeof(*e->chunks));
        uint8_t *stream = malloc(h->stream_len + page_size);
        /* The resume child is forked while the parent holds this: it must
         * not inherit it (it would lock and count it as its own memory). */
        e->blob_cap = h->stream_len ? h->stream_len : 1;
        e->blob =
            mmap(NULL, e->blob_cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (e->blob == MAP_FAILED || madvise(e->blob, e->blob_cap, MADV_DONTFORK) < 0) {
                if (e->blob == MAP_FAILED)
                        e->blob = NULL;
                free(stream);
                goto out;
        }
        if (!ext || !scratch || !e->chunks || !stream ||
            dmo_extent_map_load(h, &b, read_dev, dev, page, ext, scratch) < 0) {
                free(stream);
                goto out;
        }
        uint64_t got = 0;
        for (uint64_t i = 0; i < h->extent_count && got < h->stream_len; i++) {
                uint64_t len = ext[i].pages * page_size;
                if (dmo_blockdev_pread(dev, stream + got, len, ext[i].offset) < 0)
                        break;
                got += len;
        }
        uint64_t pos = 0;
        while (got >= h->stream_len && e->n < e->cap &&
               pos + DMO_CHUNK_HEADER_LEN <= h->stream_len) {
                struct dmo_chunk c;
                if (dmo_chunk_header_decode(stream + pos, page_size, h->chunk_pages, h->compress,
                                            false, &c) < 0 ||
                    c.payload_len > h->stream_len - pos - DMO_CHUNK_HEADER_LEN)
                        break;
                c.stored = stream + pos + DMO_CHUNK_HEADER_LEN;
                encoded_keep(e, &c);
                pos += DMO_CHUNK_HEADER_LEN + c.payload_len;
        }
        free(stream);
        r = e->n == h->chunk_count && pos == h->stream_len ? 0 : -1;
        e->ext = ext;
        e->n_ext = h->extent_count;
        ext = NULL;
out:
        if (r < 0)
                encoded_free(e);
        free(page);
        free(ext);
        free(scratch);
        dmo_blockdev_free(dev);
        return r;
}

/* The most the engine asks of the device at once: the writer's stream
 * buffers and the reader's read-ahead requests are 1 MiB (image/writer.c,
 * image/reader.c), cut where the slots are not adjacent. */
#define ENGINE_REQUEST_MAX (1u << 20)

/* The disk alone: the image's stream extents written (write) or read in
 * order with O_DIRECT, in requests of at most ENGINE_REQUEST_MAX along each
 * extent, one in flight at a time as on the engine's one I/O or read-ahead
 * thread; a write ends with an fsync, as the engine's image does. The
 * data is the stream's first pages, whatever the image held. Seconds, and
 * *requests; < 0 when O_DIRECT is refused here or a transfer fails. */
static double raw_direct(const char *path, const struct encoded *e, uint32_t page_size, bool write,
                         uint64_t *requests)
{
        int fd = open(path, (write ? O_WRONLY : O_RDONLY) | O_DIRECT | O_CLOEXEC);
        if (fd < 0)
                return -1;
        const size_t req = ENGINE_REQUEST_MAX / page_size * page_size;
        uint8_t *buf = aligned_alloc(page_size, req);
        if (!buf) {
                close(fd);
                return -1;
        }
        for (size_t i = 0; i < req / page_size; i++)
                dmo_sim_page_fill(42, i, buf + i * page_size, page_size);
        bool ok = true;
        uint64_t n_req = 0;
        double t0 = now_s();
        for (uint64_t i = 0; ok && i < e->n_ext; i++) {
                const uint64_t len = e->ext[i].pages * page_size;
                for (uint64_t done = 0; ok && done < len; n_req++) {
                        size_t n = len - done < req ? (size_t)(len - done) : req;
                        off_t off = (off_t)(e->ext[i].offset + done);
                        ssize_t r = write ? pwrite(fd, buf, n, off) : pread(fd, buf, n, off);
                        ok = r == (ssize_t)n;
                        done += n;
                }
        }
        if (ok && write)
                ok = fsync(fd) == 0;
        double t = now_s() - t0;
        free(buf);
        close(fd);
        *requests = n_req;
        return ok ? t : -1;
}

/* CRC32C with the SSE4.2 instruction, 8 bytes at a time (the hardware
 * checksum a format could use instead of xxh3). */
#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint64_t crc32c_hw(const void *data, size_t len)
{
        const uint8_t *p = data;
        uint64_t c = 0xffffffffu;
        for (; len >= 8; len -= 8, p += 8) {
                uint64_t v;
                memcpy(&v, p, 8);
                c = __builtin_ia32_crc32di(c, v);
        }
        for (; len; len--, p++)
                c = __builtin_ia32_crc32qi((uint32_t)c, *p);
        return c ^ 0xffffffffu;
}
#endif

/* MB/s of one checksum over buf, best of three passes. */
static double hash_mbs(uint64_t (*fn)(const void *, size_t), const uint8_t *buf, size_t len)
{
        double best = 1e9;
        volatile uint64_t sink = 0;
        for (int i = 0; i < 3; i++) {
                double t0 = now_s();
                for (size_t off = 0; off < len; off += 64 * 4096)
                        sink += fn(buf + off, 64 * 4096);
                double t = now_s() - t0;
                if (t < best)
                        best = t;
        }
        (void)sink;
        return (double)len / best / 1e6;
}

static void print_checksum_levers(uint32_t page_size)
{
        const size_t len = 64u << 20;
        uint8_t *buf = malloc(len);
        if (!buf)
                return;
        for (size_t i = 0; i < len / page_size; i++)
                dmo_sim_page_fill(42, i, buf + i * page_size, page_size);
        printf("%-52s %10.0f\n", "lever: checksum xxh3-64, SIMD",
               hash_mbs(dmo_hash64_simd, buf, len));
        printf("%-52s %10.0f\n", "lever: checksum xxh3-64, scalar",
               hash_mbs(dmo_hash64_scalar, buf, len));
#if defined(__x86_64__)
        if (__builtin_cpu_supports("sse4.2"))
                printf("%-52s %10.0f\n", "lever: checksum CRC32C, SSE4.2 (one stream)",
                       hash_mbs(crc32c_hw, buf, len));
#endif
        free(buf);
}

/* The raw page stream as a file, for the command-line tools. */
static int write_stream(const char *path, uint64_t pages, uint32_t page_size, double *gen_s)
{
        FILE *f = fopen(path, "wb");
        if (!f)
                return -1;
        static uint8_t buf[1 << 20];
        const uint64_t per = sizeof(buf) / page_size;
        double t = 0;
        for (uint64_t i = 0; i < pages; i += per) {
                uint64_t n = pages - i < per ? pages - i : per;
                double t0 = now_s();
                for (uint64_t k = 0; k < n; k++)
                        dmo_sim_page_fill(42, i + k, buf + k * page_size, page_size);
                t += now_s() - t0;
                if (fwrite(buf, page_size, n, f) != n) {
                        fclose(f);
                        return -1;
                }
        }
        *gen_s = t;
        return fclose(f) == 0 ? 0 : -1;
}

/* Page streams for the size comparison with the kernel: the simulated
 * kernel's (what the engine gets), and three others picked from it by page
 * kind, each a pure function of the page's place like the engine's. */
enum mix {
        MIX_ENGINE,         /* the sim kernel's: 35% zero pages */
        MIX_NO_ZERO,        /* without its zero pages, as Linux >= 6.9 hands them over */
        MIX_INCOMPRESSIBLE, /* its random pages and one in four of the others */
        MIX_TEXT_CODE,      /* text, code, page tables and copies only */
        MIX_COUNT,
};

static const char *const mix_names[MIX_COUNT] = {
    "sim kernel's stream (the engine's)",
    "the same without zero pages",
    "mostly incompressible (55% random)",
    "text, code and page tables",
};

static bool mix_keeps(enum mix m, uint64_t index)
{
        if (m == MIX_ENGINE || index == 0)
                return true;
        enum dmo_sim_page_kind k = dmo_sim_page_kind(42, index);
        switch (m) {
        case MIX_NO_ZERO:
                return k != DMO_SIM_PAGE_ZERO;
        case MIX_INCOMPRESSIBLE:
                return k == DMO_SIM_PAGE_RANDOM || (k != DMO_SIM_PAGE_ZERO && index % 4 == 0);
        case MIX_TEXT_CODE:
                return k == DMO_SIM_PAGE_TEXT || k == DMO_SIM_PAGE_CODE ||
                       k == DMO_SIM_PAGE_POINTERS || k == DMO_SIM_PAGE_COPY;
        default:
                return true;
        }
}

struct page_source {
        enum mix mix;
        uint64_t index; /* the next sim page to consider */
};

/* The stream's next page; the first is the sim's page 0 (all zero here,
 * the header page in the engine's: one page either way). */
static void source_next(struct page_source *s, uint8_t *buf, uint32_t page_size)
{
        while (!mix_keeps(s->mix, s->index))
                s->index++;
        dmo_sim_page_fill(42, s->index++, buf, page_size);
}

/* What dormouse's image holds for a stream at one speed, laid out as the
 * writer lays it out: chunks (header + payload) back to back, the stream
 * padded to a page, one extent-map page (the swap's slots in one run; the
 * engine's own image says how many it took) and the header page. */
struct dmo_size {
        uint64_t chunks, payload, zero_pages, raw_chunks, bytes;
};

static uint64_t dormouse_bytes(uint64_t chunks, uint64_t payload, uint32_t page_size)
{
        const uint64_t stream = chunks * DMO_CHUNK_HEADER_LEN + payload;
        return (stream + page_size - 1) / page_size * page_size + 2 * (uint64_t)page_size;
}

static void mix_fill(void *ctx, uint64_t page, uint8_t *dst, uint32_t page_size)
{
        (void)page;
        source_next(ctx, dst, page_size);
}

static void add_size(void *ctx, const struct dmo_chunk *ch)
{
        struct dmo_size *s = ctx;
        s->chunks++;
        s->payload += ch->payload_len;
        s->zero_pages += (uint64_t)__builtin_popcountll(ch->zero_map);
        if (!(ch->flags & DMO_CHUNK_COMPRESSED) && ch->payload_len)
                s->raw_chunks++;
}

/* The engine's codec on a mix: its workers, its random-data trial, at
 * speed (dmo_codec_set_speed) with chunk_pages pages a chunk. 0 or < 0. */
static int codec_size(const struct cycle_args *a, enum mix mix, uint64_t pages,
                      unsigned chunk_pages, unsigned speed, uint32_t page_size,
                      struct dmo_size *out)
{
        struct dmo_codec_params cp = codec_params(a, DMO_CODEC_ENCODE, page_size);
        cp.chunk_pages = chunk_pages;
        struct dmo_codec *c;
        if (dmo_codec_new(&cp, &c) < 0)
                return -1;
        dmo_codec_set_speed(c, speed);
        struct page_source src = {mix, 0};
        struct dmo_size s = {0};
        if (codec_run(c, pages, chunk_pages, page_size, mix_fill, &src, add_size, &s) < 0) {
                dmo_codec_free(c);
                return -1;
        }
        dmo_codec_free(c);
        s.bytes = dormouse_bytes(s.chunks, s.payload, page_size);
        *out = s;
        return 0;
}

/* The same chunks without the codec's random-data trial: every chunk's
 * non-zero pages through LZ4 at acceleration 1, stored raw only where LZ4
 * does not shrink them. The trial's cost in bytes is the difference. */
static int lz4_no_trial_size(enum mix mix, uint64_t pages, uint32_t page_size, struct dmo_size *out)
{
        const size_t chunk = (size_t)DMO_CHUNK_MAX_PAGES * page_size;
        uint8_t *in = malloc(chunk), *dst = malloc(chunk);
        if (!in || !dst) {
                free(in);
                free(dst);
                return -1;
        }
        struct page_source src = {mix, 0};
        struct dmo_size s = {0};
        for (uint64_t next = 0; next < pages;) {
                uint64_t n =
                    pages - next < DMO_CHUNK_MAX_PAGES ? pages - next : DMO_CHUNK_MAX_PAGES;
                size_t nz = 0;
                for (uint64_t k = 0; k < n; k++) {
                        uint8_t *p = in + nz * page_size;
                        source_next(&src, p, page_size);
                        bool zero = p[0] == 0 && memcmp(p, p + 1, page_size - 1) == 0;
                        if (zero)
                                s.zero_pages++;
                        else
                                nz++;
                }
                next += n;
                const int len = (int)(nz * page_size);
                int c = len ? LZ4_compress_default((const char *)in, (char *)dst, len, len - 1) : 0;
                s.payload += c > 0 ? (uint64_t)c : (uint64_t)len;
                s.raw_chunks += c <= 0 && len > 0;
                s.chunks++;
        }
        free(in);
        free(dst);
        s.bytes = dormouse_bytes(s.chunks, s.payload, page_size);
        *out = s;
        return 0;
}

/* The kernel's image of a mix with algo; 0, or < 0 (-ENOSYS: not built). */
static int kernel_size(enum dmo_kernel_compressor algo, enum mix mix, uint64_t pages,
                       uint32_t page_size, struct dmo_kernel_image_size *out)
{
        struct dmo_kernel_image *k;
        int r = dmo_kernel_image_new(algo, page_size, &k);
        if (r < 0)
                return r;
        struct page_source src = {mix, 0};
        for (uint64_t i = 0; r == 0 && i < pages; i++) {
                source_next(&src, dmo_kernel_image_page(k), page_size);
                r = dmo_kernel_image_add(k);
        }
        if (r == 0)
                r = dmo_kernel_image_finish(k, out);
        dmo_kernel_image_free(k);
        return r;
}

static double mbytes(uint64_t b)
{
        return (double)b / 1e6;
}

/* "0.97 0.99": dormouse's bytes over the kernel's LZO and LZ4 images
 * ("-" where not modelled). */
static const char *vs_kernel(char *buf, size_t len, uint64_t ours,
                             const struct dmo_kernel_image_size k[2], const bool have[2])
{
        char lzo[16] = "   -", lz4[16] = "   -";
        if (have[0])
                snprintf(lzo, sizeof(lzo), "%4.2f", (double)ours / (double)k[0].bytes);
        if (have[1])
                snprintf(lz4, sizeof(lz4), "%4.2f", (double)ours / (double)k[1].bytes);
        snprintf(buf, len, "%s %s", lzo, lz4);
        return buf;
}

/* The pace's speeds, as in the codec-alone lines. */
static const unsigned size_speeds[] = {1, 2, 4, 8, DMO_CODEC_SPEED_STORE};
#define N_SIZE_SPEEDS DMO_ARRAY_SIZE(size_speeds)

/* dormouse's image against what Linux's own hibernation would store for
 * the same pages (tests/bench-kernel-image.h), on the engine's stream (the
 * engine's own image, and the codec alone at each speed the pace can
 * pick) and on three other mixes (the codec alone, mix_pages pages each),
 * then where the bytes of the engine's stream go. Untimed. */
static int print_size_against_kernel(const struct cycle_args *a, uint64_t pages, uint64_t mix_pages,
                                     uint32_t page_size, const struct dmo_engine_stats *eng,
                                     uint64_t extents)
{
        printf("\nimage size against the kernel's own hibernation of the same pages "
               "(kernel/power/swap.c, 6.12: 32-page blocks, an 8-byte length each, padded to "
               "pages, the swap map; liblzo2's lzo1x_1_compress, liblz4's "
               "LZ4_compress_default); dormouse at each speed: the codec alone in the writer's "
               "layout; each cell: dormouse / kernel LZO, dormouse / kernel LZ4\n");
        printf("%-36s %7s %7s %7s | %-9s %-9s %-9s %-9s %-9s | %-9s\n", "", "MB", "LZO MB",
               "LZ4 MB", "accel 1", "accel 2", "accel 4", "accel 8", "stored", "engine");
        static const enum dmo_kernel_compressor algos[2] = {DMO_KERNEL_LZO, DMO_KERNEL_LZ4};
        struct dmo_kernel_image_size keng[2] = {{0}};
        bool have[2] = {false, false};
        struct dmo_size at_speed[N_SIZE_SPEEDS];
        for (int m = 0; m < MIX_COUNT; m++) {
                const uint64_t n = m == MIX_ENGINE ? pages : mix_pages;
                struct dmo_kernel_image_size k[2] = {{0}};
                for (int i = 0; i < 2; i++) {
                        int r = kernel_size(algos[i], (enum mix)m, n, page_size, &k[i]);
                        if (r < 0 && r != -ENOSYS)
                                return -1;
                        have[i] = r == 0;
                }
                char cells[N_SIZE_SPEEDS + 1][32];
                for (size_t i = 0; i < N_SIZE_SPEEDS; i++) {
                        struct dmo_size s;
                        if (codec_size(a, (enum mix)m, n, DMO_CHUNK_MAX_PAGES, size_speeds[i],
                                       page_size, &s) < 0)
                                return -1;
                        if (m == MIX_ENGINE)
                                at_speed[i] = s;
                        vs_kernel(cells[i], sizeof(cells[i]), s.bytes, k, have);
                }
                if (m == MIX_ENGINE) {
                        vs_kernel(cells[N_SIZE_SPEEDS], sizeof(cells[0]), eng->stored_bytes, k,
                                  have);
                        keng[0] = k[0];
                        keng[1] = k[1];
                } else {
                        cells[N_SIZE_SPEEDS][0] = '\0';
                }
                char lzo_mb[16] = "-";
                if (have[0])
                        snprintf(lzo_mb, sizeof(lzo_mb), "%.1f", mbytes(k[0].bytes));
                printf("%-36s %7.1f %7s %7.1f | %-9s %-9s %-9s %-9s %-9s | %-9s\n", mix_names[m],
                       mbytes(n * page_size), lzo_mb, mbytes(k[1].bytes), cells[0], cells[1],
                       cells[2], cells[3], cells[4], cells[5]);
        }

        /* Where the bytes of the engine's stream go, each lever alone
         * against dormouse at acceleration 1 (MB, and % of the kernel's LZ4
         * image). */
        struct dmo_size half, no_trial;
        if (codec_size(a, MIX_ENGINE, pages, DMO_CHUNK_MAX_PAGES / 2, 1, page_size, &half) < 0 ||
            lz4_no_trial_size(MIX_ENGINE, pages, page_size, &no_trial) < 0)
                return -1;
        const struct dmo_size *one = &at_speed[0];
        const double k4 = (double)keng[1].bytes;
#define PCT(b) (100.0 * (double)(b) / k4)
        printf("where the bytes go, the engine's stream (MB; %% of the kernel's LZ4 image):\n");
        for (int i = 0; i < 2; i++) {
                if (!have[i] && i == 0)
                        continue;
                const struct dmo_kernel_image_size *k = &keng[i];
                printf("  kernel %s: %.1f = compressed %.1f (%llu blocks) + lengths %.2f + page "
                       "padding %.1f (%.1f%%) + header page and %llu swap-map pages %.2f\n",
                       dmo_kernel_image_name(algos[i]), mbytes(k->bytes), mbytes(k->cmp_bytes),
                       (unsigned long long)k->blocks, mbytes(k->header_bytes), mbytes(k->pad_bytes),
                       PCT(k->pad_bytes), (unsigned long long)k->map_pages,
                       mbytes((1 + k->map_pages) * page_size));
        }
        const uint64_t hdrs = one->chunks * DMO_CHUNK_HEADER_LEN;
        printf("  dormouse, LZ4 acceleration 1: %.1f = payload %.1f (%llu zero pages elided, "
               "%llu of %llu chunks raw) + chunk headers %.2f (%.2f%%) + stream tail, map and "
               "header pages %.2f\n",
               mbytes(one->bytes), mbytes(one->payload), (unsigned long long)one->zero_pages,
               (unsigned long long)one->raw_chunks, (unsigned long long)one->chunks, mbytes(hdrs),
               PCT(hdrs), mbytes(one->bytes - one->payload - hdrs));
        printf("  the codec's random-data trial: %+.2f (%+.2f%%; %llu chunks raw with it, %llu "
               "without)\n",
               mbytes(one->payload) - mbytes(no_trial.payload),
               PCT((double)one->payload - (double)no_trial.payload),
               (unsigned long long)one->raw_chunks, (unsigned long long)no_trial.raw_chunks);
        printf("  32-page chunks instead of 64: %+.2f (%+.2f%%)\n",
               mbytes(half.bytes) - mbytes(one->bytes),
               PCT((double)half.bytes - (double)one->bytes));
        for (size_t i = 1; i < N_SIZE_SPEEDS; i++) {
                char label[48];
                if (size_speeds[i] == DMO_CODEC_SPEED_STORE)
                        snprintf(label, sizeof(label), "every chunk stored as it is");
                else
                        snprintf(label, sizeof(label), "the pace at acceleration %u",
                                 size_speeds[i]);
                printf("  %s: %+.1f (%+.1f%%)\n", label,
                       mbytes(at_speed[i].bytes) - mbytes(one->bytes),
                       PCT((double)at_speed[i].bytes - (double)one->bytes));
        }
        printf("  the engine's image: %+.1f (%+.1f%%; LZ4 mean speed %.2f, %llu of %llu chunks "
               "stored as they are, %llu extents)\n",
               mbytes(eng->stored_bytes) - mbytes(one->bytes),
               PCT((double)eng->stored_bytes - (double)one->bytes), eng->profile.mean_speed,
               (unsigned long long)eng->profile.stored_chunks,
               (unsigned long long)eng->profile.chunks, (unsigned long long)extents);
#undef PCT
        return 0;
}

static int make_swap(const char *swap, uint64_t size)
{
        char cmd[1024];
        snprintf(cmd, sizeof(cmd),
                 "rm -f '%s' && truncate -s %llu '%s' && mkswap -q '%s' >/dev/null 2>&1", swap,
                 (unsigned long long)(size + size / 4 + (32ull << 20)), swap, swap);
        if (system(cmd) != 0) {
                fprintf(stderr, "bench: mkswap failed\n");
                return -1;
        }
        return 0;
}

static int drop_cache(const char *path)
{
        char cmd[1024];
        /* GNU dd's nocache with count=0 advises DONTNEED for the whole file. */
        snprintf(cmd, sizeof(cmd), "dd if='%s' iflag=nocache count=0 status=none", path);
        return system(cmd) == 0 ? 0 : -1;
}

static int image_chunks(const char *path, uint32_t page_size, struct encoded *e);

/* One hibernate and one cold resume, each in a child process. keep
 * (nullable): the image's chunks, read between the two (the resume takes
 * the image's signature off). */
static int cycle(struct cycle_args *a, struct child_result *h, long *h_rss, struct child_result *r,
                 long *r_rss, struct encoded *keep)
{
        if (in_child(hibernate_cycle, a, h, h_rss) < 0 || h->rc != 0) {
                fprintf(stderr, "bench: hibernate failed\n");
                return -1;
        }
        if (keep && image_chunks(a->swap, (uint32_t)sysconf(_SC_PAGESIZE), keep) < 0) {
                fprintf(stderr, "bench: could not read the engine's image back\n");
                return -1;
        }
        if (drop_cache(a->swap) < 0)
                return -1;
        if (in_child(resume_cycle, a, r, r_rss) < 0 || r->rc != 0) {
                fprintf(stderr, "bench: resume failed (not bit-exact?)\n");
                return -1;
        }
        return 0;
}

struct cli_memory {
        long locked_kib, vmlck_kib, hwm_kib;
        /* hibernate: dormouse's own memory not all zero at the snapshot,
         * what it puts in the image; -1 when not said (resume) */
        double own_nonzero_mib;
};

/* Runs `dormouse CMD` on the simulated kernel with a 1080p splash and
 * memory locked, and reads the memory line of its timing output. */
static int cli_memory(const char *dormouse, const char *cmd, uint64_t size, const char *swap,
                      const char *work, struct cli_memory *m)
{
        char line[1024];
        snprintf(line, sizeof(line),
                 "DORMOUSE_DEBUG_TIMING=1 DORMOUSE_DEBUG_LOCK_MEMORY=1 '%s' %s --kernel sim "
                 "--sim-size %llu --resume-device '%s' --splash 'png:%s/frames-%s:1920x1080' "
                 "--config /dev/null 2>&1 >/dev/null",
                 dormouse, cmd, (unsigned long long)size, swap, work, cmd);
        FILE *f = popen(line, "r");
        if (!f)
                return -1;
        int found = 0;
        m->own_nonzero_mib = -1;
        while (fgets(line, sizeof(line), f)) {
                const char *own = strstr(line, "own memory at the snapshot: ");
                if (own)
                        sscanf(own, "own memory at the snapshot: %lf MiB not all zero",
                               &m->own_nonzero_mib);
                const char *at = strstr(line, "memory at the end of the data phase: locked ");
                if (at && sscanf(at,
                                 "memory at the end of the data phase: locked %ld KiB resident "
                                 "(smaps Locked), %ld KiB mapped (VmLck), pinned %*d KiB (VmPin), "
                                 "peak resident %ld KiB",
                                 &m->locked_kib, &m->vmlck_kib, &m->hwm_kib) == 3)
                        found = 1;
        }
        int rc = pclose(f);
        if (!found || rc != 0) {
                fprintf(stderr, "bench: dormouse %s with the splash: exit %d, %s\n", cmd, rc,
                        found ? "memory reported" : "no memory line");
                return -1;
        }
        return 0;
}

static void print_splash_memory(const char *dormouse, uint64_t size, const char *swap,
                                const char *work)
{
        struct cli_memory h = {0}, r = {0};
        if (make_swap(swap, size) < 0 ||
            cli_memory(dormouse, "hibernate", size, swap, work, &h) < 0 ||
            cli_memory(dormouse, "resume", size, swap, work, &r) < 0)
                return;
        printf("with the splash at 1920x1080 (%s, png output): locked resident (smaps Locked) "
               "hibernate %.1f MiB, resume %.1f MiB; locked mappings (VmLck) %.1f MiB, %.1f MiB; "
               "peak RSS %.1f MiB, %.1f MiB (target <= 64); hibernate's own memory not all zero "
               "at the snapshot (in the image) %.2f MiB\n",
               dormouse, h.locked_kib / 1024.0, r.locked_kib / 1024.0, h.vmlck_kib / 1024.0,
               r.vmlck_kib / 1024.0, h.hwm_kib / 1024.0, r.hwm_kib / 1024.0, h.own_nonzero_mib);
}

/* The same work at each size: time per page should not grow with the size. */
static int run_scaling(struct cycle_args *a, const char *list, uint32_t page_size)
{
        printf("scaling: hibernate and cold resume at each size, the codec alone beside them "
               "(MB/s of image bytes; us/MiB = time per MiB, flat when linear)\n\n");
        printf("%8s | %9s %8s %8s | %9s %8s %8s | %8s %9s | %8s %8s\n", "size", "hibernate", "MB/s",
               "us/MiB", "resume", "MB/s", "us/MiB", "codec", "MB/s", "hib/codec", "RSS MiB");
        char *copy = strdup(list);
        if (!copy)
                return -1;
        double first_hib = 0, first_res = 0;
        int rc = 0;
        for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save)) {
                uint64_t size;
                if (dmo_parse_size(tok, &size) < 0) {
                        fprintf(stderr, "bench: bad size \"%s\"\n", tok);
                        rc = -1;
                        break;
                }
                a->size = size;
                uint64_t pages = size / page_size, stored;
                double mb = (double)(pages * page_size) / 1e6, mib = mb * 1e6 / 1048576.0;
                if (make_swap(a->swap, size) < 0) {
                        rc = -1;
                        break;
                }
                double codec_s = codec_alone(a, pages, page_size, 0, &stored);
                struct child_result h = {0}, r = {0};
                long h_rss = 0, r_rss = 0;
                if (codec_s < 0 || cycle(a, &h, &h_rss, &r, &r_rss, NULL) < 0) {
                        rc = -1;
                        break;
                }
                double hib_s = h.stats.data_s + h.stats.sync_s, res_s = r.stats.restore_s;
                if (first_hib == 0) {
                        first_hib = hib_s / mib;
                        first_res = res_s / mib;
                }
                printf("%7.0fM | %8.2fs %8.0f %8.0f | %8.2fs %8.0f %8.0f | %7.2fs %9.0f | %8.2f "
                       "%8.1f\n",
                       mib, hib_s, mb / hib_s, hib_s / mib * 1e6, res_s, mb / res_s,
                       res_s / mib * 1e6, codec_s, mb / codec_s, hib_s / codec_s,
                       (double)(h_rss > r_rss ? h_rss : r_rss) / 1024.0);
                fflush(stdout);
                printf("%8s   time per MiB vs the first size: hibernate %.2fx, resume %.2fx\n", "",
                       hib_s / mib / first_hib, res_s / mib / first_res);
        }
        free(copy);
        return rc;
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
            {"size", required_argument, NULL, 's'},
            {"dir", required_argument, NULL, 'd'},
            {"threads", required_argument, NULL, 't'},
            {"compress", required_argument, NULL, 'c'},
            {"sizes", required_argument, NULL, 'S'},
            {"dormouse", required_argument, NULL, 'D'},
            {0},
        };
        const char *sizes = NULL, *dormouse = NULL;
        uint64_t size = 1ull << 30;
        const char *dir = ".";
        struct cycle_args a = {.compress = DMO_COMPRESS_LZ4};
        int opt;
        while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (opt) {
                case 's':
                        if (dmo_parse_size(optarg, &size) < 0)
                                return 2;
                        break;
                case 'd':
                        dir = optarg;
                        break;
                case 't':
                        a.threads = (unsigned)atoi(optarg);
                        break;
                case 'c':
                        if (dmo_compress_parse(optarg, &a.compress) < 0)
                                return 2;
                        break;
                case 'S':
                        sizes = optarg;
                        break;
                case 'D':
                        dormouse = optarg;
                        break;
                default:
                        return 2;
                }
        }
        a.size = size;
        char work[512], swap[600], raw[600], cmd[2048];
        snprintf(work, sizeof(work), "%s/bench-work", dir);
        snprintf(swap, sizeof(swap), "%s/swapfile", work);
        snprintf(raw, sizeof(raw), "%s/raw.bin", work);
        a.swap = swap;
        snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", work, work);
        if (system(cmd) != 0)
                return 1;

        const uint32_t page_size = (uint32_t)sysconf(_SC_PAGESIZE);
        /* The target as a real kernel's swap partition is opened. */
        a.direct_io = true;
        /* Lock memory as the engine does on a real kernel when allowed to. */
        struct rlimit ml;
        a.lock_memory =
            geteuid() == 0 || (getrlimit(RLIMIT_MEMLOCK, &ml) == 0 && ml.rlim_cur == RLIM_INFINITY);
        if (sizes) {
                printf("dormouse scaling benchmark: the simulated kernel's page stream (seed 42), "
                       "%ld CPUs, compress %s, page %u B, memory %s\n",
                       sysconf(_SC_NPROCESSORS_ONLN), dmo_compress_name(a.compress), page_size,
                       a.lock_memory ? "locked" : "not locked (no CAP_IPC_LOCK)");
                int r = run_scaling(&a, sizes, page_size);
                snprintf(cmd, sizeof(cmd), "rm -rf '%s'", work);
                return system(cmd) == 0 && r == 0 ? 0 : 1;
        }
        const uint64_t pages = size / page_size;
        const double mb = (double)(pages * page_size) / 1e6;
        printf("dormouse benchmark: %.0f MB of the simulated kernel's page stream (seed 42), "
               "%ld CPUs, compress %s, page %u B, memory %s\n",
               mb, sysconf(_SC_NPROCESSORS_ONLN), dmo_compress_name(a.compress), page_size,
               a.lock_memory ? "locked" : "not locked (no CAP_IPC_LOCK)");

        /* The same bytes the engine will see, for the command-line tools. */
        double gen_s;
        if (write_stream(raw, pages, page_size, &gen_s) < 0)
                return 1;
        if (make_swap(swap, size) < 0)
                return 1;

        snprintf(cmd, sizeof(cmd), "dd if='%s' of='%s/dd.out' bs=1M conv=fsync status=none", raw,
                 work);
        double dd_s = run_timed(cmd);
        snprintf(cmd, sizeof(cmd), "lz4 -1 -q -f '%s' '%s/raw.lz4'", raw, work);
        double lz4_s = run_timed(cmd);
        snprintf(cmd, sizeof(cmd), "%s/raw.lz4", work);
        double lz4_ratio = mb * 1e6 / (double)file_size(cmd);
        snprintf(cmd, sizeof(cmd), "zstd -1 -q -f '%s' -o '%s/raw.zst'", raw, work);
        double zstd_s = run_timed(cmd);
        snprintf(cmd, sizeof(cmd), "%s/raw.zst", work);
        double zstd_ratio = mb * 1e6 / (double)file_size(cmd);
        /* Cold reads on both sides. */
        if (drop_cache(raw) < 0)
                return 1;
        snprintf(cmd, sizeof(cmd), "dd if='%s' of=/dev/null bs=1M status=none", raw);
        double read_s = run_timed(cmd);
        uint64_t codec_stored = 0;
        double codec_s = codec_alone(&a, pages, page_size, 0, &codec_stored);
        if (codec_s < 0)
                return 1;
        /* The speeds the writer's pace steps through (LZ4 at level 0 only,
         * image/pace.h): acceleration 1, 2, 4, 8, then stored as they are. */
        static const unsigned pace_speeds[] = {1, 2, 4, 8, DMO_CODEC_SPEED_STORE};
        const size_t n_speeds = a.compress == DMO_COMPRESS_LZ4 ? DMO_ARRAY_SIZE(pace_speeds) : 0;
        double speed_s[DMO_ARRAY_SIZE(pace_speeds)];
        uint64_t speed_stored[DMO_ARRAY_SIZE(pace_speeds)];
        /* Measured here and again after the engine's rounds, the faster of
         * the two kept: a shared machine only ever makes it slower. */
        for (size_t i = 0; i < n_speeds; i++) {
                speed_s[i] = codec_alone(&a, pages, page_size, pace_speeds[i], &speed_stored[i]);
                if (speed_s[i] < 0)
                        return 1;
        }

        /* Plain and encrypted, alternated, best of two each: the machine
         * may be shared, and the comparison is what counts. */
        struct encoded image; /* the last plain image's chunks */
        struct child_result hib = {0}, res = {0}, ehib = {0}, eres = {0};
        long hib_rss = 0, res_rss = 0, ehib_rss = 0, eres_rss = 0;
        for (int round = 0; round < 4; round++) {
                struct cycle_args ca = a;
                ca.encrypt = round % 2 == 0; /* the last image is plain: decoded alone below */
                struct child_result h = {0}, r = {0};
                long hr = 0, rr = 0;
                if (cycle(&ca, &h, &hr, &r, &rr, round == 3 ? &image : NULL) < 0)
                        return 1;
                struct child_result *bh = ca.encrypt ? &ehib : &hib;
                struct child_result *br = ca.encrypt ? &eres : &res;
                double t = h.stats.data_s + h.stats.sync_s;
                if (round < 2 || t < bh->stats.data_s + bh->stats.sync_s) {
                        *bh = h;
                        *(ca.encrypt ? &ehib_rss : &hib_rss) = hr;
                }
                if (round < 2 || r.stats.restore_s < br->stats.restore_s) {
                        *br = r;
                        *(ca.encrypt ? &eres_rss : &res_rss) = rr;
                }
        }
        double hib_write_s = hib.stats.data_s + hib.stats.sync_s;
        double stored_mb = (double)hib.stats.stored_bytes / 1e6;

        /* The codec alone again at each speed, and decoding the last plain
         * image's chunks, best of two. */
        for (size_t i = 0; i < n_speeds; i++) {
                uint64_t st;
                double t = codec_alone(&a, pages, page_size, pace_speeds[i], &st);
                if (t < 0)
                        return 1;
                if (t < speed_s[i])
                        speed_s[i] = t;
        }
        double again = codec_alone(&a, pages, page_size, 0, &codec_stored);
        if (again < 0)
                return 1;
        if (again < codec_s)
                codec_s = again;
        double decode_s = -1;
        for (int round = 0; round < 2; round++) {
                double t = codec_decode_alone(&a, &image, page_size);
                if (t < 0) {
                        encoded_free(&image);
                        return 1;
                }
                if (decode_s < 0 || t < decode_s)
                        decode_s = t;
        }

        /* The disk alone: the image's extents in the engine's requests,
         * best of three, alternated; the image is done with. */
        double raw_write_s = -1, raw_read_s = -1;
        uint64_t raw_requests = 0;
        for (int round = 0; round < 3; round++) {
                double w = raw_direct(swap, &image, page_size, true, &raw_requests);
                double r = raw_direct(swap, &image, page_size, false, &raw_requests);
                if (w > 0 && (raw_write_s < 0 || w < raw_write_s))
                        raw_write_s = w;
                if (r > 0 && (raw_read_s < 0 || r < raw_read_s))
                        raw_read_s = r;
        }
        uint64_t stream_pages = 0, image_extents = image.n_ext;
        for (uint64_t i = 0; i < image.n_ext; i++)
                stream_pages += image.ext[i].pages;
        encoded_free(&image);

        printf("\n%-44s %10s %10s\n", "", "MB/s", "ratio");
        printf("%-44s %10.0f\n", "page stream generation (sim kernel, 1 core)", mb / gen_s);
        printf("%-44s %10.0f %10.2f\n", "dormouse hibernate: pages -> swap file", mb / hib_write_s,
               mb / stored_mb);
        printf("%-44s %10.0f\n", "  baseline: dd bs=1M conv=fsync, same bytes", mb / dd_s);
        printf("%-44s %10.0f %10.2f\n", "  baseline: lz4 -1 (command line)", mb / lz4_s, lz4_ratio);
        printf("%-44s %10.0f %10.2f\n", "  baseline: zstd -1 (command line)", mb / zstd_s,
               zstd_ratio);
        printf("%-44s %10.0f %10.2f\n", "  limit: the engine's codec alone, no I/O", mb / codec_s,
               mb / ((double)codec_stored / 1e6));
        for (size_t i = 0; i < n_speeds; i++) {
                char label[64];
                if (pace_speeds[i] == DMO_CODEC_SPEED_STORE)
                        snprintf(label, sizeof(label), "    the same, pages stored as they are");
                else
                        snprintf(label, sizeof(label), "    the same, LZ4 acceleration %u",
                                 pace_speeds[i]);
                printf("%-44s %10.0f %10.2f\n", label, mb / speed_s[i],
                       mb / ((double)speed_stored[i] / 1e6));
        }
        if (raw_write_s > 0)
                printf("%-44s %10.0f\n", "  limit: raw O_DIRECT write, image's extents",
                       mb / raw_write_s);
        else
                printf("%-44s %10s\n", "  limit: raw O_DIRECT write, image's extents", "refused");
        double ehib_write_s = ehib.stats.data_s + ehib.stats.sync_s;
        char enc_label[64];
        snprintf(enc_label, sizeof(enc_label), "dormouse hibernate, encrypted (%s)",
                 dmo_crypto_cipher_name(dmo_crypto_cipher_preferred()));
        printf("%-44s %10.0f %10.2f\n", enc_label, mb / ehib_write_s,
               mb / ((double)ehib.stats.stored_bytes / 1e6));
        printf("%-44s %10.0f\n", "dormouse resume: swap file (cold) -> pages",
               mb / res.stats.restore_s);
        printf("%-44s %10.0f\n", "dormouse resume, encrypted", mb / eres.stats.restore_s);
        printf("%-44s %10.0f\n", "  baseline: dd read of the same bytes (cold)", mb / read_s);
        printf("%-44s %10.0f\n", "  limit: the engine's codec alone, decode", mb / decode_s);
        if (raw_read_s > 0)
                printf("%-44s %10.0f\n", "  limit: raw O_DIRECT read, image's extents",
                       mb / raw_read_s);
        else
                printf("%-44s %10s\n", "  limit: raw O_DIRECT read, image's extents", "refused");
        /* Handing a page back includes the simulated kernel regenerating it
         * from the seed to compare bit for bit, on the engine's thread; the
         * real kernel only copies it. */
        double verify_s = res.stats.profile.kernel_io_s;
        printf("%-44s %10.0f\n", "  of it: reading + decoding the image",
               mb / res.stats.profile.image_s);
        printf("  (of the %.3f s, %.3f s are the sim kernel taking and verifying pages)\n",
               res.stats.restore_s, verify_s);
        printf("\nhibernate vs dd: %.2fx (target >= 2.5x); resume vs raw read: %.2fx (target >= "
               "2x)\n",
               dd_s / hib_write_s, read_s / res.stats.restore_s);
        printf("hibernate vs the codec alone: %.2fx of its throughput (1.00 = limited by the "
               "codec and the page source, not by I/O or the engine)\n",
               codec_s / hib_write_s);
        const double stream_mb = (double)(stream_pages * page_size) / 1e6;
        printf("raw O_DIRECT: the image's %.1f MB of stream along its %llu extents, %llu requests "
               "of %.0f KiB on average, one in flight (the engine: %.1f MB stored, %llu write "
               "requests of %.0f KiB); disk write %.0f MB/s, read %.0f MB/s; the engine's "
               "transfers: hibernate %s, resume %s\n",
               stream_mb, (unsigned long long)image_extents, (unsigned long long)raw_requests,
               raw_requests ? stream_mb * 1e6 / 1024 / (double)raw_requests : 0.0, stored_mb,
               (unsigned long long)hib.stats.profile.writes,
               hib.stats.profile.writes
                   ? (double)hib.stats.stored_bytes / 1024 / (double)hib.stats.profile.writes
                   : 0.0,
               raw_write_s > 0 ? stream_mb / raw_write_s : 0.0,
               raw_read_s > 0 ? stream_mb / raw_read_s : 0.0,
               hib.stats.profile.direct_io ? "O_DIRECT" : "page cache",
               res.stats.profile.direct_io ? "O_DIRECT" : "page cache");
        const struct dmo_engine_profile *hp = &hib.stats.profile, *rp = &res.stats.profile;
        printf("hibernate profile: %.3f s taking pages from the sim kernel, %.3f s storing them "
               "(of it %.3f s waiting for the codec), %.3f s writing (I/O thread, %llu "
               "requests); LZ4 mean speed %.2f, %llu of %llu chunks stored as they are; CPU "
               "%.3f s user, %.3f s system\n",
               hp->kernel_io_s, hp->image_s, hp->codec_wait_s, hp->write_s,
               (unsigned long long)hp->writes, hp->mean_speed,
               (unsigned long long)hp->stored_chunks, (unsigned long long)hp->chunks,
               hp->cpu_user_s, hp->cpu_sys_s);
        printf("resume profile: %.3f s reading and decoding, %.3f s handing pages to the sim "
               "kernel; %llu of %llu chunks handed out in place; CPU %.3f s user, %.3f s system\n",
               rp->image_s, rp->kernel_io_s, (unsigned long long)rp->stored_chunks,
               (unsigned long long)rp->chunks, rp->cpu_user_s, rp->cpu_sys_s);
        printf("image: %llu pages, %.1f MB stored, %llu zero pages; phases: freeze %.3f s, "
               "snapshot %.3f s, write %.3f s, seal %.3f s\n",
               (unsigned long long)hib.stats.image_pages, stored_mb,
               (unsigned long long)hib.stats.zero_pages, hib.stats.freeze_s, hib.stats.snapshot_s,
               hib.stats.data_s, hib.stats.sync_s);
        printf("encryption costs %.1f%% of hibernate throughput (target <= 15%%), %.1f%% of "
               "resume throughput\n",
               100.0 * (1.0 - hib_write_s / ehib_write_s),
               100.0 * (1.0 - res.stats.restore_s / eres.stats.restore_s));
        printf("progress event: %.2f ns (1 thread), %.2f ns (2 threads contending) (target <= 5); "
               "baseline, one shared atomic add: %.2f ns, %.2f ns\n",
               ns_per_event(1, false), ns_per_event(2, false), ns_per_event(1, true),
               ns_per_event(2, true));
        printf("peak RSS: hibernate %.1f MiB, resume %.1f MiB; encrypted %.1f MiB, %.1f MiB "
               "(target <= 64)\n",
               hib_rss / 1024.0, res_rss / 1024.0, ehib_rss / 1024.0, eres_rss / 1024.0);
        if (a.lock_memory)
                printf("locked memory (VmLck at the end of the data phase; VmPin): hibernate "
                       "%.1f MiB (%.1f), resume %.1f MiB (%.1f); encrypted %.1f MiB, %.1f MiB "
                       "(engine only, no splash; target <= 64 with the splash at 1080p)\n",
                       hib.vmlck_kib / 1024.0, hib.vmpin_kib / 1024.0, res.vmlck_kib / 1024.0,
                       res.vmpin_kib / 1024.0, ehib.vmlck_kib / 1024.0, eres.vmlck_kib / 1024.0);
        else
                printf("locked memory: not measured (mlockall needs CAP_IPC_LOCK or an unlimited "
                       "RLIMIT_MEMLOCK)\n");
        if (a.lock_memory && dormouse)
                print_splash_memory(dormouse, size, swap, work);

        /* The image against the kernel's own path, on the same pages; the
         * other mixes at up to 256 MiB each (their ratios do not depend on
         * the size). */
        const uint64_t mix_pages =
            pages < (256u << 20) / page_size ? pages : (256u << 20) / page_size;
        if (print_size_against_kernel(&a, pages, mix_pages, page_size, &hib.stats, image_extents) <
            0)
                return 1;

        /* Levers, measured: what the disk gives the image's own size with
         * larger requests and with O_DIRECT (dd: one request in flight), and
         * what the checksum costs. */
        unsigned long long stored_mib = (hib.stats.stored_bytes + (1u << 20) - 1) >> 20;
        static const struct {
                const char *label, *bs, *flags;
                unsigned div;
        } disk[] = {
            {"lever: disk, buffered 1 MiB + fsync (image size)", "1M", "conv=fsync", 1},
            {"lever: disk, buffered 4 MiB + fsync", "4M", "conv=fsync", 4},
            {"lever: disk, O_DIRECT 1 MiB", "1M", "oflag=direct conv=fsync", 1},
            {"lever: disk, O_DIRECT 4 MiB", "4M", "oflag=direct conv=fsync", 4},
        };
        printf("\n%-52s %10s\n", "", "MB/s");
        for (size_t i = 0; i < sizeof(disk) / sizeof(disk[0]); i++) {
                snprintf(cmd, sizeof(cmd),
                         "dd if='%s' of='%s/lever.out' bs=%s count=%llu %s "
                         "status=none",
                         raw, work, disk[i].bs, stored_mib / disk[i].div, disk[i].flags);
                double t = run_timed(cmd);
                printf("%-52s %10.0f\n", disk[i].label,
                       (double)(stored_mib / disk[i].div * disk[i].div) * 1048576.0 / 1e6 / t);
        }
        print_checksum_levers(page_size);

        /* Last: the engine against its limit, the slower of what it cannot
         * do without (its codec, the disk) measured above in this run. For
         * hibernate, at each speed the pace may pick: the codec alone at
         * that speed, or the disk writing what that speed stores at the raw
         * write's rate, whichever is slower; the limit is the best speed.
         * A disk refusing O_DIRECT leaves the codec alone as the limit. */
        const double disk_bps =
            raw_write_s > 0 ? (double)(stream_pages * page_size) / raw_write_s : 0;
        double hib_limit_s = 0;
        char hib_limit_at[48] = "";
        for (size_t i = 0; i <= n_speeds; i++) {
                double c = i < n_speeds ? speed_s[i] : codec_s;
                uint64_t st = i < n_speeds ? speed_stored[i] : codec_stored;
                double d = disk_bps > 0 ? (double)st / disk_bps : 0;
                double t = c > d ? c : d;
                if (hib_limit_s == 0 || t < hib_limit_s) {
                        hib_limit_s = t;
                        if (i == n_speeds)
                                snprintf(hib_limit_at, sizeof(hib_limit_at), "the level's own");
                        else if (pace_speeds[i] == DMO_CODEC_SPEED_STORE)
                                snprintf(hib_limit_at, sizeof(hib_limit_at), "pages stored");
                        else
                                snprintf(hib_limit_at, sizeof(hib_limit_at), "LZ4 acceleration %u",
                                         pace_speeds[i]);
                }
        }
        double res_limit_s = raw_read_s > decode_s ? raw_read_s : decode_s;
        printf("\nlimits: hibernate %.0f MB/s (%s, %s), resume %.0f MB/s (%s)\n", mb / hib_limit_s,
               hib_limit_at, disk_bps > 0 ? "codec or disk" : "codec alone", mb / res_limit_s,
               raw_read_s > decode_s ? "the raw read" : "the decode alone");
        printf("engine/limit: hibernate %.2f, resume %.2f\n", hib_limit_s / hib_write_s,
               res_limit_s / res.stats.restore_s);

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", work);
        return system(cmd) == 0 ? 0 : 1;
}
