/* bench-codec: encode and decode throughput of the codec pipeline on a
 * synthetic hibernation image, next to the lz4 and zstd command-line tools
 * on the same bytes.
 *
 * Usage: bench-codec [MiB [threads-max]]   (default 512 MiB, up to 2 threads)
 *
 * The engine's side is modelled as it will be: encode copies each chunk's
 * pages in (the read from /dev/snapshot) and each payload out (the write to
 * swap); decode copies payloads in and pages out. MB/s are of image bytes
 * (what the kernel hands over), 1 MB = 10^6 bytes; each figure is the best
 * of three runs. "MB/cpu" columns are MB per CPU-second over all threads
 * (the cost, which a loaded machine disturbs less than the wall time). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "codec/codec.h"
#include "tests/codec-testdata.h"

#define PS 4096u

struct image {
        uint8_t *src;  /* the pages */
        uint8_t *dst;  /* where decode puts them back */
        size_t npages; /* in src */
        uint8_t *store;
        size_t store_len;
        struct dmo_chunk *meta; /* one per chunk, payload points into store */
        size_t nchunks;
};

static double clock_s(clockid_t id)
{
        struct timespec ts;
        clock_gettime(id, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void)
{
        return clock_s(CLOCK_MONOTONIC);
}

/* CPU seconds of this process (all threads) or of its waited-for children:
 * on a shared machine the CPU cost per byte is steadier than wall time. */
static double cpu_self(void)
{
        return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static double cpu_children(void)
{
        struct rusage ru;
        getrusage(RUSAGE_CHILDREN, &ru);
        return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
               ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e-6;
}

static int new_codec(enum dmo_codec_dir dir, enum dmo_compress algo, unsigned cp, unsigned threads,
                     struct dmo_codec **c)
{
        struct dmo_codec_params p = {
            .dir = dir,
            .algo = algo,
            .page_size = PS,
            .chunk_pages = cp,
            .threads = threads,
        };
        return dmo_codec_new(&p, c);
}

/* Returns seconds, or a negative value on error. */
static double encode(struct image *im, enum dmo_compress algo, unsigned cp, unsigned threads,
                     double *cpu)
{
        struct dmo_codec *c;
        if (new_codec(DMO_CODEC_ENCODE, algo, cp, threads, &c) < 0)
                return -1;
        size_t next_page = 0, ci = 0, out = 0;
        double t0 = now(), c0 = cpu_self();
        for (;;) {
                struct dmo_chunk *ch;
                while (next_page < im->npages && dmo_codec_acquire(c, &ch) == 0) {
                        size_t n = im->npages - next_page < cp ? im->npages - next_page : cp;
                        memcpy(ch->pages, im->src + next_page * PS, n * PS);
                        ch->npages = (uint32_t)n;
                        next_page += n;
                        dmo_codec_submit(c, ch);
                }
                int r = dmo_codec_collect(c, &ch, true);
                if (r == -ENODATA)
                        break;
                if (r < 0) {
                        dmo_codec_free(c);
                        return -1;
                }
                memcpy(im->store + out, ch->stored, ch->payload_len);
                im->meta[ci] = *ch;
                im->meta[ci].payload = im->store + out;
                im->meta[ci].pages = NULL;
                out += ch->payload_len;
                ci++;
                dmo_codec_release(c, ch);
        }
        double t = now() - t0;
        *cpu = cpu_self() - c0;
        im->store_len = out;
        im->nchunks = ci;
        dmo_codec_free(c);
        return t;
}

static double decode(struct image *im, enum dmo_compress algo, unsigned cp, unsigned threads,
                     double *cpu)
{
        struct dmo_codec *c;
        if (new_codec(DMO_CODEC_DECODE, algo, cp, threads, &c) < 0)
                return -1;
        size_t next = 0, page = 0;
        int bad = 0;
        double t0 = now(), c0 = cpu_self();
        for (;;) {
                struct dmo_chunk *ch;
                while (next < im->nchunks && dmo_codec_acquire(c, &ch) == 0) {
                        const struct dmo_chunk *m = &im->meta[next++];
                        uint8_t *pages = ch->pages, *payload = ch->payload;
                        *ch = *m;
                        ch->pages = pages;
                        ch->payload = payload;
                        memcpy(payload, m->payload, m->payload_len);
                        dmo_codec_submit(c, ch);
                }
                int r = dmo_codec_collect(c, &ch, true);
                if (r == -ENODATA)
                        break;
                if (r < 0 || ch->error) {
                        bad = 1;
                } else {
                        memcpy(im->dst + page * PS, ch->restored, ch->npages * PS);
                        page += ch->npages;
                }
                dmo_codec_release(c, ch);
        }
        double t = now() - t0;
        *cpu = cpu_self() - c0;
        dmo_codec_free(c);
        if (bad || page != im->npages || memcmp(im->dst, im->src, im->npages * PS) != 0)
                return -1;
        return t;
}

static double mbs(size_t bytes, double secs)
{
        return secs > 0 ? (double)bytes / secs / 1e6 : 0;
}

/* Best of REPEAT runs: the machine may be shared, and a slow run says more
 * about the neighbours than about the codec. */
#define REPEAT 3

static double best(double a, double b)
{
        return a < 0 || b < 0 ? -1 : a < b ? a : b;
}

static void run_codec(struct image *im, enum dmo_compress algo, unsigned cp, unsigned threads)
{
        size_t bytes = im->npages * PS;
        double te = 1e30, td = 1e30, ce = 1e30, cd = 1e30, cpu = 0;
        for (int i = 0; i < REPEAT && te >= 0 && td >= 0; i++) {
                te = best(te, encode(im, algo, cp, threads, &cpu));
                ce = best(ce, cpu);
                td = best(td, te < 0 ? -1 : decode(im, algo, cp, threads, &cpu));
                cd = best(cd, cpu);
        }
        if (te < 0 || td < 0) {
                printf("%-16s %7u %6u   FAILED\n", dmo_compress_name(algo), threads, cp);
                return;
        }
        printf("%-16s %7u %6u %12.0f %12.0f %8.3f %10.0f %10.0f\n", dmo_compress_name(algo),
               threads, cp, mbs(bytes, te), mbs(bytes, td), (double)im->store_len / (double)bytes,
               mbs(bytes, ce), mbs(bytes, cd));
        fflush(stdout);
}

/* Seconds taken by a shell command, or -1. */
static double time_sh(const char *cmd, double *cpu)
{
        double t0 = now(), c0 = cpu_children();
        int r = system(cmd);
        *cpu = cpu_children() - c0;
        return r == 0 ? now() - t0 : -1;
}

static size_t file_size(const char *path)
{
        FILE *f = fopen(path, "rb");
        if (!f)
                return 0;
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fclose(f);
        return n < 0 ? 0 : (size_t)n;
}

static void run_cli(const char *label, const char *comp, const char *decomp, const char *file,
                    size_t bytes)
{
        char cmd[1024], packed[600];
        snprintf(packed, sizeof(packed), "%s.packed", file);
        snprintf(cmd, sizeof(cmd), "%s < '%s' > '%s'", comp, file, packed);
        if (system(cmd) != 0) { /* warm-up, and the output for decompression */
                printf("%-16s (not available)\n", label);
                return;
        }
        double te = 1e30, td = 1e30, ce = 1e30, cd = 1e30, cpu;
        for (int i = 0; i < REPEAT; i++) {
                snprintf(cmd, sizeof(cmd), "%s < '%s' > /dev/null", comp, file);
                te = best(te, time_sh(cmd, &cpu));
                ce = best(ce, cpu);
                snprintf(cmd, sizeof(cmd), "%s < '%s' > /dev/null", decomp, packed);
                td = best(td, time_sh(cmd, &cpu));
                cd = best(cd, cpu);
        }
        size_t plen = file_size(packed);
        unlink(packed);
        if (te < 0 || td < 0) {
                printf("%-16s FAILED\n", label);
                return;
        }
        printf("%-16s %7s %6s %12.0f %12.0f %8.3f %10.0f %10.0f\n", label, "1", "-", mbs(bytes, te),
               mbs(bytes, td), (double)plen / (double)bytes, mbs(bytes, ce), mbs(bytes, cd));
}

int main(int argc, char **argv)
{
        size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 512;
        unsigned tmax = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 2;
        if (mib == 0 || tmax == 0) {
                fprintf(stderr, "usage: bench-codec [MiB [threads-max]]\n");
                return 2;
        }

        struct image im = {.npages = mib * 1024 * 1024 / PS};
        size_t bytes = im.npages * PS;
        im.src = malloc(bytes);
        im.dst = malloc(bytes);
        im.store = malloc(bytes + bytes / 8 + (1 << 20)); /* raw fallback never exceeds input */
        im.meta = calloc(im.npages, sizeof(*im.meta));
        if (!im.src || !im.dst || !im.store || !im.meta) {
                fprintf(stderr, "bench-codec: out of memory for %zu MiB\n", mib);
                return 1;
        }
        dmo_td_fill_mix(im.src, im.npages, PS, 2024);
        /* Touch everything once so page faults are not measured. */
        memset(im.dst, 1, bytes);
        memset(im.store, 1, bytes + bytes / 8);

        size_t zero = 0;
        static const uint8_t zpage[PS];
        for (size_t i = 0; i < im.npages; i++)
                zero += memcmp(im.src + i * PS, zpage, PS) == 0;
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        printf("image: %zu MiB, %zu pages of %u bytes, %.1f%% zero pages; mix 35%% zero, 25%% "
               "text, 25%% code, 15%% random; %ld CPUs online\n",
               mib, im.npages, PS, 100.0 * (double)zero / (double)im.npages, cpus);

        double t0 = now();
        memcpy(im.dst, im.src, bytes);
        printf("memcpy reference: %.0f MB/s\n\n", mbs(bytes, now() - t0));

        printf("%-16s %7s %6s %12s %12s %8s %10s %10s\n", "algorithm", "threads", "chunk",
               "encode MB/s", "decode MB/s", "ratio", "enc MB/cpu", "dec MB/cpu");
        static const enum dmo_compress algos[] = {DMO_COMPRESS_NONE, DMO_COMPRESS_LZ4,
                                                  DMO_COMPRESS_ZSTD};
        for (size_t a = 0; a < 3; a++)
                for (unsigned t = 1; t <= tmax; t++)
                        run_codec(&im, algos[a], 64, t);

        char dir[] = "/tmp/bench-codec-XXXXXX", file[64];
        if (mkdtemp(dir)) {
                snprintf(file, sizeof(file), "%s/image", dir);
                FILE *f = fopen(file, "wb");
                if (f && fwrite(im.src, 1, bytes, f) == bytes && fclose(f) == 0) {
                        run_cli("lz4 -1 (cli)", "lz4 -q -1 -c", "lz4 -q -d -c", file, bytes);
                        run_cli("zstd -1 (cli)", "zstd -q -1 -T1 -c", "zstd -q -d -c", file, bytes);
                }
                unlink(file);
                rmdir(dir);
        }

        printf("\nchunk size (pages of %u bytes), %u threads:\n", PS, tmax);
        static const unsigned cps[] = {16, 32, 64};
        for (size_t a = 1; a < 3; a++)
                for (size_t i = 0; i < 3; i++)
                        run_codec(&im, algos[a], cps[i], tmax);

        free(im.src);
        free(im.dst);
        free(im.store);
        free(im.meta);
        return 0;
}
