/* Where the image lives: the resume device from the options, the config or
 * the kernel command line, resolved to a device (swap files: their disk). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

#include "cli/cli.h"
#include "cli/efi_location.h"
#include "cli/network.h"
#include "kernel/cmdline.h"
#include "kernel/initramfs_record.h"
#include "kernel/nbd_url.h"
#include "kernel/swap_area.h"
#include "util/i18n.h"

static const int default_resume_timeout_ms = 5000;

/* Where a failure's sentence goes besides stderr: the caller's buffer. */
struct why {
        char *buf;
        size_t len;
};

static void fail_msg(struct why *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_msg(struct why *w, const char *fmt, ...)
{
        char text[768];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(text, sizeof(text), fmt, ap);
        va_end(ap);
        dmo_cli_error("%s", text);
        if (w->buf && w->len)
                snprintf(w->buf, w->len, "%s", text);
}

static int read_cmdline(const struct dmo_cli_common *c, struct dmo_cmdline *cl, struct why *w)
{
        const char *path = c->cmdline_path ? c->cmdline_path : "/proc/cmdline";
        char line[DMO_CMDLINE_MAX];
        FILE *f = fopen(path, "re");
        memset(cl, 0, sizeof(*cl));
        if (!f) {
                if (!c->cmdline_path && errno == ENOENT)
                        return 0;
                int r = -errno;
                fail_msg(w, _("cannot read the kernel command line %s: %s"), path, strerror(-r));
                return r;
        }
        size_t n = fread(line, 1, sizeof(line) - 1, f);
        fclose(f);
        line[n] = '\0';
        int r = dmo_cmdline_parse(line, cl);
        if (r == -EINVAL)
                dmo_cli_note(_("%s: the value of %s is not valid, ignored"), path, cl->bad_param);
        return 0;
}

/* A swap file: the kernel wants the partition and the file's first physical
 * page; we write through the partition. */
static int map_swap_file(struct dmo_swap_target *t, char *path_buf, size_t path_len, struct why *w)
{
        uint64_t first_page;
        dev_t backing;
        int r = dmo_swapfile_resume_offset(path_buf, &first_page, &backing);
        if (r < 0) {
                fail_msg(w,
                         _("%s: cannot map the swap file onto its disk (%s); use a "
                           "swap partition, or give the partition and "
                           "--resume-offset"),
                         path_buf, strerror(-r));
                return -EINVAL;
        }
        char majmin[32];
        snprintf(majmin, sizeof(majmin), "%u:%u", major(backing), minor(backing));
        r = dmo_resume_device_resolve(majmin, "/dev", "/sys", path_buf, path_len);
        if (r < 0) {
                fail_msg(w, _("%s: the disk %s holding it has no device node"), path_buf, majmin);
                return -EINVAL;
        }
        t->path = path_buf;
        t->dev = backing;
        t->header_page = first_page;
        return 0;
}

/* initramfs-tools' RESUME as dormouse's hook recorded it for the running
 * kernel: where that initramfs looks when the command line names nothing
 * (Debian's installer writes RESUME to conf.d/resume, not resume=). */
static int recorded_resume(const struct dmo_cli_common *c, char *buf, size_t len)
{
        struct dmo_initramfs_record rec;
        struct utsname u;
        char release[65];
        if (!c->initramfs_state_dir)
                return -ENOENT;
        if (c->simulated && c->sim_release)
                snprintf(release, sizeof(release), "%s", c->sim_release);
        else if (uname(&u) == 0)
                snprintf(release, sizeof(release), "%s", u.release);
        else
                return -errno;
        int r = dmo_initramfs_record_load(c->initramfs_state_dir, release, &rec);
        if (r < 0)
                return r;
        if (!rec.resume[0] || strcmp(rec.resume, "none") == 0)
                return -ENOENT;
        snprintf(buf, len, "%s", rec.resume);
        return 0;
}

/* Resolves spec (a path, UUID=..., major:minor...) to a device node,
 * waiting for it to appear when asked. */
static int find_device(const struct dmo_cli_common *c, const char *spec, bool wait, char *path_buf,
                       size_t path_len, struct why *w)
{
        int r;
        struct stat direct;
        if (spec == c->resume_device && stat(spec, &direct) == 0) {
                /* A path given on the command line is taken as it is. */
                snprintf(path_buf, path_len, "%s", spec);
                r = 0;
        } else if (wait) {
                int timeout = c->config.resume_timeout_ms >= 0 ? c->config.resume_timeout_ms
                                                               : default_resume_timeout_ms;
                r = dmo_resume_device_wait(spec, "/dev", "/sys", (unsigned)timeout, path_buf,
                                           path_len);
        } else {
                r = dmo_resume_device_resolve(spec, "/dev", "/sys", path_buf, path_len);
        }
        if (r == -ETIMEDOUT || r == -ENOENT) {
                fail_msg(w,
                         _("resume device %s not found%s; check resume= or \"resume "
                           "device\""),
                         spec, wait ? _(" (waited for it)") : "");
                return wait ? -ENODATA : -EINVAL;
        }
        if (r < 0) {
                fail_msg(w, _("resume device \"%s\": %s"), spec, strerror(-r));
                return -EINVAL;
        }
        return 0;
}

int dmo_cli_swap_target(const struct dmo_cli_common *c, bool wait, struct dmo_swap_target *t,
                        char *path_buf, size_t path_len, bool *noresume)
{
        return dmo_cli_swap_target_why(c, wait, t, path_buf, path_len, noresume, NULL, 0, NULL,
                                       NULL);
}

/* The words naming where spec came from, for a message about it. */
static const char *key_of(const struct dmo_cli_common *c, const char *spec,
                          const struct dmo_cmdline *cl, char *buf, size_t len)
{
        if (spec == c->resume_device)
                return "--resume-device";
        if (spec == c->config.resume_device) {
                snprintf(buf, len, _("\"resume device\" in %s"), c->config_path);
                return buf;
        }
        if (spec == cl->resume)
                return cl->resume_is_ours ? _("dormouse.resume= on the kernel command line")
                                          : _("resume= on the kernel command line");
        return _("RESUME= of initramfs-tools");
}

/* A network device once connected: taken as a disk. */
static int network_device(const struct dmo_cli_common *c, struct dmo_swap_target *t, char *path_buf,
                          struct dmo_cli_network *net, struct why *w)
{
        struct stat st;
        if (stat(path_buf, &st) < 0 || !(S_ISBLK(st.st_mode) || c->simulated)) {
                fail_msg(w, _("%s was connected to %s, but is not a block device"), path_buf,
                         net->url);
                dmo_cli_network_release(net, true);
                return -EINVAL;
        }
        t->path = path_buf;
        t->dev = S_ISBLK(st.st_mode) ? st.st_rdev : 0;
        return 0;
}

/* A network device: read, and connected unless net->defer. */
static int network_target(const struct dmo_cli_common *c, const char *spec, const char *key,
                          int64_t offset, struct dmo_swap_target *t, char *path_buf,
                          size_t path_len, struct dmo_cli_network *net, struct why *w)
{
        if (!net) {
                fail_msg(w, _("%s: a network device (%s) cannot be used by this command"), key,
                         spec);
                return -EINVAL;
        }
        int r = dmo_cli_network_attach(c, spec, key, net, path_buf, path_len, w->buf, w->len);
        if (r < 0)
                return r;
        t->path = path_buf;
        t->header_page = offset > 0 ? (uint64_t)offset : 0;
        t->network = net->url;
        if (net->pending) {
                path_buf[0] = '\0';
                return 0;
        }
        return network_device(c, t, path_buf, net, w);
}

int dmo_cli_swap_target_connect(const struct dmo_cli_common *c, struct dmo_swap_target *t,
                                char *path_buf, size_t path_len, struct dmo_cli_network *net,
                                char *why_buf, size_t why_len)
{
        struct why w = {why_buf, why_len};
        int r = dmo_cli_network_connect(c, net, path_buf, path_len, why_buf, why_len);
        if (r < 0)
                return r;
        return network_device(c, t, path_buf, net, &w);
}

int dmo_cli_swap_target_why(const struct dmo_cli_common *c, bool wait, struct dmo_swap_target *t,
                            char *path_buf, size_t path_len, bool *noresume, char *why_buf,
                            size_t why_len, enum dmo_cli_target_source *source,
                            struct dmo_cli_network *net)
{
        struct why w = {why_buf, why_len};
        enum dmo_cli_target_source from = DMO_TARGET_NAMED;
        char efi_spec[64], picked[256], recorded[DMO_RESUME_SPEC_MAX];
        uint64_t efi_offset = 0;
        struct dmo_cmdline cl;
        const char *spec = c->resume_device;
        int64_t offset = c->resume_offset;
        int r;

        memset(t, 0, sizeof(*t));
        if (read_cmdline(c, &cl, &w) < 0)
                return -EINVAL;
        if (noresume)
                *noresume = cl.noresume || cl.nohibernate;
        if (!spec && c->config.resume_device[0])
                spec = c->config.resume_device;
        if (!spec && cl.resume[0])
                spec = cl.resume;
        if (offset < 0 && c->config.resume_offset >= 0)
                offset = c->config.resume_offset;
        if (offset < 0 && cl.has_resume_offset)
                offset = (int64_t)cl.resume_offset;
        if (!spec && !wait && recorded_resume(c, recorded, sizeof(recorded)) == 0)
                spec = recorded;
        /* Nothing names a device: where systemd would look (resume) or
         * write (hibernate, which then records it in HibernateLocation). */
        if (!spec && wait &&
            dmo_cli_efi_location_read(c, efi_spec, sizeof(efi_spec), &efi_offset) == 0) {
                spec = efi_spec;
                if (offset < 0)
                        offset = (int64_t)efi_offset;
                from = DMO_TARGET_EFI_LOCATION;
        }
        if (!spec && !wait && dmo_cli_efivars_dir(c) &&
            dmo_cli_active_swap_pick(c, picked, sizeof(picked)) == 0) {
                spec = picked;
                from = DMO_TARGET_ACTIVE_SWAP;
        }
        if (source)
                *source = from;
        if (!spec) {
                fail_msg(&w,
                         _("no resume device: give --resume-device, set \"resume device\" "
                           "in %s, or put resume= on the kernel command line"),
                         c->config_path);
                return -EINVAL;
        }

        if (dmo_nbd_url_is(spec)) {
                char key[512];
                return network_target(c, spec, key_of(c, spec, &cl, key, sizeof(key)), offset, t,
                                      path_buf, path_len, net, &w);
        }
        r = find_device(c, spec, wait, path_buf, path_len, &w);
        if (r < 0)
                return r;

        struct stat st;
        if (stat(path_buf, &st) < 0) {
                if (errno == ENOENT)
                        fail_msg(&w,
                                 _("resume device %s does not exist; check "
                                   "--resume-device, \"resume device\" in %s or resume= on "
                                   "the kernel command line"),
                                 path_buf, c->config_path);
                else
                        fail_msg(&w,
                                 _("resume device %s cannot be examined (%s); check that "
                                   "it exists and that you may read it"),
                                 path_buf, strerror(errno));
                return -EINVAL;
        }
        t->path = path_buf;
        t->header_page = offset > 0 ? (uint64_t)offset : 0;
        if (S_ISBLK(st.st_mode)) {
                t->dev = st.st_rdev;
        } else if (S_ISREG(st.st_mode) && !c->simulated) {
                return map_swap_file(t, path_buf, path_len, &w);
        } else if (!S_ISREG(st.st_mode)) {
                fail_msg(&w, _("resume device %s is neither a block device nor a file"), path_buf);
                return -EINVAL;
        }
        return 0;
}
