/* dormouse suspend-then-hibernate and dormouse hybrid-sleep: the two sleep
 * modes of systemd that end in a hibernation, with dormouse's image
 * (splash, encryption, checks) instead of the kernel's.
 *
 * Each replaces systemd-sleep in its unit (data/systemd: a drop-in per
 * unit). The sleeps are systemd's: the same sleep.conf keys
 * (sleep/sleep_conf.h), the same timing (sleep/sth_plan.h), the system-sleep
 * hooks around every sleep with the same arguments and SYSTEMD_SLEEP_ACTION
 * (run by dormouse-sleep-hooks), and the same fallback when the
 * hibernation fails: suspend anyway, so that a dying battery does not end
 * with the machine left running. The hibernation itself is "dormouse
 * hibernate" run as a child with the options after "--", so that it is the
 * very command the Hibernate entry runs. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/report.h"
#include "kernel/power_supply.h"
#include "kernel/suspend.h"
#include "sleep/sleep_conf.h"
#include "sleep/sth_plan.h"
#include "util/i18n.h"

enum sleep_mode { MODE_SUSPEND_THEN_HIBERNATE, MODE_HYBRID_SLEEP };

static const char *const mode_name[] = {
    [MODE_SUSPEND_THEN_HIBERNATE] = "suspend-then-hibernate",
    [MODE_HYBRID_SLEEP] = "hybrid-sleep",
};

static const char default_hooks[] = DMO_PKGLIBEXECDIR "/dormouse-sleep-hooks";

struct sleep_cmd {
        enum sleep_mode mode;
        const char *hooks;     /* dormouse-sleep-hooks, or NULL for none */
        const char *power_dir; /* /sys/power */
        const char *sysfs;     /* /sys, for the power supplies */
        const char *conf_root; /* "" */
        const char *delay;     /* --hibernate-delay as given */
        char **hibernate_argv; /* after "--" */
        int hibernate_argc;
        bool test_machine; /* --power-dir given: a test's stand-in */
        struct dmo_sleep_conf conf;
};

static void usage(FILE *f, enum sleep_mode mode)
{
        if (mode == MODE_SUSPEND_THEN_HIBERNATE)
                fprintf(
                    f, "%s",
                    _("Usage: dormouse suspend-then-hibernate [OPTIONS] [-- HIBERNATE-OPTIONS]\n"
                      "Suspend to RAM, then hibernate with dormouse when the battery runs low\n"
                      "or HibernateDelaySec= of sleep.conf has passed (systemd's rules).\n"
                      "A wake before that returns to the session with no image.\n\n"));
        else
                fprintf(f, "%s",
                        _("Usage: dormouse hybrid-sleep [OPTIONS] [-- HIBERNATE-OPTIONS]\n"
                          "Write the image with dormouse, then suspend to RAM instead of powering\n"
                          "off: a wake discards the image, a power loss resumes from it.\n\n"));
        fprintf(f,
                _("  --hibernate-delay SPAN  instead of HibernateDelaySec= (e.g. 90s, 30min, 2h)\n"
                  "  --sleep-hooks PATH|none  runs the system-sleep hooks (default %s)\n"
                  "  --power-dir DIR        /sys/power's stand-in (tests, simulated kernel only)\n"
                  "  --sysfs DIR            /sys's stand-in for the power supplies (tests)\n"
                  "  --sleep-conf-root DIR  where systemd's sleep.conf files are read (tests)\n"
                  "Options after \"--\" go to \"dormouse hibernate\".\n"),
                default_hooks);
}

enum { OPT_DELAY = 2000, OPT_HOOKS, OPT_POWER_DIR, OPT_SYSFS, OPT_CONF_ROOT, OPT_SLEEP_HELP };

/* Whether the hibernate options ask for the simulated kernel. */
static bool asks_simulated_kernel(char **argv, int argc)
{
        for (int i = 0; i < argc; i++) {
                if (strcmp(argv[i], "--kernel=sim") == 0)
                        return true;
                if (strcmp(argv[i], "--kernel") == 0 && i + 1 < argc &&
                    strcmp(argv[i + 1], "sim") == 0)
                        return true;
        }
        return false;
}

static int parse(struct sleep_cmd *s, int argc, char **argv, bool *help)
{
        static const struct option opts[] = {
            {"hibernate-delay", required_argument, NULL, OPT_DELAY},
            {"sleep-hooks", required_argument, NULL, OPT_HOOKS},
            {"power-dir", required_argument, NULL, OPT_POWER_DIR},
            {"sysfs", required_argument, NULL, OPT_SYSFS},
            {"sleep-conf-root", required_argument, NULL, OPT_CONF_ROOT},
            {"help", no_argument, NULL, OPT_SLEEP_HELP},
            {0},
        };
        int opt;
        optind = 1;
        while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (opt) {
                case OPT_DELAY:
                        s->delay = optarg;
                        break;
                case OPT_HOOKS:
                        s->hooks = strcmp(optarg, "none") == 0 ? NULL : optarg;
                        break;
                case OPT_POWER_DIR:
                        s->power_dir = optarg;
                        s->test_machine = true;
                        break;
                case OPT_SYSFS:
                        s->sysfs = optarg;
                        break;
                case OPT_CONF_ROOT:
                        s->conf_root = optarg;
                        break;
                case OPT_SLEEP_HELP:
                        usage(stdout, s->mode);
                        *help = true;
                        return 0;
                default:
                        usage(stderr, s->mode);
                        return -EINVAL;
                }
        }
        /* getopt stops at "--" and leaves optind after it. */
        if (optind < argc && strcmp(argv[optind - 1], "--") != 0) {
                dmo_cli_error(_("%s: unexpected argument \"%s\"; options for \"dormouse "
                                "hibernate\" go after \"--\""),
                              mode_name[s->mode], argv[optind]);
                return -EINVAL;
        }
        s->hibernate_argv = argv + optind;
        s->hibernate_argc = argc - optind;
        /* Never suspend the machine a test runs on, never hibernate a real
         * kernel under a test's stand-in for /sys/power. */
        bool simulated = asks_simulated_kernel(s->hibernate_argv, s->hibernate_argc);
        if (simulated && !s->test_machine) {
                dmo_cli_error(_("%s: --kernel sim needs --power-dir: the simulated kernel never "
                                "suspends the machine it runs on"),
                              mode_name[s->mode]);
                return -EINVAL;
        }
        if (!simulated && s->test_machine) {
                dmo_cli_error(_("%s: --power-dir is for tests, with \"-- --kernel sim\""),
                              mode_name[s->mode]);
                return -EINVAL;
        }
        return 0;
}

static int load_conf(struct sleep_cmd *s)
{
        int r = dmo_sleep_conf_load(s->conf_root, &s->conf);
        if (r < 0) {
                dmo_cli_error(_("cannot read systemd's sleep.conf: %s"), strerror(-r));
                return r;
        }
        dmo_cli_sleep_conf_problem(&s->conf.problem);
        if (s->delay) {
                uint64_t us;
                if (dmo_parse_timespan(s->delay, &us) < 0 || us == 0) {
                        dmo_cli_error(_("--hibernate-delay: \"%s\" is not a time span; give "
                                        "e.g. 90s, 30min or 2h"),
                                      s->delay);
                        return -EINVAL;
                }
                s->conf.hibernate_delay_us = us;
        }
        bool allowed = s->mode == MODE_SUSPEND_THEN_HIBERNATE ? s->conf.allow_suspend_then_hibernate
                                                              : s->conf.allow_hybrid_sleep;
        if (!allowed) {
                dmo_cli_error(_("%s is disabled in systemd's sleep.conf (%s=no, or "
                                "AllowSuspend=no or AllowHibernation=no); nothing was done"),
                              mode_name[s->mode],
                              s->mode == MODE_SUSPEND_THEN_HIBERNATE ? "AllowSuspendThenHibernate"
                                                                     : "AllowHybridSleep");
                return -EPERM;
        }
        return 0;
}

/* Runs a child and waits for it; its exit status, or 128 + signal, or a
 * negative errno when it could not be started. */
static int run_child(const char *path, char *const argv[], const char *sleep_action)
{
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                if (sleep_action)
                        setenv("SYSTEMD_SLEEP_ACTION", sleep_action, 1);
                execv(path, argv);
                fprintf(stderr, "dormouse: %s: %s\n", path, strerror(errno));
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
static void run_hooks(const struct sleep_cmd *s, const char *when, const char *sleep_action)
{
        if (!s->hooks)
                return;
        char *argv[] = {(char *)s->hooks, "hooks", (char *)when, (char *)mode_name[s->mode], NULL};
        int r = run_child(s->hooks, argv, sleep_action);
        if (r != 0)
                dmo_cli_note(_("the system-sleep hooks (%s %s %s) ended with status %d"), s->hooks,
                             when, mode_name[s->mode], r);
}

/* One suspend to RAM between the hooks. */
static int suspend_once(const struct sleep_cmd *s, const char *sleep_action)
{
        const char *states[DMO_SLEEP_WORDS_MAX], *modes[DMO_SLEEP_WORDS_MAX];
        for (unsigned i = 0; i < s->conf.suspend_state.n; i++)
                states[i] = s->conf.suspend_state.word[i];
        for (unsigned i = 0; i < s->conf.memory_sleep_mode.n; i++)
                modes[i] = s->conf.memory_sleep_mode.word[i];
        run_hooks(s, "pre", sleep_action);
        fprintf(stderr, _("dormouse: suspending to RAM (%s)\n"), sleep_action);
        int r = dmo_suspend_to_ram(s->power_dir, states, s->conf.suspend_state.n, modes,
                                   s->conf.memory_sleep_mode.n);
        if (r < 0)
                dmo_cli_error(_("the kernel refused to suspend (%s/state: %s); the system did "
                                "not sleep"),
                              s->power_dir, strerror(-r));
        else
                fprintf(stderr, _("dormouse: woke from suspend\n"));
        run_hooks(s, "post", sleep_action);
        return r;
}

/* "dormouse hibernate" with the options after "--"; its exit status. */
static int run_hibernate(const struct sleep_cmd *s, bool then_suspend)
{
        char **argv = calloc((size_t)s->hibernate_argc + 5, sizeof(*argv));
        if (!argv)
                return -ENOMEM;
        int n = 0;
        argv[n++] = "dormouse";
        argv[n++] = "hibernate";
        for (int i = 0; i < s->hibernate_argc; i++)
                argv[n++] = s->hibernate_argv[i];
        if (then_suspend) {
                /* Last, so that no other --shutdown wins. */
                argv[n++] = "--shutdown";
                argv[n++] = "suspend";
        }
        int r = run_child("/proc/self/exe", argv, NULL);
        free(argv);
        return r;
}

/* After "dormouse hibernate" ended with status: 0 done, 5 cancelled (the
 * person pressed Esc: they are at the machine, it stays up), anything
 * else failed: suspend all the same, as systemd-sleep does. */
static int after_hibernate(const struct sleep_cmd *s, int status, const char *fallback_action)
{
        if (status == 0)
                return 0;
        if (status == 5) {
                fprintf(stderr,
                        _("dormouse: the hibernation was cancelled; the system stays up\n"));
                return -ECANCELED;
        }
        dmo_cli_error(_("dormouse hibernate failed (status %d); suspending to RAM instead, as "
                        "systemd-sleep does: the session is kept in memory only"),
                      status);
        int r = suspend_once(s, fallback_action);
        return r < 0 ? r : -EIO;
}

static const char *reason_text(enum dmo_sth_reason reason)
{
        switch (reason) {
        case DMO_STH_BATTERY_LOW:
                return _("the battery is low");
        case DMO_STH_DELAY_REACHED:
                return _("HibernateDelaySec= has passed");
        case DMO_STH_ALARM_NO_BATTERY:
                return _("the wake alarm rang and there is no battery to watch");
        case DMO_STH_PERSON_WOKE:
                return _("woken before the alarm");
        case DMO_STH_CHECK_BATTERY:
                return _("the alarm will look at the battery");
        case DMO_STH_UNTIL_DELAY:
                return _("until HibernateDelaySec=");
        }
        return "";
}

static int read_power(const struct sleep_cmd *s, struct dmo_power_state *p)
{
        int r = dmo_power_state_read(s->sysfs, p);
        if (r < 0) {
                dmo_cli_note(_("cannot read the power supplies (%s/class/power_supply: %s); "
                               "going by the timer only"),
                             s->sysfs, strerror(-r));
                *p = (struct dmo_power_state){.fullest_percent = -1, .on_ac = true};
        }
        return 0;
}

static int suspend_then_hibernate(struct sleep_cmd *s)
{
        int alarm = dmo_wake_alarm_open(s->test_machine);
        if (alarm < 0) {
                dmo_cli_error(_("cannot set a wake alarm (%s): this machine has no RTC alarm the "
                                "kernel can use, so a suspend would never end in a "
                                "hibernation; nothing was done"),
                              strerror(-alarm));
                return alarm;
        }
        struct dmo_sth_plan plan;
        struct dmo_power_state power;
        dmo_sth_begin(&plan, &s->conf, dmo_boottime_us());
        if (s->conf.hibernate_on_ac_power == false && (read_power(s, &power), power.batteries == 0))
                dmo_cli_note(_("HibernateOnACPower=no is ignored: this machine has no battery"));
        int r = 0;
        for (;;) {
                read_power(s, &power);
                uint64_t now = dmo_boottime_us();
                enum dmo_sth_step step = dmo_sth_next(&plan, &s->conf, &power, now);
                if (step == DMO_STH_HIBERNATE)
                        break;
                r = dmo_wake_alarm_set(alarm, plan.wake_at);
                if (r < 0) {
                        dmo_cli_error(_("cannot set the wake alarm: %s"), strerror(-r));
                        goto out;
                }
                if (power.batteries == 0)
                        fprintf(stderr,
                                _("dormouse: no battery: hibernating after %.0f s of "
                                  "suspend (%s)\n"),
                                (double)(plan.wake_at - now) / 1e6, reason_text(plan.reason));
                else
                        fprintf(stderr, _("dormouse: battery at %d %%: waking in %.0f s (%s)\n"),
                                power.fullest_percent, (double)(plan.wake_at - now) / 1e6,
                                reason_text(plan.reason));
                r = suspend_once(s, "suspend");
                if (r < 0)
                        goto out;
                read_power(s, &power);
                now = dmo_boottime_us();
                step = dmo_sth_after_wake(&plan, &power, now);
                if (step == DMO_STH_RETURN) {
                        fprintf(stderr,
                                _("dormouse: woken %.0f s before the alarm: back to the "
                                  "session, no image written\n"),
                                (double)(plan.wake_at - now) / 1e6);
                        goto out;
                }
                if (step == DMO_STH_HIBERNATE)
                        break;
        }
        fprintf(stderr, _("dormouse: hibernating: %s\n"), reason_text(plan.reason));
        run_hooks(s, "pre", "hibernate");
        int status = run_hibernate(s, false);
        run_hooks(s, "post", "hibernate");
        r = status < 0 ? status : after_hibernate(s, status, "suspend-after-failed-hibernate");
out:
        close(alarm);
        return r;
}

static int hybrid_sleep(struct sleep_cmd *s)
{
        run_hooks(s, "pre", "hybrid-sleep");
        int status = run_hibernate(s, true);
        run_hooks(s, "post", "hybrid-sleep");
        return status < 0 ? status
                          : after_hibernate(s, status, "suspend-after-failed-hybrid-sleep");
}

static int run_sleep(enum sleep_mode mode, int argc, char **argv)
{
        struct sleep_cmd s = {
            .mode = mode,
            .hooks = default_hooks,
            .power_dir = "/sys/power",
            .sysfs = "/sys",
            .conf_root = "",
        };
        bool help = false;
        int r = parse(&s, argc, argv, &help);
        if (r < 0 || help)
                return r;
        r = load_conf(&s);
        if (r < 0)
                return r;
        return mode == MODE_SUSPEND_THEN_HIBERNATE ? suspend_then_hibernate(&s) : hybrid_sleep(&s);
}

int dmo_cmd_suspend_then_hibernate(int argc, char **argv)
{
        return dmo_cli_exit_status(DMO_CMD_SUSPEND_THEN_HIBERNATE,
                                   run_sleep(MODE_SUSPEND_THEN_HIBERNATE, argc, argv));
}

int dmo_cmd_hybrid_sleep(int argc, char **argv)
{
        return dmo_cli_exit_status(DMO_CMD_HYBRID_SLEEP, run_sleep(MODE_HYBRID_SLEEP, argc, argv));
}
