/* The png output: frames as files, for previews and tests. It is exempt
 * from the no-I/O-after-freeze rule (output.h): it never runs during a real
 * hibernation (its ops say writes_files; the CLI refuses it with the real
 * kernel). Frames are created
 * through the directory's descriptor, never through a link: a frame name
 * that already exists is removed first (the name, not what it points to),
 * then created with O_EXCL | O_NOFOLLOW. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
        bool prewarm;
        int dir_fd;
        char dir[512];
};

static cairo_status_t write_fd(void *closure, const unsigned char *data, unsigned int len)
{
        int fd = *(int *)closure;
        while (len > 0) {
                ssize_t n = write(fd, data, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return CAIRO_STATUS_WRITE_ERROR;
                data += n;
                len -= (unsigned int)n;
        }
        return CAIRO_STATUS_SUCCESS;
}

/* A new frame file in the output directory, never through a symlink. */
static int write_frame(struct png_output *o)
{
        char name[32];
        snprintf(name, sizeof(name), "frame-%05u.png", o->frame++);
        if (unlinkat(o->dir_fd, name, 0) < 0 && errno != ENOENT)
                return -errno;
        int fd =
            openat(o->dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0)
                return -errno;
        cairo_status_t st = cairo_surface_write_to_png_stream(o->surface, write_fd, &fd);
        int r = close(fd) < 0 ? -errno : 0;
        return st != CAIRO_STATUS_SUCCESS ? -EIO : r;
}

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
        o->prewarm = cfg->prewarm;
        o->dir_fd = -1;
        r = dmo_output_png_parse_arg(cfg->arg, o->dir, sizeof(o->dir), &o->w, &o->h, &scale);
        if (r < 0)
                goto fail;
        if (mkdir(o->dir, 0755) < 0 && errno != EEXIST) {
                r = -errno;
                goto fail;
        }
        o->dir_fd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (o->dir_fd < 0) {
                r = -errno;
                goto fail;
        }
        o->surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, o->w, o->h);
        if (cairo_surface_status(o->surface)) {
                r = -ENOMEM;
                goto fail;
        }
        dmo_output_complete_theme(cfg, dmo_painter_scale_for(o->w, o->h, scale, 0));
        r = dmo_painter_new(cfg->theme, o->w, o->h, scale, 0, &o->painter);
        if (r < 0)
                goto fail;
        *out = &o->base;
        return 0;
fail:
        if (o->surface)
                cairo_surface_destroy(o->surface);
        if (o->dir_fd >= 0)
                close(o->dir_fd);
        free(o);
        return r;
}

static int png_render(struct dmo_output *base, const struct dmo_scene *scene, bool force_full)
{
        struct png_output *o = (struct png_output *)base;
        struct dmo_rect damage[8];
        unsigned nd = 0;
        cairo_surface_flush(o->surface);
        int r = dmo_painter_paint(o->painter, cairo_image_surface_get_data(o->surface),
                                  cairo_image_surface_get_stride(o->surface), scene, force_full,
                                  damage, 8, &nd);
        if (r < 0)
                return r;
        cairo_surface_mark_dirty(o->surface);
        if (o->prewarm)
                dmo_painter_prewarm(o->painter);
        if (nd == 0)
                return 0;
        return write_frame(o);
}

static void png_set_retain(struct dmo_output *o, bool retain)
{
        (void)o;
        (void)retain;
}

static void png_forget_frame(struct dmo_output *base)
{
        struct png_output *o = (struct png_output *)base;
        cairo_surface_flush(o->surface);
        memset(cairo_image_surface_get_data(o->surface), 0,
               (size_t)cairo_image_surface_get_stride(o->surface) * (size_t)o->h);
        cairo_surface_mark_dirty(o->surface);
        dmo_painter_forget(o->painter);
}

static void png_close(struct dmo_output *base)
{
        struct png_output *o = (struct png_output *)base;
        if (!o)
                return;
        dmo_painter_free(o->painter);
        cairo_surface_destroy(o->surface);
        if (o->dir_fd >= 0)
                close(o->dir_fd);
        free(o);
}

const struct dmo_output_ops dmo_output_png = {
    .name = "png",
    .needs_theme = true,
    .writes_files = true,
    .open = png_open,
    .render = png_render,
    .event_fd = NULL,
    .dispatch = NULL,
    .set_retain = png_set_retain,
    .forget_frame = png_forget_frame,
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

bool dmo_output_png_prewarmed(struct dmo_output *base)
{
        return dmo_painter_prewarmed(((struct png_output *)base)->painter);
}
