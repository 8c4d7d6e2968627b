/* text: fonts loaded straight from files (FreeType + cairo-ft, no
 * fontconfig), HarfBuzz shaping with a simple bidi, and glyph-run drawing.
 *
 * Contract:
 * - dmo_font_open() does the file I/O; a dmo_textstyle binds fonts to a pixel
 *   size (cairo scaled fonts made up front); a dmo_line owns a fixed glyph
 *   capacity chosen at init. Shaping into a line never grows it: text that
 *   does not fit is cut at a character boundary.
 * - Direction per string: the first strong character decides (Arabic, Hebrew
 *   and other RTL scripts → RTL); digits and Latin inside RTL text form LTR
 *   runs, laid out in visual order.
 * - Per run, the primary font is used when it has every character, else the
 *   fallback font (e.g. Arabic) when it has more of them.
 */
#ifndef DMO_SPLASH_TEXT_H
#define DMO_SPLASH_TEXT_H

#include <stdbool.h>

#include <cairo.h>
#include <hb.h>

#define DMO_LINE_MAX_RUNS 16

struct dmo_font;

int dmo_font_open(const char *path, struct dmo_font **out);
void dmo_font_free(struct dmo_font *f);

struct dmo_textstyle {
        struct dmo_font *font[2]; /* primary, fallback (may be NULL) */
        cairo_scaled_font_t *sfont[2];
        double size;            /* px */
        double ascent, descent; /* of the primary font at this size, px */
};

int dmo_textstyle_init(struct dmo_textstyle *st, struct dmo_font *primary,
                       struct dmo_font *fallback, double size_px);
void dmo_textstyle_fini(struct dmo_textstyle *st);

struct dmo_line_run {
        unsigned first, count; /* glyph range, in visual order */
        int font;              /* 0 primary, 1 fallback */
};

struct dmo_line {
        cairo_glyph_t *glyphs; /* x relative to the line's left edge, y = 0 baseline */
        unsigned n, cap;
        struct dmo_line_run runs[DMO_LINE_MAX_RUNS];
        unsigned nruns;
        double width; /* advance width, px */
        bool rtl;
        const struct dmo_textstyle *style;
        char text[512]; /* what was shaped, to skip reshaping the same string */
};

struct dmo_shaper {
        hb_buffer_t *buf;
};

int dmo_shaper_init(struct dmo_shaper *s, unsigned max_chars);
void dmo_shaper_fini(struct dmo_shaper *s);

int dmo_line_init(struct dmo_line *l, unsigned cap);
void dmo_line_fini(struct dmo_line *l);
/* Shapes utf8 into l (no-op when the same text and style were shaped last).
 * Returns 1 when the line changed, 0 when not, negative errno on error. */
int dmo_line_shape(struct dmo_shaper *s, struct dmo_line *l, const struct dmo_textstyle *st,
                   const char *utf8);
/* Draws with the left end of the line at x, baseline at y. */
void dmo_line_draw(cairo_t *cr, const struct dmo_line *l, double x, double y);
/* Ink box of the line relative to (left, baseline). False if no ink. */
bool dmo_line_ink(const struct dmo_line *l, double *x0, double *y0, double *x1, double *y1);

/* True when the first strong character of utf8 is right-to-left. */
bool dmo_text_is_rtl(const char *utf8);

#endif
