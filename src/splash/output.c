#include "splash/output.h"

#include <errno.h>
#include <string.h>

#include "util/i18n.h"

const struct dmo_output_ops *dmo_output_find(const char *name)
{
        static const struct dmo_output_ops *const all[] = {
            &dmo_output_kms,
            &dmo_output_fbdev,
            &dmo_output_png,
            &dmo_output_text,
        };
        if (!name)
                return NULL;
        for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
                if (strcmp(all[i]->name, name) == 0)
                        return all[i];
        return NULL;
}

const char *dmo_output_strerror(const struct dmo_output_ops *ops, int err)
{
        bool kms = ops == &dmo_output_kms, fb = ops == &dmo_output_fbdev;
        switch (err) {
        case -ENODEV:
                if (kms)
                        return _("No display device (/dev/dri/card*) appeared in time; "
                                 "falling back to another splash output.");
                if (fb)
                        return _("No framebuffer device (/dev/fb0); falling back to another "
                                 "splash output.");
                break;
        case -EBUSY:
                if (kms)
                        return _("Another program (a desktop session or display server) "
                                 "controls the display; the splash cannot draw on it. Run from "
                                 "a text console, or let the session hand over.");
                break;
        case -EACCES:
                if (kms)
                        return _("Not allowed to take over the display: run as root, from "
                                 "the active virtual terminal.");
                if (fb)
                        return _("Not allowed to open the framebuffer device: run as root.");
                break;
        case -EOPNOTSUPP:
                if (kms)
                        return _("The display driver has no dumb buffers; use --splash=fbdev "
                                 "or --splash=text.");
                if (fb)
                        return _("The framebuffer uses a pixel format the splash does not "
                                 "draw (only 16 and 32 bits per pixel true colour); use "
                                 "--splash=kms or --splash=text.");
                break;
        case -ENOTTY:
                if (fb)
                        return _("The framebuffer device given is not a framebuffer.");
                break;
        case -EINVAL:
                return _("Invalid splash output argument.");
        default:
                break;
        }
        return NULL;
}
