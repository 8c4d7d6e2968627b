/* sleep: the two sleep modes of systemd that end in a hibernation,
 * suspend-then-hibernate and hybrid sleep, as systemd-sleep runs them, with
 * "dormouse hibernate" as the hibernation.
 *
 * - Every sleep is wrapped in the system-sleep hooks ("HOOKS hooks pre|post
 *   MODE", this step in SYSTEMD_SLEEP_ACTION), as systemd-sleep does.
 * - suspend-then-hibernate suspends to RAM (sleep.conf's SuspendState= and
 *   MemorySleepMode=) with a wake alarm, for as long as the plan says
 *   (sleep/sth_plan.h), looks at the power supplies at each wake, and
 *   hibernates when the plan says so; a wake that is not the alarm's goes
 *   back to the session.
 * - hybrid sleep hibernates with "--shutdown suspend" last.
 * - The hibernation is HIBERNATE_PROGRAM run as a child, "dormouse
 *   hibernate" and the caller's options. Its status 0 is done, 5 cancelled
 *   (the person is at the machine: it stays up), anything else failed: the
 *   machine is suspended all the same, as systemd-sleep does, so that a
 *   dying battery does not end with it left running.
 *
 * Contract: runs the hooks, the hibernation and the suspends (kernel/
 * suspend.h); no global state, no allocation survives a call. Never prints
 * and has no words of its own: what happens is told to the caller's report
 * function as an event and its facts. Returns 0 (slept and woke, resumed,
 * or woken by the person), -ECANCELED (the hibernation was cancelled),
 * -EIO (it failed, and the machine was suspended instead), or the negative
 * errno of what could not be done (no wake alarm, a suspend the kernel
 * refused, a child that could not be started).
 */
#ifndef DMO_SLEEP_SLEEP_H
#define DMO_SLEEP_SLEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/power_supply.h"
#include "sleep/sleep_conf.h"
#include "sleep/sth_plan.h"

enum dmo_sleep_mode { DMO_SLEEP_SUSPEND_THEN_HIBERNATE, DMO_SLEEP_HYBRID };

/* systemd's name of the mode, the hooks' argument: "suspend-then-hibernate",
 * "hybrid-sleep". */
const char *dmo_sleep_mode_name(enum dmo_sleep_mode mode);

enum dmo_sleep_event_kind {
        DMO_SLEEP_HOOKS_FAILED,        /* program, when, status */
        DMO_SLEEP_EXEC_FAILED,         /* program, error: said by the child */
        DMO_SLEEP_SUSPENDING,          /* action */
        DMO_SLEEP_SUSPEND_REFUSED,     /* error: nothing slept */
        DMO_SLEEP_WOKE,                /* from a suspend */
        DMO_SLEEP_HIBERNATE_CANCELLED, /* the child's status was 5 */
        DMO_SLEEP_HIBERNATE_FAILED,    /* status: suspending instead */
        DMO_SLEEP_NO_POWER_INFO,       /* error: going by the timer only */
        DMO_SLEEP_AC_RULE_IGNORED,     /* HibernateOnACPower=no, and no battery */
        DMO_SLEEP_NO_WAKE_ALARM,       /* error: nothing was done */
        DMO_SLEEP_WAKE_ALARM_FAILED,   /* error: setting it */
        DMO_SLEEP_WAITING,             /* power, us until the alarm, reason */
        DMO_SLEEP_WOKEN_EARLY,         /* us before the alarm: back to the session */
        DMO_SLEEP_HIBERNATING,         /* reason */
};

struct dmo_sleep_event {
        enum dmo_sleep_event_kind kind;
        int error;                           /* a negative errno */
        int status;                          /* a child's exit status, or 128 + signal */
        const char *program;                 /* the hooks' runner, or the program not started */
        const char *when;                    /* "pre" or "post" */
        const char *action;                  /* SYSTEMD_SLEEP_ACTION of a suspend */
        const struct dmo_power_state *power; /* as last read */
        uint64_t us;                         /* microseconds */
        enum dmo_sth_reason reason;
};

struct dmo_sleep_params {
        enum dmo_sleep_mode mode;
        const struct dmo_sleep_conf *conf;
        const char *hooks;             /* the system-sleep hooks' runner; NULL: none */
        const char *power_dir;         /* "/sys/power", or a test's stand-in */
        const char *sysfs;             /* "/sys", for the power supplies */
        bool test_machine;             /* a test's machine: the wake alarm may be a plain timer */
        const char *hibernate_program; /* "/proc/self/exe" */
        char **hibernate_argv;         /* the options of "dormouse hibernate" */
        int hibernate_argc;
        void (*report)(void *ctx, const struct dmo_sleep_event *e);
        void *ctx;
};

/* Sleeps in p->mode; see above for what it returns. */
int dmo_sleep_run(const struct dmo_sleep_params *p);

#endif
