#include "util/thread.h"

#include <limits.h>
#include <signal.h>

int dmo_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg, size_t stack_bytes,
                     unsigned flags)
{
        pthread_attr_t attr;
        int r = pthread_attr_init(&attr);
        if (r != 0)
                return -r;
        long min = PTHREAD_STACK_MIN; /* a sysconf() call in newer glibc */
        if (min > 0 && stack_bytes < (size_t)min)
                stack_bytes = (size_t)min;
        r = pthread_attr_setstacksize(&attr, stack_bytes);
        if (r == 0) {
                sigset_t all, old;
                sigfillset(&all);
                if (flags & DMO_THREAD_NO_SIGNALS)
                        pthread_sigmask(SIG_SETMASK, &all, &old);
                r = pthread_create(thread, &attr, fn, arg);
                if (flags & DMO_THREAD_NO_SIGNALS)
                        pthread_sigmask(SIG_SETMASK, &old, NULL);
        }
        pthread_attr_destroy(&attr);
        return -r;
}
