/* thread: starting the engine's helper threads (codec workers, the image
 * writer's and reader's I/O threads).
 *
 * Contract:
 * - The thread takes no signals: the engine's thread handles every one.
 * - Its stack is small (DMO_THREAD_STACK_BYTES), not the 8 MiB default:
 *   the engine calls mlockall(MCL_CURRENT | MCL_FUTURE), which pins every
 *   thread's whole stack mapping, so a default stack costs 8 MiB of locked
 *   memory per thread. The helpers keep their buffers on the heap; the
 *   largest stack user is LZ4's 16 KiB state.
 * - Never allocates beyond what pthread_create does, never logs.
 */
#ifndef DMO_UTIL_THREAD_H
#define DMO_UTIL_THREAD_H

#include <pthread.h>

enum { DMO_THREAD_STACK_BYTES = 256 * 1024 };

/* 0, or a negative errno from pthread. */
int dmo_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg);

#endif
