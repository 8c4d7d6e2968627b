/* The key module's questions and refusals in words: see keys.h. */
#include "cli/keys.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "util/i18n.h"

static struct dmo_splash_session *splash_of(struct dmo_cli_keys *k)
{
        if (k->session)
                return k->session;
        return k->splash ? k->splash(k->splash_ctx) : NULL;
}

static const char *question_text(enum dmo_keys_question q)
{
        switch (q) {
        case DMO_KEYS_ASK_IMAGE_NEW:
                return _("Passphrase for the hibernation image:");
        case DMO_KEYS_ASK_SECRET_NEW:
                return _("Passphrase for the secret key:");
        case DMO_KEYS_ASK_REPEAT:
                return _("Repeat the passphrase:");
        case DMO_KEYS_ASK_RESUME:
                return _("Passphrase to resume:");
        case DMO_KEYS_ASK_RESUME_KEY:
                return _("Passphrase of the resume key:");
        case DMO_KEYS_ASK_RECOVERY:
                return _("The TPM did not unlock the image. Passphrase of the recovery key:");
        case DMO_KEYS_ASK_TRY_AGAIN:
                return _("Wrong passphrase. Try again?");
        case DMO_KEYS_ASK_BOOT_ANYWAY:
                return _("Continue booting without resuming?");
        case DMO_KEYS_ASK_PIN_NEW:
                return _("PIN for the TPM:");
        case DMO_KEYS_ASK_PIN:
                return _("TPM PIN to resume:");
        }
        return "?";
}

static int ui_ask(void *ctx, enum dmo_keys_question q, unsigned wrong, unsigned attempts, char *buf,
                  size_t cap)
{
        char retry[256];
        /* A wrong one is said, in the prompt that follows it, with the
         * count, so each retry reads differently. */
        if (wrong && q == DMO_KEYS_ASK_PIN)
                snprintf(retry, sizeof(retry), _("Not accepted (%u of %u). TPM PIN to resume:"),
                         wrong, attempts);
        else if (wrong)
                snprintf(retry, sizeof(retry),
                         q == DMO_KEYS_ASK_RECOVERY
                             ? _("Not accepted (%u of %u). Passphrase of the recovery key:")
                         : q == DMO_KEYS_ASK_RESUME_KEY
                             ? _("Not accepted (%u of %u). Passphrase of the resume key:")
                             : _("Not accepted (%u of %u). Passphrase to resume:"),
                         wrong, attempts);
        return dmo_cli_ask_passphrase(splash_of(ctx), wrong ? retry : question_text(q), buf, cap);
}

static int ui_yes_no(void *ctx, enum dmo_keys_question q, bool default_yes)
{
        return dmo_cli_ask_yes_no(splash_of(ctx), question_text(q), default_yes);
}

static void ui_fail(void *ctx, const struct dmo_keys_failure *f)
{
        const char *p = f->path;
        (void)ctx;
        if (dmo_cli_keys_tpm_fail(f))
                return;
        switch (f->fault) {
        case DMO_KEYS_FILE_OPEN:
                dmo_cli_error(_("key file %s: cannot open: %s"), p, strerror(f->err));
                break;
        case DMO_KEYS_FILE_NOT_REGULAR:
                dmo_cli_error(_("key file %s is not a regular file"), p);
                break;
        case DMO_KEYS_FILE_SHARED:
                dmo_cli_error(_("key file %s can be read or changed by other users (mode %04o); "
                                "refusing it. Make it private: chmod 600 %s"),
                              p, f->mode, p);
                break;
        case DMO_KEYS_FILE_TOO_LONG:
                dmo_cli_error(_("key file %s: a passphrase is at most %u bytes"), p,
                              (unsigned)f->limit);
                break;
        case DMO_KEYS_FILE_READ:
                dmo_cli_error(_("key file %s: cannot read: %s"), p, strerror(f->err));
                break;
        case DMO_KEYS_FILE_EMPTY:
                dmo_cli_error(_("key file %s holds no passphrase"), p);
                break;
        case DMO_KEYS_TYPED_EMPTY:
                dmo_cli_error(_("the passphrase is empty; type one"));
                break;
        case DMO_KEYS_TYPED_DIFFERENT:
                dmo_cli_error(_("the two passphrases differ; type them again"));
                break;
        case DMO_KEYS_NO_NEW_PASSPHRASE:
                dmo_cli_error(_("encryption needs a passphrase, and there is no terminal or "
                                "splash to ask for one; give --key-file FILE"));
                break;
        case DMO_KEYS_PUBLIC_OPEN:
                dmo_cli_error(_("public key %s: cannot open: %s; make one with \"dormouse "
                                "keygen\""),
                              p, strerror(f->err));
                break;
        case DMO_KEYS_PUBLIC_PARSE:
                dmo_cli_error(_("public key %s is not a dormouse public key (\"dormouse keygen\" "
                                "writes one)"),
                              p);
                break;
        case DMO_KEYS_PUBLIC_UNUSABLE:
                dmo_cli_error(_("public key %s cannot be used"), p);
                break;
        case DMO_KEYS_KDF_MEMORY:
                dmo_cli_error(_("not enough memory for the key derivation (kdf memory "
                                "%llu MiB); lower \"kdf memory\""),
                              (unsigned long long)(f->limit >> 20));
                break;
        case DMO_KEYS_SECRET_OPEN:
                dmo_cli_error(_("secret key %s: cannot open: %s"), p, strerror(f->err));
                break;
        case DMO_KEYS_SECRET_PARSE:
                dmo_cli_error(_("secret key %s is not a dormouse secret key"), p);
                break;
        case DMO_KEYS_NO_PASSPHRASE:
                dmo_cli_error(_("the image is encrypted and there is no terminal or "
                                "splash to ask for its passphrase; give --key-file FILE"));
                break;
        default: /* the TPM's, said above */
                break;
        }
}

void dmo_cli_keys_init(struct dmo_cli_keys *k, struct dmo_splash_session *session,
                       struct dmo_splash_session *(*splash)(void *ctx), void *splash_ctx)
{
        *k = (struct dmo_cli_keys){
            .session = session,
            .splash = splash,
            .splash_ctx = splash_ctx,
            .ui = {.ctx = k, .ask = ui_ask, .yes_no = ui_yes_no, .fail = ui_fail},
        };
}

int dmo_cli_keys_option(struct dmo_cli_keyargs *k, int opt, const char *arg)
{
        if (opt == OPT_ENCRYPT)
                k->encrypt = arg;
        else if (opt == OPT_KEY_FILE)
                k->opts.key_file = arg;
        else if (opt == OPT_PUBLIC_KEY)
                k->opts.public_key = arg;
        else if (opt == OPT_SECRET_KEY)
                k->opts.secret_key = arg;
        else if (opt == OPT_TPM_DEVICE)
                k->opts.tpm_device = arg;
        else if (opt == OPT_TPM_PCRS)
                k->tpm_pcrs = arg;
        else
                return 0;
        return 1;
}

int dmo_cli_keys_finish(struct dmo_cli_keyargs *k, const struct dmo_config *cfg)
{
        k->opts.mode = cfg->encrypt;
        if (k->encrypt && dmo_encrypt_mode_parse(k->encrypt, &k->opts.mode) < 0) {
                dmo_cli_error(_("--encrypt: \"%s\" is unknown; use passphrase, pubkey, tpm, "
                                "tpm+passphrase or none"),
                              k->encrypt);
                return -EINVAL;
        }
        dmo_cli_keyopts_from_config(&k->opts, cfg);
        if (k->tpm_pcrs && dmo_keys_pcrs_parse(k->tpm_pcrs, &k->opts.tpm_pcrs) < 0) {
                dmo_cli_error(_("--tpm-pcrs: \"%s\" is not a list of PCRs 0 to 23 (like 7 or "
                                "0+7)"),
                              k->tpm_pcrs);
                return -EINVAL;
        }
        return 0;
}

/* A note when the swap file at path can be read by other users: with
 * encryption off they could read the memory it will hold. */
static void warn_readable_swap(const char *path, bool encrypted)
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

int dmo_cli_hibernate_key(const struct dmo_keys_opts *o, struct dmo_splash_session *splash,
                          const char *swap_path, struct dmo_cli_image_keys *out,
                          struct dmo_hibernate_config *hc)
{
        struct dmo_cli_keys ui;
        warn_readable_swap(swap_path, o->mode != DMO_ENCRYPT_NONE);
        if (o->mode == DMO_ENCRYPT_NONE)
                return 0;
        dmo_cli_keys_init(&ui, splash, NULL, NULL);
        int r = dmo_keys_hibernate(o, &ui.ui, &out->key, &out->envelope, &out->tpm);
        if (r < 0)
                return r == -ECANCELED ? r : -EKEYREJECTED;
        hc->key = out->key;
        hc->envelope = &out->envelope;
        hc->tpm = out->tpm.blob_len ? &out->tpm : NULL;
        return 0;
}

void dmo_cli_keyopts_from_config(struct dmo_keys_opts *o, const struct dmo_config *cfg)
{
        if (!o->key_file && cfg->key_file[0])
                o->key_file = cfg->key_file;
        if (!o->public_key && cfg->public_key[0])
                o->public_key = cfg->public_key;
        if (!o->secret_key && cfg->secret_key[0])
                o->secret_key = cfg->secret_key;
        o->kdf = cfg->kdf;
        if (!o->tpm_device && cfg->tpm_device[0])
                o->tpm_device = cfg->tpm_device;
        o->tpm_pcrs = cfg->tpm_pcrs;
        o->tpm_counter = cfg->tpm_counter;
}
