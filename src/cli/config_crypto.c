/* The config file's keys of encryption: the mode, the key files, the KDF's
 * costs, the TPM's PCRs, device and counter. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/config.h"
#include "keys/keys.h"
#include "util/parse.h"
#include "util/strtable.h"

enum crypto_key {
        KEY_ENCRYPT,
        KEY_KEY_FILE,
        KEY_PUBLIC_KEY,
        KEY_SECRET_KEY,
        KEY_KDF_OPS,
        KEY_KDF_MEMORY,
        KEY_TPM_PCRS,
        KEY_TPM_DEVICE,
        KEY_TPM_COUNTER,
};

/* Canonical spelling: lower case, words joined by '-'. */
static const char *const crypto_key_table[] = {
    [KEY_ENCRYPT] = "encrypt",         [KEY_KEY_FILE] = "key-file",
    [KEY_PUBLIC_KEY] = "public-key",   [KEY_SECRET_KEY] = "secret-key",
    [KEY_KDF_OPS] = "kdf-ops",         [KEY_KDF_MEMORY] = "kdf-memory",
    [KEY_TPM_PCRS] = "tpm-pcrs",       [KEY_TPM_DEVICE] = "tpm-device",
    [KEY_TPM_COUNTER] = "tpm-counter",
};
DMO_STRING_TABLE_FROM_STRING(static, crypto_key_from_string, enum crypto_key, crypto_key_table)

static int set_path(char *dst, size_t len, const char *value)
{
        if (!*value || strlen(value) >= len)
                return -EINVAL;
        snprintf(dst, len, "%s", value);
        return 0;
}

/* "no" (no rollback protection) or an NV index, 0x01000000 to 0x01ffffff. */
static int set_counter(struct dmo_config *cfg, const char *value)
{
        uint64_t n;
        bool b;
        if (dmo_config_parse_bool(value, &b) && !b) {
                cfg->tpm_counter = 0;
                return 0;
        }
        if (dmo_parse_u64_range(value, 0x01000000u, 0x01ffffffu, &n) < 0)
                return -EINVAL;
        cfg->tpm_counter = (uint32_t)n;
        return 0;
}

static int set_kdf(struct dmo_config *cfg, enum crypto_key id, const char *value)
{
        uint64_t n;
        struct dmo_kdf_costs c = cfg->kdf;
        if (id == KEY_KDF_OPS) {
                if (dmo_parse_u64_range(value, DMO_KDF_OPSLIMIT_MIN, DMO_KDF_OPSLIMIT_MAX, &n) < 0)
                        return -EINVAL;
                c.opslimit = n;
        } else {
                if (dmo_parse_size(value, &n) < 0)
                        return -EINVAL;
                c.memlimit = n;
        }
        if (dmo_kdf_costs_check(&c) < 0)
                return -EINVAL;
        cfg->kdf = c;
        return 0;
}

int dmo_config_apply_crypto(struct dmo_config *cfg, const char *key, const char *value)
{
        enum crypto_key id;
        bool b;
        if (crypto_key_from_string(key, &id) < 0)
                return -ENOENT;
        switch (id) {
        case KEY_ENCRYPT:
                /* suspend-utils said "encrypt = y": it meant a passphrase. */
                if (dmo_encrypt_mode_parse(value, &cfg->encrypt) == 0)
                        return 0;
                if (!dmo_config_parse_bool(value, &b))
                        return -EINVAL;
                cfg->encrypt = b ? DMO_ENCRYPT_PASSPHRASE : DMO_ENCRYPT_NONE;
                return 0;
        case KEY_KEY_FILE:
                return set_path(cfg->key_file, sizeof(cfg->key_file), value);
        case KEY_PUBLIC_KEY:
                return set_path(cfg->public_key, sizeof(cfg->public_key), value);
        case KEY_SECRET_KEY:
                return set_path(cfg->secret_key, sizeof(cfg->secret_key), value);
        case KEY_KDF_OPS:
        case KEY_KDF_MEMORY:
                return set_kdf(cfg, id, value);
        case KEY_TPM_PCRS:
                return dmo_keys_pcrs_parse(value, &cfg->tpm_pcrs);
        case KEY_TPM_DEVICE:
                return set_path(cfg->tpm_device, sizeof(cfg->tpm_device), value);
        case KEY_TPM_COUNTER:
                return set_counter(cfg, value);
        }
        return -EINVAL;
}
