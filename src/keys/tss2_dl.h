/* tss2_dl: the functions of tpm2-tss that keys/tpm.c calls, loaded with
 * dlopen() when a TPM mode is used, as systemd loads them.
 *
 * Linked directly, libtss2-esys brings libtss2-sys, libtss2-mu,
 * libtss2-tctildr and OpenSSL's libcrypto (about 5.8 MB) into every start
 * of dormouse and, through the initramfs hook's copy of the binary, into
 * every initramfs, for the users of `encrypt = tpm` and everyone else
 * alike: the initramfs grew past the 15 % that issue 35 allows. Loaded on
 * use, they cost nothing unless the image key is sealed to the TPM, and
 * the hooks copy them only for the TPM modes.
 *
 * Contract:
 * - dmo_tss2_load() fills every pointer or none: 0, or -ENOPKG when a
 *   library or a symbol is missing (tpm2-tss is not installed, or one too
 *   old to have a function dormouse calls), with *f cleared.
 * - The table is the caller's (held in its TPM context): no global state.
 * - dmo_tss2_unload() closes the libraries; the pointers are cleared.
 */
#ifndef DMO_KEYS_TSS2_DL_H
#define DMO_KEYS_TSS2_DL_H

#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_tctildr.h>

/* X(library, function) for each function used; library: 0 esys, 1 mu,
 * 2 tctildr. */
#define DMO_TSS2_FUNCTIONS(X)                                                                      \
        X(0, Esys_Initialize)                                                                      \
        X(0, Esys_Finalize)                                                                        \
        X(0, Esys_Free)                                                                            \
        X(0, Esys_TR_Close)                                                                        \
        X(0, Esys_TR_SetAuth)                                                                      \
        X(0, Esys_TR_FromTPMPublic)                                                                \
        X(0, Esys_TRSess_SetAttributes)                                                            \
        X(0, Esys_StartAuthSession)                                                                \
        X(0, Esys_PolicyPCR)                                                                       \
        X(0, Esys_PolicyAuthValue)                                                                 \
        X(0, Esys_PolicyGetDigest)                                                                 \
        X(0, Esys_CreatePrimary)                                                                   \
        X(0, Esys_Create)                                                                          \
        X(0, Esys_Load)                                                                            \
        X(0, Esys_Unseal)                                                                          \
        X(0, Esys_FlushContext)                                                                    \
        X(0, Esys_NV_DefineSpace)                                                                  \
        X(0, Esys_NV_Increment)                                                                    \
        X(0, Esys_NV_Read)                                                                         \
        X(1, Tss2_MU_TPM2B_PUBLIC_Marshal)                                                         \
        X(1, Tss2_MU_TPM2B_PUBLIC_Unmarshal)                                                       \
        X(1, Tss2_MU_TPM2B_PRIVATE_Marshal)                                                        \
        X(1, Tss2_MU_TPM2B_PRIVATE_Unmarshal)                                                      \
        X(2, Tss2_TctiLdr_Initialize)                                                              \
        X(2, Tss2_TctiLdr_Finalize)

/* The sonames tpm2-tss has shipped since 2.x (Debian 12 and 13). */
#define DMO_TSS2_LIBRARIES                                                                         \
        {                                                                                          \
                "libtss2-esys.so.0", "libtss2-mu.so.0", "libtss2-tctildr.so.0"                     \
        }

struct dmo_tss2 {
        void *lib[3];
#define DMO_TSS2_POINTER(l, name) __typeof__(name) *name;
        DMO_TSS2_FUNCTIONS(DMO_TSS2_POINTER)
#undef DMO_TSS2_POINTER
};

int dmo_tss2_load(struct dmo_tss2 *f);
void dmo_tss2_unload(struct dmo_tss2 *f);

#endif
