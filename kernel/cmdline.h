/* cmdline: what the kernel command line says about resuming, and finding
 * the resume device it names.
 *
 * Parsing follows the kernel's rules: parameters are separated by spaces,
 * double quotes group (`resume="/dev/disk/by-label/my swap"` or
 * `"resume=..."`; quotes are removed, an unterminated one runs to the end
 * of the line), "--" ends the kernel's part, and the last occurrence of a
 * parameter wins. dormouse.resume= is resume= for dormouse alone, and wins
 * over resume= wherever either stands: it carries what the kernel and
 * initramfs-tools cannot read (a network device, nbd://HOST[:PORT]/EXPORT,
 * kernel/nbd_url.h), and a resume= beside it stays theirs.
 *
 * Contract: pure string work except the resolver (reads dev_root and
 * sys_root, given by the caller so tests use a fake tree) and the waiter
 * (polls with short sleeps). No global state; never prints.
 */
#ifndef DMO_KERNEL_CMDLINE_H
#define DMO_KERNEL_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DMO_CMDLINE_MAX     4096
#define DMO_RESUME_SPEC_MAX 256

struct dmo_cmdline {
        char resume[DMO_RESUME_SPEC_MAX]; /* "" when absent */
        bool resume_is_ours;              /* it came from dormouse.resume= */
        bool has_resume_offset;
        uint64_t resume_offset;
        bool noresume;    /* noresume or hibernate=noresume */
        bool nohibernate; /* nohibernate or hibernate=no: no resume either */
        bool resumewait;
        char lockdown[16]; /* lockdown=integrity|confidentiality; "" when absent */
        bool has_resumedelay;
        uint32_t resumedelay; /* seconds */
        char bad_param[32];   /* on -EINVAL: the parameter whose value was wrong */
};

/* -EINVAL: a value we own is malformed (resume_offset, resumedelay not a
 * decimal number, resume= too long) or the line is longer than
 * DMO_CMDLINE_MAX; bad_param names it ("cmdline" for the length), and what
 * came before it is kept. Parameters that are not ours are ignored. */
int dmo_cmdline_parse(const char *line, struct dmo_cmdline *out);

/* Whether a resume should even be looked for. */
bool dmo_cmdline_wants_resume(const struct dmo_cmdline *c);

enum dmo_resume_spec_kind {
        DMO_RESUME_PATH,      /* /dev/sda2 (or any absolute path) */
        DMO_RESUME_NAME,      /* sda2: a kernel device name */
        DMO_RESUME_UUID,      /* UUID= filesystem (swap) UUID */
        DMO_RESUME_PARTUUID,  /* PARTUUID= GPT/MBR partition UUID */
        DMO_RESUME_LABEL,     /* LABEL= swap label */
        DMO_RESUME_PARTLABEL, /* PARTLABEL= GPT partition name */
        DMO_RESUME_MAJMIN,    /* 254:2 */
        DMO_RESUME_DEVNO,     /* fe02: hex, the kernel's new encoding */
};

struct dmo_resume_spec {
        enum dmo_resume_spec_kind kind;
        char value[DMO_RESUME_SPEC_MAX]; /* after the KEY= prefix */
        unsigned int major, minor;       /* MAJMIN and DEVNO */
};

int dmo_resume_spec_parse(const char *spec, struct dmo_resume_spec *out);

/* Turns a resume= spec into a path: UUID=/LABEL=/PARTUUID=/PARTLABEL= into
 * <dev_root>/disk/by-uuid/NAME and its siblings (udev's escaping of unusual characters),
 * MAJ:MIN and hex devno into <dev_root>/<DEVNAME> read from
 * <sys_root>/dev/block/MAJ:MIN/uevent, /dev/X into <dev_root>/X.
 * dev_root is "/dev" and sys_root "/sys" on a real system.
 * -ENOENT: MAJ:MIN not (yet) known to sysfs; -ENAMETOOLONG; -EINVAL. */
int dmo_resume_device_resolve(const char *spec, const char *dev_root, const char *sys_root,
                              char *path, size_t len);

/* Polls until path exists (every 20 ms); -ETIMEDOUT after timeout_ms. */
int dmo_wait_for_device(const char *path, unsigned int timeout_ms);

/* Resolve and wait together, for specs (MAJ:MIN) that only resolve once the
 * device has appeared. */
int dmo_resume_device_wait(const char *spec, const char *dev_root, const char *sys_root,
                           unsigned int timeout_ms, char *path, size_t len);

#endif
