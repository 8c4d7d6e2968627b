/* How the CLI ends: its two kinds of message, and the one map from a
 * command's result (0 or a negative errno) to its documented exit status. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "cli/cli.h"
#include "util/i18n.h"

static void say(const char *kind, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
static void say(const char *kind, const char *fmt, va_list ap)
{
        fprintf(stderr, "dormouse: %s: ", kind);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
}

void dmo_cli_error(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        say(_("error"), fmt, ap);
        va_end(ap);
}

void dmo_cli_note(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        say(_("note"), fmt, ap);
        va_end(ap);
}

/* The documented exit statuses (cli.h, README.md, doc/cli.md). */
enum {
        DMO_EXIT_OK = 0,
        DMO_EXIT_NO_IMAGE = 1,
        DMO_EXIT_USAGE = 2,
        DMO_EXIT_REFUSED = 3,
        DMO_EXIT_MISMATCH = 4,
        DMO_EXIT_CANCELLED = 5,
        DMO_EXIT_FAILED = 6,
        DMO_EXIT_KEPT = 7,   /* resume: the image is still on disk; do not boot on */
        DMO_EXIT_LOCKED = 8, /* resume: encrypted, not unlocked; the image is untouched */
        /* resume: kept for the kernel that made it; restart into that one */
        DMO_EXIT_OTHER_KERNEL = 9,
};

/* Results every command shares, then each command's own; the last row of a
 * command (error 0) is its status for any other failure. */
static const struct {
        enum dmo_cli_command cmd;
        int error;
        int status;
} exit_map[] = {
    {DMO_CMD_HIBERNATE, -ECANCELED, DMO_EXIT_CANCELLED},
    {DMO_CMD_HIBERNATE, 0, DMO_EXIT_FAILED},
    {DMO_CMD_RESUME, -ENODATA, DMO_EXIT_NO_IMAGE},
    {DMO_CMD_RESUME, -ENOTRECOVERABLE, DMO_EXIT_MISMATCH},
    {DMO_CMD_RESUME, -EEXIST, DMO_EXIT_KEPT},
    {DMO_CMD_RESUME, -EKEYREJECTED, DMO_EXIT_LOCKED},
    {DMO_CMD_RESUME, -ENOKEY, DMO_EXIT_LOCKED},
    {DMO_CMD_RESUME, -EXDEV, DMO_EXIT_OTHER_KERNEL},
    {DMO_CMD_RESUME, 0, DMO_EXIT_REFUSED},
    {DMO_CMD_INFO, -ENODATA, DMO_EXIT_NO_IMAGE},
    {DMO_CMD_INFO, -ENOBUFS, DMO_EXIT_FAILED}, /* the JSON did not fit */
    {DMO_CMD_INFO, 0, DMO_EXIT_REFUSED},
    {DMO_CMD_PREVIEW, 0, DMO_EXIT_FAILED},
    {DMO_CMD_THEME, 0, DMO_EXIT_FAILED},
    {DMO_CMD_KEYGEN, 0, DMO_EXIT_FAILED},
    {DMO_CMD_ENROLL_TPM, 0, DMO_EXIT_FAILED},
    {DMO_CMD_SUSPEND_THEN_HIBERNATE, -ECANCELED, DMO_EXIT_CANCELLED},
    {DMO_CMD_SUSPEND_THEN_HIBERNATE, 0, DMO_EXIT_FAILED},
    {DMO_CMD_HYBRID_SLEEP, -ECANCELED, DMO_EXIT_CANCELLED},
    {DMO_CMD_HYBRID_SLEEP, 0, DMO_EXIT_FAILED},
    {DMO_CMD_MAIN, 0, DMO_EXIT_USAGE},
};

int dmo_cli_exit_status(enum dmo_cli_command cmd, int r)
{
        if (r >= 0)
                return DMO_EXIT_OK;
        if (r == -EINVAL)
                return DMO_EXIT_USAGE;
        for (size_t i = 0; i < sizeof(exit_map) / sizeof(exit_map[0]); i++)
                if (exit_map[i].cmd == cmd && (exit_map[i].error == r || exit_map[i].error == 0))
                        return exit_map[i].status;
        return DMO_EXIT_FAILED;
}
