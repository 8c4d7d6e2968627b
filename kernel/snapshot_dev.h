/* snapshot_dev: the real kernel's /dev/snapshot behind the snapshot ops
 * table (dmo_snapshot_open_dev() is declared in kernel/snapshot.h), the
 * argument encodings it needs, and the reason a kernel refuses hibernation.
 *
 * Behaviour beyond the bare ioctls, to disarm the kernel's silent traps:
 * - unfreeze() first frees a ready image (SNAPSHOT_FREE), because
 *   SNAPSHOT_UNFREEZE does nothing while an image is ready.
 * - power_off() enables platform support (SNAPSHOT_PLATFORM_SUPPORT 1)
 *   unless the engine chose shutdown mode with platform_support(false),
 *   because SNAPSHOT_POWER_OFF returns 0 doing nothing without it; if the
 *   ioctl comes back anyway, it powers off with reboot(RB_POWER_OFF)
 *   without sync() (the filesystems belong to the saved image). It returns
 *   only on failure.
 * - checkpoint() does nothing: only the simulated kernel loses power.
 *
 * Contract: only this file issues snapshot ioctls; after create_image()
 * nothing here allocates or touches a filesystem. Never prints. Never
 * opened by the tests (they use a fake path for the open logic).
 */
#ifndef DMO_KERNEL_SNAPSHOT_DEV_H
#define DMO_KERNEL_SNAPSHOT_DEV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
/* The uapi header needs _IO* from here first. */
#include <sys/ioctl.h>
#include <linux/suspend_ioctls.h>

#include "kernel/snapshot.h"

#define DMO_SNAPSHOT_DEV_PATH "/dev/snapshot"

/* The kernel's new_encode_dev(): minor low 8 bits, major next 12, minor high
 * 12. -EOVERFLOW if major > 4095 or minor > 1048575 (not representable). */
int dmo_snapshot_encode_dev(unsigned int major, unsigned int minor, uint32_t *out);

/* Fills the SET_SWAP_AREA argument. -EINVAL for dev 0 (the kernel refuses it). */
int dmo_snapshot_swap_area_encode(const struct dmo_swap_target *t, struct resume_swap_area *out);

/* Why open() said EPERM, from sysfs below root ("" or "/" for the real
 * one; a test tree otherwise). detail (may be NULL) gets a token: the
 * lockdown level ("integrity", "confidentiality") for LOCKDOWN. */
enum dmo_hibernation_block {
        DMO_HIB_UNKNOWN = 0,   /* nothing found: e.g. secretmem or CXL memory in use */
        DMO_HIB_LOCKDOWN,      /* kernel lockdown (Secure Boot) */
        DMO_HIB_DISABLED,      /* /sys/power/disk reads [disabled]: nohibernate, hibernate=no */
        DMO_HIB_NOT_BUILT,     /* no /sys/power/disk: kernel without CONFIG_HIBERNATION */
        DMO_HIB_NOT_PRIVILEGED /* not root (CAP_SYS_ADMIN needed) */
};
int dmo_hibernation_disabled_reason(const char *sysfs_root, char *detail, size_t len);

/* The memory free on this machine now (sysinfo's freeram): the real
 * kernel's free_memory_bytes op, and the simulated one's, whose buffers
 * are this process's on the host. 0 or a negative errno. */
int dmo_snapshot_free_memory(uint64_t *bytes);

#endif
