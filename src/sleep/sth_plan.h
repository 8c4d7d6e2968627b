/* sth_plan: when suspend-then-hibernate suspends, for how long, and when it
 * hibernates. The rule is systemd 257's (src/sleep/sleep.c,
 * custom_timer_suspend), so that HibernateDelaySec=, SuspendEstimationSec=
 * and HibernateOnACPower= mean what systemd's documentation says:
 *
 *   - a low battery (kernel/power_supply.h) hibernates at once, before or
 *     after any suspend;
 *   - without a battery, or with batteries none of which tells its charge
 *     (systemd's fetch_batteries_capacity_by_name finds none), the machine
 *     suspends for HibernateDelaySec= (2 h when unset), and the alarm's
 *     wake hibernates;
 *   - with one, it suspends for SuspendEstimationSec= at a time (the wake
 *     looks at the battery), and no longer than until HibernateDelaySec=
 *     from the start, when it hibernates;
 *   - HibernateOnACPower=no restarts the HibernateDelaySec= clock at each
 *     wake spent on AC (ignored without a battery);
 *   - a wake that is not the alarm's (more than 2 s before it) is the
 *     person's: back to the session, no image.
 *
 * Times are CLOCK_BOOTTIME microseconds, which count the suspend.
 * Contract: pure functions, no I/O.
 */
#ifndef DMO_SLEEP_STH_PLAN_H
#define DMO_SLEEP_STH_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "sleep/sleep_conf.h"
#include "kernel/power_supply.h"

/* systemd's ALARM_ACCURACY_USEC and DEFAULT_HIBERNATE_DELAY_USEC_NO_BATTERY. */
#define DMO_STH_ALARM_ACCURACY_US   (UINT64_C(2) * 1000000)
#define DMO_STH_NO_BATTERY_DELAY_US (UINT64_C(2) * 3600 * 1000000)

enum dmo_sth_step {
        DMO_STH_SUSPEND,   /* suspend until wake_at */
        DMO_STH_HIBERNATE, /* hibernate now */
        DMO_STH_RETURN,    /* the person woke the machine: back to the session */
};

enum dmo_sth_reason {
        DMO_STH_BATTERY_LOW,   /* the battery is at 5 % or below */
        DMO_STH_DELAY_REACHED, /* HibernateDelaySec= has passed */
        DMO_STH_ALARM_NO_BATTERY,
        DMO_STH_ALARM_NO_CHARGE, /* the alarm, and the battery tells no charge */
        DMO_STH_PERSON_WOKE,
        DMO_STH_CHECK_BATTERY, /* suspend: the alarm looks at the battery */
        DMO_STH_UNTIL_DELAY,   /* suspend: until HibernateDelaySec= */
};

struct dmo_sth_plan {
        uint64_t hibernate_at; /* UINT64_MAX: the battery decides alone */
        uint64_t wake_at;      /* the alarm of the current suspend */
        enum dmo_sth_reason reason;
};

/* Starts the clock at now. */
void dmo_sth_begin(struct dmo_sth_plan *p, const struct dmo_sleep_conf *c, uint64_t now);

/* Before a suspend: DMO_STH_SUSPEND with p->wake_at set, or
 * DMO_STH_HIBERNATE. */
enum dmo_sth_step dmo_sth_next(struct dmo_sth_plan *p, const struct dmo_sleep_conf *c,
                               const struct dmo_power_state *power, uint64_t now);

/* After a wake at now: DMO_STH_RETURN (the person's wake),
 * DMO_STH_HIBERNATE (the alarm, and no battery to look at) or
 * DMO_STH_SUSPEND (look again with dmo_sth_next). */
enum dmo_sth_step dmo_sth_after_wake(struct dmo_sth_plan *p, const struct dmo_power_state *power,
                                     uint64_t now);

#endif
