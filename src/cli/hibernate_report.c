/* What a hibernation ended with, in words: see report.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/report.h"
#include "util/i18n.h"

/* The device ended before the image did: it shrank while dormouse wrote
 * (the kernel cut a write short at its new end and failed the rest). */
static bool shrank(const struct dmo_hibernate_result *res)
{
        return res->error == -ENXIO && res->device_bytes_now < res->device_bytes;
}

/* The target has no swap signature: a configuration error, as for resume. */
static bool not_swap(const struct dmo_hibernate_result *res)
{
        return res->step == DMO_STEP_SWAP_HEADER &&
               (res->error == -ENODEV || res->error == -EINVAL);
}

void dmo_cli_hibernate_failure(const struct dmo_hibernate_result *res, const char *dev, char *buf,
                               size_t len)
{
        buf[0] = '\0';
        if (res->outcome == DMO_HIBERNATE_FAILED && not_swap(res))
                /* The same sentence as resume gives for the same device. */
                snprintf(buf, len,
                         _("%s: no swap signature; run mkswap on it, or point "
                           "\"resume device\" at a swap area"),
                         dev);
        else if (res->outcome == DMO_HIBERNATE_FAILED && shrank(res))
                snprintf(buf, len,
                         _("hibernation failed while %s (%s): the device ends at %.1f MB now, "
                           "not %.1f MB: it shrank while the image was being written"),
                         dmo_cli_step_text(res->step), dev, (double)res->device_bytes_now / 1e6,
                         (double)res->device_bytes / 1e6);
        else if (res->outcome == DMO_HIBERNATE_FAILED)
                snprintf(buf, len, _("hibernation failed while %s (%s): %s"),
                         dmo_cli_step_text(res->step), dev, strerror(-res->error));
}

static void report_failure(const struct dmo_hibernate_result *res, const char *dev,
                           const char *failure)
{
        dmo_cli_error("%s", failure);
        if (shrank(res))
                dmo_cli_note(_("the swap area's header on %s still gives it its old size, "
                               "larger than the device: run mkswap on %s before it is used as "
                               "swap again"),
                             dev, dev);
        if (res->error == -ENOSPC)
                dmo_cli_note(_("the swap area is too small for this image: it had %.1f MB free "
                               "and the image holds %.1f MB of memory before compression. Make "
                               "the area larger, or lower \"image size\" so the kernel frees "
                               "more memory first"),
                             (double)res->swap_free_bytes / 1e6, (double)res->image_bytes / 1e6);
        fprintf(stderr, "%s\n",
                res->signature_cleared && !shrank(res)
                    ? _("dormouse: nothing was hibernated; the system is running and "
                        "the swap area is intact")
                    : _("dormouse: nothing was hibernated; the system is running"));
}

int dmo_cli_hibernate_report(const struct dmo_hibernate_result *res, const char *dev,
                             bool simulated, const char *failure)
{
        switch (res->outcome) {
        case DMO_HIBERNATE_POWERED_OFF:
                if (res->went_down_into_image)
                        dmo_cli_error(_("the machine could not stay up: the image on %s could not "
                                        "be removed (%s), and a running system must never keep "
                                        "one; it went down into the image instead (%s), which "
                                        "still matches the disks"),
                                      dev, strerror(-res->sig_error),
                                      dmo_shutdown_name(res->shutdown_used));
                dmo_cli_print_stats(&res->stats);
                fprintf(stderr, _("dormouse: image written to %s; %s\n"), dev,
                        dmo_cli_went_down_text(res->shutdown_used, simulated));
                return 0;
        case DMO_HIBERNATE_RESUMED:
                fprintf(stderr, _("dormouse: resumed\n"));
                return 0;
        case DMO_HIBERNATE_ABORTED:
                fprintf(stderr,
                        _("dormouse: hibernation cancelled; the system is running and %s "
                          "is a plain swap area again\n"),
                        dev);
                return -ECANCELED;
        case DMO_HIBERNATE_FAILED:
                break;
        }
        report_failure(res, dev, failure);
        /* the engine's error is in the message; a device that is not a swap
         * area is a configuration error (exit 2), as for resume */
        return not_swap(res) ? -EINVAL : -EIO;
}
