#include "splash/paint/text.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cairo-ft.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include <hb-ft.h>

struct dmo_font {
        FT_Library lib;
        FT_Face face;
        cairo_font_face_t *cface;
        hb_font_t *hb;
};

static const cairo_user_data_key_t face_key;

/* cairo may keep its font face alive past dmo_font_free() (font caches), so
 * the FreeType face and library go when cairo drops its last reference. */
static void release_ft(void *data)
{
        struct dmo_font *f = data;
        FT_Done_Face(f->face);
        FT_Done_FreeType(f->lib);
        free(f);
}

int dmo_font_open(const char *path, struct dmo_font **out)
{
        struct dmo_font *f = calloc(1, sizeof(*f));
        if (!f)
                return -ENOMEM;
        if (FT_Init_FreeType(&f->lib)) {
                free(f);
                return -ENOMEM;
        }
        if (FT_New_Face(f->lib, path, 0, &f->face)) {
                FT_Done_FreeType(f->lib);
                free(f);
                return -EINVAL;
        }
        if (!FT_IS_SCALABLE(f->face)) {
                FT_Done_Face(f->face);
                FT_Done_FreeType(f->lib);
                free(f);
                return -EINVAL;
        }
        hb_face_t *hface = hb_ft_face_create_referenced(f->face);
        f->hb = hb_font_create(hface);
        hb_face_destroy(hface);
        f->cface = cairo_ft_font_face_create_for_ft_face(f->face, 0);
        if (cairo_font_face_status(f->cface) ||
            cairo_font_face_set_user_data(f->cface, &face_key, f, release_ft)) {
                cairo_font_face_destroy(f->cface);
                hb_font_destroy(f->hb);
                FT_Done_Face(f->face);
                FT_Done_FreeType(f->lib);
                free(f);
                return -ENOMEM;
        }
        *out = f;
        return 0;
}

void dmo_font_free(struct dmo_font *f)
{
        if (!f)
                return;
        hb_font_destroy(f->hb);
        f->hb = NULL;
        /* Last reference → release_ft() frees f. */
        cairo_font_face_destroy(f->cface);
}

int dmo_textstyle_init(struct dmo_textstyle *st, struct dmo_font *primary,
                       struct dmo_font *fallback, double size_px)
{
        memset(st, 0, sizeof(*st));
        st->font[0] = primary;
        st->font[1] = fallback;
        st->size = size_px;
        if (!primary)
                return -ENOENT;
        cairo_matrix_t fm, ctm;
        cairo_matrix_init_scale(&fm, size_px, size_px);
        cairo_matrix_init_identity(&ctm);
        cairo_font_options_t *opt = cairo_font_options_create();
        cairo_font_options_set_antialias(opt, CAIRO_ANTIALIAS_GRAY);
        /* HarfBuzz positions are unhinted; hinted metrics would drift from them. */
        cairo_font_options_set_hint_metrics(opt, CAIRO_HINT_METRICS_OFF);
        cairo_font_options_set_hint_style(opt, CAIRO_HINT_STYLE_SLIGHT);
        for (int i = 0; i < 2; i++) {
                if (!st->font[i])
                        continue;
                st->sfont[i] = cairo_scaled_font_create(st->font[i]->cface, &fm, &ctm, opt);
                if (cairo_scaled_font_status(st->sfont[i])) {
                        cairo_font_options_destroy(opt);
                        dmo_textstyle_fini(st);
                        return -ENOMEM;
                }
        }
        cairo_font_options_destroy(opt);
        cairo_font_extents_t fe;
        cairo_scaled_font_extents(st->sfont[0], &fe);
        st->ascent = fe.ascent;
        st->descent = fe.descent;
        return 0;
}

void dmo_textstyle_fini(struct dmo_textstyle *st)
{
        for (int i = 0; i < 2; i++) {
                if (st->sfont[i])
                        cairo_scaled_font_destroy(st->sfont[i]);
                st->sfont[i] = NULL;
        }
}

int dmo_shaper_init(struct dmo_shaper *s, unsigned max_chars)
{
        s->buf = hb_buffer_create();
        if (!hb_buffer_allocation_successful(s->buf) ||
            !hb_buffer_pre_allocate(s->buf, max_chars)) {
                hb_buffer_destroy(s->buf);
                s->buf = NULL;
                return -ENOMEM;
        }
        return 0;
}

void dmo_shaper_fini(struct dmo_shaper *s)
{
        hb_buffer_destroy(s->buf);
        s->buf = NULL;
}

int dmo_line_init(struct dmo_line *l, unsigned cap)
{
        memset(l, 0, sizeof(*l));
        l->glyphs = calloc(cap, sizeof(*l->glyphs));
        if (!l->glyphs)
                return -ENOMEM;
        l->cap = cap;
        return 0;
}

void dmo_line_fini(struct dmo_line *l)
{
        free(l->glyphs);
        memset(l, 0, sizeof(*l));
}

/* ---- simple bidi ---- */

enum bidi_class { B_NEUTRAL, B_L, B_R, B_NUM };

static uint32_t utf8_next(const char *s, size_t len, size_t *i)
{
        const uint8_t *p = (const uint8_t *)s + *i;
        size_t left = len - *i;
        uint32_t c = p[0];
        size_t n = 1;

        if (c >= 0xf0 && left >= 4 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80 &&
            (p[3] & 0xc0) == 0x80) {
                c = (c & 0x07) << 18 | (p[1] & 0x3fu) << 12 | (p[2] & 0x3fu) << 6 | (p[3] & 0x3fu);
                n = 4;
        } else if (c >= 0xe0 && c < 0xf0 && left >= 3 && (p[1] & 0xc0) == 0x80 &&
                   (p[2] & 0xc0) == 0x80) {
                c = (c & 0x0f) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu);
                n = 3;
        } else if (c >= 0xc0 && c < 0xe0 && left >= 2 && (p[1] & 0xc0) == 0x80) {
                c = (c & 0x1f) << 6 | (p[1] & 0x3fu);
                n = 2;
        } else if (c >= 0x80) {
                c = 0xfffd;
        }
        *i += n;
        return c;
}

static enum bidi_class classify(hb_unicode_funcs_t *uf, uint32_t c)
{
        /* Digits, and the percent sign that belongs to them ("42%"). */
        if ((c >= '0' && c <= '9') || (c >= 0x660 && c <= 0x669) || (c >= 0x6f0 && c <= 0x6f9) ||
            c == '%' || c == 0x066a)
                return B_NUM;
        hb_unicode_general_category_t gc = hb_unicode_general_category(uf, c);
        switch (gc) {
        case HB_UNICODE_GENERAL_CATEGORY_LOWERCASE_LETTER:
        case HB_UNICODE_GENERAL_CATEGORY_UPPERCASE_LETTER:
        case HB_UNICODE_GENERAL_CATEGORY_TITLECASE_LETTER:
        case HB_UNICODE_GENERAL_CATEGORY_MODIFIER_LETTER:
        case HB_UNICODE_GENERAL_CATEGORY_OTHER_LETTER: {
                hb_script_t sc = hb_unicode_script(uf, c);
                return hb_script_get_horizontal_direction(sc) == HB_DIRECTION_RTL ? B_R : B_L;
        }
        default:
                return B_NEUTRAL;
        }
}

bool dmo_text_is_rtl(const char *utf8)
{
        hb_unicode_funcs_t *uf = hb_unicode_funcs_get_default();
        size_t len = strlen(utf8);
        for (size_t i = 0; i < len;) {
                enum bidi_class c = classify(uf, utf8_next(utf8, len, &i));
                if (c == B_L)
                        return false;
                if (c == B_R)
                        return true;
        }
        return false;
}

static bool font_has(const struct dmo_font *f, uint32_t c)
{
        return f && (c < 0x20 || FT_Get_Char_Index(f->face, c) != 0);
}

struct lrun {
        size_t start, end; /* bytes */
        bool rtl;
};

static bool is_space(uint32_t c)
{
        return c == ' ' || c == '\t' || c == 0xa0 || (c >= 0x2000 && c <= 0x200a) || c == 0x202f ||
               c == 0x3000;
}

/* Whether the word starting at byte `at` (up to the next space) has a
 * left-to-right letter and no right-to-left one: a path or a name like
 * "/dev/sda2" or "(sda2)". Its punctuation then reads left to right with its
 * letters; by the paragraph's direction alone, an Arabic sentence would
 * show "dev/sda2/". Sets *end to the word's end. */
static bool ltr_word(hb_unicode_funcs_t *uf, const char *s, size_t len, size_t at, size_t *end)
{
        bool l = false, r = false;
        size_t i = at;
        while (i < len) {
                size_t here = i;
                uint32_t c = utf8_next(s, len, &i);
                if (is_space(c)) {
                        i = here;
                        break;
                }
                enum bidi_class k = classify(uf, c);
                l |= k == B_L;
                r |= k == B_R;
        }
        *end = i;
        return l && !r;
}

/* Resolved direction per character: strong characters keep theirs; neutrals
 * inside a left-to-right word are LTR; other neutrals between two characters
 * of the same direction take it, else the paragraph's; numbers are LTR (they
 * read left to right inside Arabic too). */
static unsigned split_runs(const char *s, size_t len, bool para_rtl, struct lrun *runs,
                           unsigned max)
{
        hb_unicode_funcs_t *uf = hb_unicode_funcs_get_default();
        unsigned n = 0;
        size_t i = 0;
        int prev_dir = para_rtl;   /* direction of the last strong char: 1 rtl, 0 ltr */
        size_t pending = SIZE_MAX; /* start of a run of neutrals not yet resolved */
        size_t word_end = 0;       /* the current word ends here... */
        bool word_ltr = false;     /* ...and is a left-to-right one */

        while (i < len) {
                size_t at = i;
                uint32_t cp = utf8_next(s, len, &i);
                enum bidi_class c = classify(uf, cp);
                if (at >= word_end && !is_space(cp))
                        word_ltr = ltr_word(uf, s, len, at, &word_end);
                if (c == B_NEUTRAL && word_ltr && at < word_end)
                        c = B_L;
                if (c == B_NEUTRAL) {
                        if (pending == SIZE_MAX)
                                pending = at;
                        continue;
                }
                int dir = c == B_R;
                size_t from = pending == SIZE_MAX ? at : pending;
                int ndir = dir == prev_dir ? dir : para_rtl;
                if (n == 0 && pending != SIZE_MAX)
                        ndir = para_rtl;
                /* Neutrals [from, at) take ndir; the strong char takes dir. */
                if (pending != SIZE_MAX && from < at) {
                        if (n && runs[n - 1].rtl == ndir)
                                runs[n - 1].end = at;
                        else if (n < max)
                                runs[n++] = (struct lrun){from, at, ndir};
                        else
                                runs[n - 1].end = at;
                }
                pending = SIZE_MAX;
                if (n && runs[n - 1].rtl == dir)
                        runs[n - 1].end = i;
                else if (n < max)
                        runs[n++] = (struct lrun){at, i, dir};
                else
                        runs[n - 1].end = i;
                prev_dir = dir;
        }
        if (pending != SIZE_MAX) {
                if (n && runs[n - 1].rtl == para_rtl)
                        runs[n - 1].end = len;
                else if (n < max)
                        runs[n++] = (struct lrun){pending, len, para_rtl};
                else
                        runs[n - 1].end = len;
        }
        return n;
}

/* Right-to-left runs go to the fallback when it has them all: Latin-first
 * fonts like DejaVu Sans carry some Arabic, but not shaped forms good
 * enough to read. */
static int pick_font(const struct dmo_textstyle *st, const char *s, size_t start, size_t end,
                     bool rtl)
{
        unsigned miss0 = 0, miss1 = 0;
        for (size_t i = start; i < end;) {
                uint32_t c = utf8_next(s, end, &i);
                miss0 += !font_has(st->font[0], c);
                miss1 += !font_has(st->font[1], c);
        }
        if (!st->font[1])
                return 0;
        if (rtl && miss1 == 0)
                return 1;
        return miss0 && miss1 < miss0 ? 1 : 0;
}

int dmo_line_shape(struct dmo_shaper *s, struct dmo_line *l, const struct dmo_textstyle *st,
                   const char *utf8)
{
        size_t len = strnlen(utf8, sizeof(l->text) - 1);
        struct lrun runs[DMO_LINE_MAX_RUNS];

        if (l->style == st && !strncmp(l->text, utf8, sizeof(l->text) - 1) &&
            strlen(l->text) == len)
                return 0;
        memcpy(l->text, utf8, len);
        l->text[len] = '\0';
        if (utf8[len]) {
                /* Cut: drop a UTF-8 sequence the cut split in two. */
                while (len && ((uint8_t)l->text[len - 1] & 0xc0) == 0x80)
                        len--;
                if (len && (uint8_t)l->text[len - 1] >= 0xc0)
                        len--;
                l->text[len] = '\0';
        }
        l->style = st;
        l->n = 0;
        l->nruns = 0;
        l->width = 0;
        l->rtl = dmo_text_is_rtl(l->text);
        if (!st->font[0] || len == 0)
                return 1;

        unsigned nr = split_runs(l->text, len, l->rtl, runs, DMO_LINE_MAX_RUNS);
        for (unsigned k = 0; k < nr; k++) {
                /* RTL paragraphs lay their runs out right to left. */
                const struct lrun *r = &runs[l->rtl ? nr - 1 - k : k];
                int fi = pick_font(st, l->text, r->start, r->end, r->rtl);
                hb_font_t *hf = st->font[fi]->hb;
                int scale = (int)lround(st->size * 64);

                hb_font_set_scale(hf, scale, scale);
                hb_buffer_clear_contents(s->buf);
                hb_buffer_add_utf8(s->buf, l->text, (int)len, (unsigned)r->start,
                                   (int)(r->end - r->start));
                hb_buffer_set_direction(s->buf, r->rtl ? HB_DIRECTION_RTL : HB_DIRECTION_LTR);
                hb_buffer_guess_segment_properties(s->buf);
                hb_shape(hf, s->buf, NULL, 0);

                unsigned gn;
                hb_glyph_info_t *gi = hb_buffer_get_glyph_infos(s->buf, &gn);
                hb_glyph_position_t *gp = hb_buffer_get_glyph_positions(s->buf, &gn);
                if (gn > l->cap - l->n)
                        gn = l->cap - l->n;
                struct dmo_line_run *lr = &l->runs[l->nruns++];
                lr->first = l->n;
                lr->count = gn;
                lr->font = fi;
                double x = l->width;
                for (unsigned g = 0; g < gn; g++) {
                        l->glyphs[l->n++] = (cairo_glyph_t){
                            .index = gi[g].codepoint,
                            .x = x + gp[g].x_offset / 64.0,
                            .y = -gp[g].y_offset / 64.0,
                        };
                        x += gp[g].x_advance / 64.0;
                }
                l->width = x;
                if (l->n == l->cap)
                        break;
        }
        return 1;
}

void dmo_line_draw(cairo_t *cr, const struct dmo_line *l, double x, double y)
{
        if (!l->style)
                return;
        for (unsigned k = 0; k < l->nruns; k++) {
                const struct dmo_line_run *r = &l->runs[k];
                if (!r->count)
                        continue;
                cairo_save(cr);
                cairo_translate(cr, x, y);
                cairo_set_scaled_font(cr, l->style->sfont[r->font]);
                cairo_show_glyphs(cr, l->glyphs + r->first, (int)r->count);
                cairo_restore(cr);
        }
}

bool dmo_line_ink(const struct dmo_line *l, double *x0, double *y0, double *x1, double *y1)
{
        bool any = false;
        if (!l->style)
                return false;
        for (unsigned k = 0; k < l->nruns; k++) {
                const struct dmo_line_run *r = &l->runs[k];
                if (!r->count)
                        continue;
                cairo_text_extents_t e;
                cairo_scaled_font_glyph_extents(l->style->sfont[r->font], l->glyphs + r->first,
                                                (int)r->count, &e);
                if (e.width <= 0 || e.height <= 0)
                        continue;
                /* cairo reports the box relative to the run's first glyph. */
                e.x_bearing += l->glyphs[r->first].x;
                e.y_bearing += l->glyphs[r->first].y;
                if (!any) {
                        *x0 = e.x_bearing;
                        *y0 = e.y_bearing;
                        *x1 = e.x_bearing + e.width;
                        *y1 = e.y_bearing + e.height;
                        any = true;
                } else {
                        *x0 = fmin(*x0, e.x_bearing);
                        *y0 = fmin(*y0, e.y_bearing);
                        *x1 = fmax(*x1, e.x_bearing + e.width);
                        *y1 = fmax(*y1, e.y_bearing + e.height);
                }
        }
        return any;
}
