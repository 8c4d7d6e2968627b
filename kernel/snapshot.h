/* snapshot: "the snapshot device", the kernel's half of a userland hibernation.
 *
 * One small ops table with two implementations: the real one on /dev/snapshot
 * (kernel/snapshot_dev.c, the exact uswsusp ioctls) and the simulated kernel
 * (kernel/sim_kernel.c) used by tests and the demo. The engine only ever talks
 * to a struct dmo_snapshot and cannot tell the two apart: everything that
 * differs between a real and a simulated machine (how it goes down, what a
 * restore returns, how the resume device is opened, how much memory there
 * is, the kernel's quirks around the thaw) is behind an op here. Whoever
 * opened the object knows which it is; nobody else needs to.
 *
 * Contract:
 * - Every call returns 0 (or a byte count where stated) or a negative errno.
 * - The image stream is the kernel's business: callers move pages, they never
 *   interpret them beyond their count.
 * - After create_image() returned in_suspend == 1, implementations do no
 *   allocation and no file I/O except on the swap device.
 * - The real implementation is never opened by the tests outside the VM.
 */
#ifndef DMO_KERNEL_SNAPSHOT_H
#define DMO_KERNEL_SNAPSHOT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum dmo_snapshot_mode {
        DMO_SNAPSHOT_HIBERNATE, /* O_RDONLY: take an image and read it out */
        DMO_SNAPSHOT_RESUME,    /* O_WRONLY: write an image back and restore it */
};

/* Where the kernel is told the image goes (SNAPSHOT_SET_SWAP_AREA). */
struct dmo_swap_target {
        const char *path;     /* the block device (or, simulated, the file) */
        dev_t dev;            /* its device number; 0 for a plain file (simulated only) */
        uint64_t header_page; /* swap header offset in pages (resume_offset); 0 on a partition */
        /* A network device: the nbd:// URL path is connected to (cli/network.h);
         * NULL for a local one. Only the checks of what the initramfs will
         * read look at it: the image code cannot tell the two apart. */
        const char *network;
};

/* What the running kernel is; recorded in the image, compared at resume. */
struct dmo_kernel_identity {
        char sysname[65];
        char release[65];
        char version[65];
        char machine[65];
        uint32_t page_size;
};

/* Phase boundaries the engine announces; the simulated kernel can "lose
 * power" at any of them to test crash safety. The real kernel ignores them. */
enum dmo_checkpoint {
        DMO_CP_OPENED,
        DMO_CP_FROZEN,
        DMO_CP_IMAGE_CREATED,
        DMO_CP_DATA_HALF_WRITTEN,
        DMO_CP_DATA_WRITTEN,
        DMO_CP_HEADER_WRITTEN,
        DMO_CP_SIGNATURE_WRITTEN,
        DMO_CP_RESUME_LOADED,
        DMO_CP_SIGNATURE_REMOVED,
        DMO_CP_COUNT
};

/* How the machine goes down once the image is on disk. */
enum dmo_shutdown {
        DMO_SHUTDOWN_PLATFORM, /* ACPI S4 through the kernel (SNAPSHOT_POWER_OFF) */
        DMO_SHUTDOWN_POWEROFF, /* plain power off */
        DMO_SHUTDOWN_REBOOT,   /* reboot (e.g. to test resume, or dual boot) */
        DMO_SHUTDOWN_SUSPEND,  /* suspend to RAM, image kept as a fallback (suspend-to-both) */
};

/* What shutdown() reports when it returns without an error. */
enum dmo_shutdown_result {
        /* The machine is off (or rebooting) with the image on disk. Only a
         * simulated machine can say so: a real one never returns. */
        DMO_SHUTDOWN_DONE = 0,
        /* Suspend to RAM: the machine woke up from RAM. The system runs on
         * from memory; the image on disk must not be resumed any more. */
        DMO_SHUTDOWN_WOKE = 1,
};

/* What atomic_restore() returns. The real kernel jumps into the saved
 * system and never returns on success; any return is a failure. */
enum {
        /* Simulated only: the saved system "runs", every page verified. */
        DMO_RESTORED = 0,
        /* Simulated only: a restored page differed from the saved one. This
         * errno is reserved for it; the real implementation never returns it. */
        DMO_RESTORE_MISMATCH = -EILSEQ,
};

/* Why a resume must not run here (kernel/boot_stage.h). */
enum dmo_live_reason {
        DMO_LIVE_NONE,        /* an early boot: resume may run */
        DMO_LIVE_SWAP_ACTIVE, /* the resume device is in use as swap (/proc/swaps) */
        DMO_LIVE_ROOT_RW,     /* the root file system is a disk file system mounted read-write */
};

struct dmo_snapshot;
struct dmo_blockdev;

struct dmo_snapshot_ops {
        int (*set_swap_area)(struct dmo_snapshot *s, const struct dmo_swap_target *t);
        int (*freeze)(struct dmo_snapshot *s);
        /* Thaws user space. The real kernel warns about any thread still
         * carrying the freezer exemption of the task that froze (threads it
         * started after the freeze, even joined ones still on their way
         * out): the real implementation waits, briefly, until the caller is
         * the process's only thread. */
        int (*unfreeze)(struct dmo_snapshot *s);
        /* Sets the kernel's preferred image size: before the snapshot it
         * frees memory (drops caches, swaps out) until the image fits, or as
         * far as it can. The kernel has one setting for everybody
         * (/sys/power/image_size): it stays until set again. */
        int (*pref_image_size)(struct dmo_snapshot *s, uint64_t bytes);
        /* The kernel's preferred image size now (real: /sys/power/image_size,
         * 2/5 of RAM unless someone set it; simulated: the last one set, or
         * the machine's whole memory, which it then keeps whole). */
        int (*get_pref_image_size)(struct dmo_snapshot *s, uint64_t *bytes);
        /* *in_suspend = 1: snapshot taken, save it; 0: we are back after a restore. */
        int (*create_image)(struct dmo_snapshot *s, int *in_suspend);
        int (*get_image_size)(struct dmo_snapshot *s, uint64_t *bytes);
        /* Reads the image's next bytes into buf, several pages per call when
         * len allows (/dev/snapshot hands out one page per read(); readv()
         * with a page per iovec takes many in one system call). Returns the
         * bytes read, which may be short (call again for the rest), 0 at the
         * end of the image. */
        ssize_t (*read_image)(struct dmo_snapshot *s, void *buf, size_t len);
        /* Writes the image's next bytes, several pages per call when len
         * allows; returns the bytes taken (may be short). */
        ssize_t (*write_image)(struct dmo_snapshot *s, const void *buf, size_t len);
        /* One swap slot; *byte_offset is on the device given to set_swap_area. */
        int (*alloc_swap_page)(struct dmo_snapshot *s, uint64_t *byte_offset);
        int (*free_swap_pages)(struct dmo_snapshot *s);
        int (*avail_swap)(struct dmo_snapshot *s, uint64_t *bytes);
        /* Real kernel: returns only on failure (a negative errno other than
         * DMO_RESTORE_MISMATCH). Simulated: DMO_RESTORED after verifying
         * every page bit for bit, DMO_RESTORE_MISMATCH on the first
         * difference, another negative errno if the restore was refused. */
        int (*atomic_restore)(struct dmo_snapshot *s);
        int (*free_image)(struct dmo_snapshot *s);
        int (*platform_support)(struct dmo_snapshot *s, bool enable);
        /* Takes the machine down with the image on disk (see enum
         * dmo_shutdown_result), or returns a negative errno with the system
         * still frozen. The disks are not synced: they must stay as the
         * image expects them. */
        int (*shutdown)(struct dmo_snapshot *s, enum dmo_shutdown mode);
        /* Opens the resume device given to set_swap_area (or about to be)
         * for positioned reads and writes of image data. The real kernel
         * requires a block device whose number is t->dev, checked on the
         * open descriptor, so a path that changed since it was resolved is
         * never written; the simulated kernel applies its fault plan. */
        int (*open_target)(struct dmo_snapshot *s, const struct dmo_swap_target *t,
                           struct dmo_blockdev **out);
        /* Resume: 0 when this is an early boot where a restore may run;
         * -EBUSY with *reason on a running system (the real kernel reads
         * /proc; the simulated one reads the directory it was given, or
         * says yes), another negative errno when it cannot tell. */
        int (*check_boot_stage)(struct dmo_snapshot *s, const struct dmo_swap_target *t,
                                enum dmo_live_reason *reason);
        /* The machine's memory (the kernel's default image size is 2/5 of it). */
        int (*memory_bytes)(struct dmo_snapshot *s, uint64_t *bytes);
        /* The most bytes the image read from the kernel can have, known
         * before the snapshot, for buffers that must never grow after it:
         * the real kernel's is half the page frames of its memory zones and
         * their page frame lists (kernel/zoneinfo.h), or the whole memory
         * where /proc/zoneinfo cannot be read; the simulated kernel's is its
         * memory. */
        int (*max_image_bytes)(struct dmo_snapshot *s, uint64_t *bytes);
        /* Memory free now, for buffers of this process's own (the resume's
         * read-ahead while a passphrase is asked for). */
        int (*free_memory_bytes)(struct dmo_snapshot *s, uint64_t *bytes);
        int (*identity)(struct dmo_snapshot *s, struct dmo_kernel_identity *id);
        void (*checkpoint)(struct dmo_snapshot *s, enum dmo_checkpoint cp);
        void (*free)(struct dmo_snapshot *s);
};

struct dmo_snapshot {
        const struct dmo_snapshot_ops *ops;
        enum dmo_snapshot_mode mode;
};

/* Opens /dev/snapshot (or `path` for tests of the open logic) in `mode`.
 * -ENOENT: no snapshot device (kernel built without
 * CONFIG_HIBERNATION_SNAPSHOT_DEV); -EPERM: not root, or hibernation is
 * disabled (lockdown/Secure Boot, nohibernate): dmo_hibernation_disabled_reason()
 * (kernel/snapshot_dev.h) tells which; -EBUSY: another hibernation is in progress. */
int dmo_snapshot_open_dev(const char *path, enum dmo_snapshot_mode mode, struct dmo_snapshot **out);

/* Inline forwarding helpers so callers read naturally. */
static inline void dmo_snapshot_free(struct dmo_snapshot *s)
{
        if (s)
                s->ops->free(s);
}

static inline void dmo_snapshot_checkpoint(struct dmo_snapshot *s, enum dmo_checkpoint cp)
{
        if (s->ops->checkpoint)
                s->ops->checkpoint(s, cp);
}

const char *dmo_checkpoint_name(enum dmo_checkpoint cp);
int dmo_checkpoint_parse(const char *name, enum dmo_checkpoint *out);

#endif
