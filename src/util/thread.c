#include "util/thread.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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

int dmo_thread_yield_to_feeder(void)
{
        /* PRIO_PROCESS with a thread id: the one thread, not the process. */
        const id_t tid = (id_t)syscall(SYS_gettid);
        errno = 0;
        int nice = getpriority(PRIO_PROCESS, tid);
        if (nice == -1 && errno != 0)
                return -errno;
        int want = nice + DMO_THREAD_WORKER_NICE;
        if (want > 19)
                want = 19;
        return setpriority(PRIO_PROCESS, tid, want) < 0 ? -errno : 0;
}

void dmo_thread_set_name(const char *name)
{
        prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

uint64_t dmo_thread_cpu_ns(void)
{
        struct timespec t;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
