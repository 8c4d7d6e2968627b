/* util/tty: a terminal is opened again as a description of its own (its
 * O_NONBLOCK stays off the original), also when its name is gone, and what
 * is not a terminal is refused. */
#include "util/tty.h"

#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/testlib.h"

static void a_reopened_terminal_has_its_own_flags_and_reads_the_same_input(void)
{
        int master, slave;
        REQUIRE(openpty(&master, &slave, NULL, NULL, NULL) == 0);
        int fd = dmo_tty_reopen(slave, O_RDONLY);
        CHECK(fd >= 0);
        CHECK(fd != slave);
        CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
        CHECK(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0);
        CHECK(!(fcntl(slave, F_GETFL) & O_NONBLOCK));
        CHECK(write(master, "x\n", 2) == 2);
        char c[2] = {0};
        CHECK(read(fd, c, 2) == 2 && c[0] == 'x');
        close(fd);
        close(slave);
        close(master);
}

/* In a mount namespace of its own, a tmpfs over /dev/pts hides the pty's
 * name, as devtmpfs hides the rootfs's /dev/console in the initramfs. */
static int reopen_with_the_name_hidden(int slave)
{
        if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
            mount("tmpfs", "/dev/pts", "tmpfs", 0, NULL) != 0)
                return 2; /* no privilege for it here */
        if (ttyname(slave) != NULL)
                return 3;
        int fd = dmo_tty_reopen(slave, O_RDWR);
        return fd >= 0 && isatty(fd) ? 0 : 1;
}

static void a_terminal_whose_name_is_gone_is_still_reopened(void)
{
        int master, slave;
        REQUIRE(openpty(&master, &slave, NULL, NULL, NULL) == 0);
        pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0)
                _exit(reopen_with_the_name_hidden(slave));
        int status = 0;
        REQUIRE(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
        if (WEXITSTATUS(status) == 2)
                printf("# no mount namespace here (needs CAP_SYS_ADMIN): not checked\n");
        else
                CHECK_INT(WEXITSTATUS(status), ==, 0);
        close(slave);
        close(master);
}

static void what_is_not_a_terminal_is_refused(void)
{
        int p[2];
        REQUIRE(pipe(p) == 0);
        CHECK_INT(dmo_tty_reopen(p[0], O_RDONLY), ==, -ENOTTY);
        CHECK_INT(dmo_tty_reopen(-1, O_RDONLY), ==, -ENOTTY);
        close(p[0]);
        close(p[1]);
}

DMO_TEST_MAIN(T(a_reopened_terminal_has_its_own_flags_and_reads_the_same_input),
              T(a_terminal_whose_name_is_gone_is_still_reopened),
              T(what_is_not_a_terminal_is_refused))
