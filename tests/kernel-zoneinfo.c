/* /proc/zoneinfo: the present page frames of every zone, and the largest
 * image the kernel can make with them; truncated, garbled and hostile
 * files are refused, never half read. */
#include "tests/testlib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel/zoneinfo.h"

static const char *write_zoneinfo(const char *text)
{
        static char path[512];
        snprintf(path, sizeof(path), "%s/zoneinfo", dmo_test_tmpdir());
        FILE *f = fopen(path, "w");
        if (!f)
                return NULL;
        fputs(text, f);
        fclose(f);
        return path;
}

/* As a 6.1 kernel prints it for a 768 MiB guest (shortened). */
static const char guest[] = "Node 0, zone      DMA\n"
                            "  per-node stats\n"
                            "      nr_inactive_anon 12\n"
                            "  pages free     3968\n"
                            "        min      90\n"
                            "        spanned  4095\n"
                            "        present  3998\n"
                            "        managed  3840\n"
                            "        cma      0\n"
                            "        protection: (0, 693, 693, 693, 693)\n"
                            "Node 0, zone    DMA32\n"
                            "  pages free     160092\n"
                            "        spanned  192512\n"
                            "        present  192512\n"
                            "        managed  177489\n"
                            "Node 0, zone   Normal\n"
                            "  pages free     0\n"
                            "        spanned  0\n"
                            "        present  0\n"
                            "        managed  0\n";

static void test_present_pages_of_every_zone_are_summed(void)
{
        uint64_t pages = 0;
        const char *path = write_zoneinfo(guest);
        REQUIRE(path);
        CHECK_INT(dmo_zoneinfo_present_pages(path, &pages), ==, 0);
        CHECK_INT(pages, ==, 3998 + 192512);
}

static void test_the_image_bound_is_half_the_frames_and_their_lists(void)
{
        /* 196510 frames: 98255 data pages, 192 pages of 512 frame numbers,
         * one header page. */
        CHECK_INT(dmo_zoneinfo_max_image_pages(196510, 4096), ==, 98255 + 192 + 1);
        CHECK_INT(dmo_zoneinfo_max_image_pages(1024, 4096), ==, 512 + 1 + 1);
        /* The VM's image of 72870 data pages and 144 more fits the bound of
         * that guest. */
        CHECK_INT(dmo_zoneinfo_max_image_pages(196510, 4096), >=, 72870 + 144);
        /* 64 KiB pages hold 8192 frame numbers each. */
        CHECK_INT(dmo_zoneinfo_max_image_pages(20000, 65536), ==, 10000 + 2 + 1);
}

static void test_bad_files_are_refused(void)
{
        static const struct {
                const char *what;
                const char *text;
                int err;
        } bad[] = {
            {"empty", "", -EINVAL},
            {"no zone has frames", "Node 0, zone DMA\n        present  0\n", -EINVAL},
            {"no present line", "Node 0, zone DMA\n        managed  3840\n", -EINVAL},
            {"a word for a count", "        present  lots\n", -EINVAL},
            {"a negative count", "        present  -5\n", -EINVAL},
            {"trailing garbage", "        present  12 pages\n", -EINVAL},
            {"cut in the middle of the line", "        present  3998", -EINVAL},
            {"no count", "        present\n", -EINVAL},
            {"beyond 64 bits", "        present  99999999999999999999999\n", -EINVAL},
            {"sums past 64 bits", "        present  18446744073709551615\n        present  2\n",
             -EINVAL},
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                uint64_t pages = 77;
                const char *path = write_zoneinfo(bad[i].text);
                REQUIRE(path);
                int r = dmo_zoneinfo_present_pages(path, &pages);
                printf("# %s: %d\n", bad[i].what, r);
                CHECK_INT(r, ==, bad[i].err);
                CHECK_INT(pages, ==, 77); /* untouched */
        }
        uint64_t pages = 77;
        CHECK_INT(dmo_zoneinfo_present_pages("/nonexistent/zoneinfo", &pages), ==, -ENOENT);
        CHECK_INT(pages, ==, 77);
}

/* A line longer than the reader's buffer (a protection array of a machine
 * with many nodes) is read on in pieces; a piece that happens to start
 * with "present" is not taken for the field. */
static void test_long_lines_do_not_fake_a_field(void)
{
        char text[2048];
        int n = snprintf(text, sizeof(text), "        protection: (");
        while (n < 250)
                n += snprintf(text + n, sizeof(text) - (size_t)n, "0, ");
        n += snprintf(text + n, sizeof(text) - (size_t)n,
                      "present  999999)\n        present  4096\n");
        uint64_t pages = 0;
        const char *path = write_zoneinfo(text);
        REQUIRE(path);
        CHECK_INT(dmo_zoneinfo_present_pages(path, &pages), ==, 0);
        CHECK_INT(pages, ==, 4096);
}

/* This machine's own file, read as the engine reads it. */
static void test_this_machines_file_reads(void)
{
        uint64_t pages = 0;
        int r = dmo_zoneinfo_present_pages("/proc/zoneinfo", &pages);
        if (r == -ENOENT)
                return; /* no /proc here */
        CHECK_INT(r, ==, 0);
        CHECK_INT(pages, >, 0);
}

DMO_TEST_MAIN(T(test_present_pages_of_every_zone_are_summed),
              T(test_the_image_bound_is_half_the_frames_and_their_lists),
              T(test_bad_files_are_refused), T(test_long_lines_do_not_fake_a_field),
              T(test_this_machines_file_reads))
