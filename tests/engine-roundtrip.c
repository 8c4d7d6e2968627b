/* Round trips through the simulated kernel, driven through the dormouse
 * program itself: hibernate into swap areas made by mkswap, resume, and check
 * exit codes, messages and what blkid (util-linux) says the swap area is
 * afterwards. The simulated kernel compares every restored page with what it
 * produced, so exit status 0 from resume means bit-exact. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/testlib.h"
#include "tests/testpty.h"

/* The program under test, through testlib. */
#define bin()         dmo_test_program()
#define run(...)      dmo_test_run_program(__VA_ARGS__)
#define output()      dmo_test_program_output()
#define show_output() dmo_test_show_program_output()

/* What util-linux's blkid says the area is: "swap", "swsuspend", or "". */
static const char *blkid_type(const char *path)
{
        static char type[64];
        char cmd[1200];
        snprintf(cmd, sizeof(cmd), "blkid -p -o value -s TYPE '%s' 2>/dev/null", path);
        FILE *p = popen(cmd, "r");
        type[0] = '\0';
        if (p) {
                if (!fgets(type, sizeof(type), p))
                        type[0] = '\0';
                pclose(p);
        }
        type[strcspn(type, "\n")] = '\0';
        return type;
}

static const char *make_swap(const char *name, const char *size)
{
        static char path[4][512];
        static int next;
        char *p = path[next++ % 4];
        snprintf(p, 512, "%s/%s", dmo_test_tmpdir(), name);
        if (dmo_test_sh("rm -f '%s' && truncate -s %s '%s' && mkswap -q '%s' >/dev/null 2>&1", p,
                        size, p, p) != 0)
                return NULL;
        return p;
}

static void round_trip(const char *size, const char *compress, const char *swap_size)
{
        const char *swap = make_swap("rt.swap", swap_size);
        REQUIRE(swap);
        int rc = run("hibernate --kernel sim --sim-size %s --sim-seed 7 --compress %s "
                     "--resume-device '%s' --splash none",
                     size, compress, swap);
        if (rc != 0)
                show_output();
        CHECK_INT(rc, ==, 0);
        CHECK(strcmp(blkid_type(swap), "swsuspend") == 0);
        rc = run("resume --kernel sim --sim-seed 7 --resume-device '%s' --splash none", swap);
        if (rc != 0)
                show_output();
        CHECK_INT(rc, ==, 0);
        CHECK_STR_CONTAINS(output(), "bit-exact");
        CHECK(strcmp(blkid_type(swap), "swap") == 0);
        /* the image is gone: a second resume finds nothing, quietly */
        CHECK_INT(run("resume --kernel sim --sim-seed 7 --resume-device '%s' --splash none", swap),
                  ==, 1);
        CHECK(output()[0] == '\0');
}

static void round_trip_two_pages(void)
{
        round_trip("8K", "lz4", "1M");
}

static void round_trip_small_sizes_every_compression(void)
{
        static const char *sizes[] = {"12K", "260K", "3M"};
        static const char *algos[] = {"lz4", "zstd", "none"};
        for (unsigned s = 0; s < 3; s++)
                for (unsigned a = 0; a < 3; a++)
                        round_trip(sizes[s], algos[a], "16M");
}

/* The real kernel's image is smaller than memory (what --image-size asks
 * for, or what it could not free): the stream ends before the largest
 * image the writer was sized for, in the middle of a chunk. */
static void round_trip_image_smaller_than_memory(void)
{
        const char *swap = make_swap("small.swap", "16M");
        REQUIRE(swap);
        int rc = run("hibernate --kernel sim --sim-size 3M --sim-seed 9 --image-size 2000K "
                     "--resume-device '%s' --splash none",
                     swap);
        if (rc != 0)
                show_output();
        CHECK_INT(rc, ==, 0);
        rc = run("resume --kernel sim --sim-seed 9 --resume-device '%s' --splash none", swap);
        if (rc != 0)
                show_output();
        CHECK_INT(rc, ==, 0);
        CHECK_STR_CONTAINS(output(), "bit-exact");
}

/* The image loads while the splash comes up: a kms splash waiting 1.5 s for
 * a card that never appears does not hold the resume back. The load's
 * profile line is printed before the note that the splash gave up. */
static void resume_loads_while_the_splash_comes_up(void)
{
        const char *swap = make_swap("async.swap", "16M");
        REQUIRE(swap);
        REQUIRE(run("hibernate --kernel sim --sim-size 3M --sim-seed 5 --resume-device '%s' "
                    "--splash none",
                    swap) == 0);
        setenv("DORMOUSE_DEBUG_TIMING", "1", 1);
        int rc = run("resume --kernel sim --sim-seed 5 --resume-device '%s' "
                     "--splash kms:/dev/dri/dormouse-test-none,timeout=1500",
                     swap);
        unsetenv("DORMOUSE_DEBUG_TIMING");
        if (rc != 0)
                show_output();
        CHECK_INT(rc, ==, 0);
        const char *out = output();
        const char *loaded = strstr(out, "timing: load phase");
        const char *gave_up = strstr(out, "is not available");
        CHECK(loaded != NULL);
        CHECK(gave_up != NULL);
        CHECK(loaded && gave_up && loaded < gave_up);
        CHECK_STR_CONTAINS(out, "bit-exact");
}

static void round_trip_64m_every_compression(void)
{
        round_trip("64M", "lz4", "96M");
        round_trip("64M", "zstd", "96M");
        round_trip("64M", "none", "96M");
}

static void round_trip_1g(void)
{
        if (getenv("DMO_TEST_SMALL")) {
                printf("# DMO_TEST_SMALL set (sanitizer pass): 256 MiB instead of 1 GiB\n");
                round_trip("256M", "lz4", "384M");
                return;
        }
        round_trip("1G", "lz4", "1300M");
}

static void round_trip_swap_file_at_an_offset(void)
{
        /* A disk image whose swap area starts 1000 pages in, like a swap
         * file's first physical block on its partition. */
        char disk[512], area[512];
        snprintf(disk, sizeof(disk), "%s/disk.img", dmo_test_tmpdir());
        snprintf(area, sizeof(area), "%s/area.swap", dmo_test_tmpdir());
        REQUIRE(dmo_test_sh("rm -f '%s' '%s' && truncate -s 40M '%s' && truncate -s 32M '%s' && "
                            "mkswap -q '%s' >/dev/null && dd if='%s' of='%s' bs=4096 seek=1000 "
                            "conv=notrunc status=none",
                            disk, area, disk, area, area, area, disk) == 0);
        int rc = run("hibernate --kernel sim --sim-size 20M --resume-device '%s' --resume-offset "
                     "1000 --splash none",
                     disk);
        if (rc)
                show_output();
        CHECK_INT(rc, ==, 0);
        /* nothing before the area was touched */
        CHECK_INT(dmo_test_sh("cmp -s -n 4096000 '%s' /dev/zero", disk), ==, 0);
        rc = run("resume --kernel sim --resume-device '%s' --resume-offset 1000 --splash none",
                 disk);
        if (rc)
                show_output();
        CHECK_INT(rc, ==, 0);
        /* the wrong offset sees no swap area at all */
        CHECK_INT(
            run("resume --kernel sim --resume-device '%s' --resume-offset 999 --splash none", disk),
            ==, 2);
}

static void no_signature_is_a_quiet_normal_boot(void)
{
        const char *swap = make_swap("plain.swap", "8M");
        REQUIRE(swap);
        CHECK_INT(run("resume --kernel sim --resume-device '%s' --splash none", swap), ==, 1);
        CHECK(output()[0] == '\0');
        CHECK(strcmp(blkid_type(swap), "swap") == 0);
}

static void not_a_swap_area_says_run_mkswap(void)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/zeros.img", dmo_test_tmpdir());
        REQUIRE(dmo_test_sh("truncate -s 8M '%s'", path) == 0);
        CHECK_INT(run("resume --kernel sim --resume-device '%s' --splash none", path), ==, 2);
        CHECK_STR_CONTAINS(output(), "mkswap");
        /* the same sentence and the same exit status (a configuration error) */
        CHECK_INT(
            run("hibernate --kernel sim --sim-size 1M --resume-device '%s' --splash none", path),
            ==, 2);
        CHECK_STR_CONTAINS(output(), "no swap signature; run mkswap on it");
}

static void missing_device_is_reported(void)
{
        CHECK_INT(run("hibernate --kernel sim --resume-device /nonexistent/swap --splash none"), ==,
                  2);
        CHECK_STR_CONTAINS(output(), "/nonexistent/swap");
        CHECK_INT(run("resume --kernel sim --resume-device /nonexistent/swap --splash none"), ==,
                  1);
        CHECK_STR_CONTAINS(output(), "not found");
}

static void hibernate(const char *swap, const char *extra)
{
        int rc = run("hibernate --kernel sim --sim-size 6M --sim-seed 3 --resume-device '%s' "
                     "--splash none %s",
                     swap, extra);
        if (rc)
                show_output();
        CHECK_INT(rc, ==, 0);
}

/* Nobody to ask (no splash, no terminal): an image of another kernel is
 * kept, whole, with exit 9; the kernel that made it still restores it. */
static void wrong_kernel_keeps_the_image_for_the_right_one(void)
{
        const char *swap = make_swap("wk.swap", "16M");
        REQUIRE(swap);
        hibernate(swap, "--sim-kernel-release 6.1.0-99-amd64");
        CHECK_INT(run("resume --kernel sim --sim-seed 3 --resume-device '%s' --splash none", swap),
                  ==, 9);
        CHECK_STR_CONTAINS(output(), "6.1.0-99-amd64");
        CHECK_STR_CONTAINS(output(), "kept");
        CHECK(strcmp(blkid_type(swap), "swsuspend") == 0);
        CHECK_INT(run("info '%s'", swap), ==, 0);
        CHECK_INT(run("resume --kernel sim --sim-seed 3 --resume-device '%s' --splash text "
                      "</dev/null",
                      swap),
                  ==, 9);
        CHECK_INT(run("resume --kernel sim --sim-kernel-release 6.1.0-99-amd64 --sim-seed 3 "
                      "--resume-device '%s' --splash none",
                      swap),
                  ==, 0);
        CHECK(strcmp(blkid_type(swap), "swap") == 0);
}

/* Bounds for a program that is stuck, not speed tests. */
enum { PTY_SHOW_TIMEOUT_MS = 30000, PTY_EXIT_TIMEOUT_MS = 60000 };

/* Resumes an image of another kernel on a pseudo-terminal with the text
 * splash and answers its questions with keys[0] (keep it and restart?)
 * and, when keys[1] is there, keys[1] (discard it?). The exit status. */
static int resume_answering(const char *swap, const char *keys)
{
        const char *const argv[] = {bin(), "resume",          "--kernel", "sim",      "--sim-seed",
                                    "3",   "--resume-device", swap,       "--splash", "text",
                                    NULL};
        struct dmo_test_pty *t;
        if (dmo_test_pty_spawn(argv, &t) != 0)
                return -1;
        CHECK(dmo_test_pty_await(t, "restart to pick that kernel", PTY_SHOW_TIMEOUT_MS));
        CHECK(dmo_test_pty_type(t, (char[]){keys[0], '\0'}) == 0);
        if (keys[1]) {
                CHECK(dmo_test_pty_await(t, "Discard the saved session for good",
                                         PTY_SHOW_TIMEOUT_MS));
                CHECK(dmo_test_pty_type(t, keys + 1) == 0);
        }
        int status = dmo_test_pty_finish(t, PTY_EXIT_TIMEOUT_MS);
        dmo_test_pty_free(t);
        return status;
}

/* On the splash: Enter keeps the image (the highlighted answer); No then
 * No to the second question keeps it as well; only No then Yes discards
 * it, and the swap area is plain swap again. */
static void wrong_kernel_asks_and_discards_only_when_confirmed(void)
{
        const char *swap = make_swap("wkq.swap", "16M");
        REQUIRE(swap);
        hibernate(swap, "--sim-kernel-release 6.1.0-99-amd64");
        CHECK_INT(resume_answering(swap, "\r"), ==, 9);
        CHECK(strcmp(blkid_type(swap), "swsuspend") == 0);
        CHECK_INT(resume_answering(swap, "nn"), ==, 9);
        CHECK(strcmp(blkid_type(swap), "swsuspend") == 0);
        CHECK_INT(resume_answering(swap, "n\r"), ==, 9);
        CHECK(strcmp(blkid_type(swap), "swsuspend") == 0);
        CHECK_INT(resume_answering(swap, "ny"), ==, 3);
        CHECK(strcmp(blkid_type(swap), "swap") == 0);
        CHECK_INT(run("info '%s'", swap), ==, 1);
}

static void noresume_discards_the_image(void)
{
        const char *swap = make_swap("nr.swap", "16M");
        char cmdline[512];
        snprintf(cmdline, sizeof(cmdline), "%s/cmdline", dmo_test_tmpdir());
        REQUIRE(swap &&
                dmo_test_sh("echo 'root=/dev/vda1 ro noresume quiet' > '%s'", cmdline) == 0);
        hibernate(swap, "");
        CHECK_INT(run("resume --kernel sim --sim-seed 3 --resume-device '%s' --cmdline '%s' "
                      "--splash none",
                      swap, cmdline),
                  ==, 1);
        CHECK_STR_CONTAINS(output(), "discarded");
        CHECK(strcmp(blkid_type(swap), "swap") == 0);
}

static void resume_device_from_the_kernel_command_line(void)
{
        const char *swap = make_swap("cl.swap", "16M");
        char cmdline[600];
        snprintf(cmdline, sizeof(cmdline), "%s/cmdline2", dmo_test_tmpdir());
        REQUIRE(swap && dmo_test_sh("echo 'quiet resume=%s splash' > '%s'", swap, cmdline) == 0);
        hibernate(swap, "");
        CHECK_INT(run("resume --kernel sim --sim-seed 3 --cmdline '%s' --splash none", cmdline), ==,
                  0);
}

static void truncated_device_is_refused(void)
{
        const char *swap = make_swap("tr.swap", "16M");
        REQUIRE(swap);
        hibernate(swap, "");
        REQUIRE(dmo_test_sh("truncate -s 2M '%s'", swap) == 0);
        int rc = run("resume --kernel sim --sim-seed 3 --resume-device '%s' --splash none", swap);
        CHECK(rc == 3);
        CHECK(strcmp(blkid_type(swap), "swap") == 0);
}

/* A device that shrank under the image before the resume (shrink@ stands in
 * for a block device cut short: its swap header still gives the old size):
 * no proof that the image is gone, so it is kept and the boot must stop
 * (exit 7), saying so; with the device whole again it restores. A swap file
 * cut short (above) has given its blocks back and is refused. */
static void shrunk_device_keeps_the_image_and_stops_the_boot(void)
{
        const char *swap = make_swap("shrunk.swap", "16M");
        REQUIRE(swap);
        hibernate(swap, "");
        CHECK_INT(run("resume --kernel sim --sim-seed 3 --sim-fault shrink@1050624 "
                      "--resume-device '%s' --splash none",
                      swap),
                  ==, 7);
        CHECK_STR_CONTAINS(output(), "shrunk.swap: the device is 1.1 MB, shorter than the swap "
                                     "area on it (16.8 MB), and the image reaches past its end; "
                                     "the image is kept");
        CHECK_STR_CONTAINS(output(), "Do not boot on");
        CHECK_INT(run("info '%s'", swap), ==, 0); /* still there, still sound */
        CHECK(strcmp(blkid_type(swap), "swap") != 0);
        CHECK_INT(run("resume --kernel sim --sim-seed 3 --resume-device '%s' --splash none", swap),
                  ==, 0);
        CHECK(strcmp(blkid_type(swap), "swap") == 0);
}

static void image_of_another_machine_is_refused_by_the_kernel(void)
{
        /* Another seed is another simulated machine: its kernel refuses the
         * image's first page, as a real kernel refuses a foreign header. */
        const char *swap = make_swap("seed.swap", "16M");
        REQUIRE(swap);
        hibernate(swap, "");
        CHECK_INT(run("resume --kernel sim --sim-seed 4 --resume-device '%s' --splash none", swap),
                  ==, 3);
        CHECK(strcmp(blkid_type(swap), "swap") == 0);
}

/* A read-only resume device: the image cannot come off, so it must not be
 * restored, and the boot must stop (exit 7), with the image left whole. */
static void read_only_device_keeps_the_image_and_stops_the_boot(void)
{
        const char *swap = make_swap("ro.swap", "16M");
        REQUIRE(swap);
        hibernate(swap, "");
        CHECK_INT(
            run("resume --kernel sim --sim-seed 3 --sim-fault readonly@1 --resume-device '%s' "
                "--splash none",
                swap),
            ==, 7);
        CHECK_STR_CONTAINS(output(), "could not be removed");
        CHECK_STR_CONTAINS(output(), "Do not boot on");
        CHECK_INT(run("info '%s'", swap), ==, 0); /* still there, still sound */
        CHECK_INT(run("resume --kernel sim --sim-seed 3 --resume-device '%s' --splash none", swap),
                  ==, 0);
        CHECK(strcmp(blkid_type(swap), "swap") == 0);
}

/* A resume on a running system touches nothing: the swap area in use, or a
 * root file system on disk mounted read-write. An initramfs's rootfs is
 * fine. The simulated machine's /proc is a directory of the test's. */
static void resume_refuses_on_a_running_system(void)
{
        const char *swap = make_swap("live.swap", "16M");
        char proc[600];
        snprintf(proc, sizeof(proc), "%s/proc", dmo_test_tmpdir());
        REQUIRE(swap && dmo_test_sh("mkdir -p '%s'", proc) == 0);
        hibernate(swap, "");

        REQUIRE(dmo_test_sh("printf 'Filename Type Size Used Priority\n%s file 16380 0 -2\n' > "
                            "'%s/swaps' && echo 'rootfs / rootfs rw 0 0' > '%s/mounts'",
                            swap, proc, proc) == 0);
        CHECK_INT(run("resume --kernel sim --sim-seed 3 --sim-proc '%s' --resume-device '%s' "
                      "--splash none",
                      proc, swap),
                  ==, 2);
        CHECK_STR_CONTAINS(output(), "in use as swap");
        CHECK_INT(run("info '%s'", swap), ==, 0);

        REQUIRE(dmo_test_sh("printf 'Filename Type Size Used Priority\n' > '%s/swaps' && "
                            "printf 'rootfs / rootfs rw 0 0\n/dev/vda1 / ext4 rw,relatime 0 0\n' "
                            "> '%s/mounts'",
                            proc, proc) == 0);
        CHECK_INT(run("resume --kernel sim --sim-seed 3 --sim-proc '%s' --resume-device '%s' "
                      "--splash none",
                      proc, swap),
                  ==, 2);
        CHECK_STR_CONTAINS(output(), "mounted read-write");
        CHECK_INT(run("info '%s'", swap), ==, 0);

        /* The initramfs: only the in-memory root, the real root read-only. */
        REQUIRE(dmo_test_sh("printf 'rootfs / rootfs rw 0 0\n/dev/vda1 /root ext4 ro 0 0\n' > "
                            "'%s/mounts'",
                            proc) == 0);
        CHECK_INT(run("resume --kernel sim --sim-seed 3 --sim-proc '%s' --resume-device '%s' "
                      "--splash none",
                      proc, swap),
                  ==, 0);
}

static void enospc_mid_write_leaves_plain_swap(void)
{
        /* 6M of memory in 2M of swap: the kernel is asked for a smaller
         * image, frees memory and the image fits. */
        const char *swap = make_swap("fits.swap", "2M");
        REQUIRE(swap);
        CHECK_INT(run("hibernate --kernel sim --sim-size 6M --compress none --resume-device '%s' "
                      "--splash none",
                      swap),
                  ==, 0);
        CHECK_INT(run("resume --kernel sim --resume-device '%s' --splash none", swap), ==, 0);
        /* 16M cannot shrink below 8M (the simulated kernel frees at most
         * half): the write runs out of room, says how much, and leaves
         * plain swap. */
        swap = make_swap("full.swap", "2M");
        REQUIRE(swap);
        CHECK_INT(run("hibernate --kernel sim --sim-size 16M --compress none --resume-device '%s' "
                      "--splash none",
                      swap),
                  ==, 6);
        CHECK_STR_CONTAINS(output(), "too small");
        CHECK_STR_CONTAINS(output(), "2.1 MB free");
        CHECK_STR_CONTAINS(output(), "8.4 MB of memory");
        CHECK(strcmp(blkid_type(swap), "swap") == 0);
        CHECK_INT(run("resume --kernel sim --resume-device '%s' --splash none", swap), ==, 1);

        swap = make_swap("enospc.swap", "32M");
        REQUIRE(swap);
        CHECK_INT(run("hibernate --kernel sim --sim-size 6M --sim-fault enospc@200 "
                      "--resume-device '%s' --splash none",
                      swap),
                  ==, 6);
        CHECK(strcmp(blkid_type(swap), "swap") == 0);
}

static void io_errors_on_write_and_read(void)
{
        const char *swap = make_swap("eio.swap", "32M");
        REQUIRE(swap);
        CHECK_INT(run("hibernate --kernel sim --sim-size 6M --sim-fault eio-write@3 "
                      "--resume-device '%s' --splash none",
                      swap),
                  ==, 6);
        CHECK(strcmp(blkid_type(swap), "swap") == 0);
        CHECK_STR_CONTAINS(output(), "hibernation failed while writing the image");
        CHECK_STR_CONTAINS(output(), "eio.swap): Input/output error");

        /* The device cut short under the image (the kernel cuts the write
         * across its new end short and fails the next with ENOSPC): named
         * as a device that shrank, with both sizes, not as a full swap
         * area; no image left. */
        CHECK_INT(run("hibernate --kernel sim --sim-size 6M --sim-fault shrink@1050624 "
                      "--resume-device '%s' --splash none",
                      swap),
                  ==, 6);
        CHECK_STR_CONTAINS(output(), "hibernation failed while writing the image");
        CHECK_STR_CONTAINS(output(), "eio.swap): the device ends at 1.1 MB now, not 33.6 MB: it "
                                     "shrank while the image was being written");
        CHECK_STR_CONTAINS(output(), "run mkswap on");
        CHECK(!strstr(output(), "too small"));
        CHECK(!strstr(output(), "No space left"));
        CHECK(strcmp(blkid_type(swap), "swap") == 0);

        /* A read the disk fails: the image may be whole, so it is kept and
         * the boot must stop (7), saying so; the next try restores it. */
        hibernate(swap, "");
        CHECK_INT(run("resume --kernel sim --sim-seed 3 --sim-fault eio-read@4 --resume-device "
                      "'%s' --splash none",
                      swap),
                  ==, 7);
        CHECK_STR_CONTAINS(output(), "the disk could not be read (Input/output error)");
        CHECK_STR_CONTAINS(output(), "the image is kept");
        CHECK(strcmp(blkid_type(swap), "swap") != 0);
        CHECK_INT(run("resume --kernel sim --sim-seed 3 --resume-device '%s' --splash none", swap),
                  ==, 0);
        CHECK(strcmp(blkid_type(swap), "swap") == 0);
}

static void short_transfers_still_round_trip(void)
{
        const char *swap = make_swap("short.swap", "32M");
        REQUIRE(swap);
        hibernate(swap, "--sim-fault short-write,short-read");
        int rc = run("resume --kernel sim --sim-seed 3 --sim-fault short-write,short-read "
                     "--resume-device '%s' --splash none",
                     swap);
        if (rc)
                show_output();
        CHECK_INT(rc, ==, 0);
}

static void crash_at_every_phase_boundary(void)
{
        static const char *points[] = {
            "opened",       "frozen",         "image-created",    "data-half-written",
            "data-written", "header-written", "signature-written"};
        for (unsigned i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
                const char *swap = make_swap("crash.swap", "32M");
                REQUIRE(swap);
                int rc = run("hibernate --kernel sim --sim-size 6M --sim-seed 3 --sim-fault "
                             "crash@%s --resume-device '%s' --splash none",
                             points[i], swap);
                CHECK_INT(rc, ==, 128 + SIGKILL); /* the "power" went */
                rc = run("resume --kernel sim --sim-seed 3 --resume-device '%s' --splash none",
                         swap);
                /* after the signature: a complete image, restored bit-exact;
                 * before it: no image at all */
                int expect = strcmp(points[i], "signature-written") == 0 ? 0 : 1;
                if (rc != expect)
                        printf("# crash@%s: resume exit %d, expected %d\n", points[i], rc, expect);
                CHECK_INT(rc, ==, expect);
                CHECK(strcmp(blkid_type(swap), "swap") == 0);
        }
        /* crashes on the resume side */
        static const char *resume_points[] = {"resume-loaded", "signature-removed"};
        for (unsigned i = 0; i < 2; i++) {
                const char *swap = make_swap("crash2.swap", "32M");
                REQUIRE(swap);
                hibernate(swap, "");
                int rc = run("resume --kernel sim --sim-seed 3 --sim-fault crash@%s "
                             "--resume-device '%s' --splash none",
                             resume_points[i], swap);
                CHECK_INT(rc, ==, 128 + SIGKILL);
                rc = run("resume --kernel sim --sim-seed 3 --resume-device '%s' --splash none",
                         swap);
                /* before the signature came off the image is still whole */
                CHECK_INT(rc, ==, i == 0 ? 0 : 1);
                CHECK(strcmp(blkid_type(swap), "swap") == 0);
        }
}

static void usage_errors_exit_2(void)
{
        CHECK_INT(run("hibernate --kernel bogus"), ==, 2);
        CHECK_STR_CONTAINS(output(), "bogus");
        CHECK_INT(run("hibernate --kernel sim --compress brotli --resume-device /dev/null"), ==, 2);
        CHECK_STR_CONTAINS(output(), "brotli");
        CHECK_INT(run("resume --frobnicate"), ==, 2);
        CHECK_INT(run("resume --kernel sim --config /nonexistent.conf --resume-device x"), ==, 2);
        CHECK_STR_CONTAINS(output(), "/nonexistent.conf");
        CHECK_INT(run("nosuchcommand"), ==, 2);
        CHECK_INT(run("hibernate --kernel sim --sim-fault explode@3 --resume-device /dev/null"), ==,
                  2);
        CHECK_INT(run("hibernate --kernel sim --sim-size lots"), ==, 2);
}

static void config_file_sets_device_and_warns_on_unknown_keys(void)
{
        const char *swap = make_swap("cfg.swap", "16M");
        char conf[600];
        snprintf(conf, sizeof(conf), "%s/dormouse.conf", dmo_test_tmpdir());
        REQUIRE(swap && dmo_test_sh("printf 'resume device = %s\\ncompress = zstd\\nfrobnicate = "
                                    "1\\nsnapshot device = /dev/snapshot\\n' > '%s'",
                                    swap, conf) == 0);
        int rc = run("hibernate --kernel sim --sim-size 2M --config '%s' --splash none", conf);
        CHECK_INT(rc, ==, 0);
        CHECK_STR_CONTAINS(output(), "frobnicate");
        CHECK_STR_CONTAINS(output(), "ignores");
        rc = run("info '%s'", swap);
        CHECK_INT(rc, ==, 0);
        CHECK_STR_CONTAINS(output(), "zstd");
        rc = run("resume --kernel sim --config '%s' --splash none", conf);
        CHECK_INT(rc, ==, 0);
}

/* An image's kernel strings are the image's words: an escape sequence in
 * them never reaches the terminal. */
static void info_filters_control_characters_from_the_image(void)
{
        const char *swap = make_swap("esc.swap", "16M");
        REQUIRE(swap);
        CHECK_INT(run("hibernate --kernel sim --sim-size 2M --sim-kernel-release \"$(printf "
                      "'6.1\\033[2J\\033]0;pwned\\007')\" --resume-device '%s' --splash none",
                      swap),
                  ==, 0);
        CHECK_INT(run("info '%s'", swap), ==, 0);
        CHECK_STR_CONTAINS(output(), "6.1?[2J?]0;pwned?");
        CHECK(strchr(output(), '\033') == NULL);
        CHECK(strchr(output(), '\007') == NULL);
}

/* Frames never go through a link someone left in the directory, and the
 * png output is refused with the real kernel (it would write files while
 * the system is frozen). The real-kernel case names a device that does not
 * exist, so even a broken check could never reach /dev/snapshot. */
static void png_frames_never_follow_links_and_need_the_simulated_kernel(void)
{
        const char *swap = make_swap("png.swap", "16M");
        char dir[600], victim[600];
        snprintf(dir, sizeof(dir), "%s/frames", dmo_test_tmpdir());
        snprintf(victim, sizeof(victim), "%s/victim", dmo_test_tmpdir());
        REQUIRE(swap && dmo_test_sh("mkdir -p '%s' && echo precious > '%s' && "
                                    "ln -s '%s' '%s/frame-00000.png'",
                                    dir, victim, victim, dir) == 0);
        CHECK_INT(run("hibernate --kernel sim --sim-size 2M --resume-device '%s' "
                      "--splash 'png:%s:320x200'",
                      swap, dir),
                  ==, 0);
        CHECK_INT(dmo_test_sh("grep -qx precious '%s'", victim), ==, 0);
        CHECK_INT(
            dmo_test_sh("test -f '%s/frame-00000.png' && ! test -L '%s/frame-00000.png'", dir, dir),
            ==, 0);

        CHECK_INT(run("hibernate --resume-device /nonexistent/dmo-test --splash 'png:%s'", dir), ==,
                  2);
        CHECK_STR_CONTAINS(output(), "works only with --kernel sim");
}

/* A theme that does not load (removed, misspelled, broken install) never
 * leaves the screen black: the built-in look draws the bar, and its text
 * when the shipped fonts are there. Each new frame is a changed screen. */
static void missing_theme_falls_back_to_the_built_in_look(void)
{
        const char *swap = make_swap("theme.swap", "32M");
        char dir[600];
        REQUIRE(swap);
        static const char *const fonts[] = {"", "DORMOUSE_FONTS_DIR=/nonexistent "};
        for (int i = 0; i < 2; i++) {
                snprintf(dir, sizeof(dir), "%s/builtin-%d", dmo_test_tmpdir(), i);
                CHECK_INT(dmo_test_sh("%s'%s' hibernate --kernel sim --sim-size 8M --resume-device "
                                      "'%s' --splash 'png:%s:320x200' --theme no-such-theme "
                                      "--debug-step-delay 10 >'%s.out' 2>&1",
                                      fonts[i], bin(), swap, dir, dir),
                          ==, 0);
                CHECK_INT(dmo_test_sh("grep -q 'using the built-in look' '%s.out'", dir), ==, 0);
                /* The bar moved: more than one distinct frame (the png
                 * output writes a frame only when the screen changed), not
                 * one black screen. Not "many": how many frames a run
                 * draws depends on the CPU left to the renderer (a loaded
                 * machine drew fewer than 10 in 1 of 20 runs). */
                CHECK_INT(dmo_test_sh("test $(ls '%s' | wc -l) -ge 2", dir), ==, 0);
        }
}

static void info_describes_image_and_absence(void)
{
        const char *swap = make_swap("info.swap", "16M");
        REQUIRE(swap);
        CHECK_INT(run("info '%s'", swap), ==, 1);
        CHECK_STR_CONTAINS(output(), "no hibernation image");
        hibernate(swap, "");
        CHECK_INT(run("info '%s'", swap), ==, 0);
        CHECK_STR_CONTAINS(output(), "dormouse hibernation image");
        CHECK_INT(run("info --json '%s'", swap), ==, 0);
        CHECK_STR_CONTAINS(output(), "\"image_pages\"");
        CHECK_INT(run("info /nonexistent"), ==, 2);
}

/* Esc on the terminal while the data phase runs: cancelled, thawed, clean. */
/* Runs a hibernation on a pseudo-terminal with the text splash, types key
 * once the data phase shows a percentage, and returns the exit status;
 * out gets what the terminal showed after the key. */
static int hibernate_typing(const char *swap, const char *key, char *out, size_t out_len)
{
        const char *const argv[] = {bin(),        "hibernate", "--kernel",           "sim",
                                    "--sim-size", "8M",        "--resume-device",    swap,
                                    "--splash",   "text",      "--debug-step-delay", "30",
                                    NULL};
        struct dmo_test_pty *t;
        if (dmo_test_pty_spawn(argv, &t) != 0)
                return -1;
        /* wait until the data phase shows a percentage, then type */
        CHECK(dmo_test_pty_await(t, "%", PTY_SHOW_TIMEOUT_MS));
        CHECK(dmo_test_pty_type(t, key) == 0);
        int status = dmo_test_pty_finish(t, PTY_EXIT_TIMEOUT_MS);
        snprintf(out, out_len, "%s", dmo_test_pty_since_match(t));
        dmo_test_pty_free(t);
        return status;
}

static void escape_key_aborts_before_the_signature(void)
{
        const char *swap = make_swap("esc.swap", "32M");
        REQUIRE(swap);
        static char out[65536];
        CHECK_INT(hibernate_typing(swap, "\x1b", out, sizeof(out)), ==, 5);
        CHECK(strcmp(blkid_type(swap), "swap") == 0);
        CHECK_INT(run("resume --kernel sim --resume-device '%s' --splash none", swap), ==, 1);
}

/* `r` on the splash: the machine reboots into the image instead of
 * powering off, and the image is there for that boot. */
static void r_key_reboots_into_the_image(void)
{
        const char *swap = make_swap("r.swap", "32M");
        REQUIRE(swap);
        static char out[65536];
        CHECK_INT(hibernate_typing(swap, "r", out, sizeof(out)), ==, 0);
        CHECK_STR_CONTAINS(out, "reboots");
        CHECK_INT(run("info '%s'", swap), ==, 0);
        CHECK_INT(run("resume --kernel sim --resume-device '%s' --splash none", swap), ==, 0);
}

DMO_TEST_MAIN(T(round_trip_two_pages), T(round_trip_image_smaller_than_memory),
              T(resume_loads_while_the_splash_comes_up),
              T(round_trip_small_sizes_every_compression), T(round_trip_64m_every_compression),
              T(round_trip_1g), T(round_trip_swap_file_at_an_offset),
              T(no_signature_is_a_quiet_normal_boot), T(not_a_swap_area_says_run_mkswap),
              T(missing_device_is_reported), T(wrong_kernel_keeps_the_image_for_the_right_one),
              T(wrong_kernel_asks_and_discards_only_when_confirmed), T(noresume_discards_the_image),
              T(resume_device_from_the_kernel_command_line), T(truncated_device_is_refused),
              T(shrunk_device_keeps_the_image_and_stops_the_boot),
              T(image_of_another_machine_is_refused_by_the_kernel),
              T(read_only_device_keeps_the_image_and_stops_the_boot),
              T(resume_refuses_on_a_running_system), T(enospc_mid_write_leaves_plain_swap),
              T(io_errors_on_write_and_read), T(short_transfers_still_round_trip),
              T(crash_at_every_phase_boundary), T(usage_errors_exit_2),
              T(config_file_sets_device_and_warns_on_unknown_keys),
              T(info_filters_control_characters_from_the_image),
              T(png_frames_never_follow_links_and_need_the_simulated_kernel),
              T(missing_theme_falls_back_to_the_built_in_look), T(info_describes_image_and_absence),
              T(escape_key_aborts_before_the_signature), T(r_key_reboots_into_the_image))
