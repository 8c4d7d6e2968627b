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

/* This process's private writable memory (its heap, anonymous mappings,
 * stacks, the data of its binary and libraries) as the kernel's snapshot
 * sees it: resident pages (/proc/self/pagemap; swapped-out ones are not in
 * an image), split into all-zero pages, which the kernel (Debian 13's 6.12
 * counts them as "zero pages" and does not copy them) and dormouse's codec
 * leave out of the image, and the others, which cost image pages. Shared
 * writable mappings (a KMS dumb buffer, shared memory) and mappings that
 * are not writable are counted resident, not scanned; inaccessible ones
 * and those of 1 TiB or more (AddressSanitizer's shadow) are left out.
 *
 * The scan reads every resident page of those mappings in place: the
 * other threads of the process must neither unmap nor free memory while it
 * runs (the engine's thread calls it with the splash stopped and the
 * codec's workers idle). No allocation; opens /proc/self/maps and
 * /proc/self/pagemap, so never after the snapshot. */
struct dmo_self_mapping_pages {
        char name[40];     /* "[heap]", "[stack]", "anon", or the file's base name */
        uint64_t bytes;    /* the mapping's size */
        uint64_t resident; /* pages */
        uint64_t nonzero;  /* pages */
};
enum { DMO_SELF_TOP_MAPPINGS = 8 };
struct dmo_self_private_pages {
        uint64_t page_size;
        unsigned mappings;        /* private writable mappings scanned */
        uint64_t resident;        /* their resident pages... */
        uint64_t nonzero;         /* ...and those not all zero */
        uint64_t shared_resident; /* resident pages of shared writable mappings */
        /* Resident pages of mappings not writable: code and read-only data
         * of the program and its libraries, fonts, message catalogs, in
         * the page cache (shared with other processes that use them too);
         * locked (mlockall), the kernel cannot free them for the image. */
        uint64_t readonly_resident;
        /* The mappings with the most non-zero pages, most first. */
        struct dmo_self_mapping_pages top[DMO_SELF_TOP_MAPPINGS];
        unsigned ntop;
};
int dmo_self_private_pages(struct dmo_self_private_pages *out);

/* CPU time (user + system) by thread name over the threads alive now; the
 * main thread is named "main". At most max names; returns how many. */
struct dmo_self_thread_cpu {
        char name[16];
        double seconds;
        unsigned threads;
};
unsigned dmo_self_thread_cpu(struct dmo_self_thread_cpu *by, unsigned max);

#endif
