/* theme-private: the loaded theme as the painter and the checker see it.
 * Only theme.c, painter.c, text.c and theme_check.c include this. */
#ifndef DMO_SPLASH_THEME_PRIVATE_H
#define DMO_SPLASH_THEME_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <cairo.h>

#include "splash/scene.h"
#include "splash/theme/theme.h"

#define DMO_THEME_MAX_THROBBER 64
#define DMO_THEME_PATH         512

struct dmo_rgba {
        double r, g, b, a;
};

enum dmo_bg_kind { DMO_BG_COLOR, DMO_BG_GRADIENT, DMO_BG_IMAGE };
enum dmo_fit { DMO_FIT_SCALE, DMO_FIT_CENTER, DMO_FIT_TILE };
enum dmo_align { DMO_ALIGN_START, DMO_ALIGN_CENTER, DMO_ALIGN_END };
/* How halign/valign place an element: EDGE as fractions of the free space
 * (the default), CENTER as the element's centre in fractions of the screen
 * (Plymouth's rule for its animations). */
enum dmo_anchor { DMO_ANCHOR_EDGE, DMO_ANCHOR_CENTER };
/* A text element placed under another one instead of by its valign. */
enum dmo_below { DMO_BELOW_NONE, DMO_BELOW_TITLE, DMO_BELOW_ANIMATION, DMO_BELOW_STATS };

/* An image with its optional @2x variant (either may be NULL). */
struct dmo_theme_image {
        char file[DMO_THEME_PATH];
        cairo_surface_t *x1, *x2;
        char key[64]; /* where theme.conf names it, for diagnostics */
        int line;
};

enum dmo_text_slot {
        DMO_TEXT_TITLE,
        DMO_TEXT_SUBTITLE,
        DMO_TEXT_MESSAGE,
        DMO_TEXT_STATS,
        DMO_TEXT_DETAIL,
        DMO_TEXT_COUNT
};

struct dmo_theme_text {
        bool show;
        double halign, valign; /* centre of the box, as fractions of the screen */
        double width;          /* box width: fraction of the screen (≤ 1) or px at scale 1 */
        double size;           /* font size, px at scale 1 */
        bool bold;
        enum dmo_align align; /* "start" follows the text direction */
        struct dmo_rgba color;
        struct dmo_rgba backing; /* a=0: none; else a rounded band under the text */
        enum dmo_below below;    /* TITLE: the pair is placed as one block by the title's valign */
};

/* A numbered image sequence: PREFIX + first..first+count-1 (zero-padded to
 * digits) + ".png". */
struct dmo_theme_frames {
        char pattern[128];
        unsigned count, first, digits;
        struct dmo_theme_image image[DMO_THEME_MAX_THROBBER];
};

struct dmo_theme_mode {
        char title[256], subtitle[256]; /* translated at load time */
        bool show_bar, show_stats, show_throbber, show_logo;
        bool show_firmware_logo;
        struct dmo_rgba bar_color;   /* a=0: the bar's own colour */
        struct dmo_theme_image logo; /* none: the theme's [logo] image */
};

struct dmo_theme {
        int format;
        char name[128], description[256];
        char dir[DMO_THEME_PATH];
        char conf[DMO_THEME_PATH + 16]; /* theme.conf, for diagnostics */
        char bgrt_dir[DMO_THEME_PATH];  /* where the firmware logo is read (fw_logo) */
        bool images_pending;            /* named, not decoded yet (DMO_THEME_DEFER_IMAGES) */
        bool images_2x_pending; /* decoded without their @2x variants (scale 1 only so far) */

        /* fonts: resolved paths; "" when missing (painter falls back) */
        char font_regular[DMO_THEME_PATH], font_bold[DMO_THEME_PATH], font_fallback[DMO_THEME_PATH];

        enum dmo_bg_kind bg_kind;
        enum dmo_fit bg_fit;
        struct dmo_rgba bg_color, bg_color2;
        struct dmo_theme_image bg_image;

        struct dmo_theme_image logo;
        double logo_halign, logo_valign, logo_width; /* width px at scale 1, 0: image size */
        bool logo_above_animation; /* bottom on the animations' top (Plymouth's header image) */

        double bar_halign, bar_valign, bar_width, bar_height, bar_border, bar_radius;
        bool bar_mirror; /* fills from the right in right-to-left languages */
        struct dmo_rgba bar_fg, bar_bg, bar_border_color;
        struct dmo_theme_image bar_fill_image, bar_track_image;

        enum { DMO_THROBBER_NONE, DMO_THROBBER_SPINNER, DMO_THROBBER_FRAMES } throbber_kind;
        double throbber_halign, throbber_valign, throbber_size, throbber_speed;
        struct dmo_rgba throbber_color;
        enum dmo_anchor throbber_anchor;
        struct dmo_theme_frames throbber;

        /* Frames picked by the bar's fraction (Plymouth's progress animation). */
        bool anim_enabled;
        double anim_halign, anim_valign;
        enum dmo_anchor anim_anchor;
        struct dmo_theme_frames anim;

        /* The firmware's boot logo (ACPI BGRT), decoded with the images. */
        bool fw_logo;                       /* [background] firmware-logo */
        struct dmo_theme_image fw_fallback; /* drawn when the firmware has none */
        bool fw_dialog_clears;              /* [dialog] clears-firmware-logo */
        cairo_surface_t *fw_image;          /* NULL: none */
        const uint8_t *fw_pixels;           /* its ARGB32 pixels, for the backdrop */
        int fw_w, fw_h, fw_stride;
        int fw_xoff, fw_yoff; /* where the firmware drew it */

        struct dmo_theme_text text[DMO_TEXT_COUNT];

        double dialog_halign, dialog_valign, dialog_width, dialog_size;
        struct dmo_rgba dialog_bg, dialog_border, dialog_text, dialog_accent;
        struct dmo_rgba dialog_accent_text; /* a=0: black or white, whichever reads better */
        /* Image dialog (Plymouth's): entry field, lock, one bullet per character, box behind. */
        struct dmo_theme_image dialog_entry, dialog_lock, dialog_bullet, dialog_box;

        struct dmo_theme_mode mode[DMO_SCENE_KINDS]; /* by enum dmo_scene_kind */
};

/* Picks the variant for a scale: @2x when scale > 1.5 and present. */
cairo_surface_t *dmo_theme_image_pick(const struct dmo_theme_image *im, double scale,
                                      double *image_scale);

#endif
