/* Swap header pages as mkswap writes them (4K and 64K variants), the
 * signatures that can sit in their magic slot, refusal of damaged or short
 * buffers, the FIEMAP resume offset of a swap file, and /proc/swaps. */
#include "tests/testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/blockdev.h"
#include "kernel/snapshot.h"
#include "kernel/swap_area.h"

static const char *tmp_path(const char *name, char *buf, size_t len)
{
        snprintf(buf, len, "%s/%s", dmo_test_tmpdir(), name);
        return buf;
}

static int read_header(const char *path, uint8_t *buf, size_t len)
{
        int fd = open(path, O_RDONLY);
        if (fd < 0)
                return -1;
        ssize_t n = pread(fd, buf, len, 0);
        close(fd);
        return n == (ssize_t)len ? 0 : -1;
}

static uint8_t page64k[65536];

static void test_mkswap_4k_header_parses(void)
{
        char p[512];
        tmp_path("swap4k", p, sizeof(p));
        REQUIRE(dmo_test_sh("truncate -s 16M '%s' && mkswap -q -p 4096 -L dormouse-test "
                            "-U 0123abcd-4567-89ab-cdef-0123456789ab '%s' >/dev/null",
                            p, p) == 0);
        REQUIRE(read_header(p, page64k, sizeof(page64k)) == 0);
        struct dmo_swap_info info;
        CHECK_INT(dmo_swap_header_parse(page64k, sizeof(page64k), &info), ==, 0);
        CHECK_INT(info.magic, ==, DMO_SWAP_MAGIC_SWAPSPACE2);
        CHECK_INT(info.page_size, ==, 4096);
        CHECK_INT(info.version, ==, 1);
        CHECK_INT(info.last_page, ==, 16 * 1024 * 1024 / 4096 - 1);
        CHECK_INT(info.nr_badpages, ==, 0);
        CHECK(!info.byteswapped);
        CHECK(strcmp(info.label, "dormouse-test") == 0);
        char uuid[37];
        dmo_swap_uuid_format(info.uuid, uuid);
        CHECK(strcmp(uuid, "0123abcd-4567-89ab-cdef-0123456789ab") == 0);

        /* The same through the block device, at page 0. */
        struct dmo_blockdev *d = NULL;
        REQUIRE(dmo_blockdev_open(p, false, NULL, &d) == 0);
        struct dmo_swap_info again;
        CHECK_INT(dmo_swap_header_read(d, 0, &again), ==, 0);
        CHECK_INT(again.last_page, ==, info.last_page);
        CHECK_INT(dmo_swap_header_read(d, 1u << 20, &again), ==, -ENXIO);
        dmo_blockdev_free(d);
}

static void test_mkswap_64k_header_parses(void)
{
        char p[512];
        tmp_path("swap64k", p, sizeof(p));
        REQUIRE(dmo_test_sh("truncate -s 32M '%s' && mkswap -q -p 65536 '%s' >/dev/null", p, p) ==
                0);
        REQUIRE(read_header(p, page64k, sizeof(page64k)) == 0);
        struct dmo_swap_info info;
        CHECK_INT(dmo_swap_header_parse(page64k, sizeof(page64k), &info), ==, 0);
        CHECK_INT(info.magic, ==, DMO_SWAP_MAGIC_SWAPSPACE2);
        CHECK_INT(info.page_size, ==, 65536);
        CHECK_INT(info.last_page, ==, 32 * 1024 * 1024 / 65536 - 1);
        /* Only 4K of it: the 64K magic is out of reach, so nothing is found. */
        CHECK_INT(dmo_swap_header_parse(page64k, 4096, &info), ==, 0);
        CHECK_INT(info.magic, ==, DMO_SWAP_MAGIC_NONE);
        CHECK_INT(info.page_size, ==, 0);
}

static void make_header(uint8_t *buf, size_t ps, uint32_t version, uint32_t last, uint32_t bad,
                        const char magic[10])
{
        memset(buf, 0, ps);
        memcpy(buf + 1024, &version, 4);
        memcpy(buf + 1028, &last, 4);
        memcpy(buf + 1032, &bad, 4);
        dmo_swap_set_magic(buf, ps, magic);
}

static void test_signatures_in_the_magic_slot_are_told_apart(void)
{
        static const struct {
                char magic[10];
                enum dmo_swap_magic kind;
                bool is_swap;
        } cases[] = {
            {"ULSUSPEND", DMO_SWAP_MAGIC_ULSUSPEND, true},
            {"S1SUSPEND", DMO_SWAP_MAGIC_S1SUSPEND, true},
            {"S2SUSPEND", DMO_SWAP_MAGIC_S2SUSPEND, true},
            {{'L', 'I', 'N', 'H', 'I', 'B', '0', '0', '0', '1'}, DMO_SWAP_MAGIC_LINHIB0001, true},
            {{'S', 'W', 'A', 'P', 'S', 'P', 'A', 'C', 'E', '2'}, DMO_SWAP_MAGIC_SWAPSPACE2, true},
        };
        static uint8_t buf[8192];
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                make_header(buf, sizeof(buf), 1, 100, 0, cases[i].magic);
                struct dmo_swap_info info;
                CHECK_INT(dmo_swap_header_parse(buf, sizeof(buf), &info), ==, 0);
                CHECK_INT(info.magic, ==, cases[i].kind);
                CHECK_INT(info.page_size, ==, 8192);
                CHECK(dmo_swap_magic_is_swap(info.magic) == cases[i].is_swap);
                CHECK(strcmp(dmo_swap_magic_name(info.magic), "none") != 0);
        }
        CHECK_INT(dmo_swap_magic_offset(4096), ==, 4086);
        CHECK_INT(dmo_swap_magic_offset(65536), ==, 65526);
        CHECK_INT(dmo_swap_magic_offset(4097), ==, 0);
        CHECK_INT(dmo_swap_magic_offset(131072), ==, 0);
        CHECK_INT(dmo_swap_set_magic(buf, 3000, "ULSUSPEND"), ==, -EINVAL);
}

static void test_damaged_and_short_headers_are_refused(void)
{
        static uint8_t buf[4096];
        struct dmo_swap_info info;
        const char sw2[10] = {'S', 'W', 'A', 'P', 'S', 'P', 'A', 'C', 'E', '2'};
        const char old[10] = {'S', 'W', 'A', 'P', '-', 'S', 'P', 'A', 'C', 'E'};

        make_header(buf, sizeof(buf), 1, 100, 0, sw2);
        CHECK_INT(dmo_swap_header_parse(buf, 4095, &info), ==, -EINVAL);
        CHECK_INT(dmo_swap_header_parse(buf, 0, &info), ==, -EINVAL);
        CHECK_INT(dmo_swap_header_parse(NULL, 4096, &info), ==, -EINVAL);

        make_header(buf, sizeof(buf), 2, 100, 0, sw2);
        CHECK_INT(dmo_swap_header_parse(buf, sizeof(buf), &info), ==, -EUCLEAN);
        make_header(buf, sizeof(buf), 1, 0, 0, sw2);
        CHECK_INT(dmo_swap_header_parse(buf, sizeof(buf), &info), ==, -EUCLEAN);
        make_header(buf, sizeof(buf), 1, 100, 100000, sw2);
        CHECK_INT(dmo_swap_header_parse(buf, sizeof(buf), &info), ==, -EUCLEAN);

        make_header(buf, sizeof(buf), 1, 100, 0, old);
        CHECK_INT(dmo_swap_header_parse(buf, sizeof(buf), &info), ==, -EPROTONOSUPPORT);
        CHECK_INT(info.magic, ==, DMO_SWAP_MAGIC_SWAP_SPACE);
        CHECK(!dmo_swap_magic_is_swap(info.magic));

        memset(buf, 0, sizeof(buf));
        CHECK_INT(dmo_swap_header_parse(buf, sizeof(buf), &info), ==, 0);
        CHECK_INT(info.magic, ==, DMO_SWAP_MAGIC_NONE);
        CHECK(!dmo_swap_magic_is_swap(info.magic));

        /* Made on a big-endian machine: fields are swapped, still valid. */
        make_header(buf, sizeof(buf), __builtin_bswap32(1), __builtin_bswap32(200), 0, sw2);
        CHECK_INT(dmo_swap_header_parse(buf, sizeof(buf), &info), ==, 0);
        CHECK(info.byteswapped);
        CHECK_INT(info.last_page, ==, 200);
}

static void test_swapfile_resume_offset_matches_filefrag(void)
{
        char p[512];
        tmp_path("swapfile", p, sizeof(p));
        REQUIRE(dmo_test_sh("fallocate -l 8M '%s' && mkswap -q '%s' >/dev/null", p, p) == 0);
        uint64_t page = 0;
        dev_t dev = 0;
        int r = dmo_swapfile_resume_offset(p, &page, &dev);
        if (r == -EOPNOTSUPP) {
                printf("# the test directory's filesystem has no FIEMAP; error path only\n");
        } else {
                CHECK_INT(r, ==, 0);
                CHECK(dev != 0);
                /* filefrag prints the first physical block in fs blocks. */
                char out[512], cmd[2048];
                snprintf(out, sizeof(out), "%s/frag", dmo_test_tmpdir());
                int cl = snprintf(
                    cmd, sizeof(cmd),
                    "filefrag -e '%s' | awk '$1==\"0:\"{gsub(/\\.\\./,\"\",$4); print $4}' "
                    "> '%s' && stat -f -c %%S '%s' >> '%s'",
                    p, out, p, out);
                REQUIRE(cl > 0 && (size_t)cl < sizeof(cmd));
                if (dmo_test_sh("%s", cmd) == 0) {
                        FILE *f = fopen(out, "r");
                        unsigned long long blk = 0, bs = 0;
                        REQUIRE(f);
                        int got = fscanf(f, "%llu %llu", &blk, &bs);
                        fclose(f);
                        CHECK_INT(got, ==, 2);
                        CHECK_INT(page, ==, blk * bs / (unsigned long long)sysconf(_SC_PAGESIZE));
                }
        }
        /* Error paths that every filesystem gives. */
        CHECK_INT(dmo_swapfile_resume_offset(dmo_test_tmpdir(), &page, &dev), ==, -EINVAL);
        tmp_path("nothing-here", p, sizeof(p));
        CHECK_INT(dmo_swapfile_resume_offset(p, &page, &dev), ==, -ENOENT);
        /* A file whose first page is a hole has no place on the disk. */
        tmp_path("sparse", p, sizeof(p));
        REQUIRE(dmo_test_sh("truncate -s 1M '%s'", p) == 0);
        r = dmo_swapfile_resume_offset(p, &page, &dev);
        CHECK(r == -ENODATA || r == -EOPNOTSUPP);
        /* Preallocated but never written: unwritten extents. */
        tmp_path("prealloc", p, sizeof(p));
        REQUIRE(dmo_test_sh("fallocate -l 1M '%s'", p) == 0);
        r = dmo_swapfile_resume_offset(p, &page, &dev);
        CHECK(r == -ENODATA || r == -EOPNOTSUPP);
}

static void test_proc_swaps_parse_and_pick(void)
{
        char p[512];
        tmp_path("swaps", p, sizeof(p));
        FILE *f = fopen(p, "w");
        REQUIRE(f);
        fputs("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
              "/dev/vda2                               partition\t1048572\t\t0\t\t-2\n"
              "/dev/zram0                              partition\t4194300\t\t0\t\t100\n"
              "/swap\\040file                          file\t\t2097148\t\t1024\t\t5\n"
              "/old\\040(deleted)                      file\t\t9999999\t\t0\t\t50\n"
              "/dev/sdb1                               partition\t3000000\t\t0\t\t5\n",
              f);
        fclose(f);
        struct dmo_swap_entry e[8];
        size_t n = 0;
        REQUIRE(dmo_proc_swaps_parse(p, e, 8, &n) == 0);
        REQUIRE(n == 5);
        CHECK(strcmp(e[0].path, "/dev/vda2") == 0);
        CHECK(!e[0].is_file);
        CHECK_INT(e[0].priority, ==, -2);
        CHECK_INT(e[0].size_kib, ==, 1048572);
        CHECK(e[1].is_zram);
        CHECK(strcmp(e[2].path, "/swap file") == 0);
        CHECK(e[2].is_file);
        CHECK_INT(e[2].used_kib, ==, 1024);
        CHECK(e[3].deleted);
        CHECK(strcmp(e[3].path, "/old") == 0);
        size_t pick = 99;
        CHECK_INT(dmo_proc_swaps_pick(e, n, &pick), ==, 0);
        CHECK_INT(pick, ==, 4); /* priority 5, more free than the swap file */

        size_t small = 0;
        CHECK_INT(dmo_proc_swaps_parse(p, e, 2, &small), ==, 0);
        CHECK_INT(small, ==, 5);

        CHECK_INT(dmo_proc_swaps_pick(e, 0, &pick), ==, -ENOENT);

        f = fopen(p, "w");
        REQUIRE(f);
        fputs("Filename Type Size Used Priority\n/dev/x partition 12 0\n", f);
        fclose(f);
        CHECK_INT(dmo_proc_swaps_parse(p, e, 8, &n), ==, -EINVAL);
        f = fopen(p, "w");
        REQUIRE(f);
        fputs("/dev/x disk 12 0 1\n", f);
        fclose(f);
        CHECK_INT(dmo_proc_swaps_parse(p, e, 8, &n), ==, -EINVAL);
        f = fopen(p, "w");
        REQUIRE(f);
        fputs("/dev/x\\9 partition 12 0 1\n", f);
        fclose(f);
        CHECK_INT(dmo_proc_swaps_parse(p, e, 8, &n), ==, -EINVAL);
        tmp_path("no-swaps", p, sizeof(p));
        CHECK_INT(dmo_proc_swaps_parse(p, e, 8, &n), ==, -ENOENT);
}

/* Devices that are files (the simulated kernel): an area is the target
 * when it is the same file, and starts at its first page. */
static void test_an_image_goes_only_to_an_active_area_at_its_page(void)
{
        char swaps[512], area[512], other[512], gone[512];
        tmp_path("active-swaps", swaps, sizeof(swaps));
        tmp_path("active-area", area, sizeof(area));
        tmp_path("other-area", other, sizeof(other));
        tmp_path("gone-area", gone, sizeof(gone));
        REQUIRE(dmo_test_sh("touch '%s' '%s'", area, other) == 0);
        FILE *f = fopen(swaps, "w");
        REQUIRE(f);
        fprintf(f, "Filename Type Size Used Priority\n%s partition 1024 0 -2\n", area);
        fprintf(f, "%s\\040(deleted) file 1024 0 -3\n", gone);
        fclose(f);
        struct dmo_swap_target t = {.path = area};
        struct dmo_swap_active_result a;
        CHECK_INT(dmo_swap_active_at(swaps, &t, true, &a), ==, 0);
        CHECK_INT(a.where, ==, DMO_SWAP_ACTIVE_HERE);
        t.header_page = 8; /* a resume_offset= into a partition */
        dmo_swap_active_at(swaps, &t, true, &a);
        CHECK_INT(a.where, ==, DMO_SWAP_ACTIVE_NONE);
        t = (struct dmo_swap_target){.path = other};
        dmo_swap_active_at(swaps, &t, true, &a);
        CHECK_INT(a.where, ==, DMO_SWAP_ACTIVE_NONE);

        struct stat st;
        REQUIRE(stat(area, &st) == 0);
        t = (struct dmo_swap_target){.path = area};
        CHECK(dmo_swap_target_is(&t, &st, true));
        CHECK(!dmo_swap_target_is(&t, &st, false)); /* a real kernel's device is a block device */
        t.path = other;
        CHECK(!dmo_swap_target_is(&t, &st, true));

        /* An area that cannot be placed, or no list: the kernel will tell. */
        f = fopen(swaps, "a");
        REQUIRE(f);
        fprintf(f, "%s partition 1024 0 -4\n", gone);
        fclose(f);
        dmo_swap_active_at(swaps, &t, true, &a);
        CHECK_INT(a.where, ==, DMO_SWAP_ACTIVE_UNKNOWN);
        tmp_path("no-such-swaps", swaps, sizeof(swaps));
        dmo_swap_active_at(swaps, &t, true, &a);
        CHECK_INT(a.where, ==, DMO_SWAP_ACTIVE_UNKNOWN);
}

DMO_TEST_MAIN(T(test_mkswap_4k_header_parses), T(test_mkswap_64k_header_parses),
              T(test_signatures_in_the_magic_slot_are_told_apart),
              T(test_damaged_and_short_headers_are_refused),
              T(test_swapfile_resume_offset_matches_filefrag), T(test_proc_swaps_parse_and_pick),
              T(test_an_image_goes_only_to_an_active_area_at_its_page))
