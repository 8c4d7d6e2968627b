/* systemd's HibernateLocation: the EFI variable as efivarfs holds it, and
 * its JSON as systemd writes and reads it; hostile and foreign values are
 * refused, never half taken. */
#include "tests/testlib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/hibernate_location.h"
#include "kernel/efivar.h"

static const char vendor[] = DMO_EFI_SYSTEMD_VENDOR;

static void test_a_string_variable_round_trips_as_utf16(void)
{
        const char *dir = dmo_test_tmpdir();
        char buf[256];
        CHECK_INT(dmo_efivar_read_string(dir, "Test", vendor, buf, sizeof(buf)), ==, -ENOENT);
        CHECK_INT(dmo_efivar_write_string(dir, "Test", vendor, "{\"a\":\"é€\"}"), ==, 0);
        CHECK_INT(dmo_efivar_read_string(dir, "Test", vendor, buf, sizeof(buf)), ==, 0);
        CHECK(strcmp(buf, "{\"a\":\"é€\"}") == 0);

        /* The file: attributes NV|BS|RT, UTF-16LE, a NUL character. */
        char path[512], raw[64];
        snprintf(path, sizeof(path), "%s/Test-%s", dir, vendor);
        FILE *f = fopen(path, "rb");
        REQUIRE(f);
        size_t n = fread(raw, 1, sizeof(raw), f);
        fclose(f);
        CHECK_INT(n, ==, 4 + 2 * 10 + 2);
        CHECK(memcmp(raw, "\x07\0\0\0{\0\"\0", 8) == 0);
        CHECK(raw[n - 1] == 0 && raw[n - 2] == 0);

        /* Replaced, not appended to; deleted, and deleting again is fine. */
        CHECK_INT(dmo_efivar_write_string(dir, "Test", vendor, "x"), ==, 0);
        CHECK_INT(dmo_efivar_read_string(dir, "Test", vendor, buf, sizeof(buf)), ==, 0);
        CHECK(strcmp(buf, "x") == 0);
        CHECK_INT(dmo_efivar_delete(dir, "Test", vendor), ==, 0);
        CHECK_INT(dmo_efivar_delete(dir, "Test", vendor), ==, 0);
        CHECK_INT(dmo_efivar_read_string(dir, "Test", vendor, buf, sizeof(buf)), ==, -ENOENT);
}

static void test_what_efivarfs_cannot_hold_is_refused(void)
{
        const char *dir = dmo_test_tmpdir();
        char buf[8];
        /* Outside the Basic Multilingual Plane, and invalid UTF-8. */
        CHECK_INT(dmo_efivar_write_string(dir, "T", vendor, "\xf0\x9f\x90\xad"), ==, -EINVAL);
        CHECK_INT(dmo_efivar_write_string(dir, "T", vendor, "\xc3"), ==, -EINVAL);
        CHECK_INT(dmo_efivar_write_string(dir, "T", vendor, "\xc0\xaf"), ==, -EINVAL);
        CHECK_INT(dmo_efivar_write_string(dir, "../T", vendor, "x"), ==, -EINVAL);
        /* Odd lengths, lone surrogates, a value too long for the buffer. */
        static const uint8_t odd[] = {7, 0, 0, 0, 'a'};
        static const uint8_t surrogate[] = {7, 0, 0, 0, 0x00, 0xd8, 0, 0};
        static const uint8_t longer[] = {7, 0,   0, 0,   'a', 0,   'b', 0,   'c', 0, 'd',
                                         0, 'e', 0, 'f', 0,   'g', 0,   'h', 0,   0, 0};
        CHECK_INT(dmo_efivar_decode_string(odd, sizeof(odd), buf, sizeof(buf)), ==, -EINVAL);
        CHECK_INT(dmo_efivar_decode_string(surrogate, sizeof(surrogate), buf, sizeof(buf)), ==,
                  -EINVAL);
        CHECK_INT(dmo_efivar_decode_string(longer, sizeof(longer), buf, sizeof(buf)), ==, -ENOBUFS);
        CHECK_INT(dmo_efivar_decode_string(longer, 3, buf, sizeof(buf)), ==, -EINVAL);
}

static const struct dmo_hibernate_location debian = {
    .uuid = "0b5e9c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b",
    .offset = 34816,
    .kernel_version = "6.12.57+deb13-amd64",
    .os = {.id = "debian", .version_id = "13"},
};

static void test_the_json_is_systemds(void)
{
        char json[512];
        CHECK_INT(dmo_hibernate_location_format(&debian, json, sizeof(json)), ==, 0);
        CHECK(strcmp(json, "{\"uuid\":\"0b5e9c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b\",\"offset\":34816,"
                           "\"kernelVersion\":\"6.12.57+deb13-amd64\",\"osReleaseId\":\"debian\","
                           "\"osReleaseVersionId\":\"13\"}") == 0);
        struct dmo_hibernate_location back;
        CHECK_INT(dmo_hibernate_location_parse(json, &back), ==, 0);
        CHECK(memcmp(&back, &debian, sizeof(back)) == 0);
        CHECK_INT(dmo_hibernate_location_format(&debian, json, 40), ==, -ENOBUFS);

        /* What systemd 257 writes, key order and extra keys its own. */
        CHECK_INT(dmo_hibernate_location_parse(
                      "{ \"osReleaseId\" : \"debian\", \"offset\" : 0, \"future\" : [1],"
                      " \"uuid\" : \"0B5E9C1A2F3D4E5F8A9B0C1D2E3F4A5B\" }",
                      &back),
                  ==, 0);
        CHECK(strcmp(back.uuid, debian.uuid) == 0);
        CHECK_INT(back.offset, ==, 0);
        CHECK(back.kernel_version[0] == '\0');
        CHECK_INT(dmo_hibernate_location_parse("{\"uuid\":\"0b5e9c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b\","
                                               "\"offset\":18446744073709551615}",
                                               &back),
                  ==, 0);
        CHECK(back.offset == UINT64_MAX);
}

static void test_hostile_json_is_refused(void)
{
        static const char *const bad[] = {
            "",
            "null",
            "[]",
            "\"uuid\"",
            "{\"offset\":1}",
            "{\"uuid\":\"0b5e9c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b\"}",
            "{\"uuid\":\"0b5e9c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b\",\"offset\":-1}",
            "{\"uuid\":\"0b5e9c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b\",\"offset\":1.5}",
            "{\"uuid\":\"0b5e9c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b\",\"offset\":\"1\"}",
            "{\"uuid\":\"0b5e9c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5\",\"offset\":1}",
            "{\"uuid\":\"0b5e9c1a2f3d-4e5f-8a9b-0c1d2e3f4a5bb\",\"offset\":1}",
            "{\"uuid\":\"../../etc/passwd\",\"offset\":1}",
            "{\"uuid\":\"0b5e9c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b\",\"offset\":1} trailing",
            "{\"uuid\":\"0b5e9c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b\",\"offset\":1,\"osReleaseId\":7}",
            "{\"uuid\":\"0b5e9c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b\",\"offset\":1",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct dmo_hibernate_location loc;
                int r = dmo_hibernate_location_parse(bad[i], &loc);
                if (r != -EINVAL)
                        printf("# accepted: %s\n", bad[i]);
                CHECK_INT(r, ==, -EINVAL);
        }
}

static void test_only_this_installations_location_is_taken(void)
{
        const char *dir = dmo_test_tmpdir();
        char path[512];
        snprintf(path, sizeof(path), "%s/os-release", dir);
        FILE *f = fopen(path, "w");
        REQUIRE(f);
        fputs("PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nNAME=\"Debian GNU/Linux\"\n"
              "VERSION_ID=\"13\"\nID=debian\nHOME_URL=\"https://www.debian.org/\"\n",
              f);
        fclose(f);
        struct dmo_os_release self;
        CHECK_INT(dmo_os_release_read(path, &self), ==, 0);
        CHECK(strcmp(self.id, "debian") == 0);
        CHECK(strcmp(self.version_id, "13") == 0);
        CHECK(self.image_id[0] == '\0');
        CHECK(dmo_hibernate_location_is_ours(&debian, &self));
        /* Another kernel version is fine; another distribution is not. */
        struct dmo_hibernate_location other = debian;
        snprintf(other.kernel_version, sizeof(other.kernel_version), "6.1.0-40-amd64");
        CHECK(dmo_hibernate_location_is_ours(&other, &self));
        snprintf(other.os.id, sizeof(other.os.id), "fedora");
        CHECK(!dmo_hibernate_location_is_ours(&other, &self));
        snprintf(path, sizeof(path), "%s/no-os-release", dir);
        CHECK_INT(dmo_os_release_read(path, &self), ==, -ENOENT);
}

DMO_TEST_MAIN(T(test_a_string_variable_round_trips_as_utf16),
              T(test_what_efivarfs_cannot_hold_is_refused), T(test_the_json_is_systemds),
              T(test_hostile_json_is_refused), T(test_only_this_installations_location_is_taken))
