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

#include <fribidi.h>

/* The characters of a line, logical order, with where each starts in the
 * UTF-8 text. */
struct dmo_shaper_chars {
        FriBidiChar cp[DMO_LINE_MAX_CHARS];
        uint32_t at[DMO_LINE_MAX_CHARS + 1];
        FriBidiCharType type[DMO_LINE_MAX_CHARS];
        FriBidiBracketType bracket[DMO_LINE_MAX_CHARS];
        FriBidiLevel level[DMO_LINE_MAX_CHARS];
        FriBidiStrIndex map[DMO_LINE_MAX_CHARS];
        unsigned n;
};

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

int dmo_font_open(const char *path, bool embolden, struct dmo_font **out)
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
        if (embolden && !(f->face->style_flags & FT_STYLE_FLAG_BOLD))
                cairo_ft_font_face_set_synthesize(f->cface, CAIRO_FT_SYNTHESIZE_BOLD);
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
        /* Unhinted outlines too. Slight hinting runs FreeType's autohinter,
         * which first analyses each face (its whole character map, its blue
         * zones): a fifth of the first frame's instructions (18.1 -> 14.2
         * million, 1280x800, callgrind), paid under emulation before the
         * splash is complete, for stems moved by less than a pixel at these
         * sizes. */
        cairo_font_options_set_hint_style(opt, CAIRO_HINT_STYLE_NONE);
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
        /* The line's height covers both fonts: Arabic reaches deeper than
         * Latin, and a box sized for Latin alone would cut it. */
        for (int i = 0; i < 2; i++) {
                if (!st->sfont[i])
                        continue;
                cairo_font_extents_t fe;
                cairo_scaled_font_extents(st->sfont[i], &fe);
                st->ascent = fmax(st->ascent, fe.ascent);
                st->descent = fmax(st->descent, fe.descent);
        }
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
        s->prefer_rtl = false;
        s->chars = calloc(1, sizeof(*s->chars));
        if (!s->chars)
                return -ENOMEM;
        s->buf = hb_buffer_create();
        if (!hb_buffer_allocation_successful(s->buf) ||
            !hb_buffer_pre_allocate(s->buf, max_chars)) {
                hb_buffer_destroy(s->buf);
                s->buf = NULL;
                free(s->chars);
                s->chars = NULL;
                return -ENOMEM;
        }
        return 0;
}

void dmo_shaper_fini(struct dmo_shaper *s)
{
        hb_buffer_destroy(s->buf);
        s->buf = NULL;
        free(s->chars);
        s->chars = NULL;
}

int dmo_line_init(struct dmo_line *l, unsigned cap)
{
        memset(l, 0, sizeof(*l));
        l->glyphs = calloc(cap, sizeof(*l->glyphs));
        l->cluster = calloc(cap, sizeof(*l->cluster));
        if (!l->glyphs || !l->cluster) {
                dmo_line_fini(l);
                return -ENOMEM;
        }
        l->cap = cap;
        return 0;
}

void dmo_line_fini(struct dmo_line *l)
{
        free(l->glyphs);
        free(l->cluster);
        memset(l, 0, sizeof(*l));
}

/* ---- bidi (GNU FriBidi) and shaping (HarfBuzz) ---- */

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

static void decode(const char *s, size_t len, struct dmo_shaper_chars *c)
{
        size_t i = 0;
        c->n = 0;
        while (i < len && c->n < DMO_LINE_MAX_CHARS) {
                c->at[c->n] = (uint32_t)i;
                c->cp[c->n++] = utf8_next(s, len, &i);
        }
        c->at[c->n] = (uint32_t)i;
}

static bool is_rtl_type(FriBidiCharType t)
{
        return t == FRIBIDI_TYPE_RTL || t == FRIBIDI_TYPE_AL;
}

/* The punctuation around a word that belongs to the sentence, not to the
 * word: brackets and quotes before it; those and ':' ',' '.' after it (a
 * final '/' stays with a path). */
static bool sentence_punct_before(const struct dmo_shaper_chars *c, unsigned i)
{
        return c->type[i] == FRIBIDI_TYPE_ON;
}

static bool sentence_punct_after(const struct dmo_shaper_chars *c, unsigned i)
{
        return c->type[i] == FRIBIDI_TYPE_ON || (c->type[i] == FRIBIDI_TYPE_CS && c->cp[i] != '/');
}

/* A higher-level protocol (UAX #9, HL3): a word with left-to-right letters
 * and no right-to-left ones ("/dev/sda2", "sda2", "MB/s") is isolated as a
 * left-to-right unit, as if wrapped in LRI…PDI; without it the slashes of
 * "/dev/sda2" at the end of an Arabic sentence take the sentence's
 * direction and the path reads "dev/sda2/". The punctuation at the word's
 * edges stays out of the unit: "/dev/sda2:" opening an Arabic sentence
 * reads the path, then the colon, from the right. Only the bidi classes of
 * the word's weak and neutral characters change; the algorithm is
 * FriBidi's. */
static void isolate_ltr_words(struct dmo_shaper_chars *c)
{
        for (unsigned i = 0; i < c->n;) {
                if (c->type[i] == FRIBIDI_TYPE_WS) {
                        i++;
                        continue;
                }
                unsigned end = i;
                bool l = false, r = false;
                while (end < c->n && c->type[end] != FRIBIDI_TYPE_WS) {
                        l |= c->type[end] == FRIBIDI_TYPE_LTR;
                        r |= is_rtl_type(c->type[end]);
                        end++;
                }
                if (l && !r) {
                        unsigned lo = i, hi = end;
                        while (lo < hi && sentence_punct_before(c, lo))
                                lo++;
                        while (hi > lo && sentence_punct_after(c, hi - 1))
                                hi--;
                        for (unsigned k = lo; k < hi; k++) {
                                if (!FRIBIDI_IS_EXPLICIT_OR_BN(c->type[k])) {
                                        c->type[k] = FRIBIDI_TYPE_LTR;
                                        c->bracket[k] = FRIBIDI_NO_BRACKET;
                                }
                        }
                }
                i = end;
        }
}

/* The paragraph's direction (UAX #9 P2–P3, or HL1 when the interface is
 * right-to-left: a line with any right-to-left letter is a right-to-left
 * paragraph, so "/dev/sda2: …" in Arabic reads from the right). */
static FriBidiParType paragraph_direction(const struct dmo_shaper_chars *c, bool prefer_rtl)
{
        if (prefer_rtl) {
                for (unsigned i = 0; i < c->n; i++)
                        if (is_rtl_type(c->type[i]))
                                return FRIBIDI_PAR_RTL;
                return FRIBIDI_PAR_LTR;
        }
        FriBidiParType d = fribidi_get_par_direction(c->type, (FriBidiStrIndex)c->n);
        return d == FRIBIDI_PAR_RTL ? FRIBIDI_PAR_RTL : FRIBIDI_PAR_LTR;
}

bool dmo_text_is_rtl(const char *utf8)
{
        struct dmo_shaper_chars *cc = malloc(sizeof(*cc));
        if (!cc)
                return false;
        decode(utf8, strlen(utf8), cc);
        fribidi_get_bidi_types(cc->cp, (FriBidiStrIndex)cc->n, cc->type);
        bool rtl = paragraph_direction(cc, false) == FRIBIDI_PAR_RTL;
        free(cc);
        return rtl;
}

static bool font_has(const struct dmo_font *f, uint32_t c)
{
        return f && (c < 0x20 || FT_Get_Char_Index(f->face, c) != 0);
}

/* Right-to-left runs go to the fallback when it has them all: Latin-first
 * fonts like DejaVu Sans carry some Arabic, but not shaped forms good
 * enough to read. */
static int pick_font(const struct dmo_textstyle *st, const struct dmo_shaper_chars *c,
                     unsigned first, unsigned end, bool rtl)
{
        unsigned miss0 = 0, miss1 = 0;
        for (unsigned i = first; i < end; i++) {
                miss0 += !font_has(st->font[0], c->cp[i]);
                miss1 += !font_has(st->font[1], c->cp[i]);
        }
        if (!st->font[1])
                return 0;
        if (rtl && miss1 == 0)
                return 1;
        return miss0 && miss1 < miss0 ? 1 : 0;
}

/* Shapes the logical characters [first, end) as one run of one direction
 * and appends its glyphs (HarfBuzz gives them in visual order). */
static void shape_run(struct dmo_shaper *s, struct dmo_line *l, const struct dmo_textstyle *st,
                      const struct dmo_shaper_chars *c, unsigned first, unsigned end, bool rtl)
{
        if (l->nruns == DMO_LINE_MAX_RUNS || l->n == l->cap)
                return;
        int fi = pick_font(st, c, first, end, rtl);
        hb_font_t *hf = st->font[fi]->hb;
        int scale = (int)lround(st->size * 64);
        size_t len = c->at[c->n];

        hb_font_set_scale(hf, scale, scale);
        hb_buffer_clear_contents(s->buf);
        hb_buffer_add_utf8(s->buf, l->text, (int)len, c->at[first],
                           (int)(c->at[end] - c->at[first]));
        hb_buffer_set_direction(s->buf, rtl ? HB_DIRECTION_RTL : HB_DIRECTION_LTR);
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
        lr->rtl = rtl;
        double x = l->width;
        for (unsigned g = 0; g < gn; g++) {
                l->cluster[l->n] = gi[g].cluster;
                l->glyphs[l->n++] = (cairo_glyph_t){
                    .index = gi[g].codepoint,
                    .x = x + gp[g].x_offset / 64.0,
                    .y = -gp[g].y_offset / 64.0,
                };
                x += gp[g].x_advance / 64.0;
        }
        l->width = x;
}

int dmo_line_shape(struct dmo_shaper *s, struct dmo_line *l, const struct dmo_textstyle *st,
                   const char *utf8)
{
        size_t len = strnlen(utf8, sizeof(l->text) - 1);

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
        l->rtl = false;
        if (!st->font[0] || len == 0)
                return 1;

        struct dmo_shaper_chars *c = s->chars;
        decode(l->text, len, c);
        fribidi_get_bidi_types(c->cp, (FriBidiStrIndex)c->n, c->type);
        fribidi_get_bracket_types(c->cp, (FriBidiStrIndex)c->n, c->type, c->bracket);
        isolate_ltr_words(c);
        FriBidiParType dir = paragraph_direction(c, s->prefer_rtl);
        l->rtl = dir == FRIBIDI_PAR_RTL;
        if (!fribidi_get_par_embedding_levels_ex(c->type, c->bracket, (FriBidiStrIndex)c->n, &dir,
                                                 c->level))
                return -ENOMEM;
        for (unsigned i = 0; i < c->n; i++)
                c->map[i] = (FriBidiStrIndex)i;
        /* No flags: HarfBuzz mirrors and keeps marks with their bases. */
        if (!fribidi_reorder_line(0, c->type, (FriBidiStrIndex)c->n, 0, dir, c->level, NULL,
                                  c->map))
                return -ENOMEM;

        /* Runs: visual stretches of one level whose characters are
         * consecutive in the text. */
        for (unsigned v = 0; v < c->n;) {
                unsigned lo = (unsigned)c->map[v], hi = lo;
                FriBidiLevel lev = c->level[lo];
                bool rtl = FRIBIDI_LEVEL_IS_RTL(lev);
                unsigned w = v + 1;
                while (w < c->n && c->level[c->map[w]] == lev &&
                       (unsigned)c->map[w] == (rtl ? lo - 1 : hi + 1)) {
                        if (rtl)
                                lo--;
                        else
                                hi++;
                        w++;
                }
                shape_run(s, l, st, c, lo, hi + 1, rtl);
                v = w;
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
