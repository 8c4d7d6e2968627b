#include "kernel/cmdline.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/cleanup.h"

static int fail(struct dmo_cmdline *out, const char *param)
{
        size_t n = strnlen(param, sizeof(out->bad_param) - 1);
        memcpy(out->bad_param, param, n);
        out->bad_param[n] = '\0';
        return -EINVAL;
}

static int parse_dec(const char *s, uint64_t max, uint64_t *out)
{
        uint64_t v = 0;
        if (!s || !*s)
                return -EINVAL;
        for (; *s; s++) {
                if (*s < '0' || *s > '9')
                        return -EINVAL;
                unsigned d = (unsigned)(*s - '0');
                if (v > (max - d) / 10)
                        return -EINVAL;
                v = v * 10 + d;
        }
        *out = v;
        return 0;
}

static int apply(struct dmo_cmdline *out, const char *param, const char *val)
{
        uint64_t v;
        bool ours = strcmp(param, "dormouse.resume") == 0;
        if (ours || strcmp(param, "resume") == 0) {
                if (!val || (!ours && out->resume_is_ours))
                        return 0;
                if (strlen(val) >= sizeof(out->resume))
                        return fail(out, param);
                strcpy(out->resume, val);
                out->resume_is_ours = ours;
        } else if (strcmp(param, "resume_offset") == 0) {
                if (parse_dec(val, UINT64_MAX, &v) < 0)
                        return fail(out, param);
                out->has_resume_offset = true;
                out->resume_offset = v;
        } else if (strcmp(param, "resumedelay") == 0) {
                if (parse_dec(val, UINT32_MAX, &v) < 0)
                        return fail(out, param);
                out->has_resumedelay = true;
                out->resumedelay = (uint32_t)v;
        } else if (strcmp(param, "noresume") == 0 && !val) {
                out->noresume = true;
        } else if (strcmp(param, "nohibernate") == 0 && !val) {
                out->nohibernate = true;
        } else if (strcmp(param, "lockdown") == 0 && val) {
                /* Not ours to judge: kept as said, cut to fit (it is only shown). */
                snprintf(out->lockdown, sizeof(out->lockdown), "%s", val);
        } else if (strcmp(param, "resumewait") == 0 && !val) {
                out->resumewait = true;
        } else if (strcmp(param, "hibernate") == 0 && val) {
                if (strcmp(val, "noresume") == 0)
                        out->noresume = true;
                else if (strcmp(val, "no") == 0)
                        out->nohibernate = true;
        }
        return 0;
}

int dmo_cmdline_parse(const char *line, struct dmo_cmdline *out)
{
        if (!line || !out)
                return -EINVAL;
        memset(out, 0, sizeof(*out));
        size_t len = strnlen(line, DMO_CMDLINE_MAX + 1);
        if (len > DMO_CMDLINE_MAX)
                return fail(out, "cmdline");

        char tok[DMO_CMDLINE_MAX + 1];
        const char *p = line;
        for (;;) {
                while (*p && isspace((unsigned char)*p))
                        p++;
                if (!*p)
                        break;
                size_t n = 0;
                bool quote = false;
                for (; *p && (quote || !isspace((unsigned char)*p)); p++) {
                        if (*p == '"')
                                quote = !quote;
                        else
                                tok[n++] = *p;
                }
                tok[n] = '\0';
                if (strcmp(tok, "--") == 0)
                        break;
                char *eq = strchr(tok, '=');
                const char *val = NULL;
                if (eq) {
                        *eq = '\0';
                        val = eq + 1;
                }
                int r = apply(out, tok, val);
                if (r < 0)
                        return r;
        }
        return 0;
}

bool dmo_cmdline_wants_resume(const struct dmo_cmdline *c)
{
        return !c->noresume && !c->nohibernate;
}

static bool all_hex(const char *s)
{
        if (!*s)
                return false;
        for (; *s; s++)
                if (!isxdigit((unsigned char)*s))
                        return false;
        return true;
}

static int parse_majmin(const char *s, unsigned *maj, unsigned *min)
{
        const char *colon = strchr(s, ':');
        if (!colon || colon == s)
                return -EINVAL;
        char a[16];
        size_t al = (size_t)(colon - s);
        if (al >= sizeof(a))
                return -EINVAL;
        memcpy(a, s, al);
        a[al] = '\0';
        uint64_t ma, mi;
        if (parse_dec(a, 0xfff, &ma) < 0 || parse_dec(colon + 1, 0xfffff, &mi) < 0)
                return -EINVAL;
        *maj = (unsigned)ma;
        *min = (unsigned)mi;
        return 0;
}

static const struct {
        const char *prefix;
        enum dmo_resume_spec_kind kind;
} prefixes[] = {
    {"UUID=", DMO_RESUME_UUID},
    {"PARTUUID=", DMO_RESUME_PARTUUID},
    {"LABEL=", DMO_RESUME_LABEL},
    {"PARTLABEL=", DMO_RESUME_PARTLABEL},
};

int dmo_resume_spec_parse(const char *spec, struct dmo_resume_spec *out)
{
        if (!spec || !out || !*spec)
                return -EINVAL;
        memset(out, 0, sizeof(*out));
        if (strlen(spec) >= sizeof(out->value))
                return -ENAMETOOLONG;
        for (size_t i = 0; i < DMO_ARRAY_SIZE(prefixes); i++) {
                size_t pl = strlen(prefixes[i].prefix);
                if (strncmp(spec, prefixes[i].prefix, pl) != 0)
                        continue;
                if (!spec[pl])
                        return -EINVAL;
                /* PARTUUID=.../PARTNROFF=n names a sibling partition: that
                 * needs the partition table, not a udev link. */
                if (prefixes[i].kind == DMO_RESUME_PARTUUID && strchr(spec + pl, '/'))
                        return -EOPNOTSUPP;
                out->kind = prefixes[i].kind;
                strcpy(out->value, spec + pl);
                return 0;
        }
        strcpy(out->value, spec);
        if (spec[0] == '/') {
                out->kind = DMO_RESUME_PATH;
                return 0;
        }
        if (strchr(spec, ':')) {
                out->kind = DMO_RESUME_MAJMIN;
                return parse_majmin(spec, &out->major, &out->minor);
        }
        /* Like the kernel, a bare hex number is a device number before it is a name. */
        if (all_hex(spec) && strlen(spec) <= 8) {
                unsigned long dev = strtoul(spec, NULL, 16);
                out->kind = DMO_RESUME_DEVNO;
                out->major = (unsigned)((dev & 0xfff00) >> 8);
                out->minor = (unsigned)((dev & 0xff) | ((dev >> 12) & 0xfff00));
                return 0;
        }
        if (strstr(spec, "..") || strchr(spec, '='))
                return -EINVAL;
        out->kind = DMO_RESUME_NAME;
        return 0;
}

/* udev's encoding of link names: keep a safe set, escape the rest as \xNN. */
static int udev_encode(const char *in, char *out, size_t len)
{
        size_t o = 0;
        for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
                bool keep = isalnum(*p) || strchr("#+-.:=@_", *p) || *p >= 0x80;
                size_t need = keep ? 1 : 4;
                if (o + need >= len)
                        return -ENAMETOOLONG;
                if (keep)
                        out[o++] = (char)*p;
                else
                        o += (size_t)snprintf(out + o, len - o, "\\x%02x", *p);
        }
        out[o] = '\0';
        return 0;
}

static int join(char *path, size_t len, const char *a, const char *b, const char *c)
{
        if ((size_t)snprintf(path, len, "%s%s%s", a, b, c) >= len)
                return -ENAMETOOLONG;
        return 0;
}

static int devname_from_sysfs(const char *sys_root, unsigned maj, unsigned min, char *name,
                              size_t len)
{
        char p[4096];
        if ((size_t)snprintf(p, sizeof(p), "%s/dev/block/%u:%u/uevent", sys_root, maj, min) >=
            sizeof(p))
                return -ENAMETOOLONG;
        _cleanup_fclose_ FILE *f = fopen(p, "re");
        if (!f)
                return -ENOENT;
        char line[512];
        while (fgets(line, sizeof(line), f)) {
                if (strncmp(line, "DEVNAME=", 8) != 0)
                        continue;
                char *v = line + 8;
                v[strcspn(v, "\n")] = '\0';
                if (!*v || strstr(v, ".."))
                        return -EINVAL;
                if (strlen(v) >= len)
                        return -ENAMETOOLONG;
                strcpy(name, v);
                return 0;
        }
        return -ENOENT;
}

int dmo_resume_device_resolve(const char *spec, const char *dev_root, const char *sys_root,
                              char *path, size_t len)
{
        struct dmo_resume_spec s;
        if (!dev_root || !sys_root || !path || len == 0)
                return -EINVAL;
        int r = dmo_resume_spec_parse(spec, &s);
        if (r < 0)
                return r;
        char enc[DMO_RESUME_SPEC_MAX * 4];
        const char *dir = NULL;
        switch (s.kind) {
        case DMO_RESUME_PATH:
                if (strncmp(s.value, "/dev/", 5) == 0)
                        return join(path, len, dev_root, s.value + 4, "");
                return join(path, len, s.value, "", "");
        case DMO_RESUME_NAME:
                return join(path, len, dev_root, "/", s.value);
        case DMO_RESUME_MAJMIN:
        case DMO_RESUME_DEVNO: {
                char name[256];
                r = devname_from_sysfs(sys_root, s.major, s.minor, name, sizeof(name));
                if (r < 0)
                        return r;
                return join(path, len, dev_root, "/", name);
        }
        case DMO_RESUME_UUID:
                dir = "/disk/by-uuid/";
                break;
        case DMO_RESUME_PARTUUID:
                /* The kernel compares these ignoring case; udev's links are lower case. */
                for (char *c = s.value; *c; c++)
                        *c = (char)tolower((unsigned char)*c);
                dir = "/disk/by-partuuid/";
                break;
        case DMO_RESUME_LABEL:
                dir = "/disk/by-label/";
                break;
        case DMO_RESUME_PARTLABEL:
                dir = "/disk/by-partlabel/";
                break;
        }
        r = udev_encode(s.value, enc, sizeof(enc));
        if (r < 0)
                return r;
        return join(path, len, dev_root, dir, enc);
}

static uint64_t now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void nap(void)
{
        struct timespec ts = {.tv_sec = 0, .tv_nsec = 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
}

int dmo_wait_for_device(const char *path, unsigned int timeout_ms)
{
        uint64_t end = now_ms() + timeout_ms;
        for (;;) {
                if (access(path, F_OK) == 0)
                        return 0;
                if (now_ms() >= end)
                        return -ETIMEDOUT;
                nap();
        }
}

int dmo_resume_device_wait(const char *spec, const char *dev_root, const char *sys_root,
                           unsigned int timeout_ms, char *path, size_t len)
{
        uint64_t end = now_ms() + timeout_ms;
        for (;;) {
                int r = dmo_resume_device_resolve(spec, dev_root, sys_root, path, len);
                if (r < 0 && r != -ENOENT)
                        return r;
                if (r == 0 && access(path, F_OK) == 0)
                        return 0;
                if (now_ms() >= end)
                        return -ETIMEDOUT;
                nap();
        }
}
