/* splash-preview-tool: `dormouse preview` before the CLI wires it.
 *   splash-preview-tool THEME MODE PROGRESS WxH SCALE OUT.png [LANG] [password|question]
 *   splash-preview-tool THEME MODE FRAMES:N WxH SCALE OUTDIR
 * Themes and fonts come from the source tree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splash/preview.h"
#include "util/i18n.h"

int main(int argc, char **argv)
{
        static const char *const modes[] = {"hibernate", "resume", "aborted", "error"};
        struct dmo_theme_paths paths = {.themes_dir = DMO_SRCDIR "/themes",
                                        .fonts_dir = DMO_SRCDIR "/fonts"};
        struct dmo_preview_params p = {.paths = &paths};
        struct dmo_diag diag = {0};

        dmo_i18n_init();
        if (argc < 7) {
                fprintf(stderr,
                        "usage: %s THEME MODE PROGRESS|FRAMES:N WxH SCALE OUT [LANG] "
                        "[password|question]\n",
                        argv[0]);
                return 2;
        }
        p.theme = argv[1];
        for (int i = 0; i < 4; i++)
                if (!strcmp(argv[2], modes[i]))
                        p.kind = (enum dmo_scene_kind)i;
        if (!strncmp(argv[3], "FRAMES:", 7))
                p.frames = (unsigned)atoi(argv[3] + 7);
        else
                p.progress = atof(argv[3]);
        if (sscanf(argv[4], "%dx%d", &p.width, &p.height) != 2)
                return 2;
        p.scale = atof(argv[5]);
        p.output = argv[6];
        p.lang = argc > 7 && argv[7][0] ? argv[7] : NULL;
        if (argc > 8)
                p.dialog = !strcmp(argv[8], "password") ? DMO_DIALOG_PASSWORD : DMO_DIALOG_QUESTION;
        p.bullets = 9;
        int r = dmo_preview_render(&p, &diag);
        for (size_t i = 0; i < diag.n; i++) {
                char line[700];
                dmo_diag_format(&diag.items[i], line, sizeof(line));
                fprintf(stderr, "%s\n", line);
        }
        dmo_diag_clear(&diag);
        if (r < 0)
                fprintf(stderr, "preview failed: %s\n", strerror(-r));
        return r < 0;
}
