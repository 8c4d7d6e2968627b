#include "splash/paint/backdrop.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "splash/theme/theme-private.h"

static uint32_t channel(double v)
{
        long c = lround(v * 255.0);
        return (uint32_t)(c < 0 ? 0 : c > 255 ? 255 : c);
}

uint32_t dmo_backdrop_row(const struct dmo_theme *t, int y, int height)
{
        const struct dmo_rgba *a = &t->bg_color, *b = &t->bg_color2;
        if (t->bg_kind == DMO_BG_COLOR || height <= 0)
                return channel(a->r) << 16 | channel(a->g) << 8 | channel(a->b);
        /* Sampled at the pixel's centre, like cairo's linear gradient from
         * the top edge (0) to the bottom edge (height). */
        double f = ((double)y + 0.5) / (double)height;
        return channel(a->r + (b->r - a->r) * f) << 16 | channel(a->g + (b->g - a->g) * f) << 8 |
               channel(a->b + (b->b - a->b) * f);
}

bool dmo_firmware_logo_place(int width, int height, int w, int h, int xoff, int yoff, int *x,
                             int *y)
{
        *x = (width - w) / 2;
        *y = height * 382 / 1000 - h / 2;
        if (xoff >= 0 && yoff >= 0 && *x == xoff && (height - h) / 2 == yoff)
                *y = yoff;
        return w > 0 && h > 0 && *x >= 0 && *y >= 0 && *x + w <= width && *y + h <= height;
}

/* The firmware's logo, as the painter will draw it (the firmware's pixels are opaque). */
static void fill_firmware_logo(const struct dmo_theme *t, uint8_t *pixels, size_t stride, int width,
                               int height)
{
        int x, y;
        if (!t->fw_pixels || !t->mode[DMO_SCENE_HIBERNATE].show_firmware_logo ||
            !t->mode[DMO_SCENE_RESUME].show_firmware_logo ||
            !dmo_firmware_logo_place(width, height, t->fw_w, t->fw_h, t->fw_xoff, t->fw_yoff, &x,
                                     &y))
                return;
        for (int r = 0; r < t->fw_h; r++)
                memcpy(pixels + (size_t)(y + r) * stride + (size_t)x * 4,
                       t->fw_pixels + (size_t)r * t->fw_stride, (size_t)t->fw_w * 4);
}

void dmo_backdrop_fill(const struct dmo_theme *t, uint8_t *pixels, size_t stride, int width,
                       int height)
{
        /* Rows are written from a run of pixels in ordinary memory: video
         * memory is often write-combined, fast to write in blocks and very
         * slow to read back. */
        enum { RUN = 2048 };
        uint32_t run[RUN];
        uint32_t colour = 0;
        bool have = false;
        for (int y = 0; y < height; y++) {
                uint32_t c = dmo_backdrop_row(t, y, height);
                if (!have || c != colour) {
                        int n = width < RUN ? width : RUN;
                        for (int x = 0; x < n; x++)
                                run[x] = c;
                        colour = c;
                        have = true;
                }
                uint8_t *row = pixels + (size_t)y * stride;
                for (int x = 0; x < width; x += RUN) {
                        int n = width - x < RUN ? width - x : RUN;
                        memcpy(row + (size_t)x * 4, run, (size_t)n * 4);
                }
        }
        fill_firmware_logo(t, pixels, stride, width, height);
}
