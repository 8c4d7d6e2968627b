#include "progress/progress.h"
#include "progress/rate.h"

#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/i18n.h"
#include "util/strtable.h"

/* Weights of the phases of each mode, in percent of the whole bar. The data
 * phases dominate because they are where the time goes; the others still
 * move the bar so it is never frozen at 0 while the kernel freezes tasks. */
static const unsigned hibernate_weights[DMO_PHASE_COUNT] = {
    [DMO_PHASE_PREPARE] = 2, [DMO_PHASE_FREEZE] = 3, [DMO_PHASE_SNAPSHOT] = 10,
    [DMO_PHASE_WRITE] = 80,  [DMO_PHASE_SYNC] = 5,
};
/* The restore is the jump into the saved system: the last frame the
 * initramfs shows stays up until the restored system draws its own, which
 * is a finished bar. Weighing the restore would end the first at 95 % and
 * start the second at 100 %. */
static const unsigned resume_weights[DMO_PHASE_COUNT] = {
    [DMO_PHASE_WAIT] = 2,
    [DMO_PHASE_CHECK] = 3,
    [DMO_PHASE_READ] = 95,
};

/* The abort request and the abort window share one atomic word: a request is
 * taken (compare-and-swap) only while the window is open, and closing the
 * window returns what was requested before it closed, so an Esc racing the
 * close is either taken and seen by the engine or refused, never lost. */
enum {
        ABORT_OPEN = 1u,      /* the run may still be aborted */
        ABORT_REQUESTED = 2u, /* someone asked for it while it was open */
};

/* Per-page events go to a lane of the reporting thread's own: a cache line
 * that only that thread writes (a plain load and store, no locked
 * instruction, no line bouncing between cores), folded by the reader. A
 * thread takes a lane on its first event; threads beyond the lanes share one
 * atomic counter. */
enum { LANES = 16 };

struct lane {
        /* The thread writing this lane (its lane_cache's address), 0 while free. */
        _Alignas(64) atomic_uintptr_t owner;
        atomic_uint_fast64_t pages;
        atomic_uint_fast64_t bytes;
        atomic_uint_fast64_t device_ns;
};

/* Each thread remembers its lane in the model it last reported to. The
 * owner check in the lane catches a model freed and another allocated at the
 * same address: its lanes start without owners. */
struct lane_cache {
        const struct dmo_progress *p;
        struct lane *lane; /* NULL: this thread uses the shared counters */
};
static _Thread_local struct lane_cache lane_cache;

struct dmo_progress {
        struct lane lanes[LANES];
        /* Threads that found every lane taken, and the counter of lanes taken. */
        _Alignas(64) atomic_uint_fast64_t shared_pages;
        atomic_uint_fast64_t shared_bytes;
        atomic_uint_fast64_t shared_device_ns;
        atomic_uint lanes_taken;
        atomic_uint_fast64_t pages_total;
        atomic_uint abort_state; /* ABORT_* bits: one word, so no request is lost */
        atomic_int phase;
        atomic_int going_down; /* enum dmo_going_down */

        _Alignas(64) pthread_mutex_t lock;
        enum dmo_mode mode;
        unsigned page_size;
        struct timespec start;
        double last_fraction; /* the monotonic floor */
        struct dmo_rate rate; /* of the current data phase (rate.h) */
        uint64_t phase_pages; /* pages_done then */
        uint64_t bytes_total; /* 0 while unknown (set_bytes_total) */
        char message[256];
};

static double seconds_since(const struct timespec *start)
{
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

int dmo_progress_new(enum dmo_mode mode, struct dmo_progress **out)
{
        struct dmo_progress *p;
        if (posix_memalign((void **)&p, 64, sizeof(*p)) != 0)
                return -ENOMEM;
        memset(p, 0, sizeof(*p));
        for (unsigned i = 0; i < LANES; i++) {
                atomic_init(&p->lanes[i].owner, 0);
                atomic_init(&p->lanes[i].pages, 0);
                atomic_init(&p->lanes[i].bytes, 0);
                atomic_init(&p->lanes[i].device_ns, 0);
        }
        atomic_init(&p->shared_pages, 0);
        atomic_init(&p->shared_bytes, 0);
        atomic_init(&p->shared_device_ns, 0);
        atomic_init(&p->lanes_taken, 0);
        atomic_init(&p->pages_total, 0);
        atomic_init(&p->abort_state, ABORT_OPEN);
        atomic_init(&p->phase, mode == DMO_MODE_HIBERNATE ? DMO_PHASE_PREPARE : DMO_PHASE_WAIT);
        pthread_mutex_init(&p->lock, NULL);
        p->mode = mode;
        long ps = sysconf(_SC_PAGESIZE);
        p->page_size = ps > 0 ? (unsigned)ps : 4096;
        clock_gettime(CLOCK_MONOTONIC, &p->start);
        *out = p;
        return 0;
}

void dmo_progress_free(struct dmo_progress *p)
{
        if (!p)
                return;
        pthread_mutex_destroy(&p->lock);
        free(p);
}

/* Sums of the lanes. Each lane only grows, so a later sum is never smaller
 * than an earlier one. */
static uint64_t sum_pages_done(struct dmo_progress *p)
{
        uint64_t n = atomic_load_explicit(&p->shared_pages, memory_order_relaxed);
        for (unsigned i = 0; i < LANES; i++)
                n += atomic_load_explicit(&p->lanes[i].pages, memory_order_relaxed);
        return n;
}

static uint64_t sum_bytes_out(struct dmo_progress *p)
{
        uint64_t n = atomic_load_explicit(&p->shared_bytes, memory_order_relaxed);
        for (unsigned i = 0; i < LANES; i++)
                n += atomic_load_explicit(&p->lanes[i].bytes, memory_order_relaxed);
        return n;
}

static uint64_t sum_device_ns(struct dmo_progress *p)
{
        uint64_t n = atomic_load_explicit(&p->shared_device_ns, memory_order_relaxed);
        for (unsigned i = 0; i < LANES; i++)
                n += atomic_load_explicit(&p->lanes[i].device_ns, memory_order_relaxed);
        return n;
}

static struct lane *take_lane(struct dmo_progress *p, struct lane_cache *c)
{
        unsigned i = atomic_fetch_add_explicit(&p->lanes_taken, 1, memory_order_relaxed);
        c->p = p;
        c->lane = NULL;
        if (i >= LANES)
                return NULL;
        atomic_store_explicit(&p->lanes[i].owner, (uintptr_t)c, memory_order_relaxed);
        c->lane = &p->lanes[i];
        return c->lane;
}

/* The calling thread's lane in p, or NULL for the shared counters. */
static inline struct lane *my_lane(struct dmo_progress *p)
{
        struct lane_cache *c = &lane_cache;
        if (c->p == p) {
                if (!c->lane)
                        return NULL;
                if (atomic_load_explicit(&c->lane->owner, memory_order_relaxed) == (uintptr_t)c)
                        return c->lane;
        }
        return take_lane(p, c);
}

/* Only the owner writes a lane: no read-modify-write needed. */
static inline void lane_add(atomic_uint_fast64_t *v, uint64_t n)
{
        atomic_store_explicit(v, atomic_load_explicit(v, memory_order_relaxed) + n,
                              memory_order_relaxed);
}

void dmo_progress_set_phase(struct dmo_progress *p, enum dmo_phase phase)
{
        pthread_mutex_lock(&p->lock);
        p->phase_pages = sum_pages_done(p);
        /* A new phase, a new rate: the old one (or the idle time before the
         * data phase) says nothing about it. */
        dmo_rate_reset(&p->rate, p->phase_pages);
        atomic_store(&p->phase, (int)phase);
        pthread_mutex_unlock(&p->lock);
}

void dmo_progress_set_going_down(struct dmo_progress *p, enum dmo_going_down how)
{
        atomic_store(&p->going_down, (int)how);
}

void dmo_progress_set_total(struct dmo_progress *p, uint64_t pages)
{
        atomic_store(&p->pages_total, pages);
}

void dmo_progress_add_pages(struct dmo_progress *p, uint64_t pages)
{
        struct lane *l = my_lane(p);
        if (l)
                lane_add(&l->pages, pages);
        else
                atomic_fetch_add_explicit(&p->shared_pages, pages, memory_order_relaxed);
}

void dmo_progress_add_bytes(struct dmo_progress *p, uint64_t bytes, uint64_t device_ns)
{
        struct lane *l = my_lane(p);
        if (l) {
                lane_add(&l->bytes, bytes);
                lane_add(&l->device_ns, device_ns);
        } else {
                atomic_fetch_add_explicit(&p->shared_bytes, bytes, memory_order_relaxed);
                atomic_fetch_add_explicit(&p->shared_device_ns, device_ns, memory_order_relaxed);
        }
}

void dmo_progress_set_bytes_total(struct dmo_progress *p, uint64_t bytes)
{
        pthread_mutex_lock(&p->lock);
        p->bytes_total = bytes;
        pthread_mutex_unlock(&p->lock);
}

void dmo_progress_set_message(struct dmo_progress *p, const char *text)
{
        pthread_mutex_lock(&p->lock);
        snprintf(p->message, sizeof(p->message), "%s", text ? text : "");
        pthread_mutex_unlock(&p->lock);
}

void dmo_progress_set_abortable(struct dmo_progress *p, bool abortable)
{
        if (abortable)
                atomic_fetch_or(&p->abort_state, ABORT_OPEN);
        else
                atomic_fetch_and(&p->abort_state, ~(unsigned)ABORT_OPEN);
}

bool dmo_progress_close_abort_window(struct dmo_progress *p)
{
        unsigned old = atomic_fetch_and(&p->abort_state, ~(unsigned)ABORT_OPEN);
        return (old & ABORT_REQUESTED) != 0;
}

bool dmo_progress_abort_requested(const struct dmo_progress *p)
{
        /* The read-modify-writes above order every change of the word; an
         * acquire load after a close sees every request the close saw. */
        return (atomic_load_explicit(&p->abort_state, memory_order_acquire) & ABORT_REQUESTED) != 0;
}

bool dmo_progress_request_abort(struct dmo_progress *p)
{
        unsigned old = atomic_load(&p->abort_state);
        for (;;) {
                if (!(old & ABORT_OPEN))
                        return false;
                if (old & ABORT_REQUESTED)
                        return true; /* already asked for, and still in time */
                if (atomic_compare_exchange_weak(&p->abort_state, &old, old | ABORT_REQUESTED))
                        return true;
        }
}

static const unsigned *weights_of(enum dmo_mode mode)
{
        return mode == DMO_MODE_HIBERNATE ? hibernate_weights : resume_weights;
}

static bool is_data_phase(enum dmo_phase phase)
{
        return phase == DMO_PHASE_WRITE || phase == DMO_PHASE_READ;
}

/* Overall fraction: finished phases count fully, the current one by its own
 * fraction. Phases are ordered by their enum value within a mode. */
static double overall_fraction(enum dmo_mode mode, enum dmo_phase phase, double phase_fraction)
{
        const unsigned *w = weights_of(mode);
        unsigned total = 0, before = 0;
        for (int i = 0; i < DMO_PHASE_COUNT; i++) {
                total += w[i];
                if (i < (int)phase)
                        before += w[i];
        }
        if (phase == DMO_PHASE_POWEROFF || phase == DMO_PHASE_DONE)
                return 1.0;
        if (phase >= DMO_PHASE_DONE || total == 0)
                return -1.0; /* aborted/failed: keep what was shown */
        return ((double)before + (double)w[phase] * phase_fraction) / (double)total;
}

void dmo_progress_sample(struct dmo_progress *p, struct dmo_progress_snapshot *out)
{
        memset(out, 0, sizeof(*out));
        pthread_mutex_lock(&p->lock);
        enum dmo_phase phase = (enum dmo_phase)atomic_load(&p->phase);
        uint64_t done = sum_pages_done(p);
        uint64_t total = atomic_load(&p->pages_total);
        double now = seconds_since(&p->start);

        double bps = 0;
        if (is_data_phase(phase)) {
                dmo_rate_note(&p->rate, now, done);
                bps = dmo_rate_pages_per_s(&p->rate) * p->page_size;
        }

        out->mode = p->mode;
        out->phase = phase;
        out->pages_done = done;
        out->pages_total = total;
        out->bytes_in = done * p->page_size;
        out->bytes_out = sum_bytes_out(p);
        uint64_t device_ns = sum_device_ns(p);
        out->elapsed_s = now;
        unsigned abort_state = atomic_load(&p->abort_state);
        out->abort_requested = (abort_state & ABORT_REQUESTED) != 0;
        out->abortable = (abort_state & ABORT_OPEN) != 0;
        out->going_down = (enum dmo_going_down)atomic_load(&p->going_down);
        out->mb_per_s = bps / 1e6;
        out->eta_s = -1;

        if (is_data_phase(phase) && total > 0)
                out->phase_fraction = done >= total ? 1.0 : (double)done / (double)total;
        if (is_data_phase(phase) && total > 0 && bps > 1e3 && done <= total) {
                double bytes_left =
                    p->bytes_total > out->bytes_out ? (double)(p->bytes_total - out->bytes_out) : 0;
                double device_bps =
                    device_ns > 0 ? (double)out->bytes_out / ((double)device_ns / 1e9) : 0;
                out->eta_s = dmo_rate_time_left((double)(total - done), bps / p->page_size,
                                                bytes_left, device_bps);
        }

        double f = overall_fraction(p->mode, phase, out->phase_fraction);
        if (f > p->last_fraction)
                p->last_fraction = f;
        out->fraction = p->last_fraction;
        snprintf(out->message, sizeof(out->message), "%s", p->message);
        pthread_mutex_unlock(&p->lock);
}

static const char *const phase_ids[DMO_PHASE_COUNT] = {
    [DMO_PHASE_PREPARE] = "prepare",   [DMO_PHASE_FREEZE] = "freeze",
    [DMO_PHASE_SNAPSHOT] = "snapshot", [DMO_PHASE_WRITE] = "write",
    [DMO_PHASE_SYNC] = "sync",         [DMO_PHASE_POWEROFF] = "poweroff",
    [DMO_PHASE_WAIT] = "wait",         [DMO_PHASE_CHECK] = "check",
    [DMO_PHASE_READ] = "read",         [DMO_PHASE_RESTORE] = "restore",
    [DMO_PHASE_DONE] = "done",         [DMO_PHASE_ABORTED] = "aborted",
    [DMO_PHASE_FAILED] = "failed",
};
DMO_STRING_TABLE_TO_STRING(, dmo_phase_id, enum dmo_phase, phase_ids, "unknown")

static const char *const phase_labels[DMO_PHASE_COUNT] = {
    [DMO_PHASE_PREPARE] = N_("Preparing"),
    [DMO_PHASE_FREEZE] = N_("Stopping programs"),
    [DMO_PHASE_SNAPSHOT] = N_("Taking a snapshot of memory"),
    [DMO_PHASE_WRITE] = N_("Saving memory to disk"),
    [DMO_PHASE_SYNC] = N_("Finishing the image"),
    [DMO_PHASE_POWEROFF] = N_("Powering off"),
    [DMO_PHASE_WAIT] = N_("Waiting for the disk"),
    [DMO_PHASE_CHECK] = N_("Checking the image"),
    [DMO_PHASE_READ] = N_("Restoring memory"),
    [DMO_PHASE_RESTORE] = N_("Starting the saved system"),
    [DMO_PHASE_DONE] = N_("Done"),
    [DMO_PHASE_ABORTED] = N_("Hibernation cancelled"),
    [DMO_PHASE_FAILED] = N_("Something went wrong"),
};
DMO_STRING_TABLE_TO_STRING(static, phase_label, enum dmo_phase, phase_labels, "")

const char *dmo_phase_label(enum dmo_phase phase)
{
        const char *label = phase_label(phase);
        return label[0] ? _(label) : "";
}

static const char *const going_down_labels[] = {
    [DMO_GOING_DOWN_POWEROFF] = N_("Powering off"),
    [DMO_GOING_DOWN_REBOOT] = N_("Restarting"),
    [DMO_GOING_DOWN_SUSPEND] = N_("Suspending"),
};
DMO_STRING_TABLE_TO_STRING(static, going_down_label, enum dmo_going_down, going_down_labels, "")

const char *dmo_progress_phase_label(enum dmo_phase phase, enum dmo_going_down how)
{
        const char *label = phase == DMO_PHASE_POWEROFF ? going_down_label(how) : "";
        return label[0] ? _(label) : dmo_phase_label(phase);
}

int dmo_progress_data_percent(const struct dmo_progress_snapshot *s)
{
        if (s->pages_total == 0)
                return -1;
        uint64_t done = s->pages_done < s->pages_total ? s->pages_done : s->pages_total;
        /* Rounded like the amounts are, so 4.9 of 12.9 says 38%. */
        int pct = (int)((done * 200 + s->pages_total) / (2 * s->pages_total));
        return pct == 100 && done < s->pages_total ? 99 : pct;
}
