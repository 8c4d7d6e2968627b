/* EFI string variables through efivarfs. */
#include "kernel/efivar.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util/small_file.h"

#define EFI_VARIABLE_NON_VOLATILE       0x1u
#define EFI_VARIABLE_BOOTSERVICE_ACCESS 0x2u
#define EFI_VARIABLE_RUNTIME_ACCESS     0x4u
/* The largest value read: HibernateLocation is a few hundred bytes. */
#define VALUE_MAX 4096

static int var_path(const char *dir, const char *name, const char *vendor, char *path, size_t len)
{
        if (strchr(name, '/') || strchr(vendor, '/'))
                return -EINVAL;
        return (size_t)snprintf(path, len, "%s/%s-%s", dir, name, vendor) < len ? 0 : -ENAMETOOLONG;
}

/* efivarfs files are immutable unless told otherwise. */
static void make_mutable(const char *path)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return;
        unsigned int flags;
        if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && (flags & FS_IMMUTABLE_FL)) {
                flags &= ~(unsigned int)FS_IMMUTABLE_FL;
                (void)ioctl(fd, FS_IOC_SETFLAGS, &flags);
        }
        close(fd);
}

int dmo_efivar_read_string(const char *dir, const char *name, const char *vendor, char *buf,
                           size_t len)
{
        char path[4096];
        uint8_t raw[4 + VALUE_MAX + 1]; /* and the NUL dmo_read_small_file adds */
        int r = var_path(dir, name, vendor, path, sizeof(path));
        if (r < 0)
                return r;
        ssize_t n = dmo_read_small_file(path, (char *)raw, sizeof(raw));
        if (n < 0)
                return (int)n;
        return dmo_efivar_decode_string(raw, (size_t)n, buf, len);
}

int dmo_efivar_decode_string(const uint8_t *raw, size_t n, char *buf, size_t len)
{
        if (n < 4 || (n - 4) % 2 != 0 || len == 0)
                return -EINVAL;
        size_t out = 0;
        for (size_t i = 4; i + 1 < n; i += 2) {
                unsigned c = raw[i] | (unsigned)raw[i + 1] << 8;
                if (c == 0)
                        break;
                if (c >= 0xd800 && c <= 0xdfff)
                        return -EINVAL; /* surrogates: nothing a string of ours holds */
                uint8_t u[3];
                size_t k;
                if (c < 0x80) {
                        u[0] = (uint8_t)c;
                        k = 1;
                } else if (c < 0x800) {
                        u[0] = (uint8_t)(0xc0 | c >> 6);
                        u[1] = (uint8_t)(0x80 | (c & 0x3f));
                        k = 2;
                } else {
                        u[0] = (uint8_t)(0xe0 | c >> 12);
                        u[1] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
                        u[2] = (uint8_t)(0x80 | (c & 0x3f));
                        k = 3;
                }
                if (out + k >= len)
                        return -ENOBUFS;
                memcpy(buf + out, u, k);
                out += k;
        }
        buf[out] = '\0';
        return 0;
}

/* The next character of UTF-8 text s (advanced), BMP only; -1 when the
 * text is not that. */
static long next_char(const unsigned char **s)
{
        const unsigned char *p = *s;
        long c;
        if (p[0] < 0x80) {
                c = p[0];
                *s = p + 1;
        } else if ((p[0] & 0xe0) == 0xc0 && (p[1] & 0xc0) == 0x80) {
                c = (long)(p[0] & 0x1f) << 6 | (p[1] & 0x3f);
                if (c < 0x80)
                        return -1;
                *s = p + 2;
        } else if ((p[0] & 0xf0) == 0xe0 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80) {
                c = (long)(p[0] & 0x0f) << 12 | (long)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
                if (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))
                        return -1;
                *s = p + 3;
        } else {
                return -1;
        }
        return c;
}

int dmo_efivar_write_string(const char *dir, const char *name, const char *vendor,
                            const char *value)
{
        char path[4096];
        uint8_t raw[4 + VALUE_MAX];
        int r = var_path(dir, name, vendor, path, sizeof(path));
        if (r < 0)
                return r;
        uint32_t attrs = EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS |
                         EFI_VARIABLE_RUNTIME_ACCESS;
        for (int i = 0; i < 4; i++)
                raw[i] = (uint8_t)(attrs >> (8 * i));
        size_t n = 4;
        const unsigned char *s = (const unsigned char *)value;
        while (*s) {
                long c = next_char(&s);
                if (c < 0)
                        return -EINVAL;
                if (n + 4 > sizeof(raw))
                        return -E2BIG;
                raw[n++] = (uint8_t)(c & 0xff);
                raw[n++] = (uint8_t)(c >> 8);
        }
        raw[n++] = 0;
        raw[n++] = 0;
        /* A variable is replaced by deleting it first: efivarfs cannot
         * truncate, and an append attribute would add to it. */
        r = dmo_efivar_delete(dir, name, vendor);
        if (r < 0)
                return r;
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0644);
        if (fd < 0)
                return -errno;
        ssize_t w = write(fd, raw, n);
        r = w < 0 ? -errno : (size_t)w == n ? 0 : -EIO;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        return r;
}

int dmo_efivar_delete(const char *dir, const char *name, const char *vendor)
{
        char path[4096];
        int r = var_path(dir, name, vendor, path, sizeof(path));
        if (r < 0)
                return r;
        make_mutable(path);
        if (unlink(path) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}
