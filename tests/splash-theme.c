/* Theme loading and linting: shipped themes are clean, unknown keys warn,
 * broken or hostile images become diagnostics and the frame falls back to
 * colours, missing fonts fall back to the bundled one (or to no text). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "splash/paint/painter.h"
#include "splash/theme/pngload.h"
#include "splash/preview.h"
#include "splash/theme/theme.h"
#include "splash/theme/theme_check.h"
#include "tests/diag-testutil.h"
#include "tests/testlib.h"
#include "util/cleanup.h"

static struct dmo_theme_paths paths(void)
{
        static char t[512], f[512];
        dmo_test_srcpath("themes", t, sizeof(t));
        dmo_test_srcpath("fonts", f, sizeof(f));
        return (struct dmo_theme_paths){.themes_dir = t, .fonts_dir = f};
}

static void write_file(const char *path, const void *data, size_t len)
{
        FILE *f = fopen(path, "wb");
        if (!f)
                return;
        fwrite(data, 1, len, f);
        fclose(f);
}

static char *read_all(const char *path, size_t *len)
{
        FILE *f = fopen(path, "rb");
        if (!f)
                return NULL;
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        char *buf = malloc((size_t)n);
        *len = fread(buf, 1, (size_t)n, f);
        fclose(f);
        return buf;
}

static uint32_t crc32_png(const uint8_t *p, size_t n)
{
        uint32_t c = 0xffffffffu;
        for (size_t i = 0; i < n; i++) {
                c ^= p[i];
                for (int k = 0; k < 8; k++)
                        c = (c >> 1) ^ (0xedb88320u & -(c & 1));
        }
        return ~c;
}

static void put32(uint8_t *p, uint32_t v)
{
        p[0] = (uint8_t)(v >> 24);
        p[1] = (uint8_t)(v >> 16);
        p[2] = (uint8_t)(v >> 8);
        p[3] = (uint8_t)v;
}

/* A theme directory in the scratch area with a given conf and a good PNG. */
static const char *make_theme(const char *name, const char *conf)
{
        static char dir[600];
        char path[700];
        snprintf(dir, sizeof(dir), "%s/%s", dmo_test_tmpdir(), name);
        dmo_test_sh("mkdir -p '%s'", dir);
        snprintf(path, sizeof(path), "%s/theme.conf", dir);
        write_file(path, conf, strlen(conf));
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 64, 64);
        cairo_t *cr = cairo_create(s);
        cairo_set_source_rgba(cr, 1, 0, 0, 0.5);
        cairo_paint(cr);
        cairo_destroy(cr);
        snprintf(path, sizeof(path), "%s/good.png", dir);
        cairo_surface_write_to_png(s, path);
        cairo_surface_destroy(s);
        return dir;
}

static void test_shipped_themes_load_without_diagnostics(void)
{
        static const char *const names[] = {"default", "minimal", "nocturne"};
        struct dmo_theme_paths p = paths();
        for (size_t i = 0; i < DMO_ARRAY_SIZE(names); i++) {
                struct dmo_diag d = {0};
                struct dmo_theme *t = NULL;
                CHECK(dmo_theme_load(names[i], &p, &t, &d) == 0);
                dump(&d);
                CHECK_INT(d.n, ==, 0);
                dmo_theme_free(t);
                dmo_diag_clear(&d);
        }
}

static void test_shipped_themes_pass_theme_check(void)
{
        static const char *const names[] = {"default", "minimal", "nocturne"};
        struct dmo_theme_paths p = paths();
        for (size_t i = 0; i < DMO_ARRAY_SIZE(names); i++) {
                struct dmo_diag d = {0};
                CHECK_INT(dmo_theme_check(names[i], &p, &d), ==, 0);
                dump(&d);
                dmo_diag_clear(&d);
        }
}

static void test_unknown_key_and_section_warn_but_load(void)
{
        static const char conf[] = "[theme]\nformat = 1\nflavour = mint\n[sparkles]\nx = 1\n"
                                   "[progress-bar]\nheight = tall\nwidth = 0.5\n";
        struct dmo_theme_paths p = paths();
        struct dmo_diag d = {0};
        struct dmo_theme *t = NULL;
        CHECK(dmo_theme_load_from_memory(conf, sizeof(conf) - 1, NULL, &p, &t, &d) == 0);
        dump(&d);
        CHECK(has_diag(&d, DMO_DIAG_WARNING, "theme.flavour", "unknown key"));
        CHECK(has_diag(&d, DMO_DIAG_WARNING, NULL, "sparkles"));
        CHECK(has_diag(&d, DMO_DIAG_WARNING, "progress-bar.height", "invalid value"));
        CHECK_INT(d.items[0].line, ==, 3);
        CHECK_INT(dmo_diag_count(&d, DMO_DIAG_ERROR), ==, 0);
        dmo_theme_free(t);
        dmo_diag_clear(&d);
}

static void test_wrong_or_missing_format_is_an_error(void)
{
        static const char *const confs[] = {"[theme]\nformat = 2\n", "[theme]\nname = x\n", ""};
        struct dmo_theme_paths p = paths();
        for (size_t i = 0; i < DMO_ARRAY_SIZE(confs); i++) {
                struct dmo_diag d = {0};
                struct dmo_theme *t = NULL;
                CHECK(dmo_theme_load_from_memory(confs[i], strlen(confs[i]), NULL, &p, &t, &d) ==
                      -EPROTO);
                CHECK(t == NULL);
                CHECK(has_diag(&d, DMO_DIAG_ERROR, "theme.format", "format 1"));
                dmo_diag_clear(&d);
        }
        struct dmo_diag d = {0};
        struct dmo_theme *t = NULL;
        CHECK(dmo_theme_load("no-such-theme", &p, &t, &d) == -ENOENT);
        CHECK(has_diag(&d, DMO_DIAG_ERROR, NULL, "cannot open"));
        dmo_diag_clear(&d);
}

static void test_broken_images_give_clear_diagnostics_and_no_crash(void)
{
        const char *dir = make_theme("broken", "[theme]\nformat = 1\n");
        char good[700], path[700];
        size_t len;
        snprintf(good, sizeof(good), "%s/good.png", dir);
        _cleanup_free_ char *png = read_all(good, &len);
        REQUIRE(png && len > 60);
        cairo_surface_t *s = NULL;
        char why[128];

        CHECK(dmo_png_load_mem(png, len, &s, why, sizeof(why)) == 0);
        CHECK(s && cairo_image_surface_get_width(s) == 64);
        /* premultiplied: 50% red → 0x80 alpha, red ≈ 0x80 */
        uint32_t px0 = *(uint32_t *)cairo_image_surface_get_data(s);
        CHECK_INT(px0 >> 24, >=, 0x7f);
        CHECK_INT((px0 >> 16) & 255, <=, 0x80);
        cairo_surface_destroy(s);

        CHECK(dmo_png_load_mem(png, len / 2, &s, why, sizeof(why)) == -EINVAL);
        CHECK_STR_CONTAINS(why, "truncated");
        snprintf(path, sizeof(path), "%s/truncated.png", dir);
        write_file(path, png, len / 2);

        char *bad = malloc(len);
        memcpy(bad, png, len);
        bad[len - 20] ^= 0x55; /* inside IDAT: its CRC no longer matches */
        CHECK(dmo_png_load_mem(bad, len, &s, why, sizeof(why)) == -EINVAL);
        printf("# bad crc: %s\n", why);
        CHECK(why[0] != '\0');
        snprintf(path, sizeof(path), "%s/badcrc.png", dir);
        write_file(path, bad, len);

        /* A valid header claiming 100000×100000 pixels. */
        memcpy(bad, png, len);
        put32((uint8_t *)bad + 16, 100000);
        put32((uint8_t *)bad + 20, 100000);
        put32((uint8_t *)bad + 29, crc32_png((uint8_t *)bad + 12, 17));
        CHECK(dmo_png_load_mem(bad, len, &s, why, sizeof(why)) == -EFBIG);
        printf("# huge: %s\n", why);
        snprintf(path, sizeof(path), "%s/huge.png", dir);
        write_file(path, bad, len);
        /* 8192×8193: each side allowed, but over 64 MiB decoded */
        put32((uint8_t *)bad + 16, 8192);
        put32((uint8_t *)bad + 20, 8193);
        put32((uint8_t *)bad + 29, crc32_png((uint8_t *)bad + 12, 17));
        CHECK(dmo_png_load_mem(bad, len, &s, why, sizeof(why)) == -EFBIG);
        free(bad);
        CHECK(dmo_png_load_mem("\x89PNG", 4, &s, why, sizeof(why)) == -EINVAL);
        CHECK(dmo_png_load_mem("GIF89a......", 12, &s, why, sizeof(why)) == -EINVAL);
        snprintf(path, sizeof(path), "%s/missing.png", dir);
        CHECK(dmo_png_load_file(path, &s, why, sizeof(why)) == -ENOENT);

        /* Through a theme: each one becomes a warning, the theme still loads. */
        static const char conf[] = "[theme]\nformat = 1\n[background]\ntype = image\n"
                                   "image = huge.png\ncolor = #203040\n[logo]\nimage = "
                                   "truncated.png\n[progress-bar]\nfill-image = badcrc.png\n"
                                   "track-image = missing.png\n";
        dir = make_theme("broken2", conf);
        dmo_test_sh("cp '%s/../broken/'*.png '%s/'", dir, dir);
        struct dmo_theme_paths p = paths();
        struct dmo_diag d = {0};
        struct dmo_theme *t = NULL;
        REQUIRE(dmo_theme_load(dir, &p, &t, &d) == 0);
        dump(&d);
        CHECK(has_diag(&d, DMO_DIAG_WARNING, "background.image", "huge.png"));
        CHECK(has_diag(&d, DMO_DIAG_WARNING, "logo.image", "truncated.png"));
        CHECK(has_diag(&d, DMO_DIAG_WARNING, "progress-bar.fill-image", "badcrc.png"));
        CHECK(has_diag(&d, DMO_DIAG_WARNING, "progress-bar.track-image", "missing.png"));
        CHECK(dmo_theme_background_rgb(t) == 0x203040);

        /* The fallback frame: background colour at the corners, a bar drawn. */
        struct dmo_painter *pt = NULL;
        REQUIRE(dmo_painter_new(t, 640, 480, 1, 0, &pt) == 0);
        uint8_t *pix = calloc(640 * 480, 4);
        struct dmo_scene sc;
        dmo_preview_scene(DMO_SCENE_HIBERNATE, 1, 0, &sc);
        CHECK(dmo_painter_paint(pt, pix, 640 * 4, &sc, true, NULL, 0, NULL) == 0);
        CHECK_INT(((uint32_t *)pix)[0] & 0xffffff, ==, 0x203040);
        struct dmo_rect in;
        REQUIRE(dmo_painter_box(pt, DMO_BOX_BAR_FILL, &in));
        uint32_t mid = ((uint32_t *)pix)[(in.y + in.h / 2) * 640 + in.x + in.w / 2] & 0xffffff;
        CHECK_INT(mid, ==, 0xffffff);
        free(pix);
        dmo_painter_free(pt);
        dmo_theme_free(t);
        dmo_diag_clear(&d);

        /* Deferred: theme.conf is read and no image is touched until
         * dmo_theme_load_images(), which gives the same warnings (with the
         * line that names the image) and fallbacks; a painter refuses the
         * theme until then. */
        d = (struct dmo_diag){0};
        REQUIRE(dmo_theme_load_ex(dir, &p, DMO_THEME_DEFER_IMAGES, &t, &d) == 0);
        CHECK_INT(d.n, ==, 0);
        CHECK(dmo_theme_background_rgb(t) == 0x203040);
        CHECK_INT(dmo_painter_new(t, 640, 480, 1, 0, &pt), ==, -EINVAL);
        CHECK_INT(dmo_theme_load_images(t, &d), ==, 0);
        dump(&d);
        CHECK(has_diag(&d, DMO_DIAG_WARNING, "background.image", "huge.png"));
        CHECK(has_diag(&d, DMO_DIAG_WARNING, "logo.image", "truncated.png"));
        CHECK(has_diag(&d, DMO_DIAG_WARNING, "progress-bar.fill-image", "badcrc.png"));
        CHECK(has_diag(&d, DMO_DIAG_WARNING, "progress-bar.track-image", "missing.png"));
        bool logo_line = false;
        for (size_t i = 0; i < d.n; i++)
                logo_line |= !strcmp(d.items[i].key, "logo.image") && d.items[i].line == 8;
        CHECK(logo_line);
        size_t n = d.n;
        CHECK_INT(dmo_theme_load_images(t, &d), ==, 0); /* once is enough */
        CHECK_INT(d.n, ==, n);
        REQUIRE(dmo_painter_new(t, 640, 480, 1, 0, &pt) == 0);
        dmo_painter_free(pt);
        dmo_theme_free(t);
        dmo_diag_clear(&d);
}

/* A deferred load of a good theme decodes to the same pictures. */
static void test_deferred_images_give_the_same_frame(void)
{
        struct dmo_theme_paths p = paths();
        struct dmo_theme *eager = NULL, *late = NULL;
        REQUIRE(dmo_theme_load("nocturne", &p, &eager, NULL) == 0);
        REQUIRE(dmo_theme_load_ex("nocturne", &p, DMO_THEME_DEFER_IMAGES, &late, NULL) == 0);
        REQUIRE(dmo_theme_load_images(late, NULL) == 0);
        uint8_t *a = calloc(800 * 600, 4), *b = calloc(800 * 600, 4);
        REQUIRE(a && b);
        struct dmo_theme *th[2] = {eager, late};
        uint8_t *px[2] = {a, b};
        for (int i = 0; i < 2; i++) {
                struct dmo_painter *pt = NULL;
                REQUIRE(dmo_painter_new(th[i], 800, 600, 1, 0, &pt) == 0);
                struct dmo_scene sc;
                dmo_preview_scene(DMO_SCENE_HIBERNATE, 0.5, 3, &sc);
                CHECK(dmo_painter_paint(pt, px[i], 800 * 4, &sc, true, NULL, 0, NULL) == 0);
                dmo_painter_free(pt);
        }
        CHECK(memcmp(a, b, 800 * 600 * 4) == 0);
        free(a);
        free(b);
        dmo_theme_free(eager);
        dmo_theme_free(late);
}

/* At scale 1 the @2x images (four times the pixels) are not decoded: a
 * painter at scale 1 draws the same frame as with them, a painter at scale 2
 * is refused until a second call adds them, and then draws what an eager
 * load draws. */
static void test_2x_images_wait_for_a_scale_that_uses_them(void)
{
        struct dmo_theme_paths p = paths();
        struct dmo_theme *eager = NULL, *late = NULL;
        REQUIRE(dmo_theme_load("nocturne", &p, &eager, NULL) == 0);
        REQUIRE(dmo_theme_load_ex("nocturne", &p, DMO_THEME_DEFER_IMAGES, &late, NULL) == 0);
        REQUIRE(dmo_theme_load_images_for(late, 1, NULL) == 0);
        CHECK(dmo_theme_images_ready(late, 1));
        CHECK(!dmo_theme_images_ready(late, 2));
        static const struct {
                int w, h;
                double scale;
        } sizes[] = {{800, 600, 1}, {1600, 1200, 2}};
        for (size_t k = 0; k < DMO_ARRAY_SIZE(sizes); k++) {
                int w = sizes[k].w, h = sizes[k].h;
                struct dmo_painter *pt = NULL;
                if (sizes[k].scale > 1) {
                        CHECK_INT(dmo_painter_new(late, w, h, sizes[k].scale, 0, &pt), ==, -EINVAL);
                        REQUIRE(dmo_theme_load_images_for(late, sizes[k].scale, NULL) == 0);
                        CHECK(dmo_theme_images_ready(late, 2));
                }
                uint8_t *a = calloc((size_t)w * h, 4), *b = calloc((size_t)w * h, 4);
                REQUIRE(a && b);
                struct dmo_theme *th[2] = {eager, late};
                uint8_t *px[2] = {a, b};
                for (int i = 0; i < 2; i++) {
                        REQUIRE(dmo_painter_new(th[i], w, h, sizes[k].scale, 0, &pt) == 0);
                        struct dmo_scene sc;
                        dmo_preview_scene(DMO_SCENE_HIBERNATE, 0.5, 3, &sc);
                        CHECK(dmo_painter_paint(pt, px[i], w * 4, &sc, true, NULL, 0, NULL) == 0);
                        dmo_painter_free(pt);
                }
                CHECK(memcmp(a, b, (size_t)w * h * 4) == 0);
                free(a);
                free(b);
        }
        dmo_theme_free(eager);
        dmo_theme_free(late);
}

static void test_missing_font_falls_back_to_the_bundled_font(void)
{
        static const char conf[] = "[theme]\nformat = 1\n[font]\nfile = NoSuchFont.ttf\n";
        struct dmo_theme_paths p = paths();
        struct dmo_diag d = {0};
        struct dmo_theme *t = NULL;
        REQUIRE(dmo_theme_load_from_memory(conf, sizeof(conf) - 1, NULL, &p, &t, &d) == 0);
        dump(&d);
        CHECK(has_diag(&d, DMO_DIAG_ERROR, "font.file", "NoSuchFont.ttf"));
        struct dmo_painter *pt = NULL;
        REQUIRE(dmo_painter_new(t, 640, 480, 1, 0, &pt) == 0);
        uint8_t *pix = calloc(640 * 480, 4);
        struct dmo_scene sc;
        dmo_preview_scene(DMO_SCENE_HIBERNATE, 0.5, 0, &sc);
        CHECK(dmo_painter_paint(pt, pix, 640 * 4, &sc, true, NULL, 0, NULL) == 0);
        struct dmo_rect ink;
        CHECK(dmo_painter_text_extent(pt, DMO_BOX_STATS, &ink)); /* text was drawn */
        free(pix);
        dmo_painter_free(pt);
        dmo_theme_free(t);
        dmo_diag_clear(&d);
}

static void test_no_font_at_all_draws_the_bar_without_text(void)
{
        static const char conf[] = "[theme]\nformat = 1\n";
        struct dmo_theme_paths p = {.themes_dir = paths().themes_dir,
                                    .fonts_dir = "/nonexistent-fonts"};
        struct dmo_diag d = {0};
        struct dmo_theme *t = NULL;
        REQUIRE(dmo_theme_load_from_memory(conf, sizeof(conf) - 1, NULL, &p, &t, &d) == 0);
        dump(&d);
        CHECK(has_diag(&d, DMO_DIAG_ERROR, "font.file", "no usable font"));
        struct dmo_painter *pt = NULL;
        REQUIRE(dmo_painter_new(t, 640, 480, 1, 0, &pt) == 0);
        uint8_t *pix = calloc(640 * 480, 4);
        struct dmo_scene sc;
        dmo_preview_scene(DMO_SCENE_HIBERNATE, 1, 0, &sc);
        CHECK(dmo_painter_paint(pt, pix, 640 * 4, &sc, true, NULL, 0, NULL) == 0);
        struct dmo_rect in, ink;
        CHECK(!dmo_painter_text_extent(pt, DMO_BOX_STATS, &ink));
        REQUIRE(dmo_painter_box(pt, DMO_BOX_BAR_FILL, &in));
        CHECK_INT(((uint32_t *)pix)[(in.y + in.h / 2) * 640 + in.x + 2] & 0xffffff, ==, 0xffffff);
        free(pix);
        dmo_painter_free(pt);
        dmo_theme_free(t);
        dmo_diag_clear(&d);
}

static void test_theme_check_reports_text_that_does_not_fit(void)
{
        static const char conf[] = "[theme]\nformat = 1\n[title]\nwidth = 60\nsize = 40\n"
                                   "[progress-bar]\nwhat = 1\n";
        const char *dir = make_theme("narrow", conf);
        struct dmo_theme_paths p = paths();
        struct dmo_diag d = {0};
        CHECK_INT(dmo_theme_check(dir, &p, &d), ==, 1);
        dump(&d);
        CHECK(has_diag(&d, DMO_DIAG_WARNING, "title", "does not fit"));
        CHECK(has_diag(&d, DMO_DIAG_WARNING, "progress-bar.what", NULL));
        dmo_diag_clear(&d);
        CHECK_INT(dmo_theme_check("/nonexistent/theme", &p, &d), ==, 2);
        dmo_diag_clear(&d);
}

static void test_image_paths_cannot_leave_the_theme(void)
{
        static const char conf[] = "[theme]\nformat = 1\n[logo]\nimage = ../../etc/passwd\n"
                                   "[background]\nimage = /etc/passwd\n";
        struct dmo_theme_paths p = paths();
        struct dmo_diag d = {0};
        struct dmo_theme *t = NULL;
        REQUIRE(dmo_theme_load_from_memory(conf, sizeof(conf) - 1, "/tmp", &p, &t, &d) == 0);
        CHECK(has_diag(&d, DMO_DIAG_WARNING, "logo.image", "invalid value"));
        CHECK(has_diag(&d, DMO_DIAG_WARNING, "background.image", "invalid value"));
        dmo_theme_free(t);
        dmo_diag_clear(&d);
}

/* The loader premultiplies as cairo does, pixel for pixel, on artwork with
 * opaque, clear and partly clear pixels (its shortcuts for the first two
 * must not change a value). */
static void test_decoded_pixels_match_cairos_own_reading(void)
{
        static const char *const files[] = {"themes/default/logo.png", "themes/nocturne/moon.png"};
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                char path[700], why[128];
                dmo_test_srcpath(files[i], path, sizeof(path));
                cairo_surface_t *ours = NULL;
                cairo_surface_t *ref = cairo_image_surface_create_from_png(path);
                REQUIRE(cairo_surface_status(ref) == CAIRO_STATUS_SUCCESS);
                REQUIRE(dmo_png_load_file(path, &ours, why, sizeof(why)) == 0);
                int w = cairo_image_surface_get_width(ref), h = cairo_image_surface_get_height(ref);
                REQUIRE(cairo_image_surface_get_width(ours) == w &&
                        cairo_image_surface_get_height(ours) == h);
                const uint8_t *a = cairo_image_surface_get_data(ours);
                const uint8_t *b = cairo_image_surface_get_data(ref);
                int sa = cairo_image_surface_get_stride(ours),
                    sb = cairo_image_surface_get_stride(ref);
                size_t differ = 0, opaque = 0, clear = 0;
                for (int y = 0; y < h; y++)
                        for (int x = 0; x < w; x++) {
                                uint32_t pa = ((const uint32_t *)(a + (size_t)y * sa))[x];
                                uint32_t pb = ((const uint32_t *)(b + (size_t)y * sb))[x];
                                differ += pa != pb;
                                opaque += pb >> 24 == 0xff;
                                clear += pb >> 24 == 0;
                        }
                printf("# %s: %zu opaque, %zu clear of %d pixels, %zu differ\n", files[i], opaque,
                       clear, w * h, differ);
                CHECK(opaque > 0 && clear > 0 && opaque + clear < (size_t)w * h);
                CHECK_INT(differ, ==, 0);
                cairo_surface_destroy(ours);
                cairo_surface_destroy(ref);
        }
}

DMO_TEST_MAIN(
    T(test_decoded_pixels_match_cairos_own_reading),
    T(test_shipped_themes_load_without_diagnostics), T(test_shipped_themes_pass_theme_check),
    T(test_unknown_key_and_section_warn_but_load), T(test_wrong_or_missing_format_is_an_error),
    T(test_broken_images_give_clear_diagnostics_and_no_crash),
    T(test_deferred_images_give_the_same_frame), T(test_2x_images_wait_for_a_scale_that_uses_them),
    T(test_missing_font_falls_back_to_the_bundled_font),
    T(test_no_font_at_all_draws_the_bar_without_text),
    T(test_theme_check_reports_text_that_does_not_fit), T(test_image_paths_cannot_leave_the_theme))
