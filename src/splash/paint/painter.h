/* Room paint/ (painter.h is its main header): the painter, text shaping
 * (text) and the cairo-free backdrop. It owns fonts, layouts and pixels it
 * is handed; it may call theme/ (read-only), cairo, FreeType and HarfBuzz;
 * it never opens a device, never reads keys, never knows which output shows
 * its pixels, and never loads theme images (the session does, see theme.h).
 *
 * painter: turns (theme, scene) into XRGB8888 pixels with cairo.
 *
 * Contract:
 * - dmo_painter_new() does every file I/O and almost every allocation the
 *   painter will need: fonts (FreeType + cairo-ft, no fontconfig), scaled
 *   images, glyph buffers, the dialog's pre-shaped answers, the layout for
 *   this size and scale. dmo_painter_prewarm() does the rest (the titles and
 *   subtitles of the scene kinds no frame has shown yet, cairo's glyph
 *   caches for every string a later frame may show). For a hibernation the
 *   outputs call it right after their first frame is on screen, so the
 *   splash comes up sooner, and always before the system freezes (the
 *   renderer draws at least once). At resume they do not: each string is
 *   shaped and its glyphs drawn when a frame first shows it.
 * - dmo_painter_paint() never does file I/O and never calls malloc itself.
 *   Shaping a dynamic string that changed (message, detail, stats line; the
 *   title and subtitle the first time their scene kind is shown) runs
 *   HarfBuzz on a pre-allocated buffer; see painter.c for the bound.
 * - Nothing is drawn outside the width×height screen; text is clipped to its box.
 * - One painter per output; not thread-safe; the theme must outlive it.
 */
#ifndef DMO_SPLASH_PAINTER_H
#define DMO_SPLASH_PAINTER_H

#include <stdbool.h>
#include <stdint.h>

#include "splash/scene.h"
#include "splash/theme/theme.h"

struct dmo_rect {
        int x, y, w, h;
};

struct dmo_painter;

/* The theme's images must be decoded (-EINVAL while a deferred load still
 * has them pending). scale 0: automatic, from phys_width_mm (the panel's physical width in mm,
 * 0 if unknown): 2 above ~190 dpi, else 1; with no physical size, screens at
 * least 2000 px tall get 2. */
int dmo_painter_new(const struct dmo_theme *theme, int width, int height, double scale,
                    int phys_width_mm, struct dmo_painter **out);

/* The scale dmo_painter_new() will draw at (scale 0: automatic, as there),
 * for an output that asks the theme's owner for the images it needs. */
double dmo_painter_scale_for(int width, int height, double scale, int phys_width_mm);

/* Shapes every scene kind's title and subtitle and fills cairo's glyph
 * caches for the digits, units and Arabic samples the stats line uses and
 * for every shaped line. Idempotent and cheap once done. */
void dmo_painter_prewarm(struct dmo_painter *p);

/* Draws the scene into an XRGB8888 (CAIRO_FORMAT_RGB24) buffer of the
 * painter's size; reports the rectangles that changed since the last call
 * (the whole screen when force_full or on the first call). When more than
 * max_damage rectangles changed they are merged into their bounding box. */
int dmo_painter_paint(struct dmo_painter *p, uint8_t *pixels, int stride,
                      const struct dmo_scene *scene, bool force_full, struct dmo_rect *damage,
                      unsigned max_damage, unsigned *ndamage);

/* The pixels it drew are gone (the caller zeroed its buffer before a
 * snapshot, splash/output/output.h: forget_frame): the next paint draws
 * the whole frame, as with force_full. No allocation. */
void dmo_painter_forget(struct dmo_painter *p);

void dmo_painter_free(struct dmo_painter *p);

/* The scale factor in use (after automatic selection). */
double dmo_painter_scale(const struct dmo_painter *p);

/* The stats line the scene's frame shows ("Restoring memory · 42% · 1.2 GB
 * of 2.9 GB · 480 MB/s · 3 seconds left"), translated, for tests and `theme
 * check`. */
void dmo_painter_stats_line(const struct dmo_painter *p, const struct dmo_scene *scene, char *out,
                            size_t len);

/* Whether dmo_painter_prewarm() ran. */
bool dmo_painter_prewarmed(const struct dmo_painter *p);

/* Layout boxes, for tests and `theme check`: where each element is drawn. */
enum dmo_painter_box {
        DMO_BOX_BAR,      /* the whole bar including its border */
        DMO_BOX_BAR_FILL, /* the inner area the fill grows in (left to right) */
        DMO_BOX_TITLE,
        DMO_BOX_SUBTITLE,
        DMO_BOX_MESSAGE,
        DMO_BOX_STATS,
        DMO_BOX_DETAIL,
        DMO_BOX_THROBBER,
        DMO_BOX_LOGO,
        DMO_BOX_DIALOG,
        DMO_BOX_PROMPT, /* the dialog's prompt line */
        DMO_BOX_YES,    /* the question's answers (their buttons) */
        DMO_BOX_NO,
        DMO_BOX_ANIMATION,     /* the progress animation (frames picked by the fraction) */
        DMO_BOX_FIRMWARE_LOGO, /* the firmware's logo, or the theme's fallback for it */
        DMO_BOX_COUNT
};
/* Returns false when the element is not shown by this theme. */
bool dmo_painter_box(const struct dmo_painter *p, enum dmo_painter_box which, struct dmo_rect *out);

/* Extent of the ink of the last text drawn in a text box (title, subtitle,
 * message, stats, detail, the dialog's prompt and answers), in screen
 * pixels, before clipping to the box (so it may reach past the box or the
 * screen when the text does not fit); false if that text is not on the
 * screen (a full repaint forgets what the new frame does not draw). For
 * checks that text fits its box at a given size. */
bool dmo_painter_text_extent(const struct dmo_painter *p, enum dmo_painter_box which,
                             struct dmo_rect *out);

/* From now on, each text drawn notes the lowest contrast ratio (WCAG 2)
 * between its colour and any pixel under it before it was drawn (the
 * background, an image, a backing band, a button). Costs a read of those
 * pixels per text: for `theme check`, not for a running splash. */
void dmo_painter_measure_contrast(struct dmo_painter *p);
/* That ratio for the text last drawn in the box; false when it is not on
 * the screen or nothing was measured. */
bool dmo_painter_text_contrast(const struct dmo_painter *p, enum dmo_painter_box which,
                               double *ratio);

#endif
