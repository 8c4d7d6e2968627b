#include "kernel/blockdev.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/faults.h"
#include "util/cleanup.h"

struct dmo_blockdev {
        int fd;
        uint64_t size;
        uint64_t size_now; /* smaller than size once an access found the end moved */
        dev_t rdev;
        const struct dmo_fault_plan *faults;
        uint64_t reads, writes, syncs; /* calls so far, for eio-*@N */
        bool direct;                   /* the device does direct I/O... */
        bool direct_on_fd;             /* ...and O_DIRECT is set on fd right now */
        char path[];
};

static int set_direct_flag(int fd, bool on)
{
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0)
                return -errno;
        if (fcntl(fd, F_SETFL, on ? fl | O_DIRECT : fl & ~O_DIRECT) < 0)
                return -errno;
        return 0;
}

int dmo_blockdev_open(const char *path, bool writable, const struct dmo_fault_plan *faults,
                      struct dmo_blockdev **out)
{
        if (!path || !out)
                return -EINVAL;
        _cleanup_close_ int fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
        if (fd < 0)
                return -errno;

        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        uint64_t size;
        dev_t rdev = 0;
        bool direct = false;
        if (S_ISBLK(st.st_mode)) {
                if (ioctl(fd, BLKGETSIZE64, &size) < 0)
                        return -errno;
                rdev = st.st_rdev;
        } else if (S_ISREG(st.st_mode)) {
                size = (uint64_t)st.st_size;
        } else {
                return -ENOTBLK;
        }
        /* A block device is written around the page cache: after the
         * snapshot the kernel is short of memory and cannot write back, and
         * on resume cached pages would only compete with the image. The
         * image's transfers are page aligned; a misaligned one goes through
         * the page cache (see retry_buffered). */
        if (S_ISBLK(st.st_mode))
                direct = set_direct_flag(fd, true) == 0;

        size_t plen = strlen(path) + 1;
        struct dmo_blockdev *d = calloc(1, sizeof(*d) + plen);
        if (!d)
                return -ENOMEM;
        memcpy(d->path, path, plen);
        d->fd = dmo_steal_fd(fd);
        d->size = d->size_now = size;
        d->rdev = rdev;
        d->faults = faults;
        d->direct = direct;
        d->direct_on_fd = direct;
        *out = d;
        return 0;
}

/* Direct I/O wants buffer address, length and offset aligned to the
 * device's logical block size; a page is a multiple of every such size. */
#define DIRECT_ALIGN 4096u

static bool aligned_for_direct(const void *buf, size_t len, uint64_t off)
{
        return (uintptr_t)buf % DIRECT_ALIGN == 0 && len % DIRECT_ALIGN == 0 &&
               off % DIRECT_ALIGN == 0;
}

/* O_DIRECT refuses misaligned transfers with EINVAL. A misaligned one (a
 * header read into whatever buffer its caller had) goes through the page
 * cache alone, and direct I/O comes back for the next: the image's own
 * transfers are aligned and must stay direct. Only when an aligned transfer
 * is refused does the device not do direct I/O at all, and it is turned off
 * for good rather than fail the hibernation. Returns whether to retry; *once
 * says O_DIRECT is off for this transfer only (see restore_direct). */
static bool retry_buffered(struct dmo_blockdev *d, int err, const void *buf, size_t len,
                           uint64_t off, bool *once)
{
        if (err != EINVAL || !d->direct)
                return false;
        if (set_direct_flag(d->fd, false) < 0)
                return false;
        if (aligned_for_direct(buf, len, off))
                d->direct = false;
        else
                *once = true;
        d->direct_on_fd = false;
        return true;
}

/* After a transfer retried through the page cache: direct I/O again. */
static void restore_direct(struct dmo_blockdev *d, bool once)
{
        if (once && d->direct && set_direct_flag(d->fd, true) == 0)
                d->direct_on_fd = true;
}

static int check_range(const struct dmo_blockdev *d, size_t len, uint64_t off)
{
        if (off > d->size || len > d->size - off)
                return -ENXIO;
        return 0;
}

/* pwrite(2) and pread(2), through the plan's shrink@N: a block device that
 * ends at N, as the kernel's does (blkdev_write_iter, blkdev_read_iter): a
 * write reaching past the end is cut short there, one starting at or past
 * it fails with ENOSPC, a read there moves nothing. */
static ssize_t dev_pwrite(const struct dmo_blockdev *d, const void *p, size_t len, uint64_t off)
{
        uint64_t end;
        if (dmo_fault_shrink_to(d->faults, &end)) {
                if (off >= end) {
                        errno = ENOSPC;
                        return -1;
                }
                if (len > end - off)
                        len = (size_t)(end - off);
        }
        return pwrite(d->fd, p, len, (off_t)off);
}

static ssize_t dev_pread(const struct dmo_blockdev *d, void *p, size_t len, uint64_t off)
{
        uint64_t end;
        if (dmo_fault_shrink_to(d->faults, &end)) {
                if (off >= end)
                        return 0;
                if (len > end - off)
                        len = (size_t)(end - off);
        }
        return pread(d->fd, p, len, (off_t)off);
}

/* An access inside the size measured at open found the device's end (a
 * read got nothing, a write ENOSPC): the device may have shrunk since, as
 * a block device does when its disk or volume is cut short under it. Its
 * size is measured again; when it shrank, size_now keeps the new one and
 * the access is outside the device (-ENXIO), not a full disk. Else err. */
static int end_moved(struct dmo_blockdev *d, int err)
{
        uint64_t size = d->size, end;
        if (d->rdev && ioctl(d->fd, BLKGETSIZE64, &size) < 0)
                size = d->size;
        if (dmo_fault_shrink_to(d->faults, &end) && end < size)
                size = end;
        if (size >= d->size)
                return err;
        d->size_now = size;
        return -ENXIO;
}

int dmo_blockdev_pread(struct dmo_blockdev *d, void *buf, size_t len, uint64_t off)
{
        uint64_t n;
        d->reads++;
        if (dmo_fault_eio_read_at(d->faults, &n) && d->reads == n)
                return -EIO;
        int r = check_range(d, len, off);
        if (r < 0)
                return r;
        uint8_t *p = buf;
        bool once = false;
        r = 0;
        while (len > 0) {
                ssize_t got = dev_pread(d, p, len, off);
                if (got < 0) {
                        if (errno == EINTR || retry_buffered(d, errno, p, len, off, &once))
                                continue;
                        r = -errno;
                        break;
                }
                if (got == 0) {
                        r = end_moved(d, -ENXIO); /* the file shrank under us */
                        break;
                }
                p += got;
                len -= (size_t)got;
                off += (uint64_t)got;
        }
        restore_direct(d, once);
        return r;
}

int dmo_blockdev_pwrite(struct dmo_blockdev *d, const void *buf, size_t len, uint64_t off)
{
        uint64_t n;
        d->writes++;
        if (dmo_fault_eio_write_at(d->faults, &n) && d->writes == n)
                return -EIO;
        if (dmo_fault_readonly_from(d->faults, &n) && d->writes >= n)
                return -EROFS;
        int r = check_range(d, len, off);
        if (r < 0)
                return r;
        bool halve = dmo_fault_short_write(d->faults);
        const uint8_t *p = buf;
        bool once = false;
        while (len > 0) {
                size_t chunk = len;
                if (halve && chunk > 1)
                        chunk /= 2;
                /* A short write is no failure by itself: the rest is
                 * written by the next call, and if the device really
                 * ended there (it shrank), that call says so (ENOSPC). */
                ssize_t put = dev_pwrite(d, p, chunk, off);
                if (put < 0) {
                        if (errno == EINTR || retry_buffered(d, errno, p, chunk, off, &once))
                                continue;
                        r = errno == ENOSPC ? end_moved(d, -ENOSPC) : -errno;
                        break;
                }
                if (put == 0) {
                        r = end_moved(d, -ENXIO);
                        break;
                }
                p += put;
                len -= (size_t)put;
                off += (uint64_t)put;
        }
        restore_direct(d, once);
        return r;
}

bool dmo_blockdev_direct(const struct dmo_blockdev *d)
{
        return d->direct;
}

int dmo_blockdev_set_direct(struct dmo_blockdev *d, bool on)
{
        int r = set_direct_flag(d->fd, on);
        if (r < 0)
                return r;
        d->direct = d->direct_on_fd = on;
        return 0;
}

int dmo_blockdev_discard(struct dmo_blockdev *d, uint64_t off, uint64_t len)
{
        uint64_t n;
        if (dmo_fault_readonly_from(d->faults, &n) && d->writes + 1 >= n)
                return -EROFS;
        if (off > d->size || len > d->size - off)
                return -ENXIO;
        if (len == 0)
                return 0;
        if (d->rdev) {
                uint64_t range[2] = {off, len};
                return ioctl(d->fd, BLKDISCARD, range) < 0 ? -errno : 0;
        }
        if (fallocate(d->fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) <
            0)
                return errno == ENOTSUP ? -EOPNOTSUPP : -errno;
        return 0;
}

int dmo_blockdev_sync(struct dmo_blockdev *d)
{
        uint64_t n;
        d->syncs++;
        if (dmo_fault_eio_sync_at(d->faults, &n) && d->syncs == n)
                return -EIO; /* the writes before it "succeeded": data may be lost */
        return fsync(d->fd) < 0 ? -errno : 0;
}

uint64_t dmo_blockdev_size(const struct dmo_blockdev *d)
{
        return d->size;
}

uint64_t dmo_blockdev_size_now(const struct dmo_blockdev *d)
{
        return d->size_now;
}

const char *dmo_blockdev_path(const struct dmo_blockdev *d)
{
        return d->path;
}

dev_t dmo_blockdev_rdev(const struct dmo_blockdev *d)
{
        return d->rdev;
}

uint64_t dmo_blockdev_writes(const struct dmo_blockdev *d)
{
        return d->writes;
}

void dmo_blockdev_free(struct dmo_blockdev *d)
{
        if (!d)
                return;
        close(d->fd);
        free(d);
}
