/* A small file read without allocating. */
#include "util/small_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

ssize_t dmo_read_small_file(const char *path, char *buf, size_t len)
{
        if (len == 0)
                return -EINVAL;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        ssize_t n;
        do
                n = read(fd, buf, len - 1);
        while (n < 0 && errno == EINTR);
        int err = errno;
        close(fd);
        if (n < 0)
                return -err;
        buf[n] = '\0';
        return n;
}

int dmo_write_small_file(const char *path, const char *text)
{
        int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        size_t len = strlen(text);
        ssize_t n = write(fd, text, len);
        int r = n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        return r;
}
