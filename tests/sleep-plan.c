/* suspend-then-hibernate's rules: systemd's sleep.conf as systemd-sleep
 * reads it, the power supplies as systemd's battery-util sees them, and
 * when the plan suspends, for how long, and when it hibernates. */
#include "tests/testlib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sleep/sleep_conf.h"
#include "sleep/sth_plan.h"
#include "kernel/power_supply.h"

#define S    UINT64_C(1000000)
#define MIN  (60 * S)
#define HOUR (60 * MIN)

static void test_time_spans_read_as_systemd_writes_them(void)
{
        uint64_t us = 0;
        CHECK_INT(dmo_parse_timespan("90", &us), ==, 0);
        CHECK_INT(us, ==, 90 * S);
        CHECK_INT(dmo_parse_timespan("30min", &us), ==, 0);
        CHECK_INT(us, ==, 30 * MIN);
        CHECK_INT(dmo_parse_timespan("1h 30min", &us), ==, 0);
        CHECK_INT(us, ==, 90 * MIN);
        CHECK_INT(dmo_parse_timespan("2h30m", &us), ==, 0);
        CHECK_INT(us, ==, 150 * MIN);
        CHECK_INT(dmo_parse_timespan("1.5h", &us), ==, 0);
        CHECK_INT(us, ==, 90 * MIN);
        CHECK_INT(dmo_parse_timespan("500ms", &us), ==, 0);
        CHECK_INT(us, ==, S / 2);
        CHECK_INT(dmo_parse_timespan("2 d", &us), ==, 0);
        CHECK_INT(us, ==, 48 * HOUR);
        CHECK_INT(dmo_parse_timespan("infinity", &us), ==, 0);
        CHECK(us == DMO_USEC_INFINITY);
        us = 7;
        CHECK_INT(dmo_parse_timespan("", &us), ==, -EINVAL);
        CHECK_INT(dmo_parse_timespan("soon", &us), ==, -EINVAL);
        CHECK_INT(dmo_parse_timespan("5 parsecs", &us), ==, -EINVAL);
        CHECK_INT(dmo_parse_timespan("-5s", &us), ==, -EINVAL);
        CHECK_INT(dmo_parse_timespan("1h 30", &us), ==, -EINVAL);
        CHECK_INT(dmo_parse_timespan("99999999999999999999y", &us), ==, -ERANGE);
        CHECK_INT(dmo_parse_timespan("600000y", &us), ==, -ERANGE);
        CHECK_INT(us, ==, 7); /* untouched on failure */
}

static void test_defaults_are_systemds(void)
{
        struct dmo_sleep_conf c;
        dmo_sleep_conf_defaults(&c);
        dmo_sleep_conf_parse("empty", "", &c);
        CHECK(c.hibernate_delay_us == DMO_USEC_INFINITY);
        CHECK_INT(c.suspend_estimation_us, ==, HOUR);
        CHECK(c.hibernate_on_ac_power);
        CHECK_INT(c.suspend_state.n, ==, 3);
        CHECK(strcmp(c.suspend_state.word[0], "mem") == 0);
        CHECK(strcmp(c.suspend_state.word[2], "freeze") == 0);
        CHECK_INT(c.memory_sleep_mode.n, ==, 0);
        CHECK(c.allow_suspend_then_hibernate && c.allow_hybrid_sleep);
        CHECK_INT(c.problem.kind, ==, DMO_SLEEP_CONF_FINE);
}

static void test_keys_outside_sleep_and_comments_do_not_count(void)
{
        struct dmo_sleep_conf c;
        dmo_sleep_conf_defaults(&c);
        dmo_sleep_conf_parse("f",
                             "# HibernateDelaySec=1min\n"
                             "[Other]\nHibernateDelaySec=2min\n"
                             "[Sleep]\n ; comment\n  HibernateDelaySec = 45min  \n"
                             "HibernateOnACPower=no\nSuspendState=freeze\n"
                             "MemorySleepMode=deep s2idle\n",
                             &c);
        CHECK_INT(c.hibernate_delay_us, ==, 45 * MIN);
        CHECK(!c.hibernate_on_ac_power);
        CHECK_INT(c.suspend_state.n, ==, 1);
        CHECK(strcmp(c.suspend_state.word[0], "freeze") == 0);
        CHECK_INT(c.memory_sleep_mode.n, ==, 2);
        CHECK(strcmp(c.memory_sleep_mode.word[1], "s2idle") == 0);
        CHECK_INT(c.problem.kind, ==, DMO_SLEEP_CONF_FINE);
}

static void test_bad_lines_are_named_and_ignored(void)
{
        struct dmo_sleep_conf c;
        dmo_sleep_conf_defaults(&c);
        dmo_sleep_conf_parse("/etc/systemd/sleep.conf",
                             "[Sleep]\nHibernateDelaySec=10min\nHibernateDelaySec=soon\n", &c);
        CHECK_INT(c.hibernate_delay_us, ==, 10 * MIN);
        CHECK_INT(c.problem.kind, ==, DMO_SLEEP_CONF_NOT_TIMESPAN);
        CHECK(strcmp(c.problem.file, "/etc/systemd/sleep.conf") == 0);
        CHECK_INT(c.problem.line, ==, 3);
        CHECK(strcmp(c.problem.key, "HibernateDelaySec") == 0);
        CHECK(strcmp(c.problem.value, "soon") == 0);

        dmo_sleep_conf_defaults(&c);
        dmo_sleep_conf_parse("x", "[Sleep]\nHibernateOnACPower=sometimes\n", &c);
        CHECK(c.hibernate_on_ac_power);
        CHECK_INT(c.problem.kind, ==, DMO_SLEEP_CONF_NOT_BOOL);
        CHECK(strcmp(c.problem.file, "x") == 0);
        CHECK_INT(c.problem.line, ==, 2);
        CHECK(strcmp(c.problem.key, "HibernateOnACPower") == 0);
        CHECK(strcmp(c.problem.value, "sometimes") == 0);

        dmo_sleep_conf_defaults(&c);
        dmo_sleep_conf_parse("x", "[Sleep]\nHibernateDelay=1h\njunk\n", &c);
        CHECK_INT(c.problem.kind, ==, DMO_SLEEP_CONF_UNKNOWN_KEY); /* the first one only */
        CHECK(strcmp(c.problem.key, "HibernateDelay") == 0);
        CHECK(strcmp(c.problem.value, "1h") == 0);

        dmo_sleep_conf_defaults(&c);
        dmo_sleep_conf_parse("x", "[Sleep]\n  junk  \n", &c);
        CHECK_INT(c.problem.kind, ==, DMO_SLEEP_CONF_NOT_KEY_VALUE);
        CHECK_INT(c.problem.line, ==, 2);
        CHECK(strcmp(c.problem.value, "junk") == 0);

        /* Keys of the kernel's own path are known and ignored silently. */
        dmo_sleep_conf_defaults(&c);
        dmo_sleep_conf_parse("x", "[Sleep]\nHibernateMode=platform shutdown\n", &c);
        CHECK_INT(c.problem.kind, ==, DMO_SLEEP_CONF_FINE);
}

static void test_allow_keys_follow_suspend_and_hibernation(void)
{
        struct dmo_sleep_conf c;
        dmo_sleep_conf_defaults(&c);
        dmo_sleep_conf_parse("x", "[Sleep]\nAllowHibernation=no\n", &c);
        CHECK(!c.allow_suspend_then_hibernate);
        CHECK(!c.allow_hybrid_sleep);
        dmo_sleep_conf_defaults(&c);
        dmo_sleep_conf_parse("x", "[Sleep]\nAllowHibernation=no\nAllowHybridSleep=yes\n", &c);
        CHECK(c.allow_hybrid_sleep);
        CHECK(!c.allow_suspend_then_hibernate);
        dmo_sleep_conf_defaults(&c);
        dmo_sleep_conf_parse("x", "[Sleep]\nAllowSuspendThenHibernate=no\n", &c);
        CHECK(!c.allow_suspend_then_hibernate);
        CHECK(c.allow_hybrid_sleep);
}

static void put(const char *root, const char *rel, const char *text)
{
        char path[1024];
        snprintf(path, sizeof(path), "%s%s", root, rel);
        dmo_test_sh("mkdir -p \"$(dirname '%s')\"", path);
        FILE *f = fopen(path, "w");
        if (f) {
                fputs(text, f);
                fclose(f);
        }
}

static void test_files_are_read_in_systemds_order(void)
{
        char root[512];
        snprintf(root, sizeof(root), "%s/order", dmo_test_tmpdir());
        /* /etc's main file hides /usr/lib's; drop-ins go by name, and /etc's
         * 50-a.conf hides /usr/lib's. */
        put(root, "/usr/lib/systemd/sleep.conf", "[Sleep]\nHibernateDelaySec=1min\n");
        put(root, "/etc/systemd/sleep.conf", "[Sleep]\nHibernateDelaySec=2min\n");
        put(root, "/usr/lib/systemd/sleep.conf.d/50-a.conf", "[Sleep]\nHibernateDelaySec=3min\n");
        put(root, "/etc/systemd/sleep.conf.d/50-a.conf", "[Sleep]\nSuspendEstimationSec=20min\n");
        put(root, "/run/systemd/sleep.conf.d/60-b.conf", "[Sleep]\nHibernateDelaySec=4min\n");
        put(root, "/etc/systemd/sleep.conf.d/40-c.conf", "[Sleep]\nHibernateDelaySec=5min\n");
        put(root, "/etc/systemd/sleep.conf.d/README", "[Sleep]\nHibernateDelaySec=6min\n");
        struct dmo_sleep_conf c;
        CHECK_INT(dmo_sleep_conf_load(root, &c), ==, 0);
        CHECK_INT(c.hibernate_delay_us, ==, 4 * MIN);
        CHECK_INT(c.suspend_estimation_us, ==, 20 * MIN);

        /* Nothing at all: systemd's defaults. */
        snprintf(root, sizeof(root), "%s/nothing", dmo_test_tmpdir());
        CHECK_INT(dmo_sleep_conf_load(root, &c), ==, 0);
        CHECK(c.hibernate_delay_us == DMO_USEC_INFINITY);
        CHECK_INT(c.suspend_state.n, ==, 3);
}

/* A supply: "type status capacity scope online" (- for absent). */
static void supply(const char *root, const char *name, const char *type, const char *status,
                   const char *capacity, const char *scope, const char *online)
{
        char rel[256];
        const char *files[] = {"type", "status", "capacity", "scope", "online"};
        const char *values[] = {type, status, capacity, scope, online};
        for (int i = 0; i < 5; i++) {
                if (strcmp(values[i], "-") == 0)
                        continue;
                char text[64];
                snprintf(rel, sizeof(rel), "/class/power_supply/%s/%s", name, files[i]);
                snprintf(text, sizeof(text), "%s\n", values[i]);
                put(root, rel, text);
        }
}

static void test_power_supplies_read_as_systemd_sees_them(void)
{
        char root[512];
        struct dmo_power_state p;
        snprintf(root, sizeof(root), "%s/sys-none", dmo_test_tmpdir());
        CHECK_INT(dmo_power_state_read(root, &p), ==, 0);
        CHECK_INT(p.batteries, ==, 0);
        CHECK(p.on_ac);
        CHECK(!dmo_power_state_battery_low(&p));

        snprintf(root, sizeof(root), "%s/sys-laptop", dmo_test_tmpdir());
        supply(root, "AC", "Mains", "-", "-", "-", "0");
        supply(root, "BAT0", "Battery", "Discharging", "4", "-", "-");
        supply(root, "hidpp_battery_0", "Battery", "Discharging", "90", "Device", "-");
        CHECK_INT(dmo_power_state_read(root, &p), ==, 0);
        CHECK_INT(p.batteries, ==, 1); /* the mouse's does not count */
        CHECK_INT(p.fullest_percent, ==, 4);
        CHECK(!p.on_ac);
        CHECK(dmo_power_state_battery_low(&p));

        /* A second battery above the line is charge enough. */
        supply(root, "BAT1", "Battery", "Discharging", "60", "-", "-");
        CHECK_INT(dmo_power_state_read(root, &p), ==, 0);
        CHECK_INT(p.batteries, ==, 2);
        CHECK(!dmo_power_state_battery_low(&p));

        /* Plugged in: never low. */
        snprintf(root, sizeof(root), "%s/sys-plugged", dmo_test_tmpdir());
        supply(root, "AC", "Mains", "-", "-", "-", "1");
        supply(root, "BAT0", "Battery", "Charging", "2", "-", "-");
        CHECK_INT(dmo_power_state_read(root, &p), ==, 0);
        CHECK(p.on_ac);
        CHECK(!dmo_power_state_battery_low(&p));

        /* Garbage capacity: not a number, not low. */
        snprintf(root, sizeof(root), "%s/sys-garbage", dmo_test_tmpdir());
        supply(root, "BAT0", "Battery", "Discharging", "4x", "-", "-");
        CHECK_INT(dmo_power_state_read(root, &p), ==, 0);
        CHECK_INT(p.fullest_percent, ==, -1);
        CHECK(!p.on_ac); /* a discharging battery and no mains */
        CHECK(!dmo_power_state_battery_low(&p));
        CHECK(!dmo_power_state_charge_known(&p));
        CHECK(!dmo_power_state_charge_known(&(struct dmo_power_state){.fullest_percent = -1}));
        CHECK(dmo_power_state_charge_known(
            &(struct dmo_power_state){.batteries = 1, .fullest_percent = 0}));
}

static struct dmo_sleep_conf conf_with(uint64_t delay, bool on_ac_power)
{
        struct dmo_sleep_conf c;
        dmo_sleep_conf_defaults(&c);
        c.hibernate_delay_us = delay;
        c.hibernate_on_ac_power = on_ac_power;
        return c;
}

static const struct dmo_power_state desktop = {.fullest_percent = -1, .on_ac = true};

static struct dmo_power_state battery(int percent, bool on_ac)
{
        return (struct dmo_power_state){
            .batteries = 1, .discharging = !on_ac, .fullest_percent = percent, .on_ac = on_ac};
}

static void test_no_battery_sleeps_two_hours_then_hibernates(void)
{
        struct dmo_sleep_conf c = conf_with(DMO_USEC_INFINITY, true);
        struct dmo_sth_plan p;
        uint64_t t = 1000 * S;
        dmo_sth_begin(&p, &c, t);
        CHECK_INT(dmo_sth_next(&p, &c, &desktop, t), ==, DMO_STH_SUSPEND);
        CHECK_INT(p.wake_at, ==, t + 2 * HOUR);
        /* The alarm rang (a second early is still the alarm). */
        CHECK_INT(dmo_sth_after_wake(&p, &desktop, p.wake_at - S), ==, DMO_STH_HIBERNATE);
        CHECK_INT(p.reason, ==, DMO_STH_ALARM_NO_BATTERY);
}

static void test_no_battery_uses_the_delay(void)
{
        struct dmo_sleep_conf c = conf_with(30 * MIN, true);
        struct dmo_sth_plan p;
        dmo_sth_begin(&p, &c, 0);
        CHECK_INT(dmo_sth_next(&p, &c, &desktop, 5 * S), ==, DMO_STH_SUSPEND);
        CHECK_INT(p.wake_at, ==, 30 * MIN); /* counted from the start */
}

/* A battery whose capacity cannot be read (ACPI's "unknown", the kernel's
 * ENODEV) gives nothing to decide by: the timer, as with no battery, and the
 * alarm's wake hibernates (systemd 257 skips such a battery). */
static void test_a_battery_without_a_charge_goes_by_the_timer(void)
{
        struct dmo_power_state b = battery(-1, false);
        struct dmo_sleep_conf c = conf_with(DMO_USEC_INFINITY, true);
        struct dmo_sth_plan p;
        dmo_sth_begin(&p, &c, 0);
        CHECK_INT(dmo_sth_next(&p, &c, &b, 0), ==, DMO_STH_SUSPEND);
        CHECK_INT(p.wake_at, ==, 2 * HOUR);
        CHECK_INT(p.reason, ==, DMO_STH_UNTIL_DELAY);
        CHECK_INT(dmo_sth_after_wake(&p, &b, 2 * HOUR), ==, DMO_STH_HIBERNATE);
        CHECK_INT(p.reason, ==, DMO_STH_ALARM_NO_CHARGE);

        c = conf_with(45 * S, true);
        dmo_sth_begin(&p, &c, 0);
        CHECK_INT(dmo_sth_next(&p, &c, &b, S), ==, DMO_STH_SUSPEND);
        CHECK_INT(p.wake_at, ==, 45 * S); /* not SuspendEstimationSec= */
        CHECK_INT(dmo_sth_after_wake(&p, &b, 10 * S), ==, DMO_STH_RETURN);
        CHECK_INT(dmo_sth_after_wake(&p, &b, 45 * S), ==, DMO_STH_HIBERNATE);
        CHECK_INT(p.reason, ==, DMO_STH_ALARM_NO_CHARGE);
}

static void test_a_wake_before_the_alarm_returns_to_the_session(void)
{
        struct dmo_sleep_conf c = conf_with(30 * MIN, true);
        struct dmo_sth_plan p;
        dmo_sth_begin(&p, &c, 0);
        CHECK_INT(dmo_sth_next(&p, &c, &desktop, 0), ==, DMO_STH_SUSPEND);
        CHECK_INT(dmo_sth_after_wake(&p, &desktop, 10 * MIN), ==, DMO_STH_RETURN);
        CHECK_INT(p.reason, ==, DMO_STH_PERSON_WOKE);
        /* 2 s early is the alarm's accuracy, 3 s is a person. */
        CHECK_INT(dmo_sth_after_wake(&p, &desktop, 30 * MIN - 3 * S), ==, DMO_STH_RETURN);
        CHECK_INT(dmo_sth_after_wake(&p, &desktop, 30 * MIN - 2 * S), ==, DMO_STH_HIBERNATE);
}

static void test_a_battery_is_looked_at_every_estimation_period(void)
{
        struct dmo_sleep_conf c = conf_with(DMO_USEC_INFINITY, true);
        struct dmo_sth_plan p;
        struct dmo_power_state b = battery(80, false);
        uint64_t t = 0;
        dmo_sth_begin(&p, &c, t);
        for (int hour = 0; hour < 5; hour++) {
                CHECK_INT(dmo_sth_next(&p, &c, &b, t), ==, DMO_STH_SUSPEND);
                CHECK_INT(p.wake_at - t, ==, HOUR);
                CHECK_INT(p.reason, ==, DMO_STH_CHECK_BATTERY);
                t = p.wake_at;
                CHECK_INT(dmo_sth_after_wake(&p, &b, t), ==, DMO_STH_SUSPEND);
                b.fullest_percent -= 15;
        }
        /* 80 - 5 * 15 = 5: low. */
        CHECK_INT(dmo_sth_next(&p, &c, &b, t), ==, DMO_STH_HIBERNATE);
        CHECK_INT(p.reason, ==, DMO_STH_BATTERY_LOW);
}

static void test_a_low_battery_hibernates_without_suspending(void)
{
        struct dmo_sleep_conf c = conf_with(2 * HOUR, true);
        struct dmo_sth_plan p;
        struct dmo_power_state b = battery(3, false);
        dmo_sth_begin(&p, &c, 0);
        CHECK_INT(dmo_sth_next(&p, &c, &b, 0), ==, DMO_STH_HIBERNATE);
        CHECK_INT(p.reason, ==, DMO_STH_BATTERY_LOW);
}

static void test_the_delay_caps_the_battery_checks(void)
{
        struct dmo_sleep_conf c = conf_with(90 * MIN, true);
        struct dmo_sth_plan p;
        struct dmo_power_state b = battery(80, false);
        dmo_sth_begin(&p, &c, 0);
        CHECK_INT(dmo_sth_next(&p, &c, &b, 0), ==, DMO_STH_SUSPEND);
        CHECK_INT(p.wake_at, ==, HOUR);
        CHECK_INT(dmo_sth_after_wake(&p, &b, HOUR), ==, DMO_STH_SUSPEND);
        CHECK_INT(dmo_sth_next(&p, &c, &b, HOUR), ==, DMO_STH_SUSPEND);
        CHECK_INT(p.wake_at, ==, 90 * MIN);
        CHECK_INT(p.reason, ==, DMO_STH_UNTIL_DELAY);
        CHECK_INT(dmo_sth_after_wake(&p, &b, 90 * MIN), ==, DMO_STH_SUSPEND);
        CHECK_INT(dmo_sth_next(&p, &c, &b, 90 * MIN), ==, DMO_STH_HIBERNATE);
        CHECK_INT(p.reason, ==, DMO_STH_DELAY_REACHED);
}

static void test_on_ac_power_restarts_the_clock_when_asked(void)
{
        struct dmo_sleep_conf c = conf_with(90 * MIN, false);
        struct dmo_sth_plan p;
        struct dmo_power_state plugged = battery(80, true);
        dmo_sth_begin(&p, &c, 0);
        uint64_t t = 0;
        for (int i = 0; i < 4; i++) {
                CHECK_INT(dmo_sth_next(&p, &c, &plugged, t), ==, DMO_STH_SUSPEND);
                CHECK_INT(p.hibernate_at, ==, t + 90 * MIN);
                t = p.wake_at;
        }
        /* Unplugged: the clock runs from the last restart. */
        struct dmo_power_state unplugged = battery(80, false);
        uint64_t restarted = p.hibernate_at;
        CHECK_INT(dmo_sth_next(&p, &c, &unplugged, t), ==, DMO_STH_SUSPEND);
        CHECK_INT(p.hibernate_at, ==, restarted);

        /* HibernateOnACPower=yes (the default): the clock runs on AC too. */
        c = conf_with(90 * MIN, true);
        dmo_sth_begin(&p, &c, 0);
        CHECK_INT(dmo_sth_next(&p, &c, &plugged, HOUR), ==, DMO_STH_SUSPEND);
        CHECK_INT(p.hibernate_at, ==, 90 * MIN);

        /* No battery: HibernateOnACPower=no cannot apply. */
        c = conf_with(90 * MIN, false);
        dmo_sth_begin(&p, &c, 0);
        CHECK_INT(dmo_sth_next(&p, &c, &desktop, HOUR), ==, DMO_STH_SUSPEND);
        CHECK_INT(p.wake_at, ==, 90 * MIN);
}

static void test_a_delay_within_the_alarms_accuracy_hibernates_at_once(void)
{
        struct dmo_sleep_conf c = conf_with(2 * S, true);
        struct dmo_sth_plan p;
        dmo_sth_begin(&p, &c, 0);
        CHECK_INT(dmo_sth_next(&p, &c, &desktop, 0), ==, DMO_STH_HIBERNATE);
        c = conf_with(3 * S, true);
        dmo_sth_begin(&p, &c, 0);
        CHECK_INT(dmo_sth_next(&p, &c, &desktop, 0), ==, DMO_STH_SUSPEND);
}

DMO_TEST_MAIN(
    T(test_time_spans_read_as_systemd_writes_them), T(test_defaults_are_systemds),
    T(test_keys_outside_sleep_and_comments_do_not_count), T(test_bad_lines_are_named_and_ignored),
    T(test_allow_keys_follow_suspend_and_hibernation), T(test_files_are_read_in_systemds_order),
    T(test_power_supplies_read_as_systemd_sees_them),
    T(test_no_battery_sleeps_two_hours_then_hibernates), T(test_no_battery_uses_the_delay),
    T(test_a_battery_without_a_charge_goes_by_the_timer),
    T(test_a_wake_before_the_alarm_returns_to_the_session),
    T(test_a_battery_is_looked_at_every_estimation_period),
    T(test_a_low_battery_hibernates_without_suspending), T(test_the_delay_caps_the_battery_checks),
    T(test_on_ac_power_restarts_the_clock_when_asked),
    T(test_a_delay_within_the_alarms_accuracy_hibernates_at_once))
