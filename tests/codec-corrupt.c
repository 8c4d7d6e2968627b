/* codec decode: any damage to a stored chunk (payload bytes, lengths,
 * checksums, zero map, page count, flags) is reported as -EBADMSG, through
 * decode_one and through the pool, and never read or written out of bounds
 * (run under ASan). */
#include <errno.h>

#include "codec/codec.h"
#include "tests/codec-testdata.h"
#include "tests/testlib.h"

#define PS 4096u
#define CP 16u

static const enum dmo_compress algos[] = {DMO_COMPRESS_NONE, DMO_COMPRESS_LZ4, DMO_COMPRESS_ZSTD};

struct fixture {
        struct dmo_codec *c;
        struct dmo_chunk good; /* a valid encoded chunk */
        struct dmo_chunk work; /* a copy to damage and decode */
        uint32_t cap;
};

/* Half text, a few zero pages, one random page: compressed for lz4/zstd. */
static bool fixture_init(struct fixture *f, enum dmo_compress algo)
{
        struct dmo_codec_params p = {.dir = DMO_CODEC_DECODE,
                                     .algo = algo,
                                     .page_size = PS,
                                     .chunk_pages = CP,
                                     .threads = 2};
        memset(f, 0, sizeof(*f));
        if (dmo_codec_new(&p, &f->c) != 0)
                return false;
        f->cap = dmo_codec_payload_capacity(f->c);
        f->good.pages = malloc(CP * PS);
        f->good.payload = malloc(f->cap);
        f->work.pages = malloc(CP * PS);
        f->work.payload = malloc(f->cap);
        uint64_t s = 5;
        for (unsigned i = 0; i < CP; i++)
                dmo_td_fill(f->good.pages + i * PS, PS,
                            i % 4 == 1 ? DMO_TD_ZERO
                            : i == 6   ? DMO_TD_RANDOM
                                       : DMO_TD_TEXT,
                            &s);
        f->good.npages = CP;
        return dmo_codec_encode_one(f->c, &f->good) == 0;
}

static void fixture_fini(struct fixture *f)
{
        dmo_codec_free(f->c);
        free(f->good.pages);
        free(f->good.payload);
        free(f->work.pages);
        free(f->work.payload);
}

static void reset(struct fixture *f)
{
        uint8_t *pages = f->work.pages, *payload = f->work.payload;
        f->work = f->good;
        f->work.pages = pages;
        f->work.payload = payload;
        memcpy(payload, f->good.payload, f->good.payload_len);
        memset(pages, 0x5a, CP * PS);
}

static int decode(struct fixture *f)
{
        int r = dmo_codec_decode_one(f->c, &f->work);
        CHECK_INT(r, ==, f->work.error);
        return r;
}

static void test_undamaged_chunk_decodes(void)
{
        for (size_t a = 0; a < 3; a++) {
                struct fixture f;
                REQUIRE(fixture_init(&f, algos[a]));
                CHECK_INT(!!(f.good.flags & DMO_CHUNK_COMPRESSED), ==, a != 0);
                reset(&f);
                CHECK_INT(decode(&f), ==, 0);
                CHECK(memcmp(f.work.pages, f.good.pages, CP * PS) == 0);
                fixture_fini(&f);
        }
}

static void test_flipped_payload_byte_is_rejected(void)
{
        for (size_t a = 0; a < 3; a++) {
                struct fixture f;
                REQUIRE(fixture_init(&f, algos[a]));
                static const double where[] = {0, 0.5, 1};
                for (int w = 0; w < 3; w++) {
                        reset(&f);
                        uint32_t at = (uint32_t)((f.work.payload_len - 1) * where[w]);
                        f.work.payload[at] ^= 0x10;
                        CHECK_INT(decode(&f), ==, -EBADMSG);
                        /* with the checksum forged to match, the decompressor or
                         * the pages checksum must still catch it */
                        f.work.payload_hash = dmo_hash64(f.work.payload, f.work.payload_len);
                        CHECK_INT(decode(&f), ==, -EBADMSG);
                }
                fixture_fini(&f);
        }
}

static void test_wrong_payload_len_is_rejected(void)
{
        for (size_t a = 0; a < 3; a++) {
                struct fixture f;
                REQUIRE(fixture_init(&f, algos[a]));
                static const int64_t delta[] = {-1, +1, -100};
                for (int d = 0; d < 3; d++) {
                        reset(&f);
                        f.work.payload_len = (uint32_t)(f.work.payload_len + delta[d]);
                        memset(f.work.payload + f.good.payload_len, 0, 1);
                        CHECK_INT(decode(&f), ==, -EBADMSG);
                        f.work.payload_hash = dmo_hash64(f.work.payload, f.work.payload_len);
                        CHECK_INT(decode(&f), ==, -EBADMSG);
                }
                static const uint32_t huge[] = {0, 0, UINT32_MAX, 0x80000000u};
                for (int h = 0; h < 4; h++) {
                        reset(&f);
                        f.work.payload_len = h == 0 ? f.cap + 1 : h == 1 ? 0 : huge[h];
                        CHECK_INT(decode(&f), ==, -EBADMSG);
                }
                fixture_fini(&f);
        }
}

static void test_wrong_checksums_are_rejected(void)
{
        for (size_t a = 0; a < 3; a++) {
                struct fixture f;
                REQUIRE(fixture_init(&f, algos[a]));
                reset(&f);
                f.work.payload_hash ^= 1;
                CHECK_INT(decode(&f), ==, -EBADMSG);
                reset(&f);
                f.work.pages_hash ^= UINT64_C(1) << 63;
                CHECK_INT(decode(&f), ==, -EBADMSG);
                fixture_fini(&f);
        }
}

static void test_damaged_zero_map_is_rejected(void)
{
        for (size_t a = 0; a < 3; a++) {
                struct fixture f;
                REQUIRE(fixture_init(&f, algos[a]));
                const uint64_t map = f.good.zero_map;
                REQUIRE(map == 0x2222);
                const uint64_t bad[] = {
                    map | 1,                   /* a data page claimed zero */
                    map & ~UINT64_C(2),        /* a zero page claimed data */
                    map ^ 3,                   /* same count, wrong places */
                    map | (UINT64_C(1) << CP), /* beyond npages */
                    map | (UINT64_C(1) << 63), /* far beyond */
                    0,                         /* none */
                    UINT64_MAX,                /* all, and more */
                    (UINT64_C(1) << CP) - 1,   /* all pages zero */
                };
                for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                        reset(&f);
                        f.work.zero_map = bad[i];
                        if (decode(&f) != -EBADMSG)
                                printf("# zero_map %#llx accepted\n", (unsigned long long)bad[i]);
                        CHECK_INT(f.work.error, ==, -EBADMSG);
                }
                fixture_fini(&f);
        }
}

static void test_bad_npages_and_flags_are_rejected(void)
{
        for (size_t a = 0; a < 3; a++) {
                struct fixture f;
                REQUIRE(fixture_init(&f, algos[a]));
                static const uint32_t npages[] = {0, CP - 1, CP + 1, 64, 65, UINT32_MAX};
                for (size_t i = 0; i < sizeof(npages) / sizeof(npages[0]); i++) {
                        reset(&f);
                        f.work.npages = npages[i];
                        CHECK_INT(decode(&f), ==, -EBADMSG);
                }
                reset(&f);
                f.work.flags |= 0x80;
                CHECK_INT(decode(&f), ==, -EBADMSG);
                reset(&f);
                f.work.flags ^= DMO_CHUNK_COMPRESSED;
                CHECK_INT(decode(&f), ==, -EBADMSG);
                fixture_fini(&f);
        }
}

static void test_garbage_compressed_payload_with_valid_checksum_is_rejected(void)
{
        for (size_t a = 1; a < 3; a++) {
                struct fixture f;
                REQUIRE(fixture_init(&f, algos[a]));
                uint64_t s = 77;
                for (int round = 0; round < 50; round++) {
                        reset(&f);
                        f.work.payload_len = (uint32_t)(dmo_td_next(&s) % f.cap);
                        dmo_td_random(f.work.payload, f.work.payload_len, &s);
                        f.work.payload_hash = dmo_hash64(f.work.payload, f.work.payload_len);
                        CHECK_INT(decode(&f), ==, -EBADMSG);
                }
                /* a valid stream of the wrong length */
                reset(&f);
                f.work.zero_map |= 1;
                CHECK_INT(decode(&f), ==, -EBADMSG);
                fixture_fini(&f);
        }
}

static void test_pool_reports_damage_per_chunk_and_keeps_going(void)
{
        struct fixture f;
        REQUIRE(fixture_init(&f, DMO_COMPRESS_LZ4));
        struct dmo_chunk *ch;
        for (unsigned i = 0; i < 6; i++) {
                REQUIRE(dmo_codec_acquire(f.c, &ch) == 0);
                uint8_t *pages = ch->pages, *payload = ch->payload;
                *ch = f.good;
                ch->pages = pages;
                ch->payload = payload;
                memcpy(payload, f.good.payload, f.good.payload_len);
                if (i % 2)
                        ch->payload[i] ^= 1;
                CHECK_INT(dmo_codec_submit(f.c, ch), ==, 0);
        }
        for (unsigned i = 0; i < 6; i++) {
                REQUIRE(dmo_codec_collect(f.c, &ch, true) == 0);
                CHECK_INT(ch->seq, ==, i);
                CHECK_INT(ch->error, ==, i % 2 ? -EBADMSG : 0);
                if (!ch->error)
                        CHECK(memcmp(ch->pages, f.good.pages, CP * PS) == 0);
                dmo_codec_release(f.c, ch);
        }
        fixture_fini(&f);
}

DMO_TEST_MAIN(T(test_undamaged_chunk_decodes), T(test_flipped_payload_byte_is_rejected),
              T(test_wrong_payload_len_is_rejected), T(test_wrong_checksums_are_rejected),
              T(test_damaged_zero_map_is_rejected), T(test_bad_npages_and_flags_are_rejected),
              T(test_garbage_compressed_payload_with_valid_checksum_is_rejected),
              T(test_pool_reports_damage_per_chunk_and_keeps_going))
