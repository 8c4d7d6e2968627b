/* The fbdev output: /dev/fb0 when there is no KMS (or KMS is taken). The
 * painter draws into a shadow buffer in RAM; damaged rectangles are copied
 * (32 bpp XRGB as is, other true-colour layouts such as RGB565 converted
 * pixel by pixel) into the mapped visible area. What was on screen at open is
 * put back at close unless the last frame is to stay. */
#include "splash/output/output.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "splash/output/console.h"
#include "splash/paint/backdrop.h"
#include "splash/paint/painter.h"
#include "util/i18n.h"
#include "splash/theme/theme.h"

enum {
        MAX_DAMAGE = 16,
        /* fb_var_screeninfo.width is "unknown" as 0 or all ones; no panel is 10 m wide. */
        MAX_PLAUSIBLE_MM = 10000,
};

struct fbdev_output {
        struct dmo_output base;
        int fd;
        bool retain;
        bool prewarm;
        uint8_t *map;
        size_t map_len;
        uint8_t *visible; /* first byte of the visible area in map */
        uint32_t line_length;
        int width, height, bytes_pp;
        bool direct_xrgb; /* 32 bpp with red 16, green 8, blue 0: rows are copied as is */
        struct fb_bitfield red, green, blue;
        uint8_t *saved; /* the visible area as found at open */
        uint8_t *shadow;
        int shadow_stride;
        struct dmo_painter *painter;
};

static const char *fb_path(const char *arg)
{
        if (!arg || !*arg)
                return "/dev/fb0";
        if (strncmp(arg, "device=", 7) == 0)
                return arg + 7;
        return arg;
}

static bool layout_supported(const struct fb_var_screeninfo *v, const struct fb_fix_screeninfo *f)
{
        if (f->type != FB_TYPE_PACKED_PIXELS)
                return false;
        if (f->visual != FB_VISUAL_TRUECOLOR && f->visual != FB_VISUAL_DIRECTCOLOR)
                return false;
        if (v->bits_per_pixel != 32 && v->bits_per_pixel != 16)
                return false;
        const struct fb_bitfield *c[3] = {&v->red, &v->green, &v->blue};
        for (int i = 0; i < 3; i++)
                if (c[i]->length == 0 || c[i]->length > 8 ||
                    c[i]->offset + c[i]->length > v->bits_per_pixel)
                        return false;
        return true;
}

static void fbdev_close(struct dmo_output *o);
static void copy_rect(struct fbdev_output *f, const struct dmo_rect *r);

static int fbdev_open(const struct dmo_output_config *cfg, struct dmo_output **out)
{
        struct fbdev_output *f = calloc(1, sizeof(*f));
        if (!f)
                return -ENOMEM;
        f->base.ops = &dmo_output_fbdev;
        f->prewarm = cfg->prewarm;
        f->fd = open(fb_path(cfg->arg), O_RDWR | O_CLOEXEC);
        if (f->fd < 0) {
                int err = errno == ENOENT || errno == ENXIO ? -ENODEV : -errno;
                free(f);
                return err;
        }
        struct fb_var_screeninfo v;
        struct fb_fix_screeninfo fx;
        int err = 0;
        bool drawn = false; /* the backdrop replaced the console's picture */
        if (ioctl(f->fd, FBIOGET_VSCREENINFO, &v) < 0 || ioctl(f->fd, FBIOGET_FSCREENINFO, &fx) < 0)
                err = -ENOTTY; /* not a framebuffer device */
        else if (!layout_supported(&v, &fx))
                err = -EOPNOTSUPP; /* palette or odd depths: use kms or text */
        else if (!cfg->theme)
                err = -EINVAL;
        if (err < 0)
                goto fail;
        f->width = (int)v.xres;
        f->height = (int)v.yres;
        f->bytes_pp = (int)v.bits_per_pixel / 8;
        f->line_length = fx.line_length;
        f->red = v.red;
        f->green = v.green;
        f->blue = v.blue;
        f->direct_xrgb = v.bits_per_pixel == 32 && v.red.offset == 16 && v.green.offset == 8 &&
                         v.blue.offset == 0 && v.red.length == 8 && v.green.length == 8 &&
                         v.blue.length == 8;
        size_t offset = (size_t)v.yoffset * fx.line_length + (size_t)v.xoffset * f->bytes_pp;
        size_t visible_len = (size_t)f->height * fx.line_length;
        f->map_len = fx.smem_len;
        if (f->width <= 0 || f->height <= 0 || offset + visible_len > f->map_len) {
                err = -EINVAL;
                goto fail;
        }
        void *p = mmap(NULL, f->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
        if (p == MAP_FAILED) {
                err = -errno;
                goto fail;
        }
        f->map = p;
        f->visible = f->map + offset;
        f->saved = malloc(visible_len);
        f->shadow_stride = f->width * 4;
        f->shadow = calloc((size_t)f->height, (size_t)f->shadow_stride);
        if (!f->saved || !f->shadow) {
                err = -ENOMEM;
                goto fail;
        }
        memcpy(f->saved, f->visible, visible_len);
        /* The theme's background goes up first, while fonts and images load. */
        /* The framebuffer console draws text and its cursor into the same
         * memory: in graphics mode the VT leaves the screen to us (the
         * console restores the mode; without a VT there is nothing to do). */
        dmo_console_set_graphics(cfg->console);
        dmo_backdrop_fill(cfg->theme, f->shadow, (size_t)f->shadow_stride, f->width, f->height);
        copy_rect(f, &(struct dmo_rect){0, 0, f->width, f->height});
        drawn = true;
        int mm = v.width > 0 && v.width < MAX_PLAUSIBLE_MM ? (int)v.width : 0;
        dmo_output_complete_theme(cfg, dmo_painter_scale_for(f->width, f->height, cfg->scale, mm));
        err = dmo_painter_new(cfg->theme, f->width, f->height, cfg->scale, mm, &f->painter);
        if (err < 0)
                goto fail; /* the close puts the console's picture back */
        *out = &f->base;
        return 0;
fail:
        if (!drawn) {
                free(f->saved);
                f->saved = NULL; /* nothing of ours was drawn: nothing to restore */
        }
        fbdev_close(&f->base);
        return err;
}

static uint32_t pack(const struct fbdev_output *f, uint32_t xrgb)
{
        uint32_t r = (xrgb >> 16) & 0xff, g = (xrgb >> 8) & 0xff, b = xrgb & 0xff;
        return ((r >> (8 - f->red.length)) << f->red.offset) |
               ((g >> (8 - f->green.length)) << f->green.offset) |
               ((b >> (8 - f->blue.length)) << f->blue.offset);
}

static void copy_rect(struct fbdev_output *f, const struct dmo_rect *r)
{
        int x0 = r->x < 0 ? 0 : r->x, y0 = r->y < 0 ? 0 : r->y;
        int x1 = r->x + r->w > f->width ? f->width : r->x + r->w;
        int y1 = r->y + r->h > f->height ? f->height : r->y + r->h;
        for (int y = y0; y < y1; y++) {
                const uint8_t *src = f->shadow + (size_t)y * (size_t)f->shadow_stride;
                uint8_t *dst = f->visible + (size_t)y * f->line_length;
                if (f->direct_xrgb) {
                        memcpy(dst + (size_t)x0 * 4, src + (size_t)x0 * 4, (size_t)(x1 - x0) * 4);
                        continue;
                }
                for (int x = x0; x < x1; x++) {
                        uint32_t px;
                        memcpy(&px, src + (size_t)x * 4, 4);
                        uint32_t v = pack(f, px);
                        if (f->bytes_pp == 4) {
                                memcpy(dst + (size_t)x * 4, &v, 4);
                        } else {
                                uint16_t v16 = (uint16_t)v;
                                memcpy(dst + (size_t)x * 2, &v16, 2);
                        }
                }
        }
}

static int fbdev_render(struct dmo_output *o, const struct dmo_scene *scene, bool force_full)
{
        struct fbdev_output *f = (struct fbdev_output *)o;
        /* The framebuffer is unregistered when a GPU driver takes the
         * hardware over (efifb, vesafb → the native driver's own): its
         * memory is that driver's now, so not one more pixel goes there.
         * The fbdev core answers ioctls on such an fd with ENODEV. */
        struct fb_var_screeninfo v;
        if (ioctl(f->fd, FBIOGET_VSCREENINFO, &v) < 0 && errno == ENODEV)
                return -ENODEV;
        struct dmo_rect rects[MAX_DAMAGE];
        unsigned n = 0;
        int err = dmo_painter_paint(f->painter, f->shadow, f->shadow_stride, scene, force_full,
                                    rects, MAX_DAMAGE, &n);
        if (err < 0)
                return err;
        for (unsigned i = 0; i < n; i++)
                copy_rect(f, &rects[i]);
        if (f->prewarm) /* the first frame is up: finish preparing */
                dmo_painter_prewarm(f->painter);
        return 0;
}

static void fbdev_forget_frame(struct dmo_output *o)
{
        struct fbdev_output *f = (struct fbdev_output *)o;
        memset(f->shadow, 0, (size_t)f->height * (size_t)f->shadow_stride);
        dmo_painter_forget(f->painter);
}

static void fbdev_set_retain(struct dmo_output *o, bool retain)
{
        ((struct fbdev_output *)o)->retain = retain;
}

static void fbdev_close(struct dmo_output *o)
{
        struct fbdev_output *f = (struct fbdev_output *)o;
        if (!f)
                return;
        if (f->saved && !f->retain)
                memcpy(f->visible, f->saved, (size_t)f->height * f->line_length);
        if (f->painter)
                dmo_painter_free(f->painter);
        if (f->map)
                munmap(f->map, f->map_len);
        if (f->fd >= 0)
                close(f->fd);
        free(f->saved);
        free(f->shadow);
        free(f);
}

static const char *fbdev_unavailable_reason(int err)
{
        switch (err) {
        case -ENODEV:
                return _("No framebuffer device (/dev/fb0); falling back to another "
                         "splash output.");
        case -EACCES:
                return _("Not allowed to open the framebuffer device: run as root.");
        case -EOPNOTSUPP:
                return _("The framebuffer uses a pixel format the splash does not "
                         "draw (only 16 and 32 bits per pixel true colour); use "
                         "--splash=kms or --splash=text.");
        case -ENOTTY:
                return _("The framebuffer device given is not a framebuffer.");
        default:
                return NULL;
        }
}

const struct dmo_output_ops dmo_output_fbdev = {
    .name = "fbdev",
    .is_screen = true,
    .needs_theme = true,
    .unavailable_reason = fbdev_unavailable_reason,
    .open = fbdev_open,
    .render = fbdev_render,
    .set_retain = fbdev_set_retain,
    .forget_frame = fbdev_forget_frame,
    .close = fbdev_close,
};
