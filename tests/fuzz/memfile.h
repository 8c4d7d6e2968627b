/* memfile: a fuzz input as a file, for the parsers that take a path. The
 * bytes go into a memfd; *path names it through /proc/self/fd. Aborts when
 * the memfd cannot be made (the harness, not the input, is broken). Returns
 * the descriptor; the caller closes it. */
#ifndef DMO_FUZZ_MEMFILE_H
#define DMO_FUZZ_MEMFILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static inline int dmo_fuzz_memfile(const char *name, const uint8_t *data, size_t size,
                                   char path[64])
{
        int fd = memfd_create(name, MFD_CLOEXEC);
        if (fd < 0)
                abort();
        if (size && write(fd, data, size) != (ssize_t)size)
                abort();
        snprintf(path, 64, "/proc/self/fd/%d", fd);
        return fd;
}

#endif
