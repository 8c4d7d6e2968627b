/* What suspend-then-hibernate and hybrid sleep say: src/sleep's problems
 * in words (report.h). */
#include <stdarg.h>
#include <stdio.h>

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
