/* keys: where an image's key comes from. Key files, passphrases asked
 * through the caller, public and secret key files, turned into what the
 * engine wants: a fresh image key and its envelope before a hibernation,
 * the image key back (the engine's unlock hook) at resume.
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
 *   -ENOTTY (nobody to ask), -ENOMEM, or the open/read error.
 */
#ifndef DMO_KEYS_H
#define DMO_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/crypto.h"

struct dmo_image_info;

#define DMO_PASSPHRASE_MAX 1024u

/* The default key files: DMO_SYSCONFDIR/dormouse/{pubkey,secret.key}. */
extern const char dmo_keys_default_public_key[];
extern const char dmo_keys_default_secret_key[];

/* Where keys come from, from the options and the config. */
struct dmo_keys_opts {
        enum dmo_encrypt_mode mode; /* hibernate: the mode to encrypt with */
        const char *key_file;       /* passphrase from this file; NULL: ask */
        const char *public_key;     /* pubkey mode, hibernate; NULL: the default */
        const char *secret_key;     /* pubkey mode, resume; NULL: the default */
        struct dmo_kdf_costs kdf;
        unsigned attempts; /* resume: passphrases asked before the choice (0: 3) */
};

/* What is asked. */
enum dmo_keys_question {
        DMO_KEYS_ASK_IMAGE_NEW,   /* a new passphrase for the image */
        DMO_KEYS_ASK_SECRET_NEW,  /* a new passphrase for a secret-key file */
        DMO_KEYS_ASK_REPEAT,      /* the same again */
        DMO_KEYS_ASK_RESUME,      /* the image's passphrase */
        DMO_KEYS_ASK_RESUME_KEY,  /* the secret key's passphrase (pubkey mode) */
        DMO_KEYS_ASK_TRY_AGAIN,   /* yes/no after wrong passphrases */
        DMO_KEYS_ASK_BOOT_ANYWAY, /* yes/no: boot without the image */
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
};

struct dmo_keys_failure {
        enum dmo_keys_fault fault;
        const char *path;
        int err;        /* positive errno */
        unsigned mode;  /* permission bits */
        uint64_t limit; /* bytes */
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
 * key file or asked twice; pubkey: sealed to the public key file). *key is
 * the caller's (dmo_crypto_key_free). */
int dmo_keys_hibernate(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui,
                       struct dmo_crypto_key **key, struct dmo_crypto_envelope *env);

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
 * the unlock's: valid until dmo_keys_unlock_free. */
int dmo_keys_unlock(void *ctx, const struct dmo_image_info *info, struct dmo_crypto_key **key);

#endif
