#include "splash/theme/plymouth.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/i18n.h"

#define MAX_PLYMOUTH_FILE (256u << 10)
#define PATH_LEN          512
#define MAX_FRAMES        64 /* DMO_THEME_MAX_THROBBER */

/* Plymouth's own defaults (two-step plugin, 22.02). */
static const long PLY_BAR_WIDTH = 400, PLY_BAR_HEIGHT = 5;
static const double PLY_FONT_PT = 12;
/* Pango's 96 dpi: a point size in px. */
static const double PX_PER_PT = 96.0 / 72.0;
/* ply-throbber plays its frames once every 2 s; the renderer draws 60 frames a second. */
static const double THROBBER_CYCLE_FRAMES = 2.0 * 60;
/* Plymouth draws the message label 10 px under the animation. */

/* ---- the .plymouth keyfile ---- */

struct entry {
        const char *group, *key, *value;
        int line;
};

struct keyfile {
        char *text;
        struct entry *e;
        size_t n, cap;
        const char *file;
        struct dmo_diag *diag;
};

static char *trim(char *s)
{
        while (isspace((unsigned char)*s))
                s++;
        char *e = s + strlen(s);
        while (e > s && isspace((unsigned char)e[-1]))
                *--e = '\0';
        return s;
}

static int kf_parse(struct keyfile *kf, const char *text, size_t len)
{
        kf->text = malloc(len + 1);
        if (!kf->text)
                return -ENOMEM;
        memcpy(kf->text, text, len);
        kf->text[len] = '\0';
        const char *group = "";
        int line = 0;
        char *save = NULL;
        for (char *raw = kf->text; raw; raw = save) {
                char *nl = strchr(raw, '\n');
                save = nl ? nl + 1 : NULL;
                if (nl)
                        *nl = '\0';
                line++;
                char *s = trim(raw);
                if (!*s || *s == '#')
                        continue;
                if (*s == '[') {
                        char *end = strchr(s, ']');
                        if (end) {
                                *end = '\0';
                                group = s + 1;
                        }
                        continue;
                }
                char *eq = strchr(s, '=');
                if (!eq)
                        continue;
                *eq = '\0';
                char *k = trim(s);
                if (strchr(k, '[')) /* Name[de]=…: translations of the name */
                        continue;
                if (kf->n == kf->cap) {
                        size_t nc = kf->cap ? kf->cap * 2 : 32;
                        struct entry *ne = realloc(kf->e, nc * sizeof(*ne));
                        if (!ne)
                                return -ENOMEM;
                        kf->e = ne;
                        kf->cap = nc;
                }
                kf->e[kf->n++] = (struct entry){group, k, trim(eq + 1), line};
        }
        return 0;
}

static void kf_free(struct keyfile *kf)
{
        free(kf->text);
        free(kf->e);
}

/* The last value of group.key (Plymouth keeps the last one too), or NULL. */
static const struct entry *kf_find(const struct keyfile *kf, const char *group, const char *key)
{
        const struct entry *found = NULL;
        for (size_t i = 0; i < kf->n; i++)
                if (!strcmp(kf->e[i].group, group) && !strcmp(kf->e[i].key, key))
                        found = &kf->e[i];
        return found;
}

static const char *kf_get(const struct keyfile *kf, const char *group, const char *key)
{
        const struct entry *e = kf_find(kf, group, key);
        return e ? e->value : NULL;
}

static void note(const struct keyfile *kf, enum dmo_diag_severity sev, const struct entry *e,
                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void note(const struct keyfile *kf, enum dmo_diag_severity sev, const struct entry *e,
                 const char *fmt, ...)
{
        char key[64] = "";
        if (e)
                snprintf(key, sizeof(key), "%.24s.%.36s", e->group, e->key);
        va_list ap;
        va_start(ap, fmt);
        dmo_diag_vadd(kf->diag, sev, kf->file, e ? e->line : 0, e ? key : NULL, fmt, ap);
        va_end(ap);
}

/* ply_key_file_get_double: strtod, the default when absent or not a number. */
static double kf_double(const struct keyfile *kf, const char *key, double def)
{
        const char *v = kf_get(kf, "two-step", key);
        if (!v)
                return def;
        char *end;
        double d = strtod(v, &end);
        return end != v && isfinite(d) ? d : def;
}

static double kf_fraction(const struct keyfile *kf, const char *key, double def)
{
        double d = kf_double(kf, key, def);
        return d < 0 ? 0 : d > 1 ? 1 : d;
}

/* ply_key_file_get_long: strtol with base 0 (0x… colours). */
static long kf_long(const struct keyfile *kf, const char *group, const char *key, long def)
{
        const char *v = kf_get(kf, group, key);
        if (!v)
                return def;
        char *end;
        errno = 0;
        long long l = strtoll(v, &end, 0);
        return end != v && errno == 0 && l >= -0x7fffffffLL && l <= 0xffffffffLL ? (long)l : def;
}

/* ply_key_file_get_bool: "true", "yes", "on" or "1". */
static bool kf_bool(const struct keyfile *kf, const char *group, const char *key, bool def)
{
        const char *v = kf_get(kf, group, key);
        if (!v)
                return def;
        return !strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on") ||
               !strcmp(v, "1");
}

/* ---- the generated theme.conf ---- */

struct out {
        char *buf;
        size_t len, cap;
        bool failed;
};

static void emit(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(struct out *o, const char *fmt, ...)
{
        if (o->failed)
                return;
        for (;;) {
                va_list ap;
                va_start(ap, fmt);
                int n = vsnprintf(o->buf ? o->buf + o->len : NULL, o->buf ? o->cap - o->len : 0,
                                  fmt, ap);
                va_end(ap);
                if (n < 0) {
                        o->failed = true;
                        return;
                }
                if (o->buf && o->len + (size_t)n < o->cap) {
                        o->len += (size_t)n;
                        return;
                }
                size_t nc = (o->cap ? o->cap * 2 : 4096) + (size_t)n;
                char *nb = realloc(o->buf, nc);
                if (!nb) {
                        o->failed = true;
                        return;
                }
                o->buf = nb;
                o->cap = nc;
        }
}

/* Plymouth's fill colours: 0xRRGGBB is opaque; a value with a non-zero top
 * byte is 0xRRGGBBAA (spinfinity's bar background 0x01000000 is fully
 * transparent, not black). */
static void emit_color(struct out *o, const char *key, long value, bool may_be_translucent)
{
        unsigned long v = (unsigned long)value & 0xffffffffUL;
        if (!may_be_translucent) /* gradients: Plymouth reads 0xRRGGBB only */
                v &= 0xffffffUL;
        if (v & 0xff000000UL)
                emit(o, "%s = #%08lx\n", key, v);
        else
                emit(o, "%s = #%06lx\n", key, v);
}

/* ---- the theme's files ---- */

static bool is_file(const char *dir, const char *name)
{
        char path[PATH_LEN + 128];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

struct frames {
        unsigned first, count, digits;
        size_t total; /* files with the prefix and a number */
};

/* PREFIX + digits + ".png" in dir, as ply_throbber/ply_progress_animation
 * find them: the contiguous run from the lowest number. */
static bool find_frames(const char *dir, const char *prefix, struct frames *f)
{
        *f = (struct frames){0};
        DIR *d = opendir(dir);
        if (!d)
                return false;
        size_t pl = strlen(prefix);
        unsigned char have[MAX_FRAMES * 4] = {0};
        unsigned low = ~0u, low_digits = 0;
        struct dirent *de;
        /* Two passes over the names: the lowest number, then which follow it. */
        for (int pass = 0; pass < 2; pass++) {
                rewinddir(d);
                while ((de = readdir(d))) {
                        const char *n = de->d_name;
                        if (strncmp(n, prefix, pl))
                                continue;
                        const char *num = n + pl;
                        size_t nd = strspn(num, "0123456789");
                        if (nd == 0 || nd > 8 || strcmp(num + nd, ".png"))
                                continue;
                        unsigned v = (unsigned)strtoul(num, NULL, 10);
                        if (pass == 0) {
                                f->total++;
                                if (v < low || (v == low && nd < low_digits)) {
                                        low = v;
                                        low_digits = (unsigned)nd;
                                }
                        } else if (nd == low_digits && v - low < sizeof(have)) {
                                have[v - low] = 1;
                        }
                }
                if (pass == 0 && f->total == 0)
                        break;
        }
        closedir(d);
        if (f->total == 0)
                return false;
        f->first = low;
        f->digits = low_digits;
        while (f->count < sizeof(have) && have[f->count])
                f->count++;
        return f->count > 0;
}

/* "Cantarell Light 30" → family "Cantarell", style "Light", size 30 (points). */
static void split_font(const char *spec, char *family, size_t flen, char *style, size_t slen,
                       double *pt)
{
        char buf[128];
        snprintf(buf, sizeof(buf), "%s", spec);
        char *s = trim(buf);
        char *sp = strrchr(s, ' ');
        *pt = PLY_FONT_PT;
        if (sp) {
                char *end;
                double d = strtod(sp + 1, &end);
                if (end != sp + 1 && !*end && d > 0 && d < 400) {
                        *pt = d;
                        *sp = '\0';
                }
        }
        s = trim(s);
        style[0] = '\0';
        static const char *const styles[] = {"Light",   "Bold",   "Thin",     "Medium",
                                             "Regular", "Italic", "Semibold", "Black"};
        char *last = strrchr(s, ' ');
        if (last)
                for (size_t i = 0; i < DMO_ARRAY_SIZE(styles); i++)
                        if (!strcasecmp(last + 1, styles[i])) {
                                snprintf(style, slen, "%s", styles[i]);
                                *last = '\0';
                                break;
                        }
        snprintf(family, flen, "%s", trim(s));
}

/* A font file for a family in dormouse's fonts directory: Family-Style,
 * FamilyStyle, Family-Regular, Family (.ttf/.otf), spaces removed. Plymouth
 * asks fontconfig; dormouse has no fontconfig, so only its own fonts count. */
static bool find_family(const char *fonts_dir, const char *family, const char *style, char *out,
                        size_t len)
{
        char fam[96];
        size_t j = 0;
        for (size_t i = 0; family[i] && j + 1 < sizeof(fam); i++)
                if (isalnum((unsigned char)family[i]) || family[i] == '-' || family[i] == '_')
                        fam[j++] = family[i];
        fam[j] = '\0';
        if (!fam[0])
                return false;
        const char *styles[] = {style, "Regular", ""};
        static const char *const exts[] = {".ttf", ".otf"};
        for (size_t s = 0; s < 3; s++) {
                if (s == 0 && !style[0])
                        continue;
                for (int sep = 0; sep < 2; sep++)
                        for (size_t e = 0; e < 2; e++) {
                                snprintf(out, len, "%s%s%s%s", fam,
                                         styles[s][0] && sep == 0 ? "-" : "", styles[s], exts[e]);
                                if (is_file(fonts_dir, out))
                                        return true;
                        }
        }
        out[0] = '\0';
        return false;
}

static const char *fonts_dir(const struct dmo_theme_paths *p)
{
        return p && p->fonts_dir ? p->fonts_dir : DMO_DATADIR "/fonts";
}

static const char *root_of(const struct dmo_theme_paths *p)
{
        return p && p->plymouth_root ? p->plymouth_root : "/";
}

/* root + absolute path, without a doubled slash. */
static void under_root(const char *root, const char *path, char *out, size_t len)
{
        size_t rl = strlen(root);
        while (rl > 0 && root[rl - 1] == '/')
                rl--;
        snprintf(out, len, "%.*s%s%s", (int)rl, root, path[0] == '/' ? "" : "/", path);
}

/* ---- the translation ---- */

/* Keys Plymouth documents for two-step, and what dormouse does with them.
 * NULL reason: read and honoured. */
struct known_key {
        const char *key;
        const char *ignored; /* why it is not honoured (translated when said) */
};

static const struct known_key two_step_keys[] = {
    {"ImageDir", NULL},
    {"Font", NULL},
    {"TitleFont", NULL},
    {"HorizontalAlignment", NULL},
    {"VerticalAlignment", NULL},
    {"ProgressBarHorizontalAlignment", NULL},
    {"ProgressBarVerticalAlignment", NULL},
    {"WatermarkHorizontalAlignment", NULL},
    {"WatermarkVerticalAlignment", NULL},
    {"DialogHorizontalAlignment", NULL},
    {"DialogVerticalAlignment", NULL},
    {"TitleHorizontalAlignment", NULL},
    {"TitleVerticalAlignment", NULL},
    {"BackgroundStartColor", NULL},
    {"BackgroundEndColor", NULL},
    {"ProgressBarBackgroundColor", NULL},
    {"ProgressBarForegroundColor", NULL},
    {"ProgressBarWidth", NULL},
    {"ProgressBarHeight", NULL},
    {"DialogClearsFirmwareBackground", NULL},
    {"MessageBelowAnimation", NULL},
    {"Transition", "transition"},
    {"TransitionDuration", "transition"},
    {"ProgressFunction", "function"},
};

/* Plymouth's modes dormouse's scenes take their settings from. */
static const char *const mode_groups[] = {"boot-up", "shutdown", "updates"};
static const char *const mode_keys[] = {"UseAnimation",
                                        "UseFirmwareBackground",
                                        "UseProgressBar",
                                        "UseEndAnimation",
                                        "Title",
                                        "SubTitle",
                                        "SuppressMessages",
                                        "ProgressBarShowPercentComplete"};

static void check_keys(const struct keyfile *kf)
{
        for (size_t i = 0; i < kf->n; i++) {
                const struct entry *e = &kf->e[i];
                if (!strcmp(e->group, "two-step")) {
                        const struct known_key *k = NULL;
                        for (size_t j = 0; j < DMO_ARRAY_SIZE(two_step_keys); j++)
                                if (!strcmp(two_step_keys[j].key, e->key))
                                        k = &two_step_keys[j];
                        if (!k)
                                note(kf, DMO_DIAG_WARNING, e, _("not a two-step key; ignored"));
                        else if (k->ignored && !strcmp(k->ignored, "transition") &&
                                 strcmp(e->value, "none") && strcmp(e->value, "0") &&
                                 strcmp(e->value, "0.0"))
                                note(kf, DMO_DIAG_NOTE, e,
                                     _("not supported by dormouse: animation frames change "
                                       "without a fade"));
                        else if (k->ignored && !strcmp(k->ignored, "function"))
                                note(kf, DMO_DIAG_NOTE, e,
                                     _("not supported by dormouse: its progress is measured, "
                                       "not estimated"));
                        continue;
                }
                for (size_t g = 0; g < DMO_ARRAY_SIZE(mode_groups); g++) {
                        if (strcmp(e->group, mode_groups[g]))
                                continue;
                        bool known = false;
                        for (size_t j = 0; j < DMO_ARRAY_SIZE(mode_keys); j++)
                                known |= !strcmp(mode_keys[j], e->key);
                        if (!known)
                                note(kf, DMO_DIAG_WARNING, e, _("not a two-step key; ignored"));
                        else if ((!strcmp(e->key, "UseEndAnimation") &&
                                  kf_bool(kf, e->group, e->key, false)) ||
                                 !strcmp(e->key, "Title") || !strcmp(e->key, "SubTitle"))
                                note(kf, DMO_DIAG_NOTE, e,
                                     _("not supported by dormouse: it shows its own titles and no "
                                       "end animation"));
                }
        }
}

struct xlate {
        const struct keyfile *kf;
        const struct dmo_theme_paths *paths;
        char dir[PATH_LEN];
        struct out o;
        bool have_anim;
        bool header; /* header-image.png is the logo */
};

static void emit_font(struct xlate *x, const char *spec, const char *conf_key, double *px)
{
        char family[96], style[32], file[160];
        double pt;
        split_font(spec ? spec : "", family, sizeof(family), style, sizeof(style), &pt);
        *px = pt * PX_PER_PT;
        if (!spec)
                return;
        if (find_family(fonts_dir(x->paths), family, style, file, sizeof(file)))
                emit(&x->o, "%s = %s\n", conf_key, file);
        else
                note(x->kf, DMO_DIAG_NOTE,
                     kf_find(x->kf, "two-step", conf_key[0] == 'b' ? "TitleFont" : "Font"),
                     _("font \"%s\" is not among dormouse's fonts in %s; DejaVu Sans is used at "
                       "the theme's size"),
                     family, fonts_dir(x->paths));
}

static void emit_frames(struct xlate *x, const char *prefix, const struct frames *f)
{
        emit(&x->o, "frames = %s\ncount = %u\nfirst = %u\ndigits = %u\n", prefix, f->count,
             f->first, f->digits);
}

static bool use_frames(struct xlate *x, const char *prefix, struct frames *f)
{
        if (!find_frames(x->dir, prefix, f))
                return false;
        if (f->count > MAX_FRAMES) {
                note(x->kf, DMO_DIAG_NOTE, NULL, _("%s: %u frames, dormouse plays the first %d"),
                     prefix, f->count, MAX_FRAMES);
                f->count = MAX_FRAMES;
        }
        return true;
}

static void translate(struct xlate *x, const char *name)
{
        const struct keyfile *kf = x->kf;
        struct out *o = &x->o;

        emit(o, "[theme]\nformat = 1\nname = %s\ndescription = Plymouth two-step theme\n", name);

        double font_px, title_px;
        emit(o, "[font]\n");
        emit_font(x, kf_get(kf, "two-step", "Font"), "file", &font_px);
        const char *tf = kf_get(kf, "two-step", "TitleFont");
        /* The title's font is dormouse's "bold" font: only the title uses it. */
        emit_font(x, tf ? tf : kf_get(kf, "two-step", "Font"), "bold", &title_px);

        long c1 = kf_long(kf, "two-step", "BackgroundStartColor", 0x807c71);
        long c2 = kf_long(kf, "two-step", "BackgroundEndColor", 0x3a362f);
        bool tile = is_file(x->dir, "background-tile.png");
        emit(o, "[background]\ntype = %s\n",
             tile                                 ? "image"
             : (c1 & 0xffffff) != (c2 & 0xffffff) ? "gradient"
                                                  : "color");
        emit_color(o, "color", c1, false);
        emit_color(o, "color2", c2, false);
        if (tile)
                emit(o, "image = background-tile.png\nfit = tile\n");
        bool fw = false;
        for (size_t g = 0; g < 2; g++) /* boot-up, shutdown */
                fw |= kf_bool(kf, mode_groups[g], "UseFirmwareBackground", false);
        if (fw) {
                emit(o, "firmware-logo = true\n");
                if (is_file(x->dir, "bgrt-fallback.png"))
                        emit(o, "firmware-fallback = bgrt-fallback.png\n");
        }

        /* dormouse has one logo: the watermark, else the header image above the animation. */
        if (is_file(x->dir, "watermark.png")) {
                emit(o, "[logo]\nimage = watermark.png\nhalign = %g\nvalign = %g\n",
                     kf_fraction(kf, "WatermarkHorizontalAlignment", 1.0),
                     kf_fraction(kf, "WatermarkVerticalAlignment", 0.5));
        } else if (is_file(x->dir, "header-image.png")) {
                emit(o, "[logo]\nimage = header-image.png\nhalign = 0.5\nabove-animation = true\n");
                x->header = true;
        }

        double ah = kf_fraction(kf, "HorizontalAlignment", 0.5);
        double av = kf_fraction(kf, "VerticalAlignment", 0.5);
        struct frames f;
        if (use_frames(x, "throbber-", &f)) {
                emit(o, "[throbber]\ntype = frames\nanchor = center\nhalign = %g\nvalign = %g\n",
                     ah, av);
                emit(o, "speed = %.9g\n", f.count / THROBBER_CYCLE_FRAMES);
                emit_frames(x, "throbber-", &f);
        } else {
                emit(o, "[throbber]\ntype = none\n");
        }
        if (use_frames(x, "progress-", &f)) {
                x->have_anim = true;
                emit(o,
                     "[progress-animation]\nshow = true\nanchor = center\nhalign = %g\nvalign = "
                     "%g\n",
                     ah, av);
                emit_frames(x, "progress-", &f);
        }

        static const char *const undrawn[] = {"header-image.png", "corner-image.png"};
        for (size_t i = x->header ? 1 : 0; i < DMO_ARRAY_SIZE(undrawn); i++)
                if (is_file(x->dir, undrawn[i]))
                        note(kf, DMO_DIAG_NOTE, NULL, _("%s is not drawn by dormouse"), undrawn[i]);

        long bw = kf_long(kf, "two-step", "ProgressBarWidth", PLY_BAR_WIDTH);
        long bh = kf_long(kf, "two-step", "ProgressBarHeight", PLY_BAR_HEIGHT);
        emit(o, "[progress-bar]\nhalign = %g\nvalign = %g\n",
             kf_fraction(kf, "ProgressBarHorizontalAlignment", ah),
             kf_fraction(kf, "ProgressBarVerticalAlignment", av));
        /* -1: the screen's width; a length of 1 is the whole width in theme.conf. */
        if (bw < 0 || bw > 100000)
                emit(o, "width = 1\n");
        else
                emit(o, "width = %ld\n", bw < 2 ? 2 : bw);
        emit(o, "height = %ld\nborder = 0\nradius = 0\n", bh < 1 ? 1 : bh > 1000 ? 1000 : bh);
        emit_color(o, "color", kf_long(kf, "two-step", "ProgressBarForegroundColor", 0x000000),
                   true);
        emit_color(o, "background", kf_long(kf, "two-step", "ProgressBarBackgroundColor", 0xffffff),
                   true);

        /* Title and subtitle as one block, as Plymouth stacks them. */
        emit(o,
             "[title]\nhalign = %g\nvalign = %g\nwidth = 0.9\nsize = %g\nbold = true\n"
             "color = #ffffff\n",
             kf_fraction(kf, "TitleHorizontalAlignment", 0.5),
             kf_fraction(kf, "TitleVerticalAlignment", 0.5), title_px);
        emit(o, "[subtitle]\nbelow = title\nwidth = 0.9\nsize = %g\ncolor = #ffffff\n", font_px);
        /* Where Plymouth writes "N% complete": 10 px under the animation. */
        emit(o, "[stats]\nbelow = animation\nwidth = 0.9\nsize = %g\ncolor = #ffffff\n", font_px);
        if (kf_bool(kf, "two-step", "MessageBelowAnimation", false))
                emit(o, "[message]\nbelow = stats\nwidth = 0.9\nsize = %g\ncolor = #ffffff\n",
                     font_px);
        else
                emit(o,
                     "[message]\nhalign = 0\nvalign = 0\nwidth = 0.6\nalign = start\nsize = %g\n"
                     "color = #ffffff\n",
                     font_px);
        emit(o, "[detail]\nvalign = 0.85\nwidth = 0.9\nsize = %g\ncolor = #ffffff\n", font_px);

        emit(o, "[dialog]\nhalign = %g\nvalign = %g\nsize = %g\ntext = #ffffff\n",
             kf_fraction(kf, "DialogHorizontalAlignment", 0.5),
             kf_fraction(kf, "DialogVerticalAlignment", 0.5), font_px);
        if (is_file(x->dir, "entry.png") && is_file(x->dir, "lock.png")) {
                emit(o, "entry-image = entry.png\nlock-image = lock.png\n");
                if (is_file(x->dir, "bullet.png"))
                        emit(o, "bullet-image = bullet.png\n");
                if (is_file(x->dir, "box.png"))
                        emit(o, "box-image = box.png\n");
        }
        if (kf_bool(kf, "two-step", "DialogClearsFirmwareBackground", false))
                emit(o, "clears-firmware-logo = true\n");

        /* Progress is shown as in Plymouth's one progress mode, [updates]; the
         * firmware logo as at boot ([boot-up]) and shutdown ([shutdown]). The
         * bar is always there unless a progress animation shows the progress. */
        const char *u = "updates";
        bool bar = kf_bool(kf, u, "UseProgressBar", false) || !x->have_anim;
        bool anim = kf_find(kf, u, "UseAnimation") ? kf_bool(kf, u, "UseAnimation", true) : !bar;
        static const struct {
                const char *scene, *group;
                bool progress;
        } scenes[] = {
            {"hibernate", "shutdown", true},    {"aborted", "shutdown", false},
            {"error", "shutdown", false},       {"resume", "boot-up", true},
            {"resume-error", "boot-up", false},
        };
        for (size_t i = 0; i < DMO_ARRAY_SIZE(scenes); i++) {
                const char *g = scenes[i].group;
                /* The firmware logo sits where the title would (38.2 % down), and
                 * Plymouth never shows both: a progress scene with the logo has
                 * no title; an ending keeps its title and drops the logo. */
                bool logo = scenes[i].progress && kf_bool(kf, g, "UseFirmwareBackground", false);
                emit(o, "[%s]\nshow-firmware-logo = %s\n", scenes[i].scene,
                     logo ? "true" : "false");
                /* The header image also sits where the title would. */
                if (logo || (scenes[i].progress && x->header))
                        emit(o, "title = \"\"\nsubtitle = \"\"\n");
                else if (x->header)
                        emit(o, "show-logo = false\n");
                if (scenes[i].progress)
                        emit(o, "show-bar = %s\nshow-throbber = %s\n", bar ? "true" : "false",
                             anim ? "true" : "false");
        }
}

static void base_name(const char *file, char *name, size_t len)
{
        const char *b = strrchr(file, '/');
        b = b ? b + 1 : file;
        size_t n = strcspn(b, ".");
        size_t j = 0;
        /* Only plain characters: the name goes into the generated keyfile. */
        for (size_t i = 0; i < n && j + 1 < len; i++)
                if (isalnum((unsigned char)b[i]) || b[i] == '-' || b[i] == '_')
                        name[j++] = b[i];
        name[j] = '\0';
        if (!name[0])
                snprintf(name, len, "plymouth");
}

int dmo_plymouth_translate(const char *text, size_t len, const char *file,
                           const struct dmo_theme_paths *paths, char **conf, char *image_dir,
                           size_t dir_len, struct dmo_diag *diag)
{
        *conf = NULL;
        if (len > MAX_PLYMOUTH_FILE)
                return -EFBIG;
        struct keyfile kf = {.file = file, .diag = diag};
        int r = kf_parse(&kf, text, len);
        if (r < 0)
                goto out;
        const char *module = kf_get(&kf, "Plymouth Theme", "ModuleName");
        char name[64];
        base_name(file, name, sizeof(name));
        if (!module || strcmp(module, "two-step")) {
                dmo_diag_add(diag, DMO_DIAG_ERROR, file, 0, "Plymouth Theme.ModuleName",
                             _("Plymouth theme \"%s\" uses the \"%.40s\" plugin; dormouse draws "
                               "only two-step themes and shows its built-in theme instead"),
                             name, module ? module : "");
                r = -ENOTSUP;
                goto out;
        }
        struct xlate x = {.kf = &kf, .paths = paths};
        const char *idir = kf_get(&kf, "two-step", "ImageDir");
        if (idir && idir[0] == '/') {
                under_root(root_of(paths), idir, x.dir, sizeof(x.dir));
        } else {
                /* No (or a relative) ImageDir: the .plymouth file's own directory. */
                const char *slash = strrchr(file, '/');
                snprintf(x.dir, sizeof(x.dir), "%.*s", slash ? (int)(slash - file) : 1,
                         slash ? file : ".");
                if (idir)
                        note(&kf, DMO_DIAG_WARNING, kf_find(&kf, "two-step", "ImageDir"),
                             _("ImageDir is not an absolute path; the theme's own directory is "
                               "used"));
        }
        check_keys(&kf);
        translate(&x, name);
        if (x.o.failed) {
                free(x.o.buf);
                r = -ENOMEM;
                goto out;
        }
        snprintf(image_dir, dir_len, "%s", x.dir);
        *conf = x.o.buf;
        r = 0;
out:
        kf_free(&kf);
        return r;
}

/* ---- finding the theme ---- */

bool dmo_plymouth_is_ref(const char *s)
{
        size_t n = s ? strlen(s) : 0;
        return n && (!strcmp(s, "plymouth") || !strncmp(s, "plymouth:", 9) ||
                     (n > 9 && !strcmp(s + n - 9, ".plymouth")));
}

static bool plain_name(const char *s)
{
        return s[0] && s[0] != '.' && !strchr(s, '/') && strlen(s) < 100;
}

static bool read_text(const char *path, char **text, size_t *len)
{
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return false;
        char *buf = malloc(MAX_PLYMOUTH_FILE + 1);
        if (!buf)
                return false;
        size_t n = fread(buf, 1, MAX_PLYMOUTH_FILE + 1, f);
        if (n > MAX_PLYMOUTH_FILE || ferror(f)) {
                free(buf);
                return false;
        }
        buf[n] = '\0';
        *text = buf;
        *len = n;
        return true;
}

static bool theme_in(const char *root, const char *conf, char *name, size_t len)
{
        char path[PATH_LEN];
        char *text = NULL;
        size_t tl;
        under_root(root, conf, path, sizeof(path));
        if (!read_text(path, &text, &tl))
                return false;
        struct keyfile kf = {.file = path};
        bool ok = false;
        if (kf_parse(&kf, text, tl) == 0) {
                const char *v = kf_get(&kf, "Daemon", "Theme");
                if (v && plain_name(v)) {
                        snprintf(name, len, "%s", v);
                        ok = true;
                }
        }
        kf_free(&kf);
        free(text);
        return ok;
}

int dmo_plymouth_default_theme(const char *root, char *name, size_t len)
{
        if (!root)
                root = "/";
        if (theme_in(root, "/etc/plymouth/plymouthd.conf", name, len) ||
            theme_in(root, "/usr/share/plymouth/plymouthd.defaults", name, len))
                return 0;
        return -ENOENT;
}

int dmo_plymouth_find(const char *setting, const char *root, char *file, size_t len,
                      struct dmo_diag *diag)
{
        char name[128], rel[PATH_LEN];
        if (!root)
                root = "/";
        if (!dmo_plymouth_is_ref(setting))
                return -EINVAL;
        if (!strcmp(setting, "plymouth")) {
                if (dmo_plymouth_default_theme(root, name, sizeof(name)) < 0) {
                        dmo_diag_add(diag, DMO_DIAG_ERROR, NULL, 0, NULL,
                                     _("no default Plymouth theme is set (%s/etc/plymouth/"
                                       "plymouthd.conf, plymouthd.defaults)"),
                                     strcmp(root, "/") ? root : "");
                        return -ENOENT;
                }
        } else if (!strncmp(setting, "plymouth:", 9)) {
                snprintf(name, sizeof(name), "%s", setting + 9);
        } else {
                snprintf(file, len, "%s", setting);
                return 0;
        }
        if (!plain_name(name)) {
                dmo_diag_add(diag, DMO_DIAG_ERROR, NULL, 0, NULL,
                             _("\"%s\" is not a Plymouth theme name"), name);
                return -EINVAL;
        }
        snprintf(rel, sizeof(rel), "/usr/share/plymouth/themes/%s/%s.plymouth", name, name);
        under_root(root, rel, file, len);
        return 0;
}

int dmo_plymouth_load(const char *setting, const struct dmo_theme_paths *paths, char **conf,
                      char *image_dir, size_t dir_len, char *file, size_t file_len,
                      struct dmo_diag *diag)
{
        *conf = NULL;
        int r = dmo_plymouth_find(setting, root_of(paths), file, file_len, diag);
        if (r < 0)
                return r;
        char *text = NULL;
        size_t len;
        if (!read_text(file, &text, &len)) {
                r = errno ? -errno : -EIO;
                dmo_diag_add(diag, DMO_DIAG_ERROR, file, 0, NULL,
                             _("cannot read the Plymouth theme (%s)"), strerror(-r));
                return r;
        }
        r = dmo_plymouth_translate(text, len, file, paths, conf, image_dir, dir_len, diag);
        free(text);
        return r;
}
