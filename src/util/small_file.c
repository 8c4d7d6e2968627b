/* A small file read without allocating. */
#include "util/small_file.h"

#include <errno.h>
#include <fcntl.h>
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
