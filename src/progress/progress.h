/* progress: the seam between the engine and everything that shows progress.
 *
 * The engine reports events (phase changes, every page, bytes stored); the
 * model keeps counters and turns them into a consistent snapshot: overall
 * fraction from weighted phases, throughput, time left, abort request.
 * Renderers (src/splash) sample snapshots at their own frame rate.
 *
 * Contract:
 * - dmo_progress_add_pages()/add_bytes() are wait-free and safe from any
 *   thread: call them for every page. Each thread counts in a cache line of
 *   its own (a plain load and store, no locked instruction) that the
 *   sampler folds; after the first 16 threads, the others share one atomic
 *   counter.
 * - Phase changes and messages take a short mutex; they happen a handful of
 *   times per run.
 * - dmo_progress_sample() never blocks the engine and never goes backwards:
 *   the overall fraction it reports is monotonic within one mode.
 * - Never draws, never does I/O, never allocates after dmo_progress_new().
 */
#ifndef DMO_PROGRESS_H
#define DMO_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

enum dmo_mode {
        DMO_MODE_HIBERNATE,
        DMO_MODE_RESUME,
};

enum dmo_phase {
        DMO_PHASE_PREPARE,  /* loading config, theme, buffers; opening devices */
        DMO_PHASE_FREEZE,   /* freezing tasks */
        DMO_PHASE_SNAPSHOT, /* kernel copies memory */
        DMO_PHASE_WRITE,    /* pages → codec → swap */
        DMO_PHASE_SYNC,     /* flush, header, signature */
        DMO_PHASE_POWEROFF, /* hibernate done, powering off */
        DMO_PHASE_WAIT,     /* resume: waiting for the device */
        DMO_PHASE_CHECK,    /* resume: reading and checking the header */
        DMO_PHASE_READ,     /* resume: swap → codec → kernel */
        DMO_PHASE_RESTORE,  /* resume: atomic restore */
        DMO_PHASE_DONE,     /* finished (resumed, or back after hibernation) */
        DMO_PHASE_ABORTED,  /* aborted by the user; system thawed */
        DMO_PHASE_FAILED,   /* an error; see the message */
        DMO_PHASE_COUNT
};

/* How the machine goes down once the image is written: what
 * DMO_PHASE_POWEROFF is called (a hybrid sleep suspends to RAM). */
enum dmo_going_down {
        DMO_GOING_DOWN_POWEROFF,
        DMO_GOING_DOWN_REBOOT,
        DMO_GOING_DOWN_SUSPEND,
};

/* A consistent copy of the model at one instant. */
struct dmo_progress_snapshot {
        enum dmo_mode mode;
        enum dmo_phase phase;
        double fraction;       /* overall, 0..1, monotonic */
        double phase_fraction; /* within the current phase, 0..1 */
        uint64_t pages_done;   /* pages moved in the data phase */
        uint64_t pages_total;  /* 0 while unknown */
        uint64_t bytes_in;     /* raw page bytes handled */
        uint64_t bytes_out;    /* bytes stored (write) or read (resume) */
        double mb_per_s;       /* raw page throughput, smoothed, MB = 10^6 bytes */
        double eta_s;          /* seconds left, < 0 while unknown */
        double elapsed_s;      /* since dmo_progress_new() */
        bool abort_requested;
        bool abortable;                 /* false once the signature is being written */
        enum dmo_going_down going_down; /* set before DMO_PHASE_POWEROFF */
        char message[256];              /* latest message for the person, already translated */
};

struct dmo_progress;

int dmo_progress_new(enum dmo_mode mode, struct dmo_progress **out);
void dmo_progress_free(struct dmo_progress *p);

/* Engine side. */
void dmo_progress_set_phase(struct dmo_progress *p, enum dmo_phase phase);
/* How the machine will go down (default: power off); set it before
 * entering DMO_PHASE_POWEROFF, whose label it chooses. */
void dmo_progress_set_going_down(struct dmo_progress *p, enum dmo_going_down how);
void dmo_progress_set_total(struct dmo_progress *p, uint64_t pages);
void dmo_progress_add_pages(struct dmo_progress *p, uint64_t pages);
/* Bytes stored (hibernate) or read (resume), and the time the device took
 * to move them: the request's duration, 0 where it was not measured. */
void dmo_progress_add_bytes(struct dmo_progress *p, uint64_t bytes, uint64_t device_ns);
/* The bytes add_bytes will count in all, where they are known before the
 * data phase (resume: the image's chunk stream); the time left then also
 * follows them (dmo_rate_time_left in rate.h). */
void dmo_progress_set_bytes_total(struct dmo_progress *p, uint64_t bytes);
void dmo_progress_set_message(struct dmo_progress *p, const char *text);
void dmo_progress_set_abortable(struct dmo_progress *p, bool abortable);
bool dmo_progress_abort_requested(const struct dmo_progress *p);
/* Closes the abort window and says, in the same atomic step, whether an abort
 * was accepted before it closed: true means the engine must abort. After it
 * returns, dmo_progress_request_abort() refuses every request, so a request
 * is either reported here (or earlier) or refused, never accepted and lost.
 * Use it instead of set_abortable(false) followed by abort_requested(). */
bool dmo_progress_close_abort_window(struct dmo_progress *p);

/* Anyone (key reader, another thread; lock-free and async-signal-safe): asks
 * the engine to abort. One atomic compare-and-swap: accepted only while the
 * abort window is open. Returns true if the abort was taken (then the engine
 * sees it), false if the window was already closed. */
bool dmo_progress_request_abort(struct dmo_progress *p);

/* Renderer side. Safe to call from any thread at any rate. */
void dmo_progress_sample(struct dmo_progress *p, struct dmo_progress_snapshot *out);

/* Name of a phase for logs (untranslated, stable) and for people (translated). */
const char *dmo_phase_id(enum dmo_phase phase);
const char *dmo_phase_label(enum dmo_phase phase);
/* The same for people, DMO_PHASE_POWEROFF named after how the machine goes
 * down ("Restarting", "Suspending"); what renderers show. */
const char *dmo_progress_phase_label(enum dmo_phase phase, enum dmo_going_down how);

/* The share of the image's pages done, in percent, for the text log's
 * lines that print it beside the page counts ("31250 of 100000 pages
 * (31%)"): rounded like the amounts, 100 only when every page is done; -1
 * before there is a total. The splash's stats line shows the bar's percent
 * instead (doc/themes.md). */
int dmo_progress_data_percent(const struct dmo_progress_snapshot *s);

#endif
