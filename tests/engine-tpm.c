/* encrypt = tpm through the program, on the simulated kernel, against a
 * software TPM (swtpm) per case: nothing typed while the boot chain stays;
 * every refusal (a PCR changed, no TPM at resume, a wrong PIN, an image
 * restored once or an older copy) says why and leaves the image as it must
 * be; the recovery key opens what the TPM will not. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/testlib.h"
#include "tests/tpm-testutil.h"

#define run(...)      dmo_test_run_program(__VA_ARGS__)
#define output()      dmo_test_program_output()
#define show_output() dmo_test_show_program_output()

static const char *tmp(const char *name)
{
        static char path[16][512];
        static int next;
        char *p = path[next++ % 16];
        snprintf(p, 512, "%s/%s", dmo_test_tmpdir(), name);
        return p;
}

static const char *make_swap(const char *name)
{
        const char *p = tmp(name);
        if (dmo_test_sh("rm -f '%s' && truncate -s 32M '%s' && mkswap -q '%s' >/dev/null 2>&1 && "
                        "chmod 600 '%s'",
                        p, p, p, p) != 0)
                return NULL;
        return p;
}

static const char *key_file(const char *name, const char *pass)
{
        const char *p = tmp(name);
        if (dmo_test_sh("printf '%%s\\n' '%s' > '%s' && chmod 600 '%s'", pass, p, p) != 0)
                return NULL;
        return p;
}

/* A machine: its TPM, its recovery key pair, its config naming them. */
struct machine {
        struct dmo_test_swtpm tpm;
        char conf[512];
        const char *pub, *sec, *pass;
};

static int machine_up(struct machine *m, const char *name, bool enroll)
{
        char pub[64], sec[64], pass[64], conf[64];
        snprintf(pub, sizeof(pub), "%s.pub", name);
        snprintf(sec, sizeof(sec), "%s.sec", name);
        snprintf(pass, sizeof(pass), "%s.pass", name);
        snprintf(conf, sizeof(conf), "%s.conf", name);
        m->pub = tmp(pub);
        m->sec = tmp(sec);
        m->pass = key_file(pass, "recovery words for this machine");
        if (!m->pass || dmo_test_swtpm_start(&m->tpm) < 0)
                return -1;
        snprintf(m->conf, sizeof(m->conf), "%s", tmp(conf));
        if (dmo_test_sh("printf 'tpm device = %s\\npublic key = %s\\nsecret key = %s\\n"
                        "kdf ops = 1\\nkdf memory = 8M\\n' > '%s'",
                        m->tpm.tcti, m->pub, m->sec, m->conf) != 0)
                return -1;
        int rc = run("keygen --config '%s' --key-file '%s'", m->conf, m->pass);
        if (rc == 0 && enroll)
                rc = run("enroll-tpm --config '%s'", m->conf);
        if (rc != 0)
                show_output();
        return rc == 0 ? 0 : -1;
}

static void machine_down(struct machine *m)
{
        dmo_test_swtpm_stop(&m->tpm);
}

static int hibernate(const struct machine *m, const char *swap, const char *extra)
{
        int rc = run("hibernate --config '%s' --kernel sim --sim-size 4M --sim-seed 21 "
                     "--resume-device '%s' --splash none --encrypt tpm %s",
                     m->conf, swap, extra);
        if (rc != 0)
                show_output();
        return rc;
}

static int resume(const struct machine *m, const char *swap, const char *extra)
{
        return run("resume --config '%s' --kernel sim --sim-seed 21 --resume-device '%s' "
                   "--splash none %s",
                   m->conf, swap, extra);
}

/* A resume that should restore; its output shown when it did not. */
static int resume_shown(const struct machine *m, const char *swap, const char *extra)
{
        int rc = resume(m, swap, extra);
        if (rc != 0)
                show_output();
        return rc;
}

/* The image is there and sound, as `dormouse info` sees it without a key. */
static void check_intact(const char *swap)
{
        int rc = run("info '%s'", swap);
        if (rc != 0)
                show_output();
        CHECK_INT(rc, ==, 0);
        CHECK_STR_CONTAINS(output(), "TPM");
}

static void nothing_typed_on_the_same_boot_chain(void)
{
        struct machine m;
        const char *swap = make_swap("same.swap");
        REQUIRE(swap && machine_up(&m, "same", true) == 0);
        CHECK_INT(hibernate(&m, swap, ""), ==, 0);
        CHECK_INT(run("info '%s'", swap), ==, 0);
        CHECK_STR_CONTAINS(output(), "PCRs 7;");
        CHECK_STR_CONTAINS(output(), "TPM counter 0x01d0c0de must still be");
        CHECK_INT(run("info --json '%s'", swap), ==, 0);
        CHECK_STR_CONTAINS(output(), "\"tpm\":{\"pcrs\":[7],\"pin\":false");
        CHECK_STR_CONTAINS(output(), "\"encryption\":{\"mode\":\"tpm\",\"recovery\":\"pubkey\"");
        int rc = resume_shown(&m, swap, "");
        CHECK_INT(rc, ==, 0);
        CHECK_STR_CONTAINS(output(), "bit-exact");
        machine_down(&m);
}

static void changed_pcr_keeps_the_image_and_the_recovery_opens_it(void)
{
        struct machine m;
        const char *swap = make_swap("pcr.swap");
        REQUIRE(swap && machine_up(&m, "pcr", true) == 0);
        REQUIRE(hibernate(&m, swap, "--tpm-pcrs 0+7") == 0);
        REQUIRE(dmo_test_swtpm_extend_pcr(&m.tpm, 7) == 0);
        /* Nobody to type the recovery passphrase: locked, kept. */
        CHECK_INT(resume(&m, swap, ""), ==, 8);
        CHECK_STR_CONTAINS(output(), "refused to unseal");
        CHECK_STR_CONTAINS(output(), "recovery key");
        check_intact(swap);
        char extra[600];
        snprintf(extra, sizeof(extra), "--key-file '%s'", m.pass);
        int rc = resume_shown(&m, swap, extra);
        CHECK_INT(rc, ==, 0);
        CHECK_STR_CONTAINS(output(), "bit-exact");
        machine_down(&m);
}

static void absent_tpm_at_resume_keeps_the_image(void)
{
        struct machine m;
        const char *swap = make_swap("absent.swap");
        REQUIRE(swap && machine_up(&m, "absent", true) == 0);
        REQUIRE(hibernate(&m, swap, "") == 0);
        machine_down(&m);
        CHECK_INT(resume(&m, swap, ""), ==, 8);
        CHECK_STR_CONTAINS(output(), "no TPM 2.0 answers");
        check_intact(swap);
        /* The recovery, with the counter unchecked and said so. */
        char extra[600];
        snprintf(extra, sizeof(extra), "--key-file '%s'", m.pass);
        int rc = resume_shown(&m, swap, extra);
        CHECK_INT(rc, ==, 0);
        CHECK_STR_CONTAINS(output(), "without rollback protection");
}

static void wrong_pin_keeps_the_image(void)
{
        struct machine m;
        const char *swap = make_swap("pin.swap");
        const char *pin = key_file("pin", "2468");
        const char *wrong = key_file("wrongpin", "1357");
        REQUIRE(swap && pin && wrong && machine_up(&m, "pin", true) == 0);
        char extra[600];
        snprintf(extra, sizeof(extra), "--encrypt tpm+passphrase --key-file '%s'", pin);
        REQUIRE(hibernate(&m, swap, extra) == 0);
        CHECK_INT(run("info --json '%s'", swap), ==, 0);
        CHECK_STR_CONTAINS(output(), "\"pin\":true");
        CHECK_STR_CONTAINS(output(), "\"mode\":\"tpm+passphrase\",\"recovery\":\"pubkey\"");
        snprintf(extra, sizeof(extra), "--key-file '%s'", wrong);
        CHECK_INT(resume(&m, swap, extra), ==, 8);
        CHECK_STR_CONTAINS(output(), "PIN was not accepted");
        check_intact(swap);
        snprintf(extra, sizeof(extra), "--key-file '%s'", pin);
        int rc = resume_shown(&m, swap, extra);
        CHECK_INT(rc, ==, 0);
        CHECK_STR_CONTAINS(output(), "bit-exact");
        machine_down(&m);
}

static void image_restored_once_or_older_copy_is_refused(void)
{
        struct machine m;
        const char *swap = make_swap("roll.swap");
        const char *copy = tmp("roll.copy");
        REQUIRE(swap && machine_up(&m, "roll", true) == 0);
        REQUIRE(hibernate(&m, swap, "") == 0);
        REQUIRE(dmo_test_sh("cp '%s' '%s'", swap, copy) == 0);
        int rc = resume_shown(&m, swap, "");
        REQUIRE(rc == 0);
        /* The same image again, written back. */
        REQUIRE(dmo_test_sh("cp '%s' '%s'", copy, swap) == 0);
        check_intact(swap);
        CHECK_INT(resume(&m, swap, ""), ==, 3);
        CHECK_STR_CONTAINS(output(), "restored once already, or is an older copy");
        CHECK_INT(run("info '%s'", swap), ==, 1); /* refused: a plain swap area again */

        /* An older image written back over a newer one, never restored. */
        REQUIRE(hibernate(&m, swap, "") == 0);
        REQUIRE(dmo_test_sh("cp '%s' '%s'", swap, copy) == 0);
        REQUIRE(hibernate(&m, swap, "") == 0);
        REQUIRE(dmo_test_sh("cp '%s' '%s'", copy, swap) == 0);
        CHECK_INT(resume(&m, swap, ""), ==, 3);
        CHECK_STR_CONTAINS(output(), "older copy");
        machine_down(&m);
}

static void hibernation_without_the_counter_is_refused(void)
{
        struct machine m;
        const char *swap = make_swap("nocounter.swap");
        REQUIRE(swap && machine_up(&m, "nocounter", false) == 0);
        CHECK_INT(run("hibernate --config '%s' --kernel sim --sim-size 4M --resume-device '%s' "
                      "--splash none --encrypt tpm",
                      m.conf, swap),
                  ==, 6);
        CHECK_STR_CONTAINS(output(), "enroll-tpm");
        CHECK_INT(run("info '%s'", swap), ==, 1); /* nothing written */
        machine_down(&m);
}

int main(void)
{
        static const struct dmo_test_case cases[] = {
            T(nothing_typed_on_the_same_boot_chain),
            T(changed_pcr_keeps_the_image_and_the_recovery_opens_it),
            T(absent_tpm_at_resume_keeps_the_image),
            T(wrong_pin_keeps_the_image),
            T(image_restored_once_or_older_copy_is_refused),
            T(hibernation_without_the_counter_is_refused),
        };
        const char *why = NULL;
        if (!dmo_test_swtpm_available(&why)) {
                printf("1..0 # SKIP %s\n", why);
                return 0;
        }
        return dmo_test_run(cases, sizeof(cases) / sizeof(cases[0]));
}
