#include "splash/paint/painter.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "splash/paint/backdrop.h"
#include "splash/paint/text.h"
#include "splash/theme/theme-private.h"
#include "util/cleanup.h"
#include "util/i18n.h"
#include "util/timing.h"

#if !ENABLE_NLS
#define ngettext(one, many, n) ((n) == 1 ? (one) : (many))
#endif

/* Glyph capacity of one line; strings are at most 255 bytes (scene/progress
 * buffers), which never shape into more glyphs than characters here. */
#define LINE_GLYPHS 512
/* Surfaces a caller may alternate between (double/triple buffering). */
#define MAX_TARGETS 3

struct target {
        uint8_t *pixels;
        int stride;
        cairo_surface_t *surface;
        cairo_t *cr;
};

enum line_id {
        L_TITLE0,
        L_SUBTITLE0 = L_TITLE0 + DMO_SCENE_KINDS,
        L_MESSAGE = L_SUBTITLE0 + DMO_SCENE_KINDS,
        L_STATS,
        L_DETAIL,
        L_PROMPT,
        L_YES,
        L_NO,
        L_COUNT
};

struct painter_state {
        bool valid;
        enum dmo_scene_kind kind;
        int bar_px;
        unsigned throbber_step, anim_step;
        struct dmo_dialog dialog;
};

struct dmo_painter {
        const struct dmo_theme *t;
        int w, h;
        double scale;

        struct dmo_font *font_regular, *font_bold, *font_fallback;
        struct dmo_font *font_fallback_bold; /* the fallback drawn bold, for bold text */
        bool rtl;                            /* the interface reads right to left */
        char decimal[8];                     /* decimal separator of numbers shown */
        bool have_text;
        bool prewarmed; /* dmo_painter_prewarm() ran */
        struct dmo_textstyle style[DMO_TEXT_COUNT];
        struct dmo_textstyle dialog_style;
        struct dmo_shaper shaper;
        struct dmo_line line[L_COUNT];

        /* The background image, or the background with the firmware's logo
         * (NULL: a colour or gradient, drawn from its rows). */
        cairo_surface_t *base;
        cairo_surface_t *base_plain; /* the same without the firmware logo (NULL: none) */
        cairo_surface_t *logo;       /* scaled to its drawn size */
        cairo_surface_t *mode_logo[DMO_SCENE_KINDS]; /* a mode's own, in the same box */
        cairo_surface_t *bar_fill, *bar_track;
        cairo_surface_t *throbber[DMO_THEME_MAX_THROBBER];
        cairo_surface_t *anim[DMO_THEME_MAX_THROBBER];
        /* image dialog: scaled to the painter's scale */
        cairo_surface_t *d_entry, *d_lock, *d_bullet, *d_box;
        struct dmo_rect d_entry_box, d_lock_box, d_box_box;

        struct dmo_rect box[DMO_BOX_COUNT];
        bool box_shown[DMO_BOX_COUNT];
        struct dmo_rect ink[DMO_BOX_COUNT];
        bool ink_valid[DMO_BOX_COUNT];
        bool measure;                   /* dmo_painter_measure_contrast() was called */
        double contrast[DMO_BOX_COUNT]; /* worst text/background ratio, when measuring */
        double bar_radius, bar_border;

        struct target targets[MAX_TARGETS];
        unsigned next_target;

        struct painter_state prev;
        char stats[256], message[256], detail[256];
};

static int iround(double v)
{
        return (int)lround(v);
}

static struct dmo_rect clamp_rect(struct dmo_rect r, int w, int h)
{
        if (r.w > w)
                r.w = w;
        if (r.h > h)
                r.h = h;
        if (r.x < 0)
                r.x = 0;
        if (r.y < 0)
                r.y = 0;
        if (r.x + r.w > w)
                r.x = w - r.w;
        if (r.y + r.h > h)
                r.y = h - r.h;
        return r;
}

/* Alignment as a fraction of the free space (Plymouth's convention): 0 puts
 * the element at the left/top edge, 1 at the right/bottom edge. */
static struct dmo_rect place(const struct dmo_painter *p, double ha, double va, double w, double h)
{
        struct dmo_rect r = {
            .w = iround(w),
            .h = iround(h),
        };
        r.x = iround(ha * (p->w - r.w));
        r.y = iround(va * (p->h - r.h));
        return clamp_rect(r, p->w, p->h);
}

/* Centre at (ha, va) fractions of the screen (Plymouth's rule for its animations). */
static struct dmo_rect place_center(const struct dmo_painter *p, double ha, double va, double w,
                                    double h)
{
        struct dmo_rect r = {.w = iround(w), .h = iround(h)};
        r.x = (int)floor(ha * p->w - w / 2.0);
        r.y = (int)floor(va * p->h - h / 2.0);
        return clamp_rect(r, p->w, p->h);
}

static struct dmo_rect place_by(const struct dmo_painter *p, enum dmo_anchor a, double ha,
                                double va, double w, double h)
{
        return a == DMO_ANCHOR_CENTER ? place_center(p, ha, va, w, h) : place(p, ha, va, w, h);
}

static double length(const struct dmo_painter *p, double v, int screen)
{
        return v <= 1.0 ? v * screen : v * p->scale;
}

double dmo_painter_scale(const struct dmo_painter *p)
{
        return p->scale;
}

void dmo_painter_forget(struct dmo_painter *p)
{
        if (p)
                p->prev.valid = false;
}

bool dmo_painter_prewarmed(const struct dmo_painter *p)
{
        return p->prewarmed;
}

static double auto_scale(int w, int h, int phys_mm)
{
        double s;
        if (phys_mm > 0) {
                double dpi = w / (phys_mm / 25.4);
                s = dpi > 190 ? 2 : 1;
        } else {
                s = h >= 2000 ? 2 : 1;
        }
        /* Themes are laid out for at least 960×720 (in scale-1 pixels);
         * smaller screens get everything smaller rather than overlapping. */
        return s * fmin(1, fmin(w / s / 960.0, h / s / 720.0));
}

double dmo_painter_scale_for(int width, int height, double scale, int phys_width_mm)
{
        return scale > 0 ? scale : auto_scale(width, height, phys_width_mm);
}

static cairo_surface_t *scaled_copy(cairo_surface_t *src, int w, int h)
{
        if (!src || w <= 0 || h <= 0)
                return NULL;
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
        if (cairo_surface_status(s)) {
                cairo_surface_destroy(s);
                return NULL;
        }
        cairo_t *cr = cairo_create(s);
        cairo_scale(cr, (double)w / cairo_image_surface_get_width(src),
                    (double)h / cairo_image_surface_get_height(src));
        cairo_set_source_surface(cr, src, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
        cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD);
        cairo_paint(cr);
        cairo_destroy(cr);
        return s;
}

static void set_rgba(cairo_t *cr, const struct dmo_rgba *c)
{
        cairo_set_source_rgba(cr, c->r, c->g, c->b, c->a);
}

/* The colour or gradient, row by row as the backdrop has them
 * (dmo_backdrop_row), into the rectangle r of s (RGB24, p->w × p->h): the
 * complete frame continues the backdrop's very pixels, and a row is one
 * colour copied along it, where cairo's gradient (one linear pattern
 * evaluated per pixel by pixman) was the single largest step of
 * dmo_painter_new under emulation. */
static void fill_background(const struct dmo_painter *p, cairo_surface_t *s, struct dmo_rect r)
{
        cairo_surface_flush(s);
        uint8_t *px = cairo_image_surface_get_data(s);
        size_t stride = (size_t)cairo_image_surface_get_stride(s);
        for (int y = r.y; y < r.y + r.h; y++) {
                uint32_t *row = (uint32_t *)(px + (size_t)y * stride) + r.x;
                uint32_t c = 0xff000000u | dmo_backdrop_row(p->t, y, p->h);
                if (y > r.y && row[-(ptrdiff_t)(stride / 4)] == c) {
                        memcpy(row, row - stride / 4, (size_t)r.w * 4);
                        continue;
                }
                for (int x = 0; x < r.w; x++)
                        row[x] = c;
        }
        cairo_surface_mark_dirty_rectangle(s, r.x, r.y, r.w, r.h);
}

/* A colour or gradient background under the clip of cr, straight from the
 * theme's rows: it needs no full-screen copy of itself (4 MiB at 1280×800,
 * 8 MiB at 1080p, locked and saved in the image with the rest of dormouse). */
static void fill_background_clip(const struct dmo_painter *p, cairo_t *cr)
{
        double x1, y1, x2, y2;
        cairo_clip_extents(cr, &x1, &y1, &x2, &y2);
        int l = (int)fmax(floor(x1), 0), t = (int)fmax(floor(y1), 0);
        int r = (int)fmin(ceil(x2), p->w), b = (int)fmin(ceil(y2), p->h);
        if (r > l && b > t)
                fill_background(p, cairo_get_target(cr), (struct dmo_rect){l, t, r - l, b - t});
}

static void draw_background_full(const struct dmo_painter *p, cairo_t *cr)
{
        const struct dmo_theme *t = p->t;
        cairo_save(cr);
        fill_background(p, cairo_get_target(cr), (struct dmo_rect){0, 0, p->w, p->h});
        double is;
        cairo_surface_t *img = dmo_theme_image_pick(&t->bg_image, p->scale, &is);
        if (t->bg_kind == DMO_BG_IMAGE && img) {
                double iw = cairo_image_surface_get_width(img);
                double ih = cairo_image_surface_get_height(img);
                if (t->bg_fit == DMO_FIT_SCALE) {
                        /* Cover the screen, keeping the aspect ratio. */
                        double k = fmax(p->w / iw, p->h / ih);
                        cairo_translate(cr, (p->w - iw * k) / 2, (p->h - ih * k) / 2);
                        cairo_scale(cr, k, k);
                        cairo_set_source_surface(cr, img, 0, 0);
                        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
                        cairo_paint(cr);
                } else {
                        double k = p->scale / is;
                        cairo_scale(cr, k, k);
                        if (t->bg_fit == DMO_FIT_CENTER) {
                                cairo_set_source_surface(cr, img, (p->w / k - iw) / 2,
                                                         (p->h / k - ih) / 2);
                        } else {
                                cairo_set_source_surface(cr, img, 0, 0);
                                cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_REPEAT);
                        }
                        cairo_paint(cr);
                }
        }
        cairo_restore(cr);
}

static int open_fonts(struct dmo_painter *p)
{
        const struct dmo_theme *t = p->t;
        if (!t->font_regular[0] || dmo_font_open(t->font_regular, false, &p->font_regular) < 0)
                return -ENOENT;
        if (!t->font_bold[0] || dmo_font_open(t->font_bold, false, &p->font_bold) < 0)
                p->font_bold = NULL;
        if (t->font_fallback[0] && dmo_font_open(t->font_fallback, false, &p->font_fallback) < 0)
                p->font_fallback = NULL;
        /* A bold title stays bold in a script only the fallback has (Arabic
         * in DejaVu Sans Bold's place): the fallback, emboldened. */
        if (p->font_fallback && dmo_font_open(t->font_fallback, true, &p->font_fallback_bold) < 0)
                p->font_fallback_bold = NULL;
        return 0;
}

static int make_lines(struct dmo_painter *p)
{
        int r = dmo_shaper_init(&p->shaper, LINE_GLYPHS);
        if (r < 0)
                return r;
        p->shaper.prefer_rtl = p->rtl;
        for (int i = 0; i < L_COUNT; i++) {
                r = dmo_line_init(&p->line[i], LINE_GLYPHS);
                if (r < 0)
                        return r;
        }
        if (!p->have_text)
                return 0;
        dmo_line_shape(&p->shaper, &p->line[L_YES], &p->dialog_style, _("Yes"));
        dmo_line_shape(&p->shaper, &p->line[L_NO], &p->dialog_style, _("No"));
        return 0;
}

/* The title and subtitle of one scene kind, shaped the first time a frame
 * shows that kind (a no-op afterwards): the first frame waits for its own
 * two lines only, dmo_painter_prewarm() shapes the other kinds' right
 * after it, before the freeze. */
static void shape_titles(struct dmo_painter *p, enum dmo_scene_kind k)
{
        dmo_line_shape(&p->shaper, &p->line[L_TITLE0 + k], &p->style[DMO_TEXT_TITLE],
                       p->t->mode[k].title);
        dmo_line_shape(&p->shaper, &p->line[L_SUBTITLE0 + k], &p->style[DMO_TEXT_SUBTITLE],
                       p->t->mode[k].subtitle);
}

/* Fills cairo's glyph caches and HarfBuzz's shape-plan cache now, so the
 * first frames after the freeze do not allocate for them. */
void dmo_painter_prewarm(struct dmo_painter *p)
{
        if (p->prewarmed || !p->have_text)
                return;
        p->prewarmed = true;
        static const char sample[] = "0123456789 %.,:/-·— MBGs";
        static const char sample_rtl[] = "\xd9\xaa 42 \xd8\xa7\xd9\x84\xd8\xa8";
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 64, 64);
        cairo_t *cr = cairo_create(s);
        for (int k = 0; k < DMO_SCENE_KINDS; k++)
                shape_titles(p, (enum dmo_scene_kind)k);
        struct dmo_line tmp;
        if (dmo_line_init(&tmp, LINE_GLYPHS) == 0) {
                for (int i = 0; i < DMO_TEXT_COUNT; i++) {
                        dmo_line_shape(&p->shaper, &tmp, &p->style[i], sample);
                        dmo_line_draw(cr, &tmp, 0, 32);
                        dmo_line_shape(&p->shaper, &tmp, &p->style[i], sample_rtl);
                        dmo_line_draw(cr, &tmp, 0, 32);
                }
                dmo_line_fini(&tmp);
        }
        for (int i = 0; i < L_COUNT; i++)
                dmo_line_draw(cr, &p->line[i], 0, 32);
        cairo_destroy(cr);
        cairo_surface_destroy(s);
}

/* The firmware's logo where Plymouth places it (backdrop.h). */
static void layout_firmware_logo(struct dmo_painter *p)
{
        const struct dmo_theme *t = p->t;
        double w, h, is;
        if (!t->fw_logo)
                return;
        cairo_surface_t *fb = dmo_theme_image_pick(&t->fw_fallback, p->scale, &is);
        if (t->fw_image) {
                /* The firmware's pixels are the screen's pixels: never scaled. */
                w = cairo_image_surface_get_width(t->fw_image);
                h = cairo_image_surface_get_height(t->fw_image);
        } else if (fb) {
                w = iround(cairo_image_surface_get_width(fb) / is * p->scale);
                h = iround(cairo_image_surface_get_height(fb) / is * p->scale);
        } else {
                return;
        }
        int x, y;
        if (!dmo_firmware_logo_place(p->w, p->h, (int)w, (int)h, t->fw_image ? t->fw_xoff : -1,
                                     t->fw_image ? t->fw_yoff : -1, &x, &y))
                return;
        p->box[DMO_BOX_FIRMWARE_LOGO] = (struct dmo_rect){x, y, (int)w, (int)h};
        p->box_shown[DMO_BOX_FIRMWARE_LOGO] = true;
}

/* Plymouth's header image: its bottom on the top of the throbber or the
 * progress animation (the taller), both centred on the same point. */
static void layout_logo_above_animation(struct dmo_painter *p)
{
        const struct dmo_theme *t = p->t;
        if (!t->logo_above_animation || !p->box_shown[DMO_BOX_LOGO])
                return;
        const struct dmo_rect *th = &p->box[DMO_BOX_THROBBER], *an = &p->box[DMO_BOX_ANIMATION];
        double sprite = 0, cy = t->throbber_valign * p->h;
        if (p->box_shown[DMO_BOX_THROBBER] && t->throbber_kind == DMO_THROBBER_FRAMES)
                sprite = th->h;
        if (p->box_shown[DMO_BOX_ANIMATION]) {
                sprite = fmax(sprite, an->h);
                cy = t->anim_valign * p->h;
        }
        struct dmo_rect *l = &p->box[DMO_BOX_LOGO];
        l->y = (int)floor(cy - sprite / 2.0) - l->h;
        *l = clamp_rect(*l, p->w, p->h);
}

/* Text placed under other elements (Plymouth's stacking): a subtitle under
 * its title, the pair placed as one block; a line 10 px under the
 * animation (the last shown of bar, throbber and progress animation, in the
 * hibernate scene); a line under the stats line. */
static void layout_below(struct dmo_painter *p)
{
        const struct dmo_theme *t = p->t;
        struct dmo_rect *ti = &p->box[DMO_BOX_TITLE], *su = &p->box[DMO_BOX_SUBTITLE];
        if (t->text[DMO_TEXT_SUBTITLE].below == DMO_BELOW_TITLE) {
                ti->y = iround((p->h - ti->h - 2 * su->h) * t->text[DMO_TEXT_TITLE].valign);
                su->y = ti->y + ti->h + su->h;
        }
        const struct dmo_theme_mode *m = &t->mode[DMO_SCENE_HIBERNATE];
        int bottom = -1;
        if (m->show_bar)
                bottom = p->box[DMO_BOX_BAR].y + p->box[DMO_BOX_BAR].h;
        if (m->show_throbber && p->box_shown[DMO_BOX_THROBBER])
                bottom = p->box[DMO_BOX_THROBBER].y + p->box[DMO_BOX_THROBBER].h;
        if (m->show_throbber && p->box_shown[DMO_BOX_ANIMATION])
                bottom = p->box[DMO_BOX_ANIMATION].y + p->box[DMO_BOX_ANIMATION].h;
        static const enum dmo_painter_box tb[DMO_TEXT_COUNT] = {
            DMO_BOX_TITLE, DMO_BOX_SUBTITLE, DMO_BOX_MESSAGE, DMO_BOX_STATS, DMO_BOX_DETAIL};
        /* Stats first: a line may follow it. */
        static const int order[] = {DMO_TEXT_STATS, DMO_TEXT_MESSAGE, DMO_TEXT_DETAIL};
        for (size_t k = 0; k < DMO_ARRAY_SIZE(order); k++) {
                int i = order[k];
                struct dmo_rect *b = &p->box[tb[i]];
                if (t->text[i].below == DMO_BELOW_ANIMATION && bottom >= 0)
                        b->y = bottom + iround(10 * p->scale);
                else if (t->text[i].below == DMO_BELOW_STATS)
                        b->y = p->box[DMO_BOX_STATS].y + p->box[DMO_BOX_STATS].h;
                else
                        continue;
                *b = clamp_rect(*b, p->w, p->h);
        }
}

static double image_w(const struct dmo_theme_image *im, double scale)
{
        double is;
        cairo_surface_t *s = dmo_theme_image_pick(im, scale, &is);
        return s ? cairo_image_surface_get_width(s) / is * scale : 0;
}

static double image_h(const struct dmo_theme_image *im, double scale)
{
        double is;
        cairo_surface_t *s = dmo_theme_image_pick(im, scale, &is);
        return s ? cairo_image_surface_get_height(s) / is * scale : 0;
}

/* Plymouth's password dialog: the box image (if any) placed by the dialog
 * alignment, the lock and the entry side by side centred in it, the prompt
 * under it. */
static void layout_image_dialog(struct dmo_painter *p)
{
        const struct dmo_theme *t = p->t;
        double s = p->scale;
        if (!t->dialog_entry.x1 && !t->dialog_entry.x2)
                return;
        double ew = image_w(&t->dialog_entry, s), eh = image_h(&t->dialog_entry, s);
        double lw = image_w(&t->dialog_lock, s), lh = image_h(&t->dialog_lock, s);
        double bw = image_w(&t->dialog_box, s), bh = image_h(&t->dialog_box, s);
        struct dmo_rect area;
        if (bw > 0)
                area = place(p, t->dialog_halign, t->dialog_valign, bw, bh);
        else
                area = place(p, t->dialog_halign, t->dialog_valign, lw + ew, fmax(lh, eh));
        p->d_box_box = area;
        p->d_lock_box =
            (struct dmo_rect){iround(area.x + (area.w - (lw + ew)) / 2.0),
                              iround(area.y + (area.h - lh) / 2.0), iround(lw), iround(lh)};
        p->d_entry_box =
            (struct dmo_rect){p->d_lock_box.x + p->d_lock_box.w,
                              iround(area.y + (area.h - eh) / 2.0), iround(ew), iround(eh)};
        /* The dialog's box (damage, tests): the screen's width, from the images' top to
         * two lines of text under them (the prompt is centred on the screen). */
        double lhgt = p->dialog_style.ascent + p->dialog_style.descent;
        if (lhgt <= 0)
                lhgt = t->dialog_size * s * 1.2;
        int top = area.y < p->d_entry_box.y ? area.y : p->d_entry_box.y;
        p->box[DMO_BOX_DIALOG] =
            clamp_rect((struct dmo_rect){0, top, p->w, iround(fmax(area.h, eh) + 2 * lhgt + 4 * s)},
                       p->w, p->h);
}

static void layout(struct dmo_painter *p)
{
        const struct dmo_theme *t = p->t;
        double s = p->scale;
        int margin = iround(8 * s);

        /* bar */
        double bw = length(p, t->bar_width, p->w), bh = t->bar_height * s;
        bw = fmin(bw, p->w - 2 * margin);
        p->box[DMO_BOX_BAR] = place(p, t->bar_halign, t->bar_valign, bw, fmax(bh, 1));
        p->box_shown[DMO_BOX_BAR] = true;
        int b = iround(fmin(t->bar_border * s, p->box[DMO_BOX_BAR].h / 2.0 - 0.5));
        if (b < 0)
                b = 0;
        p->bar_border = b;
        p->bar_radius = fmin(t->bar_radius * s, p->box[DMO_BOX_BAR].h / 2.0);
        struct dmo_rect in = p->box[DMO_BOX_BAR];
        in.x += b;
        in.y += b;
        in.w -= 2 * b;
        in.h -= 2 * b;
        p->box[DMO_BOX_BAR_FILL] = in;
        p->box_shown[DMO_BOX_BAR_FILL] = true;

        /* text boxes */
        static const enum dmo_painter_box tb[DMO_TEXT_COUNT] = {
            DMO_BOX_TITLE, DMO_BOX_SUBTITLE, DMO_BOX_MESSAGE, DMO_BOX_STATS, DMO_BOX_DETAIL};
        for (int i = 0; i < DMO_TEXT_COUNT; i++) {
                const struct dmo_theme_text *tt = &t->text[i];
                double w = fmin(length(p, tt->width, p->w), p->w - 2 * margin);
                double h = p->style[i].ascent + p->style[i].descent;
                if (h <= 0)
                        h = tt->size * s * 1.2;
                h += 2 * iround(2 * s);
                p->box[tb[i]] = place(p, tt->halign, tt->valign, w, h);
                p->box_shown[tb[i]] = tt->show;
        }

        /* logo */
        double is;
        cairo_surface_t *img = dmo_theme_image_pick(&t->logo, s, &is);
        if (img) {
                double iw = cairo_image_surface_get_width(img) / is;
                double ih = cairo_image_surface_get_height(img) / is;
                double k = t->logo_width > 0 ? t->logo_width / iw : 1;
                double lw = iw * k * s, lh = ih * k * s;
                /* Never larger than 60% of the screen in either direction. */
                double fit = fmin(1, fmin(p->w * 0.6 / lw, p->h * 0.6 / lh));
                p->box[DMO_BOX_LOGO] = place(p, t->logo_halign, t->logo_valign, lw * fit, lh * fit);
                p->box_shown[DMO_BOX_LOGO] = true;
        }

        /* throbber */
        double ts = t->throbber_size * s;
        if (t->throbber_kind == DMO_THROBBER_FRAMES && t->throbber.image[0].x1) {
                cairo_surface_t *f = dmo_theme_image_pick(&t->throbber.image[0], s, &is);
                ts = cairo_image_surface_get_width(f) / is * s;
                double th = cairo_image_surface_get_height(f) / is * s;
                p->box[DMO_BOX_THROBBER] =
                    place_by(p, t->throbber_anchor, t->throbber_halign, t->throbber_valign, ts, th);
        } else {
                p->box[DMO_BOX_THROBBER] =
                    place_by(p, t->throbber_anchor, t->throbber_halign, t->throbber_valign, ts, ts);
        }
        p->box_shown[DMO_BOX_THROBBER] = t->throbber_kind != DMO_THROBBER_NONE;

        /* progress animation */
        if (t->anim_enabled && t->anim.image[0].x1) {
                cairo_surface_t *f = dmo_theme_image_pick(&t->anim.image[0], s, &is);
                p->box[DMO_BOX_ANIMATION] =
                    place_by(p, t->anim_anchor, t->anim_halign, t->anim_valign,
                             cairo_image_surface_get_width(f) / is * s,
                             cairo_image_surface_get_height(f) / is * s);
                p->box_shown[DMO_BOX_ANIMATION] = true;
        }

        /* dialog: prompt line, then an entry field (or the two answers) */
        double dsz = p->dialog_style.ascent + p->dialog_style.descent;
        if (dsz <= 0)
                dsz = t->dialog_size * s * 1.2;
        double dw = fmin(t->dialog_width * s, p->w - 2 * margin);
        double dh = 16 * s + dsz + 12 * s + dsz + 16 * s + 16 * s;
        p->box[DMO_BOX_DIALOG] = place(p, t->dialog_halign, t->dialog_valign, dw, dh);
        p->box_shown[DMO_BOX_DIALOG] = true;

        layout_firmware_logo(p);
        layout_logo_above_animation(p);
        layout_below(p);
        layout_image_dialog(p);
}

static void draw_firmware_logo(const struct dmo_painter *p, cairo_t *cr)
{
        const struct dmo_theme *t = p->t;
        const struct dmo_rect *b = &p->box[DMO_BOX_FIRMWARE_LOGO];
        double is;
        cairo_surface_t *img =
            t->fw_image ? t->fw_image : dmo_theme_image_pick(&t->fw_fallback, p->scale, &is);
        if (!img)
                return;
        cairo_save(cr);
        cairo_translate(cr, b->x, b->y);
        cairo_scale(cr, (double)b->w / cairo_image_surface_get_width(img),
                    (double)b->h / cairo_image_surface_get_height(img));
        cairo_set_source_surface(cr, img, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
        cairo_paint(cr);
        cairo_restore(cr);
}

static int prepare_images(struct dmo_painter *p)
{
        const struct dmo_theme *t = p->t;
        double is;

        /* A colour or gradient is drawn from its rows where it is needed
         * (fill_background_clip); a background image or the firmware's logo
         * is drawn once into a surface of the screen's size. */
        bool fw = p->box_shown[DMO_BOX_FIRMWARE_LOGO];
        bool image = t->bg_kind == DMO_BG_IMAGE;
        if (image || fw) {
                p->base = cairo_image_surface_create(CAIRO_FORMAT_RGB24, p->w, p->h);
                if (cairo_surface_status(p->base))
                        return -ENOMEM;
                cairo_t *cr = cairo_create(p->base);
                draw_background_full(p, cr);
                if (fw)
                        draw_firmware_logo(p, cr);
                cairo_destroy(cr);
        }
        if (fw && image) {
                p->base_plain = cairo_image_surface_create(CAIRO_FORMAT_RGB24, p->w, p->h);
                if (cairo_surface_status(p->base_plain))
                        return -ENOMEM;
                cairo_t *cr = cairo_create(p->base_plain);
                draw_background_full(p, cr);
                cairo_destroy(cr);
        }
        cairo_surface_t *img = dmo_theme_image_pick(&t->logo, p->scale, &is);
        if (p->box_shown[DMO_BOX_LOGO]) {
                p->logo = scaled_copy(img, p->box[DMO_BOX_LOGO].w, p->box[DMO_BOX_LOGO].h);
                for (int k = 0; k < DMO_SCENE_KINDS; k++) {
                        img = dmo_theme_image_pick(&t->mode[k].logo, p->scale, &is);
                        p->mode_logo[k] =
                            scaled_copy(img, p->box[DMO_BOX_LOGO].w, p->box[DMO_BOX_LOGO].h);
                }
        }
        const struct dmo_rect *in = &p->box[DMO_BOX_BAR_FILL];
        img = dmo_theme_image_pick(&t->bar_fill_image, p->scale, &is);
        p->bar_fill = scaled_copy(img, in->w, in->h);
        img = dmo_theme_image_pick(&t->bar_track_image, p->scale, &is);
        p->bar_track = scaled_copy(img, p->box[DMO_BOX_BAR].w, p->box[DMO_BOX_BAR].h);
        if (t->throbber_kind == DMO_THROBBER_FRAMES) {
                for (unsigned i = 0; i < t->throbber.count; i++) {
                        img = dmo_theme_image_pick(&t->throbber.image[i], p->scale, &is);
                        p->throbber[i] = scaled_copy(img, p->box[DMO_BOX_THROBBER].w,
                                                     p->box[DMO_BOX_THROBBER].h);
                }
        }
        if (p->box_shown[DMO_BOX_ANIMATION]) {
                for (unsigned i = 0; i < t->anim.count; i++) {
                        img = dmo_theme_image_pick(&t->anim.image[i], p->scale, &is);
                        p->anim[i] = scaled_copy(img, p->box[DMO_BOX_ANIMATION].w,
                                                 p->box[DMO_BOX_ANIMATION].h);
                }
        }
        if (t->dialog_entry.x1 || t->dialog_entry.x2) {
                p->d_entry = scaled_copy(dmo_theme_image_pick(&t->dialog_entry, p->scale, &is),
                                         p->d_entry_box.w, p->d_entry_box.h);
                p->d_lock = scaled_copy(dmo_theme_image_pick(&t->dialog_lock, p->scale, &is),
                                        p->d_lock_box.w, p->d_lock_box.h);
                p->d_box = scaled_copy(dmo_theme_image_pick(&t->dialog_box, p->scale, &is),
                                       p->d_box_box.w, p->d_box_box.h);
                p->d_bullet = scaled_copy(dmo_theme_image_pick(&t->dialog_bullet, p->scale, &is),
                                          iround(image_w(&t->dialog_bullet, p->scale)),
                                          iround(image_h(&t->dialog_bullet, p->scale)));
        }
        return 0;
}

int dmo_painter_new(const struct dmo_theme *theme, int width, int height, double scale,
                    int phys_width_mm, struct dmo_painter **out)
{
        int r;
        *out = NULL;
        if (!theme || width <= 0 || height <= 0 || width > 16384 || height > 16384 || scale < 0 ||
            scale > 8 || !isfinite(scale))
                return -EINVAL;
        scale = dmo_painter_scale_for(width, height, scale, phys_width_mm);
        if (!dmo_theme_images_ready(theme, scale))
                return -EINVAL;
        struct dmo_painter *p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->t = theme;
        p->w = width;
        p->h = height;
        p->scale = scale;
        p->rtl = dmo_i18n_rtl();
        dmo_i18n_decimal_point(p->decimal, sizeof(p->decimal));

        p->have_text = open_fonts(p) == 0;
        if (p->have_text) {
                for (int i = 0; i < DMO_TEXT_COUNT; i++) {
                        bool bold = theme->text[i].bold;
                        struct dmo_font *f = bold && p->font_bold ? p->font_bold : p->font_regular;
                        struct dmo_font *fb = bold && p->font_fallback_bold ? p->font_fallback_bold
                                                                            : p->font_fallback;
                        r = dmo_textstyle_init(&p->style[i], f, fb, theme->text[i].size * p->scale);
                        if (r < 0)
                                goto fail;
                }
                r = dmo_textstyle_init(&p->dialog_style, p->font_regular, p->font_fallback,
                                       theme->dialog_size * p->scale);
                if (r < 0)
                        goto fail;
        }
        r = make_lines(p);
        if (r < 0)
                goto fail;
        layout(p);
        r = prepare_images(p);
        if (r < 0)
                goto fail;
        dmo_timing_mark("painter ready (fonts open)");
        *out = p;
        return 0;
fail:
        dmo_painter_free(p);
        return r;
}

void dmo_painter_free(struct dmo_painter *p)
{
        if (!p)
                return;
        for (int i = 0; i < MAX_TARGETS; i++) {
                if (p->targets[i].cr)
                        cairo_destroy(p->targets[i].cr);
                if (p->targets[i].surface)
                        cairo_surface_destroy(p->targets[i].surface);
        }
        for (int i = 0; i < L_COUNT; i++)
                dmo_line_fini(&p->line[i]);
        dmo_shaper_fini(&p->shaper);
        for (int i = 0; i < DMO_TEXT_COUNT; i++)
                dmo_textstyle_fini(&p->style[i]);
        dmo_textstyle_fini(&p->dialog_style);
        dmo_font_free(p->font_regular);
        dmo_font_free(p->font_bold);
        dmo_font_free(p->font_fallback);
        dmo_font_free(p->font_fallback_bold);
        cairo_surface_destroy(p->base);
        cairo_surface_destroy(p->base_plain);
        cairo_surface_destroy(p->d_entry);
        cairo_surface_destroy(p->d_lock);
        cairo_surface_destroy(p->d_box);
        cairo_surface_destroy(p->d_bullet);
        cairo_surface_destroy(p->logo);
        for (int k = 0; k < DMO_SCENE_KINDS; k++)
                cairo_surface_destroy(p->mode_logo[k]);
        cairo_surface_destroy(p->bar_fill);
        cairo_surface_destroy(p->bar_track);
        for (int i = 0; i < DMO_THEME_MAX_THROBBER; i++) {
                cairo_surface_destroy(p->throbber[i]);
                cairo_surface_destroy(p->anim[i]);
        }
        free(p);
}

bool dmo_painter_box(const struct dmo_painter *p, enum dmo_painter_box which, struct dmo_rect *out)
{
        if ((unsigned)which >= DMO_BOX_COUNT || !p->box_shown[which])
                return false;
        *out = p->box[which];
        return true;
}

bool dmo_painter_text_extent(const struct dmo_painter *p, enum dmo_painter_box which,
                             struct dmo_rect *out)
{
        if ((unsigned)which >= DMO_BOX_COUNT || !p->ink_valid[which])
                return false;
        *out = p->ink[which];
        return true;
}

void dmo_painter_measure_contrast(struct dmo_painter *p)
{
        p->measure = true;
}

bool dmo_painter_text_contrast(const struct dmo_painter *p, enum dmo_painter_box which,
                               double *ratio)
{
        if ((unsigned)which >= DMO_BOX_COUNT || !p->measure || !p->ink_valid[which])
                return false;
        *ratio = p->contrast[which];
        return true;
}

/* ---- per-frame content ---- */

static void format_eta(char *buf, size_t len, double eta)
{
        if (eta < 0 || !isfinite(eta)) {
                buf[0] = '\0';
                return;
        }
        if (eta >= 90) {
                long m = lround(eta / 60);
                snprintf(buf, len, ngettext("about %ld minute left", "about %ld minutes left", m),
                         m);
        } else {
                /* Rounded to 5 s so the line does not flicker every frame;
                 * never "0 seconds" while there is work left (it read as
                 * done with half the bar to go). */
                long sec = eta < 10 ? lround(eta) : lround(eta / 5) * 5;
                if (sec < 1)
                        sec = 1;
                snprintf(buf, len, ngettext("%ld second left", "%ld seconds left", sec), sec);
        }
}

/* "4.9 GB" with the language's decimal separator ("4,9 GB"); the unit as
 * the translators write it. */
static void format_size(const struct dmo_painter *p, char *buf, size_t len, uint64_t bytes)
{
        if (bytes >= 1000000000ull) {
                uint64_t tenths = (bytes + 50000000ull) / 100000000ull;
                char num[32];
                snprintf(num, sizeof(num), "%llu%s%u", (unsigned long long)(tenths / 10),
                         p->decimal, (unsigned)(tenths % 10));
                /* TRANSLATORS: an amount in gigabytes; %s is the number with
                 * its decimal separator already in it ("4.9", "4,9"). */
                snprintf(buf, len, _("%s GB"), num);
        } else {
                snprintf(buf, len, _("%llu MB"),
                         (unsigned long long)((bytes + 500000ull) / 1000000ull));
        }
}

static void build_stats(const struct dmo_painter *p, const struct dmo_scene *sc, char *out,
                        size_t len)
{
        const struct dmo_progress_snapshot *pr = &sc->progress;
        const char *sep = _(" · ");
        size_t n = 0;

#define APPEND(...)                                                                                \
        do {                                                                                       \
                if (n < len)                                                                       \
                        n += (size_t)snprintf(out + n, len - n, __VA_ARGS__);                      \
        } while (0)

        out[0] = '\0';
        APPEND("%s", dmo_progress_phase_label(pr->phase, pr->going_down));
        /* The bar's own percent, of the frame's bar: the two never disagree
         * (a data-phase share said "100 %" beside a bar at 95 % while the
         * restored system was being started). Rounded down, so 100 only
         * when the bar is full. */
        if (pr->pages_total > 0 &&
            (sc->kind == DMO_SCENE_HIBERNATE || sc->kind == DMO_SCENE_RESUME)) {
                double f = sc->bar_fraction > 0 ? sc->bar_fraction : 0;
                int pct = f >= 1 ? 100 : (int)(f * 100);
                APPEND("%s", sep);
                APPEND(_("%d%%"), pct);
        }
        uint64_t page = 4096;
        if (pr->pages_total > 0) {
                char done[32], total[32];
                uint64_t d = pr->pages_done < pr->pages_total ? pr->pages_done : pr->pages_total;
                format_size(p, done, sizeof(done), d * page);
                format_size(p, total, sizeof(total), pr->pages_total * page);
                APPEND("%s", sep);
                APPEND(_("%s of %s"), done, total);
        }
        if (pr->mb_per_s > 0.05) {
                APPEND("%s", sep);
                APPEND(_("%.0f MB/s"), pr->mb_per_s);
        }
        char eta[64];
        format_eta(eta, sizeof(eta), pr->eta_s);
        if (eta[0]) {
                APPEND("%s", sep);
                APPEND("%s", eta);
        }
#undef APPEND
}

void dmo_painter_stats_line(const struct dmo_painter *p, const struct dmo_scene *scene, char *out,
                            size_t len)
{
        build_stats(p, scene, out, len);
}

static int bar_px(const struct dmo_painter *p, double f)
{
        if (!(f > 0))
                f = 0;
        if (f > 1)
                f = 1;
        return iround(f * p->box[DMO_BOX_BAR_FILL].w);
}

static unsigned throbber_step(const struct dmo_painter *p, uint32_t frame)
{
        const struct dmo_theme *t = p->t;
        unsigned steps = t->throbber_kind == DMO_THROBBER_FRAMES ? t->throbber.count : 12;
        /* The epsilon keeps a speed written as a decimal (34/120 = 0.283333333)
         * on its exact steps: a whole cycle lands on step 0 again. */
        return (unsigned)floor(frame * t->throbber_speed + 1e-6) % (steps ? steps : 1);
}

/* Plymouth's progress animation: frame fraction × (count − 1). */
static unsigned anim_step(const struct dmo_painter *p, double f)
{
        unsigned n = p->t->anim.count;
        if (!p->box_shown[DMO_BOX_ANIMATION] || n == 0)
                return 0;
        if (!(f > 0))
                f = 0;
        if (f > 1)
                f = 1;
        return (unsigned)(f * (n - 1));
}

static void rounded_rect(cairo_t *cr, double x, double y, double w, double h, double r)
{
        r = fmin(r, fmin(w, h) / 2);
        if (r <= 0.01) {
                cairo_rectangle(cr, x, y, w, h);
                return;
        }
        cairo_new_sub_path(cr);
        cairo_arc(cr, x + w - r, y + r, r, -M_PI / 2, 0);
        cairo_arc(cr, x + w - r, y + h - r, r, 0, M_PI / 2);
        cairo_arc(cr, x + r, y + h - r, r, M_PI / 2, M_PI);
        cairo_arc(cr, x + r, y + r, r, M_PI, 3 * M_PI / 2);
        cairo_close_path(cr);
}

static void draw_bar(struct dmo_painter *p, cairo_t *cr, const struct dmo_scene *sc)
{
        const struct dmo_theme *t = p->t;
        const struct dmo_rect *o = &p->box[DMO_BOX_BAR], *in = &p->box[DMO_BOX_BAR_FILL];
        double r = p->bar_radius, b = p->bar_border, ri = fmax(r - b, 0);

        cairo_save(cr);
        if (p->bar_track) {
                cairo_set_source_surface(cr, p->bar_track, o->x, o->y);
                cairo_paint(cr);
        } else {
                if (b > 0) {
                        /* The border as a ring, so a translucent track shows the
                         * background and not the border colour beneath it. */
                        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD);
                        rounded_rect(cr, o->x, o->y, o->w, o->h, r);
                        rounded_rect(cr, in->x, in->y, in->w, in->h, ri);
                        set_rgba(cr, &t->bar_border_color);
                        cairo_fill(cr);
                        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING);
                }
                rounded_rect(cr, in->x, in->y, in->w, in->h, ri);
                set_rgba(cr, &t->bar_bg);
                cairo_fill(cr);
        }
        int fw = bar_px(p, sc->bar_fraction);
        if (fw > 0 && in->h > 0) {
                rounded_rect(cr, in->x, in->y, in->w, in->h, ri);
                cairo_clip(cr);
                /* Right-to-left languages read progress from the right. */
                double fx = p->rtl && t->bar_mirror ? in->x + in->w - fw : in->x;
                rounded_rect(cr, fx, in->y, fw, in->h, fmin(ri, fw / 2.0));
                if (p->bar_fill) {
                        cairo_set_source_surface(cr, p->bar_fill, in->x, in->y);
                } else {
                        const struct dmo_rgba *c = t->mode[sc->kind].bar_color.a > 0
                                                       ? &t->mode[sc->kind].bar_color
                                                       : &t->bar_fg;
                        set_rgba(cr, c);
                }
                cairo_fill(cr);
        }
        cairo_restore(cr);
}

/* WCAG 2 relative luminance of an sRGB colour (components 0..1). */
static double luminance(double r, double g, double b)
{
        double c[3] = {r, g, b};
        for (int i = 0; i < 3; i++)
                c[i] = c[i] <= 0.04045 ? c[i] / 12.92 : pow((c[i] + 0.055) / 1.055, 2.4);
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

static double contrast_ratio(double la, double lb)
{
        return (fmax(la, lb) + 0.05) / (fmin(la, lb) + 0.05);
}

/* The lowest contrast between the text colour (over what is there) and any
 * pixel of the area the text is about to cover: a star under a glyph
 * counts. Only when measuring (theme check); reads the target surface. */
static double worst_contrast(cairo_t *cr, const struct dmo_rgba *c, double x, double y, double w,
                             double h)
{
        cairo_surface_t *s = cairo_get_target(cr);
        cairo_surface_flush(s);
        const uint8_t *px = cairo_image_surface_get_data(s);
        int stride = cairo_image_surface_get_stride(s), sw = cairo_image_surface_get_width(s),
            sh = cairo_image_surface_get_height(s);
        int x0 = (int)fmax(0, floor(x)), y0 = (int)fmax(0, floor(y));
        int x1 = (int)fmin(sw, ceil(x + w)), y1 = (int)fmin(sh, ceil(y + h));
        double worst = 21;
        for (int j = y0; j < y1; j++) {
                const uint32_t *row = (const uint32_t *)(px + (size_t)j * stride);
                for (int i = x0; i < x1; i++) {
                        double br = (row[i] >> 16 & 0xff) / 255.0,
                               bg = (row[i] >> 8 & 0xff) / 255.0, bb = (row[i] & 0xff) / 255.0;
                        double lt =
                            luminance(c->r * c->a + br * (1 - c->a), c->g * c->a + bg * (1 - c->a),
                                      c->b * c->a + bb * (1 - c->a));
                        worst = fmin(worst, contrast_ratio(lt, luminance(br, bg, bb)));
                }
        }
        return worst;
}

/* A line wider than its box is drawn smaller, down to this fraction of its
 * size, before it is cut: a long translated error still reads whole. */
#define FIT_MIN 0.75

static void draw_line_in_box(struct dmo_painter *p, cairo_t *cr, enum dmo_painter_box bi,
                             const struct dmo_line *l, enum dmo_align align,
                             const struct dmo_rgba *color, const struct dmo_rgba *backing)
{
        const struct dmo_rect *bx = &p->box[bi];
        p->ink_valid[bi] = false;
        if (!l->style || l->n == 0)
                return;
        /* "start" is the reading start: the right edge for RTL text. */
        if (l->rtl && align != DMO_ALIGN_CENTER)
                align = align == DMO_ALIGN_START ? DMO_ALIGN_END : DMO_ALIGN_START;
        double k = l->width > bx->w ? fmax(bx->w / l->width, FIT_MIN) : 1;
        double w = l->width * k;
        double x;
        if (w > bx->w)
                x = l->rtl ? bx->x + bx->w - w : bx->x;
        else if (align == DMO_ALIGN_START)
                x = bx->x;
        else if (align == DMO_ALIGN_END)
                x = bx->x + bx->w - w;
        else
                x = bx->x + (bx->w - w) / 2;
        x = k == 1 ? round(x) : x;
        double asc = l->style->ascent * k, desc = l->style->descent * k;
        double y = round(bx->y + (bx->h - (asc + desc)) / 2 + asc);
        cairo_save(cr);
        cairo_rectangle(cr, bx->x, bx->y, bx->w, bx->h);
        cairo_clip(cr);
        if (backing && backing->a > 0) {
                /* A band as tall as the box, round-ended, inside the box. */
                double r = bx->h / 2.0, bx0 = fmax(bx->x, x - r),
                       bx1 = fmin(bx->x + bx->w, x + w + r);
                rounded_rect(cr, bx0, bx->y, bx1 - bx0, bx->h, r);
                set_rgba(cr, backing);
                cairo_fill(cr);
        }
        double x0, y0, x1, y1;
        bool inked = dmo_line_ink(l, &x0, &y0, &x1, &y1);
        if (p->measure && inked)
                p->contrast[bi] =
                    worst_contrast(cr, color, x + x0 * k, y + y0 * k, (x1 - x0) * k, (y1 - y0) * k);
        set_rgba(cr, color);
        cairo_translate(cr, x, y);
        cairo_scale(cr, k, k);
        dmo_line_draw(cr, l, 0, 0);
        cairo_restore(cr);
        if (inked) {
                /* The pixels the ink touches (antialiasing included). */
                int ix0 = (int)floor(x + x0 * k), iy0 = (int)floor(y + y0 * k);
                int ix1 = (int)ceil(x + x1 * k), iy1 = (int)ceil(y + y1 * k);
                struct dmo_rect ink = {ix0, iy0, ix1 - ix0, iy1 - iy0};
                /* Not cut to the box: theme check uses it to find text that does not fit. */
                p->ink[bi] = ink;
                p->ink_valid[bi] = true;
        }
}

/* One of the theme's text elements, in its colours. */
static void draw_text(struct dmo_painter *p, cairo_t *cr, enum dmo_text_slot which,
                      enum dmo_painter_box box, const struct dmo_line *l)
{
        const struct dmo_theme_text *tt = &p->t->text[which];
        draw_line_in_box(p, cr, box, l, tt->align, &tt->color, &tt->backing);
}

static void draw_throbber(struct dmo_painter *p, cairo_t *cr, const struct dmo_scene *sc)
{
        const struct dmo_theme *t = p->t;
        const struct dmo_rect *b = &p->box[DMO_BOX_THROBBER];
        unsigned step = throbber_step(p, sc->frame_counter);

        if (t->throbber_kind == DMO_THROBBER_FRAMES && p->throbber[step]) {
                cairo_set_source_surface(cr, p->throbber[step], b->x, b->y);
                cairo_paint(cr);
                return;
        }
        /* Twelve dots, the brightest one walking round. */
        double cx = b->x + b->w / 2.0, cy = b->y + b->h / 2.0, R = b->w / 2.0;
        double dot = R * 0.16;
        cairo_save(cr);
        for (unsigned i = 0; i < 12; i++) {
                double a = 2 * M_PI * i / 12 - M_PI / 2;
                unsigned age = (step + 12 - i) % 12;
                struct dmo_rgba c = t->throbber_color;
                c.a *= 0.15 + 0.85 * (1.0 - age / 12.0);
                set_rgba(cr, &c);
                cairo_new_sub_path(cr);
                cairo_arc(cr, cx + cos(a) * (R - dot), cy + sin(a) * (R - dot), dot, 0, 2 * M_PI);
                cairo_fill(cr);
        }
        cairo_restore(cr);
}

static void draw_dialog(struct dmo_painter *p, cairo_t *cr, const struct dmo_scene *sc)
{
        const struct dmo_theme *t = p->t;
        const struct dmo_rect *b = &p->box[DMO_BOX_DIALOG];
        double s = p->scale, pad = 16 * s;
        double lh = p->dialog_style.ascent + p->dialog_style.descent;

        cairo_save(cr);
        rounded_rect(cr, b->x + 0.5, b->y + 0.5, b->w - 1, b->h - 1, 10 * s);
        set_rgba(cr, &t->dialog_bg);
        cairo_fill_preserve(cr);
        cairo_set_line_width(cr, fmax(1, s));
        set_rgba(cr, &t->dialog_border);
        cairo_stroke(cr);

        /* prompt */
        dmo_line_shape(&p->shaper, &p->line[L_PROMPT], &p->dialog_style, sc->dialog.prompt);
        /* Room above and below for accents and descenders (the padding has it). */
        p->box[DMO_BOX_PROMPT] = (struct dmo_rect){iround(b->x + pad), iround(b->y + pad - 4 * s),
                                                   iround(b->w - 2 * pad), iround(lh + 8 * s)};
        p->box_shown[DMO_BOX_PROMPT] = true;
        draw_line_in_box(p, cr, DMO_BOX_PROMPT, &p->line[L_PROMPT], DMO_ALIGN_START,
                         &t->dialog_text, NULL);

        double fy = b->y + pad + lh + 12 * s, fh = lh + 16 * s;
        if (sc->dialog.kind == DMO_DIALOG_PASSWORD) {
                double fx = b->x + pad, fw = b->w - 2 * pad;
                rounded_rect(cr, fx, fy, fw, fh, 6 * s);
                cairo_set_source_rgba(cr, 0, 0, 0, 0.35);
                cairo_fill_preserve(cr);
                set_rgba(cr, &t->dialog_accent);
                cairo_stroke(cr);
                double br = lh * 0.18, step = br * 3.2;
                unsigned fit = (unsigned)fmax(0, (fw - 2 * step) / step);
                unsigned n = sc->dialog.bullets < fit ? sc->dialog.bullets : fit;
                set_rgba(cr, &t->dialog_text);
                for (unsigned i = 0; i < n; i++) {
                        cairo_new_sub_path(cr);
                        cairo_arc(cr, fx + step + i * step, fy + fh / 2, br, 0, 2 * M_PI);
                }
                cairo_fill(cr);
        } else if (sc->dialog.kind == DMO_DIALOG_QUESTION) {
                double bw = (b->w - 3 * pad) / 2;
                /* The selected answer's text: the theme's, or black or white,
                 * whichever reads better on the accent. */
                struct dmo_rgba on_accent = t->dialog_accent_text;
                if (on_accent.a <= 0) {
                        const struct dmo_rgba *a = &t->dialog_accent;
                        double la = luminance(a->r, a->g, a->b);
                        bool dark = contrast_ratio(la, 0) >= contrast_ratio(la, 1);
                        on_accent = dark ? (struct dmo_rgba){0.06, 0.07, 0.09, 1}
                                         : (struct dmo_rgba){1, 1, 1, 1};
                }
                for (int i = 0; i < 2; i++) {
                        bool yes = i == 0, hi = yes == sc->dialog.answer_yes;
                        /* The first answer where reading starts: the right in RTL. */
                        int slot = p->rtl ? 1 - i : i;
                        double bx = b->x + pad + slot * (bw + pad);
                        rounded_rect(cr, bx, fy, bw, fh, 6 * s);
                        if (hi) {
                                set_rgba(cr, &t->dialog_accent);
                                cairo_fill(cr);
                        } else {
                                set_rgba(cr, &t->dialog_border);
                                cairo_stroke(cr);
                        }
                        enum dmo_painter_box which = yes ? DMO_BOX_YES : DMO_BOX_NO;
                        p->box[which] =
                            (struct dmo_rect){iround(bx), iround(fy), iround(bw), iround(fh)};
                        p->box_shown[which] = true;
                        draw_line_in_box(p, cr, which, &p->line[yes ? L_YES : L_NO],
                                         DMO_ALIGN_CENTER, hi ? &on_accent : &t->dialog_text, NULL);
                }
        }
        cairo_restore(cr);
}

static void paint_at(cairo_t *cr, cairo_surface_t *s, const struct dmo_rect *r)
{
        if (!s)
                return;
        cairo_set_source_surface(cr, s, r->x, r->y);
        cairo_paint(cr);
}

/* A line of dialog text in an arbitrary box (the detail box lends its slot). */
static void draw_dialog_line(struct dmo_painter *p, cairo_t *cr, struct dmo_rect box,
                             struct dmo_line *l, const struct dmo_rgba *color)
{
        struct dmo_rect saved = p->box[DMO_BOX_DETAIL], saved_ink = p->ink[DMO_BOX_DETAIL];
        bool saved_valid = p->ink_valid[DMO_BOX_DETAIL];
        p->box[DMO_BOX_DETAIL] = box;
        draw_line_in_box(p, cr, DMO_BOX_DETAIL, l, DMO_ALIGN_CENTER, color, NULL);
        p->box[DMO_BOX_DETAIL] = saved;
        p->ink[DMO_BOX_DETAIL] = saved_ink;
        p->ink_valid[DMO_BOX_DETAIL] = saved_valid;
}

/* Plymouth's dialog, from the theme's images: box, lock, entry with one
 * bullet image per typed character (as many as fit), the prompt centred
 * under it; a question shows its two answers in the entry. */
static void draw_image_dialog(struct dmo_painter *p, cairo_t *cr, const struct dmo_scene *sc)
{
        const struct dmo_theme *t = p->t;
        const struct dmo_rect *e = &p->d_entry_box;
        double lh = p->dialog_style.ascent + p->dialog_style.descent;
        paint_at(cr, p->d_box, &p->d_box_box);
        paint_at(cr, p->d_entry, e);
        paint_at(cr, p->d_lock, &p->d_lock_box);
        if (sc->dialog.kind == DMO_DIALOG_PASSWORD && p->d_bullet) {
                int bw = cairo_image_surface_get_width(p->d_bullet);
                int bh = cairo_image_surface_get_height(p->d_bullet);
                unsigned fit = bw > 0 && e->w / bw > 1 ? (unsigned)(e->w / bw - 1) : 0;
                unsigned n = sc->dialog.bullets < fit ? sc->dialog.bullets : fit;
                for (unsigned i = 0; i < n; i++) {
                        struct dmo_rect r = {iround(e->x + i * bw + bw / 2.0),
                                             iround(e->y + e->h / 2.0 - bh / 2.0), bw, bh};
                        paint_at(cr, p->d_bullet, &r);
                }
        } else if (sc->dialog.kind == DMO_DIALOG_QUESTION) {
                for (int i = 0; i < 2; i++) {
                        bool yes = i == 0;
                        struct dmo_rgba c = t->dialog_text;
                        if (yes != sc->dialog.answer_yes)
                                c.a *= 0.45;
                        struct dmo_rect half = {e->x + i * e->w / 2, e->y, e->w / 2, e->h};
                        draw_dialog_line(p, cr, half, &p->line[yes ? L_YES : L_NO], &c);
                }
        }
        int bottom = p->d_box ? p->d_box_box.y + p->d_box_box.h : e->y + e->h;
        if (p->d_lock_box.y + p->d_lock_box.h > bottom)
                bottom = p->d_lock_box.y + p->d_lock_box.h;
        dmo_line_shape(&p->shaper, &p->line[L_PROMPT], &p->dialog_style, sc->dialog.prompt);
        draw_dialog_line(p, cr, (struct dmo_rect){0, bottom, p->w, iround(lh + 4 * p->scale)},
                         &p->line[L_PROMPT], &t->dialog_text);
}

static void draw_all(struct dmo_painter *p, cairo_t *cr, const struct dmo_scene *sc)
{
        const struct dmo_theme *t = p->t;
        const struct dmo_theme_mode *m = &t->mode[sc->kind];

        bool dialog = sc->dialog.kind != DMO_DIALOG_NONE;
        bool image_dialog = dialog && p->d_entry;
        /* Without the firmware logo: in a mode that does not show it, and
         * behind a dialog when the theme says so (Plymouth's bgrt theme). */
        bool plain = p->box_shown[DMO_BOX_FIRMWARE_LOGO] &&
                     (!m->show_firmware_logo || (dialog && t->fw_dialog_clears));
        cairo_surface_t *base = plain ? p->base_plain : p->base;
        if (base) {
                cairo_set_source_surface(cr, base, 0, 0);
                cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
                cairo_paint(cr);
                cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
        } else {
                fill_background_clip(p, cr);
        }
        cairo_surface_t *logo = p->mode_logo[sc->kind] ? p->mode_logo[sc->kind] : p->logo;
        if (logo && m->show_logo) {
                cairo_set_source_surface(cr, logo, p->box[DMO_BOX_LOGO].x, p->box[DMO_BOX_LOGO].y);
                cairo_paint(cr);
        }
        if (t->text[DMO_TEXT_TITLE].show && !image_dialog)
                draw_text(p, cr, DMO_TEXT_TITLE, DMO_BOX_TITLE, &p->line[L_TITLE0 + sc->kind]);
        /* A dialog takes the place of the subtitle, bar and progress lines;
         * drawing them half hidden behind it looks broken. */
        if (t->text[DMO_TEXT_SUBTITLE].show && !dialog)
                draw_text(p, cr, DMO_TEXT_SUBTITLE, DMO_BOX_SUBTITLE,
                          &p->line[L_SUBTITLE0 + sc->kind]);
        if (m->show_bar && !dialog)
                draw_bar(p, cr, sc);
        if (m->show_stats && t->text[DMO_TEXT_STATS].show && !dialog)
                draw_text(p, cr, DMO_TEXT_STATS, DMO_BOX_STATS, &p->line[L_STATS]);
        if (t->text[DMO_TEXT_MESSAGE].show && !dialog)
                draw_text(p, cr, DMO_TEXT_MESSAGE, DMO_BOX_MESSAGE, &p->line[L_MESSAGE]);
        if (t->text[DMO_TEXT_DETAIL].show)
                draw_text(p, cr, DMO_TEXT_DETAIL, DMO_BOX_DETAIL, &p->line[L_DETAIL]);
        if (m->show_throbber && p->box_shown[DMO_BOX_THROBBER] && !image_dialog)
                draw_throbber(p, cr, sc);
        if (p->box_shown[DMO_BOX_ANIMATION] && m->show_throbber && !dialog) {
                cairo_surface_t *f = p->anim[anim_step(p, sc->bar_fraction)];
                paint_at(cr, f, &p->box[DMO_BOX_ANIMATION]);
        }
        if (image_dialog)
                draw_image_dialog(p, cr, sc);
        else if (dialog)
                draw_dialog(p, cr, sc);
}

static struct target *get_target(struct dmo_painter *p, uint8_t *pixels, int stride)
{
        for (int i = 0; i < MAX_TARGETS; i++)
                if (p->targets[i].pixels == pixels && p->targets[i].stride == stride)
                        return &p->targets[i];
        /* A buffer not seen before: the only allocation paint may do, once per buffer. */
        struct target *t = &p->targets[p->next_target];
        p->next_target = (p->next_target + 1) % MAX_TARGETS;
        if (t->cr)
                cairo_destroy(t->cr);
        if (t->surface)
                cairo_surface_destroy(t->surface);
        *t = (struct target){0};
        cairo_surface_t *s =
            cairo_image_surface_create_for_data(pixels, CAIRO_FORMAT_RGB24, p->w, p->h, stride);
        if (cairo_surface_status(s)) {
                cairo_surface_destroy(s);
                return NULL;
        }
        cairo_t *cr = cairo_create(s);
        if (cairo_status(cr)) {
                cairo_destroy(cr);
                cairo_surface_destroy(s);
                return NULL;
        }
        *t = (struct target){pixels, stride, s, cr};
        return t;
}

static bool same_dialog(const struct dmo_dialog *a, const struct dmo_dialog *b)
{
        if (a->kind != b->kind)
                return false;
        if (a->kind == DMO_DIALOG_NONE)
                return true;
        return a->bullets == b->bullets && a->answer_yes == b->answer_yes &&
               !strncmp(a->prompt, b->prompt, sizeof(a->prompt));
}

static void add_damage(struct dmo_rect *d, unsigned max, unsigned *n, struct dmo_rect r, int w,
                       int h)
{
        /* Cut to the screen; grow by a pixel for antialiased edges. */
        r.x -= 1;
        r.y -= 1;
        r.w += 2;
        r.h += 2;
        int x1 = r.x + r.w, y1 = r.y + r.h;
        r.x = r.x < 0 ? 0 : r.x;
        r.y = r.y < 0 ? 0 : r.y;
        x1 = x1 > w ? w : x1;
        y1 = y1 > h ? h : y1;
        if (x1 <= r.x || y1 <= r.y || max == 0)
                return;
        r.w = x1 - r.x;
        r.h = y1 - r.y;
        if (*n < max) {
                d[(*n)++] = r;
                return;
        }
        /* Out of slots: merge everything into the last one. */
        struct dmo_rect *u = &d[max - 1];
        int ux = u->x < r.x ? u->x : r.x, uy = u->y < r.y ? u->y : r.y;
        int ux1 = u->x + u->w > x1 ? u->x + u->w : x1, uy1 = u->y + u->h > y1 ? u->y + u->h : y1;
        *u = (struct dmo_rect){ux, uy, ux1 - ux, uy1 - uy};
}

int dmo_painter_paint(struct dmo_painter *p, uint8_t *pixels, int stride,
                      const struct dmo_scene *sc, bool force_full, struct dmo_rect *damage,
                      unsigned max_damage, unsigned *ndamage)
{
        struct dmo_rect local[1];
        unsigned nd = 0;

        if (!p || !pixels || !sc || stride < p->w * 4 || (unsigned)sc->kind >= DMO_SCENE_KINDS)
                return -EINVAL;
        if (!damage || max_damage == 0) {
                damage = local;
                max_damage = 1;
        }
        struct target *tg = get_target(p, pixels, stride);
        if (!tg)
                return -ENOMEM;
        cairo_t *cr = tg->cr;

        /* What the new frame shows. */
        struct painter_state now = {
            .valid = true,
            .kind = sc->kind,
            .bar_px = bar_px(p, sc->bar_fraction),
            .throbber_step = throbber_step(p, sc->frame_counter),
            .anim_step = anim_step(p, sc->bar_fraction),
            .dialog = sc->dialog,
        };
        now.dialog.prompt[sizeof(now.dialog.prompt) - 1] = '\0';
        char stats[256], detail[256];
        if (p->t->mode[sc->kind].show_stats)
                build_stats(p, sc, stats, sizeof(stats));
        else
                stats[0] = '\0';
        if (sc->detail[0])
                snprintf(detail, sizeof(detail), "%.255s", sc->detail);
        else if (sc->reboot_after && sc->kind == DMO_SCENE_HIBERNATE)
                snprintf(detail, sizeof(detail), "%s",
                         _("The computer will restart instead of powering off"));
        else
                detail[0] = '\0';
        const char *message = sc->progress.message;

        bool changed_stats = false, changed_msg = false, changed_detail = false;
        if (p->have_text) {
                shape_titles(p, sc->kind);
                changed_stats = dmo_line_shape(&p->shaper, &p->line[L_STATS],
                                               &p->style[DMO_TEXT_STATS], stats) > 0;
                changed_msg = dmo_line_shape(&p->shaper, &p->line[L_MESSAGE],
                                             &p->style[DMO_TEXT_MESSAGE], message) > 0;
                changed_detail = dmo_line_shape(&p->shaper, &p->line[L_DETAIL],
                                                &p->style[DMO_TEXT_DETAIL], detail) > 0;
        }

        const struct painter_state *was = &p->prev;
        bool full = force_full || !was->valid || was->kind != now.kind ||
                    was->dialog.kind != now.dialog.kind;
        if (full) {
                add_damage(damage, max_damage, &nd, (struct dmo_rect){0, 0, p->w, p->h}, p->w,
                           p->h);
                /* What this frame does not draw is no longer on the screen. */
                memset(p->ink_valid, 0, sizeof(p->ink_valid));
        } else {
                const struct dmo_theme_mode *m = &p->t->mode[sc->kind];
                if (m->show_bar && was->bar_px != now.bar_px)
                        add_damage(damage, max_damage, &nd, p->box[DMO_BOX_BAR], p->w, p->h);
                if (m->show_stats && changed_stats)
                        add_damage(damage, max_damage, &nd, p->box[DMO_BOX_STATS], p->w, p->h);
                if (changed_msg)
                        add_damage(damage, max_damage, &nd, p->box[DMO_BOX_MESSAGE], p->w, p->h);
                if (changed_detail)
                        add_damage(damage, max_damage, &nd, p->box[DMO_BOX_DETAIL], p->w, p->h);
                if (m->show_throbber && p->box_shown[DMO_BOX_THROBBER] &&
                    was->throbber_step != now.throbber_step)
                        add_damage(damage, max_damage, &nd, p->box[DMO_BOX_THROBBER], p->w, p->h);
                if (p->box_shown[DMO_BOX_ANIMATION] && m->show_throbber &&
                    was->anim_step != now.anim_step)
                        add_damage(damage, max_damage, &nd, p->box[DMO_BOX_ANIMATION], p->w, p->h);
                if (!same_dialog(&was->dialog, &now.dialog))
                        add_damage(damage, max_damage, &nd, p->box[DMO_BOX_DIALOG], p->w, p->h);
        }
        for (unsigned i = 0; i < nd; i++) {
                cairo_save(cr);
                cairo_rectangle(cr, damage[i].x, damage[i].y, damage[i].w, damage[i].h);
                cairo_clip(cr);
                draw_all(p, cr, sc);
                cairo_restore(cr);
        }
        cairo_surface_flush(tg->surface);
        p->prev = now;
        if (ndamage)
                *ndamage = damage == local ? 0 : nd;
        return 0;
}
