/* The resume's side of the keys: the engine's unlock and consume hooks
 * (see keys.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "image/reader.h"
#include "keys/internal.h"

struct dmo_keys_unlock {
        const struct dmo_keys_opts *opts;
        const struct dmo_keys_ui *ui;
        struct dmo_crypto_key *key; /* what was unlocked */
        unsigned rejected;          /* wrong passphrases or keys */
        uint8_t sk_file[DMO_CRYPTO_SECRET_FILE_LEN];
        size_t sk_len;
        struct dmo_tpm *tpm; /* a TPM image's, open from unlock to consume */
        bool tpm_refused;    /* the recovery key is asked for instead */
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
#ifdef HAVE_TPM
        dmo_tpm_free(u->tpm);
#endif
        sodium_memzero(u, sizeof(*u));
        free(u);
}

static int read_secret_file(struct dmo_keys_unlock *u, const char *path)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                int r = -errno;
                dmo_keys_fail(u->ui, (struct dmo_keys_failure){
                                         .fault = DMO_KEYS_SECRET_OPEN, .path = path, .err = -r});
                return r;
        }
        int r = dmo_keys_read_all(fd, (char *)u->sk_file, DMO_CRYPTO_SECRET_FILE_LEN, &u->sk_len);
        close(fd);
        if (r < 0)
                dmo_keys_fail(
                    u->ui, (struct dmo_keys_failure){.fault = DMO_KEYS_SECRET_PARSE, .path = path});
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
        int r = dmo_keys_yes_no(u->ui, DMO_KEYS_ASK_TRY_AGAIN, true);
        /* Esc is no answer: it never leads towards the discard. */
        if (r == -ECANCELED || r == 1)
                return 1;
        if (r < 0)
                return r;
        r = dmo_keys_yes_no(u->ui, DMO_KEYS_ASK_BOOT_ANYWAY, false);
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
        /* After a TPM refusal the question itself says why a passphrase is
         * asked on a machine that never asked one: the screen may be all the
         * person sees. */
        const enum dmo_keys_question q = env->mode != DMO_ENCRYPT_PUBKEY ? DMO_KEYS_ASK_RESUME
                                         : u->tpm_refused                ? DMO_KEYS_ASK_RECOVERY
                                                                         : DMO_KEYS_ASK_RESUME_KEY;
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
                r = dmo_keys_ask(u->ui, q, wrong, attempts, pass, DMO_PASSPHRASE_MAX + 1);
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
                dmo_keys_fail(u->ui, (struct dmo_keys_failure){.fault = DMO_KEYS_NO_PASSPHRASE});
                r = -ENOKEY;
        }
        return r;
}

static int unlock_tpm(struct dmo_keys_unlock *u, const struct dmo_image_header *h)
{
#ifdef HAVE_TPM
        dmo_tpm_free(u->tpm);
        u->tpm = NULL;
        return dmo_keys_tpm_unlock(u->opts, u->ui, h, &u->tpm, &u->key);
#else
        (void)h;
        dmo_keys_fail(u->ui, (struct dmo_keys_failure){.fault = DMO_KEYS_TPM_NOT_BUILT});
        return -ENOTSUP;
#endif
}

int dmo_keys_unlock(void *ctx, const struct dmo_image_info *info, struct dmo_crypto_key **key)
{
        struct dmo_keys_unlock *u = ctx;
        const struct dmo_crypto_envelope *env = &info->header.crypto.env;
        int r = dmo_crypto_init();
        if (r < 0)
                return r;
        if (info->header.flags & DMO_IMAGE_F_TPM) {
                r = unlock_tpm(u, &info->header);
                if (r == 0 || r == -ENOMEM)
                        return r == 0 ? (*key = u->key, 0) : r;
                /* Refused, said: the recovery. */
                dmo_keys_fail(u->ui, (struct dmo_keys_failure){.fault = DMO_KEYS_TPM_RECOVERY});
                u->tpm_refused = true;
        }
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

int dmo_keys_consume(void *ctx, const struct dmo_image_info *info)
{
        struct dmo_keys_unlock *u = ctx;
        if (!(info->header.flags & DMO_IMAGE_F_TPM))
                return 0;
#ifdef HAVE_TPM
        return dmo_keys_tpm_consume(u->ui, u->tpm, &info->header.tpm);
#else
        /* Unlocked by the recovery: no TPM to check the counter with. */
        if (info->header.tpm.nv_index)
                dmo_keys_fail(u->ui, (struct dmo_keys_failure){.fault = DMO_KEYS_TPM_UNCHECKED});
        return 0;
#endif
}
