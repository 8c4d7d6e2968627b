#include "splash/output/output.h"

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
        const char *why = ops && ops->unavailable_reason ? ops->unavailable_reason(err) : NULL;
        if (why)
                return why;
        if (err == -EINVAL)
                return _("Invalid splash output argument.");
        return NULL;
}
