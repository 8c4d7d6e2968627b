/* The resume device: transfers never stop half way, faults are injected
 * where the plan says, and the device's end is a hard limit. */
#include "tests/testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/blockdev.h"
#include "kernel/faults.h"

static const char *make_file(const char *name, size_t size, char *buf, size_t len)
{
        snprintf(buf, len, "%s/%s", dmo_test_tmpdir(), name);
        if (dmo_test_sh("truncate -s %zu '%s'", size, buf) != 0)
                return NULL;
        return buf;
}

static void fill(uint8_t *b, size_t n, unsigned salt)
{
        for (size_t i = 0; i < n; i++)
                b[i] = (uint8_t)(i * 31 + salt);
}

static void test_round_trip_on_a_regular_file(void)
{
        char path[512];
        REQUIRE(make_file("plain", 1 << 20, path, sizeof(path)));
        struct dmo_blockdev *d = NULL;
        REQUIRE(dmo_blockdev_open(path, true, NULL, &d) == 0);
        CHECK_INT(dmo_blockdev_size(d), ==, 1 << 20);
        CHECK(strcmp(dmo_blockdev_path(d), path) == 0);
        CHECK_INT(dmo_blockdev_rdev(d), ==, 0);
        uint8_t w[10000], r[10000];
        fill(w, sizeof(w), 7);
        CHECK_INT(dmo_blockdev_pwrite(d, w, sizeof(w), 12345), ==, 0);
        CHECK_INT(dmo_blockdev_sync(d), ==, 0);
        CHECK_INT(dmo_blockdev_pread(d, r, sizeof(r), 12345), ==, 0);
        CHECK(memcmp(w, r, sizeof(w)) == 0);
        dmo_blockdev_free(d);
}

static void test_short_write_plan_still_writes_everything(void)
{
        char path[512];
        REQUIRE(make_file("short", 1 << 20, path, sizeof(path)));
        struct dmo_fault_plan *plan = NULL;
        REQUIRE(dmo_fault_plan_parse("short-write", &plan) == 0);
        struct dmo_blockdev *d = NULL;
        REQUIRE(dmo_blockdev_open(path, true, plan, &d) == 0);
        uint8_t w[65536], r[65536];
        fill(w, sizeof(w), 3);
        CHECK_INT(dmo_blockdev_pwrite(d, w, sizeof(w), 4096), ==, 0);
        CHECK_INT(dmo_blockdev_pwrite(d, w, 1, 0), ==, 0);
        CHECK_INT(dmo_blockdev_pread(d, r, sizeof(r), 4096), ==, 0);
        CHECK(memcmp(w, r, sizeof(w)) == 0);
        dmo_blockdev_free(d);
        dmo_fault_plan_free(plan);
}

static void test_eio_is_injected_on_exactly_the_nth_call(void)
{
        char path[512];
        REQUIRE(make_file("eio", 1 << 16, path, sizeof(path)));
        struct dmo_fault_plan *plan = NULL;
        REQUIRE(dmo_fault_plan_parse("eio-write@3,eio-read@2", &plan) == 0);
        struct dmo_blockdev *d = NULL;
        REQUIRE(dmo_blockdev_open(path, true, plan, &d) == 0);
        uint8_t b[512];
        fill(b, sizeof(b), 1);
        CHECK_INT(dmo_blockdev_pwrite(d, b, sizeof(b), 0), ==, 0);
        CHECK_INT(dmo_blockdev_pwrite(d, b, sizeof(b), 512), ==, 0);
        CHECK_INT(dmo_blockdev_pwrite(d, b, sizeof(b), 1024), ==, -EIO);
        CHECK_INT(dmo_blockdev_pwrite(d, b, sizeof(b), 1024), ==, 0);
        CHECK_INT(dmo_blockdev_pread(d, b, sizeof(b), 0), ==, 0);
        CHECK_INT(dmo_blockdev_pread(d, b, sizeof(b), 0), ==, -EIO);
        CHECK_INT(dmo_blockdev_pread(d, b, sizeof(b), 0), ==, 0);
        dmo_blockdev_free(d);
        dmo_fault_plan_free(plan);
}

static void test_access_past_the_end_is_enxio(void)
{
        char path[512];
        REQUIRE(make_file("end", 8192, path, sizeof(path)));
        struct dmo_blockdev *d = NULL;
        REQUIRE(dmo_blockdev_open(path, true, NULL, &d) == 0);
        uint8_t b[4096] = {0};
        CHECK_INT(dmo_blockdev_pread(d, b, sizeof(b), 4096), ==, 0);
        CHECK_INT(dmo_blockdev_pread(d, b, sizeof(b), 4097), ==, -ENXIO);
        CHECK_INT(dmo_blockdev_pwrite(d, b, sizeof(b), 8192), ==, -ENXIO);
        CHECK_INT(dmo_blockdev_pwrite(d, b, 1, UINT64_MAX), ==, -ENXIO);
        /* The device shrinking under us is the same error, not a short read. */
        REQUIRE(truncate(path, 6000) == 0);
        CHECK_INT(dmo_blockdev_pread(d, b, sizeof(b), 4096), ==, -ENXIO);
        dmo_blockdev_free(d);
        struct stat st;
        REQUIRE(stat(path, &st) == 0);
        CHECK_INT(st.st_size, ==, 6000);
}

/* A block device cut short while open (shrink@N stands in for the kernel's
 * blkdev_write_iter at the new end): the write across the end is cut short
 * by the kernel, so what lies before the end is written, the rest fails
 * with ENOSPC. That is the device's end moving, -ENXIO, never the -ENOSPC of
 * a full swap area; the size measured again is the new end. */
static void test_write_across_a_shrunk_end_is_enxio_not_enospc(void)
{
        enum { CUT = 3 * 4096 + 2048 };
        char path[512];
        REQUIRE(make_file("shrunk", 8 * 4096, path, sizeof(path)));
        struct dmo_fault_plan *plan = NULL;
        REQUIRE(dmo_fault_plan_parse("shrink@14336", &plan) == 0);
        struct dmo_blockdev *d = NULL;
        REQUIRE(dmo_blockdev_open(path, true, plan, &d) == 0);
        CHECK_INT(dmo_blockdev_size(d), ==, 8 * 4096);
        CHECK_INT(dmo_blockdev_size_now(d), ==, 8 * 4096);

        uint8_t w[2 * 4096], r[2 * 4096];
        fill(w, sizeof(w), 5);
        CHECK_INT(dmo_blockdev_pwrite(d, w, 4096, 0), ==, 0); /* before the end: written */
        CHECK_INT(dmo_blockdev_size_now(d), ==, 8 * 4096);
        CHECK_INT(dmo_blockdev_pwrite(d, w, sizeof(w), 2 * 4096), ==, -ENXIO);
        CHECK_INT(dmo_blockdev_size_now(d), ==, CUT);
        CHECK_INT(dmo_blockdev_size(d), ==, 8 * 4096);
        /* The short write's part landed; nothing past the end did. */
        int fd = open(path, O_RDONLY);
        REQUIRE(fd >= 0);
        memset(r, 0xff, sizeof(r));
        CHECK_INT(pread(fd, r, sizeof(r), 2 * 4096), ==, (ssize_t)sizeof(r));
        close(fd);
        CHECK(memcmp(r, w, CUT - 2 * 4096) == 0);
        bool past_zero = true;
        for (size_t i = CUT - 2 * 4096; i < sizeof(r); i++)
                past_zero = past_zero && r[i] == 0;
        CHECK(past_zero);
        /* Wholly past the end, and reading across it: the same error. */
        CHECK_INT(dmo_blockdev_pwrite(d, w, 4096, 5 * 4096), ==, -ENXIO);
        CHECK_INT(dmo_blockdev_pread(d, r, sizeof(r), 2 * 4096), ==, -ENXIO);
        CHECK_INT(dmo_blockdev_pread(d, r, 4096, 0), ==, 0);
        CHECK(memcmp(r, w, 4096) == 0);
        dmo_blockdev_free(d);
        dmo_fault_plan_free(plan);
}

static void test_open_refuses_missing_and_odd_paths(void)
{
        struct dmo_blockdev *d = NULL;
        char path[512];
        snprintf(path, sizeof(path), "%s/does-not-exist", dmo_test_tmpdir());
        CHECK_INT(dmo_blockdev_open(path, false, NULL, &d), ==, -ENOENT);
        CHECK_INT(dmo_blockdev_open(dmo_test_tmpdir(), false, NULL, &d), <, 0);
        CHECK_INT(dmo_blockdev_open("/dev/null", false, NULL, &d), ==, -ENOTBLK);
        CHECK(d == NULL);
        REQUIRE(make_file("ro", 4096, path, sizeof(path)));
        REQUIRE(dmo_blockdev_open(path, false, NULL, &d) == 0);
        uint8_t b[16] = {0};
        CHECK_INT(dmo_blockdev_pwrite(d, b, sizeof(b), 0), ==, -EBADF);
        dmo_blockdev_free(d);
        dmo_blockdev_free(NULL);
}

/* The descriptor this process has open on path, or -1. */
static int fd_of(const char *path)
{
        for (int fd = 0; fd < 1024; fd++) {
                char link[64], target[512];
                snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
                ssize_t n = readlink(link, target, sizeof(target) - 1);
                if (n < 0)
                        continue;
                target[n] = 0;
                if (strcmp(target, path) == 0)
                        return fd;
        }
        return -1;
}

/* A misaligned transfer under O_DIRECT takes the page cache for itself
 * alone: the image's aligned transfers after it stay direct (the first
 * misaligned header read used to turn direct I/O off for the whole run). */
static void test_misaligned_transfer_keeps_direct_io(void)
{
        char path[512];
        REQUIRE(make_file("direct", 1 << 20, path, sizeof(path)));
        struct dmo_blockdev *d = NULL;
        REQUIRE(dmo_blockdev_open(path, true, NULL, &d) == 0);
        CHECK(!dmo_blockdev_direct(d)); /* a regular file starts buffered */
        int r = dmo_blockdev_set_direct(d, true);
        if (r == -EINVAL) {
                /* The test directory's file system does no direct I/O. */
                printf("# %s refuses O_DIRECT: only the buffered path is checked\n", path);
                dmo_blockdev_free(d);
                return;
        }
        REQUIRE(r == 0);
        CHECK(dmo_blockdev_direct(d));

        uint8_t *w = aligned_alloc(4096, 3 * 4096), *rd = aligned_alloc(4096, 3 * 4096);
        REQUIRE(w && rd);
        fill(w, 3 * 4096, 3);
        CHECK_INT(dmo_blockdev_pwrite(d, w, 2 * 4096, 8192), ==, 0);
        /* Misaligned buffer, length and offset, one at a time. */
        CHECK_INT(dmo_blockdev_pread(d, rd + 1, 4096, 8192), ==, 0);
        CHECK(memcmp(rd + 1, w, 4096) == 0);
        CHECK(dmo_blockdev_direct(d));
        CHECK_INT(dmo_blockdev_pread(d, rd, 100, 8192), ==, 0);
        CHECK(memcmp(rd, w, 100) == 0);
        CHECK_INT(dmo_blockdev_pwrite(d, w + 7, 4096, 16384), ==, 0);
        CHECK_INT(dmo_blockdev_pread(d, rd, 4096, 16384 + 512), ==, 0);
        CHECK(memcmp(rd, w + 7 + 512, 4096 - 512) == 0);
        CHECK(dmo_blockdev_direct(d));
        /* The flag is back on the descriptor: aligned transfers bypass the
         * cache again. */
        int fd = fd_of(path);
        REQUIRE(fd >= 0);
        int fl = fcntl(fd, F_GETFL);
        CHECK(fl >= 0 && (fl & O_DIRECT));
        CHECK_INT(dmo_blockdev_pread(d, rd, 2 * 4096, 8192), ==, 0);
        CHECK(memcmp(rd, w, 4096) == 0);
        CHECK_INT(dmo_blockdev_set_direct(d, false), ==, 0);
        CHECK(!dmo_blockdev_direct(d));
        free(w);
        free(rd);
        dmo_blockdev_free(d);
}

DMO_TEST_MAIN(T(test_round_trip_on_a_regular_file), T(test_misaligned_transfer_keeps_direct_io),
              T(test_short_write_plan_still_writes_everything),
              T(test_eio_is_injected_on_exactly_the_nth_call), T(test_access_past_the_end_is_enxio),
              T(test_write_across_a_shrunk_end_is_enxio_not_enospc),
              T(test_open_refuses_missing_and_odd_paths))
