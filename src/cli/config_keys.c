/* The config file's keys and values: what each key means, how its value is
 * checked. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/config.h"
#include "splash/session.h"
#include "util/cleanup.h"
#include "util/parse.h"
#include "util/strtable.h"

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
        KEY_INITRAMFS_CHECK,
        KEY_NETWORK_PLAIN,
};

/* Canonical spelling: lower case, words joined by '-'. */
static const char *const key_table[] = {
    [KEY_RESUME_DEVICE] = "resume-device",
    [KEY_RESUME_OFFSET] = "resume-offset",
    [KEY_IMAGE_SIZE] = "image-size",
    [KEY_COMPRESS] = "compress",
    [KEY_COMPRESS_LEVEL] = "compress-level",
    [KEY_SHUTDOWN] = "shutdown-method",
    [KEY_THREADS] = "threads",
    [KEY_SPLASH] = "splash",
    [KEY_THEME] = "theme",
    [KEY_RESUME_TIMEOUT] = "resume-timeout",
    [KEY_INITRAMFS_CHECK] = "initramfs-check",
    [KEY_NETWORK_PLAIN] = "network-plain",
};
static const char *const key_alias_table[] = {
    [KEY_COMPRESS] = "compression",
    [KEY_COMPRESS_LEVEL] = "compression-level",
    [KEY_SHUTDOWN] = "shutdown",
};
DMO_STRING_TABLE_FROM_STRING(static, key_from_string, enum key_id, key_table)
DMO_STRING_TABLE_FROM_STRING(static, key_from_alias, enum key_id, key_alias_table)

/* suspend-utils keys with no meaning here (see doc/config.md) */
static const char *const ignored_keys[] = {
    "snapshot-device",    "suspend-loglevel", "max-loglevel",       "early-writeout",
    "compute-checksum",   "rsa-key-file",     "resume-pause",       "debug-test-file",
    "debug-verify-image", "fbsplash-theme",   "resume-device-uuid",
};

static const char *const shutdown_table[] = {
    [DMO_SHUTDOWN_PLATFORM] = "platform",
    [DMO_SHUTDOWN_POWEROFF] = "shutdown",
    [DMO_SHUTDOWN_REBOOT] = "reboot",
    [DMO_SHUTDOWN_SUSPEND] = "suspend",
};
static const char *const shutdown_alias_table[] = {
    [DMO_SHUTDOWN_POWEROFF] = "poweroff",
    [DMO_SHUTDOWN_SUSPEND] = "suspend-to-both",
};
DMO_STRING_TABLE_TO_STRING(, dmo_shutdown_name, enum dmo_shutdown, shutdown_table, "?")
DMO_STRING_TABLE_FROM_STRING_FULL(static, shutdown_from_string, enum dmo_shutdown, shutdown_table,
                                  true)
DMO_STRING_TABLE_FROM_STRING_FULL(static, shutdown_from_alias, enum dmo_shutdown,
                                  shutdown_alias_table, true)

int dmo_shutdown_parse(const char *s, enum dmo_shutdown *out)
{
        return shutdown_from_string(s, out) == 0 ? 0 : shutdown_from_alias(s, out);
}

bool dmo_config_parse_bool(const char *s, bool *out)
{
        static const char *const yes[] = {"y", "yes", "true", "on", "1"};
        static const char *const no[] = {"n", "no", "false", "off", "0"};
        if (dmo_strtable_find(yes, DMO_ARRAY_SIZE(yes), s, true) >= 0)
                return (*out = true);
        if (dmo_strtable_find(no, DMO_ARRAY_SIZE(no), s, true) >= 0) {
                *out = false;
                return true;
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
                if (!dmo_config_parse_bool(value, &b))
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
                if (dmo_config_parse_bool(value, &b)) { /* suspend-utils: "threads = y" */
                        cfg->threads = 0;
                        return 0;
                }
                if (dmo_parse_u64_range(value, 0, 256, &n) < 0)
                        return -EINVAL;
                cfg->threads = (unsigned)n;
                return 0;
        case KEY_SPLASH:
                if (dmo_config_parse_bool(value, &b)) { /* suspend-utils: "splash = y" */
                        snprintf(cfg->splash, sizeof(cfg->splash), "%s", b ? "" : "text");
                        return 0;
                }
                if (strlen(value) >= sizeof(cfg->splash) || !dmo_splash_spec_known(value))
                        return -EINVAL;
                snprintf(cfg->splash, sizeof(cfg->splash), "%s", value);
                return 0;
        case KEY_THEME: {
                /* A name, or a Plymouth theme's .plymouth file by its absolute path. */
                size_t len = strlen(value);
                bool plymouth_file =
                    value[0] == '/' && len > 9 && !strcmp(value + len - 9, ".plymouth");
                if (!*value || len >= sizeof(cfg->theme) || (strchr(value, '/') && !plymouth_file))
                        return -EINVAL;
                snprintf(cfg->theme, sizeof(cfg->theme), "%s", value);
                return 0;
        }
        case KEY_RESUME_TIMEOUT:
                if (dmo_parse_u64_range(value, 0, 600000, &n) < 0)
                        return -EINVAL;
                cfg->resume_timeout_ms = (int)n;
                return 0;
        case KEY_INITRAMFS_CHECK:
                if (!dmo_config_parse_bool(value, &b))
                        return -EINVAL;
                cfg->skip_initramfs_check = !b;
                return 0;
        case KEY_NETWORK_PLAIN:
                if (!dmo_config_parse_bool(value, &b))
                        return -EINVAL;
                cfg->network_plain = b;
                return 0;
        }
        return -EINVAL;
}

int dmo_config_apply(struct dmo_config *cfg, const char *key, const char *value)
{
        enum key_id id;
        if (key_from_string(key, &id) == 0 || key_from_alias(key, &id) == 0)
                return apply(cfg, id, value);
        int r = dmo_config_apply_crypto(cfg, key, value);
        if (r != -ENOENT)
                return r;
        if (dmo_strtable_find(ignored_keys, DMO_ARRAY_SIZE(ignored_keys), key, false) >= 0)
                return -EOPNOTSUPP;
        return -ENOENT;
}
