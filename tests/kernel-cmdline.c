/* The kernel command line: what each resume parameter sets, quoting, last
 * occurrence wins, malformed values; resume= specs and their resolution
 * against a fake /dev and /sys; waiting for a device. */
#include "tests/testlib.h"

#include <errno.h>
#include <time.h>

#include "kernel/cmdline.h"

static void test_resume_parameters_table(void)
{
        static const struct {
                const char *line;
                const char *resume;
                int has_off;
                uint64_t off;
                bool noresume, nohibernate, wait, wants;
                int delay; /* -1: absent */
        } t[] = {
            {"", "", 0, 0, false, false, false, true, -1},
            {"BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro quiet resume=/dev/vda2", "/dev/vda2", 0, 0,
             false, false, false, true, -1},
            {"resume=UUID=1234-abcd resume_offset=34816", "UUID=1234-abcd", 1, 34816, false, false,
             false, true, -1},
            {"resume=/dev/a resume=/dev/b", "/dev/b", 0, 0, false, false, false, true, -1},
            {"resume_offset=1 resume_offset=2", "", 1, 2, false, false, false, true, -1},
            {"noresume resume=/dev/x", "/dev/x", 0, 0, true, false, false, false, -1},
            {"hibernate=noresume", "", 0, 0, true, false, false, false, -1},
            {"hibernate=no", "", 0, 0, false, true, false, false, -1},
            {"nohibernate", "", 0, 0, false, true, false, false, -1},
            {"hibernate=nocompress hibernate=protect_image", "", 0, 0, false, false, false, true,
             -1},
            {"resumewait resumedelay=5", "", 0, 0, false, false, true, true, 5},
            {"resume=\"/dev/disk/by-label/my swap\" quiet", "/dev/disk/by-label/my swap", 0, 0,
             false, false, false, true, -1},
            {"\"resume=LABEL=a b\"", "LABEL=a b", 0, 0, false, false, false, true, -1},
            {"  \tresume=/dev/sda2\n", "/dev/sda2", 0, 0, false, false, false, true, -1},
            {"resume=/dev/a -- resume=/dev/b noresume", "/dev/a", 0, 0, false, false, false, true,
             -1},
            {"xresume=/dev/a resumex=1 noresume=1", "", 0, 0, false, false, false, true, -1},
            {"resume=\"/dev/unterminated", "/dev/unterminated", 0, 0, false, false, false, true,
             -1},
            {"dormouse.resume=nbd://s/x resume=/dev/b", "nbd://s/x", 0, 0, false, false, false,
             true, -1},
            {"resume=/dev/b dormouse.resume=nbd://[::1]:2/x", "nbd://[::1]:2/x", 0, 0, false, false,
             false, true, -1},
            {"dormouse.resume=/dev/a dormouse.resume=/dev/c resume=/dev/b", "/dev/c", 0, 0, false,
             false, false, true, -1},
            {"dormouse.resume resume=/dev/b", "/dev/b", 0, 0, false, false, false, true, -1},
        };
        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                struct dmo_cmdline c;
                int r = dmo_cmdline_parse(t[i].line, &c);
                bool ok = r == 0 && strcmp(c.resume, t[i].resume) == 0 &&
                          c.has_resume_offset == (t[i].has_off != 0) &&
                          (!t[i].has_off || c.resume_offset == t[i].off) &&
                          c.noresume == t[i].noresume && c.nohibernate == t[i].nohibernate &&
                          c.resumewait == t[i].wait && dmo_cmdline_wants_resume(&c) == t[i].wants &&
                          c.has_resumedelay == (t[i].delay >= 0) &&
                          (t[i].delay < 0 || c.resumedelay == (uint32_t)t[i].delay);
                if (!ok)
                        printf("# line %zu \"%s\": r=%d resume=\"%s\"\n", i, t[i].line, r,
                               c.resume);
                CHECK(ok);
        }
}

static void test_malformed_values_name_the_parameter(void)
{
        static const struct {
                const char *line, *param;
        } t[] = {
            {"resume_offset=abc", "resume_offset"},
            {"resume_offset=", "resume_offset"},
            {"resume_offset", "resume_offset"},
            {"resume_offset=-1", "resume_offset"},
            {"resume_offset=0x10", "resume_offset"},
            {"resume_offset=18446744073709551616", "resume_offset"},
            {"resumedelay=4294967296", "resumedelay"},
            {"resumedelay=1s", "resumedelay"},
        };
        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                struct dmo_cmdline c;
                CHECK_INT(dmo_cmdline_parse(t[i].line, &c), ==, -EINVAL);
                CHECK(strcmp(c.bad_param, t[i].param) == 0);
        }
        char longval[DMO_RESUME_SPEC_MAX + 20] = "resume=/dev/";
        memset(longval + 12, 'a', DMO_RESUME_SPEC_MAX);
        longval[12 + DMO_RESUME_SPEC_MAX] = '\0';
        struct dmo_cmdline c;
        CHECK_INT(dmo_cmdline_parse(longval, &c), ==, -EINVAL);
        CHECK(strcmp(c.bad_param, "resume") == 0);

        static char huge[DMO_CMDLINE_MAX + 10];
        memset(huge, 'x', sizeof(huge) - 1);
        CHECK_INT(dmo_cmdline_parse(huge, &c), ==, -EINVAL);
        CHECK(strcmp(c.bad_param, "cmdline") == 0);
        /* What came before the bad value is kept. */
        CHECK_INT(dmo_cmdline_parse("resume=/dev/x resume_offset=q", &c), ==, -EINVAL);
        CHECK(strcmp(c.resume, "/dev/x") == 0);
        CHECK_INT(dmo_cmdline_parse(NULL, &c), ==, -EINVAL);
}

/* lockdown= is kept as said (hibernate names it when the kernel refuses),
 * the last one winning, cut to its field. */
static void test_lockdown_is_kept_as_said(void)
{
        struct dmo_cmdline c;
        CHECK_INT(dmo_cmdline_parse("ro lockdown=integrity quiet", &c), ==, 0);
        CHECK(strcmp(c.lockdown, "integrity") == 0);
        CHECK_INT(dmo_cmdline_parse("lockdown=integrity \"lockdown=confidentiality\"", &c), ==, 0);
        CHECK(strcmp(c.lockdown, "confidentiality") == 0);
        CHECK_INT(dmo_cmdline_parse("lockdown", &c), ==, 0);
        CHECK(c.lockdown[0] == '\0');
        CHECK_INT(dmo_cmdline_parse("lockdown=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", &c), ==, 0);
        CHECK_INT(strlen(c.lockdown), ==, sizeof(c.lockdown) - 1);
}

static void test_resume_specs_are_classified(void)
{
        static const struct {
                const char *spec;
                int r;
                enum dmo_resume_spec_kind kind;
                const char *value;
                unsigned maj, min;
        } t[] = {
            {"/dev/vda2", 0, DMO_RESUME_PATH, "/dev/vda2", 0, 0},
            {"sda2", 0, DMO_RESUME_NAME, "sda2", 0, 0},
            {"UUID=0123-ab", 0, DMO_RESUME_UUID, "0123-ab", 0, 0},
            {"PARTUUID=ABCD-01", 0, DMO_RESUME_PARTUUID, "ABCD-01", 0, 0},
            {"LABEL=swap", 0, DMO_RESUME_LABEL, "swap", 0, 0},
            {"PARTLABEL=linux swap", 0, DMO_RESUME_PARTLABEL, "linux swap", 0, 0},
            {"254:2", 0, DMO_RESUME_MAJMIN, "254:2", 254, 2},
            {"259:1048575", 0, DMO_RESUME_MAJMIN, "259:1048575", 259, 1048575},
            {"fe02", 0, DMO_RESUME_DEVNO, "fe02", 254, 2},
            {"fff103ff", 0, DMO_RESUME_DEVNO, "fff103ff", 259, 1048575},
            {"", -EINVAL, 0, "", 0, 0},
            {"UUID=", -EINVAL, 0, "", 0, 0},
            {"254:", -EINVAL, 0, "", 0, 0},
            {":2", -EINVAL, 0, "", 0, 0},
            {"4096:0", -EINVAL, 0, "", 0, 0},
            {"8:1048576", -EINVAL, 0, "", 0, 0},
            {"8:x", -EINVAL, 0, "", 0, 0},
            {"../etc/passwd", -EINVAL, 0, "", 0, 0},
            {"PARTUUID=abcd/PARTNROFF=1", -EOPNOTSUPP, 0, "", 0, 0},
        };
        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                struct dmo_resume_spec s;
                int r = dmo_resume_spec_parse(t[i].spec, &s);
                bool ok = r == t[i].r;
                if (ok && r == 0)
                        ok = s.kind == t[i].kind && strcmp(s.value, t[i].value) == 0 &&
                             s.major == t[i].maj && s.minor == t[i].min;
                if (!ok)
                        printf("# spec \"%s\": r=%d\n", t[i].spec, r);
                CHECK(ok);
        }
}

static void test_resolution_against_a_fake_tree(void)
{
        char dev[512], sys[512], path[512];
        snprintf(dev, sizeof(dev), "%s/dev", dmo_test_tmpdir());
        snprintf(sys, sizeof(sys), "%s/sys", dmo_test_tmpdir());
        REQUIRE(dmo_test_sh("mkdir -p '%s/dev/block/254:2' '%s/dev/block/8:0' '%s/disk'", sys, sys,
                            dev) == 0);
        REQUIRE(dmo_test_sh("printf 'MAJOR=254\\nMINOR=2\\nDEVNAME=vda2\\nDEVTYPE=partition\\n' "
                            "> '%s/dev/block/254:2/uevent'",
                            sys) == 0);
        REQUIRE(dmo_test_sh("printf 'MAJOR=8\\nMINOR=0\\nDEVNAME=../../etc/passwd\\n' "
                            "> '%s/dev/block/8:0/uevent'",
                            sys) == 0);
        static const struct {
                const char *spec, *rel;
                int r;
        } t[] = {
            {"/dev/vda2", "/vda2", 0},
            {"/dev/mapper/vg-swap", "/mapper/vg-swap", 0},
            {"vda2", "/vda2", 0},
            {"254:2", "/vda2", 0},
            {"fe02", "/vda2", 0},
            {"UUID=5e4f-11", "/disk/by-uuid/5e4f-11", 0},
            {"PARTUUID=ABCDEF01-02", "/disk/by-partuuid/abcdef01-02", 0},
            {"LABEL=my swap/x", "/disk/by-label/my\\x20swap\\x2fx", 0},
            {"PARTLABEL=swap", "/disk/by-partlabel/swap", 0},
            {"9:9", NULL, -ENOENT},
            {"8:0", NULL, -EINVAL},
            {"", NULL, -EINVAL},
        };
        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                int r = dmo_resume_device_resolve(t[i].spec, dev, sys, path, sizeof(path));
                char want[600] = "";
                if (t[i].rel)
                        snprintf(want, sizeof(want), "%s%s", dev, t[i].rel);
                bool ok = r == t[i].r && (r != 0 || strcmp(path, want) == 0);
                if (!ok)
                        printf("# \"%s\" -> %d \"%s\" (want %d \"%s\")\n", t[i].spec, r,
                               r == 0 ? path : "", t[i].r, want);
                CHECK(ok);
        }
        /* A swap file given as a plain path is left alone. */
        CHECK_INT(dmo_resume_device_resolve("/swapfile", dev, sys, path, sizeof(path)), ==, 0);
        CHECK(strcmp(path, "/swapfile") == 0);
        char small[8];
        CHECK_INT(dmo_resume_device_resolve("vda2", dev, sys, small, sizeof(small)), ==,
                  -ENAMETOOLONG);
}

static double elapsed_ms(const struct timespec *a)
{
        struct timespec b;
        clock_gettime(CLOCK_MONOTONIC, &b);
        return (double)(b.tv_sec - a->tv_sec) * 1e3 + (double)(b.tv_nsec - a->tv_nsec) / 1e6;
}

static void test_waiting_for_a_device(void)
{
        char dev[400], sys[400], path[512];
        snprintf(dev, sizeof(dev), "%s/wdev", dmo_test_tmpdir());
        snprintf(sys, sizeof(sys), "%s/wsys", dmo_test_tmpdir());
        REQUIRE(dmo_test_sh("mkdir -p '%s' '%s'", dev, sys) == 0);
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        snprintf(path, sizeof(path), "%s/late", dev);
        CHECK_INT(dmo_wait_for_device(path, 100), ==, -ETIMEDOUT);
        double ms = elapsed_ms(&t0);
        CHECK(ms >= 95 && ms < 10000); /* waited for the timeout, did not hang */

        /* Appears after ~150 ms, through sysfs first. */
        REQUIRE(dmo_test_sh("(sleep 0.15; mkdir -p '%s/dev/block/253:7' && "
                            "printf 'DEVNAME=late\\n' > '%s/dev/block/253:7/uevent' && "
                            "touch '%s/late') &",
                            sys, sys, dev) == 0);
        /* A bound for a device that never comes, not a speed test: a loaded
         * machine may start the shell above late. */
        CHECK_INT(dmo_resume_device_wait("253:7", dev, sys, 30000, path, sizeof(path)), ==, 0);
        CHECK_STR_CONTAINS(path, "/wdev/late");
        CHECK_INT(dmo_wait_for_device(path, 0), ==, 0);
        CHECK_INT(dmo_resume_device_wait("253:8", dev, sys, 50, path, sizeof(path)), ==,
                  -ETIMEDOUT);
        CHECK_INT(dmo_resume_device_wait("4096:1", dev, sys, 50, path, sizeof(path)), ==, -EINVAL);
}

DMO_TEST_MAIN(T(test_resume_parameters_table), T(test_malformed_values_name_the_parameter),
              T(test_lockdown_is_kept_as_said), T(test_resume_specs_are_classified),
              T(test_resolution_against_a_fake_tree), T(test_waiting_for_a_device))
