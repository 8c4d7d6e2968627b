/* text: fonts loaded straight from files (FreeType + cairo-ft, no
 * fontconfig), bidirectional text with GNU FriBidi, HarfBuzz shaping of
 * each run, and glyph-run drawing.
 *
 * Contract:
 * - dmo_font_open() does the file I/O; a dmo_textstyle binds fonts to a pixel
 *   size (cairo scaled fonts made up front); a dmo_line owns a fixed glyph
 *   capacity chosen at init. Shaping into a line never grows it: text that
 *   does not fit is cut at a character boundary.
 * - Bidi is the Unicode Bidirectional Algorithm as FriBidi implements it
 *   (levels, brackets, reordering of one line). Paragraph direction: the
 *   first strong character (P2–P3), or, when the shaper prefers right to
 *   left (an RTL interface language), right to left for any line with a
 *   right-to-left letter. One higher-level protocol: a word with
 *   left-to-right letters and none right to left (a path, "MB/s") is kept
 *   together as a left-to-right unit.
 * - Each visual run is shaped by HarfBuzz in its direction (HarfBuzz does
 *   the mirroring of brackets and the Arabic joining).
 * - Per run, the primary font is used when it has every character, else the
 *   fallback font (e.g. Arabic) when it has more of them.
 * - Shaping allocates nothing of its own after dmo_shaper_init(); FriBidi
 *   and HarfBuzz may use small temporary blocks that they free again.
 */
#ifndef DMO_SPLASH_TEXT_H
#define DMO_SPLASH_TEXT_H

#include <stdbool.h>
#include <stdint.h>

#include <cairo.h>
#include <hb.h>

#define DMO_LINE_MAX_RUNS 32
/* Characters of one line (the text buffer below holds at most 511 bytes). */
#define DMO_LINE_MAX_CHARS 512

struct dmo_font;

/* embolden: draw the face synthetically bold when it is not a bold face
 * (a fallback font without a bold member under a bold title). */
int dmo_font_open(const char *path, bool embolden, struct dmo_font **out);
void dmo_font_free(struct dmo_font *f);

struct dmo_textstyle {
        struct dmo_font *font[2]; /* primary, fallback (may be NULL) */
        cairo_scaled_font_t *sfont[2];
        double size;            /* px */
        double ascent, descent; /* the larger of both fonts' at this size, px */
};

int dmo_textstyle_init(struct dmo_textstyle *st, struct dmo_font *primary,
                       struct dmo_font *fallback, double size_px);
void dmo_textstyle_fini(struct dmo_textstyle *st);

struct dmo_line_run {
        unsigned first, count; /* glyph range, in visual order */
        int font;              /* 0 primary, 1 fallback */
        bool rtl;              /* shaped right to left */
};

struct dmo_line {
        cairo_glyph_t *glyphs; /* x relative to the line's left edge, y = 0 baseline */
        uint32_t *cluster;     /* per glyph: byte offset in text of its character(s) */
        unsigned n, cap;
        struct dmo_line_run runs[DMO_LINE_MAX_RUNS];
        unsigned nruns;
        double width; /* advance width, px */
        bool rtl;     /* paragraph direction */
        const struct dmo_textstyle *style;
        char text[512]; /* what was shaped, to skip reshaping the same string */
};

struct dmo_shaper_chars;

struct dmo_shaper {
        hb_buffer_t *buf;
        struct dmo_shaper_chars *chars; /* per-character scratch for the bidi pass */
        bool prefer_rtl;                /* the interface reads right to left */
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
