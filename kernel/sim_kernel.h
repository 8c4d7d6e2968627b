/* sim_kernel: a simulated kernel behind the snapshot ops table, for tests
 * and the demo. It keeps the real kernel's rules and traps so the engine is
 * tested against them, and it checks at restore that every page came back.
 *
 * Hibernate mode: set_swap_area reads the swap header of t->path at
 * t->header_page (in the sim's page size) and accepts only an active-looking
 * area of the sim's page size (SWAPSPACE2, or a hibernation signature over
 * one), else -ENODEV. alloc_swap_page hands out byte offsets
 * (header_page + slot) * page_size, slots 1..last_page, in clusters of 256
 * slots visited in a seeded, non-adjacent order, never twice; -ENOSPC when
 * the area is full or once the plan's enospc@N slots are held
 * (free_swap_pages forgets them all, so a retry meets the same limit, like
 * a small swap area would). create_image needs freeze (-EPERM) and returns
 * in_suspend = 1; the "second return" (in_suspend = 0) belongs to the
 * resume process: there, atomic_restore returning 0 means "back from
 * create_image with in_suspend = 0". read before create_image is -ENODATA;
 * unfreeze while an image is ready silently does nothing, exactly like the
 * kernel, so a missing free_image shows up in the engine's tests.
 * The image is size_bytes (or less, down to half of it, when a smaller
 * pref_image_size was asked for) and starts with a header page.
 *
 * Resume mode: write_image takes pages back in order; page 0 must be a sim
 * header made by the same identity with the same seed and page size
 * (-EINVAL otherwise, like the kernel's header check); pages past the count
 * are -EFBIG. Every page is compared on the fly; atomic_restore (needs
 * freeze, -EPERM) gives -ENODATA if pages are missing, -EILSEQ if one
 * differed (dmo_sim_kernel_first_mismatch() says where), 0 if bit-exact.
 *
 * checkpoint(cp) with crash@cp in the plan raises SIGKILL at once: the
 * process dies as a machine losing power would, nothing flushed (stdio
 * buffers included). shutdown (needs freeze, -EPERM) records a power off
 * and returns DMO_SHUTDOWN_DONE, after which every call except free fails
 * with -ESHUTDOWN; in suspend mode it lets go of the image and returns
 * DMO_SHUTDOWN_WOKE; with shutdown-fails in the plan its first call returns
 * -EIO and the machine stays frozen. open_target opens the file with the plan's faults
 * (and direct I/O on it with p.direct_io);
 * memory_bytes is size_bytes; check_boot_stage reads p.proc_dir if given.
 *
 * Contract: all memory is allocated in dmo_sim_kernel_new() (and the block
 * device in open_target); only set_swap_area and open_target do file I/O
 * of their own.
 * Never prints.
 */
#ifndef DMO_KERNEL_SIM_KERNEL_H
#define DMO_KERNEL_SIM_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/snapshot.h"

struct dmo_fault_plan;

struct dmo_sim_params {
        uint64_t size_bytes;                 /* image size, >= 2 pages */
        uint64_t seed;                       /* page contents and allocation order */
        const struct dmo_fault_plan *faults; /* borrowed; may be NULL */
        const char *release_override;        /* pretend to be another kernel; NULL: uname */
        uint32_t page_size;                  /* 0: the system's */
        /* Resume: the directory standing for /proc when it decides whether
         * this is an early boot (kernel/boot_stage.h); NULL: it always is.
         * Borrowed; must outlive the sim. */
        const char *proc_dir;
        /* open_target turns direct I/O on for the target, a regular file
         * (dmo_blockdev_set_direct), as a block device is opened on a real
         * kernel: the image's transfers bypass the page cache. Where the
         * file system refuses O_DIRECT the target stays buffered
         * (dmo_blockdev_direct says which). */
        bool direct_io;
};

int dmo_sim_kernel_new(const struct dmo_sim_params *p, enum dmo_snapshot_mode mode,
                       struct dmo_snapshot **out);

/* The plan the sim was made with (NULL for another kind of snapshot). */
const struct dmo_fault_plan *dmo_sim_kernel_faults(struct dmo_snapshot *s);

/* Resume mode: where the first differing page was. -ENOENT if none. */
int dmo_sim_kernel_first_mismatch(struct dmo_snapshot *s, uint64_t *page, uint32_t *byte_offset);

/* Pages written back so far (resume) or read so far (hibernate). */
uint64_t dmo_sim_kernel_pages_moved(struct dmo_snapshot *s);

/* The most pages an image of this simulated machine can have (its memory
 * size), known before the snapshot, like the RAM size of a real one. */
uint64_t dmo_sim_kernel_max_pages(struct dmo_snapshot *s);

bool dmo_sim_kernel_frozen(struct dmo_snapshot *s);
bool dmo_sim_kernel_powered_off(struct dmo_snapshot *s);

#endif
