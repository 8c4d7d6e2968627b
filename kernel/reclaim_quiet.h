/* reclaim_quiet: the boot kernel's memory management kept still while an
 * image is loaded into it through /dev/snapshot and until the jump.
 *
 * The kernel's own resume freezes the freezable kernel threads before it
 * loads an image (software_resume: freeze_kernel_threads). The restore
 * through /dev/snapshot does not (SNAPSHOT_FREEZE freezes user space only),
 * and user space cannot. Loading the image takes most of the boot kernel's
 * free memory, in unmovable pages: watermark boosting then wakes kswapd
 * and proactive compaction kcompactd, and they ran on between the devices'
 * quiesce and the jump into the restored kernel. In a 1 GiB Debian 13 guest
 * resuming from LVM on LUKS that took 3.0 to 6.7 s of black screen (0.2 s
 * with both off, as on the kernel's own path). vm.watermark_boost_factor
 * and vm.compaction_proactiveness at 0 keep them from starting, and
 * vm.watermark_scale_factor written with its own value clears the boosts
 * made before (its write recomputes every zone's watermarks). The
 * restored kernel brings its own values back with its memory; where no
 * jump comes (a refusal, a failure) dmo_reclaim_quiet_end() puts the boot
 * kernel's back for the boot that goes on. dormouse begins only once an
 * image was found: a boot without one leaves the knobs alone.
 *
 * Contract: the caller owns the struct; dir (/proc/sys/vm, or a test's
 * directory) is borrowed until _end. A knob the kernel lacks, or cannot be
 * written (a read-only /proc/sys), is left alone: this only makes a resume
 * quicker, so nothing here fails one. No allocation.
 */
#ifndef DMO_KERNEL_RECLAIM_QUIET_H
#define DMO_KERNEL_RECLAIM_QUIET_H

#include <stdbool.h>

#define DMO_RECLAIM_KNOBS 2

struct dmo_reclaim_quiet {
        const char *dir;
        struct {
                char old[32]; /* the value read, as the kernel wrote it */
                bool changed;
        } knob[DMO_RECLAIM_KNOBS];
};

/* Sets each knob under dir that is not 0 already to 0, keeping its value.
 * Returns how many were changed. */
int dmo_reclaim_quiet_begin(struct dmo_reclaim_quiet *q, const char *dir);

/* Writes back what _begin changed; a second call, or a call on a struct
 * zeroed and never begun, does nothing. */
void dmo_reclaim_quiet_end(struct dmo_reclaim_quiet *q);

#endif
