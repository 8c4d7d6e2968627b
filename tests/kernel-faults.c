/* Fault plans: every documented item parses, hostile specs are refused,
 * checkpoint names round-trip. */
#include "tests/testlib.h"

#include <errno.h>

#include "kernel/faults.h"

static void test_valid_specs_set_exactly_what_they_name(void)
{
        struct dmo_fault_plan *p = NULL;
        uint64_t n = 0;
        REQUIRE(dmo_fault_plan_parse("enospc@100,eio-write@3,eio-read@7,short-write,short-read,"
                                     "crash@data-half-written,crash@signature-written",
                                     &p) == 0);
        CHECK(dmo_fault_enospc_after(p, &n) && n == 100);
        CHECK(dmo_fault_eio_write_at(p, &n) && n == 3);
        CHECK(dmo_fault_eio_read_at(p, &n) && n == 7);
        CHECK(dmo_fault_short_write(p));
        CHECK(dmo_fault_short_read(p));
        CHECK(dmo_fault_crash_at(p, DMO_CP_DATA_HALF_WRITTEN));
        CHECK(dmo_fault_crash_at(p, DMO_CP_SIGNATURE_WRITTEN));
        CHECK(!dmo_fault_crash_at(p, DMO_CP_OPENED));
        CHECK(!dmo_fault_crash_at(p, DMO_CP_COUNT));
        dmo_fault_plan_free(p);

        REQUIRE(dmo_fault_plan_parse("shrink@14336", &p) == 0);
        CHECK(dmo_fault_shrink_to(p, &n) && n == 14336);
        CHECK(!dmo_fault_short_write(p));
        dmo_fault_plan_free(p);
        REQUIRE(dmo_fault_plan_parse("short-write", &p) == 0);
        CHECK(!dmo_fault_shrink_to(p, &n));
        dmo_fault_plan_free(p);

        REQUIRE(dmo_fault_plan_parse("enospc@0", &p) == 0);
        CHECK(dmo_fault_enospc_after(p, &n) && n == 0);
        CHECK(!dmo_fault_eio_write_at(p, &n));
        CHECK(!dmo_fault_short_write(p));
        dmo_fault_plan_free(p);

        REQUIRE(dmo_fault_plan_parse("", &p) == 0);
        CHECK(!dmo_fault_enospc_after(p, &n));
        dmo_fault_plan_free(p);
}

static void test_null_plan_means_no_faults(void)
{
        uint64_t n;
        CHECK(!dmo_fault_enospc_after(NULL, &n));
        CHECK(!dmo_fault_eio_read_at(NULL, &n));
        CHECK(!dmo_fault_short_read(NULL));
        CHECK(!dmo_fault_crash_at(NULL, DMO_CP_FROZEN));
}

static void test_hostile_specs_are_einval(void)
{
        static const char *const bad[] = {
            ",",
            "enospc",
            "enospc@",
            "enospc@-1",
            "enospc@+1",
            "enospc@0x10",
            "enospc@1 ",
            " enospc@1",
            "enospc@18446744073709551616",
            "eio-write@0",
            "eio-read@0",
            "eio-write@1,eio-write@2",
            "short-write@3",
            "shrink",
            "shrink@",
            "shrink@1,shrink@2",
            "crash@",
            "crash@nowhere",
            "crash@OPENED",
            "short-write,",
            ",short-write",
            "short-write,,short-read",
            "boom",
            "eio-write@1@2",
            "enospc@1\n",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct dmo_fault_plan *p = (struct dmo_fault_plan *)1;
                int r = dmo_fault_plan_parse(bad[i], &p);
                if (r != -EINVAL)
                        printf("# accepted hostile spec \"%s\" (%d)\n", bad[i], r);
                CHECK_INT(r, ==, -EINVAL);
                CHECK(p == (struct dmo_fault_plan *)1);
        }
        /* Every item valid, only the length is too much. */
        static char longspec[DMO_FAULT_SPEC_MAX * 2];
        size_t used = 0;
        while (used < DMO_FAULT_SPEC_MAX + 1) {
                memcpy(longspec + used, "short-write,", 12);
                used += 12;
        }
        memcpy(longspec + used, "short-read", 11);
        struct dmo_fault_plan *p = NULL;
        CHECK_INT(dmo_fault_plan_parse(longspec, &p), ==, -EINVAL);
        CHECK_INT(dmo_fault_plan_parse(NULL, &p), ==, -EINVAL);
}

static void test_checkpoint_names_round_trip(void)
{
        for (int i = 0; i < DMO_CP_COUNT; i++) {
                const char *name = dmo_checkpoint_name((enum dmo_checkpoint)i);
                REQUIRE(name != NULL);
                enum dmo_checkpoint cp;
                CHECK_INT(dmo_checkpoint_parse(name, &cp), ==, 0);
                CHECK_INT(cp, ==, i);
        }
        CHECK(strcmp(dmo_checkpoint_name(DMO_CP_RESUME_LOADED), "resume-loaded") == 0);
        CHECK(dmo_checkpoint_name(DMO_CP_COUNT) == NULL);
        CHECK(dmo_checkpoint_name((enum dmo_checkpoint) - 1) == NULL);
        enum dmo_checkpoint cp;
        CHECK_INT(dmo_checkpoint_parse("resume_loaded", &cp), ==, -EINVAL);
        CHECK_INT(dmo_checkpoint_parse("", &cp), ==, -EINVAL);
        CHECK_INT(dmo_checkpoint_parse(NULL, &cp), ==, -EINVAL);
}

DMO_TEST_MAIN(T(test_valid_specs_set_exactly_what_they_name), T(test_null_plan_means_no_faults),
              T(test_hostile_specs_are_einval), T(test_checkpoint_names_round_trip))
