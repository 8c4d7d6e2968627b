/* tpm: a secret sealed by a TPM 2.0 to this machine's boot chain, and the
 * TPM's NV counter that makes each image usable once. Through tpm2-tss's
 * ESYS API (libtss2-esys, the library systemd-cryptenroll uses), over a
 * TCTI that libtss2-tctildr loads ("device:/dev/tpmrm0", "swtpm:port=N";
 * NULL: tpm2-tss's default, the kernel's resource manager first).
 *
 * Sealing: under the owner hierarchy's storage primary key (the SRK
 * template, ECC NIST P-256, made again from the TPM's seed each time), a
 * keyed-hash object holds the secret; its policy is PolicyPCR over the
 * chosen SHA-256 PCRs as they are now, with PolicyAuthValue added when a
 * PIN is given. The object is fixedTPM: the TPM that sealed it, unchanged
 * (not cleared), with the same PCR values, is the only one that unseals it.
 * The create and the unseal run in sessions salted by the primary key,
 * with the command (create) or the response (unseal) encrypted, so the
 * secret does not cross the bus in the clear.
 *
 * The counter: an NV index of type counter (TPMA_NV_COUNTER), defined once
 * (enrolment) with an empty authorization; it only ever goes up, and a
 * TPM clear removes it.
 *
 * Contract:
 * - Allocates and talks to the TPM: runs before the freeze (seal, counter
 *   increment at hibernation) or at resume before anything is restored.
 * - The secret is written only into the caller's buffer; the TPM library's
 *   copy is wiped before it is freed.
 * - Says nothing (tpm2-tss's own log is turned off through TSS2_LOG unless
 *   that is set); returns 0 or a negative errno: -ENODEV (no TPM answers
 *   through that TCTI), -EKEYREJECTED (the TPM refused to unseal: the PCRs
 *   differ from when it was sealed, or the object is not this TPM's),
 *   -EACCES (wrong PIN), -ENOENT (no counter at that index), -EEXIST
 *   (an index is already defined there), -EBADMSG (a blob that does not
 *   parse), -EINVAL, -ENOMEM, -EIO (any other TPM error).
 */
#ifndef DMO_KEYS_TPM_H
#define DMO_KEYS_TPM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The sealed object as the TPM gave it (TPM2B_PUBLIC then TPM2B_PRIVATE,
 * marshalled): a few hundred bytes. */
#define DMO_TPM_BLOB_MAX  512u
#define DMO_TPM_PCR_COUNT 24u /* PCRs 0..23 (SHA-256 bank) */

struct dmo_tpm;

int dmo_tpm_open(const char *tcti, struct dmo_tpm **out);
void dmo_tpm_free(struct dmo_tpm *t);

/* Seals secret[0..len) (at most 128 bytes) to the PCRs in pcr_mask (bit
 * N: PCR N, SHA-256 bank) and, when pin_len > 0, to the PIN. blob holds
 * DMO_TPM_BLOB_MAX bytes; *blob_len its length. */
int dmo_tpm_seal(struct dmo_tpm *t, const uint8_t *secret, size_t len, uint32_t pcr_mask,
                 const char *pin, size_t pin_len, uint8_t *blob, size_t *blob_len);

/* The secret back into out (cap bytes, *len). pcr_mask and the PIN as at
 * sealing. -EKEYREJECTED, -EACCES: see above. */
int dmo_tpm_unseal(struct dmo_tpm *t, const uint8_t *blob, size_t blob_len, uint32_t pcr_mask,
                   const char *pin, size_t pin_len, uint8_t *out, size_t cap, size_t *len);

/* Defines the counter at index and increments it once (a counter reads
 * only once written). -EEXIST: something is defined there already. */
int dmo_tpm_counter_define(struct dmo_tpm *t, uint32_t index);
/* The counter's value. -ENOENT: none at index. */
int dmo_tpm_counter_read(struct dmo_tpm *t, uint32_t index, uint64_t *value);
/* Adds one; *value (nullable): the value after. */
int dmo_tpm_counter_increment(struct dmo_tpm *t, uint32_t index, uint64_t *value);

#endif
