/* Key files, passphrases, a hibernation's key: see keys.h. The resume's
 * side is unlock.c. */
#include "keys/keys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "keys/internal.h"

const char dmo_keys_default_public_key[] = DMO_SYSCONFDIR "/dormouse/pubkey";
const char dmo_keys_default_secret_key[] = DMO_SYSCONFDIR "/dormouse/secret.key";

void dmo_keys_fail(const struct dmo_keys_ui *ui, struct dmo_keys_failure f)
{
        if (ui && ui->fail)
                ui->fail(ui->ctx, &f);
}

int dmo_keys_ask(const struct dmo_keys_ui *ui, enum dmo_keys_question q, unsigned wrong,
                 unsigned attempts, char *buf, size_t cap)
{
        if (!ui || !ui->ask)
                return -ENOTTY;
        return ui->ask(ui->ctx, q, wrong, attempts, buf, cap);
}

int dmo_keys_yes_no(const struct dmo_keys_ui *ui, enum dmo_keys_question q, bool default_yes)
{
        if (!ui || !ui->yes_no)
                return -ENOTTY;
        return ui->yes_no(ui->ctx, q, default_yes);
}

int dmo_keys_read_all(int fd, char *buf, size_t cap, size_t *len)
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
                dmo_keys_fail(ui, (struct dmo_keys_failure){
                                      .fault = DMO_KEYS_FILE_OPEN, .path = path, .err = -r});
                return r;
        }
        int r = fstat(fd, &st) < 0 ? -errno : 0;
        if (r == 0 && !S_ISREG(st.st_mode)) {
                dmo_keys_fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_FILE_NOT_REGULAR,
                                                            .path = path});
                r = -EINVAL;
        }
        if (r == 0 && (st.st_mode & (S_IRWXG | S_IRWXO))) {
                /* Anyone who can read it can read the hibernated memory. */
                dmo_keys_fail(ui,
                              (struct dmo_keys_failure){.fault = DMO_KEYS_FILE_SHARED,
                                                        .path = path,
                                                        .mode = (unsigned)(st.st_mode & 07777)});
                r = -EPERM;
        }
        if (r == 0)
                r = dmo_crypto_secret_buf_new(DMO_PASSPHRASE_MAX + 1, &buf);
        size_t n = 0;
        if (r == 0) {
                r = dmo_keys_read_all(fd, buf, DMO_PASSPHRASE_MAX, &n);
                if (r == -EFBIG)
                        dmo_keys_fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_FILE_TOO_LONG,
                                                                    .path = path,
                                                                    .limit = DMO_PASSPHRASE_MAX});
                else if (r < 0)
                        dmo_keys_fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_FILE_READ,
                                                                    .path = path,
                                                                    .err = -r});
        }
        close(fd);
        if (r == 0) {
                /* The passphrase is the first line, as `echo pass > file` writes it. */
                n = first_line(buf, n);
                sodium_memzero(buf + n, DMO_PASSPHRASE_MAX + 1 - n);
                if (n == 0) {
                        dmo_keys_fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_FILE_EMPTY,
                                                                    .path = path});
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
                r = dmo_keys_ask(ui, q, 0, 0, a, DMO_PASSPHRASE_MAX + 1);
                if (r == 0)
                        r = dmo_keys_ask(ui, DMO_KEYS_ASK_REPEAT, 0, 0, b, DMO_PASSPHRASE_MAX + 1);
                if (r < 0)
                        break;
                if (!a[0]) {
                        dmo_keys_fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_TYPED_EMPTY});
                } else if (strcmp(a, b) != 0) {
                        dmo_keys_fail(ui,
                                      (struct dmo_keys_failure){.fault = DMO_KEYS_TYPED_DIFFERENT});
                } else {
                        dmo_crypto_secret_buf_free(b);
                        *pass = a;
                        *len = strlen(a);
                        return 0;
                }
                r = tries == 2 ? -EKEYREJECTED : 0;
        }
        if (r == -ENOTTY)
                dmo_keys_fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_NO_NEW_PASSPHRASE});
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
                dmo_keys_fail(ui, (struct dmo_keys_failure){
                                      .fault = DMO_KEYS_PUBLIC_OPEN, .path = path, .err = -r});
                return r;
        }
        int r = dmo_keys_read_all(fd, text, sizeof(text), &n);
        close(fd);
        if (r == 0)
                r = dmo_crypto_pubkey_parse(text, n, pk);
        if (r < 0)
                dmo_keys_fail(
                    ui, (struct dmo_keys_failure){.fault = DMO_KEYS_PUBLIC_PARSE, .path = path});
        return r;
}

static bool tpm_mode(enum dmo_encrypt_mode m)
{
        return m == DMO_ENCRYPT_TPM || m == DMO_ENCRYPT_TPM_PIN;
}

/* k wrapped for o->mode into env: in the TPM modes, to the public key (the
 * recovery). */
static int wrap(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui,
                const struct dmo_crypto_key *k, struct dmo_crypto_envelope *env)
{
        int r;
        if (o->mode == DMO_ENCRYPT_PUBKEY || tpm_mode(o->mode)) {
                uint8_t pk[DMO_CRYPTO_PUBKEY_LEN];
                const char *path = o->public_key ? o->public_key : dmo_keys_default_public_key;
                r = read_public_key(ui, path, pk);
                if (r == 0 && (r = dmo_crypto_wrap_pubkey(k, pk, env)) < 0)
                        dmo_keys_fail(ui, (struct dmo_keys_failure){
                                              .fault = DMO_KEYS_PUBLIC_UNUSABLE, .path = path});
                return r;
        }
        char *pass = NULL;
        size_t len = 0;
        r = dmo_keys_new_passphrase(o, ui, DMO_KEYS_ASK_IMAGE_NEW, &pass, &len);
        if (r == 0)
                r = dmo_crypto_wrap_passphrase(k, pass, len, &o->kdf, env);
        dmo_crypto_secret_buf_free(pass);
        if (r == -ENOMEM)
                dmo_keys_fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_KDF_MEMORY,
                                                            .limit = o->kdf.memlimit});
        return r;
}

/* k sealed by the TPM into tpm. */
static int seal(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui,
                const struct dmo_crypto_key *k, struct dmo_image_tpm *tpm)
{
#ifdef HAVE_TPM
        return tpm ? dmo_keys_tpm_hibernate(o, ui, k, tpm) : -EINVAL;
#else
        (void)o, (void)k, (void)tpm;
        dmo_keys_fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_TPM_NOT_BUILT});
        return -ENOTSUP;
#endif
}

int dmo_keys_hibernate(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui,
                       struct dmo_crypto_key **key, struct dmo_crypto_envelope *env,
                       struct dmo_image_tpm *tpm)
{
        struct dmo_crypto_key *k = NULL;
        int r = dmo_crypto_init();
        if (r == 0)
                r = dmo_crypto_key_new(&k);
        /* The TPM first: a machine without one, or without the counter,
         * is refused before anyone types a passphrase. */
        if (r == 0 && tpm_mode(o->mode))
                r = seal(o, ui, k, tpm);
        if (r == 0)
                r = wrap(o, ui, k, env);
        if (r < 0) {
                dmo_crypto_key_free(k);
                return r;
        }
        *key = k;
        return 0;
}

int dmo_keys_tpm_enroll(const struct dmo_keys_opts *o, const struct dmo_keys_ui *ui, bool *created,
                        uint64_t *value)
{
        uint8_t pk[DMO_CRYPTO_PUBKEY_LEN];
        *created = false;
        *value = 0;
        int r =
            read_public_key(ui, o->public_key ? o->public_key : dmo_keys_default_public_key, pk);
        if (r < 0)
                return r;
#ifdef HAVE_TPM
        return dmo_keys_tpm_counter_enroll(o, ui, created, value);
#else
        dmo_keys_fail(ui, (struct dmo_keys_failure){.fault = DMO_KEYS_TPM_NOT_BUILT});
        return -ENOTSUP;
#endif
}
