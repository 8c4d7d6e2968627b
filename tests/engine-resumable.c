/* Before the freeze, whether the image can come back (engine/resumable.h):
 * each verdict and the facts it carries, on a machine of the test's whose
 * devices are files (as the simulated kernel's): its /proc/swaps, its
 * initramfs record and copy of dormouse.conf, its kernel command line.
 * tests/cli-hibernate-resumable.c checks the sentences through the
 * program. */
#include "tests/testlib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/resumable.h"

static const char release[] = "6.12.0-test";

struct machine {
        char dir[512], swap[600], other[600], swaps[600], state[600], cmdline[600], conf[600],
            key[600];
        struct dmo_swap_target target;
        struct dmo_resumable_params p;
        /* What the caller's reader of the copy answers. */
        char copy_device[DMO_RESUME_SPEC_MAX];
        int64_t copy_offset;
        int copy_error;
};

static void put(const char *path, const char *text)
{
        FILE *f = fopen(path, "w");
        if (f) {
                fputs(text, f);
                fclose(f);
        }
}

static int read_copy(void *ctx, const char *path, char device[DMO_RESUME_SPEC_MAX], int64_t *offset)
{
        const struct machine *m = ctx;
        (void)path;
        snprintf(device, DMO_RESUME_SPEC_MAX, "%s", m->copy_device);
        *offset = m->copy_offset;
        return m->copy_error;
}

/* The record, as the hook writes it: a copy of conf_text (NULL: none),
 * the digest of the key file here (secret_key), version. */
/* reads: the record's reads-hibernate-location, "" for none. */
static void record(const struct machine *m, const char *conf_text, bool secret_key, int version,
                   const char *reads)
{
        char copy[700], rec[700];
        snprintf(copy, sizeof(copy), "%s/initramfs/%s.conf", m->state, release);
        snprintf(rec, sizeof(rec), "%s/initramfs/%s", m->state, release);
        dmo_test_sh("rm -rf '%s/initramfs' && mkdir -p '%s/initramfs'", m->state, m->state);
        if (conf_text)
                put(copy, conf_text);
        dmo_test_sh("{ echo 'record = %d'; echo 'kernel = %s'; echo 'builder = dracut'; "
                    "if [ -e '%s' ]; then echo \"config-sha256 = $(sha256sum < '%s' | cut -d ' ' "
                    "-f 1)\"; else echo 'config-sha256 = none'; fi; "
                    "if %s; then echo \"secret-key-sha256 = $(sha256sum < '%s' | cut -d ' ' "
                    "-f 1)\"; else echo 'secret-key-sha256 = none'; fi; "
                    "echo 'resume = '; [ -z '%s' ] || echo 'reads-hibernate-location = %s'; "
                    "} > '%s'",
                    version, release, copy, copy, secret_key ? "true" : "false", m->key, reads,
                    reads, rec);
}

/* A machine as it should be: its area active, resume= naming it, no
 * dormouse.conf then or now. */
static void machine(struct machine *m, const char *name)
{
        memset(m, 0, sizeof(*m));
        snprintf(m->dir, sizeof(m->dir), "%s/%s", dmo_test_tmpdir(), name);
        snprintf(m->swap, sizeof(m->swap), "%s/swap", m->dir);
        snprintf(m->other, sizeof(m->other), "%s/other", m->dir);
        snprintf(m->swaps, sizeof(m->swaps), "%s/swaps", m->dir);
        snprintf(m->state, sizeof(m->state), "%s/state", m->dir);
        snprintf(m->cmdline, sizeof(m->cmdline), "%s/cmdline", m->dir);
        snprintf(m->conf, sizeof(m->conf), "%s/dormouse.conf", m->dir);
        snprintf(m->key, sizeof(m->key), "%s/secret.key", m->dir);
        dmo_test_sh("mkdir -p '%s' '%s' && : >'%s' && : >'%s' && echo one >'%s'", m->dir, m->state,
                    m->swap, m->other, m->key);
        char text[1400];
        snprintf(text, sizeof(text), "Filename Type Size Used Priority\n%s partition 16380 0 -2\n",
                 m->swap);
        put(m->swaps, text);
        snprintf(text, sizeof(text), "ro quiet resume=%s\n", m->swap);
        put(m->cmdline, text);
        record(m, NULL, false, 1, "yes");
        m->copy_offset = -1;
        m->target = (struct dmo_swap_target){.path = m->swap};
        m->p = (struct dmo_resumable_params){
            .target = &m->target,
            .files = true,
            .proc_swaps = m->swaps,
            .state_dir = m->state,
            .release = release,
            .cmdline = m->cmdline,
            .config_path = m->conf,
            .encrypt = DMO_ENCRYPT_NONE,
            .secret_key = m->key,
            .read_config = read_copy,
            .ctx = m,
        };
}

static enum dmo_resumable_verdict check(const struct machine *m, struct dmo_resumable *v)
{
        CHECK_INT(dmo_resumable_check(&m->p, v), ==, 0);
        return v->verdict;
}

static void test_a_machine_as_it_should_be_can_resume(void)
{
        struct machine m;
        struct dmo_resumable v;
        machine(&m, "fine");
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_YES);
        CHECK(!v.copy_outdated);
        CHECK(!v.noresume);
        CHECK(strcmp(v.place.spec, m.swap) == 0);
        CHECK_INT(v.place.spec_from, ==, DMO_RESUME_FROM_CMDLINE);

        /* Worth saying, but no refusal: a dormouse.conf made since, and
         * noresume on this boot's command line. */
        put(m.conf, "compress = zstd\n");
        char text[700];
        snprintf(text, sizeof(text), "resume=%s noresume\n", m.swap);
        put(m.cmdline, text);
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_YES);
        CHECK(v.copy_outdated);
        CHECK(v.noresume);
}

static void test_the_target_must_be_an_active_area_at_its_page(void)
{
        struct machine m;
        struct dmo_resumable v;
        machine(&m, "area");
        m.target.path = m.other;
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_NOT_ACTIVE);
        m.target.header_page = 8;
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_NO_AREA_AT_PAGE);
        /* Not looked at: the initramfs decides. */
        m.p.proc_swaps = NULL;
        m.target.path = m.swap;
        m.target.header_page = 0;
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_YES);
}

static void test_the_initramfs_must_hold_dormouse_and_its_record(void)
{
        struct machine m;
        struct dmo_resumable v;
        machine(&m, "record");
        dmo_test_sh("rm -rf '%s/initramfs'", m.state);
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_NO_RECORD);
        CHECK(strstr(v.record_path, "/state/initramfs/6.12.0-test") != NULL);
        CHECK(strcmp(v.release, release) == 0);
        record(&m, NULL, false, 2, "yes");
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_RECORD_TOO_NEW);
        dmo_test_sh("echo garbage >'%s/initramfs/%s'", m.state, release);
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_RECORD_UNREADABLE);
        CHECK_INT(v.error, ==, -EINVAL);
        /* Not built with dormouse's hooks: not looked at. */
        m.p.state_dir = NULL;
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_YES);
}

static void test_the_copy_of_dormouse_conf_must_be_the_recorded_one(void)
{
        struct machine m;
        struct dmo_resumable v;
        machine(&m, "copy");
        record(&m, "compress = lz4\n", false, 1, "yes");
        put(m.conf, "compress = lz4\n");
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_YES);
        CHECK(!v.copy_outdated);
        dmo_test_sh("echo changed >>'%s/initramfs/%s.conf'", m.state, release);
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_COPY_UNREADABLE);
        CHECK_INT(v.error, ==, -EBADMSG);
        CHECK(strstr(v.copy_path, "/initramfs/6.12.0-test.conf") != NULL);
        record(&m, "compress = lz4\n", false, 1, "yes");
        m.copy_error = -EFBIG; /* what the caller's reader said */
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_COPY_UNREADABLE);
        CHECK_INT(v.error, ==, -EFBIG);
}

static void test_the_initramfs_must_look_where_the_image_goes(void)
{
        struct machine m;
        struct dmo_resumable v;
        char text[700];
        machine(&m, "where");
        put(m.cmdline, "ro quiet\n");
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_NOWHERE);
        m.p.via_efi_location = true; /* HibernateLocation names it... */
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_YES);
        /* ...to an initramfs that reads it; one built by an older dormouse
         * (no such key) or on a boot without EFI does not. */
        record(&m, NULL, false, 1, "");
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_NO_EFI_LOCATION);
        record(&m, NULL, false, 1, "no");
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_NO_EFI_LOCATION);
        record(&m, NULL, false, 1, "yes");
        m.p.via_efi_location = false;

        snprintf(text, sizeof(text), "resume=%s/missing\n", m.dir);
        put(m.cmdline, text);
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_NOT_A_DEVICE);
        CHECK_INT(v.error, ==, -ENOENT);
        snprintf(text, sizeof(text), "resume=%s\n", m.other);
        put(m.cmdline, text);
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_ANOTHER_DEVICE);
        CHECK(strcmp(v.place.spec, m.other) == 0);
        snprintf(text, sizeof(text), "resume=%s resume_offset=8\n", m.swap);
        put(m.cmdline, text);
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_ANOTHER_OFFSET);
        CHECK_INT(v.place.offset, ==, 8);
        CHECK_INT(v.place.offset_from, ==, DMO_RESUME_FROM_CMDLINE);

        /* The copy of dormouse.conf comes first. */
        record(&m, "resume device = x\n", false, 1, "yes");
        REQUIRE(strlen(m.swap) < sizeof(m.copy_device));
        memcpy(m.copy_device, m.swap, strlen(m.swap) + 1);
        m.copy_offset = 0;
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_YES);
        CHECK_INT(v.place.spec_from, ==, DMO_RESUME_FROM_CONFIG);
        CHECK_INT(v.place.offset_from, ==, DMO_RESUME_FROM_CONFIG);
}

static void test_a_public_key_image_needs_the_secret_key_in_the_initramfs(void)
{
        struct machine m;
        struct dmo_resumable v;
        machine(&m, "key");
        m.p.encrypt = DMO_ENCRYPT_PUBKEY;
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_NO_SECRET_KEY);
        record(&m, NULL, true, 1, "yes");
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_YES);
        dmo_test_sh("echo two >'%s'", m.key); /* dormouse keygen since */
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_ANOTHER_SECRET_KEY);
        m.p.encrypt = DMO_ENCRYPT_TPM; /* its recovery is the same key */
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_ANOTHER_SECRET_KEY);
        dmo_test_sh("rm '%s'", m.key); /* kept elsewhere: nothing to compare */
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_YES);
}

/* A network target (nbd://): the initramfs must look at the same export
 * (host, port, name; never as a path) and hold nbd-client to reach it. */
static void test_a_network_image_needs_the_same_export_and_nbd_client(void)
{
        struct machine m;
        struct dmo_resumable v;
        char text[700];
        machine(&m, "network");
        m.target.network = "nbd://Server.Lab:10809/swap";
        put(m.cmdline, "ro ip=dhcp dormouse.resume=nbd://server.lab/swap\n");
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_NO_NBD_CLIENT);
        CHECK(strcmp(v.place.spec, "nbd://server.lab/swap") == 0);
        dmo_test_sh("echo 'nbd-client = yes' >> '%s/initramfs/%s'", m.state, release);
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_YES);

        put(m.cmdline, "ro dormouse.resume=nbd://server.lab/other\n");
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_ANOTHER_DEVICE);
        put(m.cmdline, "ro dormouse.resume=nbd://server.lab:10810/swap\n");
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_ANOTHER_DEVICE);
        put(m.cmdline, "ro dormouse.resume=nbd://other.lab/swap\n");
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_ANOTHER_DEVICE);
        put(m.cmdline, "ro dormouse.resume=nbd://server.lab/swap resume_offset=8\n");
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_ANOTHER_OFFSET);
        /* The initramfs looks at a local device, the image goes out. */
        snprintf(text, sizeof(text), "ro resume=%s\n", m.swap);
        put(m.cmdline, text);
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_ANOTHER_DEVICE);

        /* And the other way round: a local target, an initramfs that looks
         * on the network. */
        m.target.network = NULL;
        put(m.cmdline, "ro dormouse.resume=nbd://server.lab/swap\n");
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_ANOTHER_DEVICE);
        put(m.cmdline, "ro dormouse.resume=nbd://[::1/swap\n"); /* garbled: not the target */
        CHECK_INT(check(&m, &v), ==, DMO_RESUMABLE_ANOTHER_DEVICE);
}

DMO_TEST_MAIN(T(test_a_machine_as_it_should_be_can_resume),
              T(test_the_target_must_be_an_active_area_at_its_page),
              T(test_the_initramfs_must_hold_dormouse_and_its_record),
              T(test_the_copy_of_dormouse_conf_must_be_the_recorded_one),
              T(test_the_initramfs_must_look_where_the_image_goes),
              T(test_a_public_key_image_needs_the_secret_key_in_the_initramfs),
              T(test_a_network_image_needs_the_same_export_and_nbd_client))
