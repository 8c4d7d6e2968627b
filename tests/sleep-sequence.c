/* The sleep modes' sequences (sleep/sleep.h): which hooks, suspends and
 * hibernation run in which order, what each outcome of the hibernation
 * leads to, and what is reported on the way. The machine is a test's: a
 * /sys/power whose "state" is a plain file (a suspend that returns at
 * once), a /sys with the power supplies asked for, a shell script for the
 * hooks and one for "dormouse hibernate". Hooks, hibernation and reports
 * all append to one log, in the order they happen. */
#include "tests/testlib.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sleep/sleep.h"

struct machine {
        char dir[512], power[600], sys[600], hooks[600], hibernate[600], log[600];
        struct dmo_sleep_conf conf;
        struct dmo_sleep_params p;
};

static const char *const kind_names[] = {
    [DMO_SLEEP_HOOKS_FAILED] = "hooks-failed",
    [DMO_SLEEP_EXEC_FAILED] = "exec-failed",
    [DMO_SLEEP_SUSPENDING] = "suspending",
    [DMO_SLEEP_SUSPEND_REFUSED] = "suspend-refused",
    [DMO_SLEEP_WOKE] = "woke",
    [DMO_SLEEP_HIBERNATE_CANCELLED] = "cancelled",
    [DMO_SLEEP_HIBERNATE_FAILED] = "hibernate-failed",
    [DMO_SLEEP_NO_POWER_INFO] = "no-power-info",
    [DMO_SLEEP_AC_RULE_IGNORED] = "ac-rule-ignored",
    [DMO_SLEEP_NO_WAKE_ALARM] = "no-wake-alarm",
    [DMO_SLEEP_WAKE_ALARM_FAILED] = "wake-alarm-failed",
    [DMO_SLEEP_WAITING] = "waiting",
    [DMO_SLEEP_WOKEN_EARLY] = "woken-early",
    [DMO_SLEEP_HIBERNATING] = "hibernating",
};

/* One line per event: its name and the facts that matter for it. */
static void record(void *ctx, const struct dmo_sleep_event *e)
{
        const struct machine *m = ctx;
        FILE *f = fopen(m->log, "a");
        if (!f)
                return;
        fprintf(f, "%s", kind_names[e->kind]);
        if (e->kind == DMO_SLEEP_HOOKS_FAILED)
                fprintf(f, " %s %d", e->when, e->status);
        else if (e->kind == DMO_SLEEP_SUSPENDING)
                fprintf(f, " %s", e->action);
        else if (e->kind == DMO_SLEEP_HIBERNATE_FAILED)
                fprintf(f, " %d", e->status);
        else if (e->kind == DMO_SLEEP_SUSPEND_REFUSED || e->kind == DMO_SLEEP_EXEC_FAILED)
                fprintf(f, " %d", -e->error);
        else if (e->kind == DMO_SLEEP_WAITING)
                fprintf(f, " %u %d", e->power->batteries, (int)e->reason);
        else if (e->kind == DMO_SLEEP_HIBERNATING)
                fprintf(f, " %d", (int)e->reason);
        fprintf(f, "|");
        fclose(f);
}

/* An executable shell script of the body. */
static void script(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void script(const char *path, const char *fmt, ...)
{
        FILE *f = fopen(path, "w");
        if (!f)
                return;
        fputs("#!/bin/sh\n", f);
        va_list ap;
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        fclose(f);
        chmod(path, 0755);
}

/* hooks_status and hibernate_status: what the stand-ins exit with. */
static void machine(struct machine *m, const char *name, int hooks_status, int hibernate_status)
{
        memset(m, 0, sizeof(*m));
        snprintf(m->dir, sizeof(m->dir), "%s/%s", dmo_test_tmpdir(), name);
        snprintf(m->power, sizeof(m->power), "%s/power", m->dir);
        snprintf(m->sys, sizeof(m->sys), "%s/sys", m->dir);
        snprintf(m->hooks, sizeof(m->hooks), "%s/hooks", m->dir);
        snprintf(m->hibernate, sizeof(m->hibernate), "%s/hibernate", m->dir);
        snprintf(m->log, sizeof(m->log), "%s/log", m->dir);
        dmo_test_sh("mkdir -p '%s' '%s' && : >'%s/state'", m->power, m->sys, m->power);
        script(m->hooks, "printf '%%s' \"$2 $3 $SYSTEMD_SLEEP_ACTION|\" >>'%s'\nexit %d\n", m->log,
               hooks_status);
        script(m->hibernate, "printf '%%s' \"$*|\" >>'%s'\nexit %d\n", m->log, hibernate_status);
        dmo_sleep_conf_defaults(&m->conf);
        m->conf.suspend_state.n = 1;
        snprintf(m->conf.suspend_state.word[0], sizeof(m->conf.suspend_state.word[0]), "mem");
        static char *options[] = {"--kernel", "sim"};
        m->p = (struct dmo_sleep_params){
            .mode = DMO_SLEEP_HYBRID,
            .conf = &m->conf,
            .hooks = m->hooks,
            .power_dir = m->power,
            .sysfs = m->sys,
            .test_machine = true,
            .hibernate_program = m->hibernate,
            .hibernate_argv = options,
            .hibernate_argc = 2,
            .report = record,
            .ctx = m,
        };
}

/* A battery at percent, discharging, and the mains offline. */
static void on_battery(const struct machine *m, int percent)
{
        dmo_test_sh("d='%s/class/power_supply' && mkdir -p \"$d/AC\" \"$d/BAT0\" && "
                    "echo Mains >\"$d/AC/type\" && echo 0 >\"$d/AC/online\" && "
                    "echo Battery >\"$d/BAT0/type\" && echo Discharging >\"$d/BAT0/status\" && "
                    "echo %d >\"$d/BAT0/capacity\"",
                    m->sys, percent);
}

static const char *log_of(const struct machine *m)
{
        static char buf[4096];
        return dmo_test_read_file(m->log, buf, sizeof(buf));
}

static void test_hybrid_sleep_hibernates_with_suspend_last_between_the_hooks(void)
{
        struct machine m;
        machine(&m, "hybrid", 0, 0);
        CHECK_INT(dmo_sleep_run(&m.p), ==, 0);
        CHECK(strcmp(log_of(&m), "pre hybrid-sleep hybrid-sleep|"
                                 "hibernate --kernel sim --shutdown suspend|"
                                 "post hybrid-sleep hybrid-sleep|") == 0);
}

static void test_a_cancelled_hibernation_keeps_the_machine_up(void)
{
        struct machine m;
        machine(&m, "cancelled", 0, 5);
        CHECK_INT(dmo_sleep_run(&m.p), ==, -ECANCELED);
        CHECK(strcmp(log_of(&m), "pre hybrid-sleep hybrid-sleep|"
                                 "hibernate --kernel sim --shutdown suspend|"
                                 "post hybrid-sleep hybrid-sleep|cancelled|") == 0);
}

static void test_a_failed_hibernation_suspends_instead(void)
{
        struct machine m;
        machine(&m, "failed", 0, 6);
        CHECK_INT(dmo_sleep_run(&m.p), ==, -EIO);
        CHECK_STR_CONTAINS(log_of(&m), "post hybrid-sleep hybrid-sleep|hibernate-failed 6|"
                                       "pre hybrid-sleep suspend-after-failed-hybrid-sleep|"
                                       "suspending suspend-after-failed-hybrid-sleep|woke|"
                                       "post hybrid-sleep suspend-after-failed-hybrid-sleep|");
        char state[16];
        char path[700];
        snprintf(path, sizeof(path), "%s/state", m.power);
        CHECK(strcmp(dmo_test_read_file(path, state, sizeof(state)), "mem") == 0);
}

static void test_a_refused_suspend_is_the_result(void)
{
        struct machine m;
        machine(&m, "refused", 0, 6);
        dmo_test_sh("rm '%s/state'", m.power);
        CHECK_INT(dmo_sleep_run(&m.p), ==, -ENOENT);
        CHECK_STR_CONTAINS(log_of(&m), "suspending suspend-after-failed-hybrid-sleep|"
                                       "suspend-refused 2|");
}

static void test_failing_hooks_are_told_and_the_sleep_goes_on(void)
{
        struct machine m;
        machine(&m, "hooks", 3, 0);
        CHECK_INT(dmo_sleep_run(&m.p), ==, 0);
        CHECK(strcmp(log_of(&m), "pre hybrid-sleep hybrid-sleep|hooks-failed pre 3|"
                                 "hibernate --kernel sim --shutdown suspend|"
                                 "post hybrid-sleep hybrid-sleep|hooks-failed post 3|") == 0);

        /* No hooks at all: none run. */
        machine(&m, "no-hooks", 3, 0);
        m.p.hooks = NULL;
        CHECK_INT(dmo_sleep_run(&m.p), ==, 0);
        CHECK(strcmp(log_of(&m), "hibernate --kernel sim --shutdown suspend|") == 0);
}

static void test_a_hibernation_that_cannot_start_is_said_by_the_child(void)
{
        struct machine m;
        machine(&m, "no-program", 0, 0);
        m.p.hooks = NULL;
        snprintf(m.hibernate, sizeof(m.hibernate), "%s/missing", m.dir);
        CHECK_INT(dmo_sleep_run(&m.p), ==, -EIO);
        CHECK_STR_CONTAINS(log_of(&m), "exec-failed 2|hibernate-failed 127|");
}

static void test_a_low_battery_hibernates_before_any_suspend(void)
{
        struct machine m;
        machine(&m, "low", 0, 0);
        m.p.mode = DMO_SLEEP_SUSPEND_THEN_HIBERNATE;
        on_battery(&m, 4);
        CHECK_INT(dmo_sleep_run(&m.p), ==, 0);
        char want[256];
        snprintf(want, sizeof(want),
                 "hibernating %d|pre suspend-then-hibernate hibernate|hibernate --kernel sim|"
                 "post suspend-then-hibernate hibernate|",
                 (int)DMO_STH_BATTERY_LOW);
        CHECK(strcmp(log_of(&m), want) == 0);
}

static void test_a_wake_before_the_alarm_goes_back_to_the_session(void)
{
        struct machine m;
        machine(&m, "early", 0, 0);
        m.p.mode = DMO_SLEEP_SUSPEND_THEN_HIBERNATE;
        m.conf.hibernate_delay_us = UINT64_C(3600) * 1000000;
        /* The suspend returns at once: a wake an hour before the alarm. */
        CHECK_INT(dmo_sleep_run(&m.p), ==, 0);
        char want[256];
        snprintf(want, sizeof(want),
                 "waiting 0 %d|pre suspend-then-hibernate suspend|suspending suspend|woke|"
                 "post suspend-then-hibernate suspend|woken-early|",
                 (int)DMO_STH_UNTIL_DELAY);
        CHECK(strcmp(log_of(&m), want) == 0);
}

static void test_hibernate_on_ac_power_no_without_a_battery_is_told(void)
{
        struct machine m;
        machine(&m, "ac-rule", 0, 0);
        m.p.mode = DMO_SLEEP_SUSPEND_THEN_HIBERNATE;
        m.conf.hibernate_on_ac_power = false;
        m.conf.hibernate_delay_us = 1000000; /* within the alarm's accuracy: at once */
        CHECK_INT(dmo_sleep_run(&m.p), ==, 0);
        char want[256];
        snprintf(want, sizeof(want), "ac-rule-ignored|hibernating %d|", (int)DMO_STH_DELAY_REACHED);
        CHECK_STR_CONTAINS(log_of(&m), want);
}

static void test_the_mode_names_are_systemds(void)
{
        CHECK(strcmp(dmo_sleep_mode_name(DMO_SLEEP_SUSPEND_THEN_HIBERNATE),
                     "suspend-then-hibernate") == 0);
        CHECK(strcmp(dmo_sleep_mode_name(DMO_SLEEP_HYBRID), "hybrid-sleep") == 0);
}

DMO_TEST_MAIN(T(test_hybrid_sleep_hibernates_with_suspend_last_between_the_hooks),
              T(test_a_cancelled_hibernation_keeps_the_machine_up),
              T(test_a_failed_hibernation_suspends_instead),
              T(test_a_refused_suspend_is_the_result),
              T(test_failing_hooks_are_told_and_the_sleep_goes_on),
              T(test_a_hibernation_that_cannot_start_is_said_by_the_child),
              T(test_a_low_battery_hibernates_before_any_suspend),
              T(test_a_wake_before_the_alarm_goes_back_to_the_session),
              T(test_hibernate_on_ac_power_no_without_a_battery_is_told),
              T(test_the_mode_names_are_systemds))
