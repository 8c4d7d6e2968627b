/* blockdev: the resume device (a swap partition, or for the simulated kernel
 * a plain file) opened for positioned I/O that never stops half way.
 *
 * Contract:
 * - Owns one file descriptor and the fault counters of its plan.
 * - pread/pwrite move exactly len bytes or fail: short transfers are looped
 *   over, EINTR is retried. Any access that reaches past the end of the
 *   device (as measured at open, or because the file or the device shrank
 *   since) fails with -ENXIO, the one code for "outside the device"; nothing
 *   is ever extended. A block device that shrank while in use cuts the
 *   write that crosses its new end short (what lies before the end is
 *   written) and fails the rest with ENOSPC: that is -ENXIO here, never
 *   -ENOSPC (a full swap area), and dmo_blockdev_size_now() tells the new
 *   size.
 * - Honours the fault plan (eio-read@N, eio-write@N, readonly@N count calls,
 *   1-based; short-write halves every write(2); shrink@N ends the device at
 *   byte N). The plan is borrowed and must outlive the device.
 * - Allocates only in dmo_blockdev_open(); no other call allocates, so the
 *   device is usable after the snapshot. Never prints.
 */
#ifndef DMO_KERNEL_BLOCKDEV_H
#define DMO_KERNEL_BLOCKDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct dmo_fault_plan;
struct dmo_blockdev;

int dmo_blockdev_open(const char *path, bool writable, const struct dmo_fault_plan *faults,
                      struct dmo_blockdev **out);
int dmo_blockdev_pread(struct dmo_blockdev *d, void *buf, size_t len, uint64_t off);
int dmo_blockdev_pwrite(struct dmo_blockdev *d, const void *buf, size_t len, uint64_t off);
/* Tells the device that [off, off + len) holds nothing any more: BLKDISCARD
 * on a block device; on a regular file FALLOC_FL_ZERO_RANGE (the blocks
 * stay allocated, so a swap file keeps no holes, which swapon refuses).
 * Best effort: whether old contents can still be read afterwards depends
 * on the device. -EOPNOTSUPP where neither works; honours readonly@N like
 * a write (without counting as one). */
int dmo_blockdev_discard(struct dmo_blockdev *d, uint64_t off, uint64_t len);
/* Data and metadata reach stable storage (fsync). */
int dmo_blockdev_sync(struct dmo_blockdev *d);
uint64_t dmo_blockdev_size(const struct dmo_blockdev *d);
/* The size measured again when an access found the device ending before
 * dmo_blockdev_size() (it shrank while open); dmo_blockdev_size() until
 * then. */
uint64_t dmo_blockdev_size_now(const struct dmo_blockdev *d);
const char *dmo_blockdev_path(const struct dmo_blockdev *d);
/* st_rdev of a block device; 0 for a regular file. */
dev_t dmo_blockdev_rdev(const struct dmo_blockdev *d);
/* Whether transfers bypass the page cache (O_DIRECT). A block device is
 * opened so: after the snapshot the kernel is short of memory and cannot
 * write back, and on resume cached pages would only compete with the image.
 * A misaligned transfer (buffer, length or offset not a multiple of 4096)
 * that the device refuses goes through the page cache, that one alone; a
 * device that refuses an aligned one does no direct I/O from then on. */
bool dmo_blockdev_direct(const struct dmo_blockdev *d);
/* Turns direct I/O on or off (a regular file on a file system that does
 * it, for tests); the file system's error (-EINVAL) when it refuses. */
int dmo_blockdev_set_direct(struct dmo_blockdev *d, bool on);
/* dmo_blockdev_pwrite calls so far (what eio-write@N and readonly@N count). */
uint64_t dmo_blockdev_writes(const struct dmo_blockdev *d);
void dmo_blockdev_free(struct dmo_blockdev *d);

#endif
