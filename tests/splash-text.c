/* Text layout: where glyphs land in mixed-direction lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fribidi.h>

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
        return dmo_font_open(latin, false, &g->latin) == 0 &&
               dmo_font_open(arabic, false, &g->arabic) == 0 &&
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

/* Logical character index of each byte offset of s. */
static unsigned char_at(const char *s, uint32_t byte)
{
        unsigned n = 0;
        for (uint32_t i = 0; i < byte && s[i]; i++)
                n += ((unsigned char)s[i] & 0xc0) != 0x80;
        return n;
}

/* The line's characters as they appear from left to right: the logical
 * index of each glyph cluster, in glyph order (glyphs are laid out left to
 * right), consecutive repeats dropped. */
static unsigned shaped_order(const struct dmo_line *l, unsigned *out, unsigned max)
{
        unsigned n = 0;
        for (unsigned i = 0; i < l->n && n < max; i++) {
                unsigned c = char_at(l->text, l->cluster[i]);
                if (n == 0 || out[n - 1] != c)
                        out[n++] = c;
        }
        return n;
}

/* FriBidi's own visual order of s (logical index per visual position),
 * for a paragraph of direction dir, kept to the characters in keep[]. */
static unsigned fribidi_order(const char *s, FriBidiParType dir, const unsigned *keep,
                              unsigned nkeep, unsigned *out, unsigned max)
{
        FriBidiChar u[256];
        FriBidiStrIndex v2l[256];
        FriBidiChar vis[257];
        FriBidiStrIndex len =
            fribidi_charset_to_unicode(FRIBIDI_CHAR_SET_UTF8, s, (FriBidiStrIndex)strlen(s), u);
        FriBidiParType base = dir;
        if (!fribidi_log2vis(u, len, &base, vis, NULL, v2l, NULL))
                return 0;
        unsigned n = 0;
        for (FriBidiStrIndex v = 0; v < len && n < max; v++) {
                for (unsigned k = 0; k < nkeep; k++) {
                        if (keep[k] == (unsigned)v2l[v]) {
                                out[n++] = (unsigned)v2l[v];
                                break;
                        }
                }
        }
        return n;
}

/* Mixed Arabic, Latin and numbers come out in FriBidi's visual order
 * (the Unicode Bidirectional Algorithm), whatever the paragraph direction. */
static void test_mixed_lines_follow_fribidi_visual_order(void)
{
        static const char *const lines[] = {
            /* "Writing · 42% · 4.9 GB of 12.9 GB" */
            "\xd8\xa7\xd9\x84\xd9\x83\xd8\xaa\xd8\xa7\xd8\xa8\xd8\xa9 \xc2\xb7 42% \xc2\xb7 4.9 GB "
            "\xd9\x85\xd9\x86 12.9 GB",
            /* the same with Arabic units */
            "\xd8\xa7\xd9\x84\xd9\x83\xd8\xaa\xd8\xa7\xd8\xa8\xd8\xa9 \xc2\xb7 42% \xc2\xb7 4,9 "
            "\xd8\xba\xd9\x8a\xd8\xba\xd8\xa7\xd8\xa8\xd8\xa7\xd9\x8a\xd8\xaa \xd9\x85\xd9\x86 "
            "12,9 \xd8\xba\xd9\x8a\xd8\xba\xd8\xa7\xd8\xa8\xd8\xa7\xd9\x8a\xd8\xaa",
            /* an English sentence quoting Arabic and a number */
            "Saved 12 pages of \xd8\xa7\xd9\x84\xd8\xb5\xd9\x88\xd8\xb1\xd8\xa9 3 times",
            /* brackets and a number inside Arabic */
            "\xd8\xa7\xd9\x84\xd8\xb5\xd9\x88\xd8\xb1\xd8\xa9 (12) "
            "\xd8\xac\xd8\xa7\xd9\x87\xd8\xb2\xd8\xa9",
            "Hebrew \xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d 42% end",
        };
        struct rig g;
        REQUIRE(rig_open(&g));
        for (size_t k = 0; k < DMO_ARRAY_SIZE(lines); k++) {
                unsigned got[256], want[256];
                REQUIRE(dmo_line_shape(&g.sh, &g.line, &g.st, lines[k]) == 1);
                unsigned ng = shaped_order(&g.line, got, 256);
                unsigned nw = fribidi_order(lines[k], FRIBIDI_PAR_ON, got, ng, want, 256);
                bool same = ng == nw && memcmp(got, want, ng * sizeof(*got)) == 0;
                printf("# line %zu (%s): %u characters drawn\n", k, g.line.rtl ? "rtl" : "ltr", ng);
                CHECK(ng > 0);
                CHECK(same);
                if (!same) {
                        for (unsigned i = 0; i < ng || i < nw; i++)
                                printf("#   %u: drawn %d, fribidi %d\n", i,
                                       i < ng ? (int)got[i] : -1, i < nw ? (int)want[i] : -1);
                }
        }
        rig_close(&g);
}

/* Left x of the first glyph of the character at byte b. */
static bool x_of(const struct dmo_line *l, uint32_t b, double *x)
{
        for (unsigned i = 0; i < l->n; i++) {
                if (l->cluster[i] == b) {
                        *x = l->glyphs[i].x;
                        return true;
                }
        }
        return false;
}

/* The line: in "الكتابة · 42% · 4.9 …" the percent stays between its
 * two separators (it was drawn next to "GB"), and the paragraph reads from
 * the right (the phase label is rightmost). */
static void test_percent_stays_between_its_separators_in_arabic(void)
{
        static const char line[] =
            "\xd8\xa7\xd9\x84\xd9\x83\xd8\xaa\xd8\xa7\xd8\xa8\xd8\xa9 \xc2\xb7 42% \xc2\xb7 4.9 GB "
            "\xd9\x85\xd9\x86 12.9 GB";
        struct rig g;
        REQUIRE(rig_open(&g));
        REQUIRE(dmo_line_shape(&g.sh, &g.line, &g.st, line) == 1);
        CHECK(g.line.rtl);
        const char *sep1 = strstr(line, "\xc2\xb7"), *sep2 = strstr(sep1 + 2, "\xc2\xb7");
        const char *four = strstr(line, "42%"), *label = line;
        double xs1, xs2, x4, x2, xp, xl;
        REQUIRE(x_of(&g.line, (uint32_t)(sep1 - line), &xs1));
        REQUIRE(x_of(&g.line, (uint32_t)(sep2 - line), &xs2));
        REQUIRE(x_of(&g.line, (uint32_t)(four - line), &x4));
        REQUIRE(x_of(&g.line, (uint32_t)(four + 1 - line), &x2));
        REQUIRE(x_of(&g.line, (uint32_t)(four + 2 - line), &xp));
        REQUIRE(x_of(&g.line, (uint32_t)(label - line), &xl));
        printf("# separators at %.1f and %.1f, 4 2 %% at %.1f %.1f %.1f\n", xs1, xs2, x4, x2, xp);
        CHECK(xs2 < x4 && xp < xs1); /* right to left: sep1, then 42%, then sep2 */
        /* The number reads left to right; after Arabic letters it is an Arabic
         * number (UBA W2), so its percent sign is read after it: on its left. */
        CHECK(x4 < x2);
        CHECK(xp < x4);
        CHECK(xl > xs1); /* the label starts the line on the right */
        rig_close(&g);
}

/* The punctuation around a path in an Arabic sentence is the sentence's:
 * "/dev/sda2: …" reads the path, then the colon, from the right (the colon
 * left of the path), a final period ends the sentence on the left, and
 * brackets enclose the path from outside. */
static void test_punctuation_around_a_path_belongs_to_the_sentence(void)
{
#define AR_WORD "\xd8\xa7\xd9\x84\xd8\xb5\xd9\x88\xd8\xb1\xd8\xa9"
        static const struct {
                const char *line, *path, *before, *after; /* punctuation read before/after */
        } cases[] = {
            {"/dev/sda2: " AR_WORD " " AR_WORD, "/dev/sda2", NULL, ":"},
            {AR_WORD " /dev/sda2.", "/dev/sda2", NULL, "."},
            {AR_WORD " (/dev/vda) " AR_WORD, "/dev/vda", "(", ")"},
            {AR_WORD " \"/dev/vda\", " AR_WORD, "/dev/vda", "\"", ","},
        };
#undef AR_WORD
        struct rig g;
        REQUIRE(rig_open(&g));
        g.sh.prefer_rtl = true; /* an Arabic interface (HL1) */
        for (size_t k = 0; k < DMO_ARRAY_SIZE(cases); k++) {
                const char *line = cases[k].line, *path = strstr(line, cases[k].path);
                size_t plen = strlen(cases[k].path);
                REQUIRE(path);
                REQUIRE(dmo_line_shape(&g.sh, &g.line, &g.st, line) == 1);
                CHECK(g.line.rtl);
                double first, last, x;
                REQUIRE(x_of(&g.line, (uint32_t)(path - line), &first));
                REQUIRE(x_of(&g.line, (uint32_t)(path + plen - 1 - line), &last));
                printf("# case %zu: path from %.1f to %.1f\n", k, first, last);
                CHECK(first < last); /* the path reads left to right */
                if (cases[k].after) {
                        REQUIRE(x_of(&g.line, (uint32_t)(path + plen - line), &x));
                        printf("#   '%s' after it at %.1f\n", cases[k].after, x);
                        CHECK(x < first); /* read after the path: on its left */
                }
                if (cases[k].before) {
                        REQUIRE(x_of(&g.line, (uint32_t)(path - 1 - line), &x));
                        printf("#   '%s' before it at %.1f\n", cases[k].before, x);
                        CHECK(x > last); /* read before the path: on its right */
                }
        }
        rig_close(&g);
}

DMO_TEST_MAIN(T(test_paths_read_left_to_right_in_both_directions),
              T(test_punctuation_around_a_path_belongs_to_the_sentence),
              T(test_mixed_lines_follow_fribidi_visual_order),
              T(test_percent_stays_between_its_separators_in_arabic))
