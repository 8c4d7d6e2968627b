#include "tests/testpty.h"

#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/testlib.h"

enum { SEEN_CAP = 1 << 16 };

struct dmo_test_pty {
        pid_t pid;
        int master; /* -1 once the far side hung up */
        int pidfd;  /* -1 where the kernel has no pidfd_open */
        bool reaped;
        int status;  /* waitpid's, once reaped */
        size_t have; /* bytes in seen */
        size_t from; /* where the next match is searched from */
        char seen[SEEN_CAP + 1];
};

int dmo_test_pty_spawn(const char *const argv[], struct dmo_test_pty **out)
{
        struct dmo_test_pty *t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        fflush(stdout);
        t->pid = forkpty(&t->master, NULL, NULL, NULL);
        if (t->pid < 0) {
                int err = -errno;
                free(t);
                return err;
        }
        if (t->pid == 0) {
                execv(argv[0], (char *const *)argv);
                _exit(127);
        }
#ifdef SYS_pidfd_open
        t->pidfd = (int)syscall(SYS_pidfd_open, t->pid, 0);
#else
        t->pidfd = -1;
#endif
        *out = t;
        return 0;
}

/* Keeps the newer half when the buffer is full; a pending match position
 * moves with it. */
static void make_room(struct dmo_test_pty *t)
{
        if (t->have < SEEN_CAP)
                return;
        size_t drop = SEEN_CAP / 2;
        memmove(t->seen, t->seen + drop, t->have - drop);
        t->have -= drop;
        t->from = t->from > drop ? t->from - drop : 0;
        t->seen[t->have] = '\0';
}

/* One read of what is there; false once the far side hung up (EIO on a
 * pty master) or closed it. */
static bool read_some(struct dmo_test_pty *t)
{
        make_room(t);
        ssize_t r = read(t->master, t->seen + t->have, SEEN_CAP - t->have);
        if (r > 0) {
                t->have += (size_t)r;
                t->seen[t->have] = '\0';
                return true;
        }
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
                return true;
        close(t->master);
        t->master = -1;
        return false;
}

static void reap_if_exited(struct dmo_test_pty *t)
{
        if (!t->reaped && waitpid(t->pid, &t->status, WNOHANG) == t->pid)
                t->reaped = true;
}

/* Waits for the terminal to have something, the program to exit, or the
 * deadline; reads what came. */
static void wait_once(struct dmo_test_pty *t, struct dmo_test_deadline d)
{
        struct pollfd pf[2];
        nfds_t n = 0;
        if (t->master >= 0)
                pf[n++] = (struct pollfd){t->master, POLLIN, 0};
        if (t->pidfd >= 0 && !t->reaped)
                pf[n++] = (struct pollfd){t->pidfd, POLLIN, 0};
        int timeout = dmo_test_deadline_left_ms(d);
        /* Without a pidfd nothing wakes us when the program exits after it
         * hung up: look again every few milliseconds until the deadline. */
        if (t->master < 0 && t->pidfd < 0 && timeout > 5)
                timeout = 5;
        int ready = poll(pf, n, timeout);
        if (ready < 0 && errno != EINTR)
                dmo_test_nap_ms(d, 5);
        for (nfds_t i = 0; ready > 0 && i < n; i++)
                if (pf[i].fd == t->master && pf[i].revents)
                        (void)read_some(t);
        reap_if_exited(t);
}

static void show_tail(const struct dmo_test_pty *t)
{
        char tail[1024];
        size_t start = t->have > sizeof(tail) - 1 ? t->have - (sizeof(tail) - 1) : 0;
        memcpy(tail, t->seen + start, t->have - start);
        tail[t->have - start] = '\0';
        for (char *save = NULL, *l = strtok_r(tail, "\r\n", &save); l;
             l = strtok_r(NULL, "\r\n", &save))
                printf("#   %s\n", l);
}

bool dmo_test_pty_await(struct dmo_test_pty *t, const char *text, int timeout_ms)
{
        struct dmo_test_deadline d = dmo_test_deadline_in(timeout_ms);
        for (;;) {
                char *at = strstr(t->seen + t->from, text);
                if (at) {
                        t->from = (size_t)(at - t->seen) + strlen(text);
                        return true;
                }
                if (t->master < 0 || dmo_test_deadline_passed(d))
                        break;
                wait_once(t, d);
        }
        printf("# \"%s\" did not appear on the terminal within %d ms%s; it showed:\n", text,
               timeout_ms, t->master < 0 ? " (the program closed it)" : "");
        show_tail(t);
        return false;
}

int dmo_test_pty_type(struct dmo_test_pty *t, const char *keys)
{
        if (t->master < 0)
                return -EPIPE;
        size_t len = strlen(keys);
        ssize_t w = write(t->master, keys, len);
        if (w < 0)
                return -errno;
        return (size_t)w == len ? 0 : -EIO;
}

const char *dmo_test_pty_since_match(const struct dmo_test_pty *t)
{
        return t->seen + t->from;
}

int dmo_test_pty_finish(struct dmo_test_pty *t, int timeout_ms)
{
        struct dmo_test_deadline d = dmo_test_deadline_in(timeout_ms);
        reap_if_exited(t);
        while (!t->reaped && !dmo_test_deadline_passed(d))
                wait_once(t, d);
        /* What it showed last, after it exited. */
        while (t->master >= 0 && poll(&(struct pollfd){t->master, POLLIN, 0}, 1, 0) > 0 &&
               read_some(t))
                ;
        if (!t->reaped) {
                printf("# the program did not exit within %d ms; killed. It showed:\n", timeout_ms);
                show_tail(t);
                kill(t->pid, SIGKILL);
                waitpid(t->pid, &t->status, 0);
                t->reaped = true;
                return -ETIMEDOUT;
        }
        return WIFEXITED(t->status) ? WEXITSTATUS(t->status) : -1;
}

void dmo_test_pty_free(struct dmo_test_pty *t)
{
        if (!t)
                return;
        if (!t->reaped) {
                kill(t->pid, SIGKILL);
                waitpid(t->pid, &t->status, 0);
        }
        if (t->master >= 0)
                close(t->master);
        if (t->pidfd >= 0)
                close(t->pidfd);
        free(t);
}
