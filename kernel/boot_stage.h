/* boot_stage: is this an early boot, where a resume may run, or a running
 * system, where it must not?
 *
 * A resume hands the kernel a memory image that expects the file systems
 * exactly as they were at hibernation. On a running system they have been
 * mounted and changed since, and the swap area may be in use: restoring
 * there (or even removing the image's signature from an active swap area)
 * corrupts data. systemd-hibernate-resume refuses outside the initrd for
 * the same reason.
 *
 * Contract:
 * - Reads <proc_dir>/swaps and <proc_dir>/mounts only (proc_dir is "/proc"
 *   on a real machine; tests and the simulated kernel give a directory of
 *   their own), plus stat() of the swap entries it compares.
 * - Never prints; allocates nothing that outlives a call.
 */
#ifndef DMO_KERNEL_BOOT_STAGE_H
#define DMO_KERNEL_BOOT_STAGE_H

#include "kernel/snapshot.h"

/* 0 with *reason = DMO_LIVE_NONE when a resume may run; -EBUSY with the
 * reason when this is a running system; another negative errno when the
 * files cannot be read (<proc>/mounts missing: -ENOENT), which callers treat
 * as "cannot tell", i.e. refuse. */
int dmo_boot_stage_check(const char *proc_dir, const struct dmo_swap_target *t,
                         enum dmo_live_reason *reason);

#endif
