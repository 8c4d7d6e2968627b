/* cleanup: scope-bound release of heap memory, file descriptors and FILEs,
 * so that error paths need no unwind code for them. Use dmo_steal_ptr() /
 * dmo_steal_fd() to hand ownership out of a scope. */
#ifndef DMO_CLEANUP_H
#define DMO_CLEANUP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void dmo_freep(void *p)
{
        free(*(void **)p);
}

static inline void dmo_closep(int *fd)
{
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}

static inline void dmo_fclosep(FILE **f)
{
        if (*f)
                fclose(*f);
}

#define _cleanup_free_   __attribute__((cleanup(dmo_freep)))
#define _cleanup_close_  __attribute__((cleanup(dmo_closep)))
#define _cleanup_fclose_ __attribute__((cleanup(dmo_fclosep)))

#define dmo_steal_ptr(p)                                                                           \
        ({                                                                                         \
                __typeof__(p) tmp_ = (p);                                                          \
                (p) = NULL;                                                                        \
                tmp_;                                                                              \
        })

#define dmo_steal_fd(fd)                                                                           \
        ({                                                                                         \
                int tmp_ = (fd);                                                                   \
                (fd) = -1;                                                                         \
                tmp_;                                                                              \
        })

#define DMO_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
