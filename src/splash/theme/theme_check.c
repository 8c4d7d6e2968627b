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

static bool rect_within(const struct dmo_rect *in, const struct dmo_rect *out)
{
        return in->x >= out->x && in->y >= out->y && in->x + in->w <= out->x + out->w &&
               in->y + in->h <= out->y + out->h;
}

static bool rects_meet(const struct dmo_rect *a, const struct dmo_rect *b)
{
        return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

/* What a frame puts on the screen, by element: the ink of each text, and
 * the boxes of the bar, the logo, the throbber and the dialog. */
struct element {
        const char *key; /* theme section, for the diagnostic */
        struct dmo_rect r;
        bool in_dialog; /* drawn inside the dialog's box */
};

static const struct {
        enum dmo_painter_box box;
        const char *key;
        bool in_dialog;
} texts[] = {
    {DMO_BOX_TITLE, "title", false},     {DMO_BOX_SUBTITLE, "subtitle", false},
    {DMO_BOX_MESSAGE, "message", false}, {DMO_BOX_STATS, "stats", false},
    {DMO_BOX_DETAIL, "detail", false},   {DMO_BOX_PROMPT, "dialog", true},
    {DMO_BOX_YES, "dialog", true},       {DMO_BOX_NO, "dialog", true},
};
static const char *const dialog_names[] = {[DMO_DIALOG_NONE] = "",
                                           [DMO_DIALOG_PASSWORD] = " (passphrase)",
                                           [DMO_DIALOG_QUESTION] = " (question)"};

/* WCAG 2's large text: 24 px, or 18.66 px bold (at scale 1). */
static bool large_text(const struct dmo_theme *t, enum dmo_painter_box box)
{
        static const enum dmo_text_slot slot[DMO_BOX_COUNT] = {[DMO_BOX_TITLE] = DMO_TEXT_TITLE,
                                                               [DMO_BOX_SUBTITLE] =
                                                                   DMO_TEXT_SUBTITLE,
                                                               [DMO_BOX_MESSAGE] = DMO_TEXT_MESSAGE,
                                                               [DMO_BOX_STATS] = DMO_TEXT_STATS,
                                                               [DMO_BOX_DETAIL] = DMO_TEXT_DETAIL};
        if (box == DMO_BOX_PROMPT || box == DMO_BOX_YES || box == DMO_BOX_NO)
                return t->dialog_size >= 24;
        const struct dmo_theme_text *tt = &t->text[slot[box]];
        return tt->size >= 24 || (tt->bold && tt->size >= 18.66);
}

/* Paints one scene and reports text outside its box (it would be clipped)
 * and elements that overlap. */
static void check_scene(struct dmo_painter *p, cairo_surface_t *s, const struct dmo_theme *t,
                        const struct dmo_scene *sc, int w, int h, struct dmo_diag *diag,
                        const char *file)
{
        const struct dmo_theme_mode *m = &t->mode[sc->kind];
        const char *mode = mode_names[sc->kind], *dlg = dialog_names[sc->dialog.kind];
        bool dialog = sc->dialog.kind != DMO_DIALOG_NONE;
        struct element el[16];
        size_t n = 0;

        if (dmo_painter_paint(p, cairo_image_surface_get_data(s), cairo_image_surface_get_stride(s),
                              sc, true, NULL, 0, NULL) < 0)
                return;
        for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
                struct dmo_rect box, ink;
                if (!dmo_painter_box(p, texts[i].box, &box) ||
                    !dmo_painter_text_extent(p, texts[i].box, &ink))
                        continue;
                if (!rect_within(&ink, &box))
                        dmo_diag_add(diag, DMO_DIAG_WARNING, file, 0, texts[i].key,
                                     _("%s%s text does not fit its box at %dx%d; "
                                       "widen the box or shorten the text"),
                                     mode, dlg, w, h);
                double ratio, need = large_text(t, texts[i].box) ? 3.0 : 4.5;
                if (dmo_painter_text_contrast(p, texts[i].box, &ratio) && ratio < need)
                        dmo_diag_add(diag, DMO_DIAG_WARNING, file, 0, texts[i].key,
                                     _("%s%s text has a contrast of %.2f:1 with what is under "
                                       "it at %dx%d; it needs %.1f:1 (change the colours, or "
                                       "give the text a backing)"),
                                     mode, dlg, ratio, w, h, need);
                el[n++] = (struct element){texts[i].key, ink, texts[i].in_dialog};
        }
        struct dmo_rect r;
        if (m->show_bar && !dialog && dmo_painter_box(p, DMO_BOX_BAR, &r))
                el[n++] = (struct element){"progress-bar", r, false};
        if (m->show_logo && dmo_painter_box(p, DMO_BOX_LOGO, &r))
                el[n++] = (struct element){"logo", r, false};
        if (m->show_throbber && dmo_painter_box(p, DMO_BOX_THROBBER, &r))
                el[n++] = (struct element){"throbber", r, false};
        if (dialog && dmo_painter_box(p, DMO_BOX_DIALOG, &r))
                el[n++] = (struct element){"dialog", r, false};
        for (size_t i = 0; i < n; i++) {
                for (size_t j = i + 1; j < n; j++) {
                        /* The dialog's own lines are inside it, on purpose. */
                        if (el[i].in_dialog || el[j].in_dialog)
                                continue;
                        if (rects_meet(&el[i].r, &el[j].r))
                                dmo_diag_add(diag, DMO_DIAG_WARNING, file, 0, el[i].key,
                                             _("%s%s: it overlaps [%s] at %dx%d"), mode, dlg,
                                             el[j].key, w, h);
                }
        }
}

static void check_size(const struct dmo_theme *t, int w, int h, struct dmo_diag *diag,
                       const char *file)
{
        struct dmo_painter *p = NULL;
        int r = dmo_painter_new(t, w, h, 0, 0, &p);
        if (r < 0) {
                dmo_diag_add(diag, DMO_DIAG_ERROR, file, 0, NULL,
                             _("cannot lay the theme out at %dx%d"), w, h);
                return;
        }
        dmo_painter_measure_contrast(p);
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
        struct dmo_rect bar;
        if (dmo_painter_box(p, DMO_BOX_BAR, &bar) && (bar.w < 8 || !rect_inside(&bar, w, h)))
                dmo_diag_add(diag, DMO_DIAG_WARNING, file, 0, "progress-bar",
                             _("the bar is outside the screen or too small at %dx%d"), w, h);
        for (int k = 0; k < DMO_SCENE_KINDS && cairo_surface_status(s) == CAIRO_STATUS_SUCCESS;
             k++) {
                /* The passphrase and the question are asked while resuming. */
                bool asks = k == DMO_SCENE_RESUME || k == DMO_SCENE_RESUME_ERROR;
                for (int d = DMO_DIALOG_NONE; d <= (asks ? DMO_DIALOG_QUESTION : DMO_DIALOG_NONE);
                     d++) {
                        struct dmo_scene sc;
                        /* Halfway the stats line is at its longest (sizes, MB/s,
                         * minutes), and the message says what is being written. */
                        dmo_preview_scene((enum dmo_scene_kind)k, 0.5, 0, &sc);
                        sc.progress.eta_s = 5940;
                        sc.progress.mb_per_s = 1999;
                        dmo_preview_dialog((enum dmo_dialog_kind)d, 40, &sc);
                        check_scene(p, s, t, &sc, w, h, diag, file);
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
