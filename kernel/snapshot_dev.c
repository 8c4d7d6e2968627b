#include "kernel/snapshot_dev.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kernel/blockdev.h"
#include "kernel/boot_stage.h"
#include "kernel/cmdline.h"
#include "kernel/zoneinfo.h"
#include "util/cleanup.h"

_Static_assert(sizeof(struct resume_swap_area) == 12, "resume_swap_area is packed, 12 bytes");
_Static_assert(SNAPSHOT_SET_SWAP_AREA == 0x400C330D, "ioctl number as in the uapi table");
_Static_assert(SNAPSHOT_CREATE_IMAGE == 0x40043311, "ioctl number as in the uapi table");
_Static_assert(SNAPSHOT_ALLOC_SWAP_PAGE == 0x80083314, "ioctl number as in the uapi table");

enum { DEV_MAX_IOV = 256 }; /* pages per system call; UIO_MAXIOV is 1024 */

struct snapdev {
        struct dmo_snapshot base;
        int fd;
        bool ready;        /* an image exists in the kernel (ours to FREE) */
        bool platform_off; /* the engine chose shutdown mode */
        size_t page_size;
};

static struct snapdev *to_dev(struct dmo_snapshot *s)
{
        return (struct snapdev *)s;
}

static int xioctl(struct snapdev *d, unsigned long req, unsigned long arg)
{
        for (;;) {
                if (ioctl(d->fd, req, arg) == 0)
                        return 0;
                if (errno != EINTR)
                        return -errno;
        }
}

int dmo_snapshot_encode_dev(unsigned int major, unsigned int minor, uint32_t *out)
{
        if (major > 0xfff || minor > 0xfffff)
                return -EOVERFLOW;
        *out = (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);
        return 0;
}

int dmo_snapshot_swap_area_encode(const struct dmo_swap_target *t, struct resume_swap_area *out)
{
        if (!t || t->dev == 0)
                return -EINVAL;
        if (t->header_page > (uint64_t)INT64_MAX)
                return -EOVERFLOW;
        uint32_t dev;
        int r = dmo_snapshot_encode_dev(major(t->dev), minor(t->dev), &dev);
        if (r < 0)
                return r;
        memset(out, 0, sizeof(*out));
        out->offset = (__kernel_loff_t)t->header_page;
        out->dev = dev;
        return 0;
}

static int dev_set_swap_area(struct dmo_snapshot *s, const struct dmo_swap_target *t)
{
        struct resume_swap_area a;
        int r = dmo_snapshot_swap_area_encode(t, &a);
        if (r < 0)
                return r;
        return xioctl(to_dev(s), SNAPSHOT_SET_SWAP_AREA, (unsigned long)&a);
}

static int dev_freeze(struct dmo_snapshot *s)
{
        return xioctl(to_dev(s), SNAPSHOT_FREEZE, 0);
}

static int dev_free_image(struct dmo_snapshot *s)
{
        struct snapdev *d = to_dev(s);
        int r = xioctl(d, SNAPSHOT_FREE, 0);
        if (r == 0)
                d->ready = false;
        return r;
}

/* A joined thread can still be on its way out of the kernel, still marked
 * as exempt from the freezer; the thaw warns about such a task. Wait (at
 * most a fifth of a second) until the caller is the process's only thread. */
static void wait_for_threads_gone(void)
{
        for (int i = 0; i < 200; i++) {
                struct stat st;
                /* A directory's link count is 2 plus its subdirectories. */
                if (stat("/proc/self/task", &st) < 0 || st.st_nlink <= 3)
                        return;
                usleep(1000);
        }
}

static int dev_unfreeze(struct dmo_snapshot *s)
{
        struct snapdev *d = to_dev(s);
        wait_for_threads_gone();
        /* UNFREEZE is ignored while an image is ready. */
        if (d->ready) {
                int r = dev_free_image(s);
                if (r < 0)
                        return r;
        }
        return xioctl(d, SNAPSHOT_UNFREEZE, 0);
}

static int dev_pref_image_size(struct dmo_snapshot *s, uint64_t bytes)
{
        return xioctl(to_dev(s), SNAPSHOT_PREF_IMAGE_SIZE, (unsigned long)bytes);
}

static int read_small(const char *root, const char *rel, char *buf, size_t len)
{
        char path[4096];
        if (!root || strcmp(root, "/") == 0)
                root = "";
        if ((size_t)snprintf(path, sizeof(path), "%s%s", root, rel) >= sizeof(path))
                return -ENAMETOOLONG;
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t n = read(fd, buf, len - 1);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        return 0;
}

static int dev_get_pref_image_size(struct dmo_snapshot *s, uint64_t *bytes)
{
        (void)s;
        char buf[32], *end;
        int r = read_small(NULL, "/sys/power/image_size", buf, sizeof(buf));
        if (r < 0)
                return r;
        errno = 0;
        unsigned long long v = strtoull(buf, &end, 10);
        if (end == buf || errno || (*end && *end != '\n'))
                return -EINVAL;
        *bytes = v;
        return 0;
}

static int dev_create_image(struct dmo_snapshot *s, int *in_suspend)
{
        struct snapdev *d = to_dev(s);
        int v = 0;
        int r = xioctl(d, SNAPSHOT_CREATE_IMAGE, (unsigned long)&v);
        if (r < 0)
                return r;
        /* Both returns leave an image to FREE: the saved one, or the
         * restored kernel's leftovers. */
        d->ready = true;
        *in_suspend = v;
        return 0;
}

static int dev_get_image_size(struct dmo_snapshot *s, uint64_t *bytes)
{
        __kernel_loff_t v = 0;
        int r = xioctl(to_dev(s), SNAPSHOT_GET_IMAGE_SIZE, (unsigned long)&v);
        if (r == 0)
                *bytes = (uint64_t)v;
        return r;
}

/* /dev/snapshot has no read_iter/write_iter: readv()/writev() call its
 * read()/write() once per iovec and stop at the first short one, so a page
 * per iovec moves a batch of pages in one system call instead of one each
 * (65,000 calls for a 256 MiB image). */
static int page_iovecs(struct snapdev *d, const void *buf, size_t len, struct iovec *iov)
{
        const size_t ps = d->page_size;
        int n = 0;
        for (size_t off = 0; off < len && n < DEV_MAX_IOV; n++) {
                size_t part = len - off < ps ? len - off : ps;
                iov[n] = (struct iovec){.iov_base = (uint8_t *)buf + off, .iov_len = part};
                off += part;
        }
        return n;
}

static ssize_t dev_read_image(struct dmo_snapshot *s, void *buf, size_t len)
{
        struct snapdev *d = to_dev(s);
        struct iovec iov[DEV_MAX_IOV];
        int n = page_iovecs(d, buf, len, iov);
        for (;;) {
                ssize_t r = n > 1 ? readv(d->fd, iov, n) : read(d->fd, buf, len);
                if (r >= 0)
                        return r;
                if (errno != EINTR)
                        return -errno;
        }
}

static ssize_t dev_write_image(struct dmo_snapshot *s, const void *buf, size_t len)
{
        struct snapdev *d = to_dev(s);
        struct iovec iov[DEV_MAX_IOV];
        int n = page_iovecs(d, buf, len, iov);
        for (;;) {
                ssize_t r = n > 1 ? writev(d->fd, iov, n) : write(d->fd, buf, len);
                if (r >= 0) {
                        /* Once the last page is in, the kernel marks the image
                         * ready; assume it may be as soon as anything arrived. */
                        d->ready = true;
                        return r;
                }
                if (errno != EINTR)
                        return -errno;
        }
}

static int dev_alloc_swap_page(struct dmo_snapshot *s, uint64_t *byte_offset)
{
        __kernel_loff_t v = 0;
        int r = xioctl(to_dev(s), SNAPSHOT_ALLOC_SWAP_PAGE, (unsigned long)&v);
        if (r == 0)
                *byte_offset = (uint64_t)v;
        return r;
}

static int dev_free_swap_pages(struct dmo_snapshot *s)
{
        return xioctl(to_dev(s), SNAPSHOT_FREE_SWAP_PAGES, 0);
}

static int dev_avail_swap(struct dmo_snapshot *s, uint64_t *bytes)
{
        __kernel_loff_t v = 0;
        int r = xioctl(to_dev(s), SNAPSHOT_AVAIL_SWAP_SIZE, (unsigned long)&v);
        if (r == 0)
                *bytes = (uint64_t)v;
        return r;
}

static int dev_atomic_restore(struct dmo_snapshot *s)
{
        int r = xioctl(to_dev(s), SNAPSHOT_ATOMIC_RESTORE, 0);
        /* Success never comes back here; keep the simulator's codes apart. */
        if (r == 0 || r == DMO_RESTORE_MISMATCH)
                return -EIO;
        return r;
}

static int dev_platform_support(struct dmo_snapshot *s, bool enable)
{
        struct snapdev *d = to_dev(s);
        int r = xioctl(d, SNAPSHOT_PLATFORM_SUPPORT, enable ? 1 : 0);
        if (r == 0)
                d->platform_off = !enable;
        return r;
}

static int dev_shutdown(struct dmo_snapshot *s, enum dmo_shutdown mode)
{
        struct snapdev *d = to_dev(s);
        int r;

        switch (mode) {
        case DMO_SHUTDOWN_SUSPEND:
                r = xioctl(d, SNAPSHOT_S2RAM, 0);
                return r < 0 ? r : DMO_SHUTDOWN_WOKE;
        case DMO_SHUTDOWN_PLATFORM:
                if (!d->platform_off && xioctl(d, SNAPSHOT_PLATFORM_SUPPORT, 1) == 0)
                        (void)xioctl(d, SNAPSHOT_POWER_OFF, 0);
                /* Still here: no platform support, or a wakeup event got in
                 * the way. A plain power off keeps the image just as well. */
                reboot(RB_POWER_OFF);
                return -errno;
        case DMO_SHUTDOWN_REBOOT:
                reboot(RB_AUTOBOOT);
                return -errno;
        case DMO_SHUTDOWN_POWEROFF:
                reboot(RB_POWER_OFF);
                return -errno;
        }
        return -EINVAL;
}

static int dev_open_target(struct dmo_snapshot *s, const struct dmo_swap_target *t,
                           struct dmo_blockdev **out)
{
        struct dmo_blockdev *bd;
        int r = dmo_blockdev_open(t->path, true, NULL, &bd);
        if (r < 0)
                return r;
        /* The kernel writes the image where t->dev says; we must write the
         * very same device, whatever the path points at by now. */
        if (t->dev == 0 || dmo_blockdev_rdev(bd) != t->dev) {
                dmo_blockdev_free(bd);
                return -ENODEV;
        }
        *out = bd;
        return 0;
}

static int dev_check_boot_stage(struct dmo_snapshot *s, const struct dmo_swap_target *t,
                                enum dmo_live_reason *reason)
{
        return dmo_boot_stage_check("/proc", t, reason);
}

static int dev_memory_bytes(struct dmo_snapshot *s, uint64_t *bytes)
{
        long pages = sysconf(_SC_PHYS_PAGES);
        long ps = sysconf(_SC_PAGESIZE);
        if (pages <= 0 || ps <= 0)
                return -ENOSYS;
        *bytes = (uint64_t)pages * (uint64_t)ps;
        return 0;
}

static int dev_max_image_bytes(struct dmo_snapshot *s, uint64_t *bytes)
{
        uint64_t present;
        long ps = sysconf(_SC_PAGESIZE);
        if (ps > 0 && dmo_zoneinfo_present_pages("/proc/zoneinfo", &present) == 0) {
                *bytes = dmo_zoneinfo_max_image_pages(present, (uint32_t)ps) * (uint64_t)ps;
                return 0;
        }
        return dev_memory_bytes(s, bytes);
}

int dmo_snapshot_free_memory(uint64_t *bytes)
{
        struct sysinfo si;
        if (sysinfo(&si) < 0)
                return -errno;
        *bytes = (uint64_t)si.freeram * si.mem_unit;
        return 0;
}

static int dev_free_memory_bytes(struct dmo_snapshot *s, uint64_t *bytes)
{
        (void)s;
        return dmo_snapshot_free_memory(bytes);
}

static void copy_field(char dst[65], const char *src)
{
        size_t n = strnlen(src, 64);
        memcpy(dst, src, n);
        dst[n] = '\0';
}

static int dev_identity(struct dmo_snapshot *s, struct dmo_kernel_identity *id)
{
        struct utsname u;
        if (uname(&u) < 0)
                return -errno;
        memset(id, 0, sizeof(*id));
        copy_field(id->sysname, u.sysname);
        copy_field(id->release, u.release);
        copy_field(id->version, u.version);
        copy_field(id->machine, u.machine);
        id->page_size = (uint32_t)sysconf(_SC_PAGESIZE);
        return 0;
}

static void dev_checkpoint(struct dmo_snapshot *s, enum dmo_checkpoint cp)
{
}

static void dev_free(struct dmo_snapshot *s)
{
        struct snapdev *d = to_dev(s);
        /* close() is the kernel's abort: frees the image and swap, thaws. */
        close(d->fd);
        free(d);
}

static const struct dmo_snapshot_ops dev_ops = {
    .set_swap_area = dev_set_swap_area,
    .freeze = dev_freeze,
    .unfreeze = dev_unfreeze,
    .pref_image_size = dev_pref_image_size,
    .get_pref_image_size = dev_get_pref_image_size,
    .create_image = dev_create_image,
    .get_image_size = dev_get_image_size,
    .read_image = dev_read_image,
    .write_image = dev_write_image,
    .alloc_swap_page = dev_alloc_swap_page,
    .free_swap_pages = dev_free_swap_pages,
    .avail_swap = dev_avail_swap,
    .atomic_restore = dev_atomic_restore,
    .free_image = dev_free_image,
    .platform_support = dev_platform_support,
    .shutdown = dev_shutdown,
    .open_target = dev_open_target,
    .memory_bytes = dev_memory_bytes,
    .max_image_bytes = dev_max_image_bytes,
    .free_memory_bytes = dev_free_memory_bytes,
    .check_boot_stage = dev_check_boot_stage,
    .identity = dev_identity,
    .checkpoint = dev_checkpoint,
    .free = dev_free,
};

int dmo_snapshot_open_dev(const char *path, enum dmo_snapshot_mode mode, struct dmo_snapshot **out)
{
        if (!out || (mode != DMO_SNAPSHOT_HIBERNATE && mode != DMO_SNAPSHOT_RESUME))
                return -EINVAL;
        if (!path)
                path = DMO_SNAPSHOT_DEV_PATH;
        int flags = (mode == DMO_SNAPSHOT_HIBERNATE ? O_RDONLY : O_WRONLY) | O_CLOEXEC;
        _cleanup_close_ int fd = open(path, flags);
        if (fd < 0) {
                if (errno == EACCES)
                        return -EPERM; /* the node is root's: same answer as the kernel's */
                return -errno;
        }
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISCHR(st.st_mode))
                return -ENODEV;

        struct snapdev *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->base.ops = &dev_ops;
        d->base.mode = mode;
        d->page_size = (size_t)sysconf(_SC_PAGESIZE);
        d->fd = dmo_steal_fd(fd);
        *out = &d->base;
        return 0;
}

static void set_detail(char *detail, size_t len, const char *s, size_t n)
{
        if (!detail || len == 0)
                return;
        if (n >= len)
                n = len - 1;
        memcpy(detail, s, n);
        detail[n] = '\0';
}

/* /sys/power/disk says [disabled] and securityfs could not tell (not
 * mounted: an initramfs, a minimal system): the command line can. Without
 * nohibernate or hibernate=no there, what disabled it is lockdown, from
 * lockdown= or, with nothing there, from Secure Boot. */
static int disabled_by(const char *sysfs_root, char *detail, size_t len)
{
        char line[DMO_CMDLINE_MAX + 1];
        struct dmo_cmdline cl;
        if (read_small(sysfs_root, "/proc/cmdline", line, sizeof(line)) < 0)
                return DMO_HIB_DISABLED;
        /* A malformed value of another parameter keeps what came before it;
         * this is only a reason to show. */
        (void)dmo_cmdline_parse(line, &cl);
        if (cl.nohibernate)
                return DMO_HIB_DISABLED;
        const char *who = cl.lockdown[0] ? cl.lockdown : "Secure Boot";
        set_detail(detail, len, who, strlen(who));
        return DMO_HIB_LOCKDOWN;
}

int dmo_hibernation_disabled_reason(const char *sysfs_root, char *detail, size_t len)
{
        char buf[256];
        set_detail(detail, len, "", 0);

        /* "none integrity [confidentiality]": the bracketed word is in force. */
        bool lockdown_known = false;
        if (read_small(sysfs_root, "/sys/kernel/security/lockdown", buf, sizeof(buf)) == 0) {
                char *open_b = strchr(buf, '['), *close_b = open_b ? strchr(open_b, ']') : NULL;
                if (open_b && close_b && strncmp(open_b + 1, "none]", 5) != 0) {
                        set_detail(detail, len, open_b + 1, (size_t)(close_b - open_b - 1));
                        return DMO_HIB_LOCKDOWN;
                }
                lockdown_known = open_b && close_b;
        }
        int r = read_small(sysfs_root, "/sys/power/disk", buf, sizeof(buf));
        if (r == -ENOENT)
                return DMO_HIB_NOT_BUILT;
        if (r == 0 && strstr(buf, "[disabled]"))
                return lockdown_known ? DMO_HIB_DISABLED : disabled_by(sysfs_root, detail, len);
        if (geteuid() != 0)
                return DMO_HIB_NOT_PRIVILEGED;
        return DMO_HIB_UNKNOWN;
}
