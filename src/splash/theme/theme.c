#include "splash/theme/theme.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "splash/theme/bmpload.h"
#include "splash/theme/plymouth.h"
#include "splash/theme/pngload.h"
#include "splash/theme/theme-private.h"
#include "util/cleanup.h"
#include "util/i18n.h"

#define MAX_THEME_CONF (256u << 10)

/* ---- diagnostics ---- */

void dmo_diag_init(struct dmo_diag *d)
{
        memset(d, 0, sizeof(*d));
}

void dmo_diag_clear(struct dmo_diag *d)
{
        free(d->items);
        memset(d, 0, sizeof(*d));
}

void dmo_diag_vadd(struct dmo_diag *d, enum dmo_diag_severity sev, const char *file, int line,
                   const char *key, const char *fmt, va_list ap)
{
        if (!d)
                return;
        if (d->n == d->cap) {
                size_t cap = d->cap ? d->cap * 2 : 16;
                struct dmo_diag_item *it = realloc(d->items, cap * sizeof(*it));
                if (!it) {
                        d->dropped++;
                        return;
                }
                d->items = it;
                d->cap = cap;
        }
        struct dmo_diag_item *it = &d->items[d->n++];
        it->severity = sev;
        snprintf(it->file, sizeof(it->file), "%s", file ? file : "");
        it->line = line;
        snprintf(it->key, sizeof(it->key), "%s", key ? key : "");
        vsnprintf(it->message, sizeof(it->message), fmt, ap);
}

void dmo_diag_add(struct dmo_diag *d, enum dmo_diag_severity sev, const char *file, int line,
                  const char *key, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        dmo_diag_vadd(d, sev, file, line, key, fmt, ap);
        va_end(ap);
}

size_t dmo_diag_count(const struct dmo_diag *d, enum dmo_diag_severity min)
{
        size_t n = 0;
        for (size_t i = 0; d && i < d->n; i++)
                n += d->items[i].severity >= min;
        return n;
}

void dmo_diag_format(const struct dmo_diag_item *it, char *buf, size_t len)
{
        static const char *const sevs[] = {[DMO_DIAG_NOTE] = N_("note"),
                                           [DMO_DIAG_WARNING] = N_("warning"),
                                           [DMO_DIAG_ERROR] = N_("error")};
        char where[300] = "";
        if (it->file[0] && it->line > 0)
                snprintf(where, sizeof(where), "%s:%d: ", it->file, it->line);
        else if (it->file[0])
                snprintf(where, sizeof(where), "%s: ", it->file);
        snprintf(buf, len, "%s%s: %s%s%s%s", where, _(sevs[it->severity]), it->key[0] ? "[" : "",
                 it->key, it->key[0] ? "] " : "", it->message);
}

/* ---- value parsers ---- */

enum vtype {
        V_STR,
        V_TEXT,
        V_INT,
        V_UINT,
        V_DOUBLE,
        V_FRACTION,
        V_BOOL,
        V_COLOR,
        V_IMAGE,
        V_ENUM,
        V_FONT
};

struct keydef {
        const char *key;
        enum vtype type;
        size_t off;
        size_t size;              /* V_STR/V_TEXT/V_FONT buffer size */
        const char *const *names; /* V_ENUM: NULL-terminated */
};

struct sectiondef {
        const char *name;
        const struct keydef *keys;
        size_t base; /* offset of the sub-struct the keys are relative to */
};

static const char *const bg_kinds[] = {"color", "gradient", "image", NULL};
static const char *const fits[] = {"scale", "center", "tile", NULL};
static const char *const aligns[] = {"start", "center", "end", NULL};
static const char *const throbbers[] = {"none", "spinner", "frames", NULL};
static const char *const anchors[] = {"edge", "center", NULL};
static const char *const belows[] = {"none", "title", "animation", "stats", NULL};

#define TF(f) offsetof(struct dmo_theme, f)
#define SZ(f) sizeof(((struct dmo_theme *)0)->f)

static const struct keydef keys_theme[] = {
    {"format", V_INT, TF(format), 0, NULL},
    {"name", V_STR, TF(name), SZ(name), NULL},
    {"description", V_STR, TF(description), SZ(description), NULL},
    {NULL, 0, 0, 0, NULL},
};

static const struct keydef keys_font[] = {
    {"file", V_FONT, TF(font_regular), SZ(font_regular), NULL},
    {"bold", V_FONT, TF(font_bold), SZ(font_bold), NULL},
    {"fallback", V_FONT, TF(font_fallback), SZ(font_fallback), NULL},
    {NULL, 0, 0, 0, NULL},
};

static const struct keydef keys_background[] = {
    {"type", V_ENUM, TF(bg_kind), 0, bg_kinds},
    {"color", V_COLOR, TF(bg_color), 0, NULL},
    {"color2", V_COLOR, TF(bg_color2), 0, NULL},
    {"image", V_IMAGE, TF(bg_image), 0, NULL},
    {"fit", V_ENUM, TF(bg_fit), 0, fits},
    {"firmware-logo", V_BOOL, TF(fw_logo), 0, NULL},
    {"firmware-fallback", V_IMAGE, TF(fw_fallback), 0, NULL},
    {NULL, 0, 0, 0, NULL},
};

static const struct keydef keys_logo[] = {
    {"image", V_IMAGE, TF(logo), 0, NULL},
    {"halign", V_FRACTION, TF(logo_halign), 0, NULL},
    {"valign", V_FRACTION, TF(logo_valign), 0, NULL},
    {"width", V_DOUBLE, TF(logo_width), 0, NULL},
    {"above-animation", V_BOOL, TF(logo_above_animation), 0, NULL},
    {NULL, 0, 0, 0, NULL},
};

static const struct keydef keys_bar[] = {
    {"halign", V_FRACTION, TF(bar_halign), 0, NULL},
    {"valign", V_FRACTION, TF(bar_valign), 0, NULL},
    {"width", V_DOUBLE, TF(bar_width), 0, NULL},
    {"height", V_DOUBLE, TF(bar_height), 0, NULL},
    {"border", V_DOUBLE, TF(bar_border), 0, NULL},
    {"radius", V_DOUBLE, TF(bar_radius), 0, NULL},
    {"mirror", V_BOOL, TF(bar_mirror), 0, NULL},
    {"color", V_COLOR, TF(bar_fg), 0, NULL},
    {"background", V_COLOR, TF(bar_bg), 0, NULL},
    {"border-color", V_COLOR, TF(bar_border_color), 0, NULL},
    {"fill-image", V_IMAGE, TF(bar_fill_image), 0, NULL},
    {"track-image", V_IMAGE, TF(bar_track_image), 0, NULL},
    {NULL, 0, 0, 0, NULL},
};

static const struct keydef keys_throbber[] = {
    {"type", V_ENUM, TF(throbber_kind), 0, throbbers},
    {"halign", V_FRACTION, TF(throbber_halign), 0, NULL},
    {"valign", V_FRACTION, TF(throbber_valign), 0, NULL},
    {"size", V_DOUBLE, TF(throbber_size), 0, NULL},
    {"speed", V_DOUBLE, TF(throbber_speed), 0, NULL},
    {"color", V_COLOR, TF(throbber_color), 0, NULL},
    {"frames", V_STR, TF(throbber.pattern), SZ(throbber.pattern), NULL},
    {"count", V_UINT, TF(throbber.count), 0, NULL},
    {"first", V_UINT, TF(throbber.first), 0, NULL},
    {"digits", V_UINT, TF(throbber.digits), 0, NULL},
    {"anchor", V_ENUM, TF(throbber_anchor), 0, anchors},
    {NULL, 0, 0, 0, NULL},
};

static const struct keydef keys_anim[] = {
    {"show", V_BOOL, TF(anim_enabled), 0, NULL},
    {"halign", V_FRACTION, TF(anim_halign), 0, NULL},
    {"valign", V_FRACTION, TF(anim_valign), 0, NULL},
    {"anchor", V_ENUM, TF(anim_anchor), 0, anchors},
    {"frames", V_STR, TF(anim.pattern), SZ(anim.pattern), NULL},
    {"count", V_UINT, TF(anim.count), 0, NULL},
    {"first", V_UINT, TF(anim.first), 0, NULL},
    {"digits", V_UINT, TF(anim.digits), 0, NULL},
    {NULL, 0, 0, 0, NULL},
};

#define XF(f) offsetof(struct dmo_theme_text, f)
static const struct keydef keys_text[] = {
    {"show", V_BOOL, XF(show), 0, NULL},
    {"halign", V_FRACTION, XF(halign), 0, NULL},
    {"valign", V_FRACTION, XF(valign), 0, NULL},
    {"width", V_DOUBLE, XF(width), 0, NULL},
    {"size", V_DOUBLE, XF(size), 0, NULL},
    {"bold", V_BOOL, XF(bold), 0, NULL},
    {"align", V_ENUM, XF(align), 0, aligns},
    {"color", V_COLOR, XF(color), 0, NULL},
    {"backing", V_COLOR, XF(backing), 0, NULL},
    {"below", V_ENUM, XF(below), 0, belows},
    {NULL, 0, 0, 0, NULL},
};

static const struct keydef keys_dialog[] = {
    {"halign", V_FRACTION, TF(dialog_halign), 0, NULL},
    {"valign", V_FRACTION, TF(dialog_valign), 0, NULL},
    {"width", V_DOUBLE, TF(dialog_width), 0, NULL},
    {"size", V_DOUBLE, TF(dialog_size), 0, NULL},
    {"background", V_COLOR, TF(dialog_bg), 0, NULL},
    {"border", V_COLOR, TF(dialog_border), 0, NULL},
    {"text", V_COLOR, TF(dialog_text), 0, NULL},
    {"accent", V_COLOR, TF(dialog_accent), 0, NULL},
    {"accent-text", V_COLOR, TF(dialog_accent_text), 0, NULL},
    {"entry-image", V_IMAGE, TF(dialog_entry), 0, NULL},
    {"lock-image", V_IMAGE, TF(dialog_lock), 0, NULL},
    {"bullet-image", V_IMAGE, TF(dialog_bullet), 0, NULL},
    {"box-image", V_IMAGE, TF(dialog_box), 0, NULL},
    {"clears-firmware-logo", V_BOOL, TF(fw_dialog_clears), 0, NULL},
    {NULL, 0, 0, 0, NULL},
};

#define MF(f)  offsetof(struct dmo_theme_mode, f)
#define MSZ(f) sizeof(((struct dmo_theme_mode *)0)->f)
static const struct keydef keys_mode[] = {
    {"title", V_TEXT, MF(title), MSZ(title), NULL},
    {"subtitle", V_TEXT, MF(subtitle), MSZ(subtitle), NULL},
    {"show-bar", V_BOOL, MF(show_bar), 0, NULL},
    {"show-stats", V_BOOL, MF(show_stats), 0, NULL},
    {"show-throbber", V_BOOL, MF(show_throbber), 0, NULL},
    {"show-logo", V_BOOL, MF(show_logo), 0, NULL},
    {"bar-color", V_COLOR, MF(bar_color), 0, NULL},
    {"logo", V_IMAGE, MF(logo), 0, NULL},
    {"show-firmware-logo", V_BOOL, MF(show_firmware_logo), 0, NULL},
    {NULL, 0, 0, 0, NULL},
};

static const struct sectiondef sections[] = {
    {"theme", keys_theme, 0},
    {"font", keys_font, 0},
    {"background", keys_background, 0},
    {"logo", keys_logo, 0},
    {"progress-bar", keys_bar, 0},
    {"throbber", keys_throbber, 0},
    {"progress-animation", keys_anim, 0},
    {"title", keys_text, TF(text[DMO_TEXT_TITLE])},
    {"subtitle", keys_text, TF(text[DMO_TEXT_SUBTITLE])},
    {"message", keys_text, TF(text[DMO_TEXT_MESSAGE])},
    {"stats", keys_text, TF(text[DMO_TEXT_STATS])},
    {"detail", keys_text, TF(text[DMO_TEXT_DETAIL])},
    {"dialog", keys_dialog, 0},
    {"hibernate", keys_mode, TF(mode[DMO_SCENE_HIBERNATE])},
    {"resume", keys_mode, TF(mode[DMO_SCENE_RESUME])},
    {"aborted", keys_mode, TF(mode[DMO_SCENE_ABORTED])},
    {"error", keys_mode, TF(mode[DMO_SCENE_ERROR])},
    {"resume-error", keys_mode, TF(mode[DMO_SCENE_RESUME_ERROR])},
};

static int hexval(int c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        c = tolower(c);
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        return -1;
}

static bool parse_color(const char *v, struct dmo_rgba *out)
{
        size_t n;
        unsigned b[4] = {0, 0, 0, 255};

        if (v[0] == '#')
                v++;
        else if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
                v += 2;
        n = strlen(v);
        if (n != 6 && n != 8)
                return false;
        for (size_t i = 0; i < n / 2; i++) {
                int hi = hexval((unsigned char)v[2 * i]), lo = hexval((unsigned char)v[2 * i + 1]);
                if (hi < 0 || lo < 0)
                        return false;
                b[i] = (unsigned)(hi * 16 + lo);
        }
        *out = (struct dmo_rgba){b[0] / 255.0, b[1] / 255.0, b[2] / 255.0, b[3] / 255.0};
        return true;
}

static bool parse_double(const char *v, double *out)
{
        char *end;
        errno = 0;
        double d = strtod(v, &end);
        if (end == v || *end || errno || !isfinite(d) || fabs(d) > 1e6)
                return false;
        *out = d;
        return true;
}

static bool parse_bool(const char *v, bool *out)
{
        static const char *const yes[] = {"true", "yes", "on", "1"};
        static const char *const no[] = {"false", "no", "off", "0"};
        for (size_t i = 0; i < DMO_ARRAY_SIZE(yes); i++) {
                if (!strcasecmp(v, yes[i]))
                        return (*out = true);
                if (!strcasecmp(v, no[i]))
                        return !(*out = false);
        }
        return false;
}

/* ---- loading ---- */

struct loader {
        struct dmo_theme *t;
        const struct dmo_theme_paths *paths;
        const char *file; /* for diagnostics */
        struct dmo_diag *diag;
        int line;
        bool seen_format;
        bool defer_images; /* name images now, decode them in dmo_theme_load_images() */
};

static void warn(struct loader *L, enum dmo_diag_severity sev, const char *key, const char *fmt,
                 ...) __attribute__((format(printf, 4, 5)));
static void warn(struct loader *L, enum dmo_diag_severity sev, const char *key, const char *fmt,
                 ...)
{
        va_list ap;
        va_start(ap, fmt);
        dmo_diag_vadd(L->diag, sev, L->file, L->line, key, fmt, ap);
        va_end(ap);
}

/* A file name inside the theme: plain relative names only, so a theme cannot
 * point the loader at arbitrary files. */
static bool safe_name(const char *v)
{
        return v[0] && v[0] != '/' && !strstr(v, "..") && strlen(v) < 200;
}

static const char *fonts_dir(const struct dmo_theme_paths *p)
{
        return p && p->fonts_dir ? p->fonts_dir : DMO_DATADIR "/fonts";
}

static bool find_font(const struct loader *L, const char *name, char *out, size_t len)
{
        if (L->t->dir[0]) {
                snprintf(out, len, "%s/%s", L->t->dir, name);
                if (access(out, R_OK) == 0)
                        return true;
        }
        snprintf(out, len, "%s/%s", fonts_dir(L->paths), name);
        if (access(out, R_OK) == 0)
                return true;
        out[0] = '\0';
        return false;
}

/* NAME.png → NAME@2x.png, for a painter above DMO_THEME_2X_SCALE. */
static void decode_image_2x(struct loader *L, struct dmo_theme_image *im)
{
        char path[2 * DMO_THEME_PATH + 8], why[128];
        const char *key = im->key, *name = im->file;
        int r;
        const char *dot = strrchr(name, '.');
        size_t stem = dot ? (size_t)(dot - name) : strlen(name);
        snprintf(path, sizeof(path), "%s/%.*s@2x%s", L->t->dir, (int)stem, name, dot ? dot : "");
        if (access(path, F_OK) == 0) {
                r = dmo_png_load_file(path, &im->x2, why, sizeof(why));
                if (r < 0) {
                        warn(L, DMO_DIAG_WARNING, key, _("image %.*s@2x%s cannot be used (%s)"),
                             (int)stem, name, dot ? dot : "", why);
                        im->x2 = NULL;
                }
        }
}

/* The image, and its @2x variant when with_2x says so or when there is no
 * usable plain one (dmo_theme_image_pick then takes the @2x at any scale). */
static void decode_image(struct loader *L, struct dmo_theme_image *im, bool with_2x)
{
        char path[2 * DMO_THEME_PATH + 8], why[128];
        const char *key = im->key, *name = im->file;
        int r;

        if (!L->t->dir[0]) {
                warn(L, DMO_DIAG_WARNING, key, _("image %s: theme has no directory"), name);
                return;
        }
        snprintf(path, sizeof(path), "%s/%s", L->t->dir, name);
        r = dmo_png_load_file(path, &im->x1, why, sizeof(why));
        if (r < 0) {
                warn(L, DMO_DIAG_WARNING, key,
                     _("image %s cannot be used (%s); the theme's colours are used instead"), name,
                     why);
                im->x1 = NULL;
        }
        if (with_2x || !im->x1)
                decode_image_2x(L, im);
}

static void load_image(struct loader *L, const char *key, struct dmo_theme_image *im,
                       const char *name)
{
        snprintf(im->file, sizeof(im->file), "%s", name);
        snprintf(im->key, sizeof(im->key), "%s", key);
        im->line = L->line;
        if (L->defer_images) {
                L->t->images_pending = true;
                return;
        }
        decode_image(L, im, true);
}

static void set_value(struct loader *L, const struct sectiondef *sec, const struct keydef *k,
                      const char *v)
{
        char key[64];
        void *p = (char *)L->t + sec->base + k->off;

        snprintf(key, sizeof(key), "%s.%s", sec->name, k->key);
        switch (k->type) {
        case V_STR:
        case V_TEXT:
                if (strlen(v) >= k->size)
                        warn(L, DMO_DIAG_WARNING, key, _("value too long, cut to %zu bytes"),
                             k->size - 1);
                /* Translated here, once: the painter never calls gettext per frame. */
                snprintf(p, k->size, "%s", k->type == V_TEXT && v[0] ? _(v) : v);
                return;
        case V_INT: {
                double d;
                if (!parse_double(v, &d) || d != floor(d) || d < 0 || d > 1000)
                        break;
                if (k->off == TF(format))
                        L->seen_format = true;
                *(int *)p = (int)d;
                return;
        }
        case V_UINT: {
                double d;
                if (!parse_double(v, &d) || d != floor(d) || d < 0 || d > 10000)
                        break;
                *(unsigned *)p = (unsigned)d;
                return;
        }
        case V_DOUBLE:
                if (!parse_double(v, p) || *(double *)p < 0)
                        break;
                return;
        case V_FRACTION: {
                double d;
                if (!parse_double(v, &d) || d < 0 || d > 1)
                        break;
                *(double *)p = d;
                return;
        }
        case V_BOOL:
                if (!parse_bool(v, p))
                        break;
                return;
        case V_COLOR:
                if (!parse_color(v, p))
                        break;
                return;
        case V_ENUM:
                for (int i = 0; k->names[i]; i++) {
                        if (!strcmp(v, k->names[i])) {
                                *(int *)p = i;
                                return;
                        }
                }
                break;
        case V_IMAGE: {
                struct dmo_theme_image *im = p;
                if (!safe_name(v))
                        break;
                cairo_surface_destroy(im->x1);
                cairo_surface_destroy(im->x2);
                memset(im, 0, sizeof(*im));
                load_image(L, key, im, v);
                return;
        }
        case V_FONT:
                if (!safe_name(v))
                        break;
                if (!find_font(L, v, p, k->size))
                        warn(L, DMO_DIAG_ERROR, key,
                             _("font %s not found in the theme or in %s; using the default font"),
                             v, fonts_dir(L->paths));
                return;
        }
        warn(L, DMO_DIAG_WARNING, key, _("invalid value \"%s\"; keeping the default"), v);
}

static char *trim(char *s)
{
        while (isspace((unsigned char)*s))
                s++;
        char *e = s + strlen(s);
        while (e > s && isspace((unsigned char)e[-1]))
                *--e = '\0';
        return s;
}

static void parse(struct loader *L, char *text)
{
        const struct sectiondef *sec = NULL;
        bool bad_section = false;
        char *save = NULL;

        L->line = 0;
        for (char *raw = text; raw; raw = save) {
                char *nl = strchr(raw, '\n');
                save = nl ? nl + 1 : NULL;
                if (nl)
                        *nl = '\0';
                L->line++;
                char *s = trim(raw);
                if (!*s || *s == '#' || *s == ';')
                        continue;
                if (*s == '[') {
                        char *end = strchr(s, ']');
                        sec = NULL;
                        bad_section = true;
                        if (!end || trim(end + 1)[0]) {
                                warn(L, DMO_DIAG_WARNING, NULL, _("malformed section header"));
                                continue;
                        }
                        *end = '\0';
                        for (size_t i = 0; i < DMO_ARRAY_SIZE(sections); i++)
                                if (!strcmp(s + 1, sections[i].name))
                                        sec = &sections[i];
                        if (!sec)
                                warn(L, DMO_DIAG_WARNING, NULL,
                                     _("unknown section [%.60s]; its keys are ignored"), s + 1);
                        bad_section = !sec;
                        continue;
                }
                char *eq = strchr(s, '=');
                if (!eq) {
                        warn(L, DMO_DIAG_WARNING, NULL, _("line is not \"key = value\"; ignored"));
                        continue;
                }
                *eq = '\0';
                char *k = trim(s), *v = trim(eq + 1);
                /* Allow "quoted values" so leading/trailing spaces can be kept. */
                size_t vl = strlen(v);
                if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"') {
                        v[vl - 1] = '\0';
                        v++;
                }
                if (!sec) {
                        if (!bad_section)
                                warn(L, DMO_DIAG_WARNING, k, _("key outside any section; ignored"));
                        continue;
                }
                const struct keydef *kd = NULL;
                for (const struct keydef *d = sec->keys; d->key; d++)
                        if (!strcmp(d->key, k))
                                kd = d;
                if (!kd) {
                        char key[64];
                        snprintf(key, sizeof(key), "%s.%.40s", sec->name, k);
                        warn(L, DMO_DIAG_WARNING, key, _("unknown key; ignored"));
                        continue;
                }
                set_value(L, sec, kd, v);
        }
        L->line = 0;
}

static void set_defaults(struct dmo_theme *t)
{
        static const struct dmo_rgba white = {1, 1, 1, 1};
        static const struct dmo_rgba grey = {0.75, 0.78, 0.82, 1};

        t->bg_kind = DMO_BG_COLOR;
        t->bg_color = (struct dmo_rgba){0.08, 0.09, 0.11, 1};
        t->bg_color2 = t->bg_color;
        t->bg_fit = DMO_FIT_SCALE;
        t->logo_halign = 0.5;
        t->logo_valign = 0.33;
        t->bar_halign = 0.5;
        t->bar_valign = 0.62;
        t->bar_width = 0.3;
        t->bar_height = 8;
        t->bar_radius = 4;
        t->bar_mirror = true;
        t->bar_fg = white;
        t->bar_bg = (struct dmo_rgba){1, 1, 1, 0.18};
        t->bar_border_color = white;
        t->throbber_kind = DMO_THROBBER_NONE;
        t->throbber_halign = 0.5;
        t->throbber_valign = 0.85;
        t->throbber_size = 24;
        t->throbber_speed = 1;
        t->throbber_color = white;
        t->throbber.digits = 2;
        t->anim_halign = 0.5;
        t->anim_valign = 0.5;
        t->anim.digits = 2;
        static const double valigns[DMO_TEXT_COUNT] = {0.50, 0.55, 0.70, 0.66, 0.74};
        static const double sizes[DMO_TEXT_COUNT] = {28, 16, 15, 14, 14};
        for (int i = 0; i < DMO_TEXT_COUNT; i++) {
                t->text[i] = (struct dmo_theme_text){
                    .show = true,
                    .halign = 0.5,
                    .valign = valigns[i],
                    .width = 0.8,
                    .size = sizes[i],
                    .bold = i == DMO_TEXT_TITLE,
                    .align = DMO_ALIGN_CENTER,
                    .color = i == DMO_TEXT_TITLE ? white : grey,
                };
        }
        t->dialog_halign = 0.5;
        t->dialog_valign = 0.5;
        t->dialog_width = 420;
        t->dialog_size = 16;
        t->dialog_bg = (struct dmo_rgba){0.12, 0.13, 0.16, 0.96};
        t->dialog_border = (struct dmo_rgba){1, 1, 1, 0.25};
        t->dialog_text = white;
        t->dialog_accent = (struct dmo_rgba){0.35, 0.6, 1, 1};
        /* Titles a theme gets when it names none; translated like the theme's own. */
        static const char *const titles[DMO_SCENE_KINDS] = {
            [DMO_SCENE_HIBERNATE] = N_("Hibernating"),
            [DMO_SCENE_RESUME] = N_("Resuming"),
            [DMO_SCENE_ABORTED] = N_("Hibernation cancelled"),
            [DMO_SCENE_ERROR] = N_("Hibernation failed"),
            [DMO_SCENE_RESUME_ERROR] = N_("Could not resume")};
        static const char *const subtitles[DMO_SCENE_KINDS] = {
            [DMO_SCENE_RESUME_ERROR] = N_("Starting normally; see the message below")};
        for (int m = 0; m < DMO_SCENE_KINDS; m++) {
                snprintf(t->mode[m].title, sizeof(t->mode[m].title), "%s", _(titles[m]));
                if (subtitles[m])
                        snprintf(t->mode[m].subtitle, sizeof(t->mode[m].subtitle), "%s",
                                 _(subtitles[m]));
                t->mode[m].show_bar = m <= DMO_SCENE_RESUME;
                t->mode[m].show_stats = m <= DMO_SCENE_RESUME;
                t->mode[m].show_throbber = m <= DMO_SCENE_RESUME;
                t->mode[m].show_logo = true;
                t->mode[m].show_firmware_logo = true;
        }
}

/* Names the images of a numbered sequence; false when the keys do not describe one. */
static bool load_frames(struct loader *L, const char *key, struct dmo_theme_frames *f)
{
        if (!f->pattern[0] || !safe_name(f->pattern) || f->count == 0 ||
            f->count > DMO_THEME_MAX_THROBBER || f->digits > 8 || f->first > 99999999)
                return false;
        for (unsigned i = 0; i < f->count; i++) {
                char name[160];
                snprintf(name, sizeof(name), "%s%0*u.png", f->pattern, (int)f->digits,
                         f->first + i);
                load_image(L, key, &f->image[i], name);
        }
        return true;
}

static bool frames_complete(const struct dmo_theme_frames *f)
{
        for (unsigned i = 0; i < f->count; i++)
                if (!f->image[i].x1)
                        return false;
        return f->count > 0;
}

static void load_throbber(struct loader *L)
{
        struct dmo_theme *t = L->t;
        if (t->anim_enabled && !load_frames(L, "progress-animation.frames", &t->anim)) {
                warn(L, DMO_DIAG_WARNING, "progress-animation.frames",
                     _("progress animation frames need \"frames = PREFIX\" and 1..%d \"count\"; "
                       "not shown"),
                     DMO_THEME_MAX_THROBBER);
                t->anim_enabled = false;
        }
        if (t->throbber_kind != DMO_THROBBER_FRAMES)
                return;
        if (!load_frames(L, "throbber.frames", &t->throbber)) {
                warn(L, DMO_DIAG_WARNING, "throbber.frames",
                     _("throbber frames need \"frames = PREFIX\" and 1..%d \"count\"; using a "
                       "drawn spinner"),
                     DMO_THEME_MAX_THROBBER);
                t->throbber_kind = DMO_THROBBER_SPINNER;
        }
}

static bool read_long(const char *dir, const char *name, long *out)
{
        char path[DMO_THEME_PATH + 32], buf[32];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f || !fgets(buf, sizeof(buf), f))
                return false;
        char *end;
        errno = 0;
        *out = strtol(buf, &end, 10);
        return errno == 0 && end != buf && *out >= 0 && *out <= 65535;
}

/* The firmware's logo (ACPI BGRT) and where the firmware drew it. A logo the
 * firmware rotates (ACPI 6.2 orientation bits) is left out, as Plymouth does
 * when the panel's rotation is unknown; the fallback image is used then.
 * Read in the first step of a deferred load too: it is small, it is on the
 * screen when dormouse takes over from Plymouth, and the backdrop shows it. */
static void load_firmware_logo(struct loader *L)
{
        struct dmo_theme *t = L->t;
        long x, y, status = 0;
        if (!t->fw_logo || t->fw_image || !t->bgrt_dir[0])
                return;
        if (!read_long(t->bgrt_dir, "xoffset", &x) || !read_long(t->bgrt_dir, "yoffset", &y))
                return;
        if (read_long(t->bgrt_dir, "status", &status) && (status & 6))
                return;
        char path[DMO_THEME_PATH + 16];
        snprintf(path, sizeof(path), "%s/image", t->bgrt_dir);
        cairo_surface_t *img = NULL;
        int r = dmo_bmp_load_file(path, &img);
        if (r < 0) {
                warn(L, DMO_DIAG_WARNING, "background.firmware-logo",
                     _("the firmware's logo %s cannot be used (%s)"), path, strerror(-r));
                return;
        }
        cairo_surface_flush(img);
        t->fw_image = img;
        t->fw_pixels = cairo_image_surface_get_data(img);
        t->fw_w = cairo_image_surface_get_width(img);
        t->fw_h = cairo_image_surface_get_height(img);
        t->fw_stride = cairo_image_surface_get_stride(img);
        t->fw_xoff = (int)x;
        t->fw_yoff = (int)y;
}

/* What the decoded images decide: a background or throbber without usable
 * pictures falls back to the theme's colours and the drawn spinner. */
static void finish_images(struct loader *L)
{
        struct dmo_theme *t = L->t;
        if (t->bg_kind == DMO_BG_IMAGE && !t->bg_image.x1 && !t->bg_image.x2) {
                L->line = t->bg_image.line;
                warn(L, DMO_DIAG_WARNING, "background.image",
                     _("background type is image but no usable image; using the colour"));
                t->bg_kind = DMO_BG_GRADIENT;
        }
        if (t->anim_enabled && !frames_complete(&t->anim))
                t->anim_enabled = false;
        if (t->throbber_kind == DMO_THROBBER_FRAMES && !frames_complete(&t->throbber))
                t->throbber_kind = DMO_THROBBER_SPINNER;
        load_firmware_logo(L);
}

static void resolve_fonts(struct loader *L)
{
        struct dmo_theme *t = L->t;
        char path[DMO_THEME_PATH];

        if (!t->font_regular[0]) {
                snprintf(path, sizeof(path), "%s/DejaVuSans.ttf", fonts_dir(L->paths));
                if (access(path, R_OK) == 0)
                        snprintf(t->font_regular, sizeof(t->font_regular), "%s", path);
                else
                        warn(L, DMO_DIAG_ERROR, "font.file",
                             _("no usable font (%s is missing either); text will not be drawn"),
                             path);
        }
        if (!t->font_bold[0])
                snprintf(t->font_bold, sizeof(t->font_bold), "%s", t->font_regular);
        if (!t->font_fallback[0]) {
                snprintf(path, sizeof(path), "%s/NotoSansArabic-Regular.ttf", fonts_dir(L->paths));
                if (access(path, R_OK) == 0)
                        snprintf(t->font_fallback, sizeof(t->font_fallback), "%s", path);
        }
}

static int load_common(char *text, const char *dir, const char *file,
                       const struct dmo_theme_paths *paths, unsigned flags, struct dmo_theme **out,
                       struct dmo_diag *diag)
{
        struct dmo_theme *t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        set_defaults(t);
        if (dir)
                snprintf(t->dir, sizeof(t->dir), "%s", dir);
        snprintf(t->conf, sizeof(t->conf), "%s", file);
        snprintf(t->bgrt_dir, sizeof(t->bgrt_dir), "%s",
                 paths && paths->bgrt_dir ? paths->bgrt_dir : "/sys/firmware/acpi/bgrt");
        struct loader L = {.t = t,
                           .paths = paths,
                           .file = t->conf,
                           .diag = diag,
                           .defer_images = flags & DMO_THEME_DEFER_IMAGES};

        parse(&L, text);
        if (!L.seen_format || t->format != 1) {
                warn(&L, DMO_DIAG_ERROR, "theme.format",
                     _("theme format %d is not supported (this dormouse reads format 1); "
                       "set \"format = 1\" in [theme]"),
                     t->format);
                dmo_theme_free(t);
                return -EPROTO;
        }
        if (!t->name[0]) {
                const char *base = dir ? strrchr(dir, '/') : NULL;
                snprintf(t->name, sizeof(t->name), "%s", base ? base + 1 : dir ? dir : "unnamed");
        }
        load_throbber(&L);
        /* Even in a deferred load: the backdrop, the first frame, shows it. */
        load_firmware_logo(&L);
        if (!L.defer_images)
                finish_images(&L);
        resolve_fonts(&L);
        *out = t;
        return 0;
}

/* First pass (t->images_pending): every named image, with its @2x variant
 * if with_2x. Second pass: the @2x variants the first one left out. */
static void decode_pending(struct loader *L, struct dmo_theme_image *im, bool with_2x)
{
        if (!im->file[0])
                return;
        L->line = im->line;
        if (L->t->images_pending) {
                if (!im->x1 && !im->x2)
                        decode_image(L, im, with_2x);
        } else if (with_2x && im->x1 && !im->x2)
                decode_image_2x(L, im);
}

static void decode_all_pending(struct loader *L, bool with_2x)
{
        struct dmo_theme *t = L->t;
        decode_pending(L, &t->bg_image, with_2x);
        decode_pending(L, &t->logo, with_2x);
        for (int k = 0; k < DMO_SCENE_KINDS; k++)
                decode_pending(L, &t->mode[k].logo, with_2x);
        decode_pending(L, &t->bar_fill_image, with_2x);
        decode_pending(L, &t->bar_track_image, with_2x);
        decode_pending(L, &t->fw_fallback, with_2x);
        decode_pending(L, &t->dialog_entry, with_2x);
        decode_pending(L, &t->dialog_lock, with_2x);
        decode_pending(L, &t->dialog_bullet, with_2x);
        decode_pending(L, &t->dialog_box, with_2x);
        if (t->throbber_kind == DMO_THROBBER_FRAMES)
                for (unsigned i = 0; i < t->throbber.count; i++)
                        decode_pending(L, &t->throbber.image[i], with_2x);
        if (t->anim_enabled)
                for (unsigned i = 0; i < t->anim.count; i++)
                        decode_pending(L, &t->anim.image[i], with_2x);
}

int dmo_theme_load_images_for(struct dmo_theme *t, double max_scale, struct dmo_diag *diag)
{
        /* The @2x variants are 4 times the pixels: at scale 1 decoding them
         * took most of the time between the backdrop and the first
         * complete frame, for pictures no painter would pick. */
        bool with_2x = max_scale <= 0 || max_scale > DMO_THEME_2X_SCALE;
        if (!t->images_pending && (!t->images_2x_pending || !with_2x))
                return 0;
        struct loader L = {.t = t, .file = t->conf, .diag = diag};
        decode_all_pending(&L, with_2x);
        if (t->images_pending)
                finish_images(&L);
        t->images_pending = false;
        t->images_2x_pending = !with_2x;
        return 0;
}

int dmo_theme_load_images(struct dmo_theme *t, struct dmo_diag *diag)
{
        return dmo_theme_load_images_for(t, 0, diag);
}

bool dmo_theme_images_ready(const struct dmo_theme *t, double scale)
{
        return !t->images_pending && (!t->images_2x_pending || scale <= DMO_THEME_2X_SCALE);
}

int dmo_theme_load_from_memory(const char *text, size_t len, const char *base_dir,
                               const struct dmo_theme_paths *paths, struct dmo_theme **out,
                               struct dmo_diag *diag)
{
        if (len > MAX_THEME_CONF)
                return -EFBIG;
        _cleanup_free_ char *copy = malloc(len + 1);
        if (!copy)
                return -ENOMEM;
        memcpy(copy, text, len);
        copy[len] = '\0';
        /* A NUL inside the text ends it, like a C string would. */
        return load_common(copy, base_dir, "theme.conf", paths, 0, out, diag);
}

int dmo_theme_load(const char *name_or_dir, const struct dmo_theme_paths *paths,
                   struct dmo_theme **out, struct dmo_diag *diag)
{
        return dmo_theme_load_ex(name_or_dir, paths, 0, out, diag);
}

int dmo_theme_load_ex(const char *name_or_dir, const struct dmo_theme_paths *paths, unsigned flags,
                      struct dmo_theme **out, struct dmo_diag *diag)
{
        char dir[DMO_THEME_PATH], file[DMO_THEME_PATH + 16];
        struct stat st;

        *out = NULL;
        if (!name_or_dir || !*name_or_dir)
                return -EINVAL;
        if (dmo_plymouth_is_ref(name_or_dir)) {
                _cleanup_free_ char *conf = NULL;
                int r = dmo_plymouth_load(name_or_dir, paths, &conf, dir, sizeof(dir), file,
                                          sizeof(file), diag);
                if (r < 0)
                        return r;
                return load_common(conf, dir, file, paths, flags, out, diag);
        }
        if (strchr(name_or_dir, '/'))
                snprintf(dir, sizeof(dir), "%s", name_or_dir);
        else
                snprintf(dir, sizeof(dir), "%s/%s",
                         paths && paths->themes_dir ? paths->themes_dir : DMO_DATADIR "/themes",
                         name_or_dir);
        size_t dl = strlen(dir);
        while (dl > 1 && dir[dl - 1] == '/')
                dir[--dl] = '\0';
        snprintf(file, sizeof(file), "%s/theme.conf", dir);

        _cleanup_fclose_ FILE *f = fopen(file, "re");
        if (!f) {
                int e = errno;
                dmo_diag_add(diag, DMO_DIAG_ERROR, file, 0, NULL,
                             _("cannot open the theme (%s); check the theme name or directory"),
                             strerror(e));
                return -e;
        }
        if (fstat(fileno(f), &st) < 0 || st.st_size > (off_t)MAX_THEME_CONF) {
                dmo_diag_add(diag, DMO_DIAG_ERROR, file, 0, NULL, _("theme.conf is too large"));
                return -EFBIG;
        }
        _cleanup_free_ char *text = malloc((size_t)st.st_size + 1);
        if (!text)
                return -ENOMEM;
        size_t n = fread(text, 1, (size_t)st.st_size, f);
        text[n] = '\0';
        return load_common(text, dir, file, paths, flags, out, diag);
}

static void image_clear(struct dmo_theme_image *im)
{
        cairo_surface_destroy(im->x1);
        cairo_surface_destroy(im->x2);
}

void dmo_theme_free(struct dmo_theme *t)
{
        if (!t)
                return;
        image_clear(&t->bg_image);
        image_clear(&t->logo);
        for (int k = 0; k < DMO_SCENE_KINDS; k++)
                image_clear(&t->mode[k].logo);
        image_clear(&t->bar_fill_image);
        image_clear(&t->bar_track_image);
        image_clear(&t->fw_fallback);
        image_clear(&t->dialog_entry);
        image_clear(&t->dialog_lock);
        image_clear(&t->dialog_bullet);
        image_clear(&t->dialog_box);
        cairo_surface_destroy(t->fw_image);
        for (int i = 0; i < DMO_THEME_MAX_THROBBER; i++) {
                image_clear(&t->throbber.image[i]);
                image_clear(&t->anim.image[i]);
        }
        free(t);
}

const char *dmo_theme_name(const struct dmo_theme *t)
{
        return t->name;
}

const char *dmo_theme_dir(const struct dmo_theme *t)
{
        return t->dir;
}

unsigned dmo_theme_background_rgb(const struct dmo_theme *t)
{
        const struct dmo_rgba *c = &t->bg_color;
        return (unsigned)lround(c->r * 255) << 16 | (unsigned)lround(c->g * 255) << 8 |
               (unsigned)lround(c->b * 255);
}

cairo_surface_t *dmo_theme_image_pick(const struct dmo_theme_image *im, double scale,
                                      double *image_scale)
{
        if (im->x2 && (scale > DMO_THEME_2X_SCALE || !im->x1)) {
                *image_scale = 2;
                return im->x2;
        }
        *image_scale = 1;
        return im->x1;
}
