/* A hibernation that could not come back says so before the freeze and
 * does not start: a swap area that is not active where the image would go,
 * an initramfs without dormouse (no record for the running kernel), one
 * that would look elsewhere (a stale resume_offset, another device, none
 * at all), a copy of dormouse.conf or a secret key that changed since it
 * was built. Driven through the program on the simulated kernel, whose
 * /proc, /var/lib/dormouse and kernel command line are files of the test
 * (--sim-proc, --sim-state-dir, --cmdline); the swap area stands for a
 * partition. Each refusal is checked by its sentence and by the swap area
 * it left alone. */
#include <stdio.h>
#include <string.h>

#include "tests/testlib.h"

#define run(...) dmo_test_run_program(__VA_ARGS__)
#define output() dmo_test_program_output()

static const char release[] = "6.12.0-test";

/* The machine: a swap area, its /proc, its state directory, its command
 * line and dormouse.conf, all in one scratch directory. */
struct machine {
        char dir[512], swap[600], proc[600], state[600], cmdline[600], conf[600];
};

static void put(const char *path, const char *text)
{
        FILE *f = fopen(path, "w");
        if (f) {
                fputs(text, f);
                fclose(f);
        }
}

static void put_cmdline(const struct machine *m, const char *extra)
{
        char text[1400];
        snprintf(text, sizeof(text), "BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro quiet %s\n", extra);
        put(m->cmdline, text);
}

/* /proc/swaps with the area active (or none). */
static void put_swaps(const struct machine *m, bool active)
{
        char text[1400];
        snprintf(text, sizeof(text), "Filename\tType\tSize\tUsed\tPriority\n%s%s",
                 active ? m->swap : "", active ? "\tpartition\t16380\t0\t-2\n" : "");
        char path[700];
        snprintf(path, sizeof(path), "%s/swaps", m->proc);
        put(path, text);
}

/* A record as the hook writes it, with the copy of conf_text it took (NULL:
 * none), RESUME= and the digest of secret_key (NULL: none). */
static bool record(const struct machine *m, const char *conf_text, const char *resume,
                   const char *secret_key)
{
        char conf[700], rec[700];
        snprintf(conf, sizeof(conf), "%s/initramfs/%s.conf", m->state, release);
        snprintf(rec, sizeof(rec), "%s/initramfs/%s", m->state, release);
        if (dmo_test_sh("rm -rf '%s/initramfs' && mkdir -p '%s/initramfs'", m->state, m->state))
                return false;
        if (conf_text)
                put(conf, conf_text);
        return dmo_test_sh(
                   "{ echo 'record = 1'; echo 'kernel = %s'; echo 'builder = initramfs-tools'; "
                   "if [ -e '%s' ]; then echo \"config-sha256 = $(sha256sum < '%s' | cut -d ' ' "
                   "-f 1)\"; else echo 'config-sha256 = none'; fi; "
                   "if [ -n '%s' ]; then echo \"secret-key-sha256 = $(sha256sum < '%s' | cut -d "
                   "' ' -f 1)\"; else echo 'secret-key-sha256 = none'; fi; "
                   "echo 'resume = %s'; } > '%s'",
                   release, conf, conf, secret_key ? secret_key : "", secret_key ? secret_key : "",
                   resume, rec) == 0;
}

/* A machine as it should be: the swap area active, resume= naming it on
 * the command line, a dormouse.conf of which the initramfs holds a copy. */
static bool machine(struct machine *m, const char *name)
{
        snprintf(m->dir, sizeof(m->dir), "%s/%s", dmo_test_tmpdir(), name);
        snprintf(m->swap, sizeof(m->swap), "%s/swap", m->dir);
        snprintf(m->proc, sizeof(m->proc), "%s/proc", m->dir);
        snprintf(m->state, sizeof(m->state), "%s/state", m->dir);
        snprintf(m->cmdline, sizeof(m->cmdline), "%s/cmdline", m->dir);
        snprintf(m->conf, sizeof(m->conf), "%s/dormouse.conf", m->dir);
        if (dmo_test_sh("rm -rf '%s' && mkdir -p '%s' '%s' && truncate -s 16M '%s' && "
                        "chmod 600 '%s' && mkswap -q '%s' >/dev/null 2>&1",
                        m->dir, m->proc, m->state, m->swap, m->swap, m->swap) != 0)
                return false;
        put_swaps(m, true);
        char extra[700];
        snprintf(extra, sizeof(extra), "resume=%s", m->swap);
        put_cmdline(m, extra);
        put(m->conf, "compress = lz4\n");
        return record(m, "compress = lz4\n", "", NULL);
}

/* dormouse hibernate on the machine, with more options; its exit status. */
static int hibernate(const struct machine *m, const char *more)
{
        return run("hibernate --kernel sim --sim-size 4M --sim-seed 3 --splash none "
                   "--sim-kernel-release %s --sim-proc '%s' --sim-state-dir '%s' --cmdline '%s' "
                   "--config '%s' %s",
                   release, m->proc, m->state, m->cmdline, m->conf, more);
}

/* Nothing was written: the area is the plain swap area mkswap made. */
static bool untouched(const struct machine *m)
{
        return dmo_test_sh("test \"$(blkid -p -o value -s TYPE '%s')\" = swap", m->swap) == 0;
}

static void refused(const struct machine *m, const char *more, const char *sentence)
{
        int rc = hibernate(m, more);
        CHECK_INT(rc, ==, 2);
        CHECK_STR_CONTAINS(output(), sentence);
        CHECK(untouched(m));
        if (rc != 2)
                dmo_test_show_program_output();
}

static void a_machine_that_can_resume_hibernates(void)
{
        struct machine m;
        REQUIRE(machine(&m, "good"));
        int rc = hibernate(&m, "");
        if (rc != 0)
                dmo_test_show_program_output();
        CHECK_INT(rc, ==, 0);
        CHECK(!untouched(&m));
        CHECK(strstr(output(), "initramfs") == NULL);
}

static void an_initramfs_without_dormouse_is_refused(void)
{
        struct machine m;
        REQUIRE(machine(&m, "norecord"));
        REQUIRE(dmo_test_sh("rm -rf '%s/initramfs'", m.state) == 0);
        refused(&m, "", "the initramfs of the running kernel 6.12.0-test has no dormouse in it");
        CHECK_STR_CONTAINS(output(), "run update-initramfs -u");
        CHECK_STR_CONTAINS(output(), "--no-initramfs-check");
        /* another kernel's record is not this one's */
        REQUIRE(dmo_test_sh("mkdir -p '%s/initramfs' && printf 'record = 1\\nkernel = 6.1.0-old\\n"
                            "config-sha256 = none\\n' > '%s/initramfs/6.1.0-old'",
                            m.state, m.state) == 0);
        refused(&m, "", "has no dormouse in it");
}

static void the_escape_hatch_skips_the_initramfs(void)
{
        struct machine m;
        REQUIRE(machine(&m, "hatch"));
        REQUIRE(dmo_test_sh("rm -rf '%s/initramfs'", m.state) == 0);
        put_cmdline(&m, "");
        char more[700];
        snprintf(more, sizeof(more), "--resume-device '%s' --no-initramfs-check", m.swap);
        CHECK_INT(hibernate(&m, more), ==, 0);
        REQUIRE(dmo_test_sh("mkswap -q '%s' >/dev/null 2>&1", m.swap) == 0);
        put(m.conf, "initramfs check = no\n");
        snprintf(more, sizeof(more), "--resume-device '%s'", m.swap);
        CHECK_INT(hibernate(&m, more), ==, 0);
        /* a value it does not understand keeps the check */
        REQUIRE(dmo_test_sh("mkswap -q '%s' >/dev/null 2>&1", m.swap) == 0);
        put(m.conf, "initramfs check = maybe\n");
        refused(&m, more, "has no dormouse in it");
        CHECK_STR_CONTAINS(output(), "\"initramfs check\": value \"maybe\" not understood");
}

static void a_stale_resume_offset_is_refused(void)
{
        struct machine m;
        REQUIRE(machine(&m, "stale"));
        /* The image goes where the swap area starts now (page 0, as FIEMAP
         * gives it for a swap file), the command line says page 34816. */
        char extra[800];
        snprintf(extra, sizeof(extra), "resume=%s resume_offset=34816", m.swap);
        put_cmdline(&m, extra);
        refused(&m, "--resume-offset 0", "the initramfs would look for the image at page 34816 of");
        CHECK_STR_CONTAINS(output(), "(resume_offset= on the kernel command line), but the swap "
                                     "area starts at page 0");
        CHECK_STR_CONTAINS(output(), "Set resume_offset=0 on the kernel command line");
        CHECK_STR_CONTAINS(output(), "run update-initramfs -u");
        /* the same from the initramfs's copy of dormouse.conf */
        char conf[800];
        snprintf(conf, sizeof(conf), "resume device = %s\nresume offset = 8\n", m.swap);
        REQUIRE(record(&m, conf, "", NULL));
        put_cmdline(&m, "");
        char more[800];
        snprintf(more, sizeof(more), "--resume-offset 0 --resume-device '%s'", m.swap);
        refused(&m, more, "at page 8 of");
        CHECK_STR_CONTAINS(output(), "\"resume offset\" in the initramfs's copy of dormouse.conf");
}

static void an_offset_where_no_swap_area_starts_is_refused(void)
{
        struct machine m;
        REQUIRE(machine(&m, "partition"));
        char extra[800];
        snprintf(extra, sizeof(extra), "resume=%s resume_offset=34816", m.swap);
        put_cmdline(&m, extra);
        /* the partition is active at page 0, not 34816 */
        refused(&m, "", "no active swap area starts at page 34816 of");
        CHECK_STR_CONTAINS(output(), "Enable it with swapon");
}

static void an_inactive_swap_area_is_refused(void)
{
        struct machine m;
        REQUIRE(machine(&m, "inactive"));
        put_swaps(&m, false);
        refused(&m, "", "is not an active swap area (it is not in /proc/swaps)");
}

static void an_initramfs_looking_on_another_device_is_refused(void)
{
        struct machine m;
        REQUIRE(machine(&m, "otherdev"));
        char other[700], extra[800];
        snprintf(other, sizeof(other), "%s/other", m.dir);
        put(other, "");
        snprintf(extra, sizeof(extra), "resume=%s", other);
        put_cmdline(&m, extra);
        char more[800];
        snprintf(more, sizeof(more), "--resume-device '%s'", m.swap);
        refused(&m, more, "the initramfs would look for the image on");
        CHECK_STR_CONTAINS(output(), "(resume= on the kernel command line), but it is about to be "
                                     "written to");
        /* a device that does not exist here */
        put_cmdline(&m, "resume=UUID=0000-dead");
        refused(&m, more, "which is not a device here");
}

static void an_initramfs_that_knows_no_device_is_refused(void)
{
        struct machine m;
        REQUIRE(machine(&m, "nodevice"));
        put_cmdline(&m, "");
        char more[800];
        snprintf(more, sizeof(more), "--resume-device '%s'", m.swap);
        refused(&m, more, "would not know where to look for the image");
        /* initramfs-tools' RESUME= is where its boot script looks then */
        REQUIRE(record(&m, "compress = lz4\n", m.swap, NULL));
        CHECK_INT(hibernate(&m, more), ==, 0);
}

/* Debian's installer writes RESUME to initramfs-tools' conf.d/resume and
 * nothing on the command line: the hibernation goes where that initramfs
 * will look. */
static void initramfs_tools_resume_names_the_device_when_nothing_else_does(void)
{
        struct machine m;
        REQUIRE(machine(&m, "resumeonly"));
        put_cmdline(&m, "");
        refused(&m, "", "no resume device: give --resume-device");
        REQUIRE(record(&m, "compress = lz4\n", m.swap, NULL));
        int rc = hibernate(&m, "");
        if (rc != 0)
                dmo_test_show_program_output();
        CHECK_INT(rc, ==, 0);
        CHECK(!untouched(&m));
        /* resume= still wins over it */
        REQUIRE(dmo_test_sh("mkswap -q '%s' >/dev/null 2>&1", m.swap) == 0);
        put_cmdline(&m, "resume=/dev/nonexistent-dmo");
        refused(&m, "", "/dev/nonexistent-dmo");
}

static void a_broken_record_is_refused(void)
{
        struct machine m;
        char rec[800];
        REQUIRE(machine(&m, "garbage"));
        snprintf(rec, sizeof(rec), "%s/initramfs/%s", m.state, release);
        put(rec, "\x7f"
                 "ELF garbage\n");
        refused(&m, "", "cannot read what the initramfs of kernel 6.12.0-test holds");
        CHECK_STR_CONTAINS(output(), "not a dormouse record");
        put(rec, "record = 7\nkernel = 6.12.0-test\nconfig-sha256 = none\n");
        refused(&m, "", "was written by a newer dormouse");
        REQUIRE(dmo_test_sh("rm -f '%s' && mkdir '%s'", rec, rec) == 0);
        refused(&m, "", "cannot read what the initramfs of kernel 6.12.0-test holds");
        CHECK_STR_CONTAINS(output(), "Is a directory");
}

static void a_copy_that_is_not_the_recorded_one_is_refused(void)
{
        struct machine m;
        char copy[800];
        REQUIRE(machine(&m, "copy"));
        snprintf(copy, sizeof(copy), "%s/initramfs/%s.conf", m.state, release);
        put(copy, "compress = zstd\n");
        refused(&m, "",
                "the copy of dormouse.conf the initramfs of kernel 6.12.0-test holds "
                "cannot be read");
        CHECK_STR_CONTAINS(output(), "not the one its record names");
        remove(copy);
        refused(&m, "", "No such file");
}

static void a_changed_config_that_does_not_matter_is_a_note(void)
{
        struct machine m;
        REQUIRE(machine(&m, "theme"));
        put(m.conf, "compress = lz4\ntheme = nocturne\n");
        CHECK_INT(hibernate(&m, ""), ==, 0);
        CHECK_STR_CONTAINS(output(), "holds an older copy of");
        CHECK_STR_CONTAINS(output(), "this image will come back");
}

static void a_changed_resume_device_in_the_config_is_refused(void)
{
        struct machine m;
        REQUIRE(machine(&m, "moved"));
        char other[700], conf[800], more[800];
        snprintf(other, sizeof(other), "%s/old-swap", m.dir);
        put(other, "");
        /* the initramfs still holds the old "resume device" */
        snprintf(conf, sizeof(conf), "resume device = %s\n", other);
        REQUIRE(record(&m, conf, "", NULL));
        snprintf(conf, sizeof(conf), "resume device = %s\n", m.swap);
        put(m.conf, conf);
        snprintf(more, sizeof(more), "--resume-device '%s'", m.swap);
        refused(&m, more, "(\"resume device\" in the initramfs's copy of dormouse.conf)");
}

static void a_secret_key_the_initramfs_lacks_is_refused(void)
{
        struct machine m;
        char key[700], conf[1600];
        REQUIRE(machine(&m, "pubkey"));
        snprintf(key, sizeof(key), "%s/secret.key", m.dir);
        put(key, "the secret key\n");
        snprintf(conf, sizeof(conf), "encrypt = pubkey\nsecret key = %s\npublic key = %s/pub\n",
                 key, m.dir);
        put(m.conf, conf);
        REQUIRE(record(&m, conf, "", NULL));
        refused(&m, "", "holds no secret key to open it");
        REQUIRE(record(&m, conf, "", key));
        put(key, "a new secret key\n");
        refused(&m, "", "(was dormouse keygen run since?)");
        /* the one it holds: no refusal of ours (the made-up public key
         * then fails to load) */
        REQUIRE(record(&m, conf, "", key));
        hibernate(&m, "");
        CHECK(strstr(output(), "initramfs") == NULL);
}

static void noresume_on_this_boot_is_a_note(void)
{
        struct machine m;
        REQUIRE(machine(&m, "noresume"));
        char extra[800];
        snprintf(extra, sizeof(extra), "resume=%s noresume", m.swap);
        put_cmdline(&m, extra);
        CHECK_INT(hibernate(&m, ""), ==, 0);
        CHECK_STR_CONTAINS(output(), "kernel command line has noresume");
}

DMO_TEST_MAIN(T(a_machine_that_can_resume_hibernates), T(an_initramfs_without_dormouse_is_refused),
              T(the_escape_hatch_skips_the_initramfs), T(a_stale_resume_offset_is_refused),
              T(an_offset_where_no_swap_area_starts_is_refused),
              T(an_inactive_swap_area_is_refused),
              T(an_initramfs_looking_on_another_device_is_refused),
              T(an_initramfs_that_knows_no_device_is_refused),
              T(initramfs_tools_resume_names_the_device_when_nothing_else_does),
              T(a_broken_record_is_refused), T(a_copy_that_is_not_the_recorded_one_is_refused),
              T(a_changed_config_that_does_not_matter_is_a_note),
              T(a_changed_resume_device_in_the_config_is_refused),
              T(a_secret_key_the_initramfs_lacks_is_refused), T(noresume_on_this_boot_is_a_note))
