/* The painter, measured: bar width against progress, monotonic bar, text
 * present and inside its box, RTL alignment, nothing drawn outside the
 * elements, damage rectangles, and the png output writing frames. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cairo.h>
#include <malloc.h>
#include <libintl.h>
#include <locale.h>

#include "splash/paint/backdrop.h"
#include "splash/output/output.h"
#include "splash/output/output_png.h"
#include "splash/paint/painter.h"
#include "splash/preview.h"
#include "splash/theme/theme-private.h"
#include "splash/theme/theme.h"
#include "tests/testlib.h"
#include "util/cleanup.h"
#include "util/i18n.h"

static const char *const themes[] = {"default", "minimal", "nocturne"};

struct frame {
        int w, h, stride;
        uint8_t *px;
};

static struct dmo_theme_paths paths(void)
{
        static char t[512], f[512];
        dmo_test_srcpath("themes", t, sizeof(t));
        dmo_test_srcpath("fonts", f, sizeof(f));
        return (struct dmo_theme_paths){.themes_dir = t, .fonts_dir = f};
}

static struct dmo_theme *load(const char *name)
{
        struct dmo_theme_paths p = paths();
        struct dmo_theme *t = NULL;
        struct dmo_diag d = {0};
        int r = dmo_theme_load(name, &p, &t, &d);
        for (size_t i = 0; i < d.n; i++) {
                char line[700];
                dmo_diag_format(&d.items[i], line, sizeof(line));
                printf("# %s\n", line);
        }
        dmo_diag_clear(&d);
        return r < 0 ? NULL : t;
}

static struct frame frame_new(int w, int h)
{
        struct frame f = {w, h, w * 4, calloc((size_t)w * h, 4)};
        return f;
}

static uint32_t px(const struct frame *f, int x, int y)
{
        return ((const uint32_t *)(f->px + (size_t)y * f->stride))[x] & 0xffffff;
}

static int lum(uint32_t c)
{
        return (int)(((c >> 16) & 255) * 3 + ((c >> 8) & 255) * 6 + (c & 255)) / 10;
}

/* Filled pixels along the bar's middle row: those close to the fill colour
 * rather than the track, judged against the row's two ends. */
static int measure_fill(const struct frame *f, const struct dmo_rect *in, uint32_t fill_rgb)
{
        int y = in->y + in->h / 2, n = 0;
        for (int x = in->x; x < in->x + in->w; x++) {
                uint32_t c = px(f, x, y);
                int dr = (int)((c >> 16) & 255) - (int)((fill_rgb >> 16) & 255);
                int dg = (int)((c >> 8) & 255) - (int)((fill_rgb >> 8) & 255);
                int db = (int)(c & 255) - (int)(fill_rgb & 255);
                n += abs(dr) + abs(dg) + abs(db) < 60;
        }
        return n;
}

static const uint32_t fill_colour[] = {0x6cb4ff, 0xe6e6e6, 0xf5d88a};

static void test_bar_filled_width_matches_progress(void)
{
        static const struct {
                int w, h;
                double scale;
        } sizes[] = {{1280, 800, 1}, {1920, 1080, 0}, {3840, 2160, 0},
                     {800, 600, 1},  {2560, 1600, 2}, {1920, 1080, 1.5}};
        static const double fr[] = {0, 0.001, 0.1, 0.25, 0.42, 0.5, 0.77, 0.999, 1};
        for (size_t ti = 0; ti < DMO_ARRAY_SIZE(themes); ti++) {
                struct dmo_theme *t = load(themes[ti]);
                REQUIRE(t);
                for (size_t si = 0; si < DMO_ARRAY_SIZE(sizes); si++) {
                        struct frame f = frame_new(sizes[si].w, sizes[si].h);
                        struct dmo_painter *p = NULL;
                        REQUIRE(dmo_painter_new(t, f.w, f.h, sizes[si].scale, 0, &p) == 0);
                        struct dmo_rect in;
                        REQUIRE(dmo_painter_box(p, DMO_BOX_BAR_FILL, &in));
                        CHECK(in.x >= 0 && in.y >= 0 && in.x + in.w <= f.w && in.y + in.h <= f.h);
                        for (size_t k = 0; k < DMO_ARRAY_SIZE(fr); k++) {
                                struct dmo_scene sc;
                                dmo_preview_scene(DMO_SCENE_HIBERNATE, fr[k], 0, &sc);
                                REQUIRE(dmo_painter_paint(p, f.px, f.stride, &sc, true, NULL, 0,
                                                          NULL) == 0);
                                int want = (int)lround(fr[k] * in.w);
                                int got = measure_fill(&f, &in, fill_colour[ti]);
                                if (abs(got - want) > 1)
                                        printf("# %s %dx%d@%.1f fraction %.3f: %d px, want %d\n",
                                               themes[ti], f.w, f.h, sizes[si].scale, fr[k], got,
                                               want);
                                CHECK_INT(abs(got - want), <=, 1);
                        }
                        dmo_painter_free(p);
                        free(f.px);
                }
                dmo_theme_free(t);
        }
}

static void test_bar_never_shows_fewer_pixels_for_more_progress(void)
{
        struct dmo_theme *t = load("default");
        REQUIRE(t);
        struct frame f = frame_new(1280, 800);
        struct dmo_painter *p = NULL;
        REQUIRE(dmo_painter_new(t, f.w, f.h, 1, 0, &p) == 0);
        struct dmo_rect in;
        REQUIRE(dmo_painter_box(p, DMO_BOX_BAR_FILL, &in));
        int last = -1;
        for (int i = 0; i <= 400; i++) {
                struct dmo_scene sc;
                dmo_preview_scene(DMO_SCENE_HIBERNATE, i / 400.0, (uint32_t)i, &sc);
                REQUIRE(dmo_painter_paint(p, f.px, f.stride, &sc, false, NULL, 0, NULL) == 0);
                int got = measure_fill(&f, &in, fill_colour[0]);
                CHECK_INT(got, >=, last);
                last = got;
        }
        CHECK_INT(last, ==, in.w);
        dmo_painter_free(p);
        free(f.px);
        dmo_theme_free(t);
}

static bool inside(const struct dmo_rect *r, int x, int y)
{
        return x >= r->x && x < r->x + r->w && y >= r->y && y < r->y + r->h;
}

/* The longest strings at progress 1 change pixels only inside the element
 * boxes, and every box and every ink extent lies inside the screen. */
static void test_long_strings_stay_inside_their_boxes_and_the_screen(void)
{
        char longest[256];
        memset(longest, 'W', sizeof(longest) - 1);
        longest[sizeof(longest) - 1] = '\0';
        static const int sizes[][2] = {{800, 600}, {1280, 800}, {1920, 1080}, {3840, 2160}};
        for (size_t ti = 0; ti < DMO_ARRAY_SIZE(themes); ti++) {
                struct dmo_theme *t = load(themes[ti]);
                REQUIRE(t);
                for (size_t si = 0; si < DMO_ARRAY_SIZE(sizes); si++) {
                        struct frame a = frame_new(sizes[si][0], sizes[si][1]);
                        struct frame b = frame_new(sizes[si][0], sizes[si][1]);
                        struct dmo_painter *p = NULL;
                        REQUIRE(dmo_painter_new(t, a.w, a.h, 0, 0, &p) == 0);
                        struct dmo_scene sc;
                        dmo_preview_scene(DMO_SCENE_HIBERNATE, 0, 0, &sc);
                        sc.progress.message[0] = '\0';
                        REQUIRE(dmo_painter_paint(p, a.px, a.stride, &sc, true, NULL, 0, NULL) ==
                                0);
                        dmo_preview_scene(DMO_SCENE_HIBERNATE, 1, 0, &sc);
                        memcpy(sc.progress.message, longest, sizeof(longest));
                        memcpy(sc.detail, longest, sizeof(longest));
                        sc.progress.mb_per_s = 123456;
                        sc.progress.eta_s = 99999;
                        REQUIRE(dmo_painter_paint(p, b.px, b.stride, &sc, true, NULL, 0, NULL) ==
                                0);
                        struct dmo_rect boxes[DMO_BOX_COUNT];
                        bool shown[DMO_BOX_COUNT];
                        for (int k = 0; k < DMO_BOX_COUNT; k++) {
                                shown[k] = dmo_painter_box(p, (enum dmo_painter_box)k, &boxes[k]);
                                if (!shown[k])
                                        continue;
                                CHECK(boxes[k].x >= 0 && boxes[k].y >= 0);
                                CHECK_INT(boxes[k].x + boxes[k].w, <=, a.w);
                                CHECK_INT(boxes[k].y + boxes[k].h, <=, a.h);
                        }
                        long outside = 0;
                        for (int y = 0; y < a.h; y++)
                                for (int x = 0; x < a.w; x++) {
                                        if (px(&a, x, y) == px(&b, x, y))
                                                continue;
                                        bool in = false;
                                        for (int k = 0; k < DMO_BOX_COUNT && !in; k++) {
                                                /* +1: antialiased edges of the bar */
                                                struct dmo_rect r = boxes[k];
                                                r.x--, r.y--, r.w += 2, r.h += 2;
                                                in = shown[k] && k != DMO_BOX_DIALOG &&
                                                     inside(&r, x, y);
                                        }
                                        outside += !in;
                                }
                        if (outside)
                                printf("# %s %dx%d: %ld pixels changed outside the boxes\n",
                                       themes[ti], a.w, a.h, outside);
                        CHECK_INT(outside, ==, 0);
                        dmo_painter_free(p);
                        free(a.px);
                        free(b.px);
                }
                dmo_theme_free(t);
        }
}

static long contrast_pixels(const struct frame *f, const struct dmo_rect *r)
{
        int bg = lum(px(f, r->x, r->y));
        long n = 0;
        for (int y = r->y; y < r->y + r->h; y++)
                for (int x = r->x; x < r->x + r->w; x++)
                        n += abs(lum(px(f, x, y)) - bg) > 60;
        return n;
}

static void test_title_is_drawn_in_its_box_for_every_mode(void)
{
        static const char *const with_title[] = {"default", "nocturne"};
        for (size_t ti = 0; ti < DMO_ARRAY_SIZE(with_title); ti++) {
                struct dmo_theme *t = load(with_title[ti]);
                REQUIRE(t);
                struct frame f = frame_new(1920, 1080);
                struct dmo_painter *p = NULL;
                REQUIRE(dmo_painter_new(t, f.w, f.h, 0, 0, &p) == 0);
                struct dmo_rect box;
                REQUIRE(dmo_painter_box(p, DMO_BOX_TITLE, &box));
                for (int k = DMO_SCENE_HIBERNATE; k <= DMO_SCENE_ERROR; k++) {
                        struct dmo_scene sc;
                        dmo_preview_scene((enum dmo_scene_kind)k, 0.5, 0, &sc);
                        REQUIRE(dmo_painter_paint(p, f.px, f.stride, &sc, false, NULL, 0, NULL) ==
                                0);
                        CHECK_INT(contrast_pixels(&f, &box), >, 200);
                }
                dmo_painter_free(p);
                free(f.px);
                dmo_theme_free(t);
        }
}

/* The backdrop an output shows first is the background the painter's first
 * frame draws: along the left edge (nothing else there) every row matches
 * within rounding, so the complete frame does not flash a different colour. */
static void test_backdrop_matches_the_painted_background(void)
{
        static const char *const plain_bg[] = {"default", "minimal"};
        for (size_t ti = 0; ti < DMO_ARRAY_SIZE(plain_bg); ti++) {
                struct dmo_theme *t = load(plain_bg[ti]);
                REQUIRE(t);
                struct frame f = frame_new(1280, 800), b = frame_new(1280, 800);
                struct dmo_painter *p = NULL;
                REQUIRE(dmo_painter_new(t, f.w, f.h, 1, 0, &p) == 0);
                struct dmo_scene sc;
                dmo_preview_scene(DMO_SCENE_HIBERNATE, 0.3, 0, &sc);
                REQUIRE(dmo_painter_paint(p, f.px, f.stride, &sc, true, NULL, 0, NULL) == 0);
                dmo_backdrop_fill(t, b.px, (size_t)b.stride, b.w, b.h);
                int worst = 0, rows_off = 0;
                for (int y = 0; y < f.h; y++) {
                        uint32_t want = px(&f, 2, y), got = px(&b, 2, y);
                        CHECK(got == px(&b, b.w - 1, y)); /* a row is one colour */
                        CHECK(got == dmo_backdrop_row(t, y, b.h));
                        for (int sh = 0; sh <= 16; sh += 8) {
                                int d = abs((int)((want >> sh) & 255) - (int)((got >> sh) & 255));
                                worst = d > worst ? d : worst;
                        }
                        rows_off += want != got;
                }
                printf("# %s: backdrop vs painter, worst channel difference %d, %d rows differ\n",
                       plain_bg[ti], worst, rows_off);
                CHECK_INT(worst, <=, 1);
                dmo_painter_free(p);
                free(f.px);
                free(b.px);
                dmo_theme_free(t);
        }
        /* A colour theme's rows are all that colour. */
        struct dmo_theme *t = load("minimal");
        REQUIRE(t);
        CHECK_INT(dmo_backdrop_row(t, 0, 100), ==, dmo_theme_background_rgb(t));
        CHECK_INT(dmo_backdrop_row(t, 99, 100), ==, dmo_theme_background_rgb(t));
        dmo_theme_free(t);
}

static size_t heap_in_use(void)
{
        struct mallinfo2 mi = mallinfo2();
        return mi.uordblks + mi.hblkhd;
}

/* A colour or gradient background is drawn from the theme's rows where a
 * frame needs it: the painter keeps no screen-sized copy of it (that copy
 * is locked memory saved in every image), and a damaged rectangle gets its
 * background back even over a buffer holding something else. */
static void test_gradient_background_needs_no_screen_copy(void)
{
        static const char *const row_bg[] = {"default", "minimal"};
        for (size_t ti = 0; ti < DMO_ARRAY_SIZE(row_bg); ti++) {
                struct dmo_theme *t = load(row_bg[ti]);
                REQUIRE(t);
                const int w = 1920, h = 1080;
                size_t before = heap_in_use();
                struct dmo_painter *p = NULL;
                REQUIRE(dmo_painter_new(t, w, h, 1, 0, &p) == 0);
                size_t grown = heap_in_use() - before;
                printf("# %s: the painter holds %zu KiB at %dx%d\n", row_bg[ti], grown / 1024, w,
                       h);
                CHECK_INT((long)grown, <, (long)w * h * 4);

                struct frame full = frame_new(w, h), was = frame_new(w, h), inc = frame_new(w, h);
                struct dmo_scene sc;
                dmo_preview_scene(DMO_SCENE_HIBERNATE, 0.3, 0, &sc);
                REQUIRE(dmo_painter_paint(p, was.px, was.stride, &sc, true, NULL, 0, NULL) == 0);
                /* The next frame goes into a buffer full of something else. */
                memset(inc.px, 0x5a, (size_t)inc.h * inc.stride);
                sc.bar_fraction = 0.6;
                snprintf(sc.progress.message, sizeof(sc.progress.message), "%s", "Another step");
                struct dmo_rect d[8];
                unsigned n = 0;
                REQUIRE(dmo_painter_paint(p, inc.px, inc.stride, &sc, false, d, 8, &n) == 0);
                CHECK_INT(n, >=, 1);
                REQUIRE(dmo_painter_paint(p, full.px, full.stride, &sc, true, NULL, 0, NULL) == 0);
                long differ = 0;
                for (unsigned i = 0; i < n; i++) {
                        CHECK_INT((long)d[i].w * d[i].h, <, (long)w * h / 4);
                        for (int y = d[i].y; y < d[i].y + d[i].h; y++)
                                for (int x = d[i].x; x < d[i].x + d[i].w; x++)
                                        differ += (px(&inc, x, y) & 0xffffff) !=
                                                  (px(&full, x, y) & 0xffffff);
                }
                CHECK_INT(differ, ==, 0);
                free(full.px);
                free(was.px);
                free(inc.px);
                dmo_painter_free(p);
                dmo_theme_free(t);
        }
}

static void test_minimal_theme_draws_no_title(void)
{
        struct dmo_theme *t = load("minimal");
        REQUIRE(t);
        struct dmo_painter *p = NULL;
        REQUIRE(dmo_painter_new(t, 1280, 800, 1, 0, &p) == 0);
        struct dmo_rect box;
        CHECK(!dmo_painter_box(p, DMO_BOX_TITLE, &box));
        dmo_painter_free(p);
        dmo_theme_free(t);
}

static void test_rtl_message_is_right_aligned_and_ltr_left_aligned(void)
{
        static const char conf[] = "[theme]\nformat = 1\n[message]\nalign = start\nwidth = 0.6\n"
                                   "halign = 0.5\n";
        struct dmo_theme_paths pp = paths();
        struct dmo_theme *t = NULL;
        REQUIRE(dmo_theme_load_from_memory(conf, sizeof(conf) - 1, NULL, &pp, &t, NULL) == 0);
        struct frame f = frame_new(1280, 800);
        struct dmo_painter *p = NULL;
        REQUIRE(dmo_painter_new(t, f.w, f.h, 1, 0, &p) == 0);
        struct dmo_rect box, ink;
        REQUIRE(dmo_painter_box(p, DMO_BOX_MESSAGE, &box));
        struct dmo_scene sc;
        dmo_preview_scene(DMO_SCENE_HIBERNATE, 0.3, 0, &sc);
        /* "Saving memory to disk, 42% done" in Arabic, with digits inside. */
        snprintf(
            sc.progress.message, sizeof(sc.progress.message), "%s",
            "\xd8\xad\xd9\x81\xd8\xb8 \xd8\xa7\xd9\x84\xd8\xb0\xd8\xa7\xd9\x83\xd8\xb1\xd8\xa9 "
            "\xd8\xb9\xd9\x84\xd9\x89 \xd8\xa7\xd9\x84\xd9\x82\xd8\xb1\xd8\xb5 42%");
        REQUIRE(dmo_painter_paint(p, f.px, f.stride, &sc, true, NULL, 0, NULL) == 0);
        REQUIRE(dmo_painter_text_extent(p, DMO_BOX_MESSAGE, &ink));
        printf("# rtl: box %d..%d ink %d..%d\n", box.x, box.x + box.w, ink.x, ink.x + ink.w);
        CHECK_INT(abs(box.x + box.w - (ink.x + ink.w)), <=, 4);
        CHECK_INT(ink.x - box.x, >, box.w / 3);
        CHECK_INT(contrast_pixels(&f, &ink), >, 100);

        snprintf(sc.progress.message, sizeof(sc.progress.message), "Writing the image");
        REQUIRE(dmo_painter_paint(p, f.px, f.stride, &sc, false, NULL, 0, NULL) == 0);
        REQUIRE(dmo_painter_text_extent(p, DMO_BOX_MESSAGE, &ink));
        CHECK_INT(abs(ink.x - box.x), <=, 4);
        dmo_painter_free(p);
        free(f.px);
        dmo_theme_free(t);
}

static void test_damage_covers_only_what_changed(void)
{
        struct dmo_theme *t = load("default");
        REQUIRE(t);
        struct frame f = frame_new(1920, 1080);
        struct dmo_painter *p = NULL;
        REQUIRE(dmo_painter_new(t, f.w, f.h, 1, 0, &p) == 0);
        struct dmo_rect d[8], bar;
        unsigned n = 99;
        struct dmo_scene sc;
        dmo_preview_scene(DMO_SCENE_HIBERNATE, 0.5, 0, &sc);
        REQUIRE(dmo_painter_paint(p, f.px, f.stride, &sc, false, d, 8, &n) == 0);
        CHECK_INT(n, ==, 1);
        CHECK(d[0].x == 0 && d[0].y == 0 && d[0].w == f.w && d[0].h == f.h);
        /* Same scene: nothing to do. */
        REQUIRE(dmo_painter_paint(p, f.px, f.stride, &sc, false, d, 8, &n) == 0);
        CHECK_INT(n, ==, 0);
        /* Only the bar moved by a few pixels. */
        sc.bar_fraction += 0.01;
        REQUIRE(dmo_painter_paint(p, f.px, f.stride, &sc, false, d, 8, &n) == 0);
        REQUIRE(dmo_painter_box(p, DMO_BOX_BAR, &bar));
        CHECK_INT(n, >=, 1);
        bool bar_damaged = false;
        for (unsigned i = 0; i < n; i++) {
                bar_damaged |= d[i].x <= bar.x && d[i].x + d[i].w >= bar.x + bar.w;
                CHECK_INT((long)d[i].w * d[i].h, <, (long)f.w * f.h / 4);
        }
        CHECK(bar_damaged);
        /* Incremental and full repaints give the same pixels. */
        struct frame g = frame_new(f.w, f.h);
        REQUIRE(dmo_painter_paint(p, g.px, g.stride, &sc, true, NULL, 0, NULL) == 0);
        CHECK(memcmp(f.px, g.px, (size_t)f.h * f.stride) == 0);
        /* A scene kind change repaints everything. */
        sc.kind = DMO_SCENE_ABORTED;
        REQUIRE(dmo_painter_paint(p, f.px, f.stride, &sc, false, d, 8, &n) == 0);
        CHECK(n == 1 && d[0].w == f.w && d[0].h == f.h);
        free(g.px);
        dmo_painter_free(p);
        free(f.px);
        dmo_theme_free(t);
}

static void test_png_output_writes_a_frame_per_change(void)
{
        struct dmo_theme *t = load("default");
        REQUIRE(t);
        char arg[600];
        snprintf(arg, sizeof(arg), "%s/frames:640x400@1", dmo_test_tmpdir());
        struct dmo_output_config cfg = {.theme = t, .arg = arg, .tty_fd = -1};
        struct dmo_output *o = NULL;
        REQUIRE(dmo_output_png.open(&cfg, &o) == 0);
        struct dmo_scene sc;
        dmo_preview_scene(DMO_SCENE_RESUME, 0.2, 0, &sc);
        CHECK(dmo_output_png.render(o, &sc, false) == 0);
        CHECK(dmo_output_png.render(o, &sc, false) == 0); /* unchanged: no file */
        sc.bar_fraction = 0.6;
        CHECK(dmo_output_png.render(o, &sc, false) == 0);
        CHECK_INT(dmo_output_png_frames(o), ==, 2);
        dmo_output_png.close(o);
        char path[700];
        struct stat st;
        snprintf(path, sizeof(path), "%s/frames/frame-00001.png", dmo_test_tmpdir());
        CHECK(stat(path, &st) == 0 && st.st_size > 1000);
        snprintf(path, sizeof(path), "%s/frames/frame-00002.png", dmo_test_tmpdir());
        CHECK(stat(path, &st) != 0);
        dmo_theme_free(t);
}

static bool all_zero(const uint8_t *px, size_t len)
{
        for (size_t i = 0; i < len; i++)
                if (px[i])
                        return false;
        return true;
}

/* Before the snapshot the outputs zero the frame they keep in memory (it
 * would cost its size in the image); the next render, forced or not, draws
 * the very same pixels again, and shows them (a new file here). */
static void test_forgotten_frame_is_zero_and_drawn_again_whole(void)
{
        struct dmo_theme *t = load("default");
        REQUIRE(t);
        char arg[600];
        snprintf(arg, sizeof(arg), "%s/forget:640x400@1", dmo_test_tmpdir());
        struct dmo_output_config cfg = {.theme = t, .arg = arg, .tty_fd = -1};
        struct dmo_output *o = NULL;
        REQUIRE(dmo_output_png.open(&cfg, &o) == 0);
        REQUIRE(dmo_output_png.forget_frame != NULL);
        struct dmo_scene sc;
        dmo_preview_scene(DMO_SCENE_HIBERNATE, 0.3, 0, &sc);
        REQUIRE(dmo_output_png.render(o, &sc, false) == 0);
        int w, h, stride;
        const uint8_t *px = dmo_output_png_pixels(o, &w, &h, &stride);
        size_t len = (size_t)h * (size_t)stride;
        uint8_t *drawn = malloc(len);
        REQUIRE(drawn);
        memcpy(drawn, px, len);
        CHECK(!all_zero(drawn, len));
        dmo_output_png.forget_frame(o);
        CHECK(all_zero(px, len));
        REQUIRE(dmo_output_png.render(o, &sc, false) == 0);
        CHECK(memcmp(px, drawn, len) == 0);
        CHECK_INT(dmo_output_png_frames(o), ==, 2);
        free(drawn);
        dmo_output_png.close(o);
        dmo_theme_free(t);
}

/* A hibernation's splash prepares every later string after its first frame
 * (nothing may allocate after the snapshot); a resume's does not, so the
 * image loads sooner on one CPU. */
static void test_outputs_prewarm_only_when_asked(void)
{
        struct dmo_theme *t = load("default");
        REQUIRE(t);
        char arg[600];
        snprintf(arg, sizeof(arg), "%s/prewarm:320x200@1", dmo_test_tmpdir());
        for (int asked = 0; asked < 2; asked++) {
                struct dmo_output_config cfg = {
                    .theme = t, .arg = arg, .tty_fd = -1, .prewarm = asked};
                struct dmo_output *o = NULL;
                REQUIRE(dmo_output_png.open(&cfg, &o) == 0);
                CHECK(!dmo_output_png_prewarmed(o));
                struct dmo_scene sc;
                dmo_preview_scene(DMO_SCENE_RESUME, 0.2, 0, &sc);
                CHECK(dmo_output_png.render(o, &sc, false) == 0);
                CHECK(dmo_output_png_prewarmed(o) == (bool)asked);
                /* Lazily shaped, the next scene kind still draws. */
                dmo_preview_scene(DMO_SCENE_RESUME_ERROR, 0.2, 0, &sc);
                CHECK(dmo_output_png.render(o, &sc, false) == 0);
                CHECK_INT(dmo_output_png_frames(o), ==, 2);
                dmo_output_png.close(o);
        }
        dmo_theme_free(t);
}

static void test_png_output_rejects_bad_arguments(void)
{
        char dir[64];
        int w, h;
        double s = 0;
        CHECK(dmo_output_png_parse_arg("/tmp/x:1920x1080@2", dir, sizeof(dir), &w, &h, &s) == 0);
        CHECK(w == 1920 && h == 1080 && s == 2 && !strcmp(dir, "/tmp/x"));
        CHECK(dmo_output_png_parse_arg("/tmp/x:1920", dir, sizeof(dir), &w, &h, &s) < 0);
        CHECK(dmo_output_png_parse_arg("/tmp/x:99999x10", dir, sizeof(dir), &w, &h, &s) < 0);
        CHECK(dmo_output_png_parse_arg("/tmp/x:640x480@0", dir, sizeof(dir), &w, &h, &s) < 0);
        CHECK(dmo_output_png_parse_arg("", dir, sizeof(dir), &w, &h, &s) < 0);
}

static void test_automatic_scale_follows_pixel_density(void)
{
        struct dmo_theme *t = load("minimal");
        REQUIRE(t);
        struct dmo_painter *p = NULL;
        REQUIRE(dmo_painter_new(t, 2560, 1600, 0, 300, &p) == 0); /* 13" panel, 217 dpi */
        CHECK(dmo_painter_scale(p) == 2);
        dmo_painter_free(p);
        REQUIRE(dmo_painter_new(t, 1920, 1080, 0, 530, &p) == 0); /* 24" monitor, 92 dpi */
        CHECK(dmo_painter_scale(p) == 1);
        dmo_painter_free(p);
        REQUIRE(dmo_painter_new(t, 3840, 2160, 0, 0, &p) == 0);
        CHECK(dmo_painter_scale(p) == 2);
        dmo_painter_free(p);
        CHECK(dmo_painter_new(t, 0, 100, 0, 0, &p) < 0);
        CHECK(dmo_painter_new(t, 100, 100, -1, 0, &p) < 0);
        dmo_theme_free(t);
}

static void test_dialogs_draw_in_the_dialog_box(void)
{
        struct dmo_theme *t = load("default");
        REQUIRE(t);
        struct frame f = frame_new(1280, 800);
        struct dmo_painter *p = NULL;
        REQUIRE(dmo_painter_new(t, f.w, f.h, 1, 0, &p) == 0);
        struct dmo_rect box, d[8];
        unsigned n;
        REQUIRE(dmo_painter_box(p, DMO_BOX_DIALOG, &box));
        struct dmo_scene sc;
        dmo_preview_scene(DMO_SCENE_RESUME, 0.04, 0, &sc);
        REQUIRE(dmo_painter_paint(p, f.px, f.stride, &sc, true, d, 8, &n) == 0);
        struct frame g = frame_new(f.w, f.h);
        memcpy(g.px, f.px, (size_t)f.h * f.stride);
        sc.dialog.kind = DMO_DIALOG_PASSWORD;
        snprintf(sc.dialog.prompt, sizeof(sc.dialog.prompt), "Passphrase:");
        sc.dialog.bullets = 5;
        REQUIRE(dmo_painter_paint(p, f.px, f.stride, &sc, false, d, 8, &n) == 0);
        CHECK_INT(n, >=, 1);
        long changed = 0, outside = 0;
        for (int y = 0; y < f.h; y++)
                for (int x = 0; x < f.w; x++)
                        if (px(&f, x, y) != px(&g, x, y)) {
                                changed++;
                                outside += !inside(&box, x, y);
                        }
        CHECK_INT(changed, >, box.w * box.h / 2);
        printf("# dialog: %ld pixels changed outside its box (the bar and lines it hides)\n",
               outside);
        sc.dialog.bullets = 6;
        memcpy(g.px, f.px, (size_t)f.h * f.stride);
        REQUIRE(dmo_painter_paint(p, f.px, f.stride, &sc, false, d, 8, &n) == 0);
        CHECK_INT(n, >=, 1);
        /* One more bullet: only the dialog box changes. */
        outside = 0;
        changed = 0;
        for (int y = 0; y < f.h; y++)
                for (int x = 0; x < f.w; x++)
                        if (px(&f, x, y) != px(&g, x, y)) {
                                changed++;
                                outside += !inside(&box, x, y);
                        }
        CHECK_INT(changed, >, 0);
        CHECK_INT(outside, ==, 0);
        for (unsigned i = 0; i < n; i++)
                CHECK_INT((long)d[i].w * d[i].h, <=, (long)(box.w + 2) * (box.h + 2));
        sc.dialog.kind = DMO_DIALOG_QUESTION;
        REQUIRE(dmo_painter_paint(p, f.px, f.stride, &sc, false, d, 8, &n) == 0);
        CHECK_INT(n, >=, 1);
        free(g.px);
        dmo_painter_free(p);
        free(f.px);
        dmo_theme_free(t);
}

/* In a right-to-left language (the catalog's "default:RTL" marker, Arabic
 * here, from the build tree's catalogs) the bar fills from the right, the
 * first answer is on the right, and the stats line reads from the right;
 * a theme can keep its bar filling from the left. */
static void test_rtl_language_mirrors_bar_and_answers(void)
{
        char dir[600];
        const char *b = getenv("DMO_BUILDDIR");
        snprintf(dir, sizeof(dir), "%s/po/locale", b ? b : ".");
        REQUIRE(dmo_i18n_use_language("ar") == 0);
        bindtextdomain("dormouse", dir);
        bind_textdomain_codeset("dormouse", "UTF-8");
        textdomain("dormouse");
        REQUIRE(dmo_i18n_rtl());

        struct dmo_theme *t = load("default");
        REQUIRE(t);
        for (int mirror = 1; mirror >= 0; mirror--) {
                t->bar_mirror = mirror; /* [progress-bar] mirror = false */
                struct frame f = frame_new(1280, 800);
                struct dmo_painter *p = NULL;
                REQUIRE(dmo_painter_new(t, f.w, f.h, 1, 0, &p) == 0);
                struct dmo_rect in;
                REQUIRE(dmo_painter_box(p, DMO_BOX_BAR_FILL, &in));
                struct dmo_scene sc;
                dmo_preview_scene(DMO_SCENE_HIBERNATE, 0.25, 0, &sc);
                REQUIRE(dmo_painter_paint(p, f.px, f.stride, &sc, true, NULL, 0, NULL) == 0);
                int y = in.y + in.h / 2;
                bool right = lum(px(&f, in.x + in.w - 4, y)) > lum(px(&f, in.x + 4, y)) + 40;
                bool left = lum(px(&f, in.x + 4, y)) > lum(px(&f, in.x + in.w - 4, y)) + 40;
                printf("# mirror=%d: fill at the %s\n", mirror,
                       right  ? "right"
                       : left ? "left"
                              : "?");
                CHECK(mirror ? right : left);
                CHECK_INT(measure_fill(&f, &in, fill_colour[0]), ==, (int)lround(0.25 * in.w));
                if (mirror) {
                        struct dmo_rect stats, ink;
                        REQUIRE(dmo_painter_box(p, DMO_BOX_STATS, &stats));
                        REQUIRE(dmo_painter_text_extent(p, DMO_BOX_STATS, &ink));
                        dmo_preview_dialog(DMO_DIALOG_QUESTION, 0, &sc);
                        REQUIRE(dmo_painter_paint(p, f.px, f.stride, &sc, true, NULL, 0, NULL) ==
                                0);
                        struct dmo_rect yes, no;
                        REQUIRE(dmo_painter_box(p, DMO_BOX_YES, &yes));
                        REQUIRE(dmo_painter_box(p, DMO_BOX_NO, &no));
                        CHECK(yes.x > no.x);
                        CHECK(!sc.dialog.answer_yes); /* the safe answer is the default */
                }
                dmo_painter_free(p);
                free(f.px);
        }
        dmo_theme_free(t);
        unsetenv("LANGUAGE");
        setlocale(LC_ALL, "C"); /* English again (and gettext's cache dropped) */
        REQUIRE(!dmo_i18n_rtl());
}

/* The percent on the stats line is the bar's, of the same frame: a bar that
 * has not caught up with the model (it eases) says 95 % on the line too,
 * not the data's "100 %"; with no rate worth showing there is neither MB/s
 * nor time left. */
static void test_stats_percent_is_the_bars(void)
{
        struct dmo_theme *t = load("default");
        REQUIRE(t);
        struct dmo_painter *p = NULL;
        REQUIRE(dmo_painter_new(t, 1280, 800, 1, 0, &p) == 0);
        struct dmo_scene sc;
        dmo_preview_scene(DMO_SCENE_RESUME, 0.95, 0, &sc);
        sc.progress.phase = DMO_PHASE_RESTORE;
        sc.progress.pages_done = sc.progress.pages_total;
        sc.progress.mb_per_s = 0;
        sc.progress.eta_s = -1;
        static const struct {
                double bar;
                const char *want;
        } cases[] = {{0.95, "· 95% ·"}, {0.999, "· 99% ·"}, {1.0, "· 100% ·"}, {0.004, "· 0% ·"}};
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char line[512];
                sc.bar_fraction = cases[i].bar;
                dmo_painter_stats_line(p, &sc, line, sizeof(line));
                printf("# bar %.3f: %s\n", cases[i].bar, line);
                CHECK_STR_CONTAINS(line, cases[i].want);
                CHECK(!strstr(line, "MB/s") && !strstr(line, "left"));
        }
        dmo_painter_free(p);
        dmo_theme_free(t);
}

/* Half a second of work left is "1 second left", not "0 seconds left",
 * which read as done with half the bar to go; whole minutes above 90 s. */
static void test_time_left_is_never_zero_while_work_is_left(void)
{
        struct dmo_theme *t = load("default");
        REQUIRE(t);
        struct dmo_painter *p = NULL;
        REQUIRE(dmo_painter_new(t, 1280, 800, 1, 0, &p) == 0);
        struct dmo_scene sc;
        dmo_preview_scene(DMO_SCENE_HIBERNATE, 0.51, 0, &sc);
        sc.progress.mb_per_s = 222;
        static const struct {
                double eta;
                const char *want;
        } cases[] = {{0.3, "· 1 second left"},
                     {0.49, "· 1 second left"},
                     {1.6, "· 2 seconds left"},
                     {37, "· 35 seconds left"},
                     {600, "· about 10 minutes left"}};
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char line[512];
                sc.progress.eta_s = cases[i].eta;
                dmo_painter_stats_line(p, &sc, line, sizeof(line));
                printf("# eta %.2f s: %s\n", cases[i].eta, line);
                CHECK_STR_CONTAINS(line, cases[i].want);
        }
        dmo_painter_free(p);
        dmo_theme_free(t);
}

DMO_TEST_MAIN(T(test_bar_filled_width_matches_progress), T(test_stats_percent_is_the_bars),
              T(test_time_left_is_never_zero_while_work_is_left),
              T(test_bar_never_shows_fewer_pixels_for_more_progress),
              T(test_long_strings_stay_inside_their_boxes_and_the_screen),
              T(test_title_is_drawn_in_its_box_for_every_mode),
              T(test_backdrop_matches_the_painted_background),
              T(test_gradient_background_needs_no_screen_copy),
              T(test_minimal_theme_draws_no_title),
              T(test_rtl_message_is_right_aligned_and_ltr_left_aligned),
              T(test_damage_covers_only_what_changed), T(test_png_output_writes_a_frame_per_change),
              T(test_forgotten_frame_is_zero_and_drawn_again_whole),
              T(test_outputs_prewarm_only_when_asked), T(test_png_output_rejects_bad_arguments),
              T(test_automatic_scale_follows_pixel_density), T(test_dialogs_draw_in_the_dialog_box),
              T(test_rtl_language_mirrors_bar_and_answers))
