/* resumable: before a hibernation, whether the image about to be written
 * can come back at the next boot. The hibernate sequence's first step:
 * it runs before the snapshot device is opened, and a hibernation that
 * could not come back does not start.
 *
 * Two questions:
 * - Is the target an active swap area where it will be written? The kernel
 *   writes an image only to an active area starting at exactly that page
 *   (kernel/swap_area.h, dmo_swap_active_at); a partition plus a
 *   resume_offset= left over from a swap file made again elsewhere is not
 *   one.
 * - Will the initramfs look there, and can it open what it finds? The
 *   record the initramfs hooks leave for the running kernel
 *   (kernel/initramfs_record.h) says whether dormouse is in its initramfs
 *   and which dormouse.conf it holds; with that copy, the kernel command
 *   line and initramfs-tools' RESUME, the device and offset the resume
 *   will read are worked out as `dormouse resume` does, and must be the
 *   target's. When the image is sealed to a public key (pubkey, and the
 *   TPM modes' recovery), the secret key the initramfs holds must be the
 *   one here.
 *
 * Contract: reads only (the /proc given, /dev, /sys, the state directory,
 * the command line, the configuration and key files); knows nothing of
 * dormouse.conf's syntax (the caller reads the copy's two keys); no global
 * state, no allocation survives a call. Never prints: the first reason the
 * image could not come back is returned as a verdict and its facts, and the
 * caller says it.
 */
#ifndef DMO_ENGINE_RESUMABLE_H
#define DMO_ENGINE_RESUMABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/crypto.h"
#include "kernel/initramfs_record.h"
#include "kernel/snapshot.h"

struct dmo_resumable_params {
        const struct dmo_swap_target *target; /* where the image goes */
        bool files;                           /* devices are files (the simulated kernel) */
        const char *proc_swaps;  /* "/proc/swaps"; NULL: the swap area is not checked */
        const char *state_dir;   /* the initramfs records'; NULL: the initramfs is not checked */
        const char *release;     /* the running kernel's; NULL: uname's */
        const char *cmdline;     /* "/proc/cmdline"; unreadable counts as empty */
        const char *config_path; /* dormouse.conf here */
        enum dmo_encrypt_mode encrypt;
        const char *secret_key; /* the secret key here (public-key modes) */
        /* Nothing names a resume device and the target is written to
         * HibernateLocation: the resume reads it (before RESUME=). */
        bool via_efi_location;
        /* Reads "resume device" (into device; "" when not set) and "resume
         * offset" (< 0 when not set) of the initramfs's copy of
         * dormouse.conf at path: 0 or a negative errno. */
        int (*read_config)(void *ctx, const char *path, char device[DMO_RESUME_SPEC_MAX],
                           int64_t *offset);
        void *ctx;
};

/* In groups, in this order (the caller may rely on it): the swap area's,
 * the initramfs record's, then where the initramfs looks and its key. */
enum dmo_resumable_verdict {
        DMO_RESUMABLE_YES,
        /* The swap area (target's page; moved_path, moved_first): */
        DMO_RESUMABLE_STALE_SWAP_FILE, /* the swap file there starts elsewhere now */
        DMO_RESUMABLE_NO_AREA_AT_PAGE, /* page > 0: no active area starts there */
        DMO_RESUMABLE_NOT_ACTIVE,      /* page 0: the device is not an active area */
        /* The initramfs (release; record_path, "" when it has no name): */
        DMO_RESUMABLE_NO_RECORD,          /* no dormouse in it */
        DMO_RESUMABLE_RECORD_TOO_NEW,     /* written by a newer dormouse */
        DMO_RESUMABLE_RECORD_UNREADABLE,  /* error (-EINVAL: not a record, or another kernel's) */
        DMO_RESUMABLE_COPY_UNREADABLE,    /* copy_path, error (-EBADMSG: not the recorded one) */
        DMO_RESUMABLE_NOWHERE,            /* it names no resume device */
        DMO_RESUMABLE_NO_EFI_LOCATION,    /* nor reads HibernateLocation, which would */
        DMO_RESUMABLE_NOT_A_DEVICE,       /* place.spec, error: no device here */
        DMO_RESUMABLE_A_FILE,             /* place.spec is a file: it cannot open it */
        DMO_RESUMABLE_ANOTHER_DEVICE,     /* place.spec is not the target */
        DMO_RESUMABLE_ANOTHER_OFFSET,     /* place.offset is not the target's page */
        DMO_RESUMABLE_NO_NBD_CLIENT,      /* the target is on the network; no nbd-client in it */
        DMO_RESUMABLE_NO_SECRET_KEY,      /* public-key mode, and none in the initramfs */
        DMO_RESUMABLE_ANOTHER_SECRET_KEY, /* it holds another than params' secret_key */
};

struct dmo_resumable {
        enum dmo_resumable_verdict verdict;
        int error; /* a negative errno, where the verdict says */
        char moved_path[256];
        uint64_t moved_first;
        char release[65];
        char record_path[1024];
        char copy_path[1024];
        struct dmo_initramfs_resume place; /* where the initramfs will look */
        /* With DMO_RESUMABLE_YES, worth saying: */
        bool copy_outdated; /* its copy of dormouse.conf is older, saying the same */
        bool noresume;      /* this boot's command line has noresume (or nohibernate) */
};

/* Fills out: its verdict and facts. Returns 0 (the verdict says the rest). */
int dmo_resumable_check(const struct dmo_resumable_params *p, struct dmo_resumable *out);

#endif
