/* Writer → reader round trips over a real mkswap'd file with fake slot
 * allocators, plus the device-level signature helpers and info JSON. */
#include <errno.h>
#include <unistd.h>

#include <xxhash.h>

#include "kernel/faults.h"
#include "tests/image-testutil.h"
#include "util/cleanup.h"

#define PS        4096u
#define DEV_PAGES 8192u

struct rt_case {
        uint64_t pages;
        enum dmo_compress algo;
        enum tu_layout layout;
        unsigned chunk_pages;
};

static int run_case(const struct rt_case *c, unsigned threads, struct dmo_image_result *res)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/rt.swap", dmo_test_tmpdir());
        if (tu_make_swap(path, DEV_PAGES, PS) != 0)
                return -100;
        struct dmo_blockdev *dev;
        int r = dmo_blockdev_open(path, true, NULL, &dev);
        if (r < 0)
                return r;
        struct tu_alloc a;
        tu_alloc_init(&a, c->layout, DEV_PAGES, PS, c->pages);
        const struct dmo_image_writer_params wp = {
            .algo = c->algo,
            .threads = threads,
            .chunk_pages = c->chunk_pages,
            .page_size = PS,
            .expected_pages = c->pages,
        };
        uint64_t seed = c->pages * 7 + c->algo;
        r = tu_hibernate(dev, &a, seed, c->pages, &wp, res);
        if (r == 0)
                r = tu_resume(dev, seed, c->pages, PS, threads, NULL);
        dmo_blockdev_free(dev);
        free(a.slots);
        return r;
}

static void test_round_trip_every_size_compression_and_layout(void)
{
        static const uint64_t sizes[] = {1, 5, 3000};
        static const enum dmo_compress algos[] = {DMO_COMPRESS_NONE, DMO_COMPRESS_LZ4,
                                                  DMO_COMPRESS_ZSTD};
        static const enum tu_layout layouts[] = {TU_CONTIGUOUS, TU_PAIRS, TU_SHUFFLED};
        for (size_t s = 0; s < DMO_ARRAY_SIZE(sizes); s++)
                for (size_t al = 0; al < DMO_ARRAY_SIZE(algos); al++)
                        for (size_t l = 0; l < DMO_ARRAY_SIZE(layouts); l++) {
                                struct rt_case c = {sizes[s], algos[al], layouts[l], 0};
                                struct dmo_image_result res;
                                int r = run_case(&c, 2, &res);
                                if (r != 0)
                                        printf("# pages %llu algo %d layout %d: %d\n",
                                               (unsigned long long)c.pages, c.algo, c.layout, r);
                                CHECK_INT(r, ==, 0);
                                if (r != 0)
                                        continue;
                                CHECK_INT(res.image_pages, ==, c.pages);
                                CHECK_INT(res.raw_bytes, ==, c.pages * PS);
                                if (layouts[l] == TU_CONTIGUOUS)
                                        CHECK_INT(res.extent_count, ==, 1);
                                if (sizes[s] == 3000 && layouts[l] == TU_SHUFFLED)
                                        CHECK_INT(res.map_pages, >=, 3);
                                if (sizes[s] == 3000 && algos[al] != DMO_COMPRESS_NONE)
                                        CHECK_INT(res.stream_len, <, res.raw_bytes / 2);
                        }
}

static void test_round_trip_small_chunks_and_thread_counts(void)
{
        struct dmo_image_result res;
        struct rt_case c = {777, DMO_COMPRESS_LZ4, TU_PAIRS, 1};
        CHECK_INT(run_case(&c, 1, &res), ==, 0);
        CHECK_INT(res.chunk_count, ==, 777);
        c.chunk_pages = 7;
        CHECK_INT(run_case(&c, 0, &res), ==, 0);
        CHECK_INT(res.chunk_count, ==, 111);
        c.chunk_pages = 64;
        c.algo = DMO_COMPRESS_ZSTD;
        CHECK_INT(run_case(&c, 4, &res), ==, 0);
        CHECK_INT(res.chunk_count, ==, 13);
}

static void test_contiguous_slots_are_written_in_large_requests(void)
{
        struct dmo_image_result res;
        struct rt_case c = {3000, DMO_COMPRESS_NONE, TU_CONTIGUOUS, 0};
        REQUIRE(run_case(&c, 2, &res) == 0);
        /* ~12 MiB of stream in 1 MiB requests, plus map and header. */
        uint64_t stream_mib = res.stream_len >> 20;
        CHECK_INT(res.writes, <=, stream_mib + 3);
        CHECK_INT(res.writes, >=, 3);
}

static void test_signature_on_device_is_seen_by_blkid_and_clears(void)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/sig.swap", dmo_test_tmpdir());
        REQUIRE(tu_make_swap(path, 1024, PS) == 0);
        struct dmo_blockdev *dev;
        REQUIRE(dmo_blockdev_open(path, true, NULL, &dev) == 0);
        struct tu_alloc a;
        tu_alloc_init(&a, TU_SHUFFLED, 1024, PS, 3);
        const struct dmo_image_writer_params wp = {
            .algo = DMO_COMPRESS_LZ4, .page_size = PS, .expected_pages = 100};
        struct dmo_image_result res;
        struct dmo_sig s;
        CHECK_INT(dmo_sig_read(dev, 0, PS, &s), ==, -ENOENT);
        REQUIRE(tu_hibernate(dev, &a, 9, 100, &wp, &res) == 0);
        CHECK(dmo_test_sh("test \"$(blkid -p -o value -s TYPE '%s')\" = swsuspend", path) == 0);
        CHECK_INT(dmo_sig_read(dev, 0, PS, &s), ==, 0);
        CHECK_INT(s.header_offset, ==, res.header_offset);

        struct dmo_image_info info;
        CHECK_INT(dmo_image_probe(dev, 0, PS, &info), ==, 0);
        char json[4096];
        int n = dmo_image_info_to_json(&info, json, sizeof(json));
        CHECK_INT(n, >, 0);
        CHECK_STR_CONTAINS(json, "\"status\":\"image\"");
        CHECK_STR_CONTAINS(json, "\"image_pages\":100");
        CHECK_STR_CONTAINS(json, "\"compression\":\"lz4\"");
        CHECK_STR_CONTAINS(json, "\"platform_mode\":true");
        CHECK_STR_CONTAINS(json, "\"version\":\"#1 SMP \\\"quoted\\\"\"");
        CHECK_STR_CONTAINS(json, "\"map_verified\":true");
        CHECK_INT(dmo_image_info_to_json(&info, json, 40), ==, -ENOSPC);
        CHECK_INT(strlen(json), ==, 39);

        CHECK_INT(dmo_sig_clear(dev, 0, PS), ==, 0);
        CHECK(dmo_test_sh("test \"$(blkid -p -o value -s TYPE '%s')\" = swap", path) == 0);
        CHECK_INT(dmo_image_probe(dev, 0, PS, &info), ==, -ENOENT);
        CHECK_INT(dmo_sig_clear(dev, 0, PS), ==, 0); /* idempotent */
        CHECK(dmo_test_sh("test \"$(blkid -p -o value -s TYPE '%s')\" = swap", path) == 0);
        n = dmo_image_info_to_json(&info, json, sizeof(json));
        CHECK_STR_CONTAINS(json, "\"status\":\"none\"");
        CHECK_INT(dmo_sig_read(dev, 100000, PS, &s), ==, -ENODEV);
        dmo_blockdev_free(dev);
        free(a.slots);
}

static void test_probe_refuses_what_is_not_a_swap_area(void)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/zero.img", dmo_test_tmpdir());
        REQUIRE(dmo_test_sh("rm -f '%s' && truncate -s 1M '%s'", path, path) == 0);
        struct dmo_blockdev *dev;
        REQUIRE(dmo_blockdev_open(path, true, NULL, &dev) == 0);
        struct dmo_image_info info;
        CHECK_INT(dmo_image_probe(dev, 0, PS, &info), ==, -ENODEV);
        CHECK_INT(info.fault, ==, DMO_FAULT_NOT_SWAP);
        CHECK_INT(dmo_image_probe(dev, 256, PS, &info), ==, -ENODEV);
        CHECK_INT(dmo_sig_clear(dev, 0, PS), ==, -ENODEV);
        CHECK_INT(dmo_image_probe(dev, 0, 1000, &info), ==, -EINVAL);
        dmo_blockdev_free(dev);

        /* The kernel's own image on a swap area: foreign, left alone. */
        REQUIRE(tu_make_swap(path, 64, PS) == 0);
        REQUIRE(dmo_blockdev_open(path, true, NULL, &dev) == 0);
        REQUIRE(dmo_blockdev_pwrite(dev, "S1SUSPEND", 10, PS - 10) == 0);
        CHECK_INT(dmo_image_probe(dev, 0, PS, &info), ==, -ENODEV);
        CHECK_INT(info.fault, ==, DMO_FAULT_FOREIGN);
        CHECK_INT(dmo_sig_clear(dev, 0, PS), ==, -ENODEV);
        char magic[10];
        REQUIRE(dmo_blockdev_pread(dev, magic, 10, PS - 10) == 0);
        CHECK(memcmp(magic, "S1SUSPEND", 10) == 0);
        dmo_blockdev_free(dev);
}

/* Rewrites the header page through a callback and re-signs it, as a newer
 * or different dormouse would have written it. */
static int patch_header(struct dmo_blockdev *dev, const struct dmo_image_result *res,
                        void (*edit)(uint8_t *page))
{
        uint8_t page[PS];
        int r = dmo_blockdev_pread(dev, page, PS, res->header_offset);
        if (r < 0)
                return r;
        edit(page);
        r = dmo_blockdev_pwrite(dev, page, PS, res->header_offset);
        if (r < 0)
                return r;
        struct dmo_sig s = res->sig;
        s.header_hash = XXH3_64bits(page, PS);
        return dmo_sig_write(dev, 0, PS, &s);
}

/* An incompatible feature this reader does not implement (bit 1). */
static void set_unknown_feature(uint8_t *page)
{
        struct dmo_image_header h;
        uint8_t tmp[PS];
        memcpy(tmp, page, PS);
        /* Decode refuses it once flagged, so edit the valid one. */
        if (dmo_image_header_decode(tmp, PS, &h, NULL) == 0) {
                h.flags |= 0x8000u; /* an incompatible feature no dormouse has */
                dmo_image_header_encode(page, PS, &h);
        }
}

static void set_newer_major(uint8_t *page)
{
        page[8] = DMO_IMAGE_MAJOR + 1;
        memset(page + 16, 0, 8);
        uint64_t c = XXH3_64bits(page, 1024);
        for (int i = 0; i < 8; i++)
                page[16 + i] = (uint8_t)(c >> (8 * i));
}

static void test_unknown_feature_and_newer_images_are_refused_clearly(void)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/enc.swap", dmo_test_tmpdir());
        REQUIRE(tu_make_swap(path, 1024, PS) == 0);
        struct dmo_blockdev *dev;
        REQUIRE(dmo_blockdev_open(path, true, NULL, &dev) == 0);
        struct tu_alloc a;
        tu_alloc_init(&a, TU_CONTIGUOUS, 1024, PS, 0);
        const struct dmo_image_writer_params wp = {
            .algo = DMO_COMPRESS_ZSTD, .page_size = PS, .expected_pages = 50};
        struct dmo_image_result res;
        REQUIRE(tu_hibernate(dev, &a, 1, 50, &wp, &res) == 0);

        struct dmo_image_info info;
        REQUIRE(patch_header(dev, &res, set_unknown_feature) == 0);
        CHECK_INT(dmo_image_probe(dev, 0, PS, &info), ==, -EPROTONOSUPPORT);
        CHECK_INT(info.fault, ==, DMO_FAULT_ENCRYPTED);
        struct dmo_image_reader *rd;
        CHECK_INT(dmo_image_reader_new(&info, dev, 1, NULL, &rd), ==, -EINVAL);

        REQUIRE(patch_header(dev, &res, set_newer_major) == 0);
        CHECK_INT(dmo_image_probe(dev, 0, PS, &info), ==, -EPROTONOSUPPORT);
        CHECK_INT(info.fault, ==, DMO_FAULT_VERSION);
        char json[4096];
        dmo_image_info_to_json(&info, json, sizeof(json));
        CHECK_STR_CONTAINS(json, "\"fault\":\"version\"");
        dmo_blockdev_free(dev);
        free(a.slots);
}

static void test_truncated_device_is_reported(void)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/trunc.swap", dmo_test_tmpdir());
        REQUIRE(tu_make_swap(path, 2048, PS) == 0);
        struct dmo_blockdev *dev;
        REQUIRE(dmo_blockdev_open(path, true, NULL, &dev) == 0);
        struct tu_alloc a;
        tu_alloc_init(&a, TU_CONTIGUOUS, 2048, PS, 0);
        const struct dmo_image_writer_params wp = {
            .algo = DMO_COMPRESS_NONE, .page_size = PS, .expected_pages = 500};
        struct dmo_image_result res;
        REQUIRE(tu_hibernate(dev, &a, 5, 500, &wp, &res) == 0);
        dmo_blockdev_free(dev);

        /* Cut inside the stream: the map and header (written after it) are
         * gone too. */
        REQUIRE(truncate(path, 300 * PS) == 0);
        REQUIRE(dmo_blockdev_open(path, false, NULL, &dev) == 0);
        struct dmo_image_info info;
        CHECK_INT(dmo_image_probe(dev, 0, PS, &info), ==, -EBADMSG);
        CHECK_INT(info.fault, ==, DMO_FAULT_TRUNCATED);
        dmo_blockdev_free(dev);

        /* Map and header intact, stream cut: rebuild with a layout that puts
         * the map and header first. */
        REQUIRE(tu_make_swap(path, 2048, PS) == 0);
        REQUIRE(dmo_blockdev_open(path, true, NULL, &dev) == 0);
        free(a.slots);
        tu_alloc_init(&a, TU_CONTIGUOUS, 2048, PS, 0);
        /* Reverse: the stream takes the highest slots, map and header low. */
        for (size_t i = 0; i < a.n / 2; i++) {
                uint64_t t = a.slots[i];
                a.slots[i] = a.slots[a.n - 1 - i];
                a.slots[a.n - 1 - i] = t;
        }
        REQUIRE(tu_hibernate(dev, &a, 5, 500, &wp, &res) == 0);
        CHECK_INT(tu_resume(dev, 5, 500, PS, 2, NULL), ==, 0);
        dmo_blockdev_free(dev);
        REQUIRE(truncate(path, 2000 * PS) == 0);
        REQUIRE(dmo_blockdev_open(path, false, NULL, &dev) == 0);
        int pr;
        int r = tu_resume(dev, 5, 500, PS, 2, &pr);
        CHECK_INT(pr, ==, -EBADMSG);
        CHECK(r < 0);
        dmo_blockdev_free(dev);
        free(a.slots);
}

static void test_writer_reports_full_swap_and_disk_errors(void)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/err.swap", dmo_test_tmpdir());
        REQUIRE(tu_make_swap(path, 1024, PS) == 0);
        struct dmo_blockdev *dev;
        REQUIRE(dmo_blockdev_open(path, true, NULL, &dev) == 0);
        struct tu_alloc a;
        const struct dmo_image_writer_params wp = {
            .algo = DMO_COMPRESS_NONE, .page_size = PS, .expected_pages = 2000};
        struct dmo_image_result res;

        /* 2000 raw pages do not fit into 1023 slots. */
        tu_alloc_init(&a, TU_SHUFFLED, 1024, PS, 1);
        CHECK_INT(tu_hibernate(dev, &a, 2, 2000, &wp, &res), ==, -ENOSPC);
        free(a.slots);

        /* Space for the stream but not for the map, then not for the header. */
        struct dmo_image_writer_params small = wp;
        small.expected_pages = 1000;
        tu_alloc_init(&a, TU_CONTIGUOUS, 1024, PS, 1);
        REQUIRE(tu_hibernate(dev, &a, 2, 1000, &small, &res) == 0);
        const size_t stream_pages = (res.stream_len + PS - 1) / PS;
        a.next = 0;
        a.n = stream_pages;
        CHECK_INT(tu_hibernate(dev, &a, 2, 1000, &small, &res), ==, -ENOSPC);
        a.next = 0;
        a.n = stream_pages + 1;
        CHECK_INT(tu_hibernate(dev, &a, 2, 1000, &small, &res), ==, -ENOSPC);
        a.next = 0;
        a.n = stream_pages + 2;
        CHECK_INT(tu_hibernate(dev, &a, 2, 1000, &small, &res), ==, 0);
        free(a.slots);

        /* More pages than announced. */
        tu_alloc_init(&a, TU_CONTIGUOUS, 1024, PS, 1);
        small.expected_pages = 10;
        CHECK_INT(tu_hibernate(dev, &a, 2, 11, &small, &res), ==, -EOVERFLOW);
        free(a.slots);
        dmo_blockdev_free(dev);

        /* An I/O error on the third write surfaces and sticks. */
        struct dmo_fault_plan *plan;
        REQUIRE(dmo_fault_plan_parse("eio-write@3", &plan) == 0);
        REQUIRE(dmo_blockdev_open(path, true, plan, &dev) == 0);
        tu_alloc_init(&a, TU_SHUFFLED, 1024, PS, 1);
        small.expected_pages = 500;
        CHECK_INT(tu_hibernate(dev, &a, 2, 500, &small, &res), ==, -EIO);
        dmo_blockdev_free(dev);
        dmo_fault_plan_free(plan);
        free(a.slots);

        /* Short writes are looped over by the device: the image is fine. */
        REQUIRE(dmo_fault_plan_parse("short-write", &plan) == 0);
        REQUIRE(dmo_blockdev_open(path, true, plan, &dev) == 0);
        tu_alloc_init(&a, TU_PAIRS, 1024, PS, 1);
        CHECK_INT(tu_hibernate(dev, &a, 4, 500, &small, &res), ==, 0);
        CHECK_INT(tu_resume(dev, 4, 500, PS, 2, NULL), ==, 0);
        dmo_blockdev_free(dev);
        dmo_fault_plan_free(plan);
        free(a.slots);

        /* A read error during resume is reported, not turned into pages. */
        REQUIRE(dmo_fault_plan_parse("eio-read@6", &plan) == 0);
        REQUIRE(dmo_blockdev_open(path, false, plan, &dev) == 0);
        int pr;
        CHECK_INT(tu_resume(dev, 4, 500, PS, 2, &pr), ==, -EIO);
        dmo_blockdev_free(dev);
        dmo_fault_plan_free(plan);
}

static void test_writer_refuses_bad_params(void)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/p.swap", dmo_test_tmpdir());
        REQUIRE(tu_make_swap(path, 64, PS) == 0);
        struct dmo_blockdev *dev;
        REQUIRE(dmo_blockdev_open(path, true, NULL, &dev) == 0);
        struct tu_alloc a;
        tu_alloc_init(&a, TU_CONTIGUOUS, 64, PS, 0);
        struct dmo_image_writer *w;
        struct dmo_image_writer_params wp = {.page_size = PS, .expected_pages = 10};
        CHECK_INT(dmo_image_writer_new(&wp, dev, tu_alloc_page, &a, NULL, &w), ==, 0);
        /* Finishing an empty image is refused. */
        struct dmo_image_meta meta = {0};
        struct dmo_image_result res;
        CHECK_INT(dmo_image_writer_finish(w, &meta, &res), ==, -ENODATA);
        dmo_image_writer_free(w);
        wp.page_size = 1000;
        CHECK_INT(dmo_image_writer_new(&wp, dev, tu_alloc_page, &a, NULL, &w), ==, -EINVAL);
        wp.page_size = PS;
        wp.chunk_pages = 65;
        CHECK_INT(dmo_image_writer_new(&wp, dev, tu_alloc_page, &a, NULL, &w), ==, -EINVAL);
        wp.chunk_pages = 0;
        wp.expected_pages = 0;
        CHECK_INT(dmo_image_writer_new(&wp, dev, tu_alloc_page, &a, NULL, &w), ==, -EINVAL);
        wp.expected_pages = 1;
        wp.algo = (enum dmo_compress)7;
        CHECK_INT(dmo_image_writer_new(&wp, dev, tu_alloc_page, &a, NULL, &w), ==, -EINVAL);
        dmo_blockdev_free(dev);
        free(a.slots);
}

DMO_TEST_MAIN(T(test_round_trip_every_size_compression_and_layout),
              T(test_round_trip_small_chunks_and_thread_counts),
              T(test_contiguous_slots_are_written_in_large_requests),
              T(test_signature_on_device_is_seen_by_blkid_and_clears),
              T(test_probe_refuses_what_is_not_a_swap_area),
              T(test_unknown_feature_and_newer_images_are_refused_clearly),
              T(test_truncated_device_is_reported),
              T(test_writer_reports_full_swap_and_disk_errors), T(test_writer_refuses_bad_params))
