/* Corruption of a written image, one random damage at a time, in every part
 * of it: each must be reported by the probe or by next_page() before the
 * end, and no page that differs from the original may ever be delivered. */
#include <errno.h>

#include "util/le.h"
#include "tests/image-testutil.h"
#include "util/cleanup.h"

#define PS          4096u
#define DEV_PAGES   2048u
#define IMAGE_PAGES 1500u
#define SEED        77u

struct image {
        char path[512];
        struct dmo_blockdev *dev;
        struct dmo_image_result res;
        struct dmo_image_info info;
        struct dmo_extent *ext;
        uint64_t map_at[16];
};

static int read_cb(void *ctx, void *buf, size_t len, uint64_t off)
{
        return dmo_blockdev_pread(ctx, buf, len, off);
}

static int make_image_with(struct image *im, enum dmo_compress algo)
{
        snprintf(im->path, sizeof(im->path), "%s/c.swap", dmo_test_tmpdir());
        if (tu_make_swap(im->path, DEV_PAGES, PS) != 0)
                return -1;
        if (dmo_blockdev_open(im->path, true, NULL, &im->dev) < 0)
                return -2;
        struct tu_alloc a;
        /* Stored chunks lie whole in a read-ahead buffer only where slots
         * are contiguous. */
        tu_alloc_init(&a, algo == DMO_COMPRESS_NONE ? TU_CONTIGUOUS : TU_SHUFFLED, DEV_PAGES, PS,
                      11);
        const struct dmo_image_writer_params wp = {
            .algo = algo,
            .threads = 2,
            /* A quarter of tu_page's pages are zeros: stored chunks of two
             * pages are mostly without one, and go out in place. */
            .chunk_pages = algo == DMO_COMPRESS_NONE ? 2 : 16,
            .page_size = PS,
            .expected_pages = IMAGE_PAGES,
        };
        int r = tu_hibernate(im->dev, &a, SEED, IMAGE_PAGES, &wp, &im->res);
        free(a.slots);
        if (r < 0)
                return r;
        r = dmo_image_probe(im->dev, 0, PS, &im->info);
        if (r < 0)
                return r;

        /* The test's own view of where everything is. */
        const struct dmo_image_header *h = &im->info.header;
        if (h->map_pages > DMO_ARRAY_SIZE(im->map_at))
                return -3;
        im->ext = calloc(h->extent_count, sizeof(*im->ext));
        struct dmo_extent *scratch = calloc(dmo_map_scratch_len(h), sizeof(*scratch));
        uint8_t page[PS];
        const struct dmo_map_bounds b = {DEV_PAGES * PS, 0, im->res.header_offset};
        r = dmo_extent_map_load(h, &b, read_cb, im->dev, page, im->ext, scratch);
        free(scratch);
        uint64_t off = h->map_offset;
        for (uint32_t i = 0; i < h->map_pages && r == 0; i++) {
                im->map_at[i] = off;
                r = dmo_blockdev_pread(im->dev, page, PS, off);
                off = dmo_get_le64(page + 16);
        }
        return r;
}

static int make_image(struct image *im)
{
        return make_image_with(im, DMO_COMPRESS_ZSTD);
}

/* Device offset of stream byte pos. */
static uint64_t stream_offset(const struct image *im, uint64_t pos)
{
        for (uint64_t i = 0; i < im->info.header.extent_count; i++) {
                uint64_t len = im->ext[i].pages * PS;
                if (pos < len)
                        return im->ext[i].offset + pos;
                pos -= len;
        }
        return UINT64_MAX;
}

enum region { R_HEADER, R_MAP, R_STREAM, R_SIGNATURE, R_COUNT };
static const char *const region_name[R_COUNT] = {"header", "map", "stream", "signature"};

struct tally {
        int by_probe[R_COUNT];
        int by_reader[R_COUNT];
        int silent_wrong[R_COUNT];
        int undetected[R_COUNT];
};

static uint64_t pick(const struct image *im, enum region rg, uint64_t rnd)
{
        switch (rg) {
        case R_HEADER:
                return im->res.header_offset + rnd % PS;
        case R_MAP:
                return im->map_at[rnd % im->info.header.map_pages] + (rnd >> 20) % PS;
        case R_STREAM:
                return stream_offset(im, rnd % im->info.header.stream_len);
        default: /* our block and the magic slot */
                return PS - DMO_SIG_BLOCK_FROM_END +
                       (rnd % 2 ? rnd % DMO_SIG_BLOCK_SIZE
                                : DMO_SIG_BLOCK_FROM_END - 10 + rnd % 10);
        }
}

static void judge(struct image *im, enum region rg, struct tally *t, const char *what, uint64_t off)
{
        int pr;
        int r = tu_resume(im->dev, SEED, IMAGE_PAGES, PS, 2, &pr);
        if (pr < 0)
                t->by_probe[rg]++;
        else if (r < 0)
                t->by_reader[rg]++;
        else if (r == 1)
                t->silent_wrong[rg]++;
        else
                t->undetected[rg]++;
        if (pr >= 0 && r >= 0)
                printf("# %s damage at %llu in %s not reported (%d)\n", what,
                       (unsigned long long)off, region_name[rg], r);
}

static void flips_everywhere_are_all_reported(enum dmo_compress algo)
{
        struct image im = {0};
        REQUIRE(make_image_with(&im, algo) == 0);
        if (algo != DMO_COMPRESS_NONE) /* contiguous: one extent */
                CHECK_INT(im.info.header.map_pages, >=, 2);
        REQUIRE(tu_resume(im.dev, SEED, IMAGE_PAGES, PS, 2, NULL) == 0);

        static const int trials[R_COUNT] = {
            [R_HEADER] = 60, [R_MAP] = 60, [R_STREAM] = 120, [R_SIGNATURE] = 30};
        struct tally t = {0};
        int total = 0;
        for (int rg = 0; rg < R_COUNT; rg++)
                for (int i = 0; i < trials[rg]; i++) {
                        uint64_t rnd = tu_mix(1000u * (unsigned)rg + (unsigned)i);
                        uint64_t off = pick(&im, (enum region)rg, rnd);
                        uint8_t orig, bad;
                        REQUIRE(dmo_blockdev_pread(im.dev, &orig, 1, off) == 0);
                        bad = orig ^ (uint8_t)(1 + (rnd >> 40) % 255);
                        REQUIRE(dmo_blockdev_pwrite(im.dev, &bad, 1, off) == 0);
                        judge(&im, (enum region)rg, &t, "byte flip", off);
                        REQUIRE(dmo_blockdev_pwrite(im.dev, &orig, 1, off) == 0);
                        total++;
                }
        for (int rg = 0; rg < R_COUNT; rg++) {
                printf("# %-9s: %d by probe, %d by reader, %d silent wrong pages, %d "
                       "undetected\n",
                       region_name[rg], t.by_probe[rg], t.by_reader[rg], t.silent_wrong[rg],
                       t.undetected[rg]);
                CHECK_INT(t.silent_wrong[rg], ==, 0);
                CHECK_INT(t.undetected[rg], ==, 0);
                CHECK_INT(t.by_probe[rg] + t.by_reader[rg], ==, trials[rg]);
        }
        CHECK_INT(total, >=, 200);
        /* Stream damage is the reader's to find; the probe only reads the
         * header and map. */
        CHECK_INT(t.by_reader[R_STREAM], ==, trials[R_STREAM]);
        CHECK(tu_resume(im.dev, SEED, IMAGE_PAGES, PS, 2, NULL) == 0);
        dmo_blockdev_free(im.dev);
        free(im.ext);
}

static void test_random_byte_flips_everywhere_are_all_reported(void)
{
        flips_everywhere_are_all_reported(DMO_COMPRESS_ZSTD);
}

/* Stored as they were, most chunks go to the kernel straight from the
 * read-ahead buffers, checked on the engine's thread: damage there is
 * found as surely. */
static void test_flips_in_chunks_handed_out_in_place_are_reported(void)
{
        struct image im = {0};
        REQUIRE(make_image_with(&im, DMO_COMPRESS_NONE) == 0);
        uint64_t in_place = 0;
        REQUIRE(tu_resume_counted(im.dev, SEED, IMAGE_PAGES, PS, 2, NULL, &in_place) == 0);
        printf("# %llu of %llu chunks handed out in place\n", (unsigned long long)in_place,
               (unsigned long long)im.info.header.chunk_count);
        CHECK_INT(in_place, >, im.info.header.chunk_count / 4);
        dmo_blockdev_free(im.dev);
        free(im.ext);
        flips_everywhere_are_all_reported(DMO_COMPRESS_NONE);
}

/* A torn write: a whole stream page or map page reads back as zeros. */
static void test_zeroed_pages_are_reported(void)
{
        struct image im = {0};
        REQUIRE(make_image(&im) == 0);
        uint8_t save[PS], zero[PS] = {0};
        struct tally t = {0};
        const uint64_t stream_pages = (im.info.header.stream_len + PS - 1) / PS;
        for (uint64_t i = 0; i < 40; i++) {
                enum region rg = i % 4 == 0 ? R_MAP : i % 4 == 1 ? R_HEADER : R_STREAM;
                uint64_t off = rg == R_MAP ? im.map_at[i % im.info.header.map_pages]
                               : rg == R_HEADER
                                   ? im.res.header_offset
                                   : stream_offset(&im, (tu_mix(i) % stream_pages) * PS);
                REQUIRE(dmo_blockdev_pread(im.dev, save, PS, off) == 0);
                REQUIRE(dmo_blockdev_pwrite(im.dev, zero, PS, off) == 0);
                judge(&im, rg, &t, "zeroed page", off);
                REQUIRE(dmo_blockdev_pwrite(im.dev, save, PS, off) == 0);
        }
        for (int rg = 0; rg < R_COUNT; rg++) {
                CHECK_INT(t.silent_wrong[rg], ==, 0);
                CHECK_INT(t.undetected[rg], ==, 0);
        }
        dmo_blockdev_free(im.dev);
        free(im.ext);
}

/* Two chunks swapped, or a chunk dropped: every header is intact, only the
 * order or the count is wrong. */
static void test_reordered_stream_is_reported(void)
{
        struct image im = {0};
        REQUIRE(make_image(&im) == 0);
        /* Swap the first stream page with the second: chunk boundaries do
         * not line up with pages, so this breaks a header or a payload. */
        uint8_t a[PS], b[PS];
        uint64_t o0 = stream_offset(&im, 0), o1 = stream_offset(&im, PS);
        REQUIRE(dmo_blockdev_pread(im.dev, a, PS, o0) == 0);
        REQUIRE(dmo_blockdev_pread(im.dev, b, PS, o1) == 0);
        REQUIRE(dmo_blockdev_pwrite(im.dev, b, PS, o0) == 0);
        REQUIRE(dmo_blockdev_pwrite(im.dev, a, PS, o1) == 0);
        int pr;
        int r = tu_resume(im.dev, SEED, IMAGE_PAGES, PS, 2, &pr);
        CHECK_INT(pr, ==, 0);
        CHECK(r < 0);
        dmo_blockdev_free(im.dev);
        free(im.ext);
}

DMO_TEST_MAIN(T(test_random_byte_flips_everywhere_are_all_reported),
              T(test_flips_in_chunks_handed_out_in_place_are_reported),
              T(test_zeroed_pages_are_reported), T(test_reordered_stream_is_reported))
