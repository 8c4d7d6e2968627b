/* A deterministic fuzz driver for `make check`: feeds a fuzz target (the
 * libFuzzer entry point LLVMFuzzerTestOneInput) with seeds from
 * tests/fuzz/corpus/NAME/ and with bounded random mutations of them, so every
 * parser of untrusted input is exercised on every build, with ASan/UBSan in
 * the sanitizer pass. Coverage-guided fuzzing with libFuzzer is `make fuzz`.
 *
 * Usage: fuzz-NAME.test [ITERATIONS]; prints TAP. A crash is a failed test
 * (the TAP driver sees the program die). A missing or empty corpus is a
 * failure too: random bytes alone rarely get past a parser's first check, so
 * a run without seeds would pass while testing almost nothing. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A target whose inputs cost much more than a parser's (whole images, with
 * threads) declares how many times more; it gets that fraction of the
 * iterations, so `make check` stays quick. libFuzzer ignores it. */
extern const unsigned dmo_fuzz_input_cost __attribute__((weak));

#define MAX_SEEDS      64
#define FUZZ_MAX_INPUT (256 * 1024)

struct rng {
        uint64_t s;
};

static uint64_t next(struct rng *r)
{
        r->s ^= r->s << 13;
        r->s ^= r->s >> 7;
        r->s ^= r->s << 17;
        return r->s;
}

static size_t load_seeds(const char *dir, uint8_t **seeds, size_t *lens)
{
        DIR *d = opendir(dir);
        size_t n = 0;
        if (!d)
                return 0;
        struct dirent *e;
        while ((e = readdir(d)) && n < MAX_SEEDS) {
                if (e->d_name[0] == '.')
                        continue;
                char path[1400];
                snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
                FILE *f = fopen(path, "rb");
                if (!f)
                        continue;
                uint8_t *buf = malloc(FUZZ_MAX_INPUT);
                size_t len = buf ? fread(buf, 1, FUZZ_MAX_INPUT, f) : 0;
                fclose(f);
                if (!buf)
                        continue;
                seeds[n] = buf;
                lens[n++] = len;
        }
        closedir(d);
        return n;
}

static size_t mutate(struct rng *r, uint8_t *buf, size_t len, size_t cap)
{
        unsigned edits = 1 + (unsigned)(next(r) % 8);
        for (unsigned i = 0; i < edits; i++) {
                switch (next(r) % 6) {
                case 0: /* flip a bit */
                        if (len)
                                buf[next(r) % len] ^= (uint8_t)(1u << (next(r) % 8));
                        break;
                case 1: /* random byte */
                        if (len)
                                buf[next(r) % len] = (uint8_t)next(r);
                        break;
                case 2: /* interesting value */
                        if (len >= 4) {
                                static const uint32_t vals[] = {
                                    0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 4096, 65536};
                                uint32_t v = vals[next(r) % 7];
                                memcpy(buf + next(r) % (len - 3), &v, 4);
                        }
                        break;
                case 3: /* truncate */
                        if (len)
                                len = next(r) % len;
                        break;
                case 4: /* extend with random bytes */
                        while (len < cap && (next(r) % 16))
                                buf[len++] = (uint8_t)next(r);
                        break;
                default: /* duplicate a slice */
                        if (len > 8 && len * 2 < cap) {
                                size_t from = next(r) % len, n = next(r) % (len - from);
                                memmove(buf + from + n, buf + from, len - from);
                                len += n;
                        }
                        break;
                }
        }
        return len;
}

int main(int argc, char **argv)
{
        const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
        char base[256];
        snprintf(base, sizeof(base), "%s", name);
        char *dot = strstr(base, ".test");
        if (dot)
                *dot = '\0';
        unsigned long iterations = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;
        const char *env = getenv("DMO_FUZZ_ITERATIONS");
        if (env)
                iterations = strtoul(env, NULL, 0);
        if (&dmo_fuzz_input_cost && dmo_fuzz_input_cost > 1)
                iterations /= dmo_fuzz_input_cost;

        const char *src = getenv("DMO_SRCDIR");
        char dir[1024];
        snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", src ? src : DMO_SRCDIR, base);
        uint8_t *seeds[MAX_SEEDS];
        size_t lens[MAX_SEEDS];
        size_t nseeds = load_seeds(dir, seeds, lens);
        if (nseeds == 0) {
                printf("1..1\nnot ok 1 - %s: no seeds in %s; add at least one valid input "
                       "there (the corpus is part of the source tree)\n",
                       base, dir);
                return 1;
        }

        uint8_t *buf = malloc(FUZZ_MAX_INPUT);
        if (!buf)
                return 99;
        struct rng r = {0x9e3779b97f4a7c15ull};
        printf("1..1\n# %s: %zu seeds from %s, %lu inputs\n", base, nseeds, dir, iterations);
        fflush(stdout);
        for (size_t i = 0; i < nseeds; i++) {
                memcpy(buf, seeds[i], lens[i]);
                LLVMFuzzerTestOneInput(buf, lens[i]);
        }
        for (unsigned long it = 0; it < iterations; it++) {
                size_t len;
                if (next(&r) % 4) {
                        size_t s = next(&r) % nseeds;
                        memcpy(buf, seeds[s], lens[s]);
                        len = mutate(&r, buf, lens[s], FUZZ_MAX_INPUT);
                } else {
                        len = next(&r) % 8192;
                        for (size_t i = 0; i < len; i++)
                                buf[i] = (uint8_t)next(&r);
                }
                /* a private copy so reads past `len` are caught by ASan */
                uint8_t *input = malloc(len ? len : 1);
                if (!input)
                        return 99;
                memcpy(input, buf, len);
                LLVMFuzzerTestOneInput(input, len);
                free(input);
        }
        printf("ok 1 - %s survives %zu seeds and %lu mutated inputs\n", base, nseeds, iterations);
        for (size_t i = 0; i < nseeds; i++)
                free(seeds[i]);
        free(buf);
        return 0;
}
