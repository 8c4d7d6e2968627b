#include "cli/config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/parse.h"

enum key_id {
        KEY_RESUME_DEVICE,
        KEY_RESUME_OFFSET,
        KEY_IMAGE_SIZE,
        KEY_COMPRESS,
        KEY_COMPRESS_LEVEL,
        KEY_SHUTDOWN,
        KEY_THREADS,
        KEY_SPLASH,
        KEY_THEME,
        KEY_RESUME_TIMEOUT,
        KEY_IGNORED,
};

/* Canonical spelling: lower case, words joined by '-'. */
static const struct {
        const char *name;
        enum key_id id;
} known_keys[] = {
    {"resume-device", KEY_RESUME_DEVICE},
    {"resume-offset", KEY_RESUME_OFFSET},
    {"image-size", KEY_IMAGE_SIZE},
    {"compress", KEY_COMPRESS},
    {"compression", KEY_COMPRESS},
    {"compress-level", KEY_COMPRESS_LEVEL},
    {"compression-level", KEY_COMPRESS_LEVEL},
    {"shutdown-method", KEY_SHUTDOWN},
    {"shutdown", KEY_SHUTDOWN},
    {"threads", KEY_THREADS},
    {"splash", KEY_SPLASH},
    {"theme", KEY_THEME},
    {"resume-timeout", KEY_RESUME_TIMEOUT},
    /* suspend-utils keys with no meaning here (see doc/config.md) */
    {"snapshot-device", KEY_IGNORED},
    {"suspend-loglevel", KEY_IGNORED},
    {"max-loglevel", KEY_IGNORED},
    {"early-writeout", KEY_IGNORED},
    {"compute-checksum", KEY_IGNORED},
    {"encrypt", KEY_IGNORED},
    {"rsa-key-file", KEY_IGNORED},
    {"resume-pause", KEY_IGNORED},
    {"debug-test-file", KEY_IGNORED},
    {"debug-verify-image", KEY_IGNORED},
    {"fbsplash-theme", KEY_IGNORED},
    {"resume-device-uuid", KEY_IGNORED},
};

void dmo_config_init(struct dmo_config *cfg)
{
        memset(cfg, 0, sizeof(*cfg));
        cfg->resume_offset = -1;
        cfg->image_size = -1;
        cfg->compress = DMO_COMPRESS_LZ4;
        cfg->shutdown = DMO_SHUTDOWN_PLATFORM;
        cfg->resume_timeout_ms = -1;
}

static void add_note(struct dmo_config_notes *notes, enum dmo_config_note_kind kind, unsigned line,
                     const char *key, size_t key_len, const char *value, size_t value_len)
{
        if (!notes)
                return;
        if (notes->count >= DMO_CONFIG_MAX_NOTES) {
                notes->dropped++;
                return;
        }
        struct dmo_config_note *n = &notes->note[notes->count++];
        n->kind = kind;
        n->line = line;
        snprintf(n->key, sizeof(n->key), "%.*s", (int)(key_len < 47 ? key_len : 47), key);
        snprintf(n->value, sizeof(n->value), "%.*s", (int)(value_len < 47 ? value_len : 47),
                 value ? value : "");
}

static void canonical_key(const char *key, size_t len, char *out, size_t out_len)
{
        size_t o = 0;
        bool gap = false;
        for (size_t i = 0; i < len && o + 1 < out_len; i++) {
                unsigned char c = (unsigned char)key[i];
                if (c == ' ' || c == '\t' || c == '_' || c == '-') {
                        gap = o > 0;
                        continue;
                }
                if (gap && o + 2 < out_len)
                        out[o++] = '-';
                gap = false;
                out[o++] = (char)tolower(c);
        }
        out[o] = '\0';
}

int dmo_shutdown_parse(const char *s, enum dmo_shutdown *out)
{
        static const struct {
                const char *name;
                enum dmo_shutdown v;
        } names[] = {
            {"platform", DMO_SHUTDOWN_PLATFORM}, {"shutdown", DMO_SHUTDOWN_POWEROFF},
            {"poweroff", DMO_SHUTDOWN_POWEROFF}, {"reboot", DMO_SHUTDOWN_REBOOT},
            {"suspend", DMO_SHUTDOWN_SUSPEND},   {"suspend-to-both", DMO_SHUTDOWN_SUSPEND},
        };
        for (size_t i = 0; i < DMO_ARRAY_SIZE(names); i++)
                if (strcasecmp(s, names[i].name) == 0) {
                        *out = names[i].v;
                        return 0;
                }
        return -EINVAL;
}

const char *dmo_shutdown_name(enum dmo_shutdown s)
{
        switch (s) {
        case DMO_SHUTDOWN_PLATFORM:
                return "platform";
        case DMO_SHUTDOWN_POWEROFF:
                return "shutdown";
        case DMO_SHUTDOWN_REBOOT:
                return "reboot";
        case DMO_SHUTDOWN_SUSPEND:
                return "suspend";
        }
        return "?";
}

static bool parse_bool(const char *s, bool *out)
{
        static const char *const yes[] = {"y", "yes", "true", "on", "1"};
        static const char *const no[] = {"n", "no", "false", "off", "0"};
        for (size_t i = 0; i < DMO_ARRAY_SIZE(yes); i++) {
                if (strcasecmp(s, yes[i]) == 0)
                        return (*out = true);
                if (strcasecmp(s, no[i]) == 0) {
                        *out = false;
                        return true;
                }
        }
        return false;
}

static int apply(struct dmo_config *cfg, enum key_id id, const char *value)
{
        uint64_t n, bytes;
        bool b;

        switch (id) {
        case KEY_RESUME_DEVICE:
                if (!*value || strlen(value) >= sizeof(cfg->resume_device))
                        return -EINVAL;
                snprintf(cfg->resume_device, sizeof(cfg->resume_device), "%s", value);
                return 0;
        case KEY_RESUME_OFFSET:
                if (dmo_parse_u64_range(value, 0, INT64_MAX / 65536, &n) < 0)
                        return -EINVAL;
                cfg->resume_offset = (int64_t)n;
                return 0;
        case KEY_IMAGE_SIZE:
                if (dmo_parse_size(value, &bytes) < 0 || bytes > INT64_MAX)
                        return -EINVAL;
                cfg->image_size = (int64_t)bytes;
                return 0;
        case KEY_COMPRESS:
                /* suspend-utils said "compress = y"; we name the algorithm. */
                if (dmo_compress_parse(value, &cfg->compress) == 0) {
                        cfg->compress_set = true;
                        return 0;
                }
                if (!parse_bool(value, &b))
                        return -EINVAL;
                cfg->compress = b ? DMO_COMPRESS_LZ4 : DMO_COMPRESS_NONE;
                cfg->compress_set = true;
                return 0;
        case KEY_COMPRESS_LEVEL:
                if (dmo_parse_u64_range(value, 0, 22, &n) < 0)
                        return -EINVAL;
                cfg->compress_level = (int)n;
                return 0;
        case KEY_SHUTDOWN:
                if (dmo_shutdown_parse(value, &cfg->shutdown) < 0)
                        return -EINVAL;
                cfg->shutdown_set = true;
                return 0;
        case KEY_THREADS:
                if (parse_bool(value, &b)) { /* suspend-utils: "threads = y" */
                        cfg->threads = 0;
                        return 0;
                }
                if (dmo_parse_u64_range(value, 0, 256, &n) < 0)
                        return -EINVAL;
                cfg->threads = (unsigned)n;
                return 0;
        case KEY_SPLASH:
                if (parse_bool(value, &b)) { /* suspend-utils: "splash = y" */
                        snprintf(cfg->splash, sizeof(cfg->splash), "%s", b ? "" : "text");
                        return 0;
                }
                if (strlen(value) >= sizeof(cfg->splash))
                        return -EINVAL;
                snprintf(cfg->splash, sizeof(cfg->splash), "%s", value);
                return 0;
        case KEY_THEME:
                if (!*value || strlen(value) >= sizeof(cfg->theme) || strchr(value, '/'))
                        return -EINVAL;
                snprintf(cfg->theme, sizeof(cfg->theme), "%s", value);
                return 0;
        case KEY_RESUME_TIMEOUT:
                if (dmo_parse_u64_range(value, 0, 600000, &n) < 0)
                        return -EINVAL;
                cfg->resume_timeout_ms = (int)n;
                return 0;
        case KEY_IGNORED:
                return 0;
        }
        return -EINVAL;
}

static bool is_space(char c)
{
        return c == ' ' || c == '\t' || c == '\r';
}

int dmo_config_parse(struct dmo_config *cfg, const char *text, size_t len,
                     struct dmo_config_notes *notes)
{
        unsigned line_no = 0;
        size_t pos = 0;
        while (pos < len) {
                size_t end = pos;
                while (end < len && text[end] != '\n')
                        end++;
                line_no++;
                const char *line = text + pos;
                size_t n = end - pos;
                pos = end + 1;

                size_t cut = 0;
                while (cut < n && line[cut] != '#')
                        cut++;
                n = cut;
                while (n && is_space(line[0])) {
                        line++;
                        n--;
                }
                while (n && is_space(line[n - 1]))
                        n--;
                if (!n)
                        continue;

                size_t sep = 0;
                while (sep < n && line[sep] != '=' && line[sep] != ':')
                        sep++;
                if (sep == n || sep == 0) {
                        add_note(notes, DMO_NOTE_SYNTAX, line_no, line, n, NULL, 0);
                        continue;
                }
                size_t key_len = sep;
                while (key_len && is_space(line[key_len - 1]))
                        key_len--;
                const char *val = line + sep + 1;
                size_t val_len = n - sep - 1;
                while (val_len && is_space(*val)) {
                        val++;
                        val_len--;
                }
                if (val_len >= 2 && (val[0] == '"' || val[0] == '\'') &&
                    val[val_len - 1] == val[0]) {
                        val++;
                        val_len -= 2;
                }

                char key[64], value[512];
                canonical_key(line, key_len, key, sizeof(key));
                if (val_len >= sizeof(value) || memchr(val, '\0', val_len)) {
                        add_note(notes, DMO_NOTE_BAD_VALUE, line_no, line, key_len, val, val_len);
                        continue;
                }
                memcpy(value, val, val_len);
                value[val_len] = '\0';

                size_t k;
                for (k = 0; k < DMO_ARRAY_SIZE(known_keys); k++)
                        if (strcmp(key, known_keys[k].name) == 0)
                                break;
                if (k == DMO_ARRAY_SIZE(known_keys)) {
                        add_note(notes, DMO_NOTE_UNKNOWN_KEY, line_no, line, key_len, val, val_len);
                        continue;
                }
                if (known_keys[k].id == KEY_IGNORED) {
                        add_note(notes, DMO_NOTE_IGNORED_KEY, line_no, line, key_len, val, val_len);
                        continue;
                }
                if (apply(cfg, known_keys[k].id, value) < 0)
                        add_note(notes, DMO_NOTE_BAD_VALUE, line_no, line, key_len, val, val_len);
        }
        return 0;
}

int dmo_config_load(struct dmo_config *cfg, const char *path, struct dmo_config_notes *notes)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (st.st_size > 1024 * 1024)
                return -EFBIG;
        _cleanup_free_ char *buf = malloc((size_t)st.st_size + 1);
        if (!buf)
                return -ENOMEM;
        size_t got = 0;
        while (got < (size_t)st.st_size) {
                ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0)
                        return -errno;
                if (r == 0)
                        break;
                got += (size_t)r;
        }
        return dmo_config_parse(cfg, buf, got, notes);
}
