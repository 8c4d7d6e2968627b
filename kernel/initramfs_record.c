#include "kernel/initramfs_record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/parse.h"

/* "none", or exactly 64 hex digits. */
static int parse_digest(const char *v, bool *has, uint8_t out[DMO_SHA256_LEN])
{
        if (strcmp(v, "none") == 0) {
                *has = false;
                return 0;
        }
        if (strlen(v) != 2 * DMO_SHA256_LEN)
                return -EINVAL;
        for (unsigned i = 0; i < DMO_SHA256_LEN; i++) {
                int hi = dmo_hex_value(v[2 * i]), lo = dmo_hex_value(v[2 * i + 1]);
                if (hi < 0 || lo < 0)
                        return -EINVAL;
                out[i] = (uint8_t)(hi << 4 | lo);
        }
        *has = true;
        return 0;
}

static int copy_value(char *dst, size_t size, const char *v)
{
        size_t n = strlen(v);
        if (n >= size)
                return -EINVAL;
        memcpy(dst, v, n + 1);
        return 0;
}

enum seen { SEEN_VERSION = 1, SEEN_KERNEL = 2, SEEN_CONFIG = 4 };

static int apply(struct dmo_initramfs_record *r, const char *key, const char *v, unsigned *seen)
{
        if (strcmp(key, "record") == 0) {
                if (strcmp(v, "1") != 0) {
                        /* digits only: a later version, else garbage */
                        if (!v[0] || strspn(v, "0123456789") != strlen(v))
                                return -EINVAL;
                        return -EPROTONOSUPPORT;
                }
                r->version = 1;
                *seen |= SEEN_VERSION;
                return 0;
        }
        if (strcmp(key, "kernel") == 0) {
                *seen |= SEEN_KERNEL;
                return v[0] ? copy_value(r->kernel, sizeof(r->kernel), v) : -EINVAL;
        }
        if (strcmp(key, "builder") == 0)
                return copy_value(r->builder, sizeof(r->builder), v);
        if (strcmp(key, "config-sha256") == 0) {
                *seen |= SEEN_CONFIG;
                return parse_digest(v, &r->has_config, r->config_sha256);
        }
        if (strcmp(key, "secret-key-sha256") == 0)
                return parse_digest(v, &r->has_secret_key, r->secret_key_sha256);
        if (strcmp(key, "resume") == 0)
                return copy_value(r->resume, sizeof(r->resume), v);
        if (strcmp(key, "reads-hibernate-location") == 0) {
                if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
                        return -EINVAL;
                r->reads_efi_location = strcmp(v, "yes") == 0;
                return 0;
        }
        if (strcmp(key, "nbd-client") == 0) {
                if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
                        return -EINVAL;
                r->has_nbd_client = strcmp(v, "yes") == 0;
                return 0;
        }
        return 0; /* a later version's key */
}

/* One line without its end: "key = value", a comment or blank. */
static int parse_line(struct dmo_initramfs_record *r, char *line, unsigned *seen)
{
        char *p = line + strspn(line, " \t");
        if (!*p || *p == '#')
                return 0;
        char *eq = strchr(p, '=');
        if (!eq)
                return -EINVAL;
        char *kend = eq;
        while (kend > p && (kend[-1] == ' ' || kend[-1] == '\t'))
                kend--;
        *kend = '\0';
        char *v = eq + 1;
        v += strspn(v, " \t");
        size_t n = strlen(v);
        while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r'))
                v[--n] = '\0';
        if (!*p)
                return -EINVAL;
        return apply(r, p, v, seen);
}

int dmo_initramfs_record_parse(const char *text, size_t len, struct dmo_initramfs_record *out)
{
        memset(out, 0, sizeof(*out));
        if (len > DMO_INITRAMFS_RECORD_MAX)
                return -EINVAL;
        unsigned seen = 0, lineno = 0;
        size_t pos = 0;
        while (pos < len) {
                char line[DMO_RESUME_SPEC_MAX + 128];
                const char *nl = memchr(text + pos, '\n', len - pos);
                size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
                lineno++;
                if (n >= sizeof(line) || memchr(text + pos, '\0', n)) {
                        out->bad_line = lineno;
                        return -EINVAL;
                }
                memcpy(line, text + pos, n);
                line[n] = '\0';
                pos += n + (nl ? 1 : 0);
                int r = parse_line(out, line, &seen);
                if (r < 0) {
                        out->bad_line = lineno;
                        return r;
                }
        }
        if (seen != (SEEN_VERSION | SEEN_KERNEL | SEEN_CONFIG)) {
                out->bad_line = 0;
                return -EINVAL;
        }
        return 0;
}

int dmo_initramfs_record_path(const char *state_dir, const char *release, const char *suffix,
                              char *buf, size_t len)
{
        if (!release[0] || release[0] == '.' || strchr(release, '/'))
                return -EINVAL;
        int n = snprintf(buf, len, "%s/initramfs/%s%s", state_dir, release, suffix);
        return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int dmo_initramfs_record_load(const char *state_dir, const char *release,
                              struct dmo_initramfs_record *out)
{
        char path[1024];
        int r = dmo_initramfs_record_path(state_dir, release, "", path, sizeof(path));
        if (r < 0)
                return r;
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        char text[DMO_INITRAMFS_RECORD_MAX + 1];
        size_t got = 0;
        for (;;) {
                ssize_t n = read(fd, text + got, sizeof(text) - got);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                got += (size_t)n;
                if (got == sizeof(text))
                        return -EFBIG;
        }
        r = dmo_initramfs_record_parse(text, got, out);
        if (r < 0)
                return r;
        return strcmp(out->kernel, release) == 0 ? 0 : -EINVAL;
}

void dmo_initramfs_resume_place(const char *conf_device, int64_t conf_offset,
                                const struct dmo_cmdline *cl,
                                const struct dmo_initramfs_record *rec,
                                struct dmo_initramfs_resume *out)
{
        *out = (struct dmo_initramfs_resume){0};
        const char *spec = NULL;
        if (conf_device[0]) {
                spec = conf_device;
                out->spec_from = DMO_RESUME_FROM_CONFIG;
        } else if (cl->resume[0]) {
                spec = cl->resume;
                out->spec_from = DMO_RESUME_FROM_CMDLINE;
        } else if (rec->resume[0]) {
                spec = rec->resume;
                out->spec_from = DMO_RESUME_FROM_INITRAMFS_TOOLS;
        }
        if (spec)
                snprintf(out->spec, sizeof(out->spec), "%s", spec);
        if (conf_offset >= 0) {
                out->offset = (uint64_t)conf_offset;
                out->offset_from = DMO_RESUME_FROM_CONFIG;
        } else if (cl->has_resume_offset) {
                out->offset = cl->resume_offset;
                out->offset_from = DMO_RESUME_FROM_CMDLINE;
        }
}
