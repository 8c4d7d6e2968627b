/* initramfs_record: what an initramfs was built with, as dormouse's
 * initramfs-tools hook and dracut module record it at each build, one file
 * per kernel version: <state dir>/initramfs/<release>, and beside it
 * <release>.conf, the copy of dormouse.conf the initramfs holds. The boot
 * loader's initramfs cannot be read back cheaply (compressed cpio
 * archives, early microcode in front); the record is how hibernate knows,
 * before the freeze, that the resume half is there and what it will read.
 *
 * The file is plain text, `key = value` per line, `#` comments:
 *   record = 1                      format version (required; a higher one
 *                                   is refused: a newer dormouse wrote it)
 *   kernel = 6.12.38+deb13-amd64    the release it was built for (required,
 *                                   must match the file's name)
 *   builder = initramfs-tools       or dracut
 *   config-sha256 = <64 hex>|none   the dormouse.conf it copied (required)
 *   secret-key-sha256 = <64 hex>|none  the pubkey mode secret key it copied
 *   resume = SPEC                   initramfs-tools' RESUME (conf.d/resume
 *                                   or its automatic choice); may be empty
 *   reads-hibernate-location = yes|no  whether its resume reads systemd's
 *                                   HibernateLocation (efivarfs in it, on a
 *                                   machine booted through EFI); absent in
 *                                   the records of a dormouse that did not
 *                                   read it, and taken as no
 *   nbd-client = yes|no             whether it holds nbd-client, which a
 *                                   resume device on the network (nbd://)
 *                                   needs; absent (an older hook): no
 * Unknown keys are skipped (a later version may add some).
 *
 * Contract: parsing is pure and bounds-checked (a record is read as root
 * from a directory only root writes, but a truncated or garbled one must
 * still be refused, never half read); the loader reads the one file it is
 * given. No allocation, no global state, never prints.
 */
#ifndef DMO_KERNEL_INITRAMFS_RECORD_H
#define DMO_KERNEL_INITRAMFS_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/cmdline.h"

#define DMO_INITRAMFS_RECORD_VERSION 1
#define DMO_INITRAMFS_RECORD_MAX     8192 /* bytes; a longer file is refused */
#define DMO_SHA256_LEN               32

struct dmo_initramfs_record {
        unsigned version;
        char kernel[65];
        char builder[32];
        bool has_config; /* false: "none", the initramfs holds no dormouse.conf */
        uint8_t config_sha256[DMO_SHA256_LEN];
        bool has_secret_key;
        uint8_t secret_key_sha256[DMO_SHA256_LEN];
        char resume[DMO_RESUME_SPEC_MAX]; /* "" when none */
        bool reads_efi_location;          /* reads-hibernate-location = yes */
        bool has_nbd_client;              /* nbd-client = yes */
        unsigned bad_line; /* on -EINVAL: the line at fault (0: a required key is missing) */
};

/* Parses len bytes of text (need not be NUL-terminated). 0; -EINVAL for a
 * malformed or incomplete record (bad_line says where); -EPROTONOSUPPORT
 * for a record version this dormouse does not know. */
int dmo_initramfs_record_parse(const char *text, size_t len, struct dmo_initramfs_record *out);

/* <state_dir>/initramfs/<release><suffix> into buf: suffix "" for the
 * record, ".conf" for the configuration's copy. -EINVAL for a release that
 * is not a plain file name (empty, '/', a leading '.'); -ENAMETOOLONG. */
int dmo_initramfs_record_path(const char *state_dir, const char *release, const char *suffix,
                              char *buf, size_t len);

/* Reads and parses the record of release. -ENOENT when there is none (the
 * initramfs of that kernel was built without dormouse, or before this
 * version), -EFBIG over DMO_INITRAMFS_RECORD_MAX, -EINVAL when it names
 * another kernel, other negative errnos as for open and read. */
int dmo_initramfs_record_load(const char *state_dir, const char *release,
                              struct dmo_initramfs_record *out);

/* Where the resume an initramfs runs will look for the image, as dormouse
 * resume works it out there: the device from its copy of dormouse.conf,
 * else resume= on the kernel command line, else initramfs-tools' RESUME
 * (the record's, which its boot script passes); the offset from its copy,
 * else resume_offset=, else none (0). */
enum dmo_resume_from {
        DMO_RESUME_FROM_NOWHERE,         /* not set: no device, or offset 0 */
        DMO_RESUME_FROM_CONFIG,          /* the initramfs's copy of dormouse.conf */
        DMO_RESUME_FROM_CMDLINE,         /* resume=, resume_offset= */
        DMO_RESUME_FROM_INITRAMFS_TOOLS, /* RESUME= (a device only) */
};

struct dmo_initramfs_resume {
        char spec[DMO_RESUME_SPEC_MAX]; /* "" when nothing names one */
        enum dmo_resume_from spec_from;
        uint64_t offset;
        enum dmo_resume_from offset_from;
};

/* conf_device ("" when not set) and conf_offset (< 0 when not set): what
 * the initramfs's copy of dormouse.conf says. Pure. */
void dmo_initramfs_resume_place(const char *conf_device, int64_t conf_offset,
                                const struct dmo_cmdline *cl,
                                const struct dmo_initramfs_record *rec,
                                struct dmo_initramfs_resume *out);

#endif
