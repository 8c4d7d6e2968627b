#include "util/self_memory.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

int dmo_self_resident_bytes(uint64_t *bytes)
{
        int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        char buf[128];
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        int err = errno;
        close(fd);
        if (n < 0)
                return -err;
        buf[n] = '\0';
        /* "size resident shared text lib data dt", in pages */
        uint64_t size, resident;
        if (sscanf(buf, "%" SCNu64 " %" SCNu64, &size, &resident) != 2)
                return -EINVAL;
        long ps = sysconf(_SC_PAGESIZE);
        if (ps <= 0)
                return -EINVAL;
        *bytes = resident * (uint64_t)ps;
        return 0;
}
