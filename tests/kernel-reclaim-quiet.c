/* vm.watermark_boost_factor and vm.compaction_proactiveness at 0 while an
 * image loads (and vm.watermark_scale_factor rewritten with its own value,
 * which clears earlier boosts), and the boot kernel's own values back where
 * no jump comes; a knob the kernel lacks, one already 0 and one that cannot
 * be written are left alone. */
#include "tests/testlib.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel/reclaim_quiet.h"

#define CHECK_TEXT(got, want)                                                                      \
        do {                                                                                       \
                const char *g_ = (got), *w_ = (want);                                              \
                if (strcmp(g_, w_) != 0) {                                                         \
                        dmo_test_state_.current_failed = true;                                     \
                        printf("# %s:%d: \"%s\" is not \"%s\"\n", __FILE__, __LINE__, g_, w_);     \
                }                                                                                  \
        } while (0)

/* A directory standing in for /proc/sys/vm, one per case. */
static const char *vm_dir(const char *name)
{
        static char path[512];
        snprintf(path, sizeof(path), "%s/%s", dmo_test_tmpdir(), name);
        mkdir(path, 0755);
        return path;
}

static void put(const char *dir, const char *knob, const char *text)
{
        char path[600];
        snprintf(path, sizeof(path), "%s/%s", dir, knob);
        FILE *f = fopen(path, "w");
        if (f) {
                fputs(text, f);
                fclose(f);
        }
}

static const char *get(const char *dir, const char *knob)
{
        static char buf[2][64];
        static int turn;
        char path[600];
        snprintf(path, sizeof(path), "%s/%s", dir, knob);
        turn ^= 1;
        return dmo_test_read_file(path, buf[turn], sizeof(buf[turn]));
}

static void test_both_go_to_zero_and_come_back(void)
{
        const char *d = vm_dir("both");
        put(d, "watermark_boost_factor", "15000\n");
        put(d, "compaction_proactiveness", "20\n");
        put(d, "watermark_scale_factor", "10\n");
        struct dmo_reclaim_quiet q;
        CHECK_INT(dmo_reclaim_quiet_begin(&q, d), ==, 2);
        CHECK_TEXT(get(d, "watermark_boost_factor"), "0");
        CHECK_TEXT(get(d, "compaction_proactiveness"), "0");
        /* Written with its own value (the kernel then clears the boosts). */
        CHECK_TEXT(get(d, "watermark_scale_factor"), "10");
        dmo_reclaim_quiet_end(&q);
        CHECK_TEXT(get(d, "watermark_scale_factor"), "10");
        CHECK_TEXT(get(d, "watermark_boost_factor"), "15000");
        CHECK_TEXT(get(d, "compaction_proactiveness"), "20");
        /* Twice is once. */
        put(d, "compaction_proactiveness", "7\n");
        dmo_reclaim_quiet_end(&q);
        CHECK_TEXT(get(d, "compaction_proactiveness"), "7\n");
}

/* A kernel before 5.9 has no compaction_proactiveness. */
static void test_a_missing_knob_is_skipped(void)
{
        const char *d = vm_dir("old-kernel");
        put(d, "watermark_boost_factor", "15000\n");
        struct dmo_reclaim_quiet q;
        CHECK_INT(dmo_reclaim_quiet_begin(&q, d), ==, 1);
        CHECK_TEXT(get(d, "watermark_boost_factor"), "0");
        dmo_reclaim_quiet_end(&q);
        CHECK_TEXT(get(d, "watermark_boost_factor"), "15000");
        CHECK_TEXT(get(d, "compaction_proactiveness"), "");
}

/* Already 0: nothing is written, then or after. */
static void test_a_knob_at_zero_is_not_touched(void)
{
        const char *d = vm_dir("zero");
        put(d, "watermark_boost_factor", "0\n");
        put(d, "compaction_proactiveness", "20\n");
        struct dmo_reclaim_quiet q;
        CHECK_INT(dmo_reclaim_quiet_begin(&q, d), ==, 1);
        CHECK_TEXT(get(d, "watermark_boost_factor"), "0\n");
        dmo_reclaim_quiet_end(&q);
        CHECK_TEXT(get(d, "watermark_boost_factor"), "0\n");
        CHECK_TEXT(get(d, "compaction_proactiveness"), "20");
}

/* One that cannot be written (here a directory: root writes any file) is
 * left as it is and counts for nothing; the other still changes. */
static void test_an_unwritable_knob_is_left_alone(void)
{
        const char *d = vm_dir("readonly");
        char sub[600];
        snprintf(sub, sizeof(sub), "%s/watermark_boost_factor", d);
        mkdir(sub, 0755);
        put(d, "compaction_proactiveness", "20\n");
        struct dmo_reclaim_quiet q;
        CHECK_INT(dmo_reclaim_quiet_begin(&q, d), ==, 1);
        CHECK_TEXT(get(d, "compaction_proactiveness"), "0");
        dmo_reclaim_quiet_end(&q);
        CHECK_TEXT(get(d, "compaction_proactiveness"), "20");
}

/* No such directory (no /proc mounted): nothing, and no failure. */
static void test_no_directory_changes_nothing(void)
{
        char d[600];
        snprintf(d, sizeof(d), "%s/none", dmo_test_tmpdir());
        struct dmo_reclaim_quiet q;
        CHECK_INT(dmo_reclaim_quiet_begin(&q, d), ==, 0);
        dmo_reclaim_quiet_end(&q);
}

DMO_TEST_MAIN(T(test_both_go_to_zero_and_come_back), T(test_a_missing_knob_is_skipped),
              T(test_a_knob_at_zero_is_not_touched), T(test_an_unwritable_knob_is_left_alone),
              T(test_no_directory_changes_nothing))
