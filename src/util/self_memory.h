/* self_memory: how much memory this process holds, and how much CPU its
 * threads used.
 *
 * The engine adds the resident size to the image size it asks the kernel
 * for: the image holds dormouse itself as well as the system it saves. The
 * rest is for the profile the CLI prints (DORMOUSE_DEBUG_TIMING).
 *
 * Contract: reads /proc/self only, with open() and read() (no stdio, no
 * heap: the profile is read after the snapshot); never logs.
 */
#ifndef DMO_UTIL_SELF_MEMORY_H
#define DMO_UTIL_SELF_MEMORY_H

#include <stdint.h>

/* The process's resident bytes now (all of them, once mlockall has locked
 * every mapping). A negative errno when /proc is not there or says
 * something else. */
int dmo_self_resident_bytes(uint64_t *bytes);

/* Locked and resident memory, in KiB (-1 where /proc does not say). VmLck
 * counts whole locked mappings, reserved but inaccessible ones too (glibc's
 * per-thread malloc arenas reserve 64 MiB each); smaps_rollup's Locked is
 * what is resident and locked. -ENOENT when /proc/self/status is unread. */
struct dmo_self_locked {
        long resident_locked; /* smaps_rollup Locked */
        long mapped_locked;   /* VmLck */
        long pinned;          /* VmPin */
        long peak_resident;   /* VmHWM */
};
int dmo_self_locked_memory(struct dmo_self_locked *out);

/* CPU time (user + system) by thread name over the threads alive now; the
 * main thread is named "main". At most max names; returns how many. */
struct dmo_self_thread_cpu {
        char name[16];
        double seconds;
        unsigned threads;
};
unsigned dmo_self_thread_cpu(struct dmo_self_thread_cpu *by, unsigned max);

#endif
