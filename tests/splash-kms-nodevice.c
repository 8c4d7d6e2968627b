/* Pixel outputs on a machine without the device: they fail fast and clearly
 * (so the CLI falls back to another output) instead of hanging. */
#include "splash/output/output.h"

#include <errno.h>
#include <time.h>

#include "tests/testlib.h"

static long elapsed_ms(const struct timespec *t0)
{
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

static int open_output(const struct dmo_output_ops *ops, const char *arg)
{
        struct dmo_output_config cfg = {.arg = arg, .tty_fd = -1};
        struct dmo_output *o = NULL;
        int err = ops->open(&cfg, &o);
        if (err == 0)
                ops->close(o);
        return err;
}

static void test_kms_without_a_card_fails_with_enodev_after_the_timeout(void)
{
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK_INT(open_output(&dmo_output_kms, "device=/nonexistent/card0,timeout=300"), ==,
                  -ENODEV);
        long ms = elapsed_ms(&t0);
        /* It waited (ms granularity may round the deadline down a little) and
         * did not hang; generous bounds, this is no speed test. */
        CHECK_INT(ms, >=, 250);
        CHECK_INT(ms, <, 10000);
        /* No timeout given: one look, no waiting. */
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK_INT(open_output(&dmo_output_kms, "/nonexistent/card0"), ==, -ENODEV);
        CHECK_INT(elapsed_ms(&t0), <, 5000);
}

static void test_kms_on_something_that_is_not_a_card_is_enodev(void)
{
        CHECK_INT(open_output(&dmo_output_kms, "/dev/null"), ==, -ENODEV);
}

static void test_kms_rejects_malformed_arguments(void)
{
        CHECK_INT(open_output(&dmo_output_kms, "timeout=soon"), ==, -EINVAL);
        CHECK_INT(open_output(&dmo_output_kms, "timeout=-1"), ==, -EINVAL);
        CHECK_INT(open_output(&dmo_output_kms, "colour=blue"), ==, -EINVAL);
}

static void test_fbdev_missing_and_wrong_device_are_told_apart(void)
{
        CHECK_INT(open_output(&dmo_output_fbdev, "/nonexistent/fb0"), ==, -ENODEV);
        CHECK_INT(open_output(&dmo_output_fbdev, "/dev/null"), ==, -ENOTTY);
        CHECK(dmo_output_strerror(&dmo_output_fbdev, -ENOTTY) != NULL);
}

static void test_errors_have_sentences_for_people(void)
{
        CHECK_STR_CONTAINS(dmo_output_strerror(&dmo_output_kms, -EBUSY), "controls the display");
        CHECK_STR_CONTAINS(dmo_output_strerror(&dmo_output_kms, -EACCES), "root");
        CHECK_STR_CONTAINS(dmo_output_strerror(&dmo_output_kms, -ENODEV), "/dev/dri");
        CHECK(dmo_output_strerror(&dmo_output_text, -EIO) == NULL);
}

static void test_outputs_are_found_by_name(void)
{
        CHECK(dmo_output_find("kms") == &dmo_output_kms);
        CHECK(dmo_output_find("fbdev") == &dmo_output_fbdev);
        CHECK(dmo_output_find("text") == &dmo_output_text);
        CHECK(dmo_output_find("png") == &dmo_output_png);
        CHECK(dmo_output_find("vga") == NULL);
        CHECK(dmo_output_find(NULL) == NULL);
}

DMO_TEST_MAIN(T(test_kms_without_a_card_fails_with_enodev_after_the_timeout),
              T(test_kms_on_something_that_is_not_a_card_is_enodev),
              T(test_kms_rejects_malformed_arguments),
              T(test_fbdev_missing_and_wrong_device_are_told_apart),
              T(test_errors_have_sentences_for_people), T(test_outputs_are_found_by_name))
