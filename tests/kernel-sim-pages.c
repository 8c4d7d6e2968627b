/* The simulated kernel's page stream: a pure function of (seed, index),
 * with the proportions of a real image, an LZ4 ratio of about 2-3x, a
 * header page that round-trips, and a generator faster than storage. */
#include "tests/testlib.h"

#include <errno.h>
#include <lz4.h>
#include <time.h>

#include "kernel/sim_pages.h"

enum { PS = 4096, N = 10000 };

static uint8_t a[PS], b[PS];

static bool is_zero(const uint8_t *p, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (p[i])
                        return false;
        return true;
}

static void test_pages_regenerate_identically(void)
{
        for (uint64_t i = 1; i < N; i++) {
                dmo_sim_page_fill(42, i, a, PS);
                dmo_sim_page_fill(42, i, b, PS);
                if (memcmp(a, b, PS) != 0) {
                        CHECK(!"page differs on regeneration");
                        printf("# page %" PRIu64 "\n", i);
                        return;
                }
        }
        /* Another seed is another memory. */
        int same = 0;
        for (uint64_t i = 1; i < 200; i++) {
                dmo_sim_page_fill(42, i, a, PS);
                dmo_sim_page_fill(43, i, b, PS);
                if (!is_zero(a, PS) && memcmp(a, b, PS) == 0)
                        same++;
        }
        CHECK_INT(same, ==, 0);
}

static void test_proportions_look_like_a_real_image(void)
{
        unsigned kinds[DMO_SIM_PAGE_KIND_COUNT] = {0};
        unsigned zero = 0, copies_match = 0;
        for (uint64_t i = 1; i <= N; i++) {
                enum dmo_sim_page_kind k = dmo_sim_page_kind(7, i);
                kinds[k]++;
                dmo_sim_page_fill(7, i, a, PS);
                if (is_zero(a, PS))
                        zero++;
                if (k == DMO_SIM_PAGE_COPY && i > 1) {
                        /* A copy equals some page among the 32 (or more, via
                         * chains) before it; check the nearest window. */
                        bool found = false;
                        for (uint64_t j = i > 200 ? i - 200 : 1; j < i && !found; j++) {
                                dmo_sim_page_fill(7, j, b, PS);
                                found = memcmp(a, b, PS) == 0;
                        }
                        if (found)
                                copies_match++;
                        else
                                printf("# copy %" PRIu64 " has no original\n", i);
                }
        }
        printf("# zero %u text %u code %u pointers %u random %u copy %u (all-zero %u)\n",
               kinds[DMO_SIM_PAGE_ZERO], kinds[DMO_SIM_PAGE_TEXT], kinds[DMO_SIM_PAGE_CODE],
               kinds[DMO_SIM_PAGE_POINTERS], kinds[DMO_SIM_PAGE_RANDOM], kinds[DMO_SIM_PAGE_COPY],
               zero);
        CHECK_INT(kinds[DMO_SIM_PAGE_HEADER], ==, 0);
        CHECK(zero >= N * 30 / 100 && zero <= N * 40 / 100);
        CHECK(kinds[DMO_SIM_PAGE_RANDOM] >= N * 12 / 100 &&
              kinds[DMO_SIM_PAGE_RANDOM] <= N * 18 / 100);
        CHECK(kinds[DMO_SIM_PAGE_TEXT] > N / 20);
        CHECK(kinds[DMO_SIM_PAGE_CODE] > N / 20);
        CHECK(kinds[DMO_SIM_PAGE_POINTERS] > N / 20);
        CHECK(kinds[DMO_SIM_PAGE_COPY] > N / 20);
        CHECK_INT(copies_match, ==,
                  kinds[DMO_SIM_PAGE_COPY] - (dmo_sim_page_kind(7, 1) == DMO_SIM_PAGE_COPY));
        CHECK_INT(dmo_sim_page_kind(7, 0), ==, DMO_SIM_PAGE_HEADER);
}

static void test_lz4_ratio_is_between_two_and_three(void)
{
        enum { CHUNK = 32 };
        static uint8_t in[CHUNK * PS];
        static char out[LZ4_COMPRESSBOUND(CHUNK * PS)];
        uint64_t raw = 0, packed = 0;
        for (uint64_t base = 1; base + CHUNK <= 8001; base += CHUNK) {
                for (unsigned k = 0; k < CHUNK; k++)
                        dmo_sim_page_fill(99, base + k, in + (size_t)k * PS, PS);
                int n = LZ4_compress_default((const char *)in, out, sizeof(in), sizeof(out));
                REQUIRE(n > 0);
                raw += sizeof(in);
                packed += (uint64_t)n;
        }
        double ratio = (double)raw / (double)packed;
        printf("# LZ4 ratio over 128 KiB chunks: %.2f\n", ratio);
        CHECK(ratio >= 1.8 && ratio <= 3.5);
}

static void test_generator_is_faster_than_storage(void)
{
        static uint8_t buf[PS];
        struct timespec t0, t1;
        const uint64_t pages = 200000; /* 800 MB */
        uint64_t sink = 0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (uint64_t i = 1; i <= pages; i++) {
                dmo_sim_page_fill(1, i, buf, PS);
                sink += buf[i % PS];
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        double mbs = (double)pages * PS / s / 1e6;
        printf("# generator: %.0f MB/s on one core (sink %" PRIu64 ")\n", mbs, sink);
        /* Sanitizer builds are many times slower: hold only a floor here,
         * the figure above is what gets reported. */
        CHECK(mbs > 100);
}

static void test_header_round_trips_and_refuses_damage(void)
{
        struct dmo_sim_header h = {.pages = 12345, .page_size = PS, .seed = 0xfeedbeef};
        strcpy(h.id.sysname, "Linux");
        strcpy(h.id.release, "6.1.0-57-amd64");
        strcpy(h.id.version, "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3");
        strcpy(h.id.machine, "x86_64");
        h.id.page_size = PS;
        REQUIRE(dmo_sim_header_encode(&h, a, PS) == 0);
        struct dmo_sim_header g;
        CHECK_INT(dmo_sim_header_decode(a, PS, &g), ==, 0);
        CHECK_INT(g.pages, ==, 12345);
        CHECK_INT(g.seed, ==, 0xfeedbeef);
        CHECK(strcmp(g.id.release, h.id.release) == 0);
        CHECK(strcmp(g.id.version, h.id.version) == 0);
        CHECK_INT(g.id.page_size, ==, PS);

        for (size_t off = 0; off < 300; off += 7) {
                memcpy(b, a, PS);
                b[off] ^= 0x10;
                CHECK_INT(dmo_sim_header_decode(b, PS, &g), ==, -EINVAL);
        }
        CHECK_INT(dmo_sim_header_decode(a, 8192, &g), ==, -EINVAL);
        CHECK_INT(dmo_sim_header_decode(a, 100, &g), ==, -EINVAL);
        dmo_sim_page_fill(1, 5, b, PS);
        CHECK_INT(dmo_sim_header_decode(b, PS, &g), ==, -EINVAL);
        h.page_size = 8192;
        CHECK_INT(dmo_sim_header_encode(&h, a, PS), ==, -EINVAL);
        h.page_size = 1000;
        CHECK_INT(dmo_sim_header_encode(&h, a, 1000), ==, -EINVAL);
}

static void test_other_page_sizes_fill_every_byte_deterministically(void)
{
        static uint8_t x[65536 + 64], y[65536 + 64];
        static const size_t sizes[] = {1024, 8192, 16384, 65536};
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
                for (uint64_t i = 1; i < 64; i++) {
                        memset(x, 0xa5, sizeof(x));
                        memset(y, 0x5a, sizeof(y));
                        dmo_sim_page_fill(3, i, x, sizes[s]);
                        dmo_sim_page_fill(3, i, y, sizes[s]);
                        CHECK(memcmp(x, y, sizes[s]) == 0);
                        CHECK(x[sizes[s]] == 0xa5); /* nothing written past the page */
                }
        }
        CHECK(dmo_sim_page_size_ok(4096));
        CHECK(!dmo_sim_page_size_ok(4000));
        CHECK(!dmo_sim_page_size_ok(131072));
}

DMO_TEST_MAIN(T(test_pages_regenerate_identically), T(test_proportions_look_like_a_real_image),
              T(test_lz4_ratio_is_between_two_and_three), T(test_generator_is_faster_than_storage),
              T(test_header_round_trips_and_refuses_damage),
              T(test_other_page_sizes_fill_every_byte_deterministically))
