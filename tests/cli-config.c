#include "cli/config.h"

#include <errno.h>
#include <string.h>

#include "tests/testlib.h"

static void parse(struct dmo_config *cfg, struct dmo_config_notes *notes, const char *text)
{
        dmo_config_init(cfg);
        memset(notes, 0, sizeof(*notes));
        dmo_config_parse(cfg, text, strlen(text), notes);
}

static void suspend_utils_keys_are_understood(void)
{
        struct dmo_config cfg;
        struct dmo_config_notes notes;
        parse(&cfg, &notes,
              "# comment\n"
              "resume device = /dev/sda2\n"
              "resume offset = 34816\n"
              "image size = 3500000000\n"
              "compress = n\n"
              "shutdown method = reboot\n");
        CHECK(strcmp(cfg.resume_device, "/dev/sda2") == 0);
        CHECK_INT(cfg.resume_offset, ==, 34816);
        CHECK_INT(cfg.image_size, ==, 3500000000ll);
        CHECK_INT(cfg.compress, ==, DMO_COMPRESS_NONE);
        CHECK_INT(cfg.shutdown, ==, DMO_SHUTDOWN_REBOOT);
        CHECK_INT(notes.count, ==, 0);
}

static void key_spellings_are_equivalent(void)
{
        struct dmo_config cfg;
        struct dmo_config_notes notes;
        parse(&cfg, &notes, "Resume_Device: /dev/vda\nRESUME-OFFSET=7\n  compress  =  zstd  \n");
        CHECK(strcmp(cfg.resume_device, "/dev/vda") == 0);
        CHECK_INT(cfg.resume_offset, ==, 7);
        CHECK_INT(cfg.compress, ==, DMO_COMPRESS_ZSTD);
        CHECK_INT(notes.count, ==, 0);
}

static void ignored_and_unknown_keys_are_reported_with_line_numbers(void)
{
        struct dmo_config cfg;
        struct dmo_config_notes notes;
        parse(&cfg, &notes, "snapshot device = /dev/snapshot\n\nfrobnicate = 3\n");
        REQUIRE(notes.count == 2);
        CHECK_INT(notes.note[0].kind, ==, DMO_NOTE_IGNORED_KEY);
        CHECK_INT(notes.note[0].line, ==, 1);
        CHECK_INT(notes.note[1].kind, ==, DMO_NOTE_UNKNOWN_KEY);
        CHECK_INT(notes.note[1].line, ==, 3);
        CHECK(strcmp(notes.note[1].key, "frobnicate") == 0);
}

static void bad_values_keep_defaults(void)
{
        struct dmo_config cfg;
        struct dmo_config_notes notes;
        parse(&cfg, &notes,
              "compress = brotli\nresume offset = -5\nimage size = lots\nshutdown = "
              "explode\ntheme = ../../etc\nthreads = 9999\n");
        CHECK_INT(cfg.compress, ==, DMO_COMPRESS_LZ4);
        CHECK_INT(cfg.resume_offset, ==, -1);
        CHECK_INT(cfg.image_size, ==, -1);
        CHECK_INT(cfg.shutdown, ==, DMO_SHUTDOWN_PLATFORM);
        CHECK(cfg.theme[0] == '\0');
        CHECK_INT(cfg.threads, ==, 0);
        CHECK_INT(notes.count, ==, 6);
        for (unsigned i = 0; i < notes.count; i++)
                CHECK_INT(notes.note[i].kind, ==, DMO_NOTE_BAD_VALUE);
}

static void theme_takes_plymouth_settings_but_no_other_path(void)
{
        struct dmo_config cfg;
        struct dmo_config_notes notes;
        parse(&cfg, &notes, "theme = plymouth:spinner\n");
        CHECK(strcmp(cfg.theme, "plymouth:spinner") == 0);
        parse(&cfg, &notes, "theme = /usr/share/plymouth/themes/bgrt/bgrt.plymouth\n");
        CHECK(strcmp(cfg.theme, "/usr/share/plymouth/themes/bgrt/bgrt.plymouth") == 0);
        CHECK_INT(notes.count, ==, 0);
        parse(&cfg, &notes, "theme = ../bgrt/bgrt.plymouth\n");
        CHECK(cfg.theme[0] == '\0');
        CHECK_INT(notes.count, ==, 1);
        parse(&cfg, &notes, "theme = /usr/share/dormouse/themes/nocturne\n");
        CHECK(cfg.theme[0] == '\0');
}

static void lines_without_separator_are_syntax_notes(void)
{
        struct dmo_config cfg;
        struct dmo_config_notes notes;
        parse(&cfg, &notes, "just words\n= value without key\n");
        CHECK_INT(notes.count, ==, 2);
        CHECK_INT(notes.note[0].kind, ==, DMO_NOTE_SYNTAX);
}

static void embedded_nul_and_overlong_values_are_refused(void)
{
        struct dmo_config cfg;
        struct dmo_config_notes notes = {0};
        char text[2048];
        memset(text, 'x', sizeof(text));
        memcpy(text, "resume device = ", 16);
        dmo_config_init(&cfg);
        dmo_config_parse(&cfg, text, sizeof(text), &notes);
        CHECK(cfg.resume_device[0] == '\0');
        CHECK_INT(notes.count, ==, 1);

        static const char nul[] = "resume device = /dev/a\0b\n";
        dmo_config_init(&cfg);
        memset(&notes, 0, sizeof(notes));
        dmo_config_parse(&cfg, nul, sizeof(nul) - 1, &notes);
        CHECK(cfg.resume_device[0] == '\0');
}

static void many_problems_do_not_overflow_the_notes(void)
{
        struct dmo_config cfg;
        struct dmo_config_notes notes;
        char text[4096] = "";
        for (int i = 0; i < 100; i++)
                strcat(text, "bogus = 1\n");
        parse(&cfg, &notes, text);
        CHECK_INT(notes.count, ==, DMO_CONFIG_MAX_NOTES);
        CHECK_INT(notes.dropped, ==, 100 - DMO_CONFIG_MAX_NOTES);
}

/* The config's numbers go through util/parse.h (tested there): sizes take
 * suffixes, numbers are decimal or 0x hex. Behaviour change: a leading zero
 * no longer means octal ("010" was 8) and exponents ("1e3") are no size. */
static void numbers_use_the_one_parser(void)
{
        struct dmo_config cfg;
        struct dmo_config_notes notes;
        parse(&cfg, &notes, "image size = 1.5G\nresume offset = 010\nthreads = 0x10\n");
        CHECK_INT(cfg.image_size, ==, 3ll << 29);
        CHECK_INT(cfg.resume_offset, ==, 10);
        CHECK_INT(cfg.threads, ==, 16);
        CHECK_INT(notes.count, ==, 0);
        parse(&cfg, &notes, "image size = 1e3\ncompress level = 23\nthreads = -1\n");
        CHECK_INT(cfg.image_size, ==, -1);
        CHECK_INT(notes.count, ==, 3);
        for (unsigned i = 0; i < notes.count; i++)
                CHECK_INT(notes.note[i].kind, ==, DMO_NOTE_BAD_VALUE);
}

static void shutdown_names_and_aliases(void)
{
        enum dmo_shutdown m = DMO_SHUTDOWN_PLATFORM;
        CHECK_INT(dmo_shutdown_parse("Reboot", &m), ==, 0);
        CHECK_INT(m, ==, DMO_SHUTDOWN_REBOOT);
        CHECK_INT(dmo_shutdown_parse("poweroff", &m), ==, 0);
        CHECK_INT(m, ==, DMO_SHUTDOWN_POWEROFF);
        CHECK_INT(dmo_shutdown_parse("SUSPEND-TO-BOTH", &m), ==, 0);
        CHECK_INT(m, ==, DMO_SHUTDOWN_SUSPEND);
        CHECK_INT(dmo_shutdown_parse("halt", &m), ==, -EINVAL);
        CHECK_INT(dmo_shutdown_parse(NULL, &m), ==, -EINVAL);
        CHECK_INT(m, ==, DMO_SHUTDOWN_SUSPEND);
        for (int i = DMO_SHUTDOWN_PLATFORM; i <= DMO_SHUTDOWN_SUSPEND; i++) {
                const char *name = dmo_shutdown_name((enum dmo_shutdown)i);
                CHECK_INT(dmo_shutdown_parse(name, &m), ==, 0);
                CHECK_INT(m, ==, i);
        }
        CHECK(strcmp(dmo_shutdown_name(DMO_SHUTDOWN_POWEROFF), "shutdown") == 0);
        CHECK(strcmp(dmo_shutdown_name((enum dmo_shutdown)99), "?") == 0);
}

static void key_aliases_and_ignored_keys(void)
{
        struct dmo_config cfg;
        struct dmo_config_notes notes;
        parse(&cfg, &notes,
              "compression = zstd\ncompression level = 3\nshutdown = reboot\n"
              "fbsplash theme = x\nresume device uuid = y\n");
        CHECK_INT(cfg.compress, ==, DMO_COMPRESS_ZSTD);
        CHECK_INT(cfg.compress_level, ==, 3);
        CHECK_INT(cfg.shutdown, ==, DMO_SHUTDOWN_REBOOT);
        REQUIRE(notes.count == 2);
        CHECK_INT(notes.note[0].kind, ==, DMO_NOTE_IGNORED_KEY);
        CHECK_INT(notes.note[1].kind, ==, DMO_NOTE_IGNORED_KEY);
        CHECK_INT(dmo_config_apply(&cfg, "shutdown-method", "poweroff"), ==, 0);
        CHECK_INT(dmo_config_apply(&cfg, "rsa-key-file", "/x"), ==, -EOPNOTSUPP);
        CHECK_INT(dmo_config_apply(&cfg, "resume devcie", "/dev/x"), ==, -ENOENT);
        CHECK_INT(dmo_config_apply(&cfg, "threads", "many"), ==, -EINVAL);
}

static void encryption_keys_are_understood(void)
{
        struct dmo_config cfg;
        struct dmo_config_notes notes;
        parse(&cfg, &notes, "");
        CHECK_INT(cfg.encrypt, ==, DMO_ENCRYPT_NONE);
        CHECK(cfg.kdf.opslimit == DMO_KDF_OPSLIMIT_DEFAULT);
        parse(&cfg, &notes,
              "encrypt = pubkey\npublic key = /etc/k.pub\nsecret key = /etc/k.sec\n"
              "key file = /run/pass\nkdf ops = 4\nkdf memory = 128M\n");
        CHECK_INT(notes.count, ==, 0);
        CHECK_INT(cfg.encrypt, ==, DMO_ENCRYPT_PUBKEY);
        CHECK(strcmp(cfg.public_key, "/etc/k.pub") == 0);
        CHECK(strcmp(cfg.secret_key, "/etc/k.sec") == 0);
        CHECK(strcmp(cfg.key_file, "/run/pass") == 0);
        CHECK(cfg.kdf.opslimit == 4);
        CHECK(cfg.kdf.memlimit == 128ull << 20);
        /* suspend-utils' "encrypt = y" means a passphrase. */
        CHECK_INT(dmo_config_apply(&cfg, "encrypt", "y"), ==, 0);
        CHECK_INT(cfg.encrypt, ==, DMO_ENCRYPT_PASSPHRASE);
        CHECK_INT(dmo_config_apply(&cfg, "encrypt", "blowfish"), ==, -EINVAL);
        /* Costs outside libsodium's limits keep the old ones. */
        CHECK_INT(dmo_config_apply(&cfg, "kdf-ops", "0"), ==, -EINVAL);
        CHECK_INT(dmo_config_apply(&cfg, "kdf-memory", "1K"), ==, -EINVAL);
        CHECK(cfg.kdf.opslimit == 4);
        CHECK(cfg.kdf.memlimit == 128ull << 20);
}

static void missing_file_is_enoent(void)
{
        struct dmo_config cfg;
        dmo_config_init(&cfg);
        CHECK_INT(dmo_config_load(&cfg, "/nonexistent/dormouse.conf", NULL), ==, -ENOENT);
        CHECK_INT(dmo_config_load(&cfg, "/", NULL), ==, -EISDIR);
}

/* A network resume device is a string like any other here (cli/network.c
 * reads the URL); "network plain" is a yes/no, off by default. */
static void network_keys_are_understood(void)
{
        struct dmo_config cfg;
        struct dmo_config_notes notes;
        parse(&cfg, &notes, "resume device = nbd://server.lab:10810/swap-pc12\n");
        CHECK(strcmp(cfg.resume_device, "nbd://server.lab:10810/swap-pc12") == 0);
        CHECK(!cfg.network_plain);
        CHECK_INT(notes.count, ==, 0);
        parse(&cfg, &notes, "Network_Plain = yes\n");
        CHECK(cfg.network_plain);
        parse(&cfg, &notes, "network plain = yes\nnetwork-plain = no\n");
        CHECK(!cfg.network_plain);
        parse(&cfg, &notes, "network plain = sometimes\n");
        CHECK(!cfg.network_plain);
        REQUIRE(notes.count == 1);
        CHECK_INT(notes.note[0].kind, ==, DMO_NOTE_BAD_VALUE);
}

DMO_TEST_MAIN(T(suspend_utils_keys_are_understood), T(key_spellings_are_equivalent),
              T(ignored_and_unknown_keys_are_reported_with_line_numbers),
              T(bad_values_keep_defaults), T(theme_takes_plymouth_settings_but_no_other_path),
              T(lines_without_separator_are_syntax_notes),
              T(embedded_nul_and_overlong_values_are_refused),
              T(many_problems_do_not_overflow_the_notes), T(numbers_use_the_one_parser),
              T(shutdown_names_and_aliases), T(key_aliases_and_ignored_keys),
              T(encryption_keys_are_understood), T(missing_file_is_enoent),
              T(network_keys_are_understood))
