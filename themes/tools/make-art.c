/* make-art: draws the artwork of the shipped themes with cairo.
 *
 * Authoring tool, not part of the build: the PNGs it writes are committed.
 *   cc -O2 make-art.c $(pkg-config --cflags --libs cairo libpng) -lm -o make-art
 *   ./make-art ..        (run from themes/tools; writes into ../<theme>/)
 * Everything here is original work, licensed CC0 (see themes/README.md).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cairo.h>
#include <png.h>

static const char *root;

static void fail(const char *path)
{
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
}

/* Straight (not premultiplied) RGBA, as PNG stores it. */
static void unpremultiply_row(const uint32_t *src, uint8_t *dst, int width)
{
        for (int x = 0; x < width; x++, dst += 4) {
                unsigned a = src[x] >> 24;
                for (int c = 0; c < 3; c++) {
                        unsigned v = (src[x] >> (16 - 8 * c)) & 0xff;
                        dst[c] = a ? (uint8_t)((v * 255 + a / 2) / a) : 0;
                }
                dst[3] = (uint8_t)a;
        }
}

/* Written with no row filter: the splash decodes these while the screen
 * waits, and the Paeth and Average filters libpng picks by default cost
 * more to undo than the inflate itself (callgrind, the default logo:
 * 6.2 -> 3.9 million instructions to decode), for a larger file besides. */
static void save(cairo_surface_t *s, const char *theme, const char *name)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/%s/%s", root, theme, name);
        cairo_surface_flush(s);
        int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
        int stride = cairo_image_surface_get_stride(s);
        const uint8_t *data = cairo_image_surface_get_data(s);
        uint8_t *row = malloc((size_t)w * 4);
        FILE *f = fopen(path, "wb");
        png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
        png_infop info = png ? png_create_info_struct(png) : NULL;
        if (!row || !f || !info || setjmp(png_jmpbuf(png)))
                fail(path);
        png_init_io(png, f);
        png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB_ALPHA,
                     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
        png_set_compression_level(png, 9);
        png_write_info(png, info);
        for (int y = 0; y < h; y++) {
                unpremultiply_row((const uint32_t *)(data + (size_t)y * stride), row, w);
                png_write_row(png, row);
        }
        png_write_end(png, NULL);
        png_destroy_write_struct(&png, &info);
        if (fclose(f) != 0)
                fail(path);
        free(row);
        cairo_surface_destroy(s);
}

/* A dormouse curled up asleep: body, tail wrapped round, ear, closed eye. */
static void dormouse(cairo_t *cr, double cx, double cy, double r, double fur_r, double fur_g,
                     double fur_b)
{
        /* tail: a thick bushy curl round the body */
        cairo_save(cr);
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
        cairo_set_source_rgb(cr, fur_r * 0.8, fur_g * 0.8, fur_b * 0.8);
        cairo_set_line_width(cr, r * 0.3);
        cairo_arc(cr, cx - r * 0.05, cy - r * 0.05, r * 0.78, M_PI * 0.6, M_PI * 1.55);
        cairo_stroke(cr);
        cairo_restore(cr);
        /* body */
        cairo_pattern_t *g =
            cairo_pattern_create_radial(cx - r * 0.3, cy - r * 0.4, r * 0.1, cx, cy, r * 1.05);
        cairo_pattern_add_color_stop_rgb(g, 0, fur_r * 1.15, fur_g * 1.15, fur_b * 1.15);
        cairo_pattern_add_color_stop_rgb(g, 1, fur_r * 0.85, fur_g * 0.85, fur_b * 0.85);
        cairo_save(cr);
        cairo_translate(cr, cx, cy);
        cairo_scale(cr, 1.0, 0.82);
        cairo_arc(cr, 0, 0, r * 0.78, 0, 2 * M_PI);
        cairo_restore(cr);
        cairo_set_source(cr, g);
        cairo_fill(cr);
        cairo_pattern_destroy(g);
        /* belly highlight */
        cairo_save(cr);
        cairo_translate(cr, cx + r * 0.12, cy + r * 0.22);
        cairo_scale(cr, 1.0, 0.55);
        cairo_arc(cr, 0, 0, r * 0.45, 0, 2 * M_PI);
        cairo_restore(cr);
        cairo_set_source_rgba(cr, 1, 0.96, 0.88, 0.55);
        cairo_fill(cr);
        /* head tucked in at the right */
        double hx = cx + r * 0.48, hy = cy - r * 0.12;
        cairo_arc(cr, hx, hy, r * 0.36, 0, 2 * M_PI);
        cairo_set_source_rgb(cr, fur_r * 1.05, fur_g * 1.05, fur_b * 1.05);
        cairo_fill(cr);
        /* ear */
        cairo_arc(cr, hx - r * 0.05, hy - r * 0.33, r * 0.15, 0, 2 * M_PI);
        cairo_set_source_rgb(cr, fur_r * 0.9, fur_g * 0.9, fur_b * 0.9);
        cairo_fill(cr);
        cairo_arc(cr, hx - r * 0.05, hy - r * 0.33, r * 0.08, 0, 2 * M_PI);
        cairo_set_source_rgb(cr, 0.95, 0.7, 0.7);
        cairo_fill(cr);
        /* closed eye */
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
        cairo_set_line_width(cr, r * 0.045);
        cairo_set_source_rgb(cr, 0.15, 0.1, 0.08);
        cairo_arc(cr, hx + r * 0.1, hy - r * 0.02, r * 0.09, M_PI * 0.15, M_PI * 0.85);
        cairo_stroke(cr);
        /* nose */
        cairo_arc(cr, hx + r * 0.33, hy + r * 0.06, r * 0.045, 0, 2 * M_PI);
        cairo_set_source_rgb(cr, 0.35, 0.2, 0.2);
        cairo_fill(cr);
}

static void zzz(cairo_t *cr, double x, double y, double size, double r, double g, double b,
                double a)
{
        cairo_set_source_rgba(cr, r, g, b, a);
        cairo_set_line_width(cr, size * 0.14);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
        for (int i = 0; i < 3; i++) {
                double s = size * (0.5 + 0.25 * i), ox = x + i * size * 0.55,
                       oy = y - i * size * 0.6;
                cairo_move_to(cr, ox, oy);
                cairo_rel_line_to(cr, s, 0);
                cairo_rel_line_to(cr, -s, s);
                cairo_rel_line_to(cr, s, 0);
                cairo_stroke(cr);
        }
}

/* default: the dormouse asleep in a soft round badge. */
static void default_logo(int k, const char *name)
{
        int S = 200 * k;
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, S, S);
        cairo_t *cr = cairo_create(s);
        double c = S / 2.0;
        cairo_pattern_t *g = cairo_pattern_create_radial(c, c * 0.8, 0, c, c, c);
        cairo_pattern_add_color_stop_rgba(g, 0, 0.42, 0.62, 0.95, 0.30);
        cairo_pattern_add_color_stop_rgba(g, 0.85, 0.30, 0.45, 0.80, 0.16);
        cairo_pattern_add_color_stop_rgba(g, 1, 0.30, 0.45, 0.80, 0);
        cairo_set_source(cr, g);
        cairo_paint(cr);
        cairo_pattern_destroy(g);
        cairo_arc(cr, c, c, c * 0.86, 0, 2 * M_PI);
        cairo_set_line_width(cr, 2.0 * k);
        cairo_set_source_rgba(cr, 0.6, 0.78, 1, 0.55);
        cairo_stroke(cr);
        dormouse(cr, c - S * 0.04, c + S * 0.08, S * 0.3, 0.78, 0.58, 0.38);
        zzz(cr, c + S * 0.14, c - S * 0.2, S * 0.08, 0.75, 0.86, 1, 0.9);
        cairo_destroy(cr);
        save(s, "default", name);
}

/* nocturne: a crescent moon with the dormouse asleep in its curve (or, for
 * the scenes where it is awake or gone, the moon alone). */
static void nocturne_moon(int k, const char *name, bool sleeping)
{
        int W = 360 * k, H = 300 * k;
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
        cairo_t *cr = cairo_create(s);
        double cx = W * 0.5, cy = H * 0.5, R = H * 0.42;
        /* halo */
        cairo_pattern_t *g = cairo_pattern_create_radial(cx, cy, R * 0.6, cx, cy, R * 1.2);
        cairo_pattern_add_color_stop_rgba(g, 0, 1, 0.92, 0.65, 0.22);
        cairo_pattern_add_color_stop_rgba(g, 1, 1, 0.92, 0.65, 0);
        cairo_set_source(cr, g);
        cairo_paint(cr);
        cairo_pattern_destroy(g);
        /* crescent: moon disc minus an offset disc */
        cairo_push_group(cr);
        g = cairo_pattern_create_radial(cx - R * 0.3, cy - R * 0.3, R * 0.1, cx, cy, R);
        cairo_pattern_add_color_stop_rgb(g, 0, 1, 0.97, 0.82);
        cairo_pattern_add_color_stop_rgb(g, 1, 0.96, 0.83, 0.52);
        cairo_arc(cr, cx, cy, R, 0, 2 * M_PI);
        cairo_set_source(cr, g);
        cairo_fill(cr);
        cairo_pattern_destroy(g);
        cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR);
        cairo_arc(cr, cx + R * 0.42, cy - R * 0.28, R * 0.86, 0, 2 * M_PI);
        cairo_fill(cr);
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
        /* craters */
        cairo_set_source_rgba(cr, 0.85, 0.7, 0.45, 0.35);
        cairo_arc(cr, cx - R * 0.62, cy + R * 0.1, R * 0.1, 0, 2 * M_PI);
        cairo_fill(cr);
        cairo_arc(cr, cx - R * 0.35, cy + R * 0.62, R * 0.07, 0, 2 * M_PI);
        cairo_fill(cr);
        cairo_pop_group_to_source(cr);
        cairo_paint(cr);
        /* the dormouse lies in the crescent's curve */
        if (sleeping) {
                dormouse(cr, cx - R * 0.05, cy + R * 0.52, R * 0.34, 0.72, 0.52, 0.36);
                zzz(cr, cx + R * 0.45, cy + R * 0.05, R * 0.14, 1, 0.93, 0.7, 0.95);
        }
        cairo_destroy(cr);
        save(s, "nocturne", name);
}

/* A transparent tile of stars, repeated over the night gradient. */
static void nocturne_stars(int k, const char *name)
{
        int S = 512 * k;
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, S, S);
        cairo_t *cr = cairo_create(s);
        unsigned seed = 20261203;
        for (int i = 0; i < 70; i++) {
                seed = seed * 1103515245u + 12345u;
                double x = (seed >> 8) % S;
                seed = seed * 1103515245u + 12345u;
                double y = (seed >> 8) % S;
                seed = seed * 1103515245u + 12345u;
                double m = ((seed >> 8) % 1000) / 1000.0;
                double r = (0.5 + 1.3 * m * m) * k;
                cairo_arc(cr, x, y, r, 0, 2 * M_PI);
                cairo_set_source_rgba(cr, 1, 0.97, 0.9, 0.35 + 0.6 * m);
                cairo_fill(cr);
                if (m > 0.93) {
                        /* a few bright ones get a sparkle */
                        cairo_set_line_width(cr, 0.6 * k);
                        cairo_set_source_rgba(cr, 1, 0.97, 0.9, 0.5);
                        cairo_move_to(cr, x - 6 * k, y);
                        cairo_line_to(cr, x + 6 * k, y);
                        cairo_move_to(cr, x, y - 6 * k);
                        cairo_line_to(cr, x, y + 6 * k);
                        cairo_stroke(cr);
                }
        }
        cairo_destroy(cr);
        save(s, "nocturne", name);
}

/* Throbber: a small star whose glow breathes in and out over 12 frames. */
static void nocturne_throbber(int k)
{
        for (int f = 0; f < 12; f++) {
                int S = 40 * k;
                char name[64];
                cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, S, S);
                cairo_t *cr = cairo_create(s);
                double ph = 0.5 - 0.5 * cos(2 * M_PI * f / 12.0), c = S / 2.0;
                cairo_pattern_t *g = cairo_pattern_create_radial(c, c, 0, c, c, c);
                cairo_pattern_add_color_stop_rgba(g, 0, 1, 0.93, 0.7, 0.35 + 0.45 * ph);
                cairo_pattern_add_color_stop_rgba(g, 1, 1, 0.93, 0.7, 0);
                cairo_set_source(cr, g);
                cairo_paint(cr);
                cairo_pattern_destroy(g);
                double R = c * (0.55 + 0.25 * ph), r = R * 0.22;
                cairo_translate(cr, c, c);
                cairo_rotate(cr, M_PI * f / 24.0);
                for (int i = 0; i < 8; i++) {
                        double a = M_PI * i / 4, rr = i % 2 ? r : R;
                        cairo_line_to(cr, cos(a) * rr, sin(a) * rr);
                        cairo_line_to(cr, cos(a + M_PI / 8) * r * 0.9, sin(a + M_PI / 8) * r * 0.9);
                }
                cairo_close_path(cr);
                cairo_set_source_rgba(cr, 1, 0.96, 0.82, 0.9);
                cairo_fill(cr);
                cairo_destroy(cr);
                snprintf(name, sizeof(name), "throbber-%02d%s.png", f, k == 2 ? "@2x" : "");
                save(s, "nocturne", name);
        }
}

int main(int argc, char **argv)
{
        root = argc > 1 ? argv[1] : "..";
        default_logo(1, "logo.png");
        default_logo(2, "logo@2x.png");
        nocturne_moon(1, "moon.png", true);
        nocturne_moon(2, "moon@2x.png", true);
        nocturne_moon(1, "moon-empty.png", false);
        nocturne_moon(2, "moon-empty@2x.png", false);
        nocturne_stars(1, "stars.png");
        nocturne_stars(2, "stars@2x.png");
        nocturne_throbber(1);
        nocturne_throbber(2);
        return 0;
}
