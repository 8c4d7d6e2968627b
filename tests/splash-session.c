/* The splash session as the CLI uses it: what it opens for each --splash,
 * what it reports, and that it never stands in the way of the run. Only
 * outputs that need no device (png, text) are opened here. */
#include "splash/session.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cairo.h>

#include "tests/testlib.h"

struct reports {
        int n, errors;
        char last[768];
};

static void record(void *ctx, enum dmo_splash_report kind, const char *sentence)
{
        struct reports *r = ctx;
        r->n++;
        r->errors += kind == DMO_SPLASH_ERROR;
        snprintf(r->last, sizeof(r->last), "%s", sentence);
        printf("# report: %s\n", sentence);
}

struct rig {
        char themes[512], fonts[512];
        char dir[512], spec[600]; /* png_rig(): the frames' directory, the output */
        struct dmo_theme_paths paths;
        struct dmo_progress *progress;
        struct reports rep;
        struct dmo_splash_session_params p;
};

static bool rig_init(struct rig *g, const char *spec)
{
        memset(g, 0, sizeof(*g));
        dmo_test_srcpath("themes", g->themes, sizeof(g->themes));
        dmo_test_srcpath("fonts", g->fonts, sizeof(g->fonts));
        g->paths = (struct dmo_theme_paths){.themes_dir = g->themes, .fonts_dir = g->fonts};
        if (dmo_progress_new(DMO_MODE_HIBERNATE, &g->progress) < 0)
                return false;
        g->p = (struct dmo_splash_session_params){
            .mode = DMO_MODE_HIBERNATE,
            .progress = g->progress,
            .spec = spec,
            .paths = &g->paths,
            .key_tty_fd = -1,
            .report = record,
            .report_ctx = &g->rep,
        };
        return true;
}

/* The rig with the png output at 320x200 into a new directory NAME under
 * the test's own (g->dir). */
static bool png_rig(struct rig *g, const char *name)
{
        char dir[512], spec[600];
        snprintf(dir, sizeof(dir), "%s/%s", dmo_test_tmpdir(), name);
        if (mkdir(dir, 0700) < 0)
                return false;
        snprintf(spec, sizeof(spec), "png:%s:320x200", dir);
        if (!rig_init(g, NULL))
                return false;
        memcpy(g->dir, dir, sizeof(dir));
        memcpy(g->spec, spec, sizeof(spec));
        g->p.spec = g->spec;
        return true;
}

static int count_pngs(const char *dir)
{
        DIR *d = opendir(dir);
        int n = 0;
        if (!d)
                return -1;
        for (struct dirent *e; (e = readdir(d));)
                n += strstr(e->d_name, ".png") != NULL;
        closedir(d);
        return n;
}

static void test_none_opens_nothing(void)
{
        struct rig g;
        REQUIRE(rig_init(&g, "none"));
        struct dmo_splash_session *s = (struct dmo_splash_session *)&g;
        CHECK_INT(dmo_splash_session_new(&g.p, &s), ==, 0);
        CHECK(s == NULL);
        CHECK_INT(g.rep.n, ==, 0);
        /* Every call takes the missing session, as the engine's hooks do. */
        dmo_splash_session_pause(NULL);
        dmo_splash_session_before_freeze(NULL);
        dmo_splash_session_after_freeze(NULL);
        dmo_splash_session_devices_thawed(NULL);
        dmo_splash_session_before_restore(NULL);
        dmo_splash_session_fail(NULL, "x");
        CHECK(!dmo_splash_session_reboot_after(NULL));
        dmo_splash_session_free(NULL);
        dmo_progress_free(g.progress);
}

static void test_unknown_output_is_an_error_and_text_goes_on(void)
{
        struct rig g;
        REQUIRE(rig_init(&g, "hologram"));
        struct dmo_splash_session *s = NULL;
        CHECK_INT(dmo_splash_session_new(&g.p, &s), ==, -EINVAL);
        CHECK(s != NULL); /* the text progress */
        CHECK_INT(g.rep.errors, ==, 1);
        CHECK_STR_CONTAINS(g.rep.last, "hologram");
        dmo_splash_session_free(s);
        dmo_progress_free(g.progress);
}

static void test_png_draws_frames_through_the_hooks(void)
{
        struct rig g;
        REQUIRE(png_rig(&g, "session-png"));
        struct dmo_splash_session *s = NULL;
        REQUIRE(dmo_splash_session_new(&g.p, &s) == 0);
        REQUIRE(s != NULL);
        dmo_progress_set_phase(g.progress, DMO_PHASE_WRITE);
        dmo_progress_set_total(g.progress, 100);
        /* The engine's sequence: stop around the freeze, start again. */
        dmo_splash_session_before_freeze(s);
        dmo_splash_session_after_freeze(s);
        dmo_progress_add_pages(g.progress, 100);
        dmo_splash_session_pause(s);
        dmo_splash_session_devices_thawed(s);
        dmo_splash_session_free(s);
        CHECK(count_pngs(g.dir) >= 2);
        CHECK_INT(g.rep.errors, ==, 0);
        dmo_progress_free(g.progress);
}

/* Rows of the png frame at path whose pixels are all black (RGB 0): the
 * default theme's background has none. -1 when it cannot be read. */
static int black_rows(const char *path)
{
        cairo_surface_t *img = cairo_image_surface_create_from_png(path);
        if (cairo_surface_status(img)) {
                cairo_surface_destroy(img);
                return -1;
        }
        const uint8_t *px = cairo_image_surface_get_data(img);
        int w = cairo_image_surface_get_width(img), h = cairo_image_surface_get_height(img);
        int stride = cairo_image_surface_get_stride(img), black = 0;
        for (int y = 0; y < h; y++) {
                uint32_t any = 0;
                for (int x = 0; x < w; x++) {
                        uint32_t v;
                        memcpy(&v, px + (size_t)y * (size_t)stride + (size_t)x * 4, 4);
                        any |= v & 0xffffffu;
                }
                black += any == 0;
        }
        cairo_surface_destroy(img);
        return black;
}

/* Before the snapshot the outputs zero the frame they keep in memory; the
 * first frame after it (devices_thawed, on the hibernate path and in the
 * restored system alike) is drawn whole, not only where it changed. */
static void test_frames_after_the_snapshot_are_whole(void)
{
        struct rig g;
        char path[600];
        REQUIRE(png_rig(&g, "session-snapshot"));
        struct dmo_splash_session *s = NULL;
        REQUIRE(dmo_splash_session_new(&g.p, &s) == 0);
        REQUIRE(s != NULL);
        dmo_progress_set_phase(g.progress, DMO_PHASE_SNAPSHOT);
        dmo_splash_session_pause(s);
        int before = count_pngs(g.dir);
        dmo_progress_set_phase(g.progress, DMO_PHASE_WRITE);
        dmo_progress_set_total(g.progress, 100);
        dmo_progress_add_pages(g.progress, 40);
        dmo_splash_session_devices_thawed(s);
        dmo_splash_session_free(s);
        int after = count_pngs(g.dir);
        CHECK_INT(after, >, before);
        for (int i = 0; i < after; i++) {
                snprintf(path, sizeof(path), "%s/frame-%05d.png", g.dir, i);
                int black = black_rows(path);
                if (black != 0)
                        printf("# %s: %d black rows\n", path, black);
                CHECK_INT(black, ==, 0);
        }
        CHECK_INT(g.rep.errors, ==, 0);
        dmo_progress_free(g.progress);
}

static void test_a_bad_output_argument_is_reported_with_its_reason(void)
{
        struct rig g;
        REQUIRE(rig_init(&g, "png:"));
        struct dmo_splash_session *s = NULL;
        CHECK_INT(dmo_splash_session_new(&g.p, &s), ==, 0);
        CHECK(s != NULL); /* text progress instead */
        CHECK_INT(g.rep.errors, ==, 0);
        CHECK_STR_CONTAINS(g.rep.last, "png:");
        CHECK_STR_CONTAINS(g.rep.last, "Invalid splash output argument");
        dmo_splash_session_free(s);
        dmo_progress_free(g.progress);
}

static void test_a_missing_theme_is_reported_and_the_built_in_look_draws(void)
{
        struct rig g;
        char dir[512], spec[600];
        snprintf(dir, sizeof(dir), "%s/session-png-2", dmo_test_tmpdir());
        REQUIRE(mkdir(dir, 0700) == 0);
        snprintf(spec, sizeof(spec), "png:%s", dir);
        REQUIRE(rig_init(&g, spec));
        g.p.theme = "no-such-theme";
        struct dmo_splash_session *s = NULL;
        CHECK_INT(dmo_splash_session_new(&g.p, &s), ==, 0);
        CHECK(s != NULL);
        CHECK(g.rep.n >= 2); /* why the theme failed, then the fallback */
        CHECK_STR_CONTAINS(g.rep.last, "using the built-in look");
        dmo_splash_session_free(s);
        CHECK_INT(count_pngs(dir), >=, 1); /* never a screen left black */
        dmo_progress_free(g.progress);
}

/* Which --splash outputs write files while they draw: only png. */
static void test_only_png_writes_files(void)
{
        CHECK(dmo_splash_spec_writes_files("png:/tmp/x"));
        CHECK(dmo_splash_spec_writes_files("png"));
        CHECK(!dmo_splash_spec_writes_files("kms"));
        CHECK(!dmo_splash_spec_writes_files("fbdev"));
        CHECK(!dmo_splash_spec_writes_files("text"));
        CHECK(!dmo_splash_spec_writes_files("none"));
        CHECK(!dmo_splash_spec_writes_files(""));
        CHECK(!dmo_splash_spec_writes_files(NULL));
        CHECK(!dmo_splash_spec_writes_files("pngx:/tmp"));
}

DMO_TEST_MAIN(T(test_only_png_writes_files), T(test_none_opens_nothing),
              T(test_unknown_output_is_an_error_and_text_goes_on),
              T(test_png_draws_frames_through_the_hooks),
              T(test_frames_after_the_snapshot_are_whole),
              T(test_a_bad_output_argument_is_reported_with_its_reason),
              T(test_a_missing_theme_is_reported_and_the_built_in_look_draws))
