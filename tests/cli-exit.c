/* The one map from a command's result to its exit status, and how the
 * CLI's two kinds of message look. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tests/testlib.h"

static void documented_exit_codes(void)
{
        /* README.md and doc/cli.md: these must never change. */
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_HIBERNATE, 0), ==, 0);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_HIBERNATE, -EINVAL), ==, 2);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_HIBERNATE, -ECANCELED), ==, 5);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_HIBERNATE, -EIO), ==, 6);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_HIBERNATE, -ENOSPC), ==, 6);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_RESUME, 0), ==, 0);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_RESUME, -ENODATA), ==, 1);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_RESUME, -EINVAL), ==, 2);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_RESUME, -EIO), ==, 3);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_RESUME, -ENOENT), ==, 3);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_RESUME, -ENOTRECOVERABLE), ==, 4);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_RESUME, -EEXIST), ==, 7);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_INFO, 0), ==, 0);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_INFO, -ENODATA), ==, 1);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_INFO, -EINVAL), ==, 2);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_INFO, -EBADMSG), ==, 3);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_PREVIEW, 0), ==, 0);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_PREVIEW, -EINVAL), ==, 2);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_PREVIEW, -EIO), ==, 6);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_THEME, 0), ==, 0);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_THEME, -EIO), ==, 6);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_MAIN, 0), ==, 0);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_MAIN, -EINVAL), ==, 2);
}

static void results_of_one_command_do_not_leak_into_another(void)
{
        /* "no image" and "cancelled" mean something only where documented. */
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_HIBERNATE, -ENODATA), ==, 6);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_RESUME, -ECANCELED), ==, 3);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_INFO, -ENOTRECOVERABLE), ==, 3);
        CHECK_INT(dmo_cli_exit_status(DMO_CMD_HIBERNATE, -EEXIST), ==, 6);
}

/* Runs fn with stderr going to a file; returns what it printed. */
static const char *captured(void (*fn)(void))
{
        static char buf[512];
        char path[1024];
        snprintf(path, sizeof(path), "%s/stderr.txt", dmo_test_tmpdir());
        fflush(stderr);
        int saved = dup(2);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (saved < 0 || fd < 0)
                return "";
        dup2(fd, 2);
        close(fd);
        fn();
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        return dmo_test_read_file(path, buf, sizeof(buf));
}

static void say_error(void)
{
        dmo_cli_error("%s: broken", "/dev/vda2");
}

static void say_note(void)
{
        dmo_cli_note("%s: worth knowing", "/etc/dormouse.conf");
}

/* Behaviour change: a note used to look exactly like an error. */
static void notes_and_errors_look_different(void)
{
        CHECK(strcmp(captured(say_error), "dormouse: error: /dev/vda2: broken\n") == 0);
        CHECK(strcmp(captured(say_note), "dormouse: note: /etc/dormouse.conf: worth knowing\n") ==
              0);
}

DMO_TEST_MAIN(T(documented_exit_codes), T(results_of_one_command_do_not_leak_into_another),
              T(notes_and_errors_look_different))
