/* systemd 257's suspend-then-hibernate timing, as pure functions. */
#include "sleep/sth_plan.h"

static uint64_t add_sat(uint64_t a, uint64_t b)
{
        return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sub_sat(uint64_t a, uint64_t b)
{
        return a > b ? a - b : 0;
}

void dmo_sth_begin(struct dmo_sth_plan *p, const struct dmo_sleep_conf *c, uint64_t now)
{
        *p = (struct dmo_sth_plan){.hibernate_at = add_sat(now, c->hibernate_delay_us)};
}

enum dmo_sth_step dmo_sth_next(struct dmo_sth_plan *p, const struct dmo_sleep_conf *c,
                               const struct dmo_power_state *power, uint64_t now)
{
        if (dmo_power_state_battery_low(power)) {
                p->reason = DMO_STH_BATTERY_LOW;
                return DMO_STH_HIBERNATE;
        }
        bool delay_set = c->hibernate_delay_us != DMO_USEC_INFINITY;
        bool charge_known = dmo_power_state_charge_known(power);
        uint64_t interval;
        if (!charge_known)
                interval = delay_set ? c->hibernate_delay_us : DMO_STH_NO_BATTERY_DELAY_US;
        else
                interval = c->suspend_estimation_us;
        if (!c->hibernate_on_ac_power && power->batteries > 0 && power->on_ac)
                p->hibernate_at = add_sat(now, c->hibernate_delay_us);
        uint64_t left = sub_sat(p->hibernate_at, now);
        p->reason = DMO_STH_CHECK_BATTERY;
        if (left <= interval) {
                interval = left;
                p->reason = DMO_STH_UNTIL_DELAY;
        }
        if (!charge_known)
                p->reason = DMO_STH_UNTIL_DELAY;
        if (interval <= DMO_STH_ALARM_ACCURACY_US) {
                p->reason = DMO_STH_DELAY_REACHED;
                return DMO_STH_HIBERNATE;
        }
        p->wake_at = now + interval;
        return DMO_STH_SUSPEND;
}

enum dmo_sth_step dmo_sth_after_wake(struct dmo_sth_plan *p, const struct dmo_power_state *power,
                                     uint64_t now)
{
        if (sub_sat(p->wake_at, now) > DMO_STH_ALARM_ACCURACY_US) {
                p->reason = DMO_STH_PERSON_WOKE;
                return DMO_STH_RETURN;
        }
        if (!dmo_power_state_charge_known(power)) {
                p->reason =
                    power->batteries == 0 ? DMO_STH_ALARM_NO_BATTERY : DMO_STH_ALARM_NO_CHARGE;
                return DMO_STH_HIBERNATE;
        }
        return DMO_STH_SUSPEND;
}
