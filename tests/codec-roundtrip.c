/* codec: every algorithm gives back what it was given, zero pages are
 * elided, incompressible data is stored raw, names and parameters are
 * checked. Uses the single-chunk helpers (the pool has its own test). */
#include <errno.h>

#include "codec/codec.h"
#include "util/cleanup.h"
#include "tests/codec-testdata.h"
#include "tests/testlib.h"

#define PS 4096u

static const enum dmo_compress algos[] = {DMO_COMPRESS_NONE, DMO_COMPRESS_LZ4, DMO_COMPRESS_ZSTD};

struct bufs {
        struct dmo_chunk enc, dec;
        uint8_t *orig;
};

static struct dmo_codec *codec_for(enum dmo_compress algo, int level, unsigned chunk_pages)
{
        struct dmo_codec_params p = {
            .dir = DMO_CODEC_ENCODE,
            .algo = algo,
            .level = level,
            .page_size = PS,
            .chunk_pages = chunk_pages,
            .threads = 1,
        };
        struct dmo_codec *c = NULL;
        int r = dmo_codec_new(&p, &c);
        CHECK_INT(r, ==, 0);
        return r == 0 ? c : NULL;
}

static void bufs_init(struct bufs *b, struct dmo_codec *c, unsigned chunk_pages)
{
        size_t cap = dmo_codec_payload_capacity(c);
        memset(b, 0, sizeof(*b));
        b->orig = malloc(chunk_pages * PS);
        b->enc.pages = malloc(chunk_pages * PS);
        b->enc.payload = malloc(cap);
        b->dec.pages = malloc(chunk_pages * PS);
        b->dec.payload = malloc(cap);
}

static void bufs_free(struct bufs *b)
{
        free(b->orig);
        free(b->enc.pages);
        free(b->enc.payload);
        free(b->dec.pages);
        free(b->dec.payload);
}

/* Encodes b->orig[0..npages), decodes it into b->dec and compares. */
static bool round_trip(struct dmo_codec *c, struct bufs *b, uint32_t npages)
{
        memcpy(b->enc.pages, b->orig, npages * PS);
        b->enc.npages = npages;
        if (dmo_codec_encode_one(c, &b->enc) != 0)
                return false;
        if (b->enc.payload_len > dmo_codec_payload_capacity(c))
                return false;
        if (memcmp(b->enc.pages, b->orig, npages * PS) != 0)
                return false; /* encoding must leave the input alone */

        b->dec.npages = b->enc.npages;
        b->dec.zero_map = b->enc.zero_map;
        b->dec.flags = b->enc.flags;
        b->dec.payload_len = b->enc.payload_len;
        b->dec.payload_hash = b->enc.payload_hash;
        b->dec.pages_hash = b->enc.pages_hash;
        memcpy(b->dec.payload, b->enc.payload, b->enc.payload_len);
        memset(b->dec.pages, 0xa5, npages * PS);
        if (dmo_codec_decode_one(c, &b->dec) != 0 || b->dec.error != 0)
                return false;
        return memcmp(b->dec.pages, b->orig, npages * PS) == 0;
}

static uint64_t expected_zero_map(const uint8_t *p, uint32_t npages)
{
        static const uint8_t zero[PS];
        uint64_t m = 0;
        for (uint32_t i = 0; i < npages; i++)
                if (memcmp(p + i * PS, zero, PS) == 0)
                        m |= UINT64_C(1) << i;
        return m;
}

enum content { C_ZERO, C_RANDOM, C_TEXT, C_CODE, C_MIXED, C_LAST_BYTE, C_COUNT };

static void make_content(uint8_t *p, unsigned npages, enum content what, uint64_t seed)
{
        uint64_t s = seed;
        static const enum dmo_td_kind single[] = {DMO_TD_ZERO, DMO_TD_RANDOM, DMO_TD_TEXT,
                                                  DMO_TD_CODE, DMO_TD_ZERO,   DMO_TD_LAST_BYTE};
        for (unsigned i = 0; i < npages; i++) {
                enum dmo_td_kind k =
                    what == C_MIXED ? (enum dmo_td_kind)(i * 7 % DMO_TD_KINDS) : single[what];
                dmo_td_fill(p + i * PS, PS, k, &s);
        }
}

static void test_every_algorithm_round_trips_every_content_and_length(void)
{
        const unsigned cp = DMO_CHUNK_MAX_PAGES;
        for (size_t a = 0; a < DMO_ARRAY_SIZE(algos); a++) {
                struct dmo_codec *c = codec_for(algos[a], 0, cp);
                REQUIRE(c);
                struct bufs b;
                bufs_init(&b, c, cp);
                for (int what = 0; what < C_COUNT; what++) {
                        make_content(b.orig, cp, (enum content)what, 42 + what);
                        for (uint32_t n = 1; n <= cp; n++) {
                                bool ok = round_trip(c, &b, n);
                                if (!ok)
                                        printf("# %s content %d npages %u failed\n",
                                               dmo_compress_name(algos[a]), what, n);
                                CHECK(ok);
                                CHECK(b.enc.zero_map == expected_zero_map(b.orig, n));
                                if (what == C_ZERO) {
                                        CHECK_INT(b.enc.payload_len, ==, 0);
                                        CHECK_INT(b.enc.flags, ==, 0);
                                }
                                if (!ok)
                                        break;
                        }
                }
                bufs_free(&b);
                dmo_codec_free(c);
        }
}

static void test_compressible_pages_are_compressed(void)
{
        for (size_t a = 1; a < DMO_ARRAY_SIZE(algos); a++) {
                struct dmo_codec *c = codec_for(algos[a], 0, 32);
                REQUIRE(c);
                struct bufs b;
                bufs_init(&b, c, 32);
                make_content(b.orig, 32, C_TEXT, 7);
                CHECK(round_trip(c, &b, 32));
                CHECK(b.enc.flags & DMO_CHUNK_COMPRESSED);
                CHECK_INT(b.enc.payload_len, <, 32 * PS / 2);
                /* one page alone must compress too (the context fits every size) */
                CHECK(round_trip(c, &b, 1));
                CHECK(b.enc.flags & DMO_CHUNK_COMPRESSED);
                CHECK_INT(b.enc.payload_len, <, PS / 2);
                bufs_free(&b);
                dmo_codec_free(c);
        }
}

static void test_incompressible_pages_are_stored_raw(void)
{
        for (size_t a = 0; a < DMO_ARRAY_SIZE(algos); a++) {
                struct dmo_codec *c = codec_for(algos[a], 0, 16);
                REQUIRE(c);
                struct bufs b;
                bufs_init(&b, c, 16);
                make_content(b.orig, 16, C_RANDOM, 9);
                memset(b.orig + 3 * PS, 0, PS); /* one hole: raw payload is still gathered */
                CHECK(round_trip(c, &b, 16));
                CHECK_INT(b.enc.flags, ==, 0);
                CHECK_INT(b.enc.zero_map, ==, 1u << 3);
                CHECK_INT(b.enc.payload_len, ==, 15 * PS);
                CHECK(memcmp(b.enc.payload, b.orig, 3 * PS) == 0);
                CHECK(memcmp(b.enc.payload + 3 * PS, b.orig + 4 * PS, 12 * PS) == 0);
                bufs_free(&b);
                dmo_codec_free(c);
        }
}

/* A chunk that is mostly compressible but random where three samples
 * (start, middle, end) would look: the random-data trial samples eight
 * places and compresses it (with three it went out raw, text and all). */
static void test_random_at_start_middle_and_end_is_still_compressed(void)
{
        for (size_t a = 1; a < DMO_ARRAY_SIZE(algos); a++) {
                struct dmo_codec *c = codec_for(algos[a], 0, 32);
                REQUIRE(c);
                struct bufs b;
                bufs_init(&b, c, 32);
                make_content(b.orig, 32, C_TEXT, 11);
                static const unsigned random_pages[] = {0, 15, 16, 31};
                for (size_t i = 0; i < DMO_ARRAY_SIZE(random_pages); i++)
                        make_content(b.orig + random_pages[i] * PS, 1, C_RANDOM, 12 + (unsigned)i);
                CHECK(round_trip(c, &b, 32));
                CHECK(b.enc.flags & DMO_CHUNK_COMPRESSED);
                CHECK_INT(b.enc.payload_len, <, 16 * PS);
                bufs_free(&b);
                dmo_codec_free(c);
        }
}

static void test_zero_map_marks_exactly_the_zero_pages(void)
{
        struct dmo_codec *c = codec_for(DMO_COMPRESS_NONE, 0, 64);
        REQUIRE(c);
        struct bufs b;
        bufs_init(&b, c, 64);
        uint64_t s = 1, want = 0;
        for (unsigned i = 0; i < 64; i++) {
                bool zero = (i % 3) == 0 || i == 63;
                dmo_td_fill(b.orig + i * PS, PS, zero ? DMO_TD_ZERO : DMO_TD_LAST_BYTE, &s);
                if (zero)
                        want |= UINT64_C(1) << i;
        }
        CHECK(round_trip(c, &b, 64));
        CHECK(b.enc.zero_map == want);
        CHECK_INT(b.enc.payload_len, ==, (64 - __builtin_popcountll(want)) * PS);
        CHECK(b.enc.pages_hash == dmo_hash64(b.orig, 64 * PS));
        CHECK(b.enc.payload_hash == dmo_hash64(b.enc.payload, b.enc.payload_len));
        bufs_free(&b);
        dmo_codec_free(c);
}

static void test_levels_round_trip_and_bad_levels_are_rejected(void)
{
        static const struct {
                enum dmo_compress algo;
                int level;
        } good[] = {{DMO_COMPRESS_LZ4, 1},
                    {DMO_COMPRESS_LZ4, 50},
                    {DMO_COMPRESS_ZSTD, -5},
                    {DMO_COMPRESS_ZSTD, 3},
                    {DMO_COMPRESS_ZSTD, 19}};
        for (size_t i = 0; i < DMO_ARRAY_SIZE(good); i++) {
                struct dmo_codec *c = codec_for(good[i].algo, good[i].level, 64);
                REQUIRE(c);
                struct bufs b;
                bufs_init(&b, c, 64);
                make_content(b.orig, 64, C_MIXED, 3);
                CHECK(round_trip(c, &b, 64));
                CHECK(b.enc.flags & DMO_CHUNK_COMPRESSED);
                bufs_free(&b);
                dmo_codec_free(c);
        }

        struct dmo_codec_params p = {.algo = DMO_COMPRESS_ZSTD,
                                     .level = 99,
                                     .page_size = PS,
                                     .chunk_pages = 8,
                                     .threads = 1};
        struct dmo_codec *c = NULL;
        CHECK_INT(dmo_codec_new(&p, &c), ==, -EINVAL);
        p.algo = DMO_COMPRESS_LZ4;
        p.level = -1;
        CHECK_INT(dmo_codec_new(&p, &c), ==, -EINVAL);
        CHECK(c == NULL);
}

static void test_bad_params_are_rejected(void)
{
        const struct dmo_codec_params ok = {
            .algo = DMO_COMPRESS_LZ4, .page_size = PS, .chunk_pages = 8, .threads = 1};
        struct dmo_codec_params p;
        struct dmo_codec *c = NULL;

        p = ok;
        p.chunk_pages = 0;
        CHECK_INT(dmo_codec_new(&p, &c), ==, -EINVAL);
        p.chunk_pages = DMO_CHUNK_MAX_PAGES + 1;
        CHECK_INT(dmo_codec_new(&p, &c), ==, -EINVAL);
        p = ok;
        p.page_size = 0;
        CHECK_INT(dmo_codec_new(&p, &c), ==, -EINVAL);
        p.page_size = 4095;
        CHECK_INT(dmo_codec_new(&p, &c), ==, -EINVAL);
        p = ok;
        p.algo = (enum dmo_compress)7;
        CHECK_INT(dmo_codec_new(&p, &c), ==, -EINVAL);
        p = ok;
        p.dir = (enum dmo_codec_dir)5;
        CHECK_INT(dmo_codec_new(&p, &c), ==, -EINVAL);
        CHECK(c == NULL);

        p = ok;
        REQUIRE(dmo_codec_new(&p, &c) == 0);
        CHECK_INT(dmo_codec_payload_capacity(c), >=, 8 * PS);
        struct bufs b;
        bufs_init(&b, c, 8);
        b.enc.npages = 0;
        CHECK_INT(dmo_codec_encode_one(c, &b.enc), ==, -EINVAL);
        b.enc.npages = 9;
        CHECK_INT(dmo_codec_encode_one(c, &b.enc), ==, -EINVAL);
        bufs_free(&b);
        dmo_codec_free(c);
}

static void test_names_parse_and_unknown_names_are_rejected(void)
{
        for (size_t a = 0; a < DMO_ARRAY_SIZE(algos); a++) {
                enum dmo_compress back = (enum dmo_compress)99;
                const char *name = dmo_compress_name(algos[a]);
                REQUIRE(name);
                CHECK_INT(dmo_compress_parse(name, &back), ==, 0);
                CHECK_INT(back, ==, algos[a]);
        }
        CHECK(strcmp(dmo_compress_name(DMO_COMPRESS_LZ4), "lz4") == 0);
        CHECK(dmo_compress_name((enum dmo_compress)42) == NULL);
        enum dmo_compress out = DMO_COMPRESS_LZ4;
        CHECK_INT(dmo_compress_parse("gzip", &out), ==, -EINVAL);
        CHECK_INT(dmo_compress_parse("LZ4", &out), ==, -EINVAL);
        CHECK_INT(dmo_compress_parse("", &out), ==, -EINVAL);
        CHECK_INT(dmo_compress_parse("zstd ", &out), ==, -EINVAL);
        CHECK_INT(dmo_compress_parse(NULL, &out), ==, -EINVAL);
        CHECK_INT(out, ==, DMO_COMPRESS_LZ4);
}

static void test_hash64_is_xxh3_64(void)
{
        /* Reference values of XXH3_64bits with seed 0. */
        CHECK(dmo_hash64("", 0) == UINT64_C(0x2D06800538D394C2));
        CHECK(dmo_hash64("a", 1) != dmo_hash64("b", 1));
}

DMO_TEST_MAIN(T(test_every_algorithm_round_trips_every_content_and_length),
              T(test_compressible_pages_are_compressed),
              T(test_incompressible_pages_are_stored_raw),
              T(test_random_at_start_middle_and_end_is_still_compressed),
              T(test_zero_map_marks_exactly_the_zero_pages),
              T(test_levels_round_trip_and_bad_levels_are_rejected),
              T(test_bad_params_are_rejected), T(test_names_parse_and_unknown_names_are_rejected),
              T(test_hash64_is_xxh3_64))
