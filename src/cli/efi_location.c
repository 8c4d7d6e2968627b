/* systemd's HibernateLocation, as dormouse writes and reads it. */
#include "cli/efi_location.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli/hibernate_location.h"
#include "kernel/blockdev.h"
#include "kernel/efivar.h"
#include "kernel/swap_area.h"
#include "util/i18n.h"

#define MAX_SWAPS 32

/* efivarfs's f_type (linux/magic.h). */
#define EFIVARFS_MAGIC 0xde5e81e4

const char *dmo_cli_efivars_dir(const struct dmo_cli_common *c)
{
        if (c->efivars_dir || c->simulated)
                return c->efivars_dir;
        /* The directory is there on every EFI boot; the variables only once
         * efivarfs is mounted on it (systemd does; the initramfs scripts
         * do it for resume). */
        struct statfs fs;
        return statfs(DMO_EFIVARS_DIR, &fs) == 0 && (unsigned long)fs.f_type == EFIVARFS_MAGIC
                   ? DMO_EFIVARS_DIR
                   : NULL;
}

int dmo_cli_active_swap_pick(const struct dmo_cli_common *c, char *path, size_t len)
{
        char swaps[4096];
        if (c->simulated && !c->sim_proc)
                return -ENOENT;
        snprintf(swaps, sizeof(swaps), "%s/swaps", c->simulated ? c->sim_proc : "/proc");
        struct dmo_swap_entry e[MAX_SWAPS];
        size_t n = 0, pick;
        int r = dmo_proc_swaps_parse(swaps, e, MAX_SWAPS, &n);
        if (r < 0)
                return r == -EINVAL ? -EINVAL : -ENOENT;
        if (n > MAX_SWAPS)
                n = MAX_SWAPS;
        r = dmo_proc_swaps_pick(e, n, &pick);
        if (r < 0)
                return r;
        if ((size_t)snprintf(path, len, "%s", e[pick].path) >= len)
                return -ENAMETOOLONG;
        return 0;
}

/* The UUID udev names the device by: a partition's swap header UUID (what
 * ID_FS_UUID is for swap), else the file system of a swap file's disk,
 * found among /dev/disk/by-uuid's links. */
static int target_uuid(const struct dmo_swap_target *t, char uuid[37])
{
        if (t->header_page == 0) {
                struct dmo_blockdev *bd;
                struct dmo_swap_info info;
                int r = dmo_blockdev_open(t->path, false, NULL, &bd);
                if (r < 0)
                        return r;
                r = dmo_swap_header_read(bd, 0, &info);
                dmo_blockdev_free(bd);
                if (r < 0)
                        return r;
                dmo_swap_uuid_format(info.uuid, uuid);
                return 0;
        }
        DIR *d = opendir("/dev/disk/by-uuid");
        if (!d)
                return -errno;
        struct dirent *e;
        int r = -ENOENT;
        while ((e = readdir(d))) {
                char link[512];
                struct stat st;
                snprintf(link, sizeof(link), "/dev/disk/by-uuid/%s", e->d_name);
                if (e->d_name[0] == '.' || stat(link, &st) < 0 || !S_ISBLK(st.st_mode) ||
                    st.st_rdev != t->dev)
                        continue;
                r = dmo_uuid_normalize(e->d_name, uuid);
                if (r == 0)
                        break;
        }
        closedir(d);
        return r;
}

static void own_os_release(struct dmo_os_release *os)
{
        if (dmo_os_release_read("/etc/os-release", os) < 0)
                dmo_os_release_read("/usr/lib/os-release", os);
}

int dmo_cli_efi_location_write(const struct dmo_cli_common *c, const struct dmo_swap_target *t)
{
        const char *dir = dmo_cli_efivars_dir(c);
        if (!dir) {
                dmo_cli_error(_("no resume device is named and this machine did not boot "
                                "through EFI (or efivarfs is not mounted), so the next boot could "
                                "not be told where the image is: put resume=%s on the kernel "
                                "command line (or \"resume "
                                "device = %s\" in %s), run update-initramfs -u, and hibernate "
                                "again"),
                              t->path, t->path, c->config_path);
                return -EINVAL;
        }
        struct dmo_hibernate_location loc = {.offset = t->header_page};
        int r = target_uuid(t, loc.uuid);
        if (r < 0) {
                dmo_cli_error(_("%s has no UUID that the next boot could find it by (%s): name "
                                "the resume device with resume= on the kernel command line"),
                              t->path, strerror(-r));
                return -EINVAL;
        }
        struct utsname u;
        if (uname(&u) == 0)
                snprintf(loc.kernel_version, sizeof(loc.kernel_version), "%s", u.release);
        own_os_release(&loc.os);
        char json[1024];
        r = dmo_hibernate_location_format(&loc, json, sizeof(json));
        if (r == 0)
                r = dmo_efivar_write_string(dir, DMO_HIBERNATE_LOCATION_VAR, DMO_EFI_SYSTEMD_VENDOR,
                                            json);
        if (r < 0) {
                dmo_cli_error(_("cannot write the EFI variable HibernateLocation in %s (%s), "
                                "which tells the next boot where the image is: put resume= on the "
                                "kernel command line, run update-initramfs -u, and hibernate "
                                "again"),
                              dir, strerror(-r));
                return -EINVAL;
        }
        fprintf(stderr,
                _("dormouse: no resume device is named: the image goes to %s (page %llu), "
                  "and the EFI variable HibernateLocation tells the next boot (%s)\n"),
                t->path, (unsigned long long)t->header_page, json);
        return 0;
}

int dmo_cli_efi_location_read(const struct dmo_cli_common *c, char *spec, size_t len,
                              uint64_t *offset)
{
        const char *dir = dmo_cli_efivars_dir(c);
        if (!dir)
                return -ENOENT;
        char json[4096];
        int r = dmo_efivar_read_string(dir, DMO_HIBERNATE_LOCATION_VAR, DMO_EFI_SYSTEMD_VENDOR,
                                       json, sizeof(json));
        if (r == -ENOENT)
                return r;
        struct dmo_hibernate_location loc;
        if (r == 0)
                r = dmo_hibernate_location_parse(json, &loc);
        if (r < 0) {
                dmo_cli_note(_("the EFI variable HibernateLocation in %s cannot be read (%s); "
                               "no image is looked for there"),
                             dir, strerror(-r));
                return -EINVAL;
        }
        struct dmo_os_release self;
        own_os_release(&self);
        /* An initramfs without os-release cannot tell: the location is
         * taken rather than the image left behind. */
        if (self.id[0] && !dmo_hibernate_location_is_ours(&loc, &self)) {
                dmo_cli_note(_("the EFI variable HibernateLocation names an image of another "
                               "installation (%s, not %s); it is left alone"),
                             loc.os.id[0] ? loc.os.id : "?", self.id[0] ? self.id : "?");
                return -EINVAL;
        }
        if ((size_t)snprintf(spec, len, "UUID=%s", loc.uuid) >= len)
                return -ENAMETOOLONG;
        *offset = loc.offset;
        return 0;
}

void dmo_cli_efi_location_clear(const struct dmo_cli_common *c)
{
        const char *dir = dmo_cli_efivars_dir(c);
        if (!dir)
                return;
        int r = dmo_efivar_delete(dir, DMO_HIBERNATE_LOCATION_VAR, DMO_EFI_SYSTEMD_VENDOR);
        if (r < 0)
                dmo_cli_note(_("cannot remove the EFI variable HibernateLocation from %s (%s)"),
                             dir, strerror(-r));
}
