/* The TPM module against a software TPM: a sealed secret comes back only
 * on the same TPM with the same PCRs (and PIN), the refusals say which, and
 * the counter only goes up. */
#include "keys/tpm.h"
#include "keys/keys.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/testlib.h"
#include "tests/tpm-testutil.h"

static const uint8_t secret[32] = "an image key of thirty-two bytes";

struct sealed {
        uint8_t blob[DMO_TPM_BLOB_MAX];
        size_t len;
};

static struct dmo_tpm *open_tpm(const struct dmo_test_swtpm *sw)
{
        struct dmo_tpm *t = NULL;
        int r = dmo_tpm_open(sw->tcti, &t);
        if (r < 0)
                printf("# dmo_tpm_open(%s): %s\n", sw->tcti, strerror(-r));
        return t;
}

static void sealed_secret_comes_back_on_the_same_tpm(void)
{
        struct dmo_test_swtpm sw;
        struct sealed s;
        uint8_t out[64];
        size_t n = 0;
        REQUIRE(dmo_test_swtpm_start(&sw) == 0);
        struct dmo_tpm *t = open_tpm(&sw);
        if (t) {
                CHECK_INT(dmo_tpm_seal(t, secret, sizeof(secret), DMO_KEYS_TPM_PCRS_DEFAULT, NULL,
                                       0, s.blob, &s.len),
                          ==, 0);
                CHECK(s.len > 0 && s.len <= DMO_TPM_BLOB_MAX);
                CHECK_INT(dmo_tpm_unseal(t, s.blob, s.len, DMO_KEYS_TPM_PCRS_DEFAULT, NULL, 0, out,
                                         sizeof(out), &n),
                          ==, 0);
                CHECK_INT(n, ==, sizeof(secret));
                CHECK(memcmp(out, secret, sizeof(secret)) == 0);
        }
        CHECK(t != NULL);
        dmo_tpm_free(t);
        dmo_test_swtpm_stop(&sw);
}

static void changed_pcr_refuses_and_leaves_the_blob(void)
{
        struct dmo_test_swtpm sw;
        struct sealed s, copy;
        uint8_t out[64];
        size_t n = 0;
        REQUIRE(dmo_test_swtpm_start(&sw) == 0);
        struct dmo_tpm *t = open_tpm(&sw);
        if (t) {
                REQUIRE(dmo_tpm_seal(t, secret, sizeof(secret), (1u << 7) | (1u << 8), NULL, 0,
                                     s.blob, &s.len) == 0);
                copy = s;
                CHECK_INT(dmo_test_swtpm_extend_pcr(&sw, 8), ==, 0);
                CHECK_INT(dmo_tpm_unseal(t, s.blob, s.len, (1u << 7) | (1u << 8), NULL, 0, out,
                                         sizeof(out), &n),
                          ==, -EKEYREJECTED);
                CHECK(memcmp(&s, &copy, sizeof(s)) == 0);
                /* The refusal used nothing up: asked again, the TPM refuses
                 * the same way (no lockout, no other error). */
                CHECK_INT(dmo_tpm_unseal(t, s.blob, s.len, (1u << 7) | (1u << 8), NULL, 0, out,
                                         sizeof(out), &n),
                          ==, -EKEYREJECTED);
                /* A PCR outside the policy changes nothing. */
                REQUIRE(dmo_tpm_seal(t, secret, sizeof(secret), 1u << 7, NULL, 0, s.blob, &s.len) ==
                        0);
                CHECK_INT(dmo_test_swtpm_extend_pcr(&sw, 9), ==, 0);
                CHECK_INT(dmo_tpm_unseal(t, s.blob, s.len, 1u << 7, NULL, 0, out, sizeof(out), &n),
                          ==, 0);
        }
        CHECK(t != NULL);
        dmo_tpm_free(t);
        dmo_test_swtpm_stop(&sw);
}

static void wrong_pin_refuses_right_pin_unseals(void)
{
        struct dmo_test_swtpm sw;
        struct sealed s, copy;
        uint8_t out[64];
        size_t n = 0;
        REQUIRE(dmo_test_swtpm_start(&sw) == 0);
        struct dmo_tpm *t = open_tpm(&sw);
        if (t) {
                REQUIRE(dmo_tpm_seal(t, secret, sizeof(secret), DMO_KEYS_TPM_PCRS_DEFAULT, "1234",
                                     4, s.blob, &s.len) == 0);
                copy = s;
                CHECK_INT(dmo_tpm_unseal(t, s.blob, s.len, DMO_KEYS_TPM_PCRS_DEFAULT, "1235", 4,
                                         out, sizeof(out), &n),
                          ==, -EACCES);
                CHECK(memcmp(&s, &copy, sizeof(s)) == 0);
                CHECK_INT(dmo_tpm_unseal(t, s.blob, s.len, DMO_KEYS_TPM_PCRS_DEFAULT, "1234", 4,
                                         out, sizeof(out), &n),
                          ==, 0);
                CHECK(n == sizeof(secret) && memcmp(out, secret, n) == 0);
        }
        CHECK(t != NULL);
        dmo_tpm_free(t);
        dmo_test_swtpm_stop(&sw);
}

static void another_tpm_refuses(void)
{
        struct dmo_test_swtpm a, b;
        struct sealed s;
        uint8_t out[64];
        size_t n = 0;
        REQUIRE(dmo_test_swtpm_start(&a) == 0);
        struct dmo_tpm *t = open_tpm(&a);
        int r = t ? dmo_tpm_seal(t, secret, sizeof(secret), DMO_KEYS_TPM_PCRS_DEFAULT, NULL, 0,
                                 s.blob, &s.len)
                  : -ENODEV;
        dmo_tpm_free(t);
        dmo_test_swtpm_stop(&a);
        REQUIRE(r == 0);
        REQUIRE(dmo_test_swtpm_start(&b) == 0);
        t = open_tpm(&b);
        if (t)
                CHECK_INT(dmo_tpm_unseal(t, s.blob, s.len, DMO_KEYS_TPM_PCRS_DEFAULT, NULL, 0, out,
                                         sizeof(out), &n),
                          ==, -EKEYREJECTED);
        CHECK(t != NULL);
        dmo_tpm_free(t);
        dmo_test_swtpm_stop(&b);
}

static void absent_tpm_is_enodev(void)
{
        char tcti[600];
        struct dmo_tpm *t = NULL;
        dmo_test_swtpm_absent_tcti(tcti, sizeof(tcti));
        CHECK_INT(dmo_tpm_open(tcti, &t), ==, -ENODEV);
        CHECK(t == NULL);
}

static void garbage_blob_is_ebadmsg(void)
{
        struct dmo_test_swtpm sw;
        uint8_t junk[40], out[64];
        size_t n = 0;
        memset(junk, 0xff, sizeof(junk));
        REQUIRE(dmo_test_swtpm_start(&sw) == 0);
        struct dmo_tpm *t = open_tpm(&sw);
        if (t)
                CHECK_INT(dmo_tpm_unseal(t, junk, sizeof(junk), DMO_KEYS_TPM_PCRS_DEFAULT, NULL, 0,
                                         out, sizeof(out), &n),
                          ==, -EBADMSG);
        CHECK(t != NULL);
        dmo_tpm_free(t);
        dmo_test_swtpm_stop(&sw);
}

static void counter_only_goes_up(void)
{
        struct dmo_test_swtpm sw;
        uint64_t v0 = 0, v1 = 0, v2 = 0;
        REQUIRE(dmo_test_swtpm_start(&sw) == 0);
        struct dmo_tpm *t = open_tpm(&sw);
        if (t) {
                const uint32_t idx = DMO_KEYS_TPM_COUNTER_DEFAULT;
                CHECK_INT(dmo_tpm_counter_read(t, idx, &v0), ==, -ENOENT);
                CHECK_INT(dmo_tpm_counter_define(t, idx), ==, 0);
                CHECK_INT(dmo_tpm_counter_define(t, idx), ==, -EEXIST);
                CHECK_INT(dmo_tpm_counter_read(t, idx, &v0), ==, 0);
                CHECK_INT(dmo_tpm_counter_increment(t, idx, &v1), ==, 0);
                CHECK_INT(dmo_tpm_counter_read(t, idx, &v2), ==, 0);
                CHECK(v1 == v0 + 1 && v2 == v1);
                CHECK_INT(dmo_tpm_counter_define(t, 0x81000001u), ==, -EINVAL);
        }
        CHECK(t != NULL);
        dmo_tpm_free(t);
        dmo_test_swtpm_stop(&sw);
}

static void pcr_lists_parse_as_systemd_writes_them(void)
{
        uint32_t m = 0;
        char buf[64];
        CHECK_INT(dmo_keys_pcrs_parse("7", &m), ==, 0);
        CHECK_INT(m, ==, 1u << 7);
        CHECK_INT(dmo_keys_pcrs_parse("0+7", &m), ==, 0);
        CHECK_INT(m, ==, (1u << 0) | (1u << 7));
        CHECK_INT(dmo_keys_pcrs_parse("0,2,7,23", &m), ==, 0);
        CHECK_INT(m, ==, (1u << 0) | (1u << 2) | (1u << 7) | (1u << 23));
        CHECK_INT(dmo_keys_pcrs_parse("", &m), ==, 0);
        CHECK_INT(m, ==, 0);
        CHECK_INT(dmo_keys_pcrs_parse("24", &m), ==, -EINVAL);
        CHECK_INT(dmo_keys_pcrs_parse("7+", &m), ==, -EINVAL);
        CHECK_INT(dmo_keys_pcrs_parse("+7", &m), ==, -EINVAL);
        CHECK_INT(dmo_keys_pcrs_parse("seven", &m), ==, -EINVAL);
        CHECK_INT(dmo_keys_pcrs_parse("99999999999", &m), ==, -EINVAL);
        dmo_keys_pcrs_format((1u << 0) | (1u << 7) | (1u << 14), buf, sizeof(buf));
        CHECK(strcmp(buf, "0+7+14") == 0);
}

int main(void)
{
        static const struct dmo_test_case cases[] = {
            T(pcr_lists_parse_as_systemd_writes_them),
            T(absent_tpm_is_enodev),
            T(sealed_secret_comes_back_on_the_same_tpm),
            T(changed_pcr_refuses_and_leaves_the_blob),
            T(wrong_pin_refuses_right_pin_unseals),
            T(another_tpm_refuses),
            T(garbage_blob_is_ebadmsg),
            T(counter_only_goes_up),
        };
        const char *why = NULL;
        if (!dmo_test_swtpm_available(&why)) {
                printf("1..0 # SKIP %s\n", why);
                return 0;
        }
        return dmo_test_run(cases, sizeof(cases) / sizeof(cases[0]));
}
