/* Key files, passphrases and the unlock hook: see keys.h. */
#include "cli/keys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <sodium.h>

#include "cli/cli.h"
#include "image/reader.h"
#include "util/i18n.h"
#include "util/tty.h"

const char dmo_cli_default_public_key[] = DMO_SYSCONFDIR "/dormouse/pubkey";
const char dmo_cli_default_secret_key[] = DMO_SYSCONFDIR "/dormouse/secret.key";

/* Reads up to cap bytes of an open file with read(2): no stdio buffer
 * keeps a copy. *len: bytes read; -EFBIG when the file holds more. */
static int read_all(int fd, char *buf, size_t cap, size_t *len)
{
        size_t got = 0;
        for (;;) {
                ssize_t n = read(fd, buf + got, cap - got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                got += (size_t)n;
                if (got == cap) {
                        char extra;
                        if (read(fd, &extra, 1) > 0)
                                return -EFBIG;
                        break;
                }
        }
        *len = got;
        return 0;
}

int dmo_cli_key_file_read(const char *path, char **pass, size_t *len)
{
        struct stat st;
        char *buf = NULL;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                int r = -errno;
                dmo_cli_error(_("key file %s: cannot open: %s"), path, strerror(errno));
                return r;
        }
        int r = fstat(fd, &st) < 0 ? -errno : 0;
        if (r == 0 && !S_ISREG(st.st_mode)) {
                dmo_cli_error(_("key file %s is not a regular file"), path);
                r = -EINVAL;
        }
        if (r == 0 && (st.st_mode & (S_IRWXG | S_IRWXO))) {
                /* Anyone who can read it can read the hibernated memory. */
                dmo_cli_error(_("key file %s can be read or changed by other users (mode %04o); "
                                "refusing it. Make it private: chmod 600 %s"),
                              path, (unsigned)(st.st_mode & 07777), path);
                r = -EPERM;
        }
        if (r == 0)
                r = dmo_crypto_secret_buf_new(DMO_PASSPHRASE_MAX + 1, &buf);
        size_t n = 0;
        if (r == 0) {
                r = read_all(fd, buf, DMO_PASSPHRASE_MAX, &n);
                if (r == -EFBIG)
                        dmo_cli_error(_("key file %s: a passphrase is at most %u bytes"), path,
                                      DMO_PASSPHRASE_MAX);
                else if (r < 0)
                        dmo_cli_error(_("key file %s: cannot read: %s"), path, strerror(-r));
        }
        close(fd);
        if (r == 0) {
                /* The passphrase is the first line, as `echo pass > file` writes it. */
                char *nl = memchr(buf, '\n', n);
                if (nl)
                        n = (size_t)(nl - buf);
                if (n && buf[n - 1] == '\r')
                        n--;
                sodium_memzero(buf + n, DMO_PASSPHRASE_MAX + 1 - n);
                if (n == 0) {
                        dmo_cli_error(_("key file %s holds no passphrase"), path);
                        r = -EINVAL;
                }
        }
        if (r < 0) {
                dmo_crypto_secret_buf_free(buf);
                return r == -EFBIG ? -EINVAL : r;
        }
        *pass = buf;
        *len = n;
        return 0;
}

/* A terminal with echo off: the text fallback of the password dialog. */
static int tty_ask(const char *prompt, char *buf, size_t cap, bool echo)
{
        /* The terminal on stdin, as the initramfs and a person at a shell
         * give it; under a service stdin is no terminal and nobody is
         * asked (the key file is the way then). */
        int fd = dmo_tty_reopen(STDIN_FILENO, O_RDWR);
        if (fd < 0)
                return -ENOTTY;
        struct termios old, quiet;
        bool restore = false;
        if (tcgetattr(fd, &old) == 0) {
                quiet = old;
                if (!echo)
                        quiet.c_lflag &= ~(tcflag_t)ECHO;
                quiet.c_lflag |= ICANON;
                restore = tcsetattr(fd, TCSAFLUSH, &quiet) == 0;
        }
        ssize_t w = write(fd, prompt, strlen(prompt));
        (void)w;
        size_t n = 0;
        int r = 0;
        for (;;) {
                char c;
                ssize_t got = read(fd, &c, 1);
                if (got < 0 && errno == EINTR)
                        continue;
                if (got <= 0) {
                        /* End of input: nobody is there to answer. */
                        r = got < 0 ? -errno : -ENOTTY;
                        break;
                }
                if (c == '\n' || c == '\r')
                        break;
                if (n + 1 < cap)
                        buf[n++] = c;
        }
        buf[n] = '\0';
        if (restore)
                tcsetattr(fd, TCSAFLUSH, &old);
        if (!echo)
                w = write(fd, "\n", 1);
        close(fd);
        if (r < 0)
                memset(buf, 0, cap);
        return r;
}

int dmo_cli_ask_passphrase(struct dmo_splash_session *s, const char *prompt, char *buf, size_t cap)
{
        int r = dmo_splash_session_ask_password(s, prompt, buf, cap);
        if (r != -ENOTTY)
                return r;
        char line[512];
        snprintf(line, sizeof(line), "%.500s ", prompt);
        return tty_ask(line, buf, cap, false);
}

int dmo_cli_ask_yes_no(struct dmo_splash_session *s, const char *prompt, bool default_yes)
{
        int r = dmo_splash_session_ask_yes_no(s, NULL, prompt, default_yes, -1);
        if (r != -ENOTTY)
                return r;
        char line[512], answer[16];
        snprintf(line, sizeof(line), "%s %s ", prompt, default_yes ? _("[Y/n]") : _("[y/N]"));
        r = tty_ask(line, answer, sizeof(answer), true);
        if (r < 0)
                return r;
        /* Only an explicit answer counts; Enter takes the default. */
        if (answer[0] == 'y' || answer[0] == 'Y' || strcmp(answer, _("y")) == 0)
                return 1;
        if (answer[0] == 'n' || answer[0] == 'N' || strcmp(answer, _("n")) == 0)
                return 0;
        return default_yes;
}

int dmo_cli_new_passphrase(const struct dmo_cli_keyopts *o, struct dmo_splash_session *s,
                           const char *prompt, char **pass, size_t *len)
{
        if (o->key_file)
                return dmo_cli_key_file_read(o->key_file, pass, len);
        char *a = NULL, *b = NULL;
        int r = dmo_crypto_secret_buf_new(DMO_PASSPHRASE_MAX + 1, &a);
        if (r == 0)
                r = dmo_crypto_secret_buf_new(DMO_PASSPHRASE_MAX + 1, &b);
        for (int tries = 0; r == 0 && tries < 3; tries++) {
                r = dmo_cli_ask_passphrase(s, prompt, a, DMO_PASSPHRASE_MAX + 1);
                if (r == 0)
                        r = dmo_cli_ask_passphrase(s, _("Repeat the passphrase:"), b,
                                                   DMO_PASSPHRASE_MAX + 1);
                if (r < 0)
                        break;
                if (!a[0]) {
                        dmo_cli_error(_("the passphrase is empty; type one"));
                } else if (strcmp(a, b) != 0) {
                        dmo_cli_error(_("the two passphrases differ; type them again"));
                } else {
                        dmo_crypto_secret_buf_free(b);
                        *pass = a;
                        *len = strlen(a);
                        return 0;
                }
                r = tries == 2 ? -EKEYREJECTED : 0;
        }
        if (r == -ENOTTY)
                dmo_cli_error(_("encryption needs a passphrase, and there is no terminal or "
                                "splash to ask for one; give --key-file FILE"));
        dmo_crypto_secret_buf_free(a);
        dmo_crypto_secret_buf_free(b);
        return r < 0 ? r : -EKEYREJECTED;
}

static int read_public_key(const char *path, uint8_t pk[DMO_CRYPTO_PUBKEY_LEN])
{
        char text[DMO_CRYPTO_PUBKEY_TEXT_LEN + 16];
        size_t n = 0;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                int r = -errno;
                dmo_cli_error(_("public key %s: cannot open: %s; make one with \"dormouse "
                                "keygen\""),
                              path, strerror(errno));
                return r;
        }
        int r = read_all(fd, text, sizeof(text), &n);
        close(fd);
        if (r == 0)
                r = dmo_crypto_pubkey_parse(text, n, pk);
        if (r < 0)
                dmo_cli_error(_("public key %s is not a dormouse public key (\"dormouse keygen\" "
                                "writes one)"),
                              path);
        return r;
}

int dmo_cli_hibernate_key(const struct dmo_cli_keyopts *o, struct dmo_splash_session *s,
                          struct dmo_crypto_key **key, struct dmo_crypto_envelope *env)
{
        struct dmo_crypto_key *k = NULL;
        int r = dmo_crypto_init();
        if (r == 0)
                r = dmo_crypto_key_new(&k);
        if (r < 0)
                return r;
        if (o->mode == DMO_ENCRYPT_PUBKEY) {
                uint8_t pk[DMO_CRYPTO_PUBKEY_LEN];
                const char *path = o->public_key ? o->public_key : dmo_cli_default_public_key;
                r = read_public_key(path, pk);
                if (r == 0 && (r = dmo_crypto_wrap_pubkey(k, pk, env)) < 0)
                        dmo_cli_error(_("public key %s cannot be used"), path);
        } else {
                char *pass = NULL;
                size_t len = 0;
                r = dmo_cli_new_passphrase(o, s, _("Passphrase for the hibernation image:"), &pass,
                                           &len);
                if (r == 0)
                        r = dmo_crypto_wrap_passphrase(k, pass, len, &o->kdf, env);
                dmo_crypto_secret_buf_free(pass);
                if (r == -ENOMEM)
                        dmo_cli_error(_("not enough memory for the key derivation (kdf memory "
                                        "%llu MiB); lower \"kdf memory\""),
                                      (unsigned long long)(o->kdf.memlimit >> 20));
        }
        if (r < 0) {
                dmo_crypto_key_free(k);
                return r;
        }
        *key = k;
        return 0;
}

/* ---- resume ---- */

static int read_secret_file(const char *path, uint8_t *file, size_t *len)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                int r = -errno;
                dmo_cli_error(_("secret key %s: cannot open: %s"), path, strerror(errno));
                return r;
        }
        int r = read_all(fd, (char *)file, DMO_CRYPTO_SECRET_FILE_LEN, len);
        close(fd);
        if (r < 0)
                dmo_cli_error(_("secret key %s is not a dormouse secret key"), path);
        return r;
}

/* One passphrase → the image key. -EKEYREJECTED: wrong. */
static int try_unlock(struct dmo_cli_unlock *u, const struct dmo_crypto_envelope *env,
                      const char *pass, size_t len, const uint8_t *sk_file, size_t sk_len)
{
        if (env->mode == DMO_ENCRYPT_PASSPHRASE)
                return dmo_crypto_unwrap_passphrase(env, pass, len, &u->key);
        struct dmo_crypto_keypair *kp = NULL;
        int r = dmo_crypto_secret_open(sk_file, sk_len, pass, len, &kp);
        if (r == 0) {
                r = dmo_crypto_unwrap_keypair(env, kp, &u->key);
                dmo_crypto_keypair_free(kp);
        }
        return r;
}

static struct dmo_splash_session *unlock_splash(struct dmo_cli_unlock *u)
{
        return u->splash ? u->splash(u->splash_ctx) : NULL;
}

/* After the wrong passphrases: try again (the default), or boot without
 * the image, which only a second, explicit yes discards (the image and its
 * unsaved work are then gone). Prompts are one line on the splash. 1: ask again;
 * -ECANCELED: discard; -ENOTTY: nobody to ask. */
static int after_failures(struct dmo_cli_unlock *u)
{
        struct dmo_splash_session *s = unlock_splash(u);
        int r = dmo_cli_ask_yes_no(s, _("Wrong passphrase. Try again?"), true);
        /* Esc is no answer: it never leads towards the discard. */
        if (r == -ECANCELED || r == 1)
                return 1;
        if (r < 0)
                return r;
        r = dmo_cli_ask_yes_no(s, _("Continue booting without resuming?"), false);
        if (r == -ECANCELED)
                return 1;
        if (r < 0)
                return r;
        return r == 1 ? -ECANCELED : 1;
}

int dmo_cli_unlock(void *ctx, const struct dmo_image_info *info, struct dmo_crypto_key **key)
{
        struct dmo_cli_unlock *u = ctx;
        const struct dmo_cli_keyopts *o = u->opts;
        const struct dmo_crypto_envelope *env = &info->header.crypto.env;
        uint8_t sk_file[DMO_CRYPTO_SECRET_FILE_LEN];
        size_t sk_len = 0;
        char *pass = NULL;
        size_t len = 0;
        int r = dmo_crypto_init();
        if (r < 0)
                return r;
        if (env->mode == DMO_ENCRYPT_PUBKEY) {
                const char *path = o->secret_key ? o->secret_key : dmo_cli_default_secret_key;
                r = read_secret_file(path, sk_file, &sk_len);
                if (r < 0)
                        return -ENOKEY;
        }
        if (o->key_file) {
                r = dmo_cli_key_file_read(o->key_file, &pass, &len);
                if (r == 0)
                        r = try_unlock(u, env, pass, len, sk_file, sk_len);
                dmo_crypto_secret_buf_free(pass);
                if (r == -EKEYREJECTED)
                        u->rejected++;
                else if (r < 0 && r != -ENOMEM)
                        r = -ENOKEY;
        } else {
                const bool pk = env->mode == DMO_ENCRYPT_PUBKEY;
                const char *prompt =
                    pk ? _("Passphrase of the resume key:") : _("Passphrase to resume:");
                char retry[256];
                unsigned attempts = o->attempts ? o->attempts : 3;
                r = dmo_crypto_secret_buf_new(DMO_PASSPHRASE_MAX + 1, &pass);
                unsigned wrong = 0; /* since the last choice */
                while (r == 0) {
                        if (wrong == attempts) {
                                wrong = 0;
                                r = after_failures(u);
                                if (r < 0)
                                        break;
                        }
                        /* A wrong one is said, in the prompt that follows it, with
                         * the count, so each retry reads differently. */
                        if (wrong)
                                snprintf(retry, sizeof(retry),
                                         pk ? _("Not accepted (%u of %u). Passphrase of the "
                                                "resume key:")
                                            : _("Not accepted (%u of %u). Passphrase to resume:"),
                                         wrong, attempts);
                        r = dmo_cli_ask_passphrase(unlock_splash(u), wrong ? retry : prompt, pass,
                                                   DMO_PASSPHRASE_MAX + 1);
                        if (r == -ECANCELED) { /* Esc: the choice, at once */
                                wrong = attempts;
                                r = 0;
                                continue;
                        }
                        if (r < 0)
                                break;
                        r = try_unlock(u, env, pass, strlen(pass), sk_file, sk_len);
                        if (r != -EKEYREJECTED)
                                break;
                        u->rejected++;
                        wrong++;
                        r = 0;
                }
                /* Nobody left to ask after wrong passphrases: still locked. */
                if (r == -ENOTTY && u->rejected)
                        r = -EKEYREJECTED;
                dmo_crypto_secret_buf_free(pass);
                if (r == -ENOTTY) {
                        dmo_cli_error(_("the image is encrypted and there is no terminal or "
                                        "splash to ask for its passphrase; give --key-file FILE"));
                        r = -ENOKEY;
                }
        }
        sodium_memzero(sk_file, sizeof(sk_file));
        if (r < 0)
                return r;
        *key = u->key;
        return 0;
}

void dmo_cli_unlock_release(struct dmo_cli_unlock *u)
{
        dmo_crypto_key_free(u->key);
        u->key = NULL;
}

void dmo_cli_warn_readable_swap(const char *path, bool encrypted)
{
        struct stat st;
        if (!path || stat(path, &st) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & S_IROTH))
                return;
        if (encrypted)
                dmo_cli_note(_("the swap file %s can be read by every user (mode %04o); the "
                               "image is encrypted, but make it private: chmod 600 %s"),
                             path, (unsigned)(st.st_mode & 07777), path);
        else
                dmo_cli_note(_("the swap file %s can be read by every user (mode %04o): they "
                               "could read the hibernated memory. chmod 600 %s"),
                             path, (unsigned)(st.st_mode & 07777), path);
}
