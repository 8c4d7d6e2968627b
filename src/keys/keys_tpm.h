/* keys_tpm: the TPM as a key source, for keys.c only (see keys.h for the
 * modes). Built with tpm2-tss (HAVE_TPM). */
#ifndef DMO_KEYS_TPM_INTERNAL_H
#define DMO_KEYS_TPM_INTERNAL_H

#include "keys/keys.h"
#include "keys/tpm.h"

/* Hibernate: k sealed by the TPM into out, the counter incremented and its
 * new value recorded. The PIN (tpm+passphrase) from the key file or asked
 * twice. */
int dmo_keys_tpm_hibernate(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui,
                           const struct dmo_crypto_key *k, struct dmo_image_tpm *out);

/* Resume: the image key unsealed by the TPM (the PIN asked as a passphrase
 * is, with retries). *t: the TPM, kept open for the counter (NULL when
 * none answered). A refusal is said; the caller turns to the recovery. */
int dmo_keys_tpm_unlock(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui,
                        const struct dmo_image_header *h, struct dmo_tpm **t,
                        struct dmo_crypto_key **key);

/* Resume: the counter checked and incremented (keys.h, dmo_keys_consume);
 * t NULL: no TPM, said, 0. */
int dmo_keys_tpm_consume(const struct dmo_keys_ui *ui, struct dmo_tpm *t,
                         const struct dmo_image_tpm *sec);

/* enroll-tpm: the TPM opened and the counter defined, or found. */
int dmo_keys_tpm_counter_enroll(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui,
                                bool *created, uint64_t *value);

#endif
