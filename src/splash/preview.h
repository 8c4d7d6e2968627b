/* preview: renders a theme to PNG files without any device, for
 * `dormouse preview` and for looking at themes while making them.
 *
 * Contract: builds scenes the way the renderer would (a simulated run with
 * plausible phases, MB/s and time left when frames > 0), paints them through
 * the png output and writes files. Loads the theme itself; never touches
 * /dev/snapshot or any display. May set the process locale for `lang`.
 */
#ifndef DMO_SPLASH_PREVIEW_H
#define DMO_SPLASH_PREVIEW_H

#include "splash/scene.h"
#include "splash/theme/theme.h"

struct dmo_preview_params {
        const char *theme;                   /* name or directory */
        const struct dmo_theme_paths *paths; /* may be NULL */
        enum dmo_scene_kind kind;
        double progress;     /* 0..1, single-frame mode */
        int width, height;   /* 0: 1920×1080 */
        double scale;        /* 0: automatic */
        const char *lang;    /* e.g. "de", "ar"; NULL: environment */
        const char *output;  /* frames == 0: a .png file; else a directory */
        unsigned frames;     /* > 0: a whole simulated run */
        const char *message; /* NULL: a plausible one */
        const char *detail;  /* NULL: none (error mode: a plausible one) */
        enum dmo_dialog_kind dialog;
        unsigned bullets;
};

/* Fills scene as the renderer would show a run at overall fraction f. */
void dmo_preview_scene(enum dmo_scene_kind kind, double f, uint32_t frame, struct dmo_scene *scene);

/* Puts the dialog of that kind, with the prompt the program asks, on scene
 * (bullets: characters typed so far). The question pre-selects "No". */
void dmo_preview_dialog(enum dmo_dialog_kind kind, unsigned bullets, struct dmo_scene *scene);

/* 0, or a negative errno with the reason in diag. */
int dmo_preview_render(const struct dmo_preview_params *p, struct dmo_diag *diag);

#endif
