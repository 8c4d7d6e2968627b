/* engine: the hibernate and resume sequences, as small state machines with
 * one abort path each.
 *
 * The engine talks to the snapshot device (kernel/), the image format
 * (src/image) and the progress model (src/progress). It never draws and
 * never prints: it reports progress, returns an outcome plus the step that
 * failed, and calls the hooks the CLI gave it (e.g. to make the splash redraw
 * after the kernel froze and thawed the devices).
 *
 * Safety rules it enforces:
 * - Everything the cycle needs is allocated before SNAPSHOT_CREATE_IMAGE
 *   (the writer and its threads right after SNAPSHOT_FREEZE, see the hooks);
 *   after
 *   create_image() only the swap device is written.
 * - Any stale dormouse signature is cleared before the first data byte is
 *   written, and the new signature is written last, after an fsync of data,
 *   map and header. Abort (Esc) is honoured until the signature write begins.
 * - On every failure or abort before the signature: swap pages are freed,
 *   the image is freed, the system is thawed. The swap area stays valid.
 * - After the signature is on disk nothing thaws the system while a valid
 *   image is there: if the machine is still up after the shutdown (woke
 *   from RAM, or the power off failed), the signature is taken off (retried,
 *   and read back); if it cannot be, the machine stays frozen and goes down
 *   into the image (reboot, then power off), which still matches the disks.
 * - From the signature write to the shutdown, and on resume from finding
 *   an image to the jump (or to leaving the swap area as it must be),
 *   signals that would end the process are ignored (engine/critical.h).
 * - An encrypted image is authenticated whole (header, extent list, every
 *   chunk) before the restore; a wrong key leaves it on disk untouched.
 * - Once an image's signature is off in an early boot (restored, refused,
 *   discarded), its slots are discarded too: nothing of it is left for the
 *   device to keep, where the device honours it.
 * - Resume removes the signature before the atomic restore and restores the
 *   swap signature whenever it refuses an image; when it cannot (a read-only
 *   device), it says so (DMO_RESUME_KEPT) instead of claiming a plain swap
 *   area. An image whose device failed a read is kept the same way: it may
 *   be whole, and only its checksums can say it is not; so is one that
 *   reaches past the end of a device shorter than its own swap header
 *   says (the device shrank: past its new end the image may still be).
 * - The engine knows one snapshot interface: which kernel is behind it
 *   (the real one or a test double) makes no difference here.
 *
 * Before a hibernation starts, engine/resumable.h tells whether its image
 * could come back at the next boot.
 */
#ifndef DMO_ENGINE_H
#define DMO_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "codec/codec.h"
#include "kernel/snapshot.h"
#include "progress/progress.h"

/* Where a failure happened; the CLI turns it into a sentence. */
enum dmo_step {
        DMO_STEP_NONE,
        DMO_STEP_OPEN_DEVICE,
        DMO_STEP_SWAP_HEADER,
        DMO_STEP_SET_SWAP_AREA,
        DMO_STEP_ALLOCATE,
        DMO_STEP_FREEZE,
        DMO_STEP_CREATE_IMAGE,
        DMO_STEP_READ_KERNEL,
        DMO_STEP_WRITE_IMAGE,
        DMO_STEP_FINISH_IMAGE,
        DMO_STEP_SIGNATURE,
        DMO_STEP_POWER_OFF,
        DMO_STEP_READ_IMAGE,
        DMO_STEP_KERNEL_MISMATCH,
        DMO_STEP_WRITE_KERNEL,
        DMO_STEP_RESTORE,
        DMO_STEP_BOOT_STAGE, /* resume: deciding whether this is an early boot */
        DMO_STEP_UNLOCK,     /* resume: getting the key of an encrypted image */
};

/* SNAPSHOT_FREEZE exempts only the calling thread from the freezer, and
 * threads it creates afterwards (they inherit PF_SUSPEND_TASK); every other
 * thread of this process stops with the rest of user space and stays stopped
 * while the image is written. So threads that must run during the write (the
 * splash renderer, the codec workers) are stopped before the freeze and
 * started again by the engine's thread right after it. */
struct dmo_engine_stats;

struct dmo_engine_hooks {
        void *ctx;
        /* Stop helper threads; called on the engine's thread before
         * SNAPSHOT_FREEZE and again before SNAPSHOT_UNFREEZE. */
        void (*before_freeze)(void *ctx);
        /* Start them again: after the freeze (now exempt from the freezer)
         * and after the thaw (ordinary threads again). */
        void (*after_freeze)(void *ctx);
        /* Resume: a sound image of this kernel was found and is about to be
         * loaded (the moment to show the splash; a boot without an image
         * stays quiet). */
        void (*image_found)(void *ctx);
        /* The data phase is over (hibernate: the image is sealed, power-off
         * comes next; resume: the image is loaded, the restore comes next and
         * does not return): the last moment to report its figures. */
        void (*stats_ready)(void *ctx, const struct dmo_engine_stats *stats);
        /* About to take the snapshot: the kernel will suspend every device,
         * the display included, so nothing may draw until devices_thawed. */
        void (*before_snapshot)(void *ctx);
        /* The kernel froze and thawed the devices (after create_image): the
         * screen must be redrawn in full. Called on the engine's thread. In
         * the restored system it comes once user space is thawed, in place
         * of after_freeze (the splash is not running then: it stopped for
         * the snapshot). */
        void (*devices_thawed)(void *ctx);
        /* Resume: the image is loaded and its signature cleared; the restore
         * (freeze, then the jump into the saved kernel) comes next. The last
         * moment to leave a final frame on screen: the restored kernel may
         * show whatever this boot's splash left in video memory. */
        void (*before_restore)(void *ctx);
        /* Hibernate: the image is sealed and the machine goes down next. The
         * last chance to change how (the person asked for a reboot instead
         * of a power off); returns the mode to use. */
        enum dmo_shutdown (*choose_shutdown)(void *ctx, enum dmo_shutdown planned);
        /* Resume: the image was made by another kernel than the one running
         * (a kernel update, the wrong boot entry). The image is still good
         * for that kernel, so keeping it is the default: without this hook,
         * or when it returns false, nothing is touched and the outcome is
         * DMO_RESUME_OTHER_KERNEL. True means the person confirmed that the
         * saved session is to be thrown away: the image is discarded. The
         * releases are the image's and the running kernel's, unfiltered. */
        bool (*discard_other_kernel_image)(void *ctx, const char *image_release,
                                           const char *running_release);
};

struct dmo_crypto_key;
struct dmo_crypto_envelope;
struct dmo_image_tpm;

struct dmo_hibernate_config {
        struct dmo_swap_target target;
        /* Encryption: both or neither, prepared by the caller before the
         * hibernation starts (a passphrase was asked for and Argon2id ran,
         * or the key was sealed to a public key): nothing secret is made
         * after the snapshot. The caller owns them. */
        struct dmo_crypto_key *key;
        const struct dmo_crypto_envelope *envelope;
        const struct dmo_image_tpm *tpm; /* nullable: the key sealed by the TPM too */
        unsigned cipher;                 /* enum dmo_chunk_cipher; 0: the fastest this CPU has */
        enum dmo_compress compress;
        int compress_level;
        unsigned threads;     /* 0: one per CPU */
        unsigned chunk_pages; /* 0: default */
        /* Preferred image size in bytes; < 0: the kernel's own (2/5 of
         * memory), lowered to what the swap area can hold uncompressed when
         * that is less, so that the kernel frees memory until the image fits
         * instead of the write running out of room half way. */
        int64_t image_size;
        enum dmo_shutdown shutdown;
        bool lock_memory;       /* mlockall before freezing (real kernel) */
        unsigned step_delay_ms; /* debug: pause this long at every 1% of the data phase */
        bool profile;           /* fill stats.profile */
        struct dmo_progress *progress;
        struct dmo_engine_hooks hooks;
};

enum dmo_hibernate_outcome {
        DMO_HIBERNATE_FAILED,      /* see result.error and result.step */
        DMO_HIBERNATE_POWERED_OFF, /* image complete, machine down (a real one never returns) */
        DMO_HIBERNATE_RESUMED,     /* we came back after a successful resume */
        DMO_HIBERNATE_ABORTED,     /* the person cancelled; system thawed, swap clean */
};

/* Where the data phases spend their time; filled only when the config asks
 * for it (a clock read per page is not free). */
struct dmo_engine_profile {
        bool enabled;
        double kernel_io_s;    /* reading pages from / handing them to the kernel... */
        uint64_t kernel_calls; /* ...in how many batches (a system call each) */
        /* The longest of those calls, and how many pages had gone before it:
         * at resume the kernel allocates the image's memory in one of them. */
        double slowest_kernel_call_s;
        uint64_t slowest_kernel_call_after;
        double image_s;      /* hibernate: storing pages; resume: reading and decoding */
        double alloc_s;      /* hibernate: swap slot allocations... */
        uint64_t allocs;     /* ...and how many */
        uint64_t writes;     /* hibernate: write requests to the device... */
        double write_s;      /* ...and the time they took (on the I/O thread) */
        double codec_wait_s; /* hibernate: waiting for the codec with every slot busy */
        /* CPU time of the whole process (every thread, the splash's too) in
         * the data or load phase: against the phase's wall time it says
         * whether the CPUs or the waits (disk, kernel) set the pace. */
        double cpu_user_s, cpu_sys_s;
        bool direct_io;    /* the image's transfers bypassed the page cache */
        double mean_speed; /* hibernate: the compressor's mean speed (image/pace.h) */
        /* Chunks, and those not compressed (hibernate) or handed to the
         * kernel straight from the read-ahead buffers (resume). */
        uint64_t chunks, stored_chunks;
};

struct dmo_engine_stats {
        uint64_t image_pages; /* kernel pages in the image */
        uint32_t page_size;
        uint64_t stored_bytes; /* bytes written to / read from swap for the image */
        uint64_t zero_pages;
        double freeze_s, snapshot_s, data_s, sync_s; /* hibernate phases */
        double check_s, restore_s;                   /* resume phases */
        struct dmo_engine_profile profile;
};

struct dmo_hibernate_result {
        enum dmo_hibernate_outcome outcome;
        int error;              /* negative errno when FAILED */
        enum dmo_step step;     /* where it failed */
        bool signature_cleared; /* after a failure: swap area verified plain */
        /* POWERED_OFF although the machine was to stay up (woke from RAM, or
         * the power off failed), because the image's signature could not be
         * removed: the machine went down this way into the image instead;
         * sig_error says why the removal failed. */
        bool went_down_into_image;
        enum dmo_shutdown shutdown_used; /* how the machine went down */
        int sig_error;
        /* What the swap area had free before the snapshot, and how much
         * memory the image holds before compression (0 until the kernel
         * said): the figures behind an -ENOSPC. */
        uint64_t swap_free_bytes;
        uint64_t image_bytes;
        /* The device's size when it was opened, and when an access found it
         * ending before that (it shrank under the image: error -ENXIO),
         * measured again; the same otherwise. */
        uint64_t device_bytes, device_bytes_now;
        /* The image size the kernel was asked for (SNAPSHOT_PREF_IMAGE_SIZE),
         * 0 when it was left to the kernel. */
        uint64_t image_size_asked;
        /* The swap area held the image uncompressed after the snapshot: the
         * writer could store chunks as they are while the disk waited for
         * LZ4 at its fastest (image/writer.h, allow_store; encrypted, only
         * while sealing measured cheaper than LZ4). */
        bool store_allowed;
        struct dmo_engine_stats stats;
};

int dmo_engine_hibernate(struct dmo_snapshot *snap, const struct dmo_hibernate_config *cfg,
                         struct dmo_hibernate_result *res);

/* Resume of an encrypted image: the caller turns the image's envelope
 * into its key (asks for a passphrase, reads a key file, opens a secret
 * key). Called once, after the image was checked and its read-ahead began
 * (the reader's first requests, a few MiB, are read while a person types;
 * reading further ahead into free memory is not done), with nothing yet written
 * anywhere. Returns 0 and *key (owned by the caller, kept until the engine
 * returns); -EKEYREJECTED or -ENOKEY when no right key came (the image is
 * left on disk untouched: DMO_RESUME_LOCKED); -ECANCELED when the person
 * chose, and confirmed, to boot without it (DMO_RESUME_DISCARDED). */
struct dmo_image_info;
typedef int (*dmo_unlock_fn)(void *ctx, const struct dmo_image_info *info,
                             struct dmo_crypto_key **key);

/* Once an encrypted image's header and extent list are authenticated with
 * its key, before any of its pages reaches the kernel: the caller marks the
 * image used (the TPM's counter), so that it is never restored twice.
 * 0; -ESTALE: it was restored before, or is an older copy written back
 * (DMO_RESUME_REFUSED: the swap area is made plain); any other error:
 * nothing restored, the image left on disk (DMO_RESUME_LOCKED). */
typedef int (*dmo_consume_fn)(void *ctx, const struct dmo_image_info *info);

struct dmo_resume_config {
        struct dmo_swap_target target;
        dmo_unlock_fn unlock;   /* NULL: an encrypted image stays locked */
        dmo_consume_fn consume; /* nullable; ctx: unlock_ctx */
        void *unlock_ctx;
        unsigned threads;
        bool noresume; /* discard the image instead of restoring it */
        bool lock_memory;
        unsigned step_delay_ms;
        bool profile; /* fill stats.profile */
        struct dmo_progress *progress;
        struct dmo_engine_hooks hooks;
};

enum dmo_resume_outcome {
        DMO_RESUME_RESTORED,  /* a test kernel verified it bit-exact (a real one never returns) */
        DMO_RESUME_NO_IMAGE,  /* plain swap area: normal boot */
        DMO_RESUME_DISCARDED, /* noresume: the image was discarded, swap is plain */
        DMO_RESUME_REFUSED,   /* image unusable: nothing restored, swap made plain */
        DMO_RESUME_NOT_SWAP,  /* the device is not a swap area: configuration error */
        DMO_RESUME_FOREIGN,   /* another tool's hibernation signature: left alone */
        DMO_RESUME_MISMATCH,  /* a test kernel found restored content differed (a bug) */
        DMO_RESUME_FAILED,    /* the kernel refused the restore after loading */
        /* The image could not be taken off the swap area (a read-only device,
         * write errors; step DMO_STEP_SIGNATURE), or the device failed a read
         * of it (step DMO_STEP_READ_IMAGE, error -EIO): it is still there and
         * may be whole. Booting on would mount the file systems it expects
         * unchanged; stop the boot instead. */
        DMO_RESUME_KEPT,
        /* Not an early boot (the swap area is active, or the root file
         * system is mounted read-write): nothing was touched. */
        DMO_RESUME_LIVE_SYSTEM,
        /* The image was made by another kernel and is kept, untouched: the
         * machine must restart into that kernel (or be told to discard it).
         * Booting on would mount the file systems it expects unchanged. */
        DMO_RESUME_OTHER_KERNEL,
        /* Encrypted, and no right key was given (a wrong passphrase or key
         * file, none at all): nothing was touched, the image is still on
         * disk for another try. error: -EKEYREJECTED or -ENOKEY. */
        DMO_RESUME_LOCKED,
};

struct dmo_resume_result {
        enum dmo_resume_outcome outcome;
        int error;
        enum dmo_step step;
        bool signature_cleared;
        /* The image's slots were discarded after its signature came off
         * (BLKDISCARD, or zeroed ranges in a file): only in an early boot,
         * for an image whose map was sound. discard_error: why not, else 0. */
        bool slots_discarded;
        int discard_error;
        enum dmo_live_reason live_reason; /* on LIVE_SYSTEM */
        /* on OTHER_KERNEL, and on a discard at KERNEL_MISMATCH: what the
         * image was made by, and what runs */
        char image_release[65];
        char running_release[65];
        /* on LOCKED with -ENOTSUP: the chunk cipher this CPU cannot run */
        unsigned image_cipher;
        /* on KEPT with -ENXIO: the device shrank under the image; its size
         * now, and the swap area's that its header gives */
        uint64_t device_bytes, swap_area_bytes;
        struct dmo_engine_stats stats;
};

int dmo_engine_resume(struct dmo_snapshot *snap, const struct dmo_resume_config *cfg,
                      struct dmo_resume_result *res);

#endif
