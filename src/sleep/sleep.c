/* systemd-sleep's two sleep modes that end in a hibernation (sleep.h). */
#include "sleep/sleep.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel/suspend.h"

/* "dormouse hibernate"'s status when the person cancelled it. */
#define HIBERNATE_CANCELLED 5

static const char *const mode_names[] = {
    [DMO_SLEEP_SUSPEND_THEN_HIBERNATE] = "suspend-then-hibernate",
    [DMO_SLEEP_HYBRID] = "hybrid-sleep",
};

const char *dmo_sleep_mode_name(enum dmo_sleep_mode mode)
{
        return mode_names[mode];
}

static void tell(const struct dmo_sleep_params *p, struct dmo_sleep_event e)
{
        if (p->report)
                p->report(p->ctx, &e);
}

/* Runs a child and waits for it; its exit status, or 128 + signal, or a
 * negative errno when it could not be started. */
static int run_child(const struct dmo_sleep_params *p, const char *path, char *const argv[],
                     const char *sleep_action)
{
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                if (sleep_action)
                        setenv("SYSTEMD_SLEEP_ACTION", sleep_action, 1);
                execv(path, argv);
                tell(p, (struct dmo_sleep_event){
                            .kind = DMO_SLEEP_EXEC_FAILED, .program = path, .error = -errno});
                _exit(127);
        }
        int status;
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        if (WIFSIGNALED(status))
                return 128 + WTERMSIG(status);
        return WEXITSTATUS(status);
}

/* The system-sleep hooks, "pre" or "post", as systemd-sleep runs them:
 * the overall mode as their argument, this step in SYSTEMD_SLEEP_ACTION. */
static void run_hooks(const struct dmo_sleep_params *p, const char *when, const char *sleep_action)
{
        if (!p->hooks)
                return;
        char *argv[] = {(char *)p->hooks, "hooks", (char *)when,
                        (char *)dmo_sleep_mode_name(p->mode), NULL};
        int r = run_child(p, p->hooks, argv, sleep_action);
        if (r != 0)
                tell(p, (struct dmo_sleep_event){.kind = DMO_SLEEP_HOOKS_FAILED,
                                                 .program = p->hooks,
                                                 .when = when,
                                                 .status = r});
}

/* One suspend to RAM between the hooks. */
static int suspend_once(const struct dmo_sleep_params *p, const char *sleep_action)
{
        const struct dmo_sleep_conf *c = p->conf;
        const char *states[DMO_SLEEP_WORDS_MAX], *modes[DMO_SLEEP_WORDS_MAX];
        for (unsigned i = 0; i < c->suspend_state.n; i++)
                states[i] = c->suspend_state.word[i];
        for (unsigned i = 0; i < c->memory_sleep_mode.n; i++)
                modes[i] = c->memory_sleep_mode.word[i];
        run_hooks(p, "pre", sleep_action);
        tell(p, (struct dmo_sleep_event){.kind = DMO_SLEEP_SUSPENDING, .action = sleep_action});
        int r = dmo_suspend_to_ram(p->power_dir, states, c->suspend_state.n, modes,
                                   c->memory_sleep_mode.n);
        tell(p, (struct dmo_sleep_event){.kind = r < 0 ? DMO_SLEEP_SUSPEND_REFUSED : DMO_SLEEP_WOKE,
                                         .error = r});
        run_hooks(p, "post", sleep_action);
        return r;
}

/* "dormouse hibernate" with the caller's options; its exit status. */
static int run_hibernate(const struct dmo_sleep_params *p, bool then_suspend)
{
        char **argv = calloc((size_t)p->hibernate_argc + 5, sizeof(*argv));
        if (!argv)
                return -ENOMEM;
        int n = 0;
        argv[n++] = "dormouse";
        argv[n++] = "hibernate";
        for (int i = 0; i < p->hibernate_argc; i++)
                argv[n++] = p->hibernate_argv[i];
        if (then_suspend) {
                /* Last, so that no other --shutdown wins. */
                argv[n++] = "--shutdown";
                argv[n++] = "suspend";
        }
        int r = run_child(p, p->hibernate_program, argv, NULL);
        free(argv);
        return r;
}

/* After the hibernation ended with status: done, cancelled, or failed and
 * a suspend instead. */
static int after_hibernate(const struct dmo_sleep_params *p, int status,
                           const char *fallback_action)
{
        if (status == 0)
                return 0;
        if (status == HIBERNATE_CANCELLED) {
                tell(p, (struct dmo_sleep_event){.kind = DMO_SLEEP_HIBERNATE_CANCELLED});
                return -ECANCELED;
        }
        tell(p, (struct dmo_sleep_event){.kind = DMO_SLEEP_HIBERNATE_FAILED, .status = status});
        int r = suspend_once(p, fallback_action);
        return r < 0 ? r : -EIO;
}

/* The power supplies; unreadable, a machine on AC without a battery (the
 * timer alone decides). */
static void read_power(const struct dmo_sleep_params *p, struct dmo_power_state *power)
{
        int r = dmo_power_state_read(p->sysfs, power);
        if (r < 0) {
                tell(p, (struct dmo_sleep_event){.kind = DMO_SLEEP_NO_POWER_INFO, .error = r});
                *power = (struct dmo_power_state){.fullest_percent = -1, .on_ac = true};
        }
}

/* Suspends until the plan says hibernate: 1 then, 0 when the person woke
 * the machine (back to the session), or a negative errno. */
static int suspend_until_hibernate(const struct dmo_sleep_params *p, int alarm,
                                   struct dmo_sth_plan *plan)
{
        struct dmo_power_state power;
        dmo_sth_begin(plan, p->conf, dmo_boottime_us());
        if (p->conf->hibernate_on_ac_power == false &&
            (read_power(p, &power), power.batteries == 0))
                tell(p, (struct dmo_sleep_event){.kind = DMO_SLEEP_AC_RULE_IGNORED});
        for (;;) {
                read_power(p, &power);
                uint64_t now = dmo_boottime_us();
                if (dmo_sth_next(plan, p->conf, &power, now) == DMO_STH_HIBERNATE)
                        return 1;
                int r = dmo_wake_alarm_set(alarm, plan->wake_at);
                if (r < 0) {
                        tell(p, (struct dmo_sleep_event){.kind = DMO_SLEEP_WAKE_ALARM_FAILED,
                                                         .error = r});
                        return r;
                }
                tell(p, (struct dmo_sleep_event){.kind = DMO_SLEEP_WAITING,
                                                 .power = &power,
                                                 .us = plan->wake_at - now,
                                                 .reason = plan->reason});
                r = suspend_once(p, "suspend");
                if (r < 0)
                        return r;
                read_power(p, &power);
                now = dmo_boottime_us();
                enum dmo_sth_step step = dmo_sth_after_wake(plan, &power, now);
                if (step == DMO_STH_RETURN) {
                        tell(p, (struct dmo_sleep_event){.kind = DMO_SLEEP_WOKEN_EARLY,
                                                         .us = plan->wake_at - now});
                        return 0;
                }
                if (step == DMO_STH_HIBERNATE)
                        return 1;
        }
}

static int suspend_then_hibernate(const struct dmo_sleep_params *p)
{
        int alarm = dmo_wake_alarm_open(p->test_machine);
        if (alarm < 0) {
                tell(p, (struct dmo_sleep_event){.kind = DMO_SLEEP_NO_WAKE_ALARM, .error = alarm});
                return alarm;
        }
        struct dmo_sth_plan plan;
        int r = suspend_until_hibernate(p, alarm, &plan);
        if (r > 0) {
                tell(p, (struct dmo_sleep_event){.kind = DMO_SLEEP_HIBERNATING,
                                                 .reason = plan.reason});
                run_hooks(p, "pre", "hibernate");
                int status = run_hibernate(p, false);
                run_hooks(p, "post", "hibernate");
                r = status < 0 ? status
                               : after_hibernate(p, status, "suspend-after-failed-hibernate");
        }
        close(alarm);
        return r;
}

static int hybrid_sleep(const struct dmo_sleep_params *p)
{
        run_hooks(p, "pre", "hybrid-sleep");
        int status = run_hibernate(p, true);
        run_hooks(p, "post", "hybrid-sleep");
        return status < 0 ? status
                          : after_hibernate(p, status, "suspend-after-failed-hybrid-sleep");
}

int dmo_sleep_run(const struct dmo_sleep_params *p)
{
        return p->mode == DMO_SLEEP_SUSPEND_THEN_HIBERNATE ? suspend_then_hibernate(p)
                                                           : hybrid_sleep(p);
}
