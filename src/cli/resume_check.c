/* Before the freeze: will this image come back? (resume_check.h) */
#include "cli/resume_check.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

#include "cli/efi_location.h"
#include "keys/keys.h"
#include "kernel/cmdline.h"
#include "kernel/initramfs_record.h"
#include "kernel/swap_area.h"
#include "util/i18n.h"

static const char default_state_dir[] = DMO_LOCALSTATEDIR "/lib/dormouse";
static const char default_config[] = DMO_SYSCONFDIR "/dormouse.conf";

#define MAX_SWAPS 32

/* The same device: a block device's number, or (simulated kernel, whose
 * devices are files) the same file. */
static bool same_device(const struct dmo_cli_common *c, const struct stat *st,
                        const struct dmo_swap_target *t)
{
        if (!c->simulated)
                return S_ISBLK(st->st_mode) && st->st_rdev == t->dev;
        struct stat ts;
        return stat(t->path, &ts) == 0 && ts.st_dev == st->st_dev && ts.st_ino == st->st_ino;
}

/* What one line of /proc/swaps is in the kernel's terms. */
struct area {
        bool known;     /* false: its place could not be told (Btrfs, gone) */
        bool same_dev;  /* on the target's device */
        uint64_t first; /* its header page there */
};

static struct area locate(const struct dmo_cli_common *c, const struct dmo_swap_entry *e,
                          const struct dmo_swap_target *t)
{
        struct area a = {0};
        struct stat st;
        if (c->simulated || !e->is_file) {
                if (stat(e->path, &st) < 0)
                        return a;
                a.known = true;
                a.same_dev = same_device(c, &st, t);
                return a; /* a partition's header is its first page */
        }
        dev_t backing;
        if (dmo_swapfile_resume_offset(e->path, &a.first, &backing) < 0)
                return a;
        a.known = true;
        a.same_dev = backing == t->dev;
        return a;
}

static int check_active_area(const struct dmo_cli_common *c, const struct dmo_swap_target *t)
{
        char path[600];
        if (c->simulated && !c->sim_proc)
                return 0;
        snprintf(path, sizeof(path), "%s/swaps", c->simulated ? c->sim_proc : "/proc");
        struct dmo_swap_entry entries[MAX_SWAPS];
        size_t n = 0;
        if (dmo_proc_swaps_parse(path, entries, MAX_SWAPS, &n) < 0)
                return 0; /* cannot tell: the kernel will */
        if (n > MAX_SWAPS)
                n = MAX_SWAPS;
        const struct dmo_swap_entry *moved = NULL;
        uint64_t moved_first = 0;
        for (size_t i = 0; i < n; i++) {
                if (entries[i].deleted)
                        continue;
                struct area a = locate(c, &entries[i], t);
                if (!a.known)
                        return 0; /* this may be it: the kernel will tell */
                if (a.same_dev && a.first == t->header_page)
                        return 0;
                if (a.same_dev && entries[i].is_file && !c->simulated) {
                        moved = &entries[i];
                        moved_first = a.first;
                }
        }
        const char *conf = c->config_path;
        if (moved)
                dmo_cli_error(_("the image would be written at page %llu of %s, but the swap file "
                                "%s starts at page %llu now: the offset is stale (the file was "
                                "made again or moved since it was set). Set resume_offset=%llu on "
                                "the kernel command line (or \"resume offset = %llu\" in %s), "
                                "run update-initramfs -u, and hibernate again"),
                              (unsigned long long)t->header_page, t->path, moved->path,
                              (unsigned long long)moved_first, (unsigned long long)moved_first,
                              (unsigned long long)moved_first, conf);
        else if (t->header_page > 0)
                dmo_cli_error(_("no active swap area starts at page %llu of %s (resume_offset): "
                                "the swap file that was there is off, or was made again "
                                "elsewhere. Enable it with swapon, set its offset (filefrag -v "
                                "FILE) as resume_offset= on the kernel command line or \"resume "
                                "offset\" in %s, run update-initramfs -u, and hibernate again"),
                              (unsigned long long)t->header_page, t->path, conf);
        else
                dmo_cli_error(_("%s is not an active swap area (it is not in /proc/swaps), and "
                                "the kernel writes an image only to one: enable it with swapon, "
                                "or point \"resume device\" in %s at one that is"),
                              t->path, conf);
        return -EINVAL;
}

static void running_release(const struct dmo_cli_common *c, char release[65])
{
        struct utsname u;
        if (c->simulated && c->sim_release)
                snprintf(release, 65, "%s", c->sim_release);
        else if (uname(&u) == 0)
                snprintf(release, 65, "%s", u.release);
        else
                release[0] = '\0';
}

static void read_cmdline(const struct dmo_cli_common *c, struct dmo_cmdline *cl)
{
        const char *path = c->cmdline_path ? c->cmdline_path : "/proc/cmdline";
        char line[DMO_CMDLINE_MAX];
        memset(cl, 0, sizeof(*cl));
        FILE *f = fopen(path, "re");
        if (!f)
                return; /* the target's resolution said so already */
        size_t n = fread(line, 1, sizeof(line) - 1, f);
        fclose(f);
        line[n] = '\0';
        dmo_cmdline_parse(line, cl);
}

/* What the initramfs holds, and what is said on the way. */
struct initramfs {
        char release[65];
        char record_path[1024];
        struct dmo_initramfs_record rec;
        struct dmo_config cfg; /* its copy of dormouse.conf (defaults: none) */
        bool config_current;   /* that copy is the configuration here */
};

static const char *way_out(void)
{
        return _("If the initramfs is built another way, give --no-initramfs-check (or set "
                 "\"initramfs check = no\")");
}

static int load_record(const char *state_dir, struct initramfs *in)
{
        int r = dmo_initramfs_record_path(state_dir, in->release, "", in->record_path,
                                          sizeof(in->record_path));
        if (r == 0)
                r = dmo_initramfs_record_load(state_dir, in->release, &in->rec);
        if (r == -ENOENT) {
                dmo_cli_error(_("the initramfs of the running kernel %s has no dormouse in it "
                                "(there is no %s), so the next boot would not resume this "
                                "image: run update-initramfs -u (or dracut -f), and hibernate "
                                "again. %s"),
                              in->release, in->record_path, way_out());
                return -EINVAL;
        }
        if (r == -EPROTONOSUPPORT) {
                dmo_cli_error(_("%s was written by a newer dormouse than this one: run "
                                "update-initramfs -u (or dracut -f) to write it again, and "
                                "hibernate again"),
                              in->record_path);
                return -EINVAL;
        }
        if (r < 0) {
                dmo_cli_error(_("cannot read what the initramfs of kernel %s holds from %s (%s): "
                                "run update-initramfs -u (or dracut -f) to write it again, and "
                                "hibernate again. %s"),
                              in->release, in->record_path[0] ? in->record_path : state_dir,
                              r == -EINVAL ? _("not a dormouse record, or another kernel's")
                                           : strerror(-r),
                              way_out());
                return -EINVAL;
        }
        return 0;
}

/* The initramfs's copy of dormouse.conf, checked against its record. */
static int load_copy(const char *state_dir, const struct dmo_cli_common *c, struct initramfs *in)
{
        uint8_t sum[DMO_CRYPTO_SHA256_LEN];
        dmo_config_init(&in->cfg);
        if (!in->rec.has_config) {
                /* no dormouse.conf then: is there one now? */
                in->config_current = dmo_crypto_sha256_file(c->config_path, sum) == -ENOENT;
                return 0;
        }
        in->config_current = dmo_crypto_sha256_file(c->config_path, sum) == 0 &&
                             memcmp(sum, in->rec.config_sha256, sizeof(sum)) == 0;
        char copy[1024];
        int r = dmo_initramfs_record_path(state_dir, in->release, ".conf", copy, sizeof(copy));
        if (r == 0)
                r = dmo_crypto_sha256_file(copy, sum);
        if (r == 0 && memcmp(sum, in->rec.config_sha256, sizeof(sum)) != 0)
                r = -EBADMSG;
        if (r == 0)
                r = dmo_config_load(&in->cfg, copy, NULL);
        if (r < 0) {
                dmo_cli_error(_("the copy of dormouse.conf the initramfs of kernel %s holds "
                                "cannot be read from %s (%s): run update-initramfs -u (or "
                                "dracut -f), and hibernate again"),
                              in->release, copy,
                              r == -EBADMSG ? _("it is not the one its record names")
                                            : strerror(-r));
                return -EINVAL;
        }
        return 0;
}

/* Where the resume will look: as dormouse resume works it out in the
 * initramfs (its copy of the configuration, then resume=, then
 * initramfs-tools' RESUME, which its boot script passes). */
struct resume_side {
        const char *spec, *spec_from;
        uint64_t offset;
        const char *offset_from;
};

static void resume_side(const struct initramfs *in, const struct dmo_cmdline *cl,
                        struct resume_side *rs)
{
        *rs = (struct resume_side){0};
        if (in->cfg.resume_device[0]) {
                rs->spec = in->cfg.resume_device;
                rs->spec_from = _("\"resume device\" in the initramfs's copy of dormouse.conf");
        } else if (cl->resume[0]) {
                rs->spec = cl->resume;
                rs->spec_from = _("resume= on the kernel command line");
        } else if (in->rec.resume[0]) {
                rs->spec = in->rec.resume;
                rs->spec_from = _("RESUME= of initramfs-tools");
        }
        if (in->cfg.resume_offset >= 0) {
                rs->offset = (uint64_t)in->cfg.resume_offset;
                rs->offset_from = _("\"resume offset\" in the initramfs's copy of dormouse.conf");
        } else if (cl->has_resume_offset) {
                rs->offset = cl->resume_offset;
                rs->offset_from = _("resume_offset= on the kernel command line");
        } else {
                rs->offset_from = _("no resume offset is set");
        }
}

static int check_resume_side(const struct dmo_cli_resume_check *rc, const struct initramfs *in,
                             const struct dmo_cmdline *cl)
{
        const struct dmo_cli_common *c = rc->c;
        const struct dmo_swap_target *t = rc->target;
        struct resume_side rs;
        resume_side(in, cl, &rs);
        /* HibernateLocation names the target itself; the initramfs only
         * has to read it (its dormouse does, when the record says it is
         * there), and prefers it to initramfs-tools' RESUME=. */
        if (rc->via_efi_location && !in->cfg.resume_device[0] && !cl->resume[0])
                return 0;
        if (!rs.spec) {
                dmo_cli_error(_("the initramfs of kernel %s would not know where to look for the "
                                "image: its copy of dormouse.conf names no \"resume device\", the "
                                "kernel command line has no resume= and initramfs-tools no "
                                "RESUME=. Put resume=%s on the kernel command line (or "
                                "\"resume device = %s\" in %s), run update-initramfs -u, and "
                                "hibernate again"),
                              in->release, t->path, t->path, default_config);
                return -EINVAL;
        }
        char path[512];
        struct stat st;
        int r = dmo_resume_device_resolve(rs.spec, "/dev", "/sys", path, sizeof(path));
        if (r == 0 && stat(path, &st) < 0)
                r = -errno;
        if (r < 0) {
                dmo_cli_error(_("the initramfs would look for the image on %s (%s), which is not "
                                "a device here (%s); the image goes to %s. Make them the same, "
                                "run update-initramfs -u, and hibernate again"),
                              rs.spec, rs.spec_from, strerror(-r), t->path);
                return -EINVAL;
        }
        if (S_ISREG(st.st_mode) && !c->simulated) {
                dmo_cli_error(_("the initramfs would look for the image in the file %s (%s), "
                                "which it cannot open: it runs before the file system holding it "
                                "is mounted. Name the partition and the offset instead "
                                "(resume=%s resume_offset=%llu on the kernel command line, or "
                                "\"resume device\" and \"resume offset\" in %s), run "
                                "update-initramfs -u, and hibernate again"),
                              rs.spec, rs.spec_from, t->path, (unsigned long long)t->header_page,
                              default_config);
                return -EINVAL;
        }
        if (!same_device(c, &st, t)) {
                dmo_cli_error(_("the initramfs would look for the image on %s (%s), but it is "
                                "about to be written to %s: the next boot would not find it. "
                                "Make them the same, run update-initramfs -u, and hibernate "
                                "again"),
                              rs.spec, rs.spec_from, t->path);
                return -EINVAL;
        }
        if (rs.offset != t->header_page) {
                dmo_cli_error(_("the initramfs would look for the image at page %llu of %s (%s), "
                                "but the swap area starts at page %llu, where the image is about "
                                "to be written: the offset is stale (the swap file was made again "
                                "or moved). Set resume_offset=%llu on the kernel command line (or "
                                "\"resume offset = %llu\" in %s), run update-initramfs -u, and "
                                "hibernate again"),
                              (unsigned long long)rs.offset, t->path, rs.offset_from,
                              (unsigned long long)t->header_page,
                              (unsigned long long)t->header_page,
                              (unsigned long long)t->header_page, default_config);
                return -EINVAL;
        }
        return 0;
}

/* Public-key mode, and the TPM modes' recovery: the initramfs must hold
 * the secret key that opens what is sealed to the public one. */
static int check_secret_key(const struct dmo_cli_resume_check *rc, const struct initramfs *in)
{
        if (rc->encrypt != DMO_ENCRYPT_PUBKEY && rc->encrypt != DMO_ENCRYPT_TPM &&
            rc->encrypt != DMO_ENCRYPT_TPM_PIN)
                return 0;
        if (!in->rec.has_secret_key) {
                dmo_cli_error(_("the image would be encrypted to a public key, but the initramfs "
                                "of kernel %s holds no secret key to open it (its copy of "
                                "dormouse.conf does not say \"encrypt = pubkey\", or the key was "
                                "missing): run update-initramfs -u, and hibernate again"),
                              in->release);
                return -EINVAL;
        }
        const char *sk = rc->secret_key ? rc->secret_key : dmo_keys_default_secret_key;
        uint8_t sum[DMO_CRYPTO_SHA256_LEN];
        if (dmo_crypto_sha256_file(sk, sum) < 0)
                return 0; /* not here to compare: the person keeps it elsewhere */
        if (memcmp(sum, in->rec.secret_key_sha256, sizeof(sum)) != 0) {
                dmo_cli_error(_("the secret key the initramfs of kernel %s holds is not %s as it "
                                "is now (was dormouse keygen run since?), so it could not open "
                                "this image: run update-initramfs -u, and hibernate again"),
                              in->release, sk);
                return -EINVAL;
        }
        return 0;
}

static int check_initramfs(const struct dmo_cli_resume_check *rc)
{
        const struct dmo_cli_common *c = rc->c;
        const char *state_dir = c->simulated ? rc->sim_state_dir : default_state_dir;
        if (rc->skip_initramfs || !state_dir)
                return 0;
        struct initramfs in = {0};
        running_release(c, in.release);
        int r = load_record(state_dir, &in);
        if (r == 0)
                r = load_copy(state_dir, c, &in);
        if (r < 0)
                return r;
        struct dmo_cmdline cl;
        read_cmdline(c, &cl);
        r = check_resume_side(rc, &in, &cl);
        if (r == 0)
                r = check_secret_key(rc, &in);
        if (r < 0)
                return r;
        if (!in.config_current)
                dmo_cli_note(_("the initramfs of kernel %s holds an older copy of %s; what it "
                               "says about resuming is the same, so this image will come back. "
                               "Run update-initramfs -u to bring it up to date"),
                             in.release, c->config_path);
        if (cl.noresume || cl.nohibernate)
                dmo_cli_note(_("this boot's kernel command line has noresume: a boot with it "
                               "discards the image instead of resuming it"));
        return 0;
}

int dmo_cli_check_resumable(const struct dmo_cli_resume_check *rc)
{
        int r = check_active_area(rc->c, rc->target);
        if (r == 0)
                r = check_initramfs(rc);
        return r;
}

int dmo_cli_prepare_resume(const struct dmo_cli_resume_check *rc)
{
        int r = dmo_cli_kernel_refuses_hibernation(rc->c) ? 0 : dmo_cli_check_resumable(rc);
        if (r == 0 && rc->via_efi_location)
                r = dmo_cli_efi_location_write(rc->c, rc->target);
        return r;
}
