/* The TPM 2.0 through tpm2-tss ESYS: see tpm.h. */
#include "keys/tpm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>
#include "keys/tss2_dl.h"

struct dmo_tpm {
        struct dmo_tss2 f; /* tpm2-tss, loaded by dmo_tpm_open() */
        TSS2_TCTI_CONTEXT *tcti;
        ESYS_CONTEXT *esys;
};

/* A TPM response code as an errno (the layer bits say who answered). */
static int tpm_errno(TSS2_RC rc)
{
        if (rc == TSS2_RC_SUCCESS)
                return 0;
        if ((rc & TSS2_RC_LAYER_MASK) == TSS2_TCTI_RC_LAYER)
                return -ENODEV;
        if ((rc & TSS2_RC_LAYER_MASK) != TSS2_TPM_RC_LAYER &&
            (rc & TSS2_RC_LAYER_MASK) != TSS2_RESMGR_TPM_RC_LAYER) {
                if ((rc & 0xffffu) == TSS2_BASE_RC_MEMORY)
                        return -ENOMEM;
                if ((rc & 0xffffu) == TSS2_BASE_RC_IO_ERROR ||
                    (rc & 0xffffu) == TSS2_BASE_RC_NO_CONNECTION)
                        return -ENODEV;
                return -EIO;
        }
        TSS2_RC e = rc & 0xfff;
        if (e & TPM2_RC_FMT1) {
                switch (e & (TPM2_RC_FMT1 | 0x3f)) {
                case TPM2_RC_POLICY_FAIL:
                case TPM2_RC_INTEGRITY: /* another TPM's, or this one cleared */
                case TPM2_RC_PCR_CHANGED:
                        return -EKEYREJECTED;
                case TPM2_RC_AUTH_FAIL:
                case TPM2_RC_BAD_AUTH:
                        return -EACCES;
                case TPM2_RC_HANDLE:
                        return -ENOENT;
                }
                return -EIO;
        }
        switch (e & 0x17f) {
        case TPM2_RC_NV_DEFINED:
                return -EEXIST;
        case TPM2_RC_NV_UNINITIALIZED:
                return -ENOENT;
        case TPM2_RC_LOCKOUT:
                return -EACCES;
        }
        return -EIO;
}

int dmo_tpm_open(const char *tcti, struct dmo_tpm **out)
{
        struct dmo_tpm *t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        /* tpm2-tss logs its errors to stderr; ours are said by the caller. */
        setenv("TSS2_LOG", "all+NONE", 0);
        int r = dmo_tss2_load(&t->f);
        if (r < 0) {
                free(t);
                return r;
        }
        TSS2_RC rc = t->f.Tss2_TctiLdr_Initialize(tcti, &t->tcti);
        if (rc == TSS2_RC_SUCCESS)
                rc = t->f.Esys_Initialize(&t->esys, t->tcti, NULL);
        if (rc != TSS2_RC_SUCCESS) {
                r = tpm_errno(rc);
                dmo_tpm_free(t);
                return r == -ENOMEM ? r : -ENODEV;
        }
        *out = t;
        return 0;
}

void dmo_tpm_free(struct dmo_tpm *t)
{
        if (!t)
                return;
        if (t->esys)
                t->f.Esys_Finalize(&t->esys);
        if (t->tcti)
                t->f.Tss2_TctiLdr_Finalize(&t->tcti);
        dmo_tss2_unload(&t->f);
        free(t);
}

/* The storage primary key under the owner hierarchy: the TCG's SRK
 * template (ECC NIST P-256, AES-128-CFB), the same key from the same seed
 * every time, so nothing of it is stored. */
static int primary(struct dmo_tpm *t, ESYS_TR *out)
{
        const TPM2B_SENSITIVE_CREATE sens = {0};
        const TPM2B_PUBLIC tmpl = {
            .publicArea = {
                .type = TPM2_ALG_ECC,
                .nameAlg = TPM2_ALG_SHA256,
                .objectAttributes = TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT |
                                    TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
                                    TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
                                    TPMA_OBJECT_NODA,
                .parameters.eccDetail =
                    {
                        .symmetric = {.algorithm = TPM2_ALG_AES,
                                      .keyBits.aes = 128,
                                      .mode.aes = TPM2_ALG_CFB},
                        .scheme.scheme = TPM2_ALG_NULL,
                        .curveID = TPM2_ECC_NIST_P256,
                        .kdf.scheme = TPM2_ALG_NULL,
                    },
            }};
        const TPM2B_DATA outside = {0};
        const TPML_PCR_SELECTION creation = {0};
        return tpm_errno(t->f.Esys_CreatePrimary(t->esys, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD,
                                                 ESYS_TR_NONE, ESYS_TR_NONE, &sens, &tmpl, &outside,
                                                 &creation, out, NULL, NULL, NULL, NULL));
}

static void pcr_selection(uint32_t mask, TPML_PCR_SELECTION *sel)
{
        memset(sel, 0, sizeof(*sel));
        sel->count = 1;
        sel->pcrSelections[0].hash = TPM2_ALG_SHA256;
        sel->pcrSelections[0].sizeofSelect = 3;
        for (unsigned i = 0; i < DMO_TPM_PCR_COUNT; i++)
                if (mask & (1u << i))
                        sel->pcrSelections[0].pcrSelect[i / 8] |= (uint8_t)(1u << (i % 8));
}

/* The policy in session: PolicyPCR over the PCRs as they are now, then
 * PolicyAuthValue with a PIN. */
static int policy(struct dmo_tpm *t, ESYS_TR session, uint32_t mask, bool pin)
{
        TPML_PCR_SELECTION sel;
        const TPM2B_DIGEST none = {0};
        pcr_selection(mask, &sel);
        int r = tpm_errno(t->f.Esys_PolicyPCR(t->esys, session, ESYS_TR_NONE, ESYS_TR_NONE,
                                              ESYS_TR_NONE, &none, &sel));
        if (r == 0 && pin)
                r = tpm_errno(t->f.Esys_PolicyAuthValue(t->esys, session, ESYS_TR_NONE,
                                                        ESYS_TR_NONE, ESYS_TR_NONE));
        return r;
}

/* A session of type (trial, policy or HMAC); salted by salt_key, with
 * AES-CFB encryption of the response (policy) or of the command (HMAC),
 * unless that is ESYS_TR_NONE. */
static int session(struct dmo_tpm *t, TPM2_SE type, ESYS_TR salt_key, ESYS_TR *out)
{
        const TPMT_SYM_DEF aes = {
            .algorithm = TPM2_ALG_AES, .keyBits.aes = 128, .mode.aes = TPM2_ALG_CFB};
        const TPMT_SYM_DEF none = {.algorithm = TPM2_ALG_NULL};
        int r = tpm_errno(t->f.Esys_StartAuthSession(
            t->esys, salt_key, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, NULL, type,
            salt_key == ESYS_TR_NONE ? &none : &aes, TPM2_ALG_SHA256, out));
        const TPMA_SESSION crypt =
            type == TPM2_SE_HMAC ? TPMA_SESSION_DECRYPT : TPMA_SESSION_ENCRYPT;
        if (r == 0 && salt_key != ESYS_TR_NONE)
                r = tpm_errno(t->f.Esys_TRSess_SetAttributes(
                    t->esys, *out, crypt | TPMA_SESSION_CONTINUESESSION, 0xff));
        return r;
}

/* The PIN as an authorization value: its SHA-256 (a fixed length whatever
 * was typed; guessing is the TPM's dictionary-attack lockout's business). */
static void pin_auth(const char *pin, size_t len, TPM2B_AUTH *auth)
{
        auth->size = crypto_hash_sha256_BYTES;
        crypto_hash_sha256(auth->buffer, (const unsigned char *)pin, len);
}

static void flush(struct dmo_tpm *t, ESYS_TR *h)
{
        if (*h != ESYS_TR_NONE)
                t->f.Esys_FlushContext(t->esys, *h);
        *h = ESYS_TR_NONE;
}

static int policy_digest(struct dmo_tpm *t, uint32_t mask, bool pin, TPM2B_DIGEST *out)
{
        ESYS_TR s = ESYS_TR_NONE;
        TPM2B_DIGEST *d = NULL;
        int r = session(t, TPM2_SE_TRIAL, ESYS_TR_NONE, &s);
        if (r == 0)
                r = policy(t, s, mask, pin);
        if (r == 0)
                r = tpm_errno(t->f.Esys_PolicyGetDigest(t->esys, s, ESYS_TR_NONE, ESYS_TR_NONE,
                                                        ESYS_TR_NONE, &d));
        if (r == 0)
                *out = *d;
        t->f.Esys_Free(d);
        flush(t, &s);
        return r;
}

static int marshal(const struct dmo_tpm *t, const TPM2B_PUBLIC *pub, const TPM2B_PRIVATE *priv,
                   uint8_t *blob, size_t *blob_len)
{
        size_t off = 0;
        TSS2_RC rc = t->f.Tss2_MU_TPM2B_PUBLIC_Marshal(pub, blob, DMO_TPM_BLOB_MAX, &off);
        if (rc == TSS2_RC_SUCCESS)
                rc = t->f.Tss2_MU_TPM2B_PRIVATE_Marshal(priv, blob, DMO_TPM_BLOB_MAX, &off);
        if (rc != TSS2_RC_SUCCESS)
                return -EINVAL;
        *blob_len = off;
        return 0;
}

int dmo_tpm_seal(struct dmo_tpm *t, const uint8_t *secret, size_t len, uint32_t pcr_mask,
                 const char *pin, size_t pin_len, uint8_t *blob, size_t *blob_len)
{
        TPM2B_SENSITIVE_CREATE sens = {0};
        if (len == 0 || len > sizeof(sens.sensitive.data.buffer) || pcr_mask >> DMO_TPM_PCR_COUNT)
                return -EINVAL;
        TPM2B_PUBLIC tmpl = {.publicArea = {
                                 .type = TPM2_ALG_KEYEDHASH,
                                 .nameAlg = TPM2_ALG_SHA256,
                                 /* Only the policy opens it; a PIN is counted by the
                                  * dictionary-attack protection, no PIN needs none. */
                                 .objectAttributes = TPMA_OBJECT_FIXEDTPM |
                                                     TPMA_OBJECT_FIXEDPARENT |
                                                     (pin_len ? 0 : TPMA_OBJECT_NODA),
                                 .parameters.keyedHashDetail.scheme.scheme = TPM2_ALG_NULL,
                             }};
        const TPM2B_DATA outside = {0};
        const TPML_PCR_SELECTION creation = {0};
        TPM2B_PRIVATE *priv = NULL;
        TPM2B_PUBLIC *pub = NULL;
        ESYS_TR parent = ESYS_TR_NONE, hmac = ESYS_TR_NONE;
        sens.sensitive.data.size = (UINT16)len;
        memcpy(sens.sensitive.data.buffer, secret, len);
        if (pin_len)
                pin_auth(pin, pin_len, &sens.sensitive.userAuth);
        int r = policy_digest(t, pcr_mask, pin_len > 0, &tmpl.publicArea.authPolicy);
        if (r == 0)
                r = primary(t, &parent);
        /* The key goes to the TPM encrypted: a session salted by the
         * primary key encrypts the command's first parameter. */
        if (r == 0)
                r = session(t, TPM2_SE_HMAC, parent, &hmac);
        if (r == 0)
                r = tpm_errno(t->f.Esys_Create(t->esys, parent, hmac, ESYS_TR_NONE, ESYS_TR_NONE,
                                               &sens, &tmpl, &outside, &creation, &priv, &pub, NULL,
                                               NULL, NULL));
        if (r == 0)
                r = marshal(t, pub, priv, blob, blob_len);
        sodium_memzero(&sens, sizeof(sens));
        t->f.Esys_Free(priv);
        t->f.Esys_Free(pub);
        flush(t, &hmac);
        flush(t, &parent);
        return r;
}

int dmo_tpm_unseal(struct dmo_tpm *t, const uint8_t *blob, size_t blob_len, uint32_t pcr_mask,
                   const char *pin, size_t pin_len, uint8_t *out, size_t cap, size_t *len)
{
        TPM2B_PUBLIC pub = {0};
        TPM2B_PRIVATE priv = {0};
        size_t off = 0;
        if (pcr_mask >> DMO_TPM_PCR_COUNT)
                return -EINVAL;
        if (t->f.Tss2_MU_TPM2B_PUBLIC_Unmarshal(blob, blob_len, &off, &pub) != TSS2_RC_SUCCESS ||
            t->f.Tss2_MU_TPM2B_PRIVATE_Unmarshal(blob, blob_len, &off, &priv) != TSS2_RC_SUCCESS ||
            off != blob_len)
                return -EBADMSG;
        ESYS_TR parent = ESYS_TR_NONE, obj = ESYS_TR_NONE, s = ESYS_TR_NONE;
        TPM2B_SENSITIVE_DATA *data = NULL;
        int r = primary(t, &parent);
        if (r == 0)
                r = tpm_errno(t->f.Esys_Load(t->esys, parent, ESYS_TR_PASSWORD, ESYS_TR_NONE,
                                             ESYS_TR_NONE, &priv, &pub, &obj));
        /* A blob the TPM will not load is not this TPM's (or it was
         * cleared since): the same refusal as a changed boot chain. */
        if (r == -EIO)
                r = -EKEYREJECTED;
        if (r == 0)
                r = session(t, TPM2_SE_POLICY, parent, &s);
        if (r == 0)
                r = policy(t, s, pcr_mask, pin_len > 0);
        if (r == 0 && pin_len) {
                TPM2B_AUTH auth;
                pin_auth(pin, pin_len, &auth);
                r = tpm_errno(t->f.Esys_TR_SetAuth(t->esys, obj, &auth));
                sodium_memzero(&auth, sizeof(auth));
        }
        if (r == 0)
                r = tpm_errno(t->f.Esys_Unseal(t->esys, obj, s, ESYS_TR_NONE, ESYS_TR_NONE, &data));
        if (r == 0 && data->size > cap)
                r = -ENOSPC;
        if (r == 0) {
                memcpy(out, data->buffer, data->size);
                *len = data->size;
        }
        if (data) {
                sodium_memzero(data, sizeof(*data));
                t->f.Esys_Free(data);
        }
        flush(t, &s);
        flush(t, &obj);
        flush(t, &parent);
        return r;
}

/* ---- the counter ---- */

int dmo_tpm_counter_define(struct dmo_tpm *t, uint32_t index)
{
        const TPM2B_AUTH auth = {0};
        const TPM2B_NV_PUBLIC info = {.nvPublic = {
                                          .nvIndex = index,
                                          .nameAlg = TPM2_ALG_SHA256,
                                          /* Read and incremented with its own (empty)
                                           * authorization: the initramfs has no owner password.
                                           * NO_DA: nothing to guess. */
                                          .attributes = (TPM2_NT_COUNTER << TPMA_NV_TPM2_NT_SHIFT) |
                                                        TPMA_NV_AUTHREAD | TPMA_NV_AUTHWRITE |
                                                        TPMA_NV_OWNERREAD | TPMA_NV_NO_DA,
                                          .dataSize = 8,
                                      }};
        ESYS_TR nv = ESYS_TR_NONE;
        if ((index >> 24) != TPM2_HT_NV_INDEX)
                return -EINVAL;
        int r = tpm_errno(t->f.Esys_NV_DefineSpace(t->esys, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD,
                                                   ESYS_TR_NONE, ESYS_TR_NONE, &auth, &info, &nv));
        if (r == 0)
                r = tpm_errno(t->f.Esys_NV_Increment(t->esys, nv, nv, ESYS_TR_PASSWORD,
                                                     ESYS_TR_NONE, ESYS_TR_NONE));
        if (nv != ESYS_TR_NONE)
                t->f.Esys_TR_Close(t->esys, &nv);
        return r;
}

static int nv_handle(struct dmo_tpm *t, uint32_t index, ESYS_TR *nv)
{
        if ((index >> 24) != TPM2_HT_NV_INDEX)
                return -EINVAL;
        int r = tpm_errno(t->f.Esys_TR_FromTPMPublic(t->esys, index, ESYS_TR_NONE, ESYS_TR_NONE,
                                                     ESYS_TR_NONE, nv));
        return r == -EIO ? -ENOENT : r;
}

int dmo_tpm_counter_read(struct dmo_tpm *t, uint32_t index, uint64_t *value)
{
        ESYS_TR nv = ESYS_TR_NONE;
        TPM2B_MAX_NV_BUFFER *data = NULL;
        int r = nv_handle(t, index, &nv);
        if (r == 0)
                r = tpm_errno(t->f.Esys_NV_Read(t->esys, nv, nv, ESYS_TR_PASSWORD, ESYS_TR_NONE,
                                                ESYS_TR_NONE, 8, 0, &data));
        if (r == 0 && data->size != 8)
                r = -EIO;
        if (r == 0) {
                uint64_t v = 0;
                for (unsigned i = 0; i < 8; i++) /* TPM byte order: big-endian */
                        v = v << 8 | data->buffer[i];
                *value = v;
        }
        t->f.Esys_Free(data);
        if (nv != ESYS_TR_NONE)
                t->f.Esys_TR_Close(t->esys, &nv);
        return r;
}

int dmo_tpm_counter_increment(struct dmo_tpm *t, uint32_t index, uint64_t *value)
{
        ESYS_TR nv = ESYS_TR_NONE;
        int r = nv_handle(t, index, &nv);
        if (r == 0)
                r = tpm_errno(t->f.Esys_NV_Increment(t->esys, nv, nv, ESYS_TR_PASSWORD,
                                                     ESYS_TR_NONE, ESYS_TR_NONE));
        if (nv != ESYS_TR_NONE)
                t->f.Esys_TR_Close(t->esys, &nv);
        if (r == 0 && value)
                r = dmo_tpm_counter_read(t, index, value);
        return r;
}
