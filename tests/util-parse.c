/* The one number parser: good input, and every kind of bad input. */
#include "util/parse.h"

#include <errno.h>

#include "tests/testlib.h"

static void u64_accepts_decimal_and_hex(void)
{
        uint64_t v = 7;
        CHECK_INT(dmo_parse_u64("0", &v), ==, 0);
        CHECK_INT(v, ==, 0);
        CHECK_INT(dmo_parse_u64("34816", &v), ==, 0);
        CHECK_INT(v, ==, 34816);
        CHECK_INT(dmo_parse_u64("0x1F", &v), ==, 0);
        CHECK_INT(v, ==, 31);
        CHECK_INT(dmo_parse_u64("18446744073709551615", &v), ==, 0);
        CHECK(v == UINT64_MAX);
}

static void u64_leading_zero_is_decimal_not_octal(void)
{
        uint64_t v;
        CHECK_INT(dmo_parse_u64("010", &v), ==, 0);
        CHECK_INT(v, ==, 10);
        CHECK_INT(dmo_parse_u64("09", &v), ==, 0);
        CHECK_INT(v, ==, 9);
}

static void u64_rejects_bad_input_and_keeps_the_value(void)
{
        uint64_t v = 42;
        CHECK_INT(dmo_parse_u64("", &v), ==, -EINVAL);
        CHECK_INT(dmo_parse_u64(NULL, &v), ==, -EINVAL);
        CHECK_INT(dmo_parse_u64("-1", &v), ==, -EINVAL);
        CHECK_INT(dmo_parse_u64("+1", &v), ==, -EINVAL);
        CHECK_INT(dmo_parse_u64(" 1", &v), ==, -EINVAL);
        CHECK_INT(dmo_parse_u64("1 ", &v), ==, -EINVAL);
        CHECK_INT(dmo_parse_u64("12abc", &v), ==, -EINVAL);
        CHECK_INT(dmo_parse_u64("0x", &v), ==, -EINVAL);
        CHECK_INT(dmo_parse_u64("0xg", &v), ==, -EINVAL);
        CHECK_INT(dmo_parse_u64("1.5", &v), ==, -EINVAL);
        CHECK_INT(v, ==, 42);
}

static void u64_overflow_is_erange(void)
{
        uint64_t v = 42;
        CHECK_INT(dmo_parse_u64("18446744073709551616", &v), ==, -ERANGE);
        CHECK_INT(dmo_parse_u64("99999999999999999999999999", &v), ==, -ERANGE);
        CHECK_INT(dmo_parse_u64("0x10000000000000000", &v), ==, -ERANGE);
        CHECK_INT(dmo_parse_u64("99999999999999999999999x", &v), ==, -EINVAL);
        CHECK_INT(v, ==, 42);
}

static void ranges_are_checked(void)
{
        uint64_t v = 0;
        unsigned u = 5;
        CHECK_INT(dmo_parse_u64_range("22", 0, 22, &v), ==, 0);
        CHECK_INT(v, ==, 22);
        CHECK_INT(dmo_parse_u64_range("23", 0, 22, &v), ==, -ERANGE);
        CHECK_INT(dmo_parse_u64_range("0", 1, 22, &v), ==, -ERANGE);
        CHECK_INT(dmo_parse_unsigned("256", 0, 256, &u), ==, 0);
        CHECK_INT(u, ==, 256);
        CHECK_INT(dmo_parse_unsigned("257", 0, 256, &u), ==, -ERANGE);
        CHECK_INT(dmo_parse_unsigned("4294967296", 0, UINT32_MAX, &u), ==, -ERANGE);
        CHECK_INT(dmo_parse_unsigned("x", 0, 256, &u), ==, -EINVAL);
        CHECK_INT(u, ==, 256);
}

static void sizes_take_suffixes(void)
{
        uint64_t b = 0;
        CHECK(dmo_parse_size("4096", &b) == 0 && b == 4096);
        CHECK(dmo_parse_size("256M", &b) == 0 && b == 256ull << 20);
        CHECK(dmo_parse_size("256m", &b) == 0 && b == 256ull << 20);
        CHECK(dmo_parse_size("1GiB", &b) == 0 && b == 1ull << 30);
        CHECK(dmo_parse_size("1GB", &b) == 0 && b == 1ull << 30);
        CHECK(dmo_parse_size("64 kB", &b) == 0 && b == 64ull << 10);
        CHECK(dmo_parse_size("2T", &b) == 0 && b == 2ull << 40);
        CHECK(dmo_parse_size("1.5k", &b) == 0 && b == 1536);
        CHECK(dmo_parse_size("0.5G", &b) == 0 && b == 512ull << 20);
        CHECK(dmo_parse_size("1.5", &b) == 0 && b == 1);
        CHECK(dmo_parse_size("18446744073709551615", &b) == 0 && b == UINT64_MAX);
        CHECK(dmo_parse_size("16777215.999999T", &b) == 0 && b > (16777215ull << 40));
}

static void sizes_reject_bad_input(void)
{
        uint64_t b = 42;
        CHECK_INT(dmo_parse_size("", &b), ==, -EINVAL);
        CHECK_INT(dmo_parse_size(NULL, &b), ==, -EINVAL);
        CHECK_INT(dmo_parse_size("-1", &b), ==, -EINVAL);
        CHECK_INT(dmo_parse_size("-1M", &b), ==, -EINVAL);
        CHECK_INT(dmo_parse_size("M", &b), ==, -EINVAL);
        CHECK_INT(dmo_parse_size("12Q", &b), ==, -EINVAL);
        CHECK_INT(dmo_parse_size("12MX", &b), ==, -EINVAL);
        CHECK_INT(dmo_parse_size("12MiBs", &b), ==, -EINVAL);
        CHECK_INT(dmo_parse_size("1.", &b), ==, -EINVAL);
        CHECK_INT(dmo_parse_size(".5M", &b), ==, -EINVAL);
        CHECK_INT(dmo_parse_size(" 1M", &b), ==, -EINVAL);
        CHECK_INT(b, ==, 42);
}

/* A behaviour change: the old parser went through strtod and took "1e3" and
 * "inf"-like spellings; a size is now digits and a suffix only. */
static void sizes_reject_exponents(void)
{
        uint64_t b = 42;
        CHECK_INT(dmo_parse_size("1e3", &b), ==, -EINVAL);
        CHECK_INT(dmo_parse_size("1e30T", &b), ==, -EINVAL);
        CHECK_INT(dmo_parse_size("0x10M", &b), ==, -EINVAL);
        CHECK_INT(b, ==, 42);
}

static void huge_sizes_are_erange(void)
{
        uint64_t b = 42;
        CHECK_INT(dmo_parse_size("16777216T", &b), ==, -ERANGE);
        CHECK_INT(dmo_parse_size("17179869184G", &b), ==, -ERANGE);
        CHECK_INT(dmo_parse_size("18446744073709551616", &b), ==, -ERANGE);
        CHECK_INT(dmo_parse_size("99999999999999999999999T", &b), ==, -ERANGE);
        CHECK_INT(dmo_parse_size("99999999999999999999999Q", &b), ==, -EINVAL);
        CHECK_INT(b, ==, 42);
}

static void fractions_are_checked(void)
{
        double d = 7;
        CHECK_INT(dmo_parse_double("0.42", 0, 1, &d), ==, 0);
        CHECK(d > 0.419 && d < 0.421);
        CHECK_INT(dmo_parse_double("1", 0, 1, &d), ==, 0);
        CHECK_INT(dmo_parse_double(".5", 0, 1, &d), ==, 0);
        CHECK_INT(dmo_parse_double("1.01", 0, 1, &d), ==, -ERANGE);
        CHECK_INT(dmo_parse_double("-0.5", 0, 1, &d), ==, -EINVAL);
        CHECK_INT(dmo_parse_double("nan", 0, 1, &d), ==, -EINVAL);
        CHECK_INT(dmo_parse_double("", 0, 1, &d), ==, -EINVAL);
        CHECK_INT(dmo_parse_double("0.5x", 0, 1, &d), ==, -EINVAL);
        CHECK_INT(dmo_parse_double("1e999", 0, 1e308, &d), ==, -ERANGE);
        CHECK(d == 1.0 / 2);
}

DMO_TEST_MAIN(T(u64_accepts_decimal_and_hex), T(u64_leading_zero_is_decimal_not_octal),
              T(u64_rejects_bad_input_and_keeps_the_value), T(u64_overflow_is_erange),
              T(ranges_are_checked), T(sizes_take_suffixes), T(sizes_reject_bad_input),
              T(sizes_reject_exponents), T(huge_sizes_are_erange), T(fractions_are_checked))
