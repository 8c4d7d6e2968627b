/* The png output: frames as files, for previews and tests. It is exempt
 * from the no-I/O-after-freeze rule (output.h): it never runs during a real
 * hibernation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cairo.h>

#include "splash/output/output.h"
#include "splash/output/output_png.h"
#include "splash/paint/painter.h"
#include "splash/theme/theme.h"

struct png_output {
        struct dmo_output base;
        struct dmo_painter *painter;
        cairo_surface_t *surface;
        int w, h;
        unsigned frame;
        char dir[512];
};

int dmo_output_png_parse_arg(const char *arg, char *dir, size_t dirlen, int *w, int *h,
                             double *scale)
{
        *w = 1920;
        *h = 1080;
        if (!arg || !*arg)
                return -EINVAL;
        const char *colon = strrchr(arg, ':');
        size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
        if (n == 0 || n >= dirlen)
                return -EINVAL;
        memcpy(dir, arg, n);
        dir[n] = '\0';
        if (!colon)
                return 0;
        char *end;
        long lw = strtol(colon + 1, &end, 10);
        if (*end != 'x')
                return -EINVAL;
        long lh = strtol(end + 1, &end, 10);
        if (lw < 16 || lh < 16 || lw > 16384 || lh > 16384)
                return -EINVAL;
        if (*end == '@') {
                double s = strtod(end + 1, &end);
                if (!(s > 0 && s <= 8))
                        return -EINVAL;
                *scale = s;
        }
        if (*end)
                return -EINVAL;
        *w = (int)lw;
        *h = (int)lh;
        return 0;
}

static int png_open(const struct dmo_output_config *cfg, struct dmo_output **out)
{
        struct png_output *o;
        double scale = cfg->scale;
        int r;

        if (!cfg->theme)
                return -EINVAL;
        o = calloc(1, sizeof(*o));
        if (!o)
                return -ENOMEM;
        o->base.ops = &dmo_output_png;
        r = dmo_output_png_parse_arg(cfg->arg, o->dir, sizeof(o->dir), &o->w, &o->h, &scale);
        if (r < 0)
                goto fail;
        if (mkdir(o->dir, 0755) < 0 && errno != EEXIST) {
                r = -errno;
                goto fail;
        }
        o->surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, o->w, o->h);
        if (cairo_surface_status(o->surface)) {
                r = -ENOMEM;
                goto fail;
        }
        dmo_output_complete_theme(cfg);
        r = dmo_painter_new(cfg->theme, o->w, o->h, scale, 0, &o->painter);
        if (r < 0)
                goto fail;
        *out = &o->base;
        return 0;
fail:
        if (o->surface)
                cairo_surface_destroy(o->surface);
        free(o);
        return r;
}

static int png_render(struct dmo_output *base, const struct dmo_scene *scene, bool force_full)
{
        struct png_output *o = (struct png_output *)base;
        struct dmo_rect damage[8];
        unsigned nd = 0;
        char path[600];

        cairo_surface_flush(o->surface);
        int r = dmo_painter_paint(o->painter, cairo_image_surface_get_data(o->surface),
                                  cairo_image_surface_get_stride(o->surface), scene, force_full,
                                  damage, 8, &nd);
        if (r < 0)
                return r;
        cairo_surface_mark_dirty(o->surface);
        dmo_painter_prewarm(o->painter);
        if (nd == 0)
                return 0;
        snprintf(path, sizeof(path), "%s/frame-%05u.png", o->dir, o->frame++);
        if (cairo_surface_write_to_png(o->surface, path) != CAIRO_STATUS_SUCCESS)
                return -EIO;
        return 0;
}

static void png_set_retain(struct dmo_output *o, bool retain)
{
        (void)o;
        (void)retain;
}

static void png_close(struct dmo_output *base)
{
        struct png_output *o = (struct png_output *)base;
        if (!o)
                return;
        dmo_painter_free(o->painter);
        cairo_surface_destroy(o->surface);
        free(o);
}

const struct dmo_output_ops dmo_output_png = {
    .name = "png",
    .needs_theme = true,
    .open = png_open,
    .render = png_render,
    .event_fd = NULL,
    .dispatch = NULL,
    .set_retain = png_set_retain,
    .close = png_close,
};

const uint8_t *dmo_output_png_pixels(struct dmo_output *base, int *w, int *h, int *stride)
{
        struct png_output *o = (struct png_output *)base;
        *w = o->w;
        *h = o->h;
        *stride = cairo_image_surface_get_stride(o->surface);
        return cairo_image_surface_get_data(o->surface);
}

unsigned dmo_output_png_frames(struct dmo_output *base)
{
        return ((struct png_output *)base)->frame;
}
