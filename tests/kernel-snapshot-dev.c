/* The real /dev/snapshot implementation, without ever opening it: ioctl
 * numbers and argument encodings as the kernel expects them, refusals of
 * the open logic on fake paths, and the reasons behind EPERM read from a
 * fake sysfs tree. */
#include "tests/testlib.h"

#include <errno.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kernel/snapshot_dev.h"

static void test_ioctl_numbers_match_the_reference_table(void)
{
        static const struct {
                unsigned long have, want;
                const char *name;
        } t[] = {
            {SNAPSHOT_FREEZE, 0x3301, "FREEZE"},
            {SNAPSHOT_UNFREEZE, 0x3302, "UNFREEZE"},
            {SNAPSHOT_ATOMIC_RESTORE, 0x3304, "ATOMIC_RESTORE"},
            {SNAPSHOT_FREE, 0x3305, "FREE"},
            {SNAPSHOT_FREE_SWAP_PAGES, 0x3309, "FREE_SWAP_PAGES"},
            {SNAPSHOT_S2RAM, 0x330B, "S2RAM"},
            {SNAPSHOT_SET_SWAP_AREA, 0x400C330D, "SET_SWAP_AREA"},
            {SNAPSHOT_GET_IMAGE_SIZE, 0x8008330E, "GET_IMAGE_SIZE"},
            {SNAPSHOT_PLATFORM_SUPPORT, 0x330F, "PLATFORM_SUPPORT"},
            {SNAPSHOT_POWER_OFF, 0x3310, "POWER_OFF"},
            {SNAPSHOT_CREATE_IMAGE, 0x40043311, "CREATE_IMAGE"},
            {SNAPSHOT_PREF_IMAGE_SIZE, 0x3312, "PREF_IMAGE_SIZE"},
            {SNAPSHOT_AVAIL_SWAP_SIZE, 0x80083313, "AVAIL_SWAP_SIZE"},
            {SNAPSHOT_ALLOC_SWAP_PAGE, 0x80083314, "ALLOC_SWAP_PAGE"},
        };
        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                if (t[i].have != t[i].want)
                        printf("# %s is %#lx, want %#lx\n", t[i].name, t[i].have, t[i].want);
                CHECK(t[i].have == t[i].want);
        }
        CHECK_INT(sizeof(struct resume_swap_area), ==, 12);
}

static void test_device_numbers_use_the_new_encoding(void)
{
        uint32_t v = 0;
        CHECK_INT(dmo_snapshot_encode_dev(254, 0, &v), ==, 0);
        CHECK_INT(v, ==, 0xfe00);
        CHECK_INT(dmo_snapshot_encode_dev(8, 17, &v), ==, 0);
        CHECK_INT(v, ==, 0x811);
        CHECK_INT(dmo_snapshot_encode_dev(259, 1048575, &v), ==, 0);
        CHECK_INT(v, ==, 0xfff103ff);
        CHECK_INT(dmo_snapshot_encode_dev(259, 300, &v), ==, 0);
        CHECK_INT(v, ==, (300 & 0xff) | (259 << 8) | ((300 & ~0xff) << 12));
        CHECK_INT(dmo_snapshot_encode_dev(259, 1048576, &v), ==, -EOVERFLOW);
        CHECK_INT(dmo_snapshot_encode_dev(4096, 0, &v), ==, -EOVERFLOW);
        /* For ordinary numbers it is the low half of glibc's dev_t. */
        CHECK_INT(dmo_snapshot_encode_dev(8, 17, &v), ==, 0);
        CHECK_INT(v, ==, (uint32_t)makedev(8, 17));
}

static void test_swap_area_argument_is_packed_and_checked(void)
{
        struct resume_swap_area a;
        struct dmo_swap_target t = {.path = "/dev/vda2", .dev = makedev(254, 2), .header_page = 0};
        CHECK_INT(dmo_snapshot_swap_area_encode(&t, &a), ==, 0);
        CHECK_INT(a.offset, ==, 0);
        CHECK_INT(a.dev, ==, 0xfe02);
        t.header_page = 34816;
        CHECK_INT(dmo_snapshot_swap_area_encode(&t, &a), ==, 0);
        uint8_t raw[12];
        memcpy(raw, &a, sizeof(raw));
        uint64_t off;
        uint32_t dev;
        memcpy(&off, raw, 8);
        memcpy(&dev, raw + 8, 4);
        CHECK_INT(off, ==, 34816);
        CHECK_INT(dev, ==, 0xfe02);
        t.dev = 0;
        CHECK_INT(dmo_snapshot_swap_area_encode(&t, &a), ==, -EINVAL);
        t.dev = makedev(259, 1 << 20);
        CHECK_INT(dmo_snapshot_swap_area_encode(&t, &a), ==, -EOVERFLOW);
        CHECK_INT(dmo_snapshot_swap_area_encode(NULL, &a), ==, -EINVAL);
}

static void test_open_refuses_missing_and_wrong_nodes(void)
{
        struct dmo_snapshot *s = NULL;
        char p[512];
        snprintf(p, sizeof(p), "%s/no-snapshot", dmo_test_tmpdir());
        CHECK_INT(dmo_snapshot_open_dev(p, DMO_SNAPSHOT_HIBERNATE, &s), ==, -ENOENT);
        CHECK_INT(dmo_snapshot_open_dev(p, DMO_SNAPSHOT_RESUME, &s), ==, -ENOENT);
        /* Something that is not the snapshot character device. */
        snprintf(p, sizeof(p), "%s/plain", dmo_test_tmpdir());
        REQUIRE(dmo_test_sh("touch '%s'", p) == 0);
        CHECK_INT(dmo_snapshot_open_dev(p, DMO_SNAPSHOT_HIBERNATE, &s), ==, -ENODEV);
        CHECK_INT(dmo_snapshot_open_dev(p, (enum dmo_snapshot_mode)5, &s), ==, -EINVAL);
        CHECK(s == NULL);
}

static const char *fake_tree(const char *name, const char *lockdown, const char *disk)
{
        static char root[512];
        snprintf(root, sizeof(root), "%s/%s", dmo_test_tmpdir(), name);
        if (dmo_test_sh("mkdir -p '%s/sys/kernel/security' '%s/sys/power'", root, root) != 0)
                return NULL;
        if (lockdown && dmo_test_sh("printf '%%s\\n' '%s' > '%s/sys/kernel/security/lockdown'",
                                    lockdown, root) != 0)
                return NULL;
        if (disk && dmo_test_sh("printf '%%s\\n' '%s' > '%s/sys/power/disk'", disk, root) != 0)
                return NULL;
        return root;
}

static void test_eperm_reasons_come_from_sysfs(void)
{
        char detail[32];
        const char *root = fake_tree("locked", "none integrity [confidentiality]", "[disabled]");
        REQUIRE(root);
        CHECK_INT(dmo_hibernation_disabled_reason(root, detail, sizeof(detail)), ==,
                  DMO_HIB_LOCKDOWN);
        CHECK(strcmp(detail, "confidentiality") == 0);
        char tiny[4];
        CHECK_INT(dmo_hibernation_disabled_reason(root, tiny, sizeof(tiny)), ==, DMO_HIB_LOCKDOWN);
        CHECK(strcmp(tiny, "con") == 0);

        root = fake_tree("nohibernate", "[none] integrity confidentiality", "[disabled]");
        REQUIRE(root);
        CHECK_INT(dmo_hibernation_disabled_reason(root, detail, sizeof(detail)), ==,
                  DMO_HIB_DISABLED);

        root = fake_tree("nolsm", NULL, "[disabled]");
        REQUIRE(root);
        CHECK_INT(dmo_hibernation_disabled_reason(root, NULL, 0), ==, DMO_HIB_DISABLED);

        /* securityfs not mounted (an initramfs): the command line tells
         * nohibernate from lockdown, and from Secure Boot's lockdown. */
        root = fake_tree("cmd-lockdown", NULL, "[disabled]");
        REQUIRE(root);
        REQUIRE(dmo_test_sh("mkdir -p '%s/proc' && echo 'ro lockdown=integrity quiet' > "
                            "'%s/proc/cmdline'",
                            root, root) == 0);
        CHECK_INT(dmo_hibernation_disabled_reason(root, detail, sizeof(detail)), ==,
                  DMO_HIB_LOCKDOWN);
        CHECK(strcmp(detail, "integrity") == 0);
        REQUIRE(dmo_test_sh("echo 'ro quiet' > '%s/proc/cmdline'", root) == 0);
        CHECK_INT(dmo_hibernation_disabled_reason(root, detail, sizeof(detail)), ==,
                  DMO_HIB_LOCKDOWN);
        CHECK(strcmp(detail, "Secure Boot") == 0);
        REQUIRE(dmo_test_sh("echo 'ro nohibernate' > '%s/proc/cmdline'", root) == 0);
        CHECK_INT(dmo_hibernation_disabled_reason(root, detail, sizeof(detail)), ==,
                  DMO_HIB_DISABLED);
        REQUIRE(dmo_test_sh("echo 'hibernate=no ro' > '%s/proc/cmdline'", root) == 0);
        CHECK_INT(dmo_hibernation_disabled_reason(root, detail, sizeof(detail)), ==,
                  DMO_HIB_DISABLED);
        REQUIRE(dmo_test_sh("echo 'hibernate=nocompress nohibernated' > '%s/proc/cmdline'", root) ==
                0);
        CHECK_INT(dmo_hibernation_disabled_reason(root, detail, sizeof(detail)), ==,
                  DMO_HIB_LOCKDOWN);

        root = fake_tree("nohib-config", NULL, NULL);
        REQUIRE(root);
        CHECK_INT(dmo_hibernation_disabled_reason(root, NULL, 0), ==, DMO_HIB_NOT_BUILT);

        root = fake_tree("fine", "[none] integrity", "[platform] shutdown reboot suspend");
        REQUIRE(root);
        int want = geteuid() == 0 ? DMO_HIB_UNKNOWN : DMO_HIB_NOT_PRIVILEGED;
        CHECK_INT(dmo_hibernation_disabled_reason(root, detail, sizeof(detail)), ==, want);
        CHECK(detail[0] == '\0');
}

DMO_TEST_MAIN(T(test_ioctl_numbers_match_the_reference_table),
              T(test_device_numbers_use_the_new_encoding),
              T(test_swap_area_argument_is_packed_and_checked),
              T(test_open_refuses_missing_and_wrong_nodes), T(test_eperm_reasons_come_from_sysfs))
