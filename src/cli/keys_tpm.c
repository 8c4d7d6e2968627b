/* The TPM's refusals and notes in words: see keys.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/keys.h"
#include "util/i18n.h"

bool dmo_cli_keys_tpm_fail(const struct dmo_keys_failure *f)
{
        switch (f->fault) {
        case DMO_KEYS_TPM_NOT_BUILT:
                dmo_cli_error(_("this dormouse was built without TPM support (tpm2-tss): "
                                "encrypt = tpm cannot be used; choose passphrase or pubkey"));
                return true;
        case DMO_KEYS_TPM_ABSENT:
                if (f->err == ENOPKG) {
                        dmo_cli_error(
                            _("encrypt = tpm needs the libraries of tpm2-tss "
                              "(libtss2-esys, libtss2-mu, libtss2-tctildr), which are not "
                              "installed; install them, or choose passphrase or pubkey"));
                        return true;
                }
                dmo_cli_error(_("no TPM 2.0 answers (%s): %s; is it enabled in the firmware?"),
                              f->path ? f->path : _("the default device"), strerror(f->err));
                return true;
        case DMO_KEYS_TPM_FAILED:
                dmo_cli_error(_("the TPM failed: %s"), strerror(f->err));
                return true;
        case DMO_KEYS_TPM_REFUSED:
                dmo_cli_error(_("the TPM refused to unseal the image key: the boot chain changed "
                                "since the hibernation (firmware, boot loader or Secure Boot "
                                "settings: the PCRs it was sealed to differ), the TPM was "
                                "cleared, or this is another machine"));
                return true;
        case DMO_KEYS_TPM_WRONG_PIN:
                dmo_cli_error(_("the TPM PIN was not accepted"));
                return true;
        case DMO_KEYS_TPM_RECOVERY:
                dmo_cli_note(_("the image is kept; it opens with the recovery key instead: the "
                               "secret key made by \"dormouse keygen\", and its passphrase"));
                return true;
        case DMO_KEYS_TPM_NO_COUNTER:
                dmo_cli_error(_("the TPM has no counter at NV index 0x%08llx; run \"dormouse "
                                "enroll-tpm\" first, or set \"tpm counter = no\""),
                              (unsigned long long)f->limit);
                return true;
        case DMO_KEYS_TPM_STALE:
                dmo_cli_error(_("the TPM's counter is at %llu but the image expects %llu: it was "
                                "restored once already, or is an older copy written back"),
                              (unsigned long long)f->value, (unsigned long long)f->limit);
                return true;
        case DMO_KEYS_TPM_UNCHECKED:
                dmo_cli_note(_("the image's TPM counter could not be checked (no TPM, or the "
                               "counter is gone with a TPM clear): it is restored without "
                               "rollback protection"));
                return true;
        default:
                return false;
        }
}
