/* The command line end to end: bad input gets exit status 2 and a message
 * that names the option and says what to give; behaviour changes of the
 * one number parser are pinned here. Runs the dormouse binary. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/testlib.h"

/* The program under test, through testlib. */
#define run(...) dmo_test_run_program(__VA_ARGS__)
#define output() dmo_test_program_output()

static void bad_numbers_name_the_option_and_the_range(void)
{
        CHECK_INT(run("hibernate --kernel sim --threads abc"), ==, 2);
        CHECK_STR_CONTAINS(output(), "dormouse: error: --threads: \"abc\" is not a whole number");
        CHECK_STR_CONTAINS(output(), "from 0 to 256");
        CHECK_INT(run("hibernate --kernel sim --threads 257"), ==, 2);
        CHECK_STR_CONTAINS(output(), "--threads: 257 is out of range");
        CHECK_INT(run("resume --kernel sim --resume-offset -5"), ==, 2);
        CHECK_STR_CONTAINS(output(), "--resume-offset");
        CHECK_INT(run("hibernate --kernel sim --sim-seed 99999999999999999999"), ==, 2);
        CHECK_STR_CONTAINS(output(), "--sim-seed");
        CHECK_INT(run("hibernate --kernel sim --debug-step-delay 10x"), ==, 2);
        CHECK_STR_CONTAINS(output(), "--debug-step-delay");
}

static void bad_sizes_say_how_to_write_one(void)
{
        CHECK_INT(run("hibernate --kernel sim --sim-size 0"), ==, 2);
        CHECK_STR_CONTAINS(output(), "--sim-size: 0 is too small; give a size from 8K to 64G");
        CHECK_INT(run("hibernate --kernel sim --sim-size 100T"), ==, 2);
        CHECK_STR_CONTAINS(output(), "--sim-size: 100T is too large; give a size from 8K to 64G");
        CHECK_INT(run("hibernate --kernel sim --sim-size 12Q"), ==, 2);
        CHECK_STR_CONTAINS(output(), "K, M, G or T");
        CHECK_INT(run("hibernate --kernel sim --image-size 9000000T"), ==, 2);
        CHECK_STR_CONTAINS(output(), "--image-size: 9000000T is too large");
}

/* Behaviour change: atoi() took "abc" as level 0. */
static void compress_level_must_be_a_number(void)
{
        CHECK_INT(run("hibernate --kernel sim --compress-level abc"), ==, 2);
        CHECK_STR_CONTAINS(output(), "--compress-level");
        CHECK_INT(run("hibernate --kernel sim --compress-level 23"), ==, 2);
        CHECK_STR_CONTAINS(output(), "from 0 to 22");
}

/* Behaviour change: strtoull() took "" as page 0. */
static void info_offset_must_be_a_number(void)
{
        CHECK_INT(run("info --resume-offset '' /dev/null"), ==, 2);
        CHECK_STR_CONTAINS(output(), "--resume-offset: \"\" is not a whole number");
}

/* Behaviour change: sscanf() ignored what followed WIDTHxHEIGHT. */
static void preview_size_is_exactly_width_x_height(void)
{
        CHECK_INT(run("preview --size 1920x1080junk --output x.png"), ==, 2);
        CHECK_STR_CONTAINS(output(), "--size: \"1920x1080junk\" is not WIDTHxHEIGHT");
        CHECK_INT(run("preview --size 1920 --output x.png"), ==, 2);
        CHECK_INT(run("preview --size 32x32 --output x.png"), ==, 2);
        CHECK_INT(run("preview --frames 100001 --output x"), ==, 2);
        CHECK_STR_CONTAINS(output(), "--frames");
        CHECK_INT(run("preview --progress 1.5 --output x.png"), ==, 2);
        CHECK_INT(run("preview --mode sleep --output x.png"), ==, 2);
        CHECK_INT(run("preview --dialog none --output x.png"), ==, 2);
}

static void unknown_names_are_usage_errors(void)
{
        CHECK_INT(run("frobnicate"), ==, 2);
        CHECK_STR_CONTAINS(output(), "dormouse: error: unknown command \"frobnicate\"");
        CHECK_INT(run("hibernate --kernel vm"), ==, 2);
        CHECK_STR_CONTAINS(output(), "use \"snapshot\"");
        CHECK_INT(run("hibernate --kernel sim --shutdown halt"), ==, 2);
        CHECK_STR_CONTAINS(output(), "--shutdown: \"halt\" is unknown");
        CHECK_INT(run("hibernate --kernel sim --compress brotli"), ==, 2);
        CHECK_STR_CONTAINS(output(), "--compress: \"brotli\" is unknown");
        CHECK_INT(run("hibernate --kernel sim --splash plymouth"), ==, 2);
        CHECK_STR_CONTAINS(output(), "--splash: \"plymouth\" is unknown");
        CHECK_INT(run("resume --kernel sim --splash kmsx"), ==, 2);
        CHECK_INT(run("theme --help"), ==, 0);
        CHECK_STR_CONTAINS(output(), "Usage: dormouse theme check");
        CHECK_INT(run("theme check --help"), ==, 0);
        /* a failure is said once, with the file and the reason */
        CHECK_INT(run("preview --theme nosuch --output /nonexistent/x.png"), ==, 6);
        CHECK_STR_CONTAINS(output(), "cannot open the theme");
        CHECK(!strstr(output(), "preview of theme"));
        CHECK_INT(run("%s", ""), ==, 2);
        CHECK_INT(run("--help"), ==, 0);
        CHECK_INT(run("hibernate --help"), ==, 0);
        CHECK_INT(run("resume --help"), ==, 0);
        CHECK_INT(run("info --help"), ==, 0);
}

/* A file that is not a swap area: hibernate and resume say the same
 * sentence and exit 2 (a configuration error). */
static void a_device_that_is_not_swap_is_the_same_error_for_both(void)
{
        char plain[1024];
        snprintf(plain, sizeof(plain), "%s/plain.img", dmo_test_tmpdir());
        FILE *f = fopen(plain, "w");
        REQUIRE(f);
        REQUIRE(ftruncate(fileno(f), 8 << 20) == 0);
        fclose(f);
        const char *want = "no swap signature; run mkswap on it";
        CHECK_INT(
            run("hibernate --kernel sim --sim-size 1M --splash none --resume-device '%s'", plain),
            ==, 2);
        CHECK_STR_CONTAINS(output(), want);
        CHECK(!strstr(output(), "No such device"));
        CHECK_INT(run("resume --kernel sim --splash none --resume-device '%s'", plain), ==, 2);
        CHECK_STR_CONTAINS(output(), want);
}

/* Behaviour change: config notes used to read like errors. */
static void config_notes_are_notes(void)
{
        char conf[1024];
        snprintf(conf, sizeof(conf), "%s/dormouse.conf", dmo_test_tmpdir());
        FILE *f = fopen(conf, "w");
        REQUIRE(f);
        fputs("frobnicate = 1\nsplash = plymouth\n", f);
        fclose(f);
        /* the run stops at the missing resume device, after reading the config */
        run("hibernate --kernel sim --config '%s' --cmdline /dev/null", conf);
        CHECK_STR_CONTAINS(output(), "dormouse: note: ");
        CHECK_STR_CONTAINS(output(), "unknown key \"frobnicate\"");
        /* a splash the program does not have: named with its file and line */
        CHECK_STR_CONTAINS(output(), "dormouse.conf:2: \"splash\": value \"plymouth\"");
        CHECK_STR_CONTAINS(output(), "dormouse: error: no resume device");
}

DMO_TEST_MAIN(T(bad_numbers_name_the_option_and_the_range), T(bad_sizes_say_how_to_write_one),
              T(compress_level_must_be_a_number), T(info_offset_must_be_a_number),
              T(preview_size_is_exactly_width_x_height), T(unknown_names_are_usage_errors),
              T(config_notes_are_notes), T(a_device_that_is_not_swap_is_the_same_error_for_both))
