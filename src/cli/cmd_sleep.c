/* dormouse suspend-then-hibernate and dormouse hybrid-sleep: the two sleep
 * modes of systemd that end in a hibernation, with dormouse's image
 * (splash, encryption, checks) instead of the kernel's.
 *
 * Each replaces systemd-sleep in its unit (data/systemd: a drop-in per
 * unit). The sleeps are systemd's, and src/sleep's: the same sleep.conf
 * keys (sleep/sleep_conf.h), the same timing (sleep/sth_plan.h), the
 * system-sleep hooks around every sleep (run by dormouse-sleep-hooks) and
 * the same fallback when the hibernation fails (sleep/sleep.h). The
 * hibernation itself is "dormouse hibernate" run as a child with the
 * options after "--", so that it is the very command the Hibernate entry
 * runs. This file parses, and says what src/sleep reports (sleep_report.c). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/report.h"
#include "sleep/sleep.h"
#include "util/i18n.h"

static const char default_hooks[] = DMO_PKGLIBEXECDIR "/dormouse-sleep-hooks";

struct sleep_cmd {
        enum dmo_sleep_mode mode;
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

static void usage(FILE *f, enum dmo_sleep_mode mode)
{
        if (mode == DMO_SLEEP_SUSPEND_THEN_HIBERNATE)
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
                              dmo_sleep_mode_name(s->mode), argv[optind]);
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
                              dmo_sleep_mode_name(s->mode));
                return -EINVAL;
        }
        if (!simulated && s->test_machine) {
                dmo_cli_error(_("%s: --power-dir is for tests, with \"-- --kernel sim\""),
                              dmo_sleep_mode_name(s->mode));
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
        bool allowed = s->mode == DMO_SLEEP_SUSPEND_THEN_HIBERNATE
                           ? s->conf.allow_suspend_then_hibernate
                           : s->conf.allow_hybrid_sleep;
        if (!allowed) {
                dmo_cli_error(_("%s is disabled in systemd's sleep.conf (%s=no, or "
                                "AllowSuspend=no or AllowHibernation=no); nothing was done"),
                              dmo_sleep_mode_name(s->mode),
                              s->mode == DMO_SLEEP_SUSPEND_THEN_HIBERNATE
                                  ? "AllowSuspendThenHibernate"
                                  : "AllowHybridSleep");
                return -EPERM;
        }
        return 0;
}

static int run_sleep(enum dmo_sleep_mode mode, int argc, char **argv)
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
        struct dmo_sleep_params p = {
            .mode = mode,
            .conf = &s.conf,
            .hooks = s.hooks,
            .power_dir = s.power_dir,
            .sysfs = s.sysfs,
            .test_machine = s.test_machine,
            .hibernate_program = "/proc/self/exe",
            .hibernate_argv = s.hibernate_argv,
            .hibernate_argc = s.hibernate_argc,
            .report = dmo_cli_sleep_report,
        };
        p.ctx = &p;
        return dmo_sleep_run(&p);
}

int dmo_cmd_suspend_then_hibernate(int argc, char **argv)
{
        return dmo_cli_exit_status(DMO_CMD_SUSPEND_THEN_HIBERNATE,
                                   run_sleep(DMO_SLEEP_SUSPEND_THEN_HIBERNATE, argc, argv));
}

int dmo_cmd_hybrid_sleep(int argc, char **argv)
{
        return dmo_cli_exit_status(DMO_CMD_HYBRID_SLEEP, run_sleep(DMO_SLEEP_HYBRID, argc, argv));
}
