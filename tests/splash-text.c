/* Text layout: where glyphs land in mixed-direction lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splash/paint/text.h"
#include "tests/testlib.h"
#include "util/cleanup.h"

struct rig {
        struct dmo_font *latin, *arabic;
        struct dmo_textstyle st;
        struct dmo_shaper sh;
        struct dmo_line line;
};

static bool rig_open(struct rig *g)
{
        char latin[512], arabic[512];
        memset(g, 0, sizeof(*g));
        dmo_test_srcpath("fonts/DejaVuSans.ttf", latin, sizeof(latin));
        dmo_test_srcpath("fonts/NotoSansArabic-Regular.ttf", arabic, sizeof(arabic));
        return dmo_font_open(latin, &g->latin) == 0 && dmo_font_open(arabic, &g->arabic) == 0 &&
               dmo_textstyle_init(&g->st, g->latin, g->arabic, 16) == 0 &&
               dmo_shaper_init(&g->sh, 256) == 0 && dmo_line_init(&g->line, 256) == 0;
}

static void rig_close(struct rig *g)
{
        dmo_line_fini(&g->line);
        dmo_shaper_fini(&g->sh);
        dmo_textstyle_fini(&g->st);
        dmo_font_free(g->arabic);
        dmo_font_free(g->latin);
}

static unsigned long glyph_of(struct rig *g, const char *ch)
{
        cairo_glyph_t *gl = NULL;
        int n = 0;
        cairo_status_t st = cairo_scaled_font_text_to_glyphs(g->st.sfont[0], 0, 0, ch, -1, &gl, &n,
                                                             NULL, NULL, NULL);
        unsigned long idx = st == CAIRO_STATUS_SUCCESS && n == 1 ? gl[0].index : 0;
        cairo_glyph_free(gl);
        return idx;
}

/* Leftmost and rightmost x of a glyph of the primary font in the line. */
static bool extent_of(const struct rig *g, unsigned long glyph, double *min, double *max)
{
        bool found = false;
        for (unsigned r = 0; r < g->line.nruns; r++) {
                const struct dmo_line_run *run = &g->line.runs[r];
                if (run->font != 0)
                        continue;
                for (unsigned i = run->first; i < run->first + run->count; i++) {
                        double x = g->line.glyphs[i].x;
                        if (g->line.glyphs[i].index != glyph)
                                continue;
                        *min = found && *min < x ? *min : x;
                        *max = found && *max > x ? *max : x;
                        found = true;
                }
        }
        return found;
}

/* "/dev/sda2" inside an Arabic sentence reads /dev/sda2, not dev/sda2/ (the
 * slashes taking the paragraph's direction); in an English one too. */
static void test_paths_read_left_to_right_in_both_directions(void)
{
        static const char *const lines[] = {
            "\xd8\xac\xd8\xa7\xd8\xb1\xd9\x90 \xd9\x82\xd8\xb1\xd8\xa7\xd8\xa1\xd8\xa9 "
            "\xd9\x85\xd9\x86 /dev/sda2",
            "Reading the image from /dev/sda2",
            "\xd8\xa7\xd9\x84\xd8\xac\xd9\x87\xd8\xa7\xd8\xb2 (/dev/vda) "
            "\xd8\xac\xd8\xa7\xd9\x87\xd8\xb2"};
        struct rig g;
        REQUIRE(rig_open(&g));
        /* "v" and "2" appear only in the paths */
        unsigned long slash = glyph_of(&g, "/"), v = glyph_of(&g, "v"), two = glyph_of(&g, "2");
        REQUIRE(slash && v && two);
        for (size_t k = 0; k < DMO_ARRAY_SIZE(lines); k++) {
                REQUIRE(dmo_line_shape(&g.sh, &g.line, &g.st, lines[k]) == 1);
                CHECK(g.line.rtl == (k != 1));
                double s0 = 0, s1 = 0, v0 = 0, v1 = 0, t0 = 0, t1 = 0;
                REQUIRE(extent_of(&g, slash, &s0, &s1));
                REQUIRE(extent_of(&g, v, &v0, &v1));
                printf("# line %zu: '/' at %.1f..%.1f, 'v' at %.1f..%.1f\n", k, s0, s1, v0, v1);
                CHECK(s0 < v0); /* the path starts with its slash */
                if (k == 2)
                        continue;
                REQUIRE(extent_of(&g, two, &t0, &t1));
                CHECK(s1 < t0); /* ...and ends with "sda2" */
        }
        rig_close(&g);
}

DMO_TEST_MAIN(T(test_paths_read_left_to_right_in_both_directions))
