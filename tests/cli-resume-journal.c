/* Every image a resume skips or refuses leaves its sentence in the kernel's
 * log buffer as well as on the screen, so that the next boot's journal
 * (`journalctl -b`) has it: in the initramfs no journald runs. Driven
 * through the program on the simulated kernel, with --kmsg pointing at a
 * file standing in for /dev/kmsg (the real one is never written). */
#include <stdio.h>
#include <string.h>

#include "tests/testlib.h"

#define run(...) dmo_test_run_program(__VA_ARGS__)
#define output() dmo_test_program_output()

static const char sim[] = "--kernel sim --sim-size 4M --sim-seed 7 --splash none";

static const char *path_in_tmp(const char *name)
{
        static char path[4][512];
        static int next;
        char *p = path[next++ % 4];
        snprintf(p, 512, "%s/%s", dmo_test_tmpdir(), name);
        return p;
}

static const char *fresh_swap(void)
{
        const char *p = path_in_tmp("journal.swap");
        if (dmo_test_sh("rm -f '%s' && truncate -s 16M '%s' && mkswap -q '%s' >/dev/null 2>&1", p,
                        p, p) != 0)
                return NULL;
        return p;
}

static const char *fresh_kmsg(void)
{
        const char *p = path_in_tmp("kmsg");
        remove(p);
        return p;
}

static const char *kmsg_text(const char *kmsg)
{
        static char buf[8192];
        return dmo_test_read_file(kmsg, buf, sizeof(buf));
}

static const char *image_on(const char *swap)
{
        if (run("hibernate %s --resume-device '%s'", sim, swap) != 0) {
                dmo_test_show_program_output();
                return NULL;
        }
        return swap;
}

static void a_damaged_image_is_said_in_the_journal(void)
{
        const char *swap = fresh_swap(), *kmsg = fresh_kmsg();
        REQUIRE(swap && image_on(swap));
        /* A page of the chunk stream overwritten with zeros. */
        REQUIRE(dmo_test_sh("at=$('%s' info --json '%s' | sed -n "
                            "'s/.*\"extents\":\\[{\"offset\":\\([0-9]*\\).*/\\1/p') && "
                            "test -n \"$at\" && dd if=/dev/zero of='%s' bs=4096 "
                            "seek=$((at / 4096 + 1)) count=1 conv=notrunc 2>/dev/null",
                            dmo_test_program(), swap, swap) == 0);
        CHECK_INT(run("resume %s --resume-device '%s' --kmsg '%s'", sim, swap, kmsg), ==, 3);
        const char *k = kmsg_text(kmsg);
        CHECK(strncmp(k, "<3>dormouse: ", 13) == 0);
        CHECK_STR_CONTAINS(k, "the image is damaged");
        CHECK_STR_CONTAINS(k, swap);
        /* one sentence: the same the screen got */
        CHECK_STR_CONTAINS(output(), "the image is damaged");
        CHECK_INT(strchr(k, '\n') - k + 1, ==, (long)strlen(k));
}

static void an_image_discarded_by_noresume_is_said_in_the_journal(void)
{
        const char *swap = fresh_swap(), *kmsg = fresh_kmsg();
        REQUIRE(swap && image_on(swap));
        CHECK_INT(run("resume %s --resume-device '%s' --noresume --kmsg '%s'", sim, swap, kmsg), ==,
                  1);
        const char *k = kmsg_text(kmsg);
        CHECK(strncmp(k, "<4>dormouse: noresume: the hibernation image on ", 48) == 0);
        CHECK_STR_CONTAINS(k, "was discarded");
        /* the program's name once, as the record's identifier */
        CHECK(strstr(k + 4, "dormouse: dormouse:") == NULL);
}

static void an_image_of_another_kernel_is_said_in_the_journal(void)
{
        const char *swap = fresh_swap(), *kmsg = fresh_kmsg();
        REQUIRE(swap);
        REQUIRE(run("hibernate %s --resume-device '%s' --sim-kernel-release 6.1.0-old", sim,
                    swap) == 0);
        CHECK_INT(run("resume %s --resume-device '%s' --sim-kernel-release 6.12.0-new --kmsg '%s'",
                      sim, swap, kmsg),
                  ==, 9);
        const char *k = kmsg_text(kmsg);
        CHECK(strncmp(k, "<3>dormouse: ", 13) == 0);
        CHECK_STR_CONTAINS(k, "made by kernel 6.1.0-old but 6.12.0-new is running");
}

static void an_encrypted_image_not_unlocked_is_said_in_the_journal(void)
{
        const char *swap = fresh_swap(), *kmsg = fresh_kmsg();
        const char *key = path_in_tmp("pass.key"), *wrong = path_in_tmp("wrong.key");
        REQUIRE(swap);
        REQUIRE(dmo_test_sh("umask 077 && echo right > '%s' && echo wrong > '%s'", key, wrong) ==
                0);
        REQUIRE(run("hibernate %s --resume-device '%s' --encrypt passphrase --key-file '%s'", sim,
                    swap, key) == 0);
        CHECK_INT(run("resume %s --resume-device '%s' --key-file '%s' --kmsg '%s'", sim, swap,
                      wrong, kmsg),
                  ==, 8);
        const char *k = kmsg_text(kmsg);
        CHECK(strncmp(k, "<3>dormouse: ", 13) == 0);
        CHECK_STR_CONTAINS(k, "was not accepted");
}

static void a_resume_device_that_never_came_is_said_in_the_journal(void)
{
        const char *kmsg = fresh_kmsg(), *conf = path_in_tmp("wait.conf");
        REQUIRE(dmo_test_sh("echo 'resume timeout = 100' > '%s'", conf) == 0);
        CHECK_INT(run("resume %s --config '%s' --resume-device /nonexistent/dmo-swap --kmsg '%s'",
                      sim, conf, kmsg),
                  ==, 1);
        const char *k = kmsg_text(kmsg);
        CHECK(strncmp(k, "<4>dormouse: resume device /nonexistent/dmo-swap not found", 58) == 0);
}

static void a_normal_boot_and_a_restore_leave_nothing(void)
{
        const char *swap = fresh_swap(), *kmsg = fresh_kmsg();
        REQUIRE(swap);
        CHECK_INT(run("resume %s --resume-device '%s' --kmsg '%s'", sim, swap, kmsg), ==, 1);
        CHECK(kmsg_text(kmsg)[0] == '\0');
        REQUIRE(image_on(swap));
        CHECK_INT(run("resume %s --resume-device '%s' --kmsg '%s'", sim, swap, kmsg), ==, 0);
        CHECK(kmsg_text(kmsg)[0] == '\0');
}

static void an_unwritable_kmsg_is_a_note_and_changes_nothing(void)
{
        const char *swap = fresh_swap();
        REQUIRE(swap && image_on(swap));
        CHECK_INT(
            run("resume %s --resume-device '%s' --noresume --kmsg /nonexistent/kmsg", sim, swap),
            ==, 1);
        CHECK_STR_CONTAINS(output(), "--kmsg /nonexistent/kmsg");
}

DMO_TEST_MAIN(T(a_damaged_image_is_said_in_the_journal),
              T(an_image_discarded_by_noresume_is_said_in_the_journal),
              T(an_image_of_another_kernel_is_said_in_the_journal),
              T(an_encrypted_image_not_unlocked_is_said_in_the_journal),
              T(a_resume_device_that_never_came_is_said_in_the_journal),
              T(a_normal_boot_and_a_restore_leave_nothing),
              T(an_unwritable_kmsg_is_a_note_and_changes_nothing))
