/* Room theme/ (theme.h is its main header): the theme file, its images
 * (pngload) and the checker (theme_check). It owns theme data and the
 * diagnostics list; it may call libpng, cairo (for image surfaces), gettext
 * and the file system; it never paints a frame, never opens a device and
 * never prints.
 *
 * theme: a splash theme loaded from its keyfile (theme.conf) and images.
 *
 * Contract:
 * - Owns the theme keyfile parser, image loading for themes (through
 *   pngload) and the diagnostics list shared with `dormouse theme check`.
 * - dmo_theme_load() does all file I/O and allocation of a theme; the result
 *   is immutable and may be shared by several painters (one per output).
 * - A load with DMO_THEME_DEFER_IMAGES is in two steps, both the owner's:
 *   the owner (the splash session) calls dmo_theme_load_images_for() when
 *   the first screen has its backdrop up; until then only the backdrop may
 *   read the theme, afterwards it is as immutable as a plain load, except
 *   that a later call for a larger scale adds the @2x variants (the owner
 *   makes it where no painter is being made). Outputs and painters only
 *   ever get a const theme.
 * - Translatable strings (titles, subtitles) are translated with gettext at
 *   load time: call dmo_i18n_init()/setlocale before loading.
 * - Never fatal on unknown keys or broken images: those become diagnostics and
 *   the theme falls back to its colours. Only an unreadable theme.conf, a
 *   wrong format version or no usable font at all fail the load.
 * - Never draws (painter.h does), never prints (callers print diagnostics).
 */
#ifndef DMO_SPLASH_THEME_H
#define DMO_SPLASH_THEME_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

enum dmo_diag_severity {
        DMO_DIAG_NOTE,
        DMO_DIAG_WARNING,
        DMO_DIAG_ERROR,
};

struct dmo_diag_item {
        enum dmo_diag_severity severity;
        char file[256];    /* "" when not about a file */
        int line;          /* 0 when not about a line */
        char key[64];      /* "section.key", or "" */
        char message[256]; /* translated, for people */
};

/* A growing list of diagnostics. Zero-initialise (or dmo_diag_init()), free
 * with dmo_diag_clear(). Adding never fails loudly: when memory runs out the
 * item is counted in `dropped` instead. */
struct dmo_diag {
        struct dmo_diag_item *items;
        size_t n, cap;
        size_t dropped;
};

void dmo_diag_init(struct dmo_diag *d);
void dmo_diag_clear(struct dmo_diag *d);
void dmo_diag_add(struct dmo_diag *d, enum dmo_diag_severity sev, const char *file, int line,
                  const char *key, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void dmo_diag_vadd(struct dmo_diag *d, enum dmo_diag_severity sev, const char *file, int line,
                   const char *key, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));
/* Number of items at or above `min`. */
size_t dmo_diag_count(const struct dmo_diag *d, enum dmo_diag_severity min);
/* "file:line: warning: [key] message" into buf (for CLI and test logs). */
void dmo_diag_format(const struct dmo_diag_item *it, char *buf, size_t len);

/* Where themes and fonts live. NULL members: DMO_DATADIR/themes, DMO_DATADIR/fonts,
 * "/" (the root Plymouth's themes and configuration are read under) and
 * /sys/firmware/acpi/bgrt (the firmware's boot logo). */
struct dmo_theme_paths {
        const char *themes_dir;
        const char *fonts_dir;
        const char *plymouth_root;
        const char *bgrt_dir;
};

struct dmo_theme;

/* name_or_dir: a theme name (→ themes_dir/NAME/theme.conf) or, when it
 * contains a '/', a theme directory; or a Plymouth theme ("plymouth" for the
 * system's default, "plymouth:NAME", or a path to a .plymouth file), which
 * splash/theme/plymouth.h translates (two-step themes only; other plugins
 * fail with -ENOTSUP and an error that names the plugin). diag may be NULL. */
int dmo_theme_load(const char *name_or_dir, const struct dmo_theme_paths *paths,
                   struct dmo_theme **out, struct dmo_diag *diag);
/* DMO_THEME_DEFER_IMAGES: parse theme.conf and find the fonts, but decode no
 * image yet: enough for an output to put the theme's background up at once
 * (splash/paint/backdrop.h). dmo_theme_load_images() decodes them later, with the
 * same warnings and fallbacks; a painter needs them decoded. */
enum { DMO_THEME_DEFER_IMAGES = 1 };
int dmo_theme_load_ex(const char *name_or_dir, const struct dmo_theme_paths *paths, unsigned flags,
                      struct dmo_theme **out, struct dmo_diag *diag);
/* Decodes the images a deferred load named, for painters of at most
 * max_scale (0: any): the NAME@2x.png variants only above
 * DMO_THEME_2X_SCALE (or where the plain image is unusable), the others in a
 * later call with a larger scale. Nothing when there is nothing left. Never
 * fails the theme: a broken image is a warning and a fallback. */
#define DMO_THEME_2X_SCALE 1.5 /* dmo_theme_image_pick takes @2x above this scale */
int dmo_theme_load_images_for(struct dmo_theme *t, double max_scale, struct dmo_diag *diag);
/* Every image, @2x variants included: _for(t, 0, diag). */
int dmo_theme_load_images(struct dmo_theme *t, struct dmo_diag *diag);
/* A painter at scale can be made: nothing it would pick is still pending. */
bool dmo_theme_images_ready(const struct dmo_theme *t, double scale);
/* Same as dmo_theme_load, from an in-memory keyfile; images and fonts are looked up relative to
 * base_dir (may be NULL: no images, fonts from paths). Used by fuzzing. */
int dmo_theme_load_from_memory(const char *text, size_t len, const char *base_dir,
                               const struct dmo_theme_paths *paths, struct dmo_theme **out,
                               struct dmo_diag *diag);
void dmo_theme_free(struct dmo_theme *t);

const char *dmo_theme_name(const struct dmo_theme *t);
const char *dmo_theme_dir(const struct dmo_theme *t);
/* Background colour as 0xRRGGBB (what an output clears to before the first frame). */
unsigned dmo_theme_background_rgb(const struct dmo_theme *t);

#endif
