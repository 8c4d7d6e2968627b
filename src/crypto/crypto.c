/* Keys, wrapping, chunk AEAD and the header MAC, all through libsodium. */
#include "crypto/crypto.h"

#include <errno.h>
#include <fcntl.h>
#include <stdalign.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "util/le.h"
#include "util/strtable.h"

/* Its size is a multiple of 64, so the generichash state, which wants that
 * alignment, is aligned at the end of sodium_malloc's page too. */
struct dmo_crypto_key {
        alignas(64) crypto_generichash_state mac;
        /* AES-256-GCM's expanded key and GHASH table, made once by bind:
         * per chunk only the counter blocks are computed. */
        alignas(64) crypto_aead_aes256gcm_state aes;
        uint32_t cipher; /* enum dmo_chunk_cipher, set by bind */
        uint8_t key[DMO_CRYPTO_KEY_LEN];
        uint8_t mac_key[DMO_CRYPTO_KEY_LEN];
        uint8_t binding[crypto_generichash_BYTES];
        uint8_t image_nonce[DMO_CRYPTO_IMAGE_NONCE_LEN];
};

struct dmo_crypto_keypair {
        uint8_t pk[crypto_box_PUBLICKEYBYTES];
        uint8_t sk[crypto_box_SECRETKEYBYTES];
};

_Static_assert(DMO_CRYPTO_KEY_LEN == crypto_aead_xchacha20poly1305_ietf_KEYBYTES, "key size");
_Static_assert(DMO_CRYPTO_TAG_LEN == crypto_aead_xchacha20poly1305_ietf_ABYTES, "tag size");
_Static_assert(DMO_CRYPTO_NONCE_LEN == crypto_aead_xchacha20poly1305_ietf_NPUBBYTES, "nonce");
_Static_assert(DMO_CRYPTO_SALT_LEN == crypto_pwhash_SALTBYTES, "salt size");
_Static_assert(DMO_CRYPTO_WRAPPED_MAX == crypto_box_SEALBYTES + DMO_CRYPTO_KEY_LEN, "sealed");
_Static_assert(DMO_CRYPTO_PUBKEY_LEN == crypto_box_PUBLICKEYBYTES, "public key size");
_Static_assert(DMO_CRYPTO_IMAGE_NONCE_LEN + 8 == DMO_CRYPTO_NONCE_LEN, "chunk nonce");
_Static_assert(DMO_CRYPTO_KEY_LEN == crypto_aead_aes256gcm_KEYBYTES, "AES key size");
_Static_assert(DMO_CRYPTO_TAG_LEN == crypto_aead_aes256gcm_ABYTES, "AES tag size");
_Static_assert(crypto_aead_aes256gcm_NPUBBYTES == 12, "AES-GCM nonce: 4 + 8 bytes");
_Static_assert(sizeof(struct dmo_crypto_key) % 64 == 0, "key alignment at the page end");

#define WRAPPED_PASS_LEN (DMO_CRYPTO_KEY_LEN + DMO_CRYPTO_TAG_LEN)
#define WRAP_AD_LEN                                                                                \
        (4 + 8 + 8 + DMO_CRYPTO_SALT_LEN + DMO_CRYPTO_NONCE_LEN + DMO_CRYPTO_IMAGE_NONCE_LEN)
#define CHUNK_AD_LEN (crypto_generichash_BYTES + 8 + 4 + 8 + 4 + 4)

static const char mac_context[crypto_kdf_CONTEXTBYTES] = {'d', 'm', 'o', 'h', 'd', 'm', 'a', 'c'};
static const uint8_t secret_magic[8] = {'D', 'M', 'O', 'S', 'K', 'E', 'Y', '1'};
static const char pubkey_prefix[] = "dormouse-pubkey-1 ";

int dmo_crypto_init(void)
{
        return sodium_init() < 0 ? -EIO : 0;
}

_Static_assert(DMO_CRYPTO_SHA256_LEN == crypto_hash_sha256_BYTES, "SHA-256 size");

int dmo_crypto_sha256_file(const char *path, uint8_t out[DMO_CRYPTO_SHA256_LEN])
{
        if (dmo_crypto_init() < 0)
                return -EIO;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        crypto_hash_sha256_state st;
        crypto_hash_sha256_init(&st);
        uint8_t buf[4096];
        int r = 0;
        for (;;) {
                ssize_t n = read(fd, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        r = -errno;
                        break;
                }
                if (n == 0)
                        break;
                crypto_hash_sha256_update(&st, buf, (unsigned long long)n);
        }
        close(fd);
        if (r == 0)
                crypto_hash_sha256_final(&st, out);
        return r;
}

int dmo_kdf_costs_check(const struct dmo_kdf_costs *c)
{
        if (c->opslimit < DMO_KDF_OPSLIMIT_MIN || c->opslimit > DMO_KDF_OPSLIMIT_MAX ||
            c->opslimit < crypto_pwhash_OPSLIMIT_MIN)
                return -EINVAL;
        if (c->memlimit < DMO_KDF_MEMLIMIT_MIN || c->memlimit > DMO_KDF_MEMLIMIT_MAX ||
            c->memlimit < crypto_pwhash_MEMLIMIT_MIN)
                return -EINVAL;
        return 0;
}

int dmo_crypto_envelope_check(const struct dmo_crypto_envelope *env)
{
        switch (env->mode) {
        case DMO_ENCRYPT_PASSPHRASE: {
                struct dmo_kdf_costs c = {env->opslimit, env->memlimit};
                if (dmo_kdf_costs_check(&c) < 0 || env->wrapped_len != WRAPPED_PASS_LEN)
                        return -EINVAL;
                return 0;
        }
        case DMO_ENCRYPT_PUBKEY:
                if (env->opslimit || env->memlimit || env->wrapped_len != DMO_CRYPTO_WRAPPED_MAX)
                        return -EINVAL;
                return 0;
        default:
                return -EINVAL;
        }
}

static const char *const encrypt_mode_names[] = {
    [DMO_ENCRYPT_NONE] = "none",
    [DMO_ENCRYPT_PASSPHRASE] = "passphrase",
    [DMO_ENCRYPT_PUBKEY] = "pubkey",
    [DMO_ENCRYPT_TPM] = "tpm",
    [DMO_ENCRYPT_TPM_PIN] = "tpm+passphrase",
};
DMO_STRING_TABLE_TO_STRING(, dmo_encrypt_mode_name, enum dmo_encrypt_mode, encrypt_mode_names,
                           "unknown")
DMO_STRING_TABLE_FROM_STRING(, dmo_encrypt_mode_parse, enum dmo_encrypt_mode, encrypt_mode_names)

/* ---- the image key ---- */

/* Every function that allocates starts libsodium if the caller did not:
 * sodium_malloc aborts before sodium_init(). Cheap after the first call. */
static bool sodium_ready(void)
{
        return sodium_init() >= 0;
}

static struct dmo_crypto_key *key_alloc(void)
{
        if (!sodium_ready())
                return NULL;
        struct dmo_crypto_key *k = sodium_malloc(sizeof(*k));
        if (k)
                sodium_memzero(k, sizeof(*k));
        return k;
}

static void key_derive(struct dmo_crypto_key *k)
{
        crypto_kdf_derive_from_key(k->mac_key, sizeof(k->mac_key), 1, mac_context, k->key);
}

int dmo_crypto_key_new(struct dmo_crypto_key **out)
{
        struct dmo_crypto_key *k = key_alloc();
        if (!k)
                return -ENOMEM;
        crypto_aead_xchacha20poly1305_ietf_keygen(k->key);
        randombytes_buf(k->image_nonce, sizeof(k->image_nonce));
        key_derive(k);
        *out = k;
        return 0;
}

void dmo_crypto_key_export(const struct dmo_crypto_key *k, uint8_t raw[DMO_CRYPTO_KEY_LEN])
{
        memcpy(raw, k->key, DMO_CRYPTO_KEY_LEN);
}

int dmo_crypto_key_import(const uint8_t raw[DMO_CRYPTO_KEY_LEN],
                          const struct dmo_crypto_envelope *env, struct dmo_crypto_key **out)
{
        struct dmo_crypto_key *k = key_alloc();
        if (!k)
                return -ENOMEM;
        memcpy(k->key, raw, DMO_CRYPTO_KEY_LEN);
        memcpy(k->image_nonce, env->image_nonce, sizeof(k->image_nonce));
        key_derive(k);
        *out = k;
        return 0;
}

void dmo_crypto_key_free(struct dmo_crypto_key *k)
{
        if (k)
                sodium_free(k); /* wipes before it frees */
}

static void wrap_ad(const struct dmo_crypto_envelope *env, uint8_t ad[WRAP_AD_LEN])
{
        uint8_t *p = ad;
        dmo_put_le32(p, env->mode);
        dmo_put_le64(p + 4, env->opslimit);
        dmo_put_le64(p + 12, env->memlimit);
        p += 20;
        memcpy(p, env->salt, sizeof(env->salt));
        p += sizeof(env->salt);
        memcpy(p, env->nonce, sizeof(env->nonce));
        p += sizeof(env->nonce);
        memcpy(p, env->image_nonce, sizeof(env->image_nonce));
}

/* The key-encryption key lives in locked memory for the moment it exists. */
static int derive_kek(const char *pass, size_t pass_len, const uint8_t salt[DMO_CRYPTO_SALT_LEN],
                      uint64_t ops, uint64_t mem, uint8_t **kek)
{
        struct dmo_kdf_costs c = {ops, mem};
        if (dmo_kdf_costs_check(&c) < 0)
                return -EINVAL;
        if (!sodium_ready())
                return -EIO;
        *kek = sodium_malloc(DMO_CRYPTO_KEY_LEN);
        if (!*kek)
                return -ENOMEM;
        if (crypto_pwhash(*kek, DMO_CRYPTO_KEY_LEN, pass, pass_len, salt, ops, (size_t)mem,
                          crypto_pwhash_ALG_ARGON2ID13) != 0) {
                sodium_free(*kek);
                *kek = NULL;
                return -ENOMEM; /* the only way Argon2id fails with valid costs */
        }
        return 0;
}

int dmo_crypto_wrap_passphrase(const struct dmo_crypto_key *k, const char *pass, size_t pass_len,
                               const struct dmo_kdf_costs *costs, struct dmo_crypto_envelope *env)
{
        uint8_t ad[WRAP_AD_LEN];
        uint8_t *kek;

        memset(env, 0, sizeof(*env));
        env->mode = DMO_ENCRYPT_PASSPHRASE;
        env->opslimit = costs->opslimit;
        env->memlimit = costs->memlimit;
        randombytes_buf(env->salt, sizeof(env->salt));
        randombytes_buf(env->nonce, sizeof(env->nonce));
        memcpy(env->image_nonce, k->image_nonce, sizeof(env->image_nonce));
        int r = derive_kek(pass, pass_len, env->salt, env->opslimit, env->memlimit, &kek);
        if (r < 0)
                return r;
        wrap_ad(env, ad);
        unsigned long long len;
        crypto_aead_xchacha20poly1305_ietf_encrypt(env->wrapped, &len, k->key, sizeof(k->key), ad,
                                                   sizeof(ad), NULL, env->nonce, kek);
        env->wrapped_len = (uint32_t)len;
        sodium_free(kek);
        return 0;
}

int dmo_crypto_wrap_pubkey(const struct dmo_crypto_key *k, const uint8_t pk[DMO_CRYPTO_PUBKEY_LEN],
                           struct dmo_crypto_envelope *env)
{
        memset(env, 0, sizeof(*env));
        env->mode = DMO_ENCRYPT_PUBKEY;
        memcpy(env->image_nonce, k->image_nonce, sizeof(env->image_nonce));
        if (crypto_box_seal(env->wrapped, k->key, sizeof(k->key), pk) != 0)
                return -EINVAL; /* a public key of small order */
        env->wrapped_len = DMO_CRYPTO_WRAPPED_MAX;
        return 0;
}

int dmo_crypto_unwrap_passphrase(const struct dmo_crypto_envelope *env, const char *pass,
                                 size_t pass_len, struct dmo_crypto_key **out)
{
        uint8_t ad[WRAP_AD_LEN];
        uint8_t *kek;

        if (env->mode != DMO_ENCRYPT_PASSPHRASE || dmo_crypto_envelope_check(env) < 0)
                return -EINVAL;
        struct dmo_crypto_key *k = key_alloc();
        if (!k)
                return -ENOMEM;
        int r = derive_kek(pass, pass_len, env->salt, env->opslimit, env->memlimit, &kek);
        if (r < 0) {
                sodium_free(k);
                return r;
        }
        wrap_ad(env, ad);
        unsigned long long len;
        r = crypto_aead_xchacha20poly1305_ietf_decrypt(
            k->key, &len, NULL, env->wrapped, env->wrapped_len, ad, sizeof(ad), env->nonce, kek);
        sodium_free(kek);
        if (r != 0 || len != DMO_CRYPTO_KEY_LEN) {
                sodium_free(k);
                return -EKEYREJECTED;
        }
        memcpy(k->image_nonce, env->image_nonce, sizeof(k->image_nonce));
        key_derive(k);
        *out = k;
        return 0;
}

int dmo_crypto_unwrap_keypair(const struct dmo_crypto_envelope *env,
                              const struct dmo_crypto_keypair *kp, struct dmo_crypto_key **out)
{
        if (env->mode != DMO_ENCRYPT_PUBKEY || dmo_crypto_envelope_check(env) < 0)
                return -EINVAL;
        struct dmo_crypto_key *k = key_alloc();
        if (!k)
                return -ENOMEM;
        if (crypto_box_seal_open(k->key, env->wrapped, env->wrapped_len, kp->pk, kp->sk) != 0) {
                sodium_free(k);
                return -EKEYREJECTED;
        }
        memcpy(k->image_nonce, env->image_nonce, sizeof(k->image_nonce));
        key_derive(k);
        *out = k;
        return 0;
}

static const char *const cipher_names[] = {
    [DMO_CHUNK_CIPHER_NONE] = "none",
    [DMO_CHUNK_CIPHER_XCHACHA20POLY1305] = "XChaCha20-Poly1305",
    [DMO_CHUNK_CIPHER_AES256GCM] = "AES-256-GCM",
};
DMO_STRING_TABLE_TO_STRING(, dmo_crypto_cipher_name, enum dmo_chunk_cipher, cipher_names, "unknown")

bool dmo_crypto_cipher_available(enum dmo_chunk_cipher c)
{
        switch (c) {
        case DMO_CHUNK_CIPHER_XCHACHA20POLY1305:
                return true;
        case DMO_CHUNK_CIPHER_AES256GCM:
                /* libsodium's AES-GCM exists only on the CPU's AES and
                 * carry-less multiply instructions: never in software. */
                return sodium_ready() && crypto_aead_aes256gcm_is_available() == 1;
        default:
                return false;
        }
}

enum dmo_chunk_cipher dmo_crypto_cipher_preferred(void)
{
        return dmo_crypto_cipher_available(DMO_CHUNK_CIPHER_AES256GCM)
                   ? DMO_CHUNK_CIPHER_AES256GCM
                   : DMO_CHUNK_CIPHER_XCHACHA20POLY1305;
}

int dmo_crypto_key_bind(struct dmo_crypto_key *k, enum dmo_chunk_cipher cipher,
                        const uint8_t *section, size_t len)
{
        if (cipher != DMO_CHUNK_CIPHER_XCHACHA20POLY1305 && cipher != DMO_CHUNK_CIPHER_AES256GCM)
                return -EINVAL;
        if (!dmo_crypto_cipher_available(cipher))
                return -ENOTSUP;
        if (cipher == DMO_CHUNK_CIPHER_AES256GCM)
                crypto_aead_aes256gcm_beforenm(&k->aes, k->key);
        k->cipher = cipher;
        crypto_generichash(k->binding, sizeof(k->binding), section, len, NULL, 0);
        return 0;
}

/* ---- chunks ---- */

static void chunk_nonce_ad(const struct dmo_crypto_key *k, const struct dmo_crypto_chunk_ad *ad,
                           uint8_t nonce[DMO_CRYPTO_NONCE_LEN], uint8_t out[CHUNK_AD_LEN])
{
        memcpy(nonce, k->image_nonce, sizeof(k->image_nonce));
        dmo_put_le64(nonce + sizeof(k->image_nonce), ad->index);

        uint8_t *p = out;
        memcpy(p, k->binding, sizeof(k->binding));
        p += sizeof(k->binding);
        dmo_put_le64(p, ad->index);
        dmo_put_le32(p + 8, ad->npages);
        dmo_put_le64(p + 12, ad->zero_map);
        dmo_put_le32(p + 20, ad->flags);
        dmo_put_le32(p + 24, ad->plain_len);
}

/* AES-GCM's 12-byte nonce: the image nonce's first 4 bytes || the index.
 * The key is fresh for every image, so the index alone keeps it unique. */
static void aes_nonce(const uint8_t nonce[DMO_CRYPTO_NONCE_LEN],
                      uint8_t out[crypto_aead_aes256gcm_NPUBBYTES])
{
        memcpy(out, nonce, 4);
        memcpy(out + 4, nonce + DMO_CRYPTO_IMAGE_NONCE_LEN, 8);
}

int dmo_crypto_chunk_seal(const struct dmo_crypto_key *k, const struct dmo_crypto_chunk_ad *ad,
                          uint8_t *buf)
{
        uint8_t nonce[DMO_CRYPTO_NONCE_LEN], adb[CHUNK_AD_LEN];

        chunk_nonce_ad(k, ad, nonce, adb);
        switch (k->cipher) {
        case DMO_CHUNK_CIPHER_XCHACHA20POLY1305:
                crypto_aead_xchacha20poly1305_ietf_encrypt_detached(
                    buf, buf + ad->plain_len, NULL, buf, ad->plain_len, adb, sizeof(adb), NULL,
                    nonce, k->key);
                return 0;
        case DMO_CHUNK_CIPHER_AES256GCM: {
                uint8_t n12[crypto_aead_aes256gcm_NPUBBYTES];
                aes_nonce(nonce, n12);
                crypto_aead_aes256gcm_encrypt_detached_afternm(buf, buf + ad->plain_len, NULL, buf,
                                                               ad->plain_len, adb, sizeof(adb),
                                                               NULL, n12, &k->aes);
                return 0;
        }
        default:
                return -EINVAL; /* not bound */
        }
}

int dmo_crypto_chunk_open(const struct dmo_crypto_key *k, const struct dmo_crypto_chunk_ad *ad,
                          uint8_t *buf)
{
        uint8_t nonce[DMO_CRYPTO_NONCE_LEN], adb[CHUNK_AD_LEN];
        int r;

        chunk_nonce_ad(k, ad, nonce, adb);
        switch (k->cipher) {
        case DMO_CHUNK_CIPHER_XCHACHA20POLY1305:
                r = crypto_aead_xchacha20poly1305_ietf_decrypt_detached(
                    buf, NULL, buf, ad->plain_len, buf + ad->plain_len, adb, sizeof(adb), nonce,
                    k->key);
                break;
        case DMO_CHUNK_CIPHER_AES256GCM: {
                uint8_t n12[crypto_aead_aes256gcm_NPUBBYTES];
                aes_nonce(nonce, n12);
                r = crypto_aead_aes256gcm_decrypt_detached_afternm(buf, NULL, buf, ad->plain_len,
                                                                   buf + ad->plain_len, adb,
                                                                   sizeof(adb), n12, &k->aes);
                break;
        }
        default:
                return -EINVAL; /* not bound */
        }
        return r != 0 ? -EBADMSG : 0;
}

/* ---- MAC ---- */

void dmo_crypto_mac_begin(struct dmo_crypto_key *k)
{
        crypto_generichash_init(&k->mac, k->mac_key, sizeof(k->mac_key), DMO_CRYPTO_MAC_LEN);
}

void dmo_crypto_mac_update(struct dmo_crypto_key *k, const void *data, size_t len)
{
        crypto_generichash_update(&k->mac, data, len);
}

void dmo_crypto_mac_end(struct dmo_crypto_key *k, uint8_t mac[DMO_CRYPTO_MAC_LEN])
{
        crypto_generichash_final(&k->mac, mac, DMO_CRYPTO_MAC_LEN);
}

int dmo_crypto_mac_verify(struct dmo_crypto_key *k, const uint8_t mac[DMO_CRYPTO_MAC_LEN])
{
        uint8_t got[DMO_CRYPTO_MAC_LEN];
        dmo_crypto_mac_end(k, got);
        int r = sodium_memcmp(got, mac, sizeof(got)) == 0 ? 0 : -EBADMSG;
        sodium_memzero(got, sizeof(got));
        return r;
}

/* ---- key pairs ---- */

int dmo_crypto_keypair_new(struct dmo_crypto_keypair **out)
{
        if (!sodium_ready())
                return -EIO;
        struct dmo_crypto_keypair *kp = sodium_malloc(sizeof(*kp));
        if (!kp)
                return -ENOMEM;
        crypto_box_keypair(kp->pk, kp->sk);
        *out = kp;
        return 0;
}

void dmo_crypto_keypair_free(struct dmo_crypto_keypair *kp)
{
        if (kp)
                sodium_free(kp);
}

void dmo_crypto_keypair_public(const struct dmo_crypto_keypair *kp,
                               uint8_t pk[DMO_CRYPTO_PUBKEY_LEN])
{
        memcpy(pk, kp->pk, sizeof(kp->pk));
}

/* Secret-key file: magic(8) ops(8) mem(8) salt(16) nonce(24) pk(32), all of
 * it additional data, then the encrypted secret key with its tag (48). */
#define SK_OFF_OPS   8
#define SK_OFF_MEM   16
#define SK_OFF_SALT  24
#define SK_OFF_NONCE (SK_OFF_SALT + DMO_CRYPTO_SALT_LEN)
#define SK_OFF_PK    (SK_OFF_NONCE + DMO_CRYPTO_NONCE_LEN)
#define SK_OFF_BOX   (SK_OFF_PK + DMO_CRYPTO_PUBKEY_LEN)
_Static_assert(SK_OFF_BOX + crypto_box_SECRETKEYBYTES + DMO_CRYPTO_TAG_LEN ==
                   DMO_CRYPTO_SECRET_FILE_LEN,
               "secret-key file size");

int dmo_crypto_secret_seal(const struct dmo_crypto_keypair *kp, const char *pass, size_t pass_len,
                           const struct dmo_kdf_costs *costs,
                           uint8_t out[DMO_CRYPTO_SECRET_FILE_LEN])
{
        uint8_t *kek;

        memset(out, 0, DMO_CRYPTO_SECRET_FILE_LEN);
        memcpy(out, secret_magic, sizeof(secret_magic));
        dmo_put_le64(out + SK_OFF_OPS, costs->opslimit);
        dmo_put_le64(out + SK_OFF_MEM, costs->memlimit);
        randombytes_buf(out + SK_OFF_SALT, DMO_CRYPTO_SALT_LEN);
        randombytes_buf(out + SK_OFF_NONCE, DMO_CRYPTO_NONCE_LEN);
        memcpy(out + SK_OFF_PK, kp->pk, sizeof(kp->pk));
        int r =
            derive_kek(pass, pass_len, out + SK_OFF_SALT, costs->opslimit, costs->memlimit, &kek);
        if (r < 0)
                return r;
        crypto_aead_xchacha20poly1305_ietf_encrypt(out + SK_OFF_BOX, NULL, kp->sk, sizeof(kp->sk),
                                                   out, SK_OFF_BOX, NULL, out + SK_OFF_NONCE, kek);
        sodium_free(kek);
        return 0;
}

int dmo_crypto_secret_open(const uint8_t *file, size_t len, const char *pass, size_t pass_len,
                           struct dmo_crypto_keypair **out)
{
        uint8_t *kek;

        if (len != DMO_CRYPTO_SECRET_FILE_LEN || memcmp(file, secret_magic, sizeof(secret_magic)))
                return -EBADMSG;
        struct dmo_kdf_costs c = {dmo_get_le64(file + SK_OFF_OPS), dmo_get_le64(file + SK_OFF_MEM)};
        if (dmo_kdf_costs_check(&c) < 0)
                return -EBADMSG;
        if (!sodium_ready())
                return -EIO;
        struct dmo_crypto_keypair *kp = sodium_malloc(sizeof(*kp));
        if (!kp)
                return -ENOMEM;
        int r = derive_kek(pass, pass_len, file + SK_OFF_SALT, c.opslimit, c.memlimit, &kek);
        if (r < 0) {
                sodium_free(kp);
                return r;
        }
        r = crypto_aead_xchacha20poly1305_ietf_decrypt(
            kp->sk, NULL, NULL, file + SK_OFF_BOX, crypto_box_SECRETKEYBYTES + DMO_CRYPTO_TAG_LEN,
            file, SK_OFF_BOX, file + SK_OFF_NONCE, kek);
        sodium_free(kek);
        uint8_t pk[crypto_box_PUBLICKEYBYTES];
        /* The stored public key is authenticated; it must also belong to the secret one. */
        if (r == 0)
                r = crypto_scalarmult_base(pk, kp->sk);
        if (r != 0 || sodium_memcmp(pk, file + SK_OFF_PK, sizeof(pk)) != 0) {
                sodium_free(kp);
                return -EKEYREJECTED;
        }
        memcpy(kp->pk, pk, sizeof(pk));
        *out = kp;
        return 0;
}

void dmo_crypto_pubkey_format(const uint8_t pk[DMO_CRYPTO_PUBKEY_LEN], char *buf)
{
        size_t n = sizeof(pubkey_prefix) - 1;
        memcpy(buf, pubkey_prefix, n);
        sodium_bin2hex(buf + n, 2 * DMO_CRYPTO_PUBKEY_LEN + 1, pk, DMO_CRYPTO_PUBKEY_LEN);
        buf[n + 2 * DMO_CRYPTO_PUBKEY_LEN] = '\n';
        buf[n + 2 * DMO_CRYPTO_PUBKEY_LEN + 1] = '\0';
}

int dmo_crypto_pubkey_parse(const char *text, size_t len, uint8_t pk[DMO_CRYPTO_PUBKEY_LEN])
{
        size_t n = sizeof(pubkey_prefix) - 1;
        while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' '))
                len--;
        if (len != n + 2 * DMO_CRYPTO_PUBKEY_LEN || memcmp(text, pubkey_prefix, n) != 0)
                return -EBADMSG;
        size_t got;
        const char *end;
        if (sodium_hex2bin(pk, DMO_CRYPTO_PUBKEY_LEN, text + n, 2 * DMO_CRYPTO_PUBKEY_LEN, NULL,
                           &got, &end) != 0 ||
            got != DMO_CRYPTO_PUBKEY_LEN || end != text + len)
                return -EBADMSG;
        return 0;
}

int dmo_crypto_secret_buf_new(size_t cap, char **out)
{
        if (!sodium_ready())
                return -EIO;
        char *b = sodium_malloc(cap);
        if (!b)
                return -ENOMEM;
        sodium_memzero(b, cap);
        *out = b;
        return 0;
}

void dmo_crypto_secret_buf_free(char *buf)
{
        if (buf)
                sodium_free(buf);
}
