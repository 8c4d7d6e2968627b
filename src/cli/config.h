/* config: /etc/dormouse.conf, and suspend-utils' suspend.conf keys.
 *
 * Format: one `key = value` (or `key: value`) per line, `#` comments. Keys
 * are compared case-insensitively with spaces, '-' and '_' treated alike, so
 * "resume device", "resume-device" and "resume_device" are one key. Keys that
 * suspend-utils knew but dormouse has no use for are accepted and reported as
 * ignored; unknown keys are reported and skipped; nothing in a config file
 * can crash the parser (it is fuzzed).
 *
 * Parsing never prints: problems are returned as notes for the CLI to show.
 */
#ifndef DMO_CLI_CONFIG_H
#define DMO_CLI_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/codec.h"
#include "crypto/crypto.h"
#include "engine/engine.h"
#include "util/parse.h" /* dmo_parse_size() for the option parsers */

struct dmo_config {
        char resume_device[256];
        int64_t resume_offset; /* pages; < 0: not set */
        int64_t image_size;    /* bytes; < 0: not set */
        bool compress_set;
        enum dmo_compress compress;
        int compress_level;
        bool shutdown_set;
        enum dmo_shutdown shutdown;
        unsigned threads; /* 0: one per CPU */
        char splash[64];  /* "kms", "fbdev", "text", "none", "png:DIR"; "" = automatic */
        char theme[128];
        int resume_timeout_ms;         /* how long resume waits for the device; < 0: not set */
        enum dmo_encrypt_mode encrypt; /* "encrypt": none (default), passphrase, pubkey */
        char key_file[256];            /* "key file": passphrase from this file */
        char public_key[256];          /* "public key": pubkey mode, hibernate */
        char secret_key[256];          /* "secret key": pubkey mode, resume */
        struct dmo_kdf_costs kdf;      /* "kdf ops", "kdf memory": Argon2id costs */
        uint32_t tpm_pcrs;             /* "tpm pcrs": bit N is PCR N; default 7 */
        char tpm_device[256];          /* "tpm device": a TCTI; "" = tpm2-tss's default */
        uint32_t tpm_counter;          /* "tpm counter": NV index; 0 ("no"): none */
        /* "initramfs check = no": the initramfs is built another way, and
         * hibernate does not compare it with the image it writes */
        bool skip_initramfs_check;
        /* "network plain = yes": an image on a network device (nbd://) may
         * be written with encrypt = none; without it hibernate refuses */
        bool network_plain;
};

enum dmo_config_note_kind {
        DMO_NOTE_UNKNOWN_KEY, /* key not known: skipped */
        DMO_NOTE_IGNORED_KEY, /* suspend-utils key dormouse does not use */
        DMO_NOTE_BAD_VALUE,   /* value not understood: key left at its default */
        DMO_NOTE_SYNTAX,      /* line is not `key = value` */
};

struct dmo_config_note {
        enum dmo_config_note_kind kind;
        unsigned line;
        char key[48];
        char value[48];
};

#define DMO_CONFIG_MAX_NOTES 32

struct dmo_config_notes {
        struct dmo_config_note note[DMO_CONFIG_MAX_NOTES];
        unsigned count;   /* notes stored */
        unsigned dropped; /* notes that did not fit */
};

void dmo_config_init(struct dmo_config *cfg);

/* Parses text of `len` bytes (need not be NUL-terminated) into cfg, which
 * keeps the values it had for keys the text does not set. Returns 0; notes
 * say what was skipped. */
int dmo_config_parse(struct dmo_config *cfg, const char *text, size_t len,
                     struct dmo_config_notes *notes);

/* Reads and parses a file. -ENOENT when it does not exist (the caller decides
 * whether that matters), other -errno when it cannot be read, -EFBIG over 1 MiB. */
int dmo_config_load(struct dmo_config *cfg, const char *path, struct dmo_config_notes *notes);

/* One key (canonical spelling: lower case, words joined by '-') and its
 * value: 0, -ENOENT for an unknown key, -EOPNOTSUPP for a suspend-utils key
 * dormouse ignores, -EINVAL for a value it does not understand (cfg keeps
 * its old value). The parser's helper (config_keys.c). */
int dmo_config_apply(struct dmo_config *cfg, const char *key, const char *value);
/* The same for the keys of encryption (config_crypto.c): -ENOENT for any
 * other key. */
int dmo_config_apply_crypto(struct dmo_config *cfg, const char *key, const char *value);
/* suspend-utils wrote "y"/"n" where dormouse names things: true when s is
 * one of those words, *out what it says. */
bool dmo_config_parse_bool(const char *s, bool *out);

/* --shutdown and "shutdown method": platform, shutdown (poweroff), reboot,
 * suspend (suspend-to-both), any case. */
int dmo_shutdown_parse(const char *s, enum dmo_shutdown *out);
const char *dmo_shutdown_name(enum dmo_shutdown s);

#endif
