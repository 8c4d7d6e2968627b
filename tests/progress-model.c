#include "progress/progress.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "tests/testlib.h"

static void fraction_grows_through_the_hibernate_phases(void)
{
        struct dmo_progress *p;
        struct dmo_progress_snapshot s;
        REQUIRE(dmo_progress_new(DMO_MODE_HIBERNATE, &p) == 0);
        double last = -1;
        enum dmo_phase phases[] = {DMO_PHASE_PREPARE, DMO_PHASE_FREEZE, DMO_PHASE_SNAPSHOT,
                                   DMO_PHASE_WRITE};
        for (unsigned i = 0; i < 4; i++) {
                dmo_progress_set_phase(p, phases[i]);
                dmo_progress_sample(p, &s);
                CHECK(s.fraction >= last);
                last = s.fraction;
        }
        dmo_progress_set_total(p, 1000);
        for (int i = 0; i < 10; i++) {
                dmo_progress_add_pages(p, 100);
                dmo_progress_sample(p, &s);
                CHECK(s.fraction > last);
                last = s.fraction;
        }
        CHECK_INT(s.pages_done, ==, 1000);
        CHECK(s.phase_fraction == 1.0);
        dmo_progress_set_phase(p, DMO_PHASE_SYNC);
        dmo_progress_sample(p, &s);
        CHECK(s.fraction >= last && s.fraction < 1.0);
        dmo_progress_set_phase(p, DMO_PHASE_POWEROFF);
        dmo_progress_sample(p, &s);
        CHECK(s.fraction == 1.0);
        dmo_progress_free(p);
}

static void fraction_never_goes_backwards_after_failure(void)
{
        struct dmo_progress *p;
        struct dmo_progress_snapshot s;
        REQUIRE(dmo_progress_new(DMO_MODE_RESUME, &p) == 0);
        dmo_progress_set_phase(p, DMO_PHASE_READ);
        dmo_progress_set_total(p, 10);
        dmo_progress_add_pages(p, 5);
        dmo_progress_sample(p, &s);
        double shown = s.fraction;
        CHECK(shown > 0.3 && shown < 0.7);
        dmo_progress_set_phase(p, DMO_PHASE_FAILED);
        dmo_progress_sample(p, &s);
        CHECK(s.fraction == shown);
        CHECK_INT(s.phase, ==, DMO_PHASE_FAILED);
        dmo_progress_free(p);
}

/* The initramfs's last frame is the restore's; the restored system's first
 * is a finished bar. Both say 100 %: no jump at the hand-over. */
static void the_resume_bar_is_full_when_the_restore_starts(void)
{
        struct dmo_progress *p;
        struct dmo_progress_snapshot s;
        REQUIRE(dmo_progress_new(DMO_MODE_RESUME, &p) == 0);
        dmo_progress_set_phase(p, DMO_PHASE_READ);
        dmo_progress_set_total(p, 10);
        dmo_progress_add_pages(p, 9);
        dmo_progress_sample(p, &s);
        CHECK(s.fraction < 1.0);
        dmo_progress_add_pages(p, 1);
        dmo_progress_sample(p, &s);
        CHECK(s.fraction == 1.0);
        dmo_progress_set_phase(p, DMO_PHASE_RESTORE);
        dmo_progress_sample(p, &s);
        CHECK(s.fraction == 1.0);
        dmo_progress_set_phase(p, DMO_PHASE_DONE);
        dmo_progress_sample(p, &s);
        CHECK(s.fraction == 1.0);
        dmo_progress_free(p);
}

static void abort_is_refused_once_not_abortable(void)
{
        struct dmo_progress *p;
        REQUIRE(dmo_progress_new(DMO_MODE_HIBERNATE, &p) == 0);
        CHECK(!dmo_progress_abort_requested(p));
        dmo_progress_set_abortable(p, false);
        CHECK(!dmo_progress_request_abort(p));
        CHECK(!dmo_progress_abort_requested(p));
        dmo_progress_set_abortable(p, true);
        CHECK(dmo_progress_request_abort(p));
        CHECK(dmo_progress_abort_requested(p));
        dmo_progress_free(p);
}

static void throughput_and_time_left_come_from_the_page_rate(void)
{
        struct dmo_progress *p;
        struct dmo_progress_snapshot s;
        REQUIRE(dmo_progress_new(DMO_MODE_HIBERNATE, &p) == 0);
        dmo_progress_set_phase(p, DMO_PHASE_WRITE);
        dmo_progress_set_total(p, 100000);
        dmo_progress_sample(p, &s);
        CHECK(s.eta_s < 0); /* unknown before any rate */
        /* A figure once the pages have flowed for a while (rate.h: 300 ms
         * over three gaps; a loaded machine may stretch a gap into a stall
         * and make it wait for more). */
        struct dmo_test_deadline d = dmo_test_deadline_in(30000);
        do {
                usleep(100 * 1000);
                dmo_progress_add_pages(p, 2500); /* ~100 MB/s at 4 KiB pages */
                dmo_progress_sample(p, &s);
        } while (s.eta_s < 0 && !dmo_test_deadline_passed(d));
        CHECK(s.mb_per_s > 0 && s.mb_per_s < 100000); /* known, finite; no speed test */
        CHECK(s.eta_s > 0);
        dmo_progress_free(p);
}

/* A resume's first time left, with the pages flowing at about 25000 a
 * second and, with each 2500 pages, 1 MB read from a disk that took
 * device_ns for it, of an image whose stream is 10 GB on disk; < 0 when no
 * figure came before the deadline. */
static double first_resume_eta(uint64_t device_ns)
{
        struct dmo_progress *p;
        struct dmo_progress_snapshot s;
        if (dmo_progress_new(DMO_MODE_RESUME, &p) < 0)
                return -1;
        dmo_progress_set_total(p, 100000);
        dmo_progress_set_bytes_total(p, 10000000000ull);
        dmo_progress_set_phase(p, DMO_PHASE_READ);
        struct dmo_test_deadline d = dmo_test_deadline_in(30000);
        do {
                usleep(100 * 1000);
                dmo_progress_add_bytes(p, 1000000, device_ns);
                dmo_progress_add_pages(p, 2500);
                dmo_progress_sample(p, &s);
        } while (s.eta_s < 0 && !dmo_test_deadline_passed(d));
        dmo_progress_free(p);
        return s.eta_s;
}

/* At resume the bytes left on the disk count at the rate the disk moves
 * them while it works (rate.h, dmo_rate_time_left): a disk that took a
 * second for each MB (1 MB/s) says about 10000 s, where the pages alone
 * would say 4; one that took a millisecond (1 GB/s) says about 10 s, where
 * the bytes seen per second (about 10 MB/s) would say 1000. */
static void time_left_at_resume_follows_the_disk_where_it_is_the_bottleneck(void)
{
        double slow = first_resume_eta(1000000000ull), fast = first_resume_eta(1000000ull);
        printf("# first time left: %.0f s with a 1 MB/s disk, %.1f s with a 1 GB/s one\n", slow,
               fast);
        CHECK(slow > 5000);
        CHECK(fast > 0 && fast < 500);
}

static void message_is_copied_into_the_snapshot(void)
{
        struct dmo_progress *p;
        struct dmo_progress_snapshot s;
        REQUIRE(dmo_progress_new(DMO_MODE_HIBERNATE, &p) == 0);
        dmo_progress_set_message(p, "disk /dev/vda");
        dmo_progress_sample(p, &s);
        CHECK(strcmp(s.message, "disk /dev/vda") == 0);
        CHECK(strcmp(dmo_phase_id(DMO_PHASE_WRITE), "write") == 0);
        CHECK(dmo_phase_label(DMO_PHASE_WRITE)[0] != '\0');
        dmo_progress_free(p);
}

/* A hybrid sleep suspends to RAM once the image is written: its last
 * phase must not say "Powering off" (it did, on the splash and in the
 * journal), and a reboot says so too. */
static void the_last_phase_is_named_after_how_the_machine_goes_down(void)
{
        struct dmo_progress *p;
        struct dmo_progress_snapshot s;
        REQUIRE(dmo_progress_new(DMO_MODE_HIBERNATE, &p) == 0);
        dmo_progress_set_phase(p, DMO_PHASE_POWEROFF);
        dmo_progress_sample(p, &s);
        CHECK(s.going_down == DMO_GOING_DOWN_POWEROFF);
        CHECK(strcmp(dmo_progress_phase_label(s.phase, s.going_down), "Powering off") == 0);
        dmo_progress_set_going_down(p, DMO_GOING_DOWN_SUSPEND);
        dmo_progress_sample(p, &s);
        CHECK(strcmp(dmo_progress_phase_label(s.phase, s.going_down), "Suspending") == 0);
        dmo_progress_set_going_down(p, DMO_GOING_DOWN_REBOOT);
        dmo_progress_sample(p, &s);
        CHECK(strcmp(dmo_progress_phase_label(s.phase, s.going_down), "Restarting") == 0);
        /* every other phase keeps its own name */
        CHECK(strcmp(dmo_progress_phase_label(DMO_PHASE_WRITE, DMO_GOING_DOWN_SUSPEND),
                     dmo_phase_label(DMO_PHASE_WRITE)) == 0);
        dmo_progress_free(p);
}

struct adder {
        struct dmo_progress *p;
        int n;
};

static void *add_many(void *arg)
{
        struct adder *a = arg;
        for (int i = 0; i < a->n; i++)
                dmo_progress_add_pages(a->p, 1);
        return NULL;
}

static void page_events_from_many_threads_are_all_counted(void)
{
        struct dmo_progress *p;
        struct dmo_progress_snapshot s;
        REQUIRE(dmo_progress_new(DMO_MODE_HIBERNATE, &p) == 0);
        pthread_t t[4];
        struct adder a = {p, 200000};
        for (int i = 0; i < 4; i++)
                pthread_create(&t[i], NULL, add_many, &a);
        for (int i = 0; i < 4; i++)
                pthread_join(t[i], NULL);
        dmo_progress_sample(p, &s);
        CHECK_INT(s.pages_done, ==, 800000);
        dmo_progress_free(p);
}

static void page_events_from_more_threads_than_lanes_are_all_counted(void)
{
        struct dmo_progress *p;
        struct dmo_progress_snapshot s;
        REQUIRE(dmo_progress_new(DMO_MODE_HIBERNATE, &p) == 0);
        enum { THREADS = 24 }; /* more than the model's per-thread lanes */
        pthread_t t[THREADS];
        struct adder a = {p, 20000};
        for (int i = 0; i < THREADS; i++)
                pthread_create(&t[i], NULL, add_many, &a);
        for (int i = 0; i < THREADS; i++)
                pthread_join(t[i], NULL);
        dmo_progress_add_bytes(p, 7, 0);
        dmo_progress_sample(p, &s);
        CHECK_INT(s.pages_done, ==, THREADS * 20000);
        CHECK_INT(s.bytes_out, ==, 7);
        dmo_progress_free(p);
}

static void a_new_model_counts_from_zero_on_the_same_thread(void)
{
        /* The thread's cached lane belongs to the old model; the new one,
         * possibly at the same address, must not inherit it or its counts. */
        for (int round = 0; round < 3; round++) {
                struct dmo_progress *p;
                struct dmo_progress_snapshot s;
                REQUIRE(dmo_progress_new(DMO_MODE_RESUME, &p) == 0);
                dmo_progress_add_pages(p, 5);
                dmo_progress_add_bytes(p, 9, 0);
                dmo_progress_sample(p, &s);
                CHECK_INT(s.pages_done, ==, 5);
                CHECK_INT(s.bytes_out, ==, 9);
                dmo_progress_free(p);
        }
}

DMO_TEST_MAIN(T(fraction_grows_through_the_hibernate_phases),
              T(fraction_never_goes_backwards_after_failure),
              T(the_resume_bar_is_full_when_the_restore_starts),
              T(abort_is_refused_once_not_abortable),
              T(throughput_and_time_left_come_from_the_page_rate),
              T(time_left_at_resume_follows_the_disk_where_it_is_the_bottleneck),
              T(message_is_copied_into_the_snapshot),
              T(the_last_phase_is_named_after_how_the_machine_goes_down),
              T(page_events_from_many_threads_are_all_counted),
              T(page_events_from_more_threads_than_lanes_are_all_counted),
              T(a_new_model_counts_from_zero_on_the_same_thread))
