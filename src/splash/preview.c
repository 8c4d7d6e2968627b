#include "splash/preview.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "splash/output/output.h"
#include "splash/output/output_png.h"
#include "splash/paint/painter.h"
#include "util/i18n.h"

/* A 12 GiB image of pages written at ~520 MB/s with some wobble; the phases
 * cover the overall fraction the way the progress model weights them. */
static const struct {
        enum dmo_phase phase;
        double until;
} sim_phases[] = {
    {DMO_PHASE_PREPARE, 0.02}, {DMO_PHASE_FREEZE, 0.05}, {DMO_PHASE_SNAPSHOT, 0.10},
    {DMO_PHASE_WRITE, 0.95},   {DMO_PHASE_SYNC, 1.00},
};
static const struct {
        enum dmo_phase phase;
        double until;
} sim_resume[] = {
    {DMO_PHASE_WAIT, 0.02},
    {DMO_PHASE_CHECK, 0.05},
    {DMO_PHASE_READ, 0.97},
    {DMO_PHASE_RESTORE, 1.00},
};

void dmo_preview_scene(enum dmo_scene_kind kind, double f, uint32_t frame, struct dmo_scene *sc)
{
        const uint64_t total = (12ull << 30) / 4096;
        const double rate = 520e6;
        struct dmo_progress_snapshot *pr = &sc->progress;

        memset(sc, 0, sizeof(*sc));
        f = fmin(fmax(f, 0), 1);
        sc->kind = kind;
        sc->bar_fraction = f;
        sc->frame_counter = frame;
        pr->mode = kind == DMO_SCENE_RESUME ? DMO_MODE_RESUME : DMO_MODE_HIBERNATE;
        pr->fraction = f;
        pr->eta_s = -1;

        double lo = 0, hi = 1, data_lo = 0.10, data_hi = 0.95;
        enum dmo_phase data = DMO_PHASE_WRITE;
        if (kind == DMO_SCENE_RESUME) {
                data_lo = 0.05;
                data_hi = 0.97;
                data = DMO_PHASE_READ;
                for (size_t i = 0; i < sizeof(sim_resume) / sizeof(sim_resume[0]); i++) {
                        pr->phase = sim_resume[i].phase;
                        hi = sim_resume[i].until;
                        if (f <= hi)
                                break;
                        lo = hi;
                }
        } else {
                for (size_t i = 0; i < sizeof(sim_phases) / sizeof(sim_phases[0]); i++) {
                        pr->phase = sim_phases[i].phase;
                        hi = sim_phases[i].until;
                        if (f <= hi)
                                break;
                        lo = hi;
                }
        }
        pr->phase_fraction = hi > lo ? (f - lo) / (hi - lo) : 1;
        double df = fmin(fmax((f - data_lo) / (data_hi - data_lo), 0), 1);
        pr->pages_total = total;
        pr->pages_done = (uint64_t)(df * total);
        pr->bytes_in = pr->pages_done * 4096;
        pr->bytes_out = pr->bytes_in * 45 / 100;
        if (pr->phase == data && df > 0.01) {
                pr->mb_per_s = rate / 1e6 * (1 + 0.08 * sin(df * 17));
                pr->eta_s = (double)(total - pr->pages_done) * 4096 / (pr->mb_per_s * 1e6) + 1.5;
        } else if (f > data_hi) {
                pr->eta_s = (1 - f) * 20;
        }
        pr->elapsed_s = df * total * 4096 / rate;
        pr->abortable = kind == DMO_SCENE_HIBERNATE && pr->phase != DMO_PHASE_SYNC;
        if (kind == DMO_SCENE_ABORTED) {
                pr->phase = DMO_PHASE_ABORTED;
                snprintf(pr->message, sizeof(pr->message), "%s",
                         _("Hibernation was cancelled with Esc; the system is thawed"));
        } else if (kind == DMO_SCENE_ERROR) {
                pr->phase = DMO_PHASE_FAILED;
                snprintf(sc->detail, sizeof(sc->detail), "%s",
                         _("Writing to /dev/sda2 failed: No space left on device"));
        } else if (kind == DMO_SCENE_RESUME_ERROR) {
                pr->mode = DMO_MODE_RESUME;
                pr->phase = DMO_PHASE_FAILED;
                snprintf(sc->detail, sizeof(sc->detail), "%s",
                         _("/dev/sda2: the image is damaged (a checksum did not match while "
                           "reading the image); nothing was restored"));
        } else if (pr->phase == data) {
                snprintf(pr->message, sizeof(pr->message), "%s",
                         kind == DMO_SCENE_RESUME ? _("Reading the image from /dev/sda2")
                                                  : _("Writing the image to /dev/sda2"));
        }
}

static bool is_english(const char *lang)
{
        return !strcmp(lang, "C") || !strcmp(lang, "POSIX") || !strncmp(lang, "en", 2);
}

/* Speaks lang from here on; one warning when no catalog has it (the text
 * then stays English). */
static void apply_lang(const char *lang, struct dmo_diag *diag)
{
        if (!lang || !*lang)
                return;
        if (dmo_i18n_use_language(lang) < 0)
                return;
        if (!is_english(lang) && !dmo_i18n_have_catalog())
                dmo_diag_add(diag, DMO_DIAG_WARNING, "", 0, NULL,
                             _("--lang %s: no catalog for this language in %s; the text "
                               "stays in English"),
                             lang, dmo_i18n_localedir());
}

static void fill_extra(const struct dmo_preview_params *p, struct dmo_scene *sc)
{
        if (p->message)
                snprintf(sc->progress.message, sizeof(sc->progress.message), "%s", p->message);
        if (p->detail)
                snprintf(sc->detail, sizeof(sc->detail), "%s", p->detail);
        dmo_preview_dialog(p->dialog, p->bullets, sc);
}

void dmo_preview_dialog(enum dmo_dialog_kind kind, unsigned bullets, struct dmo_scene *sc)
{
        memset(&sc->dialog, 0, sizeof(sc->dialog));
        sc->dialog.kind = kind;
        if (kind == DMO_DIALOG_PASSWORD) {
                snprintf(sc->dialog.prompt, sizeof(sc->dialog.prompt), "%s",
                         _("Passphrase for the hibernation image:"));
                sc->dialog.bullets = bullets;
        } else if (kind == DMO_DIALOG_QUESTION) {
                snprintf(sc->dialog.prompt, sizeof(sc->dialog.prompt), "%s",
                         _("Continue booting without resuming?"));
                /* "Yes" discards the saved session: never the pre-selected answer. */
                sc->dialog.answer_yes = false;
        }
}

int dmo_preview_render(const struct dmo_preview_params *p, struct dmo_diag *diag)
{
        struct dmo_theme *theme = NULL;
        struct dmo_scene sc;
        int w = p->width > 0 ? p->width : 1920, h = p->height > 0 ? p->height : 1080;
        int r;

        if (!p->output || !p->theme)
                return -EINVAL;
        apply_lang(p->lang, diag);
        r = dmo_theme_load(p->theme, p->paths, &theme, diag);
        if (r < 0)
                return r;

        if (p->frames == 0) {
                struct dmo_painter *painter = NULL;
                cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
                r = cairo_surface_status(s) ? -ENOMEM
                                            : dmo_painter_new(theme, w, h, p->scale, 0, &painter);
                if (r == 0) {
                        dmo_preview_scene(p->kind, p->progress, 0, &sc);
                        fill_extra(p, &sc);
                        r = dmo_painter_paint(painter, cairo_image_surface_get_data(s),
                                              cairo_image_surface_get_stride(s), &sc, true, NULL, 0,
                                              NULL);
                        cairo_surface_mark_dirty(s);
                }
                if (r == 0 && cairo_surface_write_to_png(s, p->output) != CAIRO_STATUS_SUCCESS) {
                        dmo_diag_add(diag, DMO_DIAG_ERROR, p->output, 0, NULL,
                                     _("cannot write the preview image"));
                        r = -EIO;
                }
                dmo_painter_free(painter);
                cairo_surface_destroy(s);
                dmo_theme_free(theme);
                return r;
        }

        char arg[600];
        struct dmo_output *o = NULL;
        size_t ol = strlen(p->output);
        snprintf(arg, sizeof(arg), "%.*s:%dx%d",
                 (int)(ol > 1 && p->output[ol - 1] == '/' ? ol - 1 : ol), p->output, w, h);
        struct dmo_output_config cfg = {
            .theme = theme, .arg = arg, .scale = p->scale, .tty_fd = -1};
        r = dmo_output_png.open(&cfg, &o);
        if (r < 0) {
                dmo_diag_add(diag, DMO_DIAG_ERROR, p->output, 0, NULL,
                             _("cannot write frames there (%s)"), strerror(-r));
                dmo_theme_free(theme);
                return r;
        }
        for (unsigned i = 0; i < p->frames && r == 0; i++) {
                double f = p->frames > 1 ? (double)i / (p->frames - 1) : 1;
                dmo_preview_scene(p->kind, f, i, &sc);
                fill_extra(p, &sc);
                r = dmo_output_png.render(o, &sc, i == 0);
        }
        dmo_output_png.close(o);
        dmo_theme_free(theme);
        return r;
}
