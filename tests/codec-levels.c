/* Compression levels: the header accepts exactly the levels an encoder can
 * produce, and a decoder never looks at the level (decompression needs
 * none). Before, a header with zstd level 23..255 or lz4 level -1 passed the
 * header check (`info` said intact) and resume then failed with EINVAL. */
#include <errno.h>
#include <limits.h>

#include <zstd.h>

#include "codec/codec.h"
#include "image/format.h"
#include "util/cleanup.h"
#include "tests/testlib.h"

#define PS 4096u

static const int hostile[] = {
    INT_MIN, -(1 << 17) - 1, -(1 << 17), -131071, -5, -1, 0, 1, 3, 19, 22, 23, 99, 255,
    256,     65537,          65538,      INT_MAX,
};
static const enum dmo_compress algos[] = {DMO_COMPRESS_NONE, DMO_COMPRESS_LZ4, DMO_COMPRESS_ZSTD};

static int codec_new(enum dmo_codec_dir dir, enum dmo_compress algo, int level,
                     struct dmo_codec **c)
{
        struct dmo_codec_params p = {
            .dir = dir,
            .algo = algo,
            .level = level,
            .page_size = PS,
            .chunk_pages = 4,
            .inline_work = true,
        };
        *c = NULL;
        return dmo_codec_new(&p, c);
}

static void the_level_check_names_the_encoders_ranges(void)
{
        CHECK_INT(dmo_compress_level_check(DMO_COMPRESS_LZ4, 0), ==, 0);
        CHECK_INT(dmo_compress_level_check(DMO_COMPRESS_LZ4, 65537), ==, 0);
        CHECK_INT(dmo_compress_level_check(DMO_COMPRESS_LZ4, -1), ==, -EINVAL);
        CHECK_INT(dmo_compress_level_check(DMO_COMPRESS_LZ4, 65538), ==, -EINVAL);
        CHECK_INT(dmo_compress_level_check(DMO_COMPRESS_ZSTD, ZSTD_minCLevel()), ==, 0);
        CHECK_INT(dmo_compress_level_check(DMO_COMPRESS_ZSTD, ZSTD_maxCLevel()), ==, 0);
        CHECK_INT(dmo_compress_level_check(DMO_COMPRESS_ZSTD, ZSTD_maxCLevel() + 1), ==, -EINVAL);
        CHECK_INT(dmo_compress_level_check(DMO_COMPRESS_ZSTD, INT_MIN), ==, -EINVAL);
        CHECK_INT(dmo_compress_level_check(DMO_COMPRESS_NONE, 12345), ==, 0);
        CHECK_INT(dmo_compress_level_check((enum dmo_compress)3, 0), ==, -EINVAL);
}

static void an_encoder_takes_exactly_the_checked_levels(void)
{
        for (size_t a = 0; a < DMO_ARRAY_SIZE(algos); a++)
                for (size_t i = 0; i < DMO_ARRAY_SIZE(hostile); i++) {
                        /* zstd's slowest levels size big contexts: skip the
                         * accepted ones above 19, their acceptance is above. */
                        if (algos[a] == DMO_COMPRESS_ZSTD && hostile[i] > 19 && hostile[i] <= 22)
                                continue;
                        struct dmo_codec *c;
                        int want = dmo_compress_level_check(algos[a], hostile[i]);
                        int r = codec_new(DMO_CODEC_ENCODE, algos[a], hostile[i], &c);
                        if (r != want)
                                printf("# %s level %d: encoder %d, check %d\n",
                                       dmo_compress_name(algos[a]), hostile[i], r, want);
                        CHECK_INT(r, ==, want);
                        dmo_codec_free(c);
                }
}

/* A chunk of mixed content encoded at the fast default, decoded by a decoder
 * that was told a hostile level. */
static void a_decoder_ignores_the_level(void)
{
        for (size_t a = 0; a < DMO_ARRAY_SIZE(algos); a++) {
                struct dmo_codec *enc;
                REQUIRE(codec_new(DMO_CODEC_ENCODE, algos[a], 0, &enc) == 0);
                size_t cap = dmo_codec_payload_capacity(enc);
                uint8_t *orig = calloc(4, PS), *out = calloc(4, PS), *payload = malloc(cap);
                REQUIRE(orig && out && payload);
                for (unsigned i = 0; i < 3 * PS; i++)
                        orig[i] = (uint8_t)(i % 251 < 100 ? i % 7 : i * 2654435761u >> 24);
                struct dmo_chunk e = {.npages = 4, .pages = orig, .payload = payload};
                REQUIRE(dmo_codec_encode_one(enc, &e) == 0);
                for (size_t i = 0; i < DMO_ARRAY_SIZE(hostile); i++) {
                        struct dmo_codec *dec;
                        CHECK_INT(codec_new(DMO_CODEC_DECODE, algos[a], hostile[i], &dec), ==, 0);
                        if (!dec)
                                continue;
                        struct dmo_chunk d = e;
                        d.pages = out;
                        memset(out, 0xa5, 4 * PS);
                        CHECK_INT(dmo_codec_decode_one(dec, &d), ==, 0);
                        CHECK(memcmp(out, orig, 4 * PS) == 0);
                        dmo_codec_free(dec);
                }
                free(orig);
                free(out);
                free(payload);
                dmo_codec_free(enc);
        }
}

static struct dmo_image_header header_with(enum dmo_compress algo, int level)
{
        struct dmo_image_header h = {
            .page_size = PS,
            .image_pages = 64,
            .compress = algo,
            .level = level,
            .chunk_pages = 64,
            .chunk_count = 1,
            .stream_len = DMO_CHUNK_HEADER_LEN + 10 * PS,
            .map_offset = 10 * PS,
            .map_pages = 1,
            .extent_count = 1,
            .raw_bytes = 64ull * PS,
            .stored_bytes = 10ull * PS,
        };
        strcpy(h.identity.sysname, "Linux");
        strcpy(h.identity.release, "6.1.0");
        strcpy(h.identity.machine, "x86_64");
        return h;
}

/* The writer's own range (DMO_IMAGE_LEVEL_*) and the encoder's: the levels
 * an image can carry. */
static bool producible(enum dmo_compress algo, int level)
{
        return level >= DMO_IMAGE_LEVEL_MIN && level <= DMO_IMAGE_LEVEL_MAX &&
               dmo_compress_level_check(algo, level) == 0;
}

static void the_header_accepts_exactly_the_producible_levels(void)
{
        struct dmo_image_header ok = header_with(DMO_COMPRESS_ZSTD, 3);
        REQUIRE(dmo_image_header_check(&ok) == 0);
        for (size_t a = 0; a < DMO_ARRAY_SIZE(algos); a++)
                for (size_t i = 0; i < DMO_ARRAY_SIZE(hostile); i++) {
                        struct dmo_image_header h = header_with(algos[a], hostile[i]);
                        bool accepted = dmo_image_header_check(&h) == 0;
                        if (accepted != producible(algos[a], hostile[i]))
                                printf("# %s level %d: header %s\n", dmo_compress_name(algos[a]),
                                       hostile[i], accepted ? "accepted" : "refused");
                        CHECK(accepted == producible(algos[a], hostile[i]));
                        /* ...and through the byte layout as well. */
                        uint8_t page[PS];
                        struct dmo_image_header d;
                        enum dmo_image_fault f;
                        if (dmo_image_header_encode(page, PS, &h) == 0)
                                CHECK((dmo_image_header_decode(page, PS, &d, &f) == 0) == accepted);
                        /* Whatever the header accepts, a decoder is made for. */
                        struct dmo_codec *dec;
                        if (accepted) {
                                CHECK_INT(codec_new(DMO_CODEC_DECODE, algos[a], hostile[i], &dec),
                                          ==, 0);
                                dmo_codec_free(dec);
                        }
                }
}

DMO_TEST_MAIN(T(the_level_check_names_the_encoders_ranges),
              T(an_encoder_takes_exactly_the_checked_levels), T(a_decoder_ignores_the_level),
              T(the_header_accepts_exactly_the_producible_levels))
