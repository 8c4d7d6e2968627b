/* crypto: the keys and the authenticated encryption of an image, on top of
 * libsodium (no primitive is written here).
 *
 * - Every hibernation gets a fresh random image key (32 bytes). It is
 *   wrapped for storage in the image header by the key-encryption key of
 *   the mode: passphrase mode derives that key with Argon2id
 *   (crypto_pwhash) and wraps with XChaCha20-Poly1305; public-key mode seals
 *   the image key to an X25519 public key (crypto_box_seal), so hibernation
 *   needs no passphrase and resume asks for the one protecting the secret
 *   key (stored encrypted under Argon2id, see dmo_crypto_secret_*).
 * - Chunks are encrypted one by one with an AEAD the image's header names
 *   (enum dmo_chunk_cipher): AES-256-GCM where the CPU has AES and
 *   carry-less multiply instructions (several times faster there), else
 *   XChaCha20-Poly1305 (IETF). Nonce = the image's random nonce prefix ||
 *   the chunk index (AES-GCM: the prefix's first 4 bytes), additional
 *   data = the binding (a BLAKE2b hash of the image's whole encryption
 *   section) || index || page count || zero map || flags || plain length.
 *   Per-chunk AEAD rather than secretstream because the codec encrypts
 *   chunks on every core in parallel: a chunk's tag depends only on the
 *   key, its index and the image, never on the chunk before it. Reordered,
 *   dropped or replayed chunks fail because the reader authenticates each
 *   chunk with the index it expects; a chunk of another image fails on the
 *   key and the binding.
 * - The image header and its extent map are authenticated with a keyed
 *   BLAKE2b MAC (subkey of the image key, crypto_kdf), which also covers
 *   chunk_count and stream_len: a truncated stream cannot pass for a
 *   shorter image.
 *
 * Contract:
 * - Key material lives only in sodium_malloc'd memory (guarded, mlocked,
 *   wiped with sodium_memzero when freed): keys, keypairs, passphrase
 *   buffers. Objects are made with _new and released with _free.
 * - Allocation happens only in the _new/_unwrap/_open functions and in
 *   crypto_pwhash; sealing and opening chunks and the MAC never allocate,
 *   so they run after the snapshot. Chunk seal/open are thread-safe on one
 *   key once it is bound; the MAC state is one per key (one thread).
 * - Knows no on-disk layout except the secret-key file (§7 of
 *   doc/image-format.md), which is this module's own; the image's
 *   encryption section is encoded by src/image/format.c.
 * - Returns 0 or a negative errno: -EKEYREJECTED for a wrong passphrase or
 *   key, -EBADMSG for data that fails authentication, -ENOMEM, -EINVAL.
 */
#ifndef DMO_CRYPTO_H
#define DMO_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum dmo_encrypt_mode {
        DMO_ENCRYPT_NONE = 0,
        DMO_ENCRYPT_PASSPHRASE = 1, /* Argon2id-derived key wraps the image key */
        DMO_ENCRYPT_PUBKEY = 2,     /* image key sealed to an X25519 public key */
        /* The image key sealed by the TPM (image header's TPM section), and
         * also to the public key, the recovery path: the envelope of such an
         * image is in pubkey mode. Never an envelope's mode itself. */
        DMO_ENCRYPT_TPM = 3,
        DMO_ENCRYPT_TPM_PIN = 4, /* "tpm+passphrase": the TPM unseals only with a PIN */
};

#define DMO_CRYPTO_KEY_LEN         32u /* image key, either chunk cipher */
#define DMO_CRYPTO_TAG_LEN         16u /* added to every encrypted chunk */
#define DMO_CRYPTO_SALT_LEN        16u
#define DMO_CRYPTO_NONCE_LEN       24u
#define DMO_CRYPTO_IMAGE_NONCE_LEN 16u /* chunk nonce = this || LE64 chunk index */
#define DMO_CRYPTO_WRAPPED_MAX     80u /* sealed box: 32 + 48 */
#define DMO_CRYPTO_MAC_LEN         32u
#define DMO_CRYPTO_PUBKEY_LEN      32u
#define DMO_CRYPTO_SECRET_FILE_LEN 144u

/* Argon2id costs. The defaults take about half a second and 64 MiB on a
 * laptop core (libsodium's "interactive" memory, one more pass), within what
 * an initramfs can afford on a small machine; the config overrides them
 * (kdf_ops, kdf_mem_mib). Limits are libsodium's. */
#define DMO_KDF_OPSLIMIT_DEFAULT 3ull
#define DMO_KDF_MEMLIMIT_DEFAULT (64ull << 20)
#define DMO_KDF_OPSLIMIT_MIN     1ull
#define DMO_KDF_OPSLIMIT_MAX     64ull
#define DMO_KDF_MEMLIMIT_MIN     (8ull << 10)
#define DMO_KDF_MEMLIMIT_MAX     (4ull << 30)

struct dmo_kdf_costs {
        uint64_t opslimit;
        uint64_t memlimit; /* bytes */
};

/* What the image header stores about its key (public, no secret in it). */
struct dmo_crypto_envelope {
        uint32_t mode; /* enum dmo_encrypt_mode */
        uint64_t opslimit;
        uint64_t memlimit;
        uint8_t salt[DMO_CRYPTO_SALT_LEN];   /* passphrase mode */
        uint8_t nonce[DMO_CRYPTO_NONCE_LEN]; /* passphrase mode: wrap nonce */
        uint8_t image_nonce[DMO_CRYPTO_IMAGE_NONCE_LEN];
        uint32_t wrapped_len; /* 48 (passphrase) or 80 (sealed box) */
        uint8_t wrapped[DMO_CRYPTO_WRAPPED_MAX];
};

/* 0 when the costs are within libsodium's limits (and ours). */
int dmo_kdf_costs_check(const struct dmo_kdf_costs *c);

/* Checks the envelope's fields without a key: mode, lengths, costs. */
int dmo_crypto_envelope_check(const struct dmo_crypto_envelope *env);

const char *dmo_encrypt_mode_name(enum dmo_encrypt_mode m);
int dmo_encrypt_mode_parse(const char *name, enum dmo_encrypt_mode *out);

/* sodium_init(); 0 or -EIO. Safe to call more than once; every function
 * below that allocates calls it too, so forgetting it costs nothing. */
int dmo_crypto_init(void);

/* The SHA-256 of a file's contents, the digest sha256sum prints: how a
 * file kept elsewhere (the initramfs's copy of dormouse.conf, its secret
 * key) is compared with the one here. 0 or the errno of open or read. */
#define DMO_CRYPTO_SHA256_LEN 32u
int dmo_crypto_sha256_file(const char *path, uint8_t out[DMO_CRYPTO_SHA256_LEN]);

/* ---- the image key ---- */

struct dmo_crypto_key;

/* A fresh random image key (and a fresh image nonce). */
int dmo_crypto_key_new(struct dmo_crypto_key **out);
void dmo_crypto_key_free(struct dmo_crypto_key *k);

/* The image key's bytes, for a wrapping done elsewhere (the TPM seals
 * them); the caller wipes raw (sodium_memzero). */
void dmo_crypto_key_export(const struct dmo_crypto_key *k, uint8_t raw[DMO_CRYPTO_KEY_LEN]);
/* The image key back from those bytes and the image's envelope (its image
 * nonce). The wrapping that gave raw back authenticated it; the header MAC
 * checks it again. */
int dmo_crypto_key_import(const uint8_t raw[DMO_CRYPTO_KEY_LEN],
                          const struct dmo_crypto_envelope *env, struct dmo_crypto_key **out);

/* Wraps k under a key derived from the passphrase; fills env (new salt and
 * nonce, costs, k's image nonce). Allocates memlimit bytes while it runs. */
int dmo_crypto_wrap_passphrase(const struct dmo_crypto_key *k, const char *pass, size_t pass_len,
                               const struct dmo_kdf_costs *costs, struct dmo_crypto_envelope *env);

/* Seals k to an X25519 public key; fills env. */
int dmo_crypto_wrap_pubkey(const struct dmo_crypto_key *k, const uint8_t pk[DMO_CRYPTO_PUBKEY_LEN],
                           struct dmo_crypto_envelope *env);

/* The image key back from a passphrase-mode envelope; -EKEYREJECTED when
 * the passphrase is wrong (or the envelope was altered). */
int dmo_crypto_unwrap_passphrase(const struct dmo_crypto_envelope *env, const char *pass,
                                 size_t pass_len, struct dmo_crypto_key **out);

struct dmo_crypto_keypair;

/* The image key back from a public-key envelope with the secret key. */
int dmo_crypto_unwrap_keypair(const struct dmo_crypto_envelope *env,
                              const struct dmo_crypto_keypair *kp, struct dmo_crypto_key **out);

/* The AEAD that seals an image's chunks; the number is the image header's
 * cipher field (doc/image-format.md §2.2). */
enum dmo_chunk_cipher {
        DMO_CHUNK_CIPHER_NONE = 0,
        DMO_CHUNK_CIPHER_XCHACHA20POLY1305 = 1, /* IETF AEAD, any CPU */
        DMO_CHUNK_CIPHER_AES256GCM = 2,         /* only with AES + CLMUL instructions */
};

const char *dmo_crypto_cipher_name(enum dmo_chunk_cipher c);
/* Whether this CPU and libsodium can seal and open chunks with c. */
bool dmo_crypto_cipher_available(enum dmo_chunk_cipher c);
/* The fastest available: AES-256-GCM where the CPU has it. */
enum dmo_chunk_cipher dmo_crypto_cipher_preferred(void);

/* Binds k to one image and its chunk cipher: binding = BLAKE2b-256(section),
 * where section is the image's encryption section as encoded with a zero
 * MAC. Every chunk's additional data starts with it. Must be called before
 * sealing or opening chunks. -EINVAL: not a chunk cipher; -ENOTSUP: this
 * CPU cannot run it (an AES-GCM image on a CPU without AES instructions).
 * Never allocates. */
int dmo_crypto_key_bind(struct dmo_crypto_key *k, enum dmo_chunk_cipher cipher,
                        const uint8_t *section, size_t len);

/* ---- chunks ---- */

/* What a chunk's authentication covers besides its bytes. */
struct dmo_crypto_chunk_ad {
        uint64_t index; /* position in the stream, from 0 */
        uint32_t npages;
        uint64_t zero_map;
        uint32_t flags;
        uint32_t plain_len; /* payload bytes before encryption */
};

/* Encrypts buf[0..plain_len) in place and writes the tag after it:
 * buf must hold plain_len + DMO_CRYPTO_TAG_LEN bytes. Never allocates. */
int dmo_crypto_chunk_seal(const struct dmo_crypto_key *k, const struct dmo_crypto_chunk_ad *ad,
                          uint8_t *buf);

/* Verifies the tag at buf[plain_len..) and decrypts in place; -EBADMSG
 * (buf is then undefined) when anything was altered. Never allocates. */
int dmo_crypto_chunk_open(const struct dmo_crypto_key *k, const struct dmo_crypto_chunk_ad *ad,
                          uint8_t *buf);

/* ---- header and extent-map MAC (keyed BLAKE2b-256, one state per key) ---- */

void dmo_crypto_mac_begin(struct dmo_crypto_key *k);
void dmo_crypto_mac_update(struct dmo_crypto_key *k, const void *data, size_t len);
void dmo_crypto_mac_end(struct dmo_crypto_key *k, uint8_t mac[DMO_CRYPTO_MAC_LEN]);
/* Ends the MAC and compares in constant time: 0 or -EBADMSG. */
int dmo_crypto_mac_verify(struct dmo_crypto_key *k, const uint8_t mac[DMO_CRYPTO_MAC_LEN]);

/* ---- key pairs for public-key mode ---- */

int dmo_crypto_keypair_new(struct dmo_crypto_keypair **out);
void dmo_crypto_keypair_free(struct dmo_crypto_keypair *kp);
void dmo_crypto_keypair_public(const struct dmo_crypto_keypair *kp,
                               uint8_t pk[DMO_CRYPTO_PUBKEY_LEN]);

/* The secret-key file: the key pair with its secret half encrypted under a
 * passphrase (Argon2id + XChaCha20-Poly1305), DMO_CRYPTO_SECRET_FILE_LEN
 * bytes. */
int dmo_crypto_secret_seal(const struct dmo_crypto_keypair *kp, const char *pass, size_t pass_len,
                           const struct dmo_kdf_costs *costs,
                           uint8_t out[DMO_CRYPTO_SECRET_FILE_LEN]);
/* -EKEYREJECTED: wrong passphrase; -EBADMSG: not a secret-key file. */
int dmo_crypto_secret_open(const uint8_t *file, size_t len, const char *pass, size_t pass_len,
                           struct dmo_crypto_keypair **out);

/* The public-key file: "dormouse-pubkey-1 " and 64 hex digits, a newline.
 * buf holds at least DMO_CRYPTO_PUBKEY_TEXT_LEN + 1 bytes. */
#define DMO_CRYPTO_PUBKEY_TEXT_LEN 83u
void dmo_crypto_pubkey_format(const uint8_t pk[DMO_CRYPTO_PUBKEY_LEN], char *buf);
int dmo_crypto_pubkey_parse(const char *text, size_t len, uint8_t pk[DMO_CRYPTO_PUBKEY_LEN]);

/* ---- secrets held for a while (passphrases) ---- */

/* A zeroed, locked, guarded buffer of cap bytes (sodium_malloc), wiped
 * and freed by dmo_crypto_secret_buf_free. */
int dmo_crypto_secret_buf_new(size_t cap, char **out);
void dmo_crypto_secret_buf_free(char *buf);

#endif
