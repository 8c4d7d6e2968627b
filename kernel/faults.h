/* faults: a parsed, immutable plan of injected failures for the simulated
 * kernel and the block device, so tests can make the rare paths happen on
 * purpose (full swap, I/O errors, short transfers, power loss).
 *
 * Spec: comma-separated items, each one of
 *   enospc@N       alloc_swap_page fails with ENOSPC once N slots are held
 *   eio-write@N    the N-th dmo_blockdev_pwrite (1-based) fails with EIO
 *   eio-read@N     the N-th dmo_blockdev_pread (1-based) fails with EIO
 *   eio-sync@N     the N-th dmo_blockdev_sync (1-based) fails with EIO
 *   readonly@N     from the N-th dmo_blockdev_pwrite on, every write fails
 *                  with EROFS (a device that went read-only)
 *   shutdown-fails the simulated kernel's first shutdown call fails with EIO
 *                  and the machine stays up, frozen
 *   short-write    every write(2) under dmo_blockdev_pwrite moves at most half
 *   shrink@N       the device ends at byte N once it is open, as a block device
 *                  cut short while in use: a write(2) under dmo_blockdev_pwrite
 *                  that reaches past N moves only what lies before it (a short
 *                  write), one that starts at or past N fails with ENOSPC, a
 *                  read(2) there moves nothing, and the device's size, measured
 *                  again, is N (the kernel's block device does all that)
 *   short-read     the simulated read_image returns at most half of what is left
 *   crash@NAME     the simulated kernel "loses power" at checkpoint NAME
 *                  (a dmo_checkpoint_name(); crash@ may repeat for several)
 * Anything else (unknown item, empty item, repeated counter item, numbers
 * that are not plain decimal or overflow, over-long spec) is -EINVAL.
 *
 * Contract:
 * - Owns the plan only; the counters a plan is checked against live in the
 *   objects that use it (blockdev, simulated kernel): no global state.
 * - A NULL plan means "no faults" for every query.
 * - Never prints; never calls into anything but libc.
 */
#ifndef DMO_KERNEL_FAULTS_H
#define DMO_KERNEL_FAULTS_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/snapshot.h"

/* Longest spec accepted (bytes, without the NUL). */
#define DMO_FAULT_SPEC_MAX 1024

struct dmo_fault_plan;

int dmo_fault_plan_parse(const char *spec, struct dmo_fault_plan **out);
void dmo_fault_plan_free(struct dmo_fault_plan *p);

/* True when the plan sets a limit; *n receives it. */
bool dmo_fault_enospc_after(const struct dmo_fault_plan *p, uint64_t *n);
bool dmo_fault_eio_write_at(const struct dmo_fault_plan *p, uint64_t *n);
bool dmo_fault_eio_read_at(const struct dmo_fault_plan *p, uint64_t *n);
bool dmo_fault_readonly_from(const struct dmo_fault_plan *p, uint64_t *n);
bool dmo_fault_eio_sync_at(const struct dmo_fault_plan *p, uint64_t *n);
bool dmo_fault_shutdown_fails(const struct dmo_fault_plan *p);
bool dmo_fault_short_write(const struct dmo_fault_plan *p);
bool dmo_fault_shrink_to(const struct dmo_fault_plan *p, uint64_t *n);
bool dmo_fault_short_read(const struct dmo_fault_plan *p);
bool dmo_fault_crash_at(const struct dmo_fault_plan *p, enum dmo_checkpoint cp);

#endif
