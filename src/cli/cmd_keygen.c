/* dormouse keygen: the key pair of public-key mode. The public key lets
 * hibernation encrypt with nobody there to type; the secret key, encrypted
 * under a passphrase, is all the initramfs holds. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/keys.h"
#include "util/i18n.h"

static void usage(FILE *f)
{
        fprintf(f,
                _("Usage: dormouse keygen [OPTIONS]\n"
                  "Make the key pair for \"encrypt = pubkey\": hibernation seals each image's key "
                  "to\nthe public key and asks nothing; resume asks for the passphrase that "
                  "protects\nthe secret key.\n\n"
                  "  --public-key FILE  default %s\n"
                  "  --secret-key FILE  default %s (stored encrypted, mode 0600)\n"
                  "  --key-file FILE    read the passphrase from FILE instead of asking twice\n"
                  "  --config FILE      default %s (kdf ops, kdf memory)\n"),
                dmo_keys_default_public_key, dmo_keys_default_secret_key,
                DMO_SYSCONFDIR "/dormouse.conf");
}

/* Creates path (never over an existing file) and writes len bytes. */
static int write_new(const char *path, const void *data, size_t len, mode_t mode)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
        if (fd < 0) {
                int r = -errno;
                if (errno == EEXIST)
                        dmo_cli_error(_("%s exists; keygen never replaces a key (images sealed "
                                        "to it would be lost): move it away first"),
                                      path);
                else
                        dmo_cli_error(_("cannot create %s: %s"), path, strerror(errno));
                return r;
        }
        /* umask may have kept bits we asked for; never more than mode. */
        int r = fchmod(fd, mode) < 0 ? -errno : 0;
        const char *p = data;
        while (r == 0 && len) {
                ssize_t n = write(fd, p, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        r = -errno;
                        break;
                }
                p += n;
                len -= (size_t)n;
        }
        if (r == 0 && fsync(fd) < 0)
                r = -errno;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        if (r < 0) {
                dmo_cli_error(_("cannot write %s: %s"), path, strerror(-r));
                unlink(path);
        }
        return r;
}

struct keygen_cmd {
        struct dmo_cli_common c;
        struct dmo_keys_opts k;
        bool help;
};

static int parse(struct keygen_cmd *g, int argc, char **argv)
{
        enum { O_PUBLIC = 1, O_SECRET, O_KEY_FILE, O_CONFIG, O_HELP };
        static const struct option opts[] = {
            {"public-key", required_argument, NULL, O_PUBLIC},
            {"secret-key", required_argument, NULL, O_SECRET},
            {"key-file", required_argument, NULL, O_KEY_FILE},
            {"config", required_argument, NULL, O_CONFIG},
            {"help", no_argument, NULL, O_HELP},
            {0},
        };
        int opt;
        optind = 1;
        while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (opt) {
                case O_PUBLIC:
                        g->k.public_key = optarg;
                        break;
                case O_SECRET:
                        g->k.secret_key = optarg;
                        break;
                case O_KEY_FILE:
                        g->k.key_file = optarg;
                        break;
                case O_CONFIG:
                        g->c.config_path = optarg;
                        g->c.config_path_given = true;
                        break;
                case O_HELP:
                        usage(stdout);
                        g->help = true;
                        return 0;
                default:
                        usage(stderr);
                        return -EINVAL;
                }
        }
        if (optind < argc) {
                dmo_cli_error(_("keygen: unexpected argument \"%s\""), argv[optind]);
                return -EINVAL;
        }
        int r = dmo_cli_common_finish(&g->c);
        if (r < 0)
                return r;
        const struct dmo_config *cfg = &g->c.config;
        dmo_cli_keyopts_from_config(&g->k, cfg);
        if (!g->k.public_key)
                g->k.public_key = dmo_keys_default_public_key;
        if (!g->k.secret_key)
                g->k.secret_key = dmo_keys_default_secret_key;
        g->k.mode = DMO_ENCRYPT_PASSPHRASE;
        return 0;
}

static int run(struct keygen_cmd *g)
{
        struct dmo_crypto_keypair *kp = NULL;
        uint8_t sealed[DMO_CRYPTO_SECRET_FILE_LEN], pk[DMO_CRYPTO_PUBKEY_LEN];
        char text[DMO_CRYPTO_PUBKEY_TEXT_LEN + 1];
        char *pass = NULL;
        size_t len = 0;
        struct dmo_cli_keys ui;
        dmo_cli_keys_init(&ui, NULL, NULL, NULL);
        int r = dmo_crypto_init();
        if (r == 0)
                r = dmo_keys_new_passphrase(&g->k, &ui.ui, DMO_KEYS_ASK_SECRET_NEW, &pass, &len);
        if (r == 0)
                r = dmo_crypto_keypair_new(&kp);
        if (r == 0)
                r = dmo_crypto_secret_seal(kp, pass, len, &g->k.kdf, sealed);
        dmo_crypto_secret_buf_free(pass);
        if (r == 0) {
                dmo_crypto_keypair_public(kp, pk);
                dmo_crypto_pubkey_format(pk, text);
        }
        dmo_crypto_keypair_free(kp);
        if (r == 0)
                r = write_new(g->k.secret_key, sealed, sizeof(sealed), 0600);
        if (r == 0) {
                r = write_new(g->k.public_key, text, strlen(text), 0644);
                if (r < 0)
                        unlink(g->k.secret_key); /* half a pair is no pair */
        }
        if (r == 0)
                fprintf(stderr,
                        _("dormouse: wrote the public key %s and the secret key %s (encrypted "
                          "under the passphrase; it goes into the initramfs). Set \"encrypt = "
                          "pubkey\" to use them.\n"),
                        g->k.public_key, g->k.secret_key);
        return r < 0 ? -EIO : 0;
}

int dmo_cmd_keygen(int argc, char **argv)
{
        struct keygen_cmd g = {0};
        dmo_cli_common_init(&g.c);
        int r = parse(&g, argc, argv);
        if (r == 0 && !g.help)
                r = run(&g);
        dmo_cli_common_release(&g.c);
        return dmo_cli_exit_status(DMO_CMD_KEYGEN, r);
}
