/* keys: the CLI's side of encryption. Where keys come from (key files,
 * the splash's password dialog, a terminal with echo off, public and secret
 * key files), turned into what the engine wants: an image key and its
 * envelope before a hibernation, the unlock hook at resume.
 *
 * Contract:
 * - Every passphrase and secret lives in libsodium's guarded, locked memory
 *   (dmo_crypto_secret_buf_*) and is wiped when freed; nothing secret is
 *   copied to the stack or to stdio buffers (files are read with read(2)).
 * - Runs before the hibernation starts (hibernate) or while the image is
 *   being read ahead (resume); never after the snapshot.
 * - Prints its own refusals (it is the edge): a key file readable by other
 *   users, a public key that does not parse, a passphrase that was typed
 *   differently twice.
 */
#ifndef DMO_CLI_KEYS_H
#define DMO_CLI_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "crypto/crypto.h"
#include "splash/session.h"

struct dmo_image_info;

#define DMO_PASSPHRASE_MAX 1024u

/* Where keys come from, from the options and the config. */
struct dmo_cli_keyopts {
        enum dmo_encrypt_mode mode; /* hibernate: the mode to encrypt with */
        const char *key_file;       /* passphrase from this file; NULL: ask */
        const char *public_key;     /* pubkey mode, hibernate */
        const char *secret_key;     /* pubkey mode, resume */
        struct dmo_kdf_costs kdf;
        unsigned attempts; /* resume: passphrases asked before the choice */
};

/* The passphrase in FILE, up to its first newline, in a secret buffer.
 * Refused, with a message naming the file and the fix, when it is not a
 * regular file, is readable or writable by group or others, or is empty.
 * 0, -EPERM (permissions), -EINVAL, or the open/read error. */
int dmo_cli_key_file_read(const char *path, char **pass, size_t *len);

/* Asks for a passphrase: on the splash's dialog when it can take keys,
 * else on the controlling terminal with echo off. -ENOTTY: nowhere to ask;
 * -ECANCELED: the person pressed Esc. buf holds cap bytes. */
int dmo_cli_ask_passphrase(struct dmo_splash_session *s, const char *prompt, char *buf, size_t cap);
/* 1 yes, 0 no; -ENOTTY: nowhere to ask. */
int dmo_cli_ask_yes_no(struct dmo_splash_session *s, const char *prompt, bool default_yes);

/* A new passphrase (for an image or a secret key): the key file's, or
 * asked twice, since a typo there would lock the image for good. */
int dmo_cli_new_passphrase(const struct dmo_cli_keyopts *o, struct dmo_splash_session *s,
                           const char *prompt, char **pass, size_t *len);

/* Hibernate: a fresh image key wrapped for o->mode (passphrase: from the
 * key file or asked twice; pubkey: sealed to the public key file). The key
 * is the caller's (dmo_crypto_key_free). 0 or a negative errno, said. */
int dmo_cli_hibernate_key(const struct dmo_cli_keyopts *o, struct dmo_splash_session *s,
                          struct dmo_crypto_key **key, struct dmo_crypto_envelope *env);

/* Resume: the engine's unlock hook (dmo_unlock_fn), ctx a struct
 * dmo_cli_unlock. With a key file: one try. Asking: o->attempts tries,
 * then the person chooses to try again or to boot without the image (only
 * after a confirmation; the destructive answer is never the default). */
struct dmo_cli_unlock {
        const struct dmo_cli_keyopts *opts;
        /* The splash, once it is up (resume brings it up on a thread). */
        struct dmo_splash_session *(*splash)(void *ctx);
        void *splash_ctx;
        struct dmo_crypto_key *key; /* what was unlocked; freed by the caller */
        unsigned rejected;          /* wrong passphrases or keys */
};
int dmo_cli_unlock(void *ctx, const struct dmo_image_info *info, struct dmo_crypto_key **key);
void dmo_cli_unlock_release(struct dmo_cli_unlock *u);

/* The default key files: DMO_SYSCONFDIR/dormouse/{pubkey,secret.key}. */
extern const char dmo_cli_default_public_key[];
extern const char dmo_cli_default_secret_key[];

/* Warns (a note) when the swap file at path can be read by other users:
 * with encryption off they could read the memory it will hold. */
void dmo_cli_warn_readable_swap(const char *path, bool encrypted);

#endif
