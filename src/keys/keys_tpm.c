/* The TPM as a key source: see keys_tpm.h and keys.h. */
#include "keys/internal.h"

#include <errno.h>
#include <string.h>

#include <sodium.h>

_Static_assert(DMO_IMAGE_TPM_BLOB_MAX == DMO_TPM_BLOB_MAX, "the header holds what the TPM gives");

/* The TPM, or the refusal said: -ENODEV (none answers) or the error. */
static int open_tpm(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui, struct dmo_tpm **t)
{
        int r = dmo_tpm_open(o->tpm_device, t);
        if (r < 0)
                dmo_keys_fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_TPM_ABSENT,
                                                            .path = o->tpm_device,
                                                            .err = -r});
        return r;
}

static void tpm_error(const struct dmo_keys_ui *ui, int r)
{
        if (r == -ENODEV)
                dmo_keys_fail(ui,
                              (struct dmo_keys_failure){.fault = DMO_KEYS_TPM_ABSENT, .err = -r});
        else if (r == -EKEYREJECTED)
                dmo_keys_fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_TPM_REFUSED});
        else
                dmo_keys_fail(ui,
                              (struct dmo_keys_failure){.fault = DMO_KEYS_TPM_FAILED, .err = -r});
}

int dmo_keys_tpm_hibernate(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui,
                           const struct dmo_crypto_key *k, struct dmo_image_tpm *out)
{
        struct dmo_tpm *t = NULL;
        char *pin = NULL;
        size_t pin_len = 0;
        uint8_t raw[DMO_CRYPTO_KEY_LEN];
        size_t blob_len = 0;
        memset(out, 0, sizeof(*out));
        int r = open_tpm(o, ui, &t);
        if (r < 0)
                return r;
        if (o->tpm_counter) {
                r = dmo_tpm_counter_increment(t, o->tpm_counter, &out->counter);
                if (r == -ENOENT)
                        dmo_keys_fail(ui,
                                      (struct dmo_keys_failure){.fault = DMO_KEYS_TPM_NO_COUNTER,
                                                                .limit = o->tpm_counter});
                else if (r < 0)
                        tpm_error(ui, r);
                out->nv_index = o->tpm_counter;
        }
        if (r == 0 && o->mode == DMO_ENCRYPT_TPM_PIN) {
                r = dmo_keys_new_passphrase(o, ui, DMO_KEYS_ASK_PIN_NEW, &pin, &pin_len);
                out->flags |= DMO_IMAGE_TPM_PIN;
        }
        if (r == 0) {
                dmo_crypto_key_export(k, raw);
                r = dmo_tpm_seal(t, raw, sizeof(raw), o->tpm_pcrs, pin, pin_len, out->blob,
                                 &blob_len);
                sodium_memzero(raw, sizeof(raw));
                if (r < 0)
                        tpm_error(ui, r);
        }
        out->pcrs = o->tpm_pcrs;
        out->blob_len = (uint32_t)blob_len;
        dmo_crypto_secret_buf_free(pin);
        dmo_tpm_free(t);
        return r;
}

/* The PIN, asked until the TPM takes it or o->attempts were wrong. */
static int unseal_with_pin(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui,
                           struct dmo_tpm *t, const struct dmo_image_tpm *sec, uint8_t *raw,
                           size_t *len)
{
        unsigned attempts = o->attempts ? o->attempts : 3;
        char *pin = NULL;
        size_t pin_len = 0;
        int r;
        if (o->key_file) {
                r = dmo_keys_file_read(ui, o->key_file, &pin, &pin_len);
                if (r == 0)
                        r = dmo_tpm_unseal(t, sec->blob, sec->blob_len, sec->pcrs, pin, pin_len,
                                           raw, DMO_CRYPTO_KEY_LEN, len);
                dmo_crypto_secret_buf_free(pin);
                return r;
        }
        r = dmo_crypto_secret_buf_new(DMO_PASSPHRASE_MAX + 1, &pin);
        for (unsigned wrong = 0; r == 0; wrong++) {
                if (wrong == attempts)
                        return dmo_crypto_secret_buf_free(pin), -EACCES;
                r = dmo_keys_ask(ui, DMO_KEYS_ASK_PIN, wrong, attempts, pin,
                                 DMO_PASSPHRASE_MAX + 1);
                if (r == 0)
                        r = dmo_tpm_unseal(t, sec->blob, sec->blob_len, sec->pcrs, pin, strlen(pin),
                                           raw, DMO_CRYPTO_KEY_LEN, len);
                if (r == -EACCES)
                        r = 0;
                else
                        break;
        }
        dmo_crypto_secret_buf_free(pin);
        return r;
}

int dmo_keys_tpm_unlock(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui,
                        const struct dmo_image_header *h, struct dmo_tpm **t,
                        struct dmo_crypto_key **key)
{
        const struct dmo_image_tpm *sec = &h->tpm;
        uint8_t raw[DMO_CRYPTO_KEY_LEN];
        size_t len = 0;
        *t = NULL;
        int r = open_tpm(o, ui, t);
        if (r < 0)
                return r;
        if (sec->flags & DMO_IMAGE_TPM_PIN)
                r = unseal_with_pin(o, ui, *t, sec, raw, &len);
        else
                r = dmo_tpm_unseal(*t, sec->blob, sec->blob_len, sec->pcrs, NULL, 0, raw,
                                   sizeof(raw), &len);
        if (r == 0 && len != sizeof(raw))
                r = -EKEYREJECTED;
        if (r == 0)
                r = dmo_crypto_key_import(raw, &h->crypto.env, key);
        sodium_memzero(raw, sizeof(raw));
        if (r == -EACCES)
                dmo_keys_fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_TPM_WRONG_PIN});
        else if (r < 0 && r != -ECANCELED && r != -ENOTTY && r != -ENOMEM)
                tpm_error(ui, r);
        return r;
}

int dmo_keys_tpm_consume(const struct dmo_keys_ui *ui, struct dmo_tpm *t,
                         const struct dmo_image_tpm *sec)
{
        uint64_t now = 0;
        if (!sec->nv_index)
                return 0;
        if (!t) {
                dmo_keys_fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_TPM_UNCHECKED});
                return 0;
        }
        int r = dmo_tpm_counter_read(t, sec->nv_index, &now);
        if (r == -ENOENT) {
                /* Gone with a TPM clear, or never on this TPM (the key then
                 * came from the recovery): nothing to compare with. */
                dmo_keys_fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_TPM_UNCHECKED});
                return 0;
        }
        if (r == 0 && now != sec->counter) {
                dmo_keys_fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_TPM_STALE,
                                                            .limit = sec->counter,
                                                            .value = now});
                return -ESTALE;
        }
        /* Used from now on, whatever happens to the restore. */
        if (r == 0)
                r = dmo_tpm_counter_increment(t, sec->nv_index, NULL);
        if (r < 0)
                tpm_error(ui, r);
        return r;
}

int dmo_keys_tpm_counter_enroll(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui,
                                bool *created, uint64_t *value)
{
        struct dmo_tpm *t = NULL;
        int r = open_tpm(o, ui, &t);
        if (r < 0 || !o->tpm_counter) {
                dmo_tpm_free(t);
                return r;
        }
        r = dmo_tpm_counter_read(t, o->tpm_counter, value);
        if (r == -ENOENT) {
                r = dmo_tpm_counter_define(t, o->tpm_counter);
                *created = r == 0;
                if (r == 0)
                        r = dmo_tpm_counter_read(t, o->tpm_counter, value);
        }
        if (r < 0)
                tpm_error(ui, r);
        dmo_tpm_free(t);
        return r;
}
