/* keys: the CLI's words for the key module (keys/keys.h). It asks the
 * key module's questions on the splash's dialog or on a terminal with echo
 * off, says its refusals, and fills its options from the config.
 *
 * Contract:
 * - Only questions and messages: where keys come from and how they are
 *   checked is the key module's.
 * - A passphrase typed on the terminal goes straight into the caller's
 *   buffer (read(2), no stdio copy).
 */
#ifndef DMO_CLI_KEYS_H
#define DMO_CLI_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/config.h"
#include "keys/keys.h"
#include "splash/session.h"

/* The key module's ui through the splash (when it can take keys) or the
 * terminal. The splash is session, or splash(splash_ctx) asked each time
 * (resume brings it up on a thread); either may be NULL. */
struct dmo_cli_keys {
        struct dmo_splash_session *session;
        struct dmo_splash_session *(*splash)(void *ctx);
        void *splash_ctx;
        struct dmo_keys_ui ui;
};
void dmo_cli_keys_init(struct dmo_cli_keys *k, struct dmo_splash_session *session,
                       struct dmo_splash_session *(*splash)(void *ctx), void *splash_ctx);

/* The key files the config names, where the options named none, and its
 * KDF costs. */
void dmo_cli_keyopts_from_config(struct dmo_keys_opts *o, const struct dmo_config *cfg);

/* The key options of hibernate and resume as given. */
struct dmo_cli_keyargs {
        struct dmo_keys_opts opts;
        const char *encrypt;  /* --encrypt */
        const char *tpm_pcrs; /* --tpm-pcrs */
};
/* 1: opt was a key option (--encrypt, --key-file, --public-key,
 * --secret-key, --tpm-device, --tpm-pcrs), kept; 0: not one. */
int dmo_cli_keys_option(struct dmo_cli_keyargs *k, int opt, const char *arg);
/* The mode (--encrypt, else the config's), the PCRs (--tpm-pcrs, else the
 * config's) and the config's key files and TPM: 0, or -EINVAL after saying
 * what is wrong. */
int dmo_cli_keys_finish(struct dmo_cli_keyargs *k, const struct dmo_config *cfg);

/* A hibernation's encryption: the caller's until the engine returned
 * (key: dmo_crypto_key_free). */
struct dmo_cli_image_keys {
        struct dmo_crypto_key *key;
        struct dmo_crypto_envelope envelope;
        struct dmo_image_tpm tpm;
};
/* Hibernate: a note when the swap file at swap_path can be read by other
 * users; then, with o->mode not none, the image key, its envelope and TPM
 * section (dmo_keys_hibernate, asked on splash or the terminal) into out,
 * and hc pointed at them. 0, -ECANCELED (Esc), or -EKEYREJECTED for any
 * other failure (said). */
int dmo_cli_hibernate_key(const struct dmo_keys_opts *o, struct dmo_splash_session *splash,
                          const char *swap_path, struct dmo_cli_image_keys *out,
                          struct dmo_hibernate_config *hc);

/* The TPM's refusals and notes in words (keys_tpm.c); false when f is no
 * TPM fault. */
bool dmo_cli_keys_tpm_fail(const struct dmo_keys_failure *f);

/* A passphrase on the splash's dialog when it can take keys, else on the
 * terminal on stdin with echo off. -ENOTTY: nowhere to ask; -ECANCELED:
 * Esc. buf holds cap bytes. */
int dmo_cli_ask_passphrase(struct dmo_splash_session *s, const char *prompt, char *buf, size_t cap);
/* 1 yes, 0 no; -ENOTTY: nowhere to ask. */
int dmo_cli_ask_yes_no(struct dmo_splash_session *s, const char *prompt, bool default_yes);

#endif
