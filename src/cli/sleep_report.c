/* What suspend-then-hibernate and hybrid sleep say: src/sleep's problems
 * and events in words (report.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/report.h"
#include "util/i18n.h"

/* "FILE:LINE: what", cut as one line of 255 bytes. */
static void problem_line(char *buf, size_t len, const struct dmo_sleep_conf_problem *p,
                         const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void problem_line(char *buf, size_t len, const struct dmo_sleep_conf_problem *p,
                         const char *fmt, ...)
{
        int n = snprintf(buf, len, "%s:%u: ", p->file, p->line);
        if (n < 0 || (size_t)n >= len)
                return;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf + n, len - (size_t)n, fmt, ap);
        va_end(ap);
}

void dmo_cli_sleep_conf_problem(const struct dmo_sleep_conf_problem *p)
{
        char text[256];
        switch (p->kind) {
        case DMO_SLEEP_CONF_FINE:
                return;
        case DMO_SLEEP_CONF_NOT_BOOL:
                problem_line(text, sizeof(text), p, _("%s=%s is not yes or no; ignored"), p->key,
                             p->value);
                break;
        case DMO_SLEEP_CONF_NOT_TIMESPAN:
                problem_line(text, sizeof(text), p, _("%s=%s is not a time span; ignored"), p->key,
                             p->value);
                break;
        case DMO_SLEEP_CONF_UNKNOWN_KEY:
                problem_line(text, sizeof(text), p, _("unknown key %s (value \"%s\"); ignored"),
                             p->key, p->value);
                break;
        case DMO_SLEEP_CONF_NOT_KEY_VALUE:
                problem_line(text, sizeof(text), p, _("\"%s\" is not KEY=VALUE; ignored"),
                             p->value);
                break;
        }
        dmo_cli_note("%s", text);
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
        case DMO_STH_ALARM_NO_CHARGE:
                return _("the wake alarm rang and the battery does not tell its charge");
        case DMO_STH_PERSON_WOKE:
                return _("woken before the alarm");
        case DMO_STH_CHECK_BATTERY:
                return _("the alarm will look at the battery");
        case DMO_STH_UNTIL_DELAY:
                return _("until HibernateDelaySec=");
        }
        return "";
}

/* The sleep's waits, suspends, wakes and the hibernation's end. */
static void say_progress(const struct dmo_sleep_event *e)
{
        switch (e->kind) {
        case DMO_SLEEP_SUSPENDING:
                fprintf(stderr, _("dormouse: suspending to RAM (%s)\n"), e->action);
                break;
        case DMO_SLEEP_WOKE:
                fprintf(stderr, _("dormouse: woke from suspend\n"));
                break;
        case DMO_SLEEP_HIBERNATE_CANCELLED:
                fprintf(stderr,
                        _("dormouse: the hibernation was cancelled; the system stays up\n"));
                break;
        case DMO_SLEEP_WAITING:
                if (e->power->batteries == 0)
                        fprintf(stderr,
                                _("dormouse: no battery: hibernating after %.0f s of "
                                  "suspend (%s)\n"),
                                (double)e->us / 1e6, reason_text(e->reason));
                else if (!dmo_power_state_charge_known(e->power))
                        fprintf(stderr,
                                _("dormouse: the battery does not tell its charge: going by "
                                  "the timer, hibernating after %.0f s of suspend (%s)\n"),
                                (double)e->us / 1e6, reason_text(e->reason));
                else
                        fprintf(stderr, _("dormouse: battery at %d %%: waking in %.0f s (%s)\n"),
                                e->power->fullest_percent, (double)e->us / 1e6,
                                reason_text(e->reason));
                break;
        case DMO_SLEEP_WOKEN_EARLY:
                fprintf(stderr,
                        _("dormouse: woken %.0f s before the alarm: back to the "
                          "session, no image written\n"),
                        (double)e->us / 1e6);
                break;
        case DMO_SLEEP_HIBERNATING:
                fprintf(stderr, _("dormouse: hibernating: %s\n"), reason_text(e->reason));
                break;
        default:
                break;
        }
}

void dmo_cli_sleep_report(void *ctx, const struct dmo_sleep_event *e)
{
        const struct dmo_sleep_params *p = ctx;
        switch (e->kind) {
        case DMO_SLEEP_HOOKS_FAILED:
                dmo_cli_note(_("the system-sleep hooks (%s %s %s) ended with status %d"),
                             e->program, e->when, dmo_sleep_mode_name(p->mode), e->status);
                break;
        case DMO_SLEEP_EXEC_FAILED:
                fprintf(stderr, "dormouse: %s: %s\n", e->program, strerror(-e->error));
                break;
        case DMO_SLEEP_SUSPEND_REFUSED:
                dmo_cli_error(_("the kernel refused to suspend (%s/state: %s); the system did "
                                "not sleep"),
                              p->power_dir, strerror(-e->error));
                break;
        case DMO_SLEEP_HIBERNATE_FAILED:
                dmo_cli_error(_("dormouse hibernate failed (status %d); suspending to RAM instead, "
                                "as systemd-sleep does: the session is kept in memory only"),
                              e->status);
                break;
        case DMO_SLEEP_NO_POWER_INFO:
                dmo_cli_note(_("cannot read the power supplies (%s/class/power_supply: %s); "
                               "going by the timer only"),
                             p->sysfs, strerror(-e->error));
                break;
        case DMO_SLEEP_AC_RULE_IGNORED:
                dmo_cli_note(_("HibernateOnACPower=no is ignored: this machine has no battery"));
                break;
        case DMO_SLEEP_NO_WAKE_ALARM:
                dmo_cli_error(_("cannot set a wake alarm (%s): this machine has no RTC alarm the "
                                "kernel can use, so a suspend would never end in a "
                                "hibernation; nothing was done"),
                              strerror(-e->error));
                break;
        case DMO_SLEEP_WAKE_ALARM_FAILED:
                dmo_cli_error(_("cannot set the wake alarm: %s"), strerror(-e->error));
                break;
        default:
                say_progress(e);
                break;
        }
}
