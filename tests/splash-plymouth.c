/* Plymouth themes, with the two-step themes Debian packages (plymouth-themes,
 * in tools/packages): where Plymouth puts the bar, the firmware logo, the
 * animations and the dialog, and that they are drawn there; the bar moves
 * and the logo stays; other plugins are refused by name; "plymouth" follows
 * the system's default. Previews at 1280×800 and 3840×2160 are written to
 * plymouth-previews/ in the build directory, for people to look at. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cairo.h>

#include "splash/paint/backdrop.h"
#include "splash/paint/painter.h"
#include "splash/preview.h"
#include "splash/theme/bmpload.h"
#include "splash/theme/plymouth.h"
#include "splash/theme/theme.h"
#include "splash/theme/theme_check.h"
#include "tests/diag-testutil.h"
#include "tests/testlib.h"

#define THEMES "/usr/share/plymouth/themes"

struct frame {
        int w, h;
        uint32_t *px;
};

static char bgrt_dir[600];

static struct dmo_theme_paths paths(const char *root, const char *bgrt)
{
        static char t[512], f[512];
        dmo_test_srcpath("themes", t, sizeof(t));
        dmo_test_srcpath("fonts", f, sizeof(f));
        return (struct dmo_theme_paths){
            .themes_dir = t, .fonts_dir = f, .plymouth_root = root, .bgrt_dir = bgrt};
}

static struct dmo_theme *load(const char *setting, const char *bgrt)
{
        struct dmo_theme_paths p = paths(NULL, bgrt ? bgrt : "/nonexistent-bgrt");
        struct dmo_theme *t = NULL;
        struct dmo_diag d = {0};
        int r = dmo_theme_load(setting, &p, &t, &d);
        if (r < 0 || dmo_diag_count(&d, DMO_DIAG_WARNING))
                dump(&d);
        dmo_diag_clear(&d);
        return r < 0 ? NULL : t;
}

static bool have_plymouth_themes(void)
{
        if (access(THEMES "/spinner/spinner.plymouth", R_OK) == 0)
                return true;
        printf("# " THEMES " is missing: install plymouth-themes (tools/packages)\n");
        return false;
}

/* Paints one scene on a new painter; f.px is NULL when that fails. */
static struct frame paint(const struct dmo_theme *t, int w, int h, double scale,
                          const struct dmo_scene *sc, struct dmo_painter **keep)
{
        struct frame f = {w, h, calloc((size_t)w * h, 4)};
        struct dmo_painter *p = NULL;
        if (!f.px || dmo_painter_new(t, w, h, scale, 0, &p) < 0 ||
            dmo_painter_paint(p, (uint8_t *)f.px, w * 4, sc, true, NULL, 0, NULL) < 0) {
                free(f.px);
                f.px = NULL;
        }
        if (keep)
                *keep = p;
        else
                dmo_painter_free(p);
        return f;
}

static struct frame paint_at(const struct dmo_theme *t, int w, int h, enum dmo_scene_kind kind,
                             double fraction, uint32_t frame, struct dmo_painter **keep)
{
        struct dmo_scene sc;
        dmo_preview_scene(kind, fraction, frame, &sc);
        return paint(t, w, h, 1, &sc, keep);
}

static uint32_t px(const struct frame *f, int x, int y)
{
        return f->px[(size_t)y * f->w + x] & 0xffffff;
}

static bool same_rect(const struct frame *a, const struct frame *b, struct dmo_rect r)
{
        for (int y = r.y; y < r.y + r.h; y++)
                for (int x = r.x; x < r.x + r.w; x++)
                        if (px(a, x, y) != px(b, x, y))
                                return false;
        return true;
}

/* A firmware logo as /sys/firmware/acpi/bgrt has it: a 24-bit bottom-up BMP,
 * blue with a white band in the middle rows, and where the firmware drew it. */
static const uint32_t FW_BLUE = 0x2060d0, FW_WHITE = 0xffffff;

static void put32(uint8_t *p, uint32_t v)
{
        p[0] = v & 255;
        p[1] = v >> 8 & 255;
        p[2] = v >> 16 & 255;
        p[3] = v >> 24;
}

static size_t make_bmp(uint8_t *buf, size_t cap, int w, int h)
{
        size_t row = ((size_t)w * 3 + 3) & ~(size_t)3, size = 54 + row * h;
        if (size > cap)
                return 0;
        memset(buf, 0, size);
        buf[0] = 'B';
        buf[1] = 'M';
        put32(buf + 2, (uint32_t)size);
        put32(buf + 10, 54);
        put32(buf + 14, 40);
        put32(buf + 18, (uint32_t)w);
        put32(buf + 22, (uint32_t)h);
        buf[26] = 1;
        buf[28] = 24;
        for (int y = 0; y < h; y++) {
                /* Bottom-up: file row y is picture row h-1-y. */
                int pic_y = h - 1 - y;
                uint32_t c = pic_y >= h * 3 / 8 && pic_y < h * 5 / 8 ? FW_WHITE : FW_BLUE;
                for (int x = 0; x < w; x++) {
                        uint8_t *p = buf + 54 + row * y + 3 * x;
                        p[0] = c & 255;
                        p[1] = c >> 8 & 255;
                        p[2] = c >> 16 & 255;
                }
        }
        return size;
}

static void write_text(const char *dir, const char *name, const char *text)
{
        char path[1400];
        if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
                return;
        FILE *f = fopen(path, "w");
        if (f) {
                fputs(text, f);
                fclose(f);
        }
}

static const char *fake_bgrt(int xoff, int yoff)
{
        static uint8_t bmp[200 * 80 * 3 + 1024];
        snprintf(bgrt_dir, sizeof(bgrt_dir), "%s/bgrt", dmo_test_tmpdir());
        mkdir(bgrt_dir, 0755);
        size_t n = make_bmp(bmp, sizeof(bmp), 200, 80);
        char path[1400], num[32];
        snprintf(path, sizeof(path), "%s/image", bgrt_dir);
        FILE *f = fopen(path, "wb");
        if (f) {
                fwrite(bmp, 1, n, f);
                fclose(f);
        }
        snprintf(num, sizeof(num), "%d\n", xoff);
        write_text(bgrt_dir, "xoffset", num);
        snprintf(num, sizeof(num), "%d\n", yoff);
        write_text(bgrt_dir, "yoffset", num);
        write_text(bgrt_dir, "status", "1\n");
        return bgrt_dir;
}

static void spinner_bar_is_where_plymouth_draws_it(void)
{
        REQUIRE(have_plymouth_themes());
        struct dmo_theme *t = load("plymouth:spinner", NULL);
        REQUIRE(t);
        struct dmo_painter *p = NULL;
        struct frame f = paint_at(t, 1280, 800, DMO_SCENE_HIBERNATE, 0.5, 0, &p);
        REQUIRE(f.px);
        struct dmo_rect bar;
        REQUIRE(dmo_painter_box(p, DMO_BOX_BAR, &bar));
        /* two-step: x = 0.5 × (1280 − 400), y = 0.7 × (800 − 5) = 556.5, 400×5. */
        CHECK_INT(bar.x, ==, 440);
        CHECK_INT(bar.w, ==, 400);
        CHECK_INT(bar.h, ==, 5);
        CHECK(bar.y == 556 || bar.y == 557);
        /* Foreground 0xffffff up to half, background 0x606060 after, black around. */
        CHECK_INT(px(&f, bar.x + 10, bar.y + 2), ==, 0xffffff);
        CHECK_INT(px(&f, bar.x + 199, bar.y + 2), ==, 0xffffff);
        CHECK_INT(px(&f, bar.x + 201, bar.y + 2), ==, 0x606060);
        CHECK_INT(px(&f, bar.x + 390, bar.y + 2), ==, 0x606060);
        CHECK_INT(px(&f, 5, 5), ==, 0x000000);
        /* Plymouth's "N% complete" line: 10 px under the bar (MessageBelowAnimation). */
        struct dmo_rect stats;
        REQUIRE(dmo_painter_box(p, DMO_BOX_STATS, &stats));
        CHECK_INT(stats.y, ==, bar.y + bar.h + 10);
        /* The title block at TitleVerticalAlignment .382 (its box is as tall
         * as the fallback font's lines, so it starts a little higher than
         * the glyphs). */
        struct dmo_rect title;
        REQUIRE(dmo_painter_box(p, DMO_BOX_TITLE, &title));
        CHECK_INT(title.y, >, 230);
        CHECK_INT(title.y, <, 320);
        free(f.px);
        dmo_painter_free(p);
        dmo_theme_free(t);
}

/* The bar follows the progress while the firmware's logo stays, pixel for
 * pixel, where Plymouth's bgrt theme puts it. */
static void bgrt_bar_moves_and_firmware_logo_stays(void)
{
        REQUIRE(have_plymouth_themes());
        static const struct {
                int w, h;
        } sizes[] = {{1280, 800}, {3840, 2160}};
        for (size_t s = 0; s < 2; s++) {
                int W = sizes[s].w, H = sizes[s].h;
                /* The firmware drew it elsewhere (not centred): Plymouth then uses
                 * the golden ratio, 38.2 % down. */
                struct dmo_theme *t = load("plymouth:bgrt", fake_bgrt(10, 10));
                REQUIRE(t);
                struct dmo_painter *p = NULL;
                struct dmo_scene sc;
                dmo_preview_scene(DMO_SCENE_RESUME, 0.2, 0, &sc);
                struct frame a = paint(t, W, H, 0, &sc, &p);
                dmo_preview_scene(DMO_SCENE_RESUME, 0.8, 7, &sc);
                struct frame b = paint(t, W, H, 0, &sc, NULL);
                REQUIRE(a.px && b.px);
                struct dmo_rect logo, bar;
                REQUIRE(dmo_painter_box(p, DMO_BOX_FIRMWARE_LOGO, &logo));
                REQUIRE(dmo_painter_box(p, DMO_BOX_BAR_FILL, &bar));
                /* The firmware's own pixels: never scaled, centred, middle at 38.2 %. */
                CHECK_INT(logo.w, ==, 200);
                CHECK_INT(logo.h, ==, 80);
                CHECK_INT(logo.x, ==, (W - 200) / 2);
                CHECK_INT(logo.y, ==, H * 382 / 1000 - 40);
                CHECK_INT(px(&a, logo.x + 5, logo.y + 5), ==, FW_BLUE);
                CHECK_INT(px(&a, logo.x + 100, logo.y + 40), ==, FW_WHITE);
                CHECK_INT(px(&a, logo.x - 2, logo.y + 5), ==, 0);
                CHECK(same_rect(&a, &b, logo));
                /* The bar: a fifth, then four fifths of its width in the foreground colour. */
                int fill_a = 0, fill_b = 0;
                for (int x = bar.x; x < bar.x + bar.w; x++) {
                        fill_a += px(&a, x, bar.y + bar.h / 2) == 0xffffff;
                        fill_b += px(&b, x, bar.y + bar.h / 2) == 0xffffff;
                }
                CHECK_INT(abs(fill_a - bar.w / 5), <=, 1);
                CHECK_INT(abs(fill_b - bar.w * 4 / 5), <=, 1);
                free(a.px);
                free(b.px);
                dmo_painter_free(p);
                dmo_theme_free(t);
        }
}

static void firmware_offsets_are_kept_when_they_centre_the_logo(void)
{
        REQUIRE(have_plymouth_themes());
        /* Centred both ways on a 1280×800 screen: Plymouth keeps the firmware's place. */
        struct dmo_theme *t = load("plymouth:bgrt", fake_bgrt(540, 360));
        REQUIRE(t);
        struct dmo_painter *p = NULL;
        struct frame f = paint_at(t, 1280, 800, DMO_SCENE_RESUME, 0.5, 0, &p);
        REQUIRE(f.px);
        struct dmo_rect logo;
        REQUIRE(dmo_painter_box(p, DMO_BOX_FIRMWARE_LOGO, &logo));
        CHECK_INT(logo.x, ==, 540);
        CHECK_INT(logo.y, ==, 360);
        CHECK_INT(px(&f, 545, 365), ==, FW_BLUE);
        free(f.px);
        dmo_painter_free(p);
        dmo_theme_free(t);
        /* No firmware logo (and no bgrt-fallback.png in spinner's images): nothing there. */
        t = load("plymouth:bgrt", "/nonexistent-bgrt");
        REQUIRE(t);
        f = paint_at(t, 1280, 800, DMO_SCENE_RESUME, 0.5, 0, &p);
        CHECK(!dmo_painter_box(p, DMO_BOX_FIRMWARE_LOGO, &logo));
        free(f.px);
        dmo_painter_free(p);
        dmo_theme_free(t);
}

/* The first frame an output shows (the backdrop, before fonts and images)
 * already has the firmware logo, on the very pixels the painter puts it: the
 * picture Plymouth left does not lose its logo for a moment. */
static void backdrop_shows_the_firmware_logo_where_the_painter_does(void)
{
        REQUIRE(have_plymouth_themes());
        struct dmo_theme_paths p = paths(NULL, fake_bgrt(10, 10));
        struct dmo_theme *t = NULL;
        struct dmo_diag d = {0};
        REQUIRE(dmo_theme_load_ex("plymouth:bgrt", &p, DMO_THEME_DEFER_IMAGES, &t, &d) == 0);
        dmo_diag_clear(&d);
        struct frame back = {1280, 800, calloc(1280 * 800, 4)};
        REQUIRE(back.px);
        dmo_backdrop_fill(t, (uint8_t *)back.px, 1280 * 4, 1280, 800);
        REQUIRE(dmo_theme_load_images(t, &d) == 0);
        struct dmo_painter *pa = NULL;
        struct frame f = paint_at(t, 1280, 800, DMO_SCENE_RESUME, 0.5, 0, &pa);
        REQUIRE(f.px);
        struct dmo_rect logo;
        REQUIRE(dmo_painter_box(pa, DMO_BOX_FIRMWARE_LOGO, &logo));
        CHECK_INT(px(&back, logo.x + 5, logo.y + 5), ==, FW_BLUE);
        CHECK(same_rect(&back, &f, logo));
        CHECK(same_rect(&back, &f, (struct dmo_rect){0, 0, 1280, logo.y}));
        free(back.px);
        free(f.px);
        dmo_painter_free(pa);
        dmo_theme_free(t);
}

/* A password dialog clears the firmware logo (DialogClearsFirmwareBackground)
 * and draws the theme's lock, entry and one bullet image per character. */
static void password_dialog_uses_the_theme_images(void)
{
        REQUIRE(have_plymouth_themes());
        struct dmo_theme *t = load("plymouth:bgrt", fake_bgrt(10, 10));
        REQUIRE(t);
        struct dmo_scene sc;
        dmo_preview_scene(DMO_SCENE_RESUME, 0, 0, &sc);
        sc.dialog.kind = DMO_DIALOG_PASSWORD;
        snprintf(sc.dialog.prompt, sizeof(sc.dialog.prompt), "Passphrase");
        struct dmo_painter *p = NULL;
        struct frame none = paint(t, 1280, 800, 1, &sc, &p);
        sc.dialog.bullets = 6;
        struct frame six = paint(t, 1280, 800, 1, &sc, NULL);
        REQUIRE(none.px && six.px);
        struct dmo_rect logo = {540, 800 * 382 / 1000 - 40, 200, 80}, dialog;
        REQUIRE(dmo_painter_box(p, DMO_BOX_DIALOG, &dialog));
        /* Plymouth: lock + entry (16 + 340 wide) centred, at .382 of the free height. */
        CHECK(dialog.y > 270 && dialog.y < 310);
        /* The logo is gone behind the dialog: black where it was, outside the dialog. */
        CHECK_INT(px(&none, logo.x + 5, logo.y + 5), !=, FW_BLUE);
        /* Bullets appear inside the entry and nowhere else. */
        struct dmo_rect above = {0, 0, 1280, dialog.y},
                        below = {0, dialog.y + dialog.h, 1280, 800 - dialog.y - dialog.h};
        CHECK(!same_rect(&none, &six, dialog));
        CHECK(same_rect(&none, &six, above));
        CHECK(same_rect(&none, &six, below));
        /* The entry image is grey-blue (not the black background) at its middle. */
        CHECK_INT(px(&none, 640, dialog.y + 15), !=, 0);
        free(none.px);
        free(six.px);
        dmo_painter_free(p);
        dmo_theme_free(t);
}

/* Plymouth reads a colour with a non-zero top byte as 0xRRGGBBAA:
 * spinfinity's bar background 0x01000000 is transparent, so the empty bar
 * shows the backdrop (it was a black band). */
static void translucent_bar_background_shows_the_backdrop(void)
{
        REQUIRE(have_plymouth_themes());
        struct dmo_theme *t = load("plymouth:spinfinity", NULL);
        REQUIRE(t);
        struct dmo_painter *p = NULL;
        struct frame f = paint_at(t, 1280, 800, DMO_SCENE_HIBERNATE, 0.0, 0, &p);
        REQUIRE(f.px);
        struct dmo_rect bar;
        REQUIRE(dmo_painter_box(p, DMO_BOX_BAR, &bar));
        REQUIRE(bar.w > 4 && bar.h > 0 && bar.y + bar.h <= f.h);
        const int y = bar.y + bar.h / 2;
        /* The far end of the empty bar against the same row beside it
         * (the backdrop is a vertical gradient: one colour per row). */
        const int inside = bar.x + bar.w - 2;
        const int outside = bar.x + bar.w < f.w ? bar.x + bar.w : bar.x - 1;
        REQUIRE(outside >= 0 && outside < f.w);
        CHECK_INT(f.px[y * f.w + inside] & 0xffffff, ==, f.px[y * f.w + outside] & 0xffffff);
        CHECK((f.px[y * f.w + inside] & 0xffffff) != 0);
        free(f.px);
        dmo_painter_free(p);
        dmo_theme_free(t);
}

/* spinfinity's [updates] plays its throbber: the frame follows the clock,
 * one cycle every 2 s (120 renderer frames), centred at (.5, .55). */
static void throbber_frames_animate_at_plymouths_pace(void)
{
        REQUIRE(have_plymouth_themes());
        struct dmo_theme *t = load("plymouth:spinfinity", NULL);
        REQUIRE(t);
        struct dmo_painter *p = NULL;
        struct frame f0 = paint_at(t, 1280, 800, DMO_SCENE_HIBERNATE, 0.5, 0, &p);
        struct frame f30 = paint_at(t, 1280, 800, DMO_SCENE_HIBERNATE, 0.5, 30, NULL);
        struct frame f120 = paint_at(t, 1280, 800, DMO_SCENE_HIBERNATE, 0.5, 120, NULL);
        REQUIRE(f0.px && f30.px && f120.px);
        struct dmo_rect th;
        REQUIRE(dmo_painter_box(p, DMO_BOX_THROBBER, &th));
        /* 82×71 frames centred at (640, 440). */
        CHECK_INT(th.w, ==, 82);
        CHECK_INT(th.h, ==, 71);
        CHECK_INT(abs(th.x + th.w / 2 - 640), <=, 1);
        CHECK_INT(abs(th.y + th.h / 2 - 440), <=, 1);
        CHECK(!same_rect(&f0, &f30, th));
        CHECK(same_rect(&f0, &f120, th));
        /* Its header image (Debian's logo) sits on the throbber, centred, as in two-step. */
        struct dmo_rect logo;
        REQUIRE(dmo_painter_box(p, DMO_BOX_LOGO, &logo));
        CHECK_INT(abs(logo.y + logo.h - th.y), <=, 1);
        CHECK_INT(abs(logo.x + logo.w / 2 - 640), <=, 1);
        int red = 0; /* Debian's swirl is red on the blue gradient */
        for (int y = logo.y; y < logo.y + logo.h; y++)
                for (int x = logo.x; x < logo.x + logo.w; x++)
                        red += (px(&f0, x, y) >> 16) > 150 && (px(&f0, x, y) & 255) < 120;
        CHECK_INT(red, >, 1000);
        /* The gradient: BackgroundStartColor at the top, BackgroundEndColor at the bottom. */
        CHECK_INT(px(&f0, 640, 0), ==, 0x0073b3);
        CHECK_INT(abs((int)(px(&f0, 640, 770) & 0xff) - 0x7e), <=, 3);
        free(f0.px);
        free(f30.px);
        free(f120.px);
        dmo_painter_free(p);
        dmo_theme_free(t);
}

/* glow's progress-NN frames: the frame is picked by the fraction. */
static void progress_animation_follows_the_fraction(void)
{
        REQUIRE(have_plymouth_themes());
        struct dmo_theme *t = load("plymouth:glow", NULL);
        REQUIRE(t);
        struct dmo_painter *p = NULL;
        struct frame a = paint_at(t, 1280, 800, DMO_SCENE_RESUME, 0.50, 0, &p);
        struct frame b = paint_at(t, 1280, 800, DMO_SCENE_RESUME, 0.51, 0, NULL);
        struct frame c = paint_at(t, 1280, 800, DMO_SCENE_RESUME, 0.95, 0, NULL);
        REQUIRE(a.px && b.px && c.px);
        struct dmo_rect an;
        REQUIRE(dmo_painter_box(p, DMO_BOX_ANIMATION, &an));
        /* 237×135 frames centred at HorizontalAlignment .25, VerticalAlignment .5. */
        CHECK_INT(an.w, ==, 237);
        CHECK_INT(abs(an.x + an.w / 2 - 320), <=, 1);
        CHECK_INT(abs(an.y + an.h / 2 - 400), <=, 1);
        /* 33 frames: 0.50 and 0.51 both show frame 16; 0.95 shows frame 30. The
         * throbber (frame 0 of the clock in all three) is drawn at the same place. */
        CHECK(same_rect(&a, &b, an));
        CHECK(!same_rect(&a, &c, an));
        free(a.px);
        free(b.px);
        free(c.px);
        dmo_painter_free(p);
        dmo_theme_free(t);
}

static void other_plugins_are_refused_naming_the_plugin(void)
{
        REQUIRE(have_plymouth_themes());
        static const struct {
                const char *setting, *plugin;
        } cases[] = {
            {"plymouth:script", "\"script\""},
            {"plymouth:fade-in", "\"fade-throbber\""},
            {THEMES "/solar/solar.plymouth", "\"space-flares\""},
            {"plymouth:text", "\"text\""},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct dmo_theme_paths p = paths(NULL, NULL);
                struct dmo_theme *t = NULL;
                struct dmo_diag d = {0};
                CHECK_INT(dmo_theme_load(cases[i].setting, &p, &t, &d), ==, -ENOTSUP);
                CHECK(t == NULL);
                CHECK(has_diag(&d, DMO_DIAG_ERROR, NULL, cases[i].plugin));
                CHECK(has_diag(&d, DMO_DIAG_ERROR, NULL, "built-in theme"));
                dmo_diag_clear(&d);
        }
}

/* "plymouth" alone: /etc/plymouth/plymouthd.conf, then plymouthd.defaults. */
static void bare_plymouth_follows_the_system_default(void)
{
        REQUIRE(have_plymouth_themes());
        char root[600], dir[1400], name[64];
        snprintf(root, sizeof(root), "%s/root", dmo_test_tmpdir());
        REQUIRE(dmo_test_sh("mkdir -p %s/etc/plymouth %s/usr/share/plymouth && ln -s " THEMES
                            " %s/usr/share/plymouth/themes",
                            root, root, root) == 0);
        CHECK_INT(dmo_plymouth_default_theme(root, name, sizeof(name)), ==, -ENOENT);
        snprintf(dir, sizeof(dir), "%s/usr/share/plymouth", root);
        write_text(dir, "plymouthd.defaults", "[Daemon]\nTheme=spinner\nShowDelay=0\n");
        snprintf(dir, sizeof(dir), "%s/etc/plymouth", root);
        write_text(dir, "plymouthd.conf", "# Administrator customizations\n[Daemon]\n#Theme=x\n");
        REQUIRE(dmo_plymouth_default_theme(root, name, sizeof(name)) == 0);
        CHECK(!strcmp(name, "spinner"));
        write_text(dir, "plymouthd.conf", "[Daemon]\nTheme=spinfinity\n");
        REQUIRE(dmo_plymouth_default_theme(root, name, sizeof(name)) == 0);
        CHECK(!strcmp(name, "spinfinity"));

        struct dmo_theme_paths p = paths(root, "/nonexistent-bgrt");
        struct dmo_theme *t = NULL;
        struct dmo_diag d = {0};
        REQUIRE(dmo_theme_load("plymouth", &p, &t, &d) == 0);
        CHECK(!strcmp(dmo_theme_name(t), "spinfinity"));
        /* The images come from under the root too. */
        CHECK(strstr(dmo_theme_dir(t), root) == dmo_theme_dir(t));
        CHECK_INT(dmo_theme_background_rgb(t), ==, 0x0073b3);
        dmo_theme_free(t);
        dmo_diag_clear(&d);

        write_text(dir, "plymouthd.conf", "[Daemon]\nTheme=../../etc\n");
        CHECK_INT(dmo_plymouth_default_theme(root, name, sizeof(name)), ==, 0);
        CHECK(!strcmp(name, "spinner")); /* the bad name is skipped: the defaults' one */
}

static void theme_check_names_keys_dormouse_does_not_honour(void)
{
        REQUIRE(have_plymouth_themes());
        struct dmo_theme_paths p = paths(NULL, NULL);
        struct dmo_diag d = {0};
        /* It loads with no errors; warnings are fine (glow's message text
         * is a little short of 4.5:1 contrast on its background). */
        int r = dmo_theme_check("plymouth:glow", &p, &d);
        CHECK(r == 0 || r == 1);
        CHECK(has_diag(&d, DMO_DIAG_NOTE, "two-step.Transition", NULL));
        dmo_diag_clear(&d);

        char file[700];
        snprintf(file, sizeof(file), "%s/mine.plymouth", dmo_test_tmpdir());
        write_text(dmo_test_tmpdir(), "mine.plymouth",
                   "[Plymouth Theme]\nName=Mine\nModuleName=two-step\n[two-step]\n"
                   "ImageDir=" THEMES "/spinner\nProgressFunction=wwoods\nSparkles=3\n"
                   "BackgroundStartColor=0x102030\n");
        CHECK_INT(dmo_theme_check(file, &p, &d), ==, 1);
        CHECK(has_diag(&d, DMO_DIAG_NOTE, "two-step.ProgressFunction", NULL));
        CHECK(has_diag(&d, DMO_DIAG_WARNING, "two-step.Sparkles", NULL));
        dump(&d);
        dmo_diag_clear(&d);
        struct dmo_theme *t = load(file, NULL);
        REQUIRE(t);
        CHECK_INT(dmo_theme_background_rgb(t), ==, 0x102030);
        dmo_theme_free(t);
}

static void bmp_loader_takes_bgrt_images_and_refuses_the_rest(void)
{
        static uint8_t bmp[64 * 16 * 3 + 200];
        size_t n = make_bmp(bmp, sizeof(bmp), 64, 16);
        cairo_surface_t *s = NULL;
        REQUIRE(dmo_bmp_load_mem(bmp, n, &s) == 0);
        CHECK_INT(cairo_image_surface_get_width(s), ==, 64);
        CHECK_INT(cairo_image_surface_get_height(s), ==, 16);
        const uint32_t *d = (const uint32_t *)cairo_image_surface_get_data(s);
        int stride = cairo_image_surface_get_stride(s) / 4;
        CHECK_INT(d[0] & 0xffffff, ==, FW_BLUE);               /* top row */
        CHECK_INT(d[stride * 8 + 3] & 0xffffff, ==, FW_WHITE); /* middle band */
        cairo_surface_destroy(s);
        CHECK_INT(dmo_bmp_load_mem(bmp, n - 1, &s), ==, -EINVAL); /* a row short */
        bmp[30] = 1;                                              /* RLE8 */
        CHECK_INT(dmo_bmp_load_mem(bmp, n, &s), ==, -ENOTSUP);
        bmp[30] = 0;
        put32(bmp + 18, 100000); /* wider than any screen */
        CHECK_INT(dmo_bmp_load_mem(bmp, n, &s), ==, -EFBIG);
        CHECK(s == NULL);
}

/* For people: the Debian themes at both sizes and several progress values. */
static void previews_are_written_for_people_to_look_at(void)
{
        REQUIRE(have_plymouth_themes());
        static const char *const themes[] = {"spinner", "bgrt", "spinfinity", "glow"};
        static const char *const sizes[] = {"1280x800", "3840x2160"};
        static const double progress[] = {0, 0.5, 1};
        mkdir("plymouth-previews", 0755);
        const char *bgrt = fake_bgrt(10, 10);
        struct dmo_theme_paths p = paths(NULL, bgrt);
        for (size_t i = 0; i < 4; i++)
                for (size_t s = 0; s < 2; s++)
                        for (size_t k = 0; k < 3; k++) {
                                char setting[64], out[128];
                                int w, h;
                                sscanf(sizes[s], "%dx%d", &w, &h);
                                snprintf(setting, sizeof(setting), "plymouth:%s", themes[i]);
                                snprintf(out, sizeof(out), "plymouth-previews/%s-%s-%03d.png",
                                         themes[i], sizes[s], (int)(progress[k] * 100));
                                struct dmo_preview_params pp = {
                                    .theme = setting,
                                    .paths = &p,
                                    .kind = k == 1 ? DMO_SCENE_RESUME : DMO_SCENE_HIBERNATE,
                                    .progress = progress[k],
                                    .width = w,
                                    .height = h,
                                    .output = out,
                                };
                                struct dmo_diag d = {0};
                                CHECK_INT(dmo_preview_render(&pp, &d), ==, 0);
                                dmo_diag_clear(&d);
                                CHECK(access(out, R_OK) == 0);
                        }
}

DMO_TEST_MAIN(T(spinner_bar_is_where_plymouth_draws_it), T(bgrt_bar_moves_and_firmware_logo_stays),
              T(firmware_offsets_are_kept_when_they_centre_the_logo),
              T(backdrop_shows_the_firmware_logo_where_the_painter_does),
              T(password_dialog_uses_the_theme_images),
              T(throbber_frames_animate_at_plymouths_pace),
              T(translucent_bar_background_shows_the_backdrop),
              T(progress_animation_follows_the_fraction),
              T(other_plugins_are_refused_naming_the_plugin),
              T(bare_plymouth_follows_the_system_default),
              T(theme_check_names_keys_dormouse_does_not_honour),
              T(bmp_loader_takes_bgrt_images_and_refuses_the_rest),
              T(previews_are_written_for_people_to_look_at))
