/* The abort window under contention: one thread presses Esc while the engine
 * closes the window, thousands of times with shifting timing. Every accepted
 * request must be seen by the close, and no request made after the close may
 * be accepted. With a load-then-store request_abort, an Esc accepted just as
 * the window closed was lost (the engine went on to write the signature). */
#include "progress/progress.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "tests/testlib.h"

enum { ROUNDS = 20000 };

struct race {
        _Atomic(struct dmo_progress *) p;
        atomic_uint go;    /* round the requester may start */
        atomic_uint ready; /* round the requester is about to press in */
        atomic_uint done;  /* round the requester finished */
        atomic_bool closed;
        atomic_uint delay; /* the requester's head start, steered to the close */
        bool accepted[ROUNDS + 1];
        bool closed_before[ROUNDS + 1];
};

static void spin(unsigned n)
{
        for (volatile unsigned i = 0; i < n; i++)
                ;
}

/* Busy for a while (both threads on their own core meet in a window of
 * nanoseconds), yielding now and then so a shared machine still progresses. */
static void wait_for(atomic_uint *v, unsigned want)
{
        for (unsigned i = 1; atomic_load(v) != want; i++)
                if (i % 4096 == 0)
                        sched_yield();
}

static void *press_esc(void *arg)
{
        struct race *r = arg;
        unsigned seed = 7;
        for (unsigned round = 1; round <= ROUNDS; round++) {
                wait_for(&r->go, round);
                struct dmo_progress *p = atomic_load(&r->p);
                atomic_store(&r->ready, round);
                spin(atomic_load(&r->delay) + (unsigned)rand_r(&seed) % 64);
                r->closed_before[round] = atomic_load(&r->closed);
                r->accepted[round] = dmo_progress_request_abort(p);
                atomic_store(&r->done, round);
        }
        return NULL;
}

static void an_abort_racing_the_close_is_taken_and_seen_or_refused(void)
{
        struct race *r = calloc(1, sizeof(*r));
        REQUIRE(r);
        pthread_t t;
        REQUIRE(pthread_create(&t, NULL, press_esc, r) == 0);
        unsigned seed = 11, taken = 0, refused = 0, lost = 0, late = 0, mismatch = 0;
        for (unsigned round = 1; round <= ROUNDS; round++) {
                struct dmo_progress *p;
                REQUIRE(dmo_progress_new(DMO_MODE_HIBERNATE, &p) == 0);
                atomic_store(&r->closed, false);
                atomic_store(&r->p, p);
                atomic_store(&r->go, round);
                wait_for(&r->ready, round);
                spin((unsigned)rand_r(&seed) % 256);
                bool seen = dmo_progress_close_abort_window(p);
                atomic_store(&r->closed, true);
                /* Once closed, nobody gets in. */
                if (dmo_progress_request_abort(p))
                        late++;
                wait_for(&r->done, round);
                bool accepted = r->accepted[round];
                if (accepted && !seen)
                        lost++;
                if (accepted && r->closed_before[round])
                        late++;
                if (seen != dmo_progress_abort_requested(p) || seen != accepted)
                        mismatch++;
                struct dmo_progress_snapshot s;
                dmo_progress_sample(p, &s);
                if (s.abortable || s.abort_requested != accepted)
                        mismatch++;
                accepted ? taken++ : refused++;
                /* Steer the press toward the instant of the close, whatever
                 * the machine's speed: later after a taken abort, earlier
                 * after a refused one. */
                unsigned d = atomic_load(&r->delay);
                atomic_store(&r->delay, accepted ? (d < 4096 ? d + 4 : d) : (d > 4 ? d - 4 : 0));
                dmo_progress_free(p);
        }
        pthread_join(t, NULL);
        printf("# %u rounds: %u aborts taken, %u refused (press delay %u)\n", ROUNDS, taken,
               refused, atomic_load(&r->delay));
        CHECK_INT(lost, ==, 0);
        CHECK_INT(late, ==, 0);
        CHECK_INT(mismatch, ==, 0);
        free(r);
}

static void the_engine_sequence_close_then_look_sees_every_accepted_abort(void)
{
        /* The older two-call sequence stays correct on the single state word. */
        struct dmo_progress *p;
        REQUIRE(dmo_progress_new(DMO_MODE_HIBERNATE, &p) == 0);
        CHECK(dmo_progress_request_abort(p));
        CHECK(dmo_progress_request_abort(p)); /* a second Esc is still "taken" */
        dmo_progress_set_abortable(p, false);
        CHECK(dmo_progress_abort_requested(p));
        CHECK(!dmo_progress_request_abort(p));
        CHECK(dmo_progress_close_abort_window(p));
        dmo_progress_free(p);

        REQUIRE(dmo_progress_new(DMO_MODE_HIBERNATE, &p) == 0);
        CHECK(!dmo_progress_close_abort_window(p));
        CHECK(!dmo_progress_request_abort(p));
        CHECK(!dmo_progress_abort_requested(p));
        dmo_progress_set_abortable(p, true); /* a new attempt reopens it */
        CHECK(dmo_progress_request_abort(p));
        CHECK(dmo_progress_close_abort_window(p));
        dmo_progress_free(p);
}

DMO_TEST_MAIN(T(an_abort_racing_the_close_is_taken_and_seen_or_refused),
              T(the_engine_sequence_close_then_look_sees_every_accepted_abort))
