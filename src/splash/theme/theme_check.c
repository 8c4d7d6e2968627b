#include "splash/theme/theme_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "splash/paint/painter.h"
#include "splash/preview.h"
#include "splash/theme/theme-private.h"
#include "util/i18n.h"

static const int check_sizes[][2] = {{800, 600}, {1280, 800}, {1920, 1080}, {3840, 2160}};
static const char *const mode_names[DMO_SCENE_KINDS] = {
    [DMO_SCENE_HIBERNATE] = "hibernate",       [DMO_SCENE_RESUME] = "resume",
    [DMO_SCENE_ABORTED] = "aborted",           [DMO_SCENE_ERROR] = "error",
    [DMO_SCENE_RESUME_ERROR] = "resume-error",
};

static bool rect_inside(const struct dmo_rect *r, int w, int h)
{
        return r->x >= 0 && r->y >= 0 && r->x + r->w <= w && r->y + r->h <= h;
}

static void check_size(const struct dmo_theme *t, int w, int h, struct dmo_diag *diag,
                       const char *file)
{
        static const struct {
                enum dmo_painter_box box;
                const char *key;
        } texts[] = {
            {DMO_BOX_TITLE, "title"}, {DMO_BOX_SUBTITLE, "subtitle"}, {DMO_BOX_STATS, "stats"}};
        struct dmo_painter *p = NULL;
        int r = dmo_painter_new(t, w, h, 0, 0, &p);
        if (r < 0) {
                dmo_diag_add(diag, DMO_DIAG_ERROR, file, 0, NULL,
                             _("cannot lay the theme out at %dx%d"), w, h);
                return;
        }
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
        struct dmo_rect bar;
        if (dmo_painter_box(p, DMO_BOX_BAR, &bar) && (bar.w < 8 || !rect_inside(&bar, w, h)))
                dmo_diag_add(diag, DMO_DIAG_WARNING, file, 0, "progress-bar",
                             _("the bar is outside the screen or too small at %dx%d"), w, h);
        for (int k = 0; k < DMO_SCENE_KINDS && cairo_surface_status(s) == CAIRO_STATUS_SUCCESS;
             k++) {
                struct dmo_scene sc;
                /* Near the end the stats line is at its longest (sizes, MB/s, minutes). */
                dmo_preview_scene((enum dmo_scene_kind)k, 0.5, 0, &sc);
                sc.progress.eta_s = 5940;
                sc.progress.mb_per_s = 1999;
                if (dmo_painter_paint(p, cairo_image_surface_get_data(s),
                                      cairo_image_surface_get_stride(s), &sc, true, NULL, 0,
                                      NULL) < 0)
                        continue;
                for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
                        struct dmo_rect box, ink;
                        if (!dmo_painter_box(p, texts[i].box, &box))
                                continue;
                        if (!dmo_painter_text_extent(p, texts[i].box, &ink))
                                continue;
                        if (ink.x < box.x || ink.x + ink.w > box.x + box.w)
                                dmo_diag_add(diag, DMO_DIAG_WARNING, file, 0, texts[i].key,
                                             _("%s text does not fit its box at %dx%d; "
                                               "widen the box or shorten the text"),
                                             mode_names[k], w, h);
                }
        }
        cairo_surface_destroy(s);
        dmo_painter_free(p);
}

int dmo_theme_check(const char *name_or_dir, const struct dmo_theme_paths *paths,
                    struct dmo_diag *diag)
{
        struct dmo_theme *t = NULL;
        if (dmo_theme_load(name_or_dir, paths, &t, diag) < 0)
                return 2;
        /* theme.conf, or the .plymouth file a Plymouth theme was read from. */
        for (size_t i = 0; i < sizeof(check_sizes) / sizeof(check_sizes[0]); i++)
                check_size(t, check_sizes[i][0], check_sizes[i][1], diag, t->conf);
        dmo_theme_free(t);
        if (dmo_diag_count(diag, DMO_DIAG_ERROR))
                return 2;
        return dmo_diag_count(diag, DMO_DIAG_WARNING) ? 1 : 0;
}
