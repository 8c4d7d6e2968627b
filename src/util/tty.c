/* Reopening a terminal: see tty.h. */
#include "util/tty.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int dmo_tty_reopen(int fd, int flags)
{
        if (fd < 0 || !isatty(fd))
                return -ENOTTY;
        flags |= O_CLOEXEC | O_NOCTTY;
        /* The magic link opens the inode itself, whether or not a path in
         * this mount namespace still leads to it. */
        char path[64];
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        int r = open(path, flags);
        if (r >= 0)
                return r;
        /* No /proc: the name, when there is one. */
        const char *name = ttyname(fd);
        if (!name)
                return -ENOTTY;
        r = open(name, flags);
        return r >= 0 ? r : -errno;
}
