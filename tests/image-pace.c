/* The writer's pace: faster while the disk waits for data, harder while the
 * data waits for the disk, within 1..max; and the codec's speed hint leaves
 * every chunk decodable. */
#include "tests/testlib.h"

#include "codec/codec.h"
#include "image/pace.h"
#include "tests/codec-testdata.h"
#include "tests/codec-testutil.h"

static void test_an_idle_disk_doubles_the_speed_up_to_the_ceiling(void)
{
        struct dmo_pace p;
        dmo_pace_init(&p, 8);
        CHECK_INT(p.speed, ==, 1);
        CHECK_INT(dmo_pace_update(&p, true, false), ==, 2);
        CHECK_INT(dmo_pace_update(&p, true, false), ==, 4);
        CHECK_INT(dmo_pace_update(&p, true, false), ==, 8);
        CHECK_INT(dmo_pace_update(&p, true, false), ==, 8);
        /* Neither idle nor waiting: the balance holds, so does the speed. */
        CHECK_INT(dmo_pace_update(&p, false, false), ==, 8);
}

static void test_a_wait_for_the_disk_halves_it_down_to_one(void)
{
        struct dmo_pace p;
        dmo_pace_init(&p, 8);
        p.speed = 8;
        CHECK_INT(dmo_pace_update(&p, false, true), ==, 4);
        /* A wait counts more than an idle disk seen before it. */
        CHECK_INT(dmo_pace_update(&p, true, true), ==, 2);
        CHECK_INT(dmo_pace_update(&p, false, true), ==, 1);
        CHECK_INT(dmo_pace_update(&p, false, true), ==, 1);
}

static void test_a_ceiling_of_one_never_moves(void)
{
        struct dmo_pace p;
        dmo_pace_init(&p, 0); /* taken as 1 */
        CHECK_INT(dmo_pace_update(&p, true, false), ==, 1);
        dmo_pace_init(&p, 1);
        CHECK_INT(dmo_pace_update(&p, true, false), ==, 1);
        CHECK_INT(dmo_pace_update(&p, false, true), ==, 1);
}

/* Chunks encoded at speed 8 are larger (LZ4 looks for fewer matches) and
 * decode to the same pages; DMO_CODEC_SPEED_STORE keeps every non-zero page
 * as it is (no chunk compressed, the zero pages still left out) and decodes
 * the same; speed 0 goes back to the level's own. */
static void test_the_speed_hint_changes_size_not_content(void)
{
        enum { PS = 4096, CP = 64, N = 16 };
        struct dmo_codec_params ep = {.dir = DMO_CODEC_ENCODE,
                                      .algo = DMO_COMPRESS_LZ4,
                                      .page_size = PS,
                                      .chunk_pages = CP,
                                      .threads = 2};
        struct dmo_codec_params dp = ep;
        dp.dir = DMO_CODEC_DECODE;
        struct dmo_codec *enc = NULL, *dec = NULL;
        REQUIRE(dmo_codec_new(&ep, &enc) == 0);
        REQUIRE(dmo_codec_new(&dp, &dec) == 0);
        uint8_t *src = malloc((size_t)N * CP * PS);
        REQUIRE(src);
        dmo_td_fill_mix(src, (size_t)N * CP, PS, 5);
        const unsigned speeds[] = {0, 8, DMO_CODEC_SPEED_STORE, 0};
        size_t stored[4] = {0}, compressed[4] = {0}, nonzero = 0;
        for (size_t i = 0; i < (size_t)N * CP; i++) {
                const uint8_t *pg = src + i * PS;
                bool zero = true;
                for (size_t b = 0; b < PS && zero; b++)
                        zero = pg[b] == 0;
                nonzero += !zero;
        }
        for (unsigned s = 0; s < 4; s++) {
                dmo_codec_set_speed(enc, speeds[s]);
                for (unsigned i = 0; i < N; i++) {
                        struct dmo_chunk *c, *d;
                        REQUIRE(dmo_codec_acquire(enc, &c) == 0);
                        c->npages = CP;
                        memcpy(c->pages, src + (size_t)i * CP * PS, (size_t)CP * PS);
                        REQUIRE(dmo_codec_submit(enc, c) == 0);
                        REQUIRE(dmo_codec_collect(enc, &c, true) == 0);
                        stored[s] += c->payload_len;
                        compressed[s] += (c->flags & DMO_CHUNK_COMPRESSED) != 0;
                        REQUIRE(dmo_codec_acquire(dec, &d) == 0);
                        dmo_test_chunk_for_decode(d, c, c->stored);
                        dmo_codec_release(enc, c);
                        REQUIRE(dmo_codec_submit(dec, d) == 0);
                        REQUIRE(dmo_codec_collect(dec, &d, true) == 0);
                        CHECK_INT(d->error, ==, 0);
                        CHECK(memcmp(d->restored, src + (size_t)i * CP * PS, (size_t)CP * PS) == 0);
                        dmo_codec_release(dec, d);
                }
        }
        printf("# stored: speed 0 %zu, speed 8 %zu, store %zu, speed 0 again %zu bytes\n",
               stored[0], stored[1], stored[2], stored[3]);
        CHECK(stored[1] > stored[0]);
        CHECK_INT(compressed[0], >, 0);
        CHECK_INT(compressed[2], ==, 0);
        CHECK_INT(stored[2], ==, nonzero * PS);
        CHECK(nonzero < (size_t)N * CP); /* the mix has zero pages to leave out */
        CHECK_INT(stored[3], ==, stored[0]);
        free(src);
        dmo_codec_free(enc);
        dmo_codec_free(dec);
}

DMO_TEST_MAIN(T(test_an_idle_disk_doubles_the_speed_up_to_the_ceiling),
              T(test_a_wait_for_the_disk_halves_it_down_to_one),
              T(test_a_ceiling_of_one_never_moves), T(test_the_speed_hint_changes_size_not_content))
