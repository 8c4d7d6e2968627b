/* Fuzz target: the theme keyfile parser, from memory, with a theme directory
 * (tests/fuzz/theme-base: tiny good and hostile images) so that the images a
 * keyfile names are decoded too. Fonts are not loaded (a missing fonts
 * directory); the painter's own target does fonts. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "splash/theme/theme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static char base[1024];
        if (!base[0]) {
                const char *src = getenv("DMO_SRCDIR");
                snprintf(base, sizeof(base), "%s/tests/fuzz/theme-base", src ? src : DMO_SRCDIR);
        }
        struct dmo_theme_paths paths = {.themes_dir = "/nonexistent", .fonts_dir = "/nonexistent"};
        struct dmo_diag diag = {0};
        struct dmo_theme *t = NULL;
        char line[700];

        if (dmo_theme_load_from_memory((const char *)data, size, base, &paths, &t, &diag) == 0) {
                (void)dmo_theme_name(t);
                (void)dmo_theme_dir(t);
                (void)dmo_theme_background_rgb(t);
                (void)dmo_theme_load_images(t, &diag); /* nothing pending: a no-op */
                dmo_theme_free(t);
        }
        for (size_t i = 0; i < diag.n; i++)
                dmo_diag_format(&diag.items[i], line, sizeof(line));
        dmo_diag_clear(&diag);
        return 0;
}
