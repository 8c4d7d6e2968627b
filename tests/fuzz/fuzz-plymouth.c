/* Fuzz target: Plymouth theme files (.plymouth keyfiles) translated into
 * theme.conf text, which the theme loader then reads. The file "lives" in
 * tests/fuzz/theme-base, so a theme without an absolute ImageDir finds the
 * throbber frames and hostile images there; absolute ImageDirs point under a
 * root that does not exist. Fonts are not looked up (a missing directory). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splash/theme/plymouth.h"
#include "splash/theme/theme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static char file[1024];
        if (!file[0]) {
                const char *src = getenv("DMO_SRCDIR");
                snprintf(file, sizeof(file), "%s/tests/fuzz/theme-base/fuzz.plymouth",
                         src ? src : DMO_SRCDIR);
        }
        struct dmo_theme_paths paths = {.themes_dir = "/nonexistent",
                                        .fonts_dir = "/nonexistent",
                                        .plymouth_root = "/nonexistent-root",
                                        .bgrt_dir = "/nonexistent"};
        struct dmo_diag diag = {0};
        char *conf = NULL, dir[512], line[700];

        if (dmo_plymouth_translate((const char *)data, size, file, &paths, &conf, dir, sizeof(dir),
                                   &diag) == 0) {
                struct dmo_theme *t = NULL;
                if (dmo_theme_load_from_memory(conf, strlen(conf), dir, &paths, &t, &diag) == 0)
                        dmo_theme_free(t);
                free(conf);
        }
        for (size_t i = 0; i < diag.n; i++)
                dmo_diag_format(&diag.items[i], line, sizeof(line));
        dmo_diag_clear(&diag);
        /* The setting is a C string: the first bytes of the input, terminated. */
        char setting[128];
        size_t n = size < sizeof(setting) - 1 ? size : sizeof(setting) - 1;
        memcpy(setting, data, n);
        setting[n] = '\0';
        (void)dmo_plymouth_is_ref(setting);
        return 0;
}
