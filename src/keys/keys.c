/* Key files, passphrases and the unlock hook: see keys.h. */
#include "keys/keys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "image/reader.h"

const char dmo_keys_default_public_key[] = DMO_SYSCONFDIR "/dormouse/pubkey";
const char dmo_keys_default_secret_key[] = DMO_SYSCONFDIR "/dormouse/secret.key";

static void fail(const struct dmo_keys_ui *ui, struct dmo_keys_failure f)
{
        if (ui && ui->fail)
                ui->fail(ui->ctx, &f);
}

static int ask(const struct dmo_keys_ui *ui, enum dmo_keys_question q, unsigned wrong,
               unsigned attempts, char *buf, size_t cap)
{
        if (!ui || !ui->ask)
                return -ENOTTY;
        return ui->ask(ui->ctx, q, wrong, attempts, buf, cap);
}

static int yes_no(const struct dmo_keys_ui *ui, enum dmo_keys_question q, bool default_yes)
{
        if (!ui || !ui->yes_no)
                return -ENOTTY;
        return ui->yes_no(ui->ctx, q, default_yes);
}

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

/* The first line of buf[0..n): its length without "\n" or "\r\n". */
static size_t first_line(const char *buf, size_t n)
{
        const char *nl = memchr(buf, '\n', n);
        if (nl)
                n = (size_t)(nl - buf);
        if (n && buf[n - 1] == '\r')
                n--;
        return n;
}

int dmo_keys_file_read(const struct dmo_keys_ui *ui, const char *path, char **pass, size_t *len)
{
        struct stat st;
        char *buf = NULL;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                int r = -errno;
                fail(ui, (struct dmo_keys_failure){DMO_KEYS_FILE_OPEN, path, -r, 0, 0});
                return r;
        }
        int r = fstat(fd, &st) < 0 ? -errno : 0;
        if (r == 0 && !S_ISREG(st.st_mode)) {
                fail(ui, (struct dmo_keys_failure){DMO_KEYS_FILE_NOT_REGULAR, path, 0, 0, 0});
                r = -EINVAL;
        }
        if (r == 0 && (st.st_mode & (S_IRWXG | S_IRWXO))) {
                /* Anyone who can read it can read the hibernated memory. */
                fail(ui, (struct dmo_keys_failure){DMO_KEYS_FILE_SHARED, path, 0,
                                                   (unsigned)(st.st_mode & 07777), 0});
                r = -EPERM;
        }
        if (r == 0)
                r = dmo_crypto_secret_buf_new(DMO_PASSPHRASE_MAX + 1, &buf);
        size_t n = 0;
        if (r == 0) {
                r = read_all(fd, buf, DMO_PASSPHRASE_MAX, &n);
                if (r == -EFBIG)
                        fail(ui, (struct dmo_keys_failure){DMO_KEYS_FILE_TOO_LONG, path, 0, 0,
                                                           DMO_PASSPHRASE_MAX});
                else if (r < 0)
                        fail(ui, (struct dmo_keys_failure){DMO_KEYS_FILE_READ, path, -r, 0, 0});
        }
        close(fd);
        if (r == 0) {
                /* The passphrase is the first line, as `echo pass > file` writes it. */
                n = first_line(buf, n);
                sodium_memzero(buf + n, DMO_PASSPHRASE_MAX + 1 - n);
                if (n == 0) {
                        fail(ui, (struct dmo_keys_failure){DMO_KEYS_FILE_EMPTY, path, 0, 0, 0});
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

int dmo_keys_new_passphrase(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui,
                            enum dmo_keys_question q, char **pass, size_t *len)
{
        if (o->key_file)
                return dmo_keys_file_read(ui, o->key_file, pass, len);
        char *a = NULL, *b = NULL;
        int r = dmo_crypto_secret_buf_new(DMO_PASSPHRASE_MAX + 1, &a);
        if (r == 0)
                r = dmo_crypto_secret_buf_new(DMO_PASSPHRASE_MAX + 1, &b);
        for (int tries = 0; r == 0 && tries < 3; tries++) {
                r = ask(ui, q, 0, 0, a, DMO_PASSPHRASE_MAX + 1);
                if (r == 0)
                        r = ask(ui, DMO_KEYS_ASK_REPEAT, 0, 0, b, DMO_PASSPHRASE_MAX + 1);
                if (r < 0)
                        break;
                if (!a[0]) {
                        fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_TYPED_EMPTY});
                } else if (strcmp(a, b) != 0) {
                        fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_TYPED_DIFFERENT});
                } else {
                        dmo_crypto_secret_buf_free(b);
                        *pass = a;
                        *len = strlen(a);
                        return 0;
                }
                r = tries == 2 ? -EKEYREJECTED : 0;
        }
        if (r == -ENOTTY)
                fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_NO_NEW_PASSPHRASE});
        dmo_crypto_secret_buf_free(a);
        dmo_crypto_secret_buf_free(b);
        return r < 0 ? r : -EKEYREJECTED;
}

static int read_public_key(const struct dmo_keys_ui *ui, const char *path,
                           uint8_t pk[DMO_CRYPTO_PUBKEY_LEN])
{
        char text[DMO_CRYPTO_PUBKEY_TEXT_LEN + 16];
        size_t n = 0;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                int r = -errno;
                fail(ui, (struct dmo_keys_failure){DMO_KEYS_PUBLIC_OPEN, path, -r, 0, 0});
                return r;
        }
        int r = read_all(fd, text, sizeof(text), &n);
        close(fd);
        if (r == 0)
                r = dmo_crypto_pubkey_parse(text, n, pk);
        if (r < 0)
                fail(ui, (struct dmo_keys_failure){DMO_KEYS_PUBLIC_PARSE, path, 0, 0, 0});
        return r;
}

/* k wrapped for o->mode into env. */
static int wrap(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui,
                const struct dmo_crypto_key *k, struct dmo_crypto_envelope *env)
{
        int r;
        if (o->mode == DMO_ENCRYPT_PUBKEY) {
                uint8_t pk[DMO_CRYPTO_PUBKEY_LEN];
                const char *path = o->public_key ? o->public_key : dmo_keys_default_public_key;
                r = read_public_key(ui, path, pk);
                if (r == 0 && (r = dmo_crypto_wrap_pubkey(k, pk, env)) < 0)
                        fail(ui,
                             (struct dmo_keys_failure){DMO_KEYS_PUBLIC_UNUSABLE, path, 0, 0, 0});
                return r;
        }
        char *pass = NULL;
        size_t len = 0;
        r = dmo_keys_new_passphrase(o, ui, DMO_KEYS_ASK_IMAGE_NEW, &pass, &len);
        if (r == 0)
                r = dmo_crypto_wrap_passphrase(k, pass, len, &o->kdf, env);
        dmo_crypto_secret_buf_free(pass);
        if (r == -ENOMEM)
                fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_KDF_MEMORY,
                                                   .limit = o->kdf.memlimit});
        return r;
}

int dmo_keys_hibernate(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui,
                       struct dmo_crypto_key **key, struct dmo_crypto_envelope *env)
{
        struct dmo_crypto_key *k = NULL;
        int r = dmo_crypto_init();
        if (r == 0)
                r = dmo_crypto_key_new(&k);
        if (r == 0)
                r = wrap(o, ui, k, env);
        if (r < 0) {
                dmo_crypto_key_free(k);
                return r;
        }
        *key = k;
        return 0;
}

/* ---- resume ---- */

struct dmo_keys_unlock {
        const struct dmo_keys_opts *opts;
        const struct dmo_keys_ui *ui;
        struct dmo_crypto_key *key; /* what was unlocked */
        unsigned rejected;          /* wrong passphrases or keys */
        uint8_t sk_file[DMO_CRYPTO_SECRET_FILE_LEN];
        size_t sk_len;
};

int dmo_keys_unlock_new(const struct dmo_keys_opts *opts, const struct dmo_keys_ui *ui,
                        struct dmo_keys_unlock **out)
{
        struct dmo_keys_unlock *u = calloc(1, sizeof(*u));
        if (!u)
                return -ENOMEM;
        u->opts = opts;
        u->ui = ui;
        *out = u;
        return 0;
}

void dmo_keys_unlock_free(struct dmo_keys_unlock *u)
{
        if (!u)
                return;
        dmo_crypto_key_free(u->key);
        sodium_memzero(u, sizeof(*u));
        free(u);
}

static int read_secret_file(struct dmo_keys_unlock *u, const char *path)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                int r = -errno;
                fail(u->ui, (struct dmo_keys_failure){DMO_KEYS_SECRET_OPEN, path, -r, 0, 0});
                return r;
        }
        int r = read_all(fd, (char *)u->sk_file, DMO_CRYPTO_SECRET_FILE_LEN, &u->sk_len);
        close(fd);
        if (r < 0)
                fail(u->ui, (struct dmo_keys_failure){DMO_KEYS_SECRET_PARSE, path, 0, 0, 0});
        return r;
}

/* One passphrase → the image key. -EKEYREJECTED: wrong. */
static int try_unlock(struct dmo_keys_unlock *u, const struct dmo_crypto_envelope *env,
                      const char *pass, size_t len)
{
        if (env->mode == DMO_ENCRYPT_PASSPHRASE)
                return dmo_crypto_unwrap_passphrase(env, pass, len, &u->key);
        struct dmo_crypto_keypair *kp = NULL;
        int r = dmo_crypto_secret_open(u->sk_file, u->sk_len, pass, len, &kp);
        if (r == 0) {
                r = dmo_crypto_unwrap_keypair(env, kp, &u->key);
                dmo_crypto_keypair_free(kp);
        }
        return r;
}

/* After the wrong passphrases: try again (the default), or boot without
 * the image, which only a second, explicit yes discards (the image and its
 * unsaved work are then gone). 1: ask again; -ECANCELED: discard; -ENOTTY:
 * nobody to ask. */
static int after_failures(struct dmo_keys_unlock *u)
{
        int r = yes_no(u->ui, DMO_KEYS_ASK_TRY_AGAIN, true);
        /* Esc is no answer: it never leads towards the discard. */
        if (r == -ECANCELED || r == 1)
                return 1;
        if (r < 0)
                return r;
        r = yes_no(u->ui, DMO_KEYS_ASK_BOOT_ANYWAY, false);
        if (r == -ECANCELED)
                return 1;
        if (r < 0)
                return r;
        return r == 1 ? -ECANCELED : 1;
}

static int unlock_with_file(struct dmo_keys_unlock *u, const struct dmo_crypto_envelope *env)
{
        char *pass = NULL;
        size_t len = 0;
        int r = dmo_keys_file_read(u->ui, u->opts->key_file, &pass, &len);
        if (r == 0)
                r = try_unlock(u, env, pass, len);
        dmo_crypto_secret_buf_free(pass);
        if (r == -EKEYREJECTED)
                u->rejected++;
        else if (r < 0 && r != -ENOMEM)
                r = -ENOKEY;
        return r;
}

static int unlock_asking(struct dmo_keys_unlock *u, const struct dmo_crypto_envelope *env)
{
        const enum dmo_keys_question q =
            env->mode == DMO_ENCRYPT_PUBKEY ? DMO_KEYS_ASK_RESUME_KEY : DMO_KEYS_ASK_RESUME;
        unsigned attempts = u->opts->attempts ? u->opts->attempts : 3;
        char *pass = NULL;
        int r = dmo_crypto_secret_buf_new(DMO_PASSPHRASE_MAX + 1, &pass);
        unsigned wrong = 0; /* since the last choice */
        while (r == 0) {
                if (wrong == attempts) {
                        wrong = 0;
                        r = after_failures(u);
                        if (r < 0)
                                break;
                }
                r = ask(u->ui, q, wrong, attempts, pass, DMO_PASSPHRASE_MAX + 1);
                if (r == -ECANCELED) { /* Esc: the choice, at once */
                        wrong = attempts;
                        r = 0;
                        continue;
                }
                if (r < 0)
                        break;
                r = try_unlock(u, env, pass, strlen(pass));
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
                fail(u->ui, (struct dmo_keys_failure){.fault = DMO_KEYS_NO_PASSPHRASE});
                r = -ENOKEY;
        }
        return r;
}

int dmo_keys_unlock(void *ctx, const struct dmo_image_info *info, struct dmo_crypto_key **key)
{
        struct dmo_keys_unlock *u = ctx;
        const struct dmo_crypto_envelope *env = &info->header.crypto.env;
        int r = dmo_crypto_init();
        if (r < 0)
                return r;
        if (env->mode == DMO_ENCRYPT_PUBKEY) {
                const char *path =
                    u->opts->secret_key ? u->opts->secret_key : dmo_keys_default_secret_key;
                if (read_secret_file(u, path) < 0)
                        return -ENOKEY;
        }
        r = u->opts->key_file ? unlock_with_file(u, env) : unlock_asking(u, env);
        sodium_memzero(u->sk_file, sizeof(u->sk_file));
        if (r < 0)
                return r;
        *key = u->key;
        return 0;
}
