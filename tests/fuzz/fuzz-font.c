/* Fuzz target: a hostile font file through the splash's text layer (the
 * painter's): FreeType opens it, cairo-ft and HarfBuzz use it to measure,
 * shape (Latin, Arabic, mixed digits, a line longer than its capacity) and
 * draw into a small surface. A theme may ship its own font, so a font file
 * is as untrusted as the theme. Seeds: small subsets of the shipped fonts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cairo.h>

#include "splash/paint/text.h"
#include "tests/fuzz/memfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Opening the font, its cairo face and three sizes: costly next to a parser. */
extern const unsigned dmo_fuzz_input_cost;
const unsigned dmo_fuzz_input_cost = 4;

static const char *const texts[] = {
    "Good night 0123456789%",
    "\xd9\x85\xd8\xb1\xd8\xad\xd8\xa8\xd8\xa7 \xd8\xa8\xd8\xa7\xd9\x84\xd8\xb9\xd8\xa7\xd9\x84"
    "\xd9\x85 \xd9\xa1\xd9\xa2\xd9\xa3 12.5 MB/s",
    "\xc3\x89t\xc3\xa9 \xce\xa9 \xe2\x86\x92 left: 3 min, 1.2 GB of 4.0 GB written",
    "AVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAV",
};

static void shape_and_draw(struct dmo_font *font, double px, cairo_t *cr)
{
        struct dmo_textstyle st;
        if (dmo_textstyle_init(&st, font, NULL, px) < 0)
                return;
        struct dmo_shaper sh;
        struct dmo_line line;
        if (dmo_shaper_init(&sh, 128) == 0 && dmo_line_init(&line, 64) == 0) {
                for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
                        if (dmo_line_shape(&sh, &line, &st, texts[i]) < 0)
                                continue;
                        dmo_line_draw(cr, &line, 2, 40);
                        double x0, y0, x1, y1;
                        (void)dmo_line_ink(&line, &x0, &y0, &x1, &y1);
                }
                dmo_line_fini(&line);
                dmo_shaper_fini(&sh);
        }
        dmo_textstyle_fini(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char path[64];
        int fd = dmo_fuzz_memfile("dmo-fuzz-font", data, size, path);
        struct dmo_font *font;
        if (dmo_font_open(path, false, &font) == 0) {
                cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 160, 64);
                cairo_t *cr = cairo_create(s);
                static const double sizes[] = {1, 14, 61.5};
                for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
                        shape_and_draw(font, sizes[i], cr);
                cairo_destroy(cr);
                cairo_surface_destroy(s);
                dmo_font_free(font);
        }
        close(fd);
        return 0;
}
