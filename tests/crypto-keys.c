#include "crypto/crypto.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tests/testlib.h"

/* The smallest costs libsodium accepts keep the tests fast; the real
 * defaults are measured by bench-codec. */
static const struct dmo_kdf_costs cheap = {1, 8192};

static const char pass[] = "correct horse battery staple";
static const char wrong[] = "correct horse battery stapler";

static const uint8_t section_a[] = "encryption section of image A";
static const uint8_t section_b[] = "encryption section of image B";

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
        for (size_t i = 0; i < n; i++) {
                seed = seed * 1103515245u + 12345u;
                p[i] = (uint8_t)(seed >> 16);
        }
}

static void passphrase_wraps_and_unwraps_the_image_key(void)
{
        struct dmo_crypto_key *k, *back = NULL;
        struct dmo_crypto_envelope env;
        REQUIRE(dmo_crypto_init() == 0);
        REQUIRE(dmo_crypto_key_new(&k) == 0);
        CHECK_INT(dmo_crypto_wrap_passphrase(k, pass, strlen(pass), &cheap, &env), ==, 0);
        CHECK_INT(env.mode, ==, DMO_ENCRYPT_PASSPHRASE);
        CHECK_INT(env.wrapped_len, ==, 48);
        CHECK_INT(dmo_crypto_envelope_check(&env), ==, 0);
        CHECK_INT(dmo_crypto_unwrap_passphrase(&env, wrong, strlen(wrong), &back), ==,
                  -EKEYREJECTED);
        CHECK(back == NULL);
        CHECK_INT(dmo_crypto_unwrap_passphrase(&env, pass, strlen(pass), &back), ==, 0);
        REQUIRE(back);

        /* The unwrapped key opens what the original sealed. */
        const enum dmo_chunk_cipher c = dmo_crypto_cipher_preferred();
        REQUIRE(dmo_crypto_key_bind(k, c, section_a, sizeof(section_a)) == 0);
        REQUIRE(dmo_crypto_key_bind(back, c, section_a, sizeof(section_a)) == 0);
        uint8_t buf[256 + DMO_CRYPTO_TAG_LEN], plain[256];
        fill(plain, sizeof(plain), 1);
        memcpy(buf, plain, sizeof(plain));
        struct dmo_crypto_chunk_ad ad = {.index = 7, .npages = 3, .plain_len = sizeof(plain)};
        CHECK_INT(dmo_crypto_chunk_seal(k, &ad, buf), ==, 0);
        CHECK(memcmp(buf, plain, sizeof(plain)) != 0);
        CHECK_INT(dmo_crypto_chunk_open(back, &ad, buf), ==, 0);
        CHECK(memcmp(buf, plain, sizeof(plain)) == 0);
        dmo_crypto_key_free(back);
        dmo_crypto_key_free(k);
}

/* The costs, salt and nonces are authenticated with the wrapped key: an
 * attacker cannot lower the costs to make guessing cheaper, nor swap the
 * image nonce. */
static void altered_envelope_is_rejected(void)
{
        struct dmo_crypto_key *k, *back = NULL;
        struct dmo_crypto_envelope env, bad;
        REQUIRE(dmo_crypto_init() == 0);
        REQUIRE(dmo_crypto_key_new(&k) == 0);
        struct dmo_kdf_costs two = {2, 8192};
        REQUIRE(dmo_crypto_wrap_passphrase(k, pass, strlen(pass), &two, &env) == 0);

        bad = env;
        bad.opslimit = 1;
        CHECK_INT(dmo_crypto_unwrap_passphrase(&bad, pass, strlen(pass), &back), ==, -EKEYREJECTED);
        bad = env;
        bad.image_nonce[3] ^= 1;
        CHECK_INT(dmo_crypto_unwrap_passphrase(&bad, pass, strlen(pass), &back), ==, -EKEYREJECTED);
        for (unsigned i = 0; i < env.wrapped_len; i += 7) {
                bad = env;
                bad.wrapped[i] ^= 0x20;
                CHECK_INT(dmo_crypto_unwrap_passphrase(&bad, pass, strlen(pass), &back), ==,
                          -EKEYREJECTED);
        }
        bad = env;
        bad.memlimit = 1024; /* below libsodium's minimum */
        CHECK_INT(dmo_crypto_unwrap_passphrase(&bad, pass, strlen(pass), &back), ==, -EINVAL);
        bad = env;
        bad.wrapped_len = 80;
        CHECK_INT(dmo_crypto_envelope_check(&bad), ==, -EINVAL);
        bad.mode = 9;
        CHECK_INT(dmo_crypto_envelope_check(&bad), ==, -EINVAL);
        CHECK(back == NULL);
        dmo_crypto_key_free(k);
}

static void every_image_gets_a_fresh_key(void)
{
        struct dmo_crypto_key *a, *b;
        struct dmo_crypto_envelope ea, eb;
        REQUIRE(dmo_crypto_init() == 0);
        REQUIRE(dmo_crypto_key_new(&a) == 0 && dmo_crypto_key_new(&b) == 0);
        REQUIRE(dmo_crypto_wrap_passphrase(a, pass, strlen(pass), &cheap, &ea) == 0);
        REQUIRE(dmo_crypto_wrap_passphrase(b, pass, strlen(pass), &cheap, &eb) == 0);
        CHECK(memcmp(ea.salt, eb.salt, sizeof(ea.salt)) != 0);
        CHECK(memcmp(ea.image_nonce, eb.image_nonce, sizeof(ea.image_nonce)) != 0);
        CHECK(memcmp(ea.wrapped, eb.wrapped, ea.wrapped_len) != 0);

        /* Same plaintext, same index: different ciphertext. */
        const enum dmo_chunk_cipher c = dmo_crypto_cipher_preferred();
        REQUIRE(dmo_crypto_key_bind(a, c, section_a, sizeof(section_a)) == 0);
        REQUIRE(dmo_crypto_key_bind(b, c, section_a, sizeof(section_a)) == 0);
        uint8_t x[64 + DMO_CRYPTO_TAG_LEN] = {0}, y[64 + DMO_CRYPTO_TAG_LEN] = {0};
        struct dmo_crypto_chunk_ad ad = {.index = 0, .npages = 1, .plain_len = 64};
        dmo_crypto_chunk_seal(a, &ad, x);
        dmo_crypto_chunk_seal(b, &ad, y);
        CHECK(memcmp(x, y, sizeof(x)) != 0);
        dmo_crypto_key_free(a);
        dmo_crypto_key_free(b);
}

static void public_key_mode_round_trip(void)
{
        struct dmo_crypto_keypair *kp, *other, *opened = NULL;
        struct dmo_crypto_key *k, *back = NULL;
        struct dmo_crypto_envelope env;
        uint8_t pk[DMO_CRYPTO_PUBKEY_LEN], file[DMO_CRYPTO_SECRET_FILE_LEN];
        REQUIRE(dmo_crypto_init() == 0);
        REQUIRE(dmo_crypto_keypair_new(&kp) == 0 && dmo_crypto_keypair_new(&other) == 0);
        dmo_crypto_keypair_public(kp, pk);
        REQUIRE(dmo_crypto_key_new(&k) == 0);
        CHECK_INT(dmo_crypto_wrap_pubkey(k, pk, &env), ==, 0);
        CHECK_INT(env.mode, ==, DMO_ENCRYPT_PUBKEY);
        CHECK_INT(dmo_crypto_envelope_check(&env), ==, 0);
        CHECK_INT(dmo_crypto_unwrap_keypair(&env, other, &back), ==, -EKEYREJECTED);

        /* The secret key travels encrypted under a passphrase. */
        REQUIRE(dmo_crypto_secret_seal(kp, pass, strlen(pass), &cheap, file) == 0);
        CHECK_INT(dmo_crypto_secret_open(file, sizeof(file), wrong, strlen(wrong), &opened), ==,
                  -EKEYREJECTED);
        CHECK_INT(dmo_crypto_secret_open(file, sizeof(file) - 1, pass, strlen(pass), &opened), ==,
                  -EBADMSG);
        uint8_t bad[sizeof(file)];
        memcpy(bad, file, sizeof(file));
        bad[60] ^= 4; /* inside the stored public key */
        CHECK_INT(dmo_crypto_secret_open(bad, sizeof(bad), pass, strlen(pass), &opened), ==,
                  -EKEYREJECTED);
        REQUIRE(dmo_crypto_secret_open(file, sizeof(file), pass, strlen(pass), &opened) == 0);
        CHECK_INT(dmo_crypto_unwrap_keypair(&env, opened, &back), ==, 0);
        REQUIRE(back);

        const enum dmo_chunk_cipher c = dmo_crypto_cipher_preferred();
        REQUIRE(dmo_crypto_key_bind(k, c, section_a, sizeof(section_a)) == 0);
        REQUIRE(dmo_crypto_key_bind(back, c, section_a, sizeof(section_a)) == 0);
        uint8_t buf[100 + DMO_CRYPTO_TAG_LEN];
        fill(buf, 100, 5);
        struct dmo_crypto_chunk_ad ad = {.index = 1, .npages = 1, .plain_len = 100};
        dmo_crypto_chunk_seal(k, &ad, buf);
        CHECK_INT(dmo_crypto_chunk_open(back, &ad, buf), ==, 0);

        dmo_crypto_key_free(back);
        dmo_crypto_key_free(k);
        dmo_crypto_keypair_free(opened);
        dmo_crypto_keypair_free(other);
        dmo_crypto_keypair_free(kp);
}

static void public_key_text_round_trip_and_refusals(void)
{
        uint8_t pk[DMO_CRYPTO_PUBKEY_LEN], back[DMO_CRYPTO_PUBKEY_LEN];
        char text[DMO_CRYPTO_PUBKEY_TEXT_LEN + 1];
        fill(pk, sizeof(pk), 9);
        dmo_crypto_pubkey_format(pk, text);
        CHECK_INT(strlen(text), ==, DMO_CRYPTO_PUBKEY_TEXT_LEN);
        CHECK_INT(dmo_crypto_pubkey_parse(text, strlen(text), back), ==, 0);
        CHECK(memcmp(pk, back, sizeof(pk)) == 0);
        CHECK_INT(dmo_crypto_pubkey_parse(text, strlen(text) - 2, back), ==, -EBADMSG);
        text[30] = 'x';
        CHECK_INT(dmo_crypto_pubkey_parse(text, strlen(text), back), ==, -EBADMSG);
        CHECK_INT(dmo_crypto_pubkey_parse("dormouse-pubkey-2 00", 20, back), ==, -EBADMSG);
}

struct sealed {
        uint8_t buf[512 + DMO_CRYPTO_TAG_LEN];
        struct dmo_crypto_chunk_ad ad;
};

static void seal_one(struct dmo_crypto_key *k, struct sealed *s, uint64_t index)
{
        fill(s->buf, 512, (uint32_t)index + 100);
        s->ad = (struct dmo_crypto_chunk_ad){
            .index = index, .npages = 2, .zero_map = 0x2, .flags = 1, .plain_len = 512};
        dmo_crypto_chunk_seal(k, &s->ad, s->buf);
}

static int open_copy(struct dmo_crypto_key *k, const struct sealed *s,
                     const struct dmo_crypto_chunk_ad *ad)
{
        struct sealed c = *s;
        return dmo_crypto_chunk_open(k, ad, c.buf);
}

/* Every single flipped bit, in the ciphertext or the tag, is caught. */
static void any_flipped_bit_fails_authentication(enum dmo_chunk_cipher cipher)
{
        struct dmo_crypto_key *k;
        REQUIRE(dmo_crypto_init() == 0 && dmo_crypto_key_new(&k) == 0);
        REQUIRE(dmo_crypto_key_bind(k, cipher, section_a, sizeof(section_a)) == 0);
        struct sealed s;
        seal_one(k, &s, 3);
        CHECK_INT(open_copy(k, &s, &s.ad), ==, 0);
        unsigned caught = 0, total = 0;
        for (size_t i = 0; i < sizeof(s.buf); i++)
                for (int bit = 0; bit < 8; bit++) {
                        struct sealed c = s;
                        c.buf[i] ^= (uint8_t)(1u << bit);
                        total++;
                        caught += dmo_crypto_chunk_open(k, &c.ad, c.buf) == -EBADMSG;
                }
        CHECK_INT(caught, ==, total);
        dmo_crypto_key_free(k);
}

/* The reader authenticates chunk i with index i: a chunk moved elsewhere in
 * the stream (reordered, dropped so its successor moves up, replayed) or
 * with any other field changed does not open. */
static void chunk_in_the_wrong_place_or_with_altered_fields_fails(enum dmo_chunk_cipher cipher)
{
        struct dmo_crypto_key *k;
        REQUIRE(dmo_crypto_init() == 0 && dmo_crypto_key_new(&k) == 0);
        REQUIRE(dmo_crypto_key_bind(k, cipher, section_a, sizeof(section_a)) == 0);
        struct sealed s[4];
        for (unsigned i = 0; i < 4; i++)
                seal_one(k, &s[i], i);
        for (unsigned i = 0; i < 4; i++)
                for (unsigned pos = 0; pos < 4; pos++) {
                        struct dmo_crypto_chunk_ad ad = s[i].ad;
                        ad.index = pos;
                        CHECK_INT(open_copy(k, &s[i], &ad), ==, i == pos ? 0 : -EBADMSG);
                }
        struct dmo_crypto_chunk_ad ad = s[1].ad;
        ad.npages = 3;
        CHECK_INT(open_copy(k, &s[1], &ad), ==, -EBADMSG);
        ad = s[1].ad;
        ad.zero_map = 0;
        CHECK_INT(open_copy(k, &s[1], &ad), ==, -EBADMSG);
        ad = s[1].ad;
        ad.flags = 0;
        CHECK_INT(open_copy(k, &s[1], &ad), ==, -EBADMSG);
        ad = s[1].ad;
        ad.plain_len = 511; /* a truncated chunk */
        CHECK_INT(open_copy(k, &s[1], &ad), ==, -EBADMSG);
        dmo_crypto_key_free(k);
}

/* A chunk of another image fails: another key, or (same key, which never
 * happens, but the binding must still hold) another encryption section. */
static void chunk_from_another_image_fails(enum dmo_chunk_cipher cipher)
{
        struct dmo_crypto_key *a, *b;
        REQUIRE(dmo_crypto_init() == 0);
        REQUIRE(dmo_crypto_key_new(&a) == 0 && dmo_crypto_key_new(&b) == 0);
        REQUIRE(dmo_crypto_key_bind(a, cipher, section_a, sizeof(section_a)) == 0);
        REQUIRE(dmo_crypto_key_bind(b, cipher, section_a, sizeof(section_a)) == 0);
        struct sealed s;
        seal_one(b, &s, 0);
        CHECK_INT(open_copy(a, &s, &s.ad), ==, -EBADMSG);
        seal_one(a, &s, 0);
        CHECK_INT(open_copy(a, &s, &s.ad), ==, 0);
        REQUIRE(dmo_crypto_key_bind(a, cipher, section_b, sizeof(section_b)) == 0);
        CHECK_INT(open_copy(a, &s, &s.ad), ==, -EBADMSG);
        dmo_crypto_key_free(a);
        dmo_crypto_key_free(b);
}

/* The chunk tests run with each cipher; AES-256-GCM only where the CPU has
 * it (libsodium has no software AES). */
static bool aes_here(void)
{
        if (dmo_crypto_cipher_available(DMO_CHUNK_CIPHER_AES256GCM))
                return true;
        printf("# AES-256-GCM: this CPU lacks AES/CLMUL instructions, not tested here\n");
        return false;
}

#define WITH_EACH_CIPHER(name)                                                                     \
        static void name##_xchacha20poly1305(void)                                                 \
        {                                                                                          \
                name(DMO_CHUNK_CIPHER_XCHACHA20POLY1305);                                          \
        }                                                                                          \
        static void name##_aes256gcm(void)                                                         \
        {                                                                                          \
                if (aes_here())                                                                    \
                        name(DMO_CHUNK_CIPHER_AES256GCM);                                          \
        }

WITH_EACH_CIPHER(any_flipped_bit_fails_authentication)
WITH_EACH_CIPHER(chunk_in_the_wrong_place_or_with_altered_fields_fails)
WITH_EACH_CIPHER(chunk_from_another_image_fails)

/* The two ciphers are not interchangeable, an unknown one is refused, and
 * a key that was never bound seals nothing. */
static void ciphers_are_distinct_and_checked(void)
{
        struct dmo_crypto_key *k;
        REQUIRE(dmo_crypto_init() == 0 && dmo_crypto_key_new(&k) == 0);
        struct sealed s;
        fill(s.buf, 512, 9);
        s.ad = (struct dmo_crypto_chunk_ad){.index = 0, .npages = 1, .plain_len = 512};
        CHECK_INT(dmo_crypto_chunk_seal(k, &s.ad, s.buf), ==, -EINVAL);
        CHECK_INT(dmo_crypto_key_bind(k, DMO_CHUNK_CIPHER_NONE, section_a, sizeof(section_a)), ==,
                  -EINVAL);
        CHECK_INT(dmo_crypto_key_bind(k, 3, section_a, sizeof(section_a)), ==, -EINVAL);
        CHECK(dmo_crypto_cipher_available(DMO_CHUNK_CIPHER_XCHACHA20POLY1305));
        CHECK(dmo_crypto_cipher_available(dmo_crypto_cipher_preferred()));
        CHECK(strcmp(dmo_crypto_cipher_name(DMO_CHUNK_CIPHER_AES256GCM), "AES-256-GCM") == 0);
        if (aes_here()) {
                REQUIRE(dmo_crypto_key_bind(k, DMO_CHUNK_CIPHER_AES256GCM, section_a,
                                            sizeof(section_a)) == 0);
                seal_one(k, &s, 0);
                CHECK_INT(open_copy(k, &s, &s.ad), ==, 0);
                REQUIRE(dmo_crypto_key_bind(k, DMO_CHUNK_CIPHER_XCHACHA20POLY1305, section_a,
                                            sizeof(section_a)) == 0);
                CHECK_INT(open_copy(k, &s, &s.ad), ==, -EBADMSG);
        }
        dmo_crypto_key_free(k);
}

static void mac_detects_any_change_and_needs_the_key(void)
{
        struct dmo_crypto_key *k, *other;
        uint8_t data[300], mac[DMO_CRYPTO_MAC_LEN];
        REQUIRE(dmo_crypto_init() == 0);
        REQUIRE(dmo_crypto_key_new(&k) == 0 && dmo_crypto_key_new(&other) == 0);
        fill(data, sizeof(data), 77);
        dmo_crypto_mac_begin(k);
        dmo_crypto_mac_update(k, data, 100);
        dmo_crypto_mac_update(k, data + 100, 200);
        dmo_crypto_mac_end(k, mac);

        dmo_crypto_mac_begin(k);
        dmo_crypto_mac_update(k, data, sizeof(data));
        CHECK_INT(dmo_crypto_mac_verify(k, mac), ==, 0);
        dmo_crypto_mac_begin(other);
        dmo_crypto_mac_update(other, data, sizeof(data));
        CHECK_INT(dmo_crypto_mac_verify(other, mac), ==, -EBADMSG);
        for (size_t i = 0; i < sizeof(data); i += 13) {
                data[i] ^= 0x80;
                dmo_crypto_mac_begin(k);
                dmo_crypto_mac_update(k, data, sizeof(data));
                CHECK_INT(dmo_crypto_mac_verify(k, mac), ==, -EBADMSG);
                data[i] ^= 0x80;
        }
        /* A shorter input (a truncated header or map) does not match. */
        dmo_crypto_mac_begin(k);
        dmo_crypto_mac_update(k, data, sizeof(data) - 16);
        CHECK_INT(dmo_crypto_mac_verify(k, mac), ==, -EBADMSG);
        dmo_crypto_key_free(k);
        dmo_crypto_key_free(other);
}

static void costs_and_modes_are_checked(void)
{
        struct dmo_kdf_costs c = {DMO_KDF_OPSLIMIT_DEFAULT, DMO_KDF_MEMLIMIT_DEFAULT};
        CHECK_INT(dmo_kdf_costs_check(&c), ==, 0);
        c.opslimit = 0;
        CHECK_INT(dmo_kdf_costs_check(&c), ==, -EINVAL);
        c.opslimit = 1;
        c.memlimit = 1024;
        CHECK_INT(dmo_kdf_costs_check(&c), ==, -EINVAL);
        c.memlimit = DMO_KDF_MEMLIMIT_MAX + 1;
        CHECK_INT(dmo_kdf_costs_check(&c), ==, -EINVAL);

        enum dmo_encrypt_mode m;
        CHECK_INT(dmo_encrypt_mode_parse("passphrase", &m), ==, 0);
        CHECK_INT(m, ==, DMO_ENCRYPT_PASSPHRASE);
        CHECK_INT(dmo_encrypt_mode_parse("pubkey", &m), ==, 0);
        CHECK_INT(m, ==, DMO_ENCRYPT_PUBKEY);
        CHECK_INT(dmo_encrypt_mode_parse("none", &m), ==, 0);
        CHECK_INT(m, ==, DMO_ENCRYPT_NONE);
        CHECK_INT(dmo_encrypt_mode_parse("blowfish", &m), ==, -EINVAL);
}

static void secret_buffers_are_zeroed(void)
{
        char *b;
        REQUIRE(dmo_crypto_init() == 0 && dmo_crypto_secret_buf_new(128, &b) == 0);
        for (int i = 0; i < 128; i++)
                CHECK(b[i] == 0);
        memcpy(b, pass, sizeof(pass));
        dmo_crypto_secret_buf_free(b);
        dmo_crypto_secret_buf_free(NULL);
}

DMO_TEST_MAIN(T(passphrase_wraps_and_unwraps_the_image_key), T(altered_envelope_is_rejected),
              T(every_image_gets_a_fresh_key), T(public_key_mode_round_trip),
              T(public_key_text_round_trip_and_refusals),
              T(any_flipped_bit_fails_authentication_xchacha20poly1305),
              T(any_flipped_bit_fails_authentication_aes256gcm),
              T(chunk_in_the_wrong_place_or_with_altered_fields_fails_xchacha20poly1305),
              T(chunk_in_the_wrong_place_or_with_altered_fields_fails_aes256gcm),
              T(chunk_from_another_image_fails_xchacha20poly1305),
              T(chunk_from_another_image_fails_aes256gcm), T(ciphers_are_distinct_and_checked),
              T(mac_detects_any_change_and_needs_the_key), T(costs_and_modes_are_checked),
              T(secret_buffers_are_zeroed))
