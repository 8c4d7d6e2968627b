/* The record an initramfs hook leaves of what it built: parsed whole or
 * refused (truncated, garbled, another kernel's, a later format), never
 * half read. */
#include "tests/testlib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel/initramfs_record.h"

#define SUM "0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789abcdef"

static const char good[] = "# written by the dormouse initramfs-tools hook\n"
                           "record = 1\n"
                           "kernel = 6.12.38+deb13-amd64\n"
                           "builder = initramfs-tools\n"
                           "config-sha256 = " SUM "\n"
                           "secret-key-sha256 = none\n"
                           "resume = UUID=1234-abcd   \n"
                           "reads-hibernate-location = yes\n"
                           "nbd-client = yes\n"
                           "later-key = whatever\n";

static int parse(const char *text, struct dmo_initramfs_record *r)
{
        return dmo_initramfs_record_parse(text, strlen(text), r);
}

static void a_record_as_the_hook_writes_it(void)
{
        struct dmo_initramfs_record r;
        REQUIRE(parse(good, &r) == 0);
        CHECK_INT(r.version, ==, 1);
        CHECK(strcmp(r.kernel, "6.12.38+deb13-amd64") == 0);
        CHECK(strcmp(r.builder, "initramfs-tools") == 0);
        CHECK(r.has_config);
        CHECK_INT(r.config_sha256[0], ==, 0x01);
        CHECK_INT(r.config_sha256[31], ==, 0xef);
        CHECK_INT(r.config_sha256[12], ==, 0x89);
        CHECK(!r.has_secret_key);
        CHECK(strcmp(r.resume, "UUID=1234-abcd") == 0);
        CHECK(r.reads_efi_location);
        CHECK(r.has_nbd_client);
}

static void no_configuration_and_an_empty_resume(void)
{
        struct dmo_initramfs_record r;
        CHECK_INT(parse("record = 1\nkernel = k\nconfig-sha256 = none\nresume =\n", &r), ==, 0);
        CHECK(!r.has_config);
        CHECK(r.resume[0] == '\0');
        /* Written before the key existed: that dormouse did not read it. */
        CHECK(!r.reads_efi_location);
        CHECK(!r.has_nbd_client); /* an older hook's: no nbd-client */
        CHECK_INT(parse("record = 1\nkernel = k\nconfig-sha256 = none\nnbd-client = no\n", &r), ==,
                  0);
        CHECK(!r.has_nbd_client);
        CHECK_INT(parse("record = 1\nkernel = k\nconfig-sha256 = none\n"
                        "reads-hibernate-location = no\n",
                        &r),
                  ==, 0);
        CHECK(!r.reads_efi_location);
}

static void broken_records_are_refused(void)
{
        static const struct {
                const char *text;
                int err;
                unsigned line;
        } bad[] = {
            {"", -EINVAL, 0},
            {"record = 1\nkernel = k\n", -EINVAL, 0},           /* no digest */
            {"kernel = k\nconfig-sha256 = none\n", -EINVAL, 0}, /* no version */
            {"record = 1\nconfig-sha256 = none\n", -EINVAL, 0}, /* no kernel */
            {"record = 1\nkernel =\nconfig-sha256 = none\n", -EINVAL, 2},
            {"record = 1\nkernel = k\nconfig-sha256 = 0123\n", -EINVAL, 3},
            {"record = 1\nkernel = k\nconfig-sha256 = " SUM "0\n", -EINVAL, 3},
            {"record = 1\nkernel = k\nconfig-sha256 = "
             "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeg\n",
             -EINVAL, 3},
            {"record = 1\nkernel = k\nconfig-sha256 = none\ngarbage\n", -EINVAL, 4},
            {"record = 1\nkernel = k\n = x\nconfig-sha256 = none\n", -EINVAL, 3},
            {"record = one\nkernel = k\nconfig-sha256 = none\n", -EINVAL, 1},
            {"record = 2\nkernel = k\nconfig-sha256 = none\n", -EPROTONOSUPPORT, 1},
            {"record = 1\nkernel = k\nconfig-sha256 = none\nreads-hibernate-location = 1\n",
             -EINVAL, 4},
            {"record = 1\nkernel = k\nconfig-sha256 = none\nnbd-client = maybe\n", -EINVAL, 4},
            {"\x7f\x45LF\x02\x01\x01", -EINVAL, 1},
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct dmo_initramfs_record r;
                int e = parse(bad[i].text, &r);
                if (e != bad[i].err || r.bad_line != bad[i].line)
                        printf("# case %zu: %d at line %u\n", i, e, r.bad_line);
                CHECK_INT(e, ==, bad[i].err);
                CHECK_INT(r.bad_line, ==, bad[i].line);
        }
}

static void nul_bytes_and_overlong_lines_are_refused(void)
{
        struct dmo_initramfs_record r;
        static const char nul[] = "record = 1\nkernel = k\0x\nconfig-sha256 = none\n";
        CHECK_INT(dmo_initramfs_record_parse(nul, sizeof(nul) - 1, &r), ==, -EINVAL);
        CHECK_INT(r.bad_line, ==, 2);
        static char longline[2000];
        memset(longline, 'a', sizeof(longline) - 1);
        memcpy(longline, "resume = ", 9);
        char text[4096];
        snprintf(text, sizeof(text), "record = 1\nkernel = k\nconfig-sha256 = none\n%s\n",
                 longline);
        CHECK_INT(parse(text, &r), ==, -EINVAL);
        CHECK_INT(r.bad_line, ==, 4);
        static char huge[DMO_INITRAMFS_RECORD_MAX + 2];
        memset(huge, '\n', sizeof(huge));
        CHECK_INT(dmo_initramfs_record_parse(huge, sizeof(huge), &r), ==, -EINVAL);
}

static void paths_name_only_plain_releases(void)
{
        char p[64];
        CHECK_INT(
            dmo_initramfs_record_path("/var/lib/dormouse", "6.1.0-9-amd64", ".conf", p, sizeof(p)),
            ==, 0);
        CHECK(strcmp(p, "/var/lib/dormouse/initramfs/6.1.0-9-amd64.conf") == 0);
        CHECK_INT(dmo_initramfs_record_path("/s", "", "", p, sizeof(p)), ==, -EINVAL);
        CHECK_INT(dmo_initramfs_record_path("/s", "../../etc/passwd", "", p, sizeof(p)), ==,
                  -EINVAL);
        CHECK_INT(dmo_initramfs_record_path("/s", "a/b", "", p, sizeof(p)), ==, -EINVAL);
        CHECK_INT(dmo_initramfs_record_path("/s", "x", "", p, 8), ==, -ENAMETOOLONG);
}

static void loading_checks_the_kernel_and_the_file(void)
{
        char dir[600], path[700];
        struct dmo_initramfs_record r;
        snprintf(dir, sizeof(dir), "%s/state", dmo_test_tmpdir());
        snprintf(path, sizeof(path), "%s/initramfs", dir);
        REQUIRE(dmo_test_sh("mkdir -p '%s'", path) == 0);
        CHECK_INT(dmo_initramfs_record_load(dir, "6.12.38+deb13-amd64", &r), ==, -ENOENT);
        snprintf(path, sizeof(path), "%s/initramfs/6.12.38+deb13-amd64", dir);
        FILE *f = fopen(path, "w");
        REQUIRE(f);
        fputs(good, f);
        fclose(f);
        CHECK_INT(dmo_initramfs_record_load(dir, "6.12.38+deb13-amd64", &r), ==, 0);
        CHECK(strcmp(r.resume, "UUID=1234-abcd") == 0);
        /* a record under another kernel's name */
        REQUIRE(dmo_test_sh("cp '%s' '%s/initramfs/6.1.0-9-amd64'", path, dir) == 0);
        CHECK_INT(dmo_initramfs_record_load(dir, "6.1.0-9-amd64", &r), ==, -EINVAL);
        /* too large */
        REQUIRE(dmo_test_sh("head -c 9000 /dev/zero | tr '\\0' '#' > '%s'", path) == 0);
        CHECK_INT(dmo_initramfs_record_load(dir, "6.12.38+deb13-amd64", &r), ==, -EFBIG);
        /* a directory where the file should be */
        REQUIRE(dmo_test_sh("rm -f '%s' && mkdir '%s'", path, path) == 0);
        CHECK(dmo_initramfs_record_load(dir, "6.12.38+deb13-amd64", &r) < 0);
}

static void the_resume_looks_where_its_config_then_the_cmdline_then_resume_say(void)
{
        struct dmo_cmdline cl = {0};
        struct dmo_initramfs_record rec = {0};
        struct dmo_initramfs_resume place;
        dmo_initramfs_resume_place("", -1, &cl, &rec, &place);
        CHECK(place.spec[0] == '\0');
        CHECK_INT(place.spec_from, ==, DMO_RESUME_FROM_NOWHERE);
        CHECK_INT(place.offset, ==, 0);
        CHECK_INT(place.offset_from, ==, DMO_RESUME_FROM_NOWHERE);

        snprintf(rec.resume, sizeof(rec.resume), "UUID=1234-abcd");
        dmo_initramfs_resume_place("", -1, &cl, &rec, &place);
        CHECK(strcmp(place.spec, "UUID=1234-abcd") == 0);
        CHECK_INT(place.spec_from, ==, DMO_RESUME_FROM_INITRAMFS_TOOLS);

        snprintf(cl.resume, sizeof(cl.resume), "/dev/vda2");
        cl.has_resume_offset = true;
        cl.resume_offset = 34816;
        dmo_initramfs_resume_place("", -1, &cl, &rec, &place);
        CHECK(strcmp(place.spec, "/dev/vda2") == 0);
        CHECK_INT(place.spec_from, ==, DMO_RESUME_FROM_CMDLINE);
        CHECK_INT(place.offset, ==, 34816);
        CHECK_INT(place.offset_from, ==, DMO_RESUME_FROM_CMDLINE);

        dmo_initramfs_resume_place("LABEL=swap", 0, &cl, &rec, &place);
        CHECK(strcmp(place.spec, "LABEL=swap") == 0);
        CHECK_INT(place.spec_from, ==, DMO_RESUME_FROM_CONFIG);
        CHECK_INT(place.offset, ==, 0);
        CHECK_INT(place.offset_from, ==, DMO_RESUME_FROM_CONFIG);
}

DMO_TEST_MAIN(T(a_record_as_the_hook_writes_it), T(no_configuration_and_an_empty_resume),
              T(broken_records_are_refused), T(nul_bytes_and_overlong_lines_are_refused),
              T(paths_name_only_plain_releases), T(loading_checks_the_kernel_and_the_file),
              T(the_resume_looks_where_its_config_then_the_cmdline_then_resume_say))
