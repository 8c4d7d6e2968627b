/* The string-table helper: both directions, holes, bounds, case. */
#include "util/strtable.h"

#include <errno.h>

#include "tests/testlib.h"

enum colour { RED, GREEN, HOLE, BLUE, COLOUR_COUNT };

static const char *const colour_table[COLOUR_COUNT] = {
    [RED] = "red",
    [GREEN] = "green",
    [BLUE] = "blue",
};

DMO_DEFINE_STRING_TABLE_LOOKUP(static, colour, enum colour)
DMO_STRING_TABLE_TO_STRING(static, colour_name, enum colour, colour_table, "?")
DMO_STRING_TABLE_FROM_STRING_FULL(static, colour_parse_icase, enum colour, colour_table, true)

static void names_map_to_values_and_back(void)
{
        for (int i = 0; i < COLOUR_COUNT; i++) {
                const char *s = colour_to_string((enum colour)i);
                enum colour c = HOLE;
                if (i == HOLE) {
                        CHECK(s == NULL);
                        continue;
                }
                REQUIRE(s != NULL);
                CHECK_INT(colour_from_string(s, &c), ==, 0);
                CHECK_INT(c, ==, i);
        }
        CHECK(strcmp(colour_to_string(BLUE), "blue") == 0);
}

static void out_of_range_values_have_no_name(void)
{
        CHECK(colour_to_string(COLOUR_COUNT) == NULL);
        CHECK(colour_to_string((enum colour) - 1) == NULL);
        CHECK(colour_to_string((enum colour)1000000) == NULL);
        CHECK(strcmp(colour_name((enum colour) - 1), "?") == 0);
        CHECK(strcmp(colour_name(HOLE), "?") == 0);
        CHECK(strcmp(colour_name(GREEN), "green") == 0);
}

static void unknown_names_are_einval_and_leave_the_value(void)
{
        enum colour c = GREEN;
        CHECK_INT(colour_from_string("purple", &c), ==, -EINVAL);
        CHECK_INT(colour_from_string("", &c), ==, -EINVAL);
        CHECK_INT(colour_from_string(NULL, &c), ==, -EINVAL);
        CHECK_INT(colour_from_string("Red", &c), ==, -EINVAL);
        CHECK_INT(colour_from_string("re", &c), ==, -EINVAL);
        CHECK_INT(c, ==, GREEN);
}

static void case_insensitive_lookup(void)
{
        enum colour c = GREEN;
        CHECK_INT(colour_parse_icase("BLUE", &c), ==, 0);
        CHECK_INT(c, ==, BLUE);
        CHECK_INT(colour_parse_icase("bLuEs", &c), ==, -EINVAL);
}

static void plain_lists_are_searched_too(void)
{
        static const char *const words[] = {"y", "yes", NULL, "on"};
        CHECK_INT(dmo_strtable_find(words, DMO_STRTABLE_SIZE(words), "on", false), ==, 3);
        CHECK_INT(dmo_strtable_find(words, DMO_STRTABLE_SIZE(words), "YES", true), ==, 1);
        CHECK_INT(dmo_strtable_find(words, DMO_STRTABLE_SIZE(words), "no", true), ==, -EINVAL);
        CHECK(dmo_strtable_get(words, DMO_STRTABLE_SIZE(words), 2) == NULL);
        CHECK(dmo_strtable_get(words, DMO_STRTABLE_SIZE(words), 4) == NULL);
}

DMO_TEST_MAIN(T(names_map_to_values_and_back), T(out_of_range_values_have_no_name),
              T(unknown_names_are_einval_and_leave_the_value), T(case_insensitive_lookup),
              T(plain_lists_are_searched_too))
