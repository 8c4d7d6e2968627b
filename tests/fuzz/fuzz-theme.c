/* Fuzz target: the theme keyfile parser, from memory (no images, fonts from
 * $DMO_SRCDIR/fonts or the build-time source tree). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "splash/theme/theme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct dmo_theme_paths paths = {"/nonexistent", "/nonexistent"};
        struct dmo_diag diag = {0};
        struct dmo_theme *t = NULL;
        char line[700];

        if (dmo_theme_load_from_memory((const char *)data, size, NULL, &paths, &t, &diag) == 0) {
                (void)dmo_theme_name(t);
                (void)dmo_theme_background_rgb(t);
                dmo_theme_free(t);
        }
        for (size_t i = 0; i < diag.n; i++)
                dmo_diag_format(&diag.items[i], line, sizeof(line));
        dmo_diag_clear(&diag);
        return 0;
}
