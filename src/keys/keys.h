/* keys: where an image's key comes from. Key files, passphrases asked
 * through the caller, public and secret key files, the TPM (keys/tpm.h),
 * turned into what the engine wants: a fresh image key and its envelope
 * (and TPM section) before a hibernation, the image key back (the engine's
 * unlock hook) and the image marked used (its consume hook) at resume.
 *
 * TPM modes (encrypt = tpm, tpm+passphrase): the image key is sealed by the
 * TPM to the PCRs in opts.tpm_pcrs (and a PIN), and also sealed to the
 * public key, the recovery path: when the TPM is absent or refuses (a
 * changed boot chain, another machine, a cleared TPM), the refusal is said
 * and the secret key's passphrase opens the image instead. With a counter
 * (opts.tpm_counter, made by `dormouse enroll-tpm`), every hibernation
 * increments it and records the value in the image; the resume takes the
 * image only while the counter still holds that value, and increments it
 * before anything is restored.
 *
 * Contract:
 * - Every passphrase and secret lives in libsodium's guarded, locked memory
 *   (dmo_crypto_secret_buf_*) and is wiped when freed; nothing secret is
 *   copied to stdio buffers (files are read with read(2)).
 * - Runs before the hibernation starts (hibernate) or while the image is
 *   being read ahead (resume); never after the snapshot.
 * - Says nothing itself: every question and every refusal goes through the
 *   caller's struct dmo_keys_ui, as an enum and its facts; the words are the
 *   caller's (the CLI is the edge).
 * - Returns 0 or a negative errno: -EPERM (a key file others can read),
 *   -EINVAL (a file that is not what it should be), -EKEYREJECTED (wrong
 *   passphrase or key, or two passphrases that differed three times),
 *   -ENOKEY (no key could be had), -ECANCELED (the person chose so),
 *   -ENOTTY (nobody to ask), -ENODEV (no TPM answers), -ENOTSUP (a TPM mode
 *   in a build without it), -ESTALE (the TPM counter has moved past the
 *   image), -ENOMEM, or the open/read error.
 */
#ifndef DMO_KEYS_H
#define DMO_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/crypto.h"
#include "image/format.h"

struct dmo_image_info;

#define DMO_PASSPHRASE_MAX 1024u

/* The default key files: DMO_SYSCONFDIR/dormouse/{pubkey,secret.key}. */
extern const char dmo_keys_default_public_key[];
extern const char dmo_keys_default_secret_key[];

/* TPM modes: the PCRs sealed to by default (7: the Secure Boot state and
 * its certificates), and the counter's default NV index (owner's range). */
#define DMO_KEYS_TPM_PCRS_DEFAULT    (1u << 7)
#define DMO_KEYS_TPM_COUNTER_DEFAULT 0x01d0c0deu

/* "7", "0+7", "0,2,7" (systemd-cryptenroll --tpm2-pcrs' syntax, numbers
 * only; PCRs 0 to 23), "" for none: the mask. -EINVAL: not a PCR list. */
int dmo_keys_pcrs_parse(const char *text, uint32_t *mask);
/* The mask as "0+7" into buf (len >= 64); "" for none. */
void dmo_keys_pcrs_format(uint32_t mask, char *buf, size_t len);

/* Where keys come from, from the options and the config. */
struct dmo_keys_opts {
        enum dmo_encrypt_mode mode; /* hibernate: the mode to encrypt with */
        const char *key_file;       /* passphrase from this file; NULL: ask */
        const char *public_key;     /* pubkey mode, hibernate; NULL: the default */
        const char *secret_key;     /* pubkey mode, resume; NULL: the default */
        struct dmo_kdf_costs kdf;
        unsigned attempts;      /* resume: passphrases asked before the choice (0: 3) */
        const char *tpm_device; /* TPM modes: the TCTI; NULL: tpm2-tss's default */
        uint32_t tpm_pcrs;      /* TPM modes, hibernate: bit N is PCR N (SHA-256) */
        uint32_t tpm_counter;   /* the counter's NV index; 0: no rollback protection */
};

/* What is asked. */
enum dmo_keys_question {
        DMO_KEYS_ASK_IMAGE_NEW,   /* a new passphrase for the image */
        DMO_KEYS_ASK_SECRET_NEW,  /* a new passphrase for a secret-key file */
        DMO_KEYS_ASK_REPEAT,      /* the same again */
        DMO_KEYS_ASK_RESUME,      /* the image's passphrase */
        DMO_KEYS_ASK_RESUME_KEY,  /* the secret key's passphrase (pubkey mode) */
        DMO_KEYS_ASK_RECOVERY,    /* the same, for a TPM image the TPM refused */
        DMO_KEYS_ASK_TRY_AGAIN,   /* yes/no after wrong passphrases */
        DMO_KEYS_ASK_BOOT_ANYWAY, /* yes/no: boot without the image */
        DMO_KEYS_ASK_PIN_NEW,     /* tpm+passphrase, hibernate: the TPM's PIN */
        DMO_KEYS_ASK_PIN,         /* tpm+passphrase, resume */
};

/* What went wrong, with the facts the words need. */
enum dmo_keys_fault {
        DMO_KEYS_FILE_OPEN,         /* key file: path, err */
        DMO_KEYS_FILE_NOT_REGULAR,  /* key file: path */
        DMO_KEYS_FILE_SHARED,       /* key file: path, mode */
        DMO_KEYS_FILE_TOO_LONG,     /* key file: path, limit */
        DMO_KEYS_FILE_READ,         /* key file: path, err */
        DMO_KEYS_FILE_EMPTY,        /* key file: path */
        DMO_KEYS_TYPED_EMPTY,       /* a new passphrase was empty (asked again) */
        DMO_KEYS_TYPED_DIFFERENT,   /* the two differed (asked again) */
        DMO_KEYS_NO_NEW_PASSPHRASE, /* nowhere to ask for a new one */
        DMO_KEYS_PUBLIC_OPEN,       /* path, err */
        DMO_KEYS_PUBLIC_PARSE,      /* path */
        DMO_KEYS_PUBLIC_UNUSABLE,   /* path */
        DMO_KEYS_KDF_MEMORY,        /* limit: the KDF's memory in bytes */
        DMO_KEYS_SECRET_OPEN,       /* path, err */
        DMO_KEYS_SECRET_PARSE,      /* path */
        DMO_KEYS_NO_PASSPHRASE,     /* the image is locked and nobody can be asked */
        DMO_KEYS_TPM_NOT_BUILT,     /* this dormouse was built without tpm2-tss */
        DMO_KEYS_TPM_ABSENT,        /* no TPM answers: path (the TCTI, or NULL), err */
        DMO_KEYS_TPM_FAILED,        /* the TPM failed: err */
        DMO_KEYS_TPM_REFUSED,       /* it would not unseal: PCRs changed, another TPM, cleared */
        DMO_KEYS_TPM_WRONG_PIN,     /* all attempts at the PIN were wrong */
        DMO_KEYS_TPM_RECOVERY,      /* (a note) the recovery key is asked for instead */
        DMO_KEYS_TPM_NO_COUNTER,    /* limit: the NV index, where no counter is */
        DMO_KEYS_TPM_STALE,         /* limit: the image's counter value, value: the TPM's */
        DMO_KEYS_TPM_UNCHECKED,     /* (a note) no TPM: the counter could not be checked */
};

struct dmo_keys_failure {
        enum dmo_keys_fault fault;
        const char *path;
        int err;        /* positive errno */
        unsigned mode;  /* permission bits */
        uint64_t limit; /* bytes; the TPM faults' numbers */
        uint64_t value;
};

/* The caller's side: questions and refusals in words. */
struct dmo_keys_ui {
        void *ctx;
        /* A secret into buf (cap bytes, NUL-terminated). wrong: answers not
         * accepted since the last choice, of attempts. 0, -ECANCELED (Esc),
         * -ENOTTY (nobody to ask). */
        int (*ask)(void *ctx, enum dmo_keys_question q, unsigned wrong, unsigned attempts,
                   char *buf, size_t cap);
        /* 1 yes, 0 no, -ECANCELED (Esc), -ENOTTY. */
        int (*yes_no)(void *ctx, enum dmo_keys_question q, bool default_yes);
        /* Said at once; NULL: nothing said. */
        void (*fail)(void *ctx, const struct dmo_keys_failure *f);
};

/* The passphrase in FILE, up to its first newline, in a secret buffer
 * (dmo_crypto_secret_buf_free). Refused when it is not a regular file, is
 * readable or writable by group or others, or is empty. */
int dmo_keys_file_read(const struct dmo_keys_ui *ui, const char *path, char **pass, size_t *len);

/* A new passphrase (q: for an image or a secret key): o->key_file's, or
 * asked twice, since a typo there would lock the image for good. */
int dmo_keys_new_passphrase(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui,
                            enum dmo_keys_question q, char **pass, size_t *len);

/* Hibernate: a fresh image key wrapped for o->mode (passphrase: from the
 * key file or asked twice; pubkey: sealed to the public key file; TPM
 * modes: both sealed to the public key and by the TPM into *tpm, the
 * counter incremented). *key is the caller's (dmo_crypto_key_free). tpm
 * may be NULL when o->mode is no TPM mode. -ENOTSUP: a TPM mode, built
 * without it; -ENODEV: no TPM; -ENOENT: no counter at o->tpm_counter. */
int dmo_keys_hibernate(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui,
                       struct dmo_crypto_key **key, struct dmo_crypto_envelope *env,
                       struct dmo_image_tpm *tpm);

/* `dormouse enroll-tpm`: the TPM answers, the recovery public key
 * (o->public_key or the default) parses, and, with o->tpm_counter, the
 * counter is there: defined now (*created) when it was not. *value: its
 * value (0 without a counter). -ENOTSUP: built without the TPM. */
int dmo_keys_tpm_enroll(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui, bool *created,
                        uint64_t *value);

/* Resume: the state of the engine's unlock hook. With a key file: one try.
 * Asking: o->attempts tries, then the person chooses to try again or to
 * boot without the image (only after a confirmation; the destructive answer
 * is never the default). opts and ui are borrowed for its lifetime. */
struct dmo_keys_unlock;
int dmo_keys_unlock_new(const struct dmo_keys_opts *opts, const struct dmo_keys_ui *ui,
                        struct dmo_keys_unlock **out);
/* Wipes and frees the key it unlocked, if any. NULL is fine. */
void dmo_keys_unlock_free(struct dmo_keys_unlock *u);
/* The engine's dmo_unlock_fn (ctx: a struct dmo_keys_unlock). *key stays
 * the unlock's: valid until dmo_keys_unlock_free. An image with a TPM
 * section is unsealed by the TPM first; the recovery after. */
int dmo_keys_unlock(void *ctx, const struct dmo_image_info *info, struct dmo_crypto_key **key);
/* The engine's dmo_consume_fn: an image with a counter is taken only while
 * the TPM's counter holds the image's value (-ESTALE otherwise), and the
 * counter is incremented. Without a TPM (the recovery opened the image)
 * the counter cannot be checked: said, and the image is taken. */
int dmo_keys_consume(void *ctx, const struct dmo_image_info *info);

#endif
