/* thread: starting threads with a small stack.
 *
 * The engine calls mlockall(MCL_CURRENT | MCL_FUTURE), which pins every
 * thread's whole stack mapping: a default stack (8 MiB with glibc) costs
 * 8 MiB of locked memory per thread. Every thread that lives through the
 * lock (the codec's workers, the image writer's and reader's I/O threads,
 * the splash's renderer and launcher) starts here with a stack sized for
 * what it runs.
 *
 * Contract: never allocates beyond what pthread_create does, never logs.
 */
#ifndef DMO_UTIL_THREAD_H
#define DMO_UTIL_THREAD_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* The engine's helpers keep their buffers on the heap; the largest stack
 * user is LZ4's 16 KiB state. */
#define DMO_THREAD_STACK_WORKER ((size_t)256 * 1024)
/* Rendering: cairo, pixman, FreeType and HarfBuzz, which keep a few
 * scratch buffers on the stack; musl runs them on 128 KiB. */
#define DMO_THREAD_STACK_RENDER ((size_t)1024 * 1024)

enum dmo_thread_flags {
        DMO_THREAD_NO_SIGNALS = 1u, /* block every signal in the new thread */
};

/* 0, or a negative errno from pthread. */
int dmo_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg, size_t stack_bytes,
                     unsigned flags);

/* How much nicer than the engine's thread the codec's workers run. */
#define DMO_THREAD_WORKER_NICE 5

/* Called by a codec worker as it starts: its nice value goes up by
 * DMO_THREAD_WORKER_NICE (Linux keeps one per thread). The engine's thread
 * feeds the workers (pages read from the kernel, or stream read from disk)
 * and hands their results on one at a time; with more runnable threads than
 * CPUs it would otherwise get only its fair share and the workers would wait
 * for it. Raising a nice value needs no privilege. 0 or a negative errno. */
int dmo_thread_yield_to_feeder(void);

/* Names the calling thread (the kernel keeps 15 bytes): top -H and
 * /proc/self/task/N/comm show it, and DORMOUSE_DEBUG_TIMING's CPU figures
 * are summed by it. prctl only: no file, no allocation. */
void dmo_thread_set_name(const char *name);

/* The calling thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID): what its
 * work cost, whatever preemption added to the wall clock. A system call. */
uint64_t dmo_thread_cpu_ns(void);

#endif
