/* What a resume ended with, in words: the engine's outcome turned into a
 * sentence and the command's result. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "crypto/crypto.h"
#include "cli/report.h"
#include "engine/engine.h"
#include "kernel/kmsg.h"
#include "util/i18n.h"
#include "util/printable.h"

/* Says what happened; refusals and failures are also written into msg (for
 * the splash), and printed by the caller. Returns the command's result. */
/* Resume was started on a running system: nothing was touched. */
/* What a damaged image's error means, in words (not strerror's "Bad
 * message"). */
static const char *damage_reason(int err)
{
        switch (-err) {
        case EBADMSG:
                return _("a checksum did not match");
        case EIO:
                return _("the disk could not be read");
        case ENODATA:
                return _("the image ends before its last page");
        default:
                return strerror(-err);
        }
}

static void describe_live_system(const struct dmo_resume_result *res, const char *dev, char *msg,
                                 size_t len)
{
        if (res->live_reason == DMO_LIVE_SWAP_ACTIVE)
                snprintf(msg, len,
                         _("%s is in use as swap: this is a running system, and a "
                           "resume here would restore memory over file systems changed "
                           "since. Nothing was touched; resume runs from the initramfs "
                           "(use --noresume to discard the image)"),
                         dev);
        else if (res->live_reason == DMO_LIVE_ROOT_RW)
                snprintf(msg, len,
                         _("the root file system is mounted read-write: this is a "
                           "running system, and a resume here would restore memory over "
                           "file systems changed since. Nothing was touched on %s; "
                           "resume runs from the initramfs"),
                         dev);
        else
                snprintf(msg, len,
                         _("cannot tell whether this is an early boot (%s); nothing was "
                           "touched on %s"),
                         strerror(-res->error), dev);
}

/* The image's words: no escape sequence reaches the terminal or the
 * splash. */
void dmo_cli_printable_releases(const char *image_release, const char *running_release,
                                char made_by[65], char running[65])
{
        snprintf(made_by, 65, "%s", image_release);
        snprintf(running, 65, "%s", running_release);
        dmo_sanitize_printable(made_by);
        dmo_sanitize_printable(running);
}

static void releases(const struct dmo_resume_result *res, char made_by[65], char running[65])
{
        dmo_cli_printable_releases(res->image_release, res->running_release, made_by, running);
}

int dmo_cli_resume_describe(const struct dmo_resume_config *rc, const struct dmo_resume_result *res,
                            char *msg, size_t len, char *note, size_t note_len)
{
        const char *dev = rc->target.path;
        const struct dmo_engine_stats *s = &res->stats;
        double raw_mb = (double)s->image_pages * (double)s->page_size / 1e6;

        switch (res->outcome) {
        case DMO_RESUME_RESTORED:
                fprintf(stderr,
                        _("dormouse: restored %llu pages (%.1f MB) from %s in %.3f s (%.0f MB/s); "
                          "every page verified bit-exact by the simulated kernel\n"),
                        (unsigned long long)s->image_pages, raw_mb, dev, s->restore_s,
                        s->restore_s > 0 ? raw_mb / s->restore_s : 0.0);
                return 0;
        case DMO_RESUME_NO_IMAGE:
                return -ENODATA; /* quiet: this is every normal boot */
        case DMO_RESUME_DISCARDED:
                if (res->step == DMO_STEP_UNLOCK)
                        snprintf(note, note_len,
                                 _("dormouse: as you chose, the encrypted hibernation image on %s "
                                   "was discarded without resuming; %s is a plain swap area "
                                   "again\n"),
                                 dev, dev);
                else
                        snprintf(note, note_len,
                                 _("dormouse: noresume: the hibernation image on %s was "
                                   "discarded; %s is a plain swap area again\n"),
                                 dev, dev);
                fputs(note, stderr);
                return -ENODATA;
        case DMO_RESUME_FOREIGN:
                snprintf(note, note_len,
                         _("dormouse: %s carries a hibernation signature that is not dormouse's "
                           "(another tool's image, or a damaged one); leaving it alone. swapon "
                           "will reinitialise the area, or run mkswap on it.\n"),
                         dev);
                fputs(note, stderr);
                return -ENODATA;
        case DMO_RESUME_NOT_SWAP:
                if (res->step == DMO_STEP_OPEN_DEVICE)
                        snprintf(msg, len, _("%s: cannot open the resume device: %s"), dev,
                                 strerror(-res->error));
                else
                        snprintf(msg, len,
                                 _("%s: no swap signature; run mkswap on it, or point "
                                   "\"resume device\" at a swap area"),
                                 dev);
                return -EINVAL;
        case DMO_RESUME_REFUSED:
                if (res->step == DMO_STEP_KERNEL_MISMATCH) {
                        char made_by[sizeof(res->image_release)];
                        char running[sizeof(res->running_release)];
                        releases(res, made_by, running);
                        snprintf(msg, len,
                                 _("%s: the image was made by kernel %s but %s is running; it "
                                   "was discarded, as you confirmed"),
                                 dev, made_by, running);
                } else if (res->error == -ESTALE) {
                        snprintf(msg, len,
                                 _("%s: the image was restored once already, or is an older "
                                   "copy written back (the TPM's counter has moved on); "
                                   "nothing was restored"),
                                 dev);
                } else if (res->error == -EPROTONOSUPPORT)
                        snprintf(msg, len,
                                 _("%s: the image uses a format or encryption this dormouse "
                                   "does not support; update dormouse in the initramfs"),
                                 dev);
                else
                        snprintf(msg, len,
                                 _("%s: the image is damaged (%s while %s); nothing was "
                                   "restored"),
                                 dev, damage_reason(res->error), dmo_cli_step_text(res->step));
                break;
        case DMO_RESUME_MISMATCH:
                snprintf(msg, len,
                         _("%s: BUG: the restored memory differs from what was hibernated "
                           "(simulated kernel check)"),
                         dev);
                return -ENOTRECOVERABLE;
        case DMO_RESUME_FAILED:
                if (res->step == DMO_STEP_RESTORE || res->step == DMO_STEP_FREEZE)
                        snprintf(msg, len,
                                 _("%s: the kernel could not restore the image (%s while %s)"), dev,
                                 strerror(-res->error), dmo_cli_step_text(res->step));
                else
                        snprintf(msg, len, _("%s: dormouse could not load the image (%s while %s)"),
                                 dev, strerror(-res->error), dmo_cli_step_text(res->step));
                break;
        case DMO_RESUME_LIVE_SYSTEM:
                describe_live_system(res, dev, msg, len);
                return -EINVAL;
        case DMO_RESUME_OTHER_KERNEL: {
                char made_by[sizeof(res->image_release)];
                char running[sizeof(res->running_release)];
                releases(res, made_by, running);
                snprintf(msg, len,
                         _("%s: the image was made by kernel %s but %s is running. It is kept: "
                           "restart and choose kernel %s in the boot menu to resume, or boot "
                           "with \"noresume\" to discard it"),
                         dev, made_by, running, made_by);
                return -EXDEV;
        }
        case DMO_RESUME_LOCKED:
                if (res->error == -ENOTSUP)
                        snprintf(msg, len,
                                 _("%s: the image is encrypted with %s, which this CPU cannot "
                                   "run (it lacks the AES instructions); it is left on disk "
                                   "untouched. Resume it on the machine that hibernated, or "
                                   "discard it with --noresume"),
                                 dev, dmo_crypto_cipher_name(res->image_cipher));
                else if (res->error == -ENOKEY)
                        snprintf(msg, len,
                                 _("%s: the image is encrypted and no key was available; it is "
                                   "left on disk untouched. Resume again with its passphrase "
                                   "(--key-file FILE, or on a terminal), or discard it with "
                                   "--noresume"),
                                 dev);
                else
                        snprintf(msg, len,
                                 _("%s: the passphrase or key was not accepted; the encrypted "
                                   "image is left on disk untouched. Resume again with the right "
                                   "one, or discard it with --noresume"),
                                 dev);
                return res->error;
        case DMO_RESUME_KEPT:
                if (res->step == DMO_STEP_READ_IMAGE && res->error == -ENXIO &&
                    res->swap_area_bytes) {
                        snprintf(msg, len,
                                 _("%s: the device is %.1f MB, shorter than the swap area on it "
                                   "(%.1f MB), and the image reaches past its end; the image is "
                                   "kept, it may be whole past the end. Do not boot on: the file "
                                   "systems must stay as it expects them. Give the device its size "
                                   "back and resume again, or run \"dormouse resume --noresume\" "
                                   "to discard the image"),
                                 dev, (double)res->device_bytes / 1e6,
                                 (double)res->swap_area_bytes / 1e6);
                        return -EEXIST;
                }
                if (res->step == DMO_STEP_READ_IMAGE) {
                        snprintf(msg, len,
                                 _("%s: the disk could not be read (%s); the image is kept, it "
                                   "may be whole. Do not boot on: the file systems must stay as "
                                   "it expects them. Turn the machine off and on to try again, or "
                                   "run \"dormouse resume --noresume\" to discard the image"),
                                 dev, strerror(-res->error));
                        return -EEXIST;
                }
                snprintf(msg, len,
                         _("%s: the image could not be removed from the swap area (%s); it is "
                           "still there. Do not boot on: the file systems must stay as it "
                           "expects them. Make the device writable and resume again, or run "
                           "\"dormouse resume --noresume\" once it is writable to discard it"),
                         dev, strerror(-res->error));
                return -EEXIST;
        }
        return -EIO; /* refused: the reason is in msg */
}

void dmo_cli_resume_swap_state(const struct dmo_resume_result *res)
{
        fprintf(stderr, "%s\n",
                res->signature_cleared
                    ? _("dormouse: the swap area is usable again; booting normally. Do not "
                        "repair by hand the file systems that were mounted when the system "
                        "hibernated: their state was saved in the lost image.")
                    : _("dormouse: could not restore the swap signature; run mkswap on the "
                        "resume device before enabling swap."));
}

/* In the initramfs no journald runs: what was only on the screen is lost
 * to `journalctl -b`. The kernel's log buffer keeps it until journald
 * imports it. The real kernel's /dev/kmsg, or --kmsg; the simulated kernel
 * writes nowhere unless told. Nothing is restored by then: the engine has
 * returned without the jump into the saved system. */
void dmo_cli_resume_tell_journal(const char *kmsg, bool simulated, const char *msg,
                                 const char *note)
{
        const char *path = kmsg ? kmsg : simulated ? NULL : DMO_KMSG_PATH;
        const char *text = msg[0] ? msg : note;
        if (!path || !text[0])
                return;
        /* The printed sentence, without the program's name (the record has
         * it as its identifier) and the line's end. */
        static const char name[] = "dormouse: ";
        if (strncmp(text, name, sizeof(name) - 1) == 0)
                text += sizeof(name) - 1;
        enum dmo_kmsg_level level = msg[0] ? DMO_KMSG_ERR : DMO_KMSG_WARNING;
        int r = dmo_kmsg_write(path, level, "dormouse", text);
        if (r < 0 && kmsg)
                dmo_cli_note(_("--kmsg %s: %s"), kmsg, strerror(-r));
}
