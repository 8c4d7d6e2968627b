/* The KMS output (libdrm, legacy API): the lifecycle of drm-howto's
 * modeset-vsync. Find the card (waiting for a late one), become master, pick
 * heads with drm_select, two dumb buffers per head, a shadow buffer in RAM
 * the painter draws into, damaged rectangles copied to the back buffer,
 * page flips completed from the renderer's poll loop; SetCrtc and DirtyFB
 * when flips do not work; the saved CRTCs restored at close. */
#include "splash/output/output.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <drm_fourcc.h>

#include "splash/output/console.h"
#include "splash/paint/backdrop.h"
#include "splash/output/drm_select.h"
#include "splash/output/scanout.h"
#include "splash/paint/painter.h"
#include "splash/theme/theme.h"
#include "util/cleanup.h"
#include "util/i18n.h"
#include "util/timing.h"

enum {
        MAX_HEADS = 4,
        MAX_DAMAGE = 16,
        MAX_CARDS = 16,
        CARD_POLL_MS = 100,
        MASTER_POLL_MS = 20,
        CLOSE_WAIT_MS = 1000,
};

#ifndef DRM_IOCTL_MODE_CLOSEFB
/* Linux 6.8: remove an FB handle without turning off the CRTC showing it. */
struct drm_mode_closefb {
        __u32 fb_id;
        __u32 pad;
};
#define DRM_IOCTL_MODE_CLOSEFB DRM_IOWR(0xD0, struct drm_mode_closefb)
#endif

struct kms_buffer {
        uint32_t handle;
        uint32_t fb_id;
        uint32_t pitch;
        uint64_t size;
        uint8_t *map;
        bool valid; /* holds a complete frame (else the next copy is full) */
};

struct kms_head {
        struct kms_output *out;
        uint32_t crtc_id;
        uint32_t connector_id;
        drmModeModeInfo mode;
        bool keep_current;
        drmModeCrtc *saved;
        int width, height;
        int phys_width_mm; /* the panel's, 0 if unknown: for the painter's scale */
        struct kms_buffer buf[2];
        int front;  /* the buffer on screen, -1 before the first frame */
        int queued; /* the buffer a pending flip will show */
        bool flip_pending;
        bool in_place; /* flips failed: draw into the front buffer + DirtyFB */
        bool need_dirty;
        uint8_t *shadow;
        int shadow_stride;
        struct dmo_painter *painter;
        struct dmo_rect damage[MAX_DAMAGE]; /* painted, not yet shown */
        unsigned n_damage;
        struct dmo_rect prev[MAX_DAMAGE]; /* shown by the last flip: the other buffer lacks it */
        unsigned n_prev;
};

struct kms_output {
        struct dmo_output base;
        int fd;
        bool retain;
        bool prewarm;
        /* DORMOUSE_DEBUG_TIMING: report when the first frame went to the
         * screen, counted from the process's start (for the VM benchmark). */
        bool report_first_frame, report_complete_frame;
        double started_s; /* process start, CLOCK_BOOTTIME seconds */
        size_t n_heads;
        struct kms_head heads[MAX_HEADS];
};

struct kms_args {
        const char *device;
        size_t device_len;
        int timeout_ms;
};

/* DORMOUSE_DEBUG_TIMING: when the first frame (the theme's background) and
 * the first complete frame went to the screen. */
static void report_frame(struct kms_output *k, bool *pending, const char *what, const char *how)
{
        struct timespec now;
        if (!*pending || clock_gettime(CLOCK_BOOTTIME, &now) != 0)
                return;
        *pending = false;
        double t = (double)now.tv_sec + (double)now.tv_nsec / 1e9 - k->started_s;
        fprintf(stderr, "dormouse: timing: %s %s %.0f ms after the process started\n", what, how,
                t * 1000.0);
}

static int parse_args(const char *arg, struct kms_args *a, char *dev, size_t dev_len)
{
        a->device = NULL;
        a->timeout_ms = 0;
        dev[0] = '\0';
        while (arg && *arg) {
                size_t n = strcspn(arg, ",");
                if (n > 8 && strncmp(arg, "timeout=", 8) == 0) {
                        char *end;
                        long v = strtol(arg + 8, &end, 10);
                        if (end != arg + n || v < 0 || v > 600000)
                                return -EINVAL;
                        a->timeout_ms = (int)v;
                } else if ((n > 7 && strncmp(arg, "device=", 7) == 0) || arg[0] == '/') {
                        const char *p = arg[0] == '/' ? arg : arg + 7;
                        size_t len = n - (size_t)(p - arg);
                        if (len >= dev_len)
                                return -ENAMETOOLONG;
                        memcpy(dev, p, len);
                        dev[len] = '\0';
                        a->device = dev;
                } else if (n > 0) {
                        return -EINVAL;
                }
                arg += n + (arg[n] == ',');
        }
        return 0;
}

static uint64_t now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A card we can drive: it opens and has KMS resources, which *res keeps
 * for read_card (asked once, not twice). */
static int try_card(const char *path, drmModeRes **res)
{
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        *res = drmModeGetResources(fd);
        if (!*res || (*res)->count_crtcs == 0 || (*res)->count_connectors == 0) {
                drmModeFreeResources(*res);
                *res = NULL;
                close(fd);
                return -ENODEV;
        }
        return fd;
}

/* The primary nodes by name, /dev/dri/card0 upwards, gaps allowed (card0
 * gone once simpledrm gave way to the GPU's driver, which is card1). This
 * is what drmGetDevices2 would find, without its walk through sysfs for
 * every node's bus and PCI identity, which nothing here uses and which
 * costs the first frame milliseconds. */
static int find_card_once(const char *device, drmModeRes **res)
{
        if (device)
                return try_card(device, res);
        for (int i = 0; i < MAX_CARDS; i++) {
                char path[sizeof(DRM_DIR_NAME) + 16];
                snprintf(path, sizeof(path), DRM_DEV_NAME, DRM_DIR_NAME, i);
                int fd = try_card(path, res);
                if (fd >= 0)
                        return fd;
        }
        return -ENODEV;
}

/* The GPU driver may still be loading (initramfs): poll until the timeout,
 * then say -ENODEV so the caller falls back to fbdev or text. */
static int find_card(const struct kms_args *a, drmModeRes **res)
{
        uint64_t deadline = now_ms() + (uint64_t)a->timeout_ms;
        for (;;) {
                int fd = find_card_once(a->device, res);
                if (fd >= 0)
                        return fd;
                if (fd != -ENOENT && fd != -ENODEV && fd != -ENXIO)
                        return fd; /* EACCES and the like will not go away by waiting */
                uint64_t now = now_ms();
                if (now >= deadline)
                        return -ENODEV;
                uint64_t wait = deadline - now < CARD_POLL_MS ? deadline - now : CARD_POLL_MS;
                struct timespec ts = {0, (long)wait * 1000000L};
                nanosleep(&ts, NULL);
        }
}

static void to_plain_mode(const drmModeModeInfo *in, struct dmo_drm_mode *out)
{
        out->width = in->hdisplay;
        out->height = in->vdisplay;
        out->refresh_mhz = in->vrefresh * 1000u;
        out->preferred = (in->type & DRM_MODE_TYPE_PREFERRED) != 0;
}

static bool is_non_desktop(int fd, uint32_t connector_id)
{
        drmModeObjectProperties *props =
            drmModeObjectGetProperties(fd, connector_id, DRM_MODE_OBJECT_CONNECTOR);
        bool nd = false;
        for (uint32_t i = 0; props && i < props->count_props; i++) {
                drmModePropertyRes *p = drmModeGetProperty(fd, props->props[i]);
                if (p && strcmp(p->name, "non-desktop") == 0)
                        nd = props->prop_values[i] != 0;
                drmModeFreeProperty(p);
        }
        drmModeFreeObjectProperties(props);
        return nd;
}

/* Everything drm_select needs, read from the card; the libdrm objects stay
 * alive until the heads took what they need. */
struct card_state {
        drmModeRes *res;
        drmModeConnector *conn[32];
        drmModeCrtc *crtc[32];
        struct dmo_drm_connector connectors[32];
        struct dmo_drm_encoder encoders[32];
        struct dmo_drm_crtc crtcs[32];
        struct dmo_drm_mode *modes[32];
        struct dmo_drm_resources plain;
};

static void card_state_free(struct card_state *cs)
{
        for (size_t i = 0; i < 32; i++) {
                drmModeFreeConnector(cs->conn[i]);
                drmModeFreeCrtc(cs->crtc[i]);
                free(cs->modes[i]);
        }
        drmModeFreeResources(cs->res);
}

/* cs->res is the card's resources, from find_card. */
static int read_card(int fd, struct card_state *cs)
{
        size_t nconn = (size_t)cs->res->count_connectors;
        size_t nenc = (size_t)cs->res->count_encoders;
        size_t ncrtc = (size_t)cs->res->count_crtcs;
        if (nconn > 32 || nenc > 32 || ncrtc > 32)
                return -E2BIG;
        for (size_t i = 0; i < ncrtc; i++) {
                cs->crtc[i] = drmModeGetCrtc(fd, cs->res->crtcs[i]);
                cs->crtcs[i].id = cs->res->crtcs[i];
                if (cs->crtc[i] && cs->crtc[i]->mode_valid && cs->crtc[i]->buffer_id) {
                        cs->crtcs[i].mode_valid = true;
                        to_plain_mode(&cs->crtc[i]->mode, &cs->crtcs[i].mode);
                }
        }
        for (size_t i = 0; i < nenc; i++) {
                drmModeEncoder *e = drmModeGetEncoder(fd, cs->res->encoders[i]);
                cs->encoders[i].id = cs->res->encoders[i];
                if (e) {
                        cs->encoders[i].crtc_id = e->crtc_id;
                        cs->encoders[i].possible_crtcs = e->possible_crtcs;
                        drmModeFreeEncoder(e);
                }
        }
        for (size_t i = 0; i < nconn; i++) {
                drmModeConnector *c = drmModeGetConnector(fd, cs->res->connectors[i]);
                struct dmo_drm_connector *p = &cs->connectors[i];
                cs->conn[i] = c;
                p->id = cs->res->connectors[i];
                if (!c)
                        continue;
                p->connected = c->connection == DRM_MODE_CONNECTED;
                p->non_desktop = p->connected && is_non_desktop(fd, c->connector_id);
                p->encoder_id = c->encoder_id;
                for (int e = 0; e < c->count_encoders && e < DMO_DRM_MAX_ENCODERS_PER_CONNECTOR;
                     e++)
                        p->encoders[p->n_encoders++] = c->encoders[e];
                p->mm_width = c->mmWidth;
                p->mm_height = c->mmHeight;
                if (c->count_modes > 0) {
                        cs->modes[i] = calloc((size_t)c->count_modes, sizeof(*cs->modes[i]));
                        if (!cs->modes[i])
                                return -ENOMEM;
                        for (int m = 0; m < c->count_modes; m++)
                                to_plain_mode(&c->modes[m], &cs->modes[i][m]);
                        p->modes = cs->modes[i];
                        p->n_modes = (size_t)c->count_modes;
                }
        }
        cs->plain = (struct dmo_drm_resources){
            .connectors = cs->connectors,
            .n_connectors = nconn,
            .encoders = cs->encoders,
            .n_encoders = nenc,
            .crtcs = cs->crtcs,
            .n_crtcs = ncrtc,
        };
        return 0;
}

static int buffer_create(int fd, struct kms_buffer *b, int width, int height)
{
        struct drm_mode_create_dumb create = {
            .width = (uint32_t)width, .height = (uint32_t)height, .bpp = 32};
        if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create) < 0)
                return -errno;
        b->handle = create.handle;
        b->pitch = create.pitch;
        b->size = create.size;
        uint32_t handles[4] = {b->handle}, pitches[4] = {b->pitch}, offsets[4] = {0};
        if (drmModeAddFB2(fd, (uint32_t)width, (uint32_t)height, DRM_FORMAT_XRGB8888, handles,
                          pitches, offsets, &b->fb_id, 0) != 0 &&
            drmModeAddFB(fd, (uint32_t)width, (uint32_t)height, 24, 32, b->pitch, b->handle,
                         &b->fb_id) != 0)
                return -errno;
        struct drm_mode_map_dumb map = {.handle = b->handle};
        if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map) < 0)
                return -errno;
        void *p = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)map.offset);
        if (p == MAP_FAILED)
                return -errno;
        /* Not cleared: a buffer is shown only after a whole frame went in
         * (the backdrop, or a full copy while it is not valid). */
        b->map = p;
        return 0;
}

static void buffer_destroy(int fd, struct kms_buffer *b, bool keep_on_screen)
{
        if (b->map)
                munmap(b->map, b->size);
        if (b->fb_id) {
                struct drm_mode_closefb cf = {.fb_id = b->fb_id};
                /* CLOSEFB leaves the frame up; on older kernels the frame
                 * stays until our fd closes. */
                if (!keep_on_screen || drmIoctl(fd, DRM_IOCTL_MODE_CLOSEFB, &cf) < 0)
                        if (!keep_on_screen)
                                drmModeRmFB(fd, b->fb_id);
        }
        if (b->handle) {
                struct drm_mode_destroy_dumb d = {.handle = b->handle};
                drmIoctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &d);
        }
        memset(b, 0, sizeof(*b));
}

static int first_frame(struct kms_head *h, int idx, const char **how);

/* The CRTC's framebuffer (someone else's) into b: 0, or a negative errno
 * when it cannot be read as it is shown (scanout.h). */
static int copy_scanout(struct kms_output *k, struct kms_head *h, struct kms_buffer *b)
{
        drmModeFB2 *fb = drmModeGetFB2(k->fd, h->saved->buffer_id);
        if (!fb)
                return -errno ? -errno : -ENOENT;
        struct dmo_scanout so = {
            .width = fb->width,
            .height = fb->height,
            .format = fb->pixel_format,
            .has_modifier = (fb->flags & DRM_MODE_FB_MODIFIERS) != 0,
            .modifier = fb->modifier,
            .pitch = fb->pitches[0],
            .offset = fb->offsets[0],
            .x = h->saved->x,
            .y = h->saved->y,
        };
        /* GETFB2 made a handle for every plane's buffer: all are closed. */
        uint32_t handles[4];
        for (int i = 0; i < 4; i++) {
                handles[i] = fb->handles[i];
                so.n_planes += handles[i] != 0;
        }
        uint32_t handle = handles[0];
        drmModeFreeFB2(fb);
        /* No handle: not ours to read (neither master nor CAP_SYS_ADMIN). */
        int err = handle ? dmo_scanout_check(&so, h->width, h->height) : -EACCES;
        struct drm_mode_map_dumb map = {.handle = handle};
        void *p = MAP_FAILED;
        size_t span = (size_t)dmo_scanout_span(&so, h->height);
        if (err == 0 && drmIoctl(k->fd, DRM_IOCTL_MODE_MAP_DUMB, &map) < 0)
                err = -errno;
        if (err == 0) {
                p = mmap(NULL, span, PROT_READ, MAP_SHARED, k->fd, (off_t)map.offset);
                if (p == MAP_FAILED)
                        err = -errno;
        }
        if (err == 0) {
                dmo_scanout_copy(&so, p, b->map, b->pitch, h->width, h->height);
                munmap(p, span);
        }
        for (int i = 0; i < 4; i++) {
                bool seen = false;
                for (int j = 0; j < i; j++)
                        seen = seen || handles[j] == handles[i];
                struct drm_gem_close gc = {.handle = handles[i]};
                if (handles[i] && !seen)
                        drmIoctl(k->fd, DRM_IOCTL_GEM_CLOSE, &gc);
        }
        return err;
}

/* The head's first picture. On a VT that another program left in graphics
 * mode (Plymouth's boot splash after `plymouth deactivate`), in the mode it
 * shows, its picture is continued: copied into buffer 0 and flipped to, or,
 * if it cannot be read, left on screen untouched until the first complete
 * frame. Otherwise (the console's text) the theme's backdrop goes up now. */
static int start_picture(struct kms_head *h, const struct dmo_output_config *cfg)
{
        struct kms_output *k = h->out;
        struct kms_buffer *b = &h->buf[0];
        const char *how;
        bool take_over = dmo_console_found_graphics(cfg->console) && h->keep_current &&
                         h->saved->buffer_id && h->saved->mode_valid;
        if (take_over && copy_scanout(k, h, b) < 0) {
                report_frame(k, &k->report_first_frame, "first frame", "left as it was");
                return 0;
        }
        if (!take_over)
                dmo_backdrop_fill(cfg->theme, b->map, b->pitch, h->width, h->height);
        int err = first_frame(h, 0, &how);
        if (err < 0)
                return err;
        report_frame(k, &k->report_first_frame,
                     take_over ? "first frame (continued)" : "first frame", how);
        return 0;
}

static int head_open(struct kms_output *k, struct kms_head *h, const struct card_state *cs,
                     const struct dmo_drm_head *sel, const struct dmo_output_config *cfg)
{
        const drmModeConnector *c = cs->conn[sel->connector];
        h->out = k;
        h->front = -1;
        h->crtc_id = cs->crtcs[sel->crtc].id;
        h->connector_id = c->connector_id;
        h->keep_current = sel->keep_current;
        h->mode = sel->keep_current ? cs->crtc[sel->crtc]->mode : c->modes[sel->mode_index];
        h->width = h->mode.hdisplay;
        h->height = h->mode.vdisplay;
        h->saved = drmModeGetCrtc(k->fd, h->crtc_id);
        if (!h->saved)
                return -errno ? -errno : -ENODEV;
        /* A first picture goes up now, not after the fonts and images are
         * ready: the console gives way to the backdrop, a boot splash stays. */
        int err = buffer_create(k->fd, &h->buf[0], h->width, h->height);
        if (err < 0)
                return err;
        err = start_picture(h, cfg);
        if (err < 0)
                return err;
        err = buffer_create(k->fd, &h->buf[1], h->width, h->height);
        if (err < 0)
                return err;
        h->shadow_stride = h->width * 4;
        h->shadow = calloc((size_t)h->height, (size_t)h->shadow_stride);
        if (!h->shadow)
                return -ENOMEM;
        h->phys_width_mm = (int)c->mmWidth;
        return 0;
}

static void head_close(struct kms_output *k, struct kms_head *h)
{
        if (!k->retain && h->saved && h->front >= 0) {
                if (h->saved->buffer_id && h->saved->mode_valid)
                        drmModeSetCrtc(k->fd, h->saved->crtc_id, h->saved->buffer_id, h->saved->x,
                                       h->saved->y, &h->connector_id, 1, &h->saved->mode);
                else
                        drmModeSetCrtc(k->fd, h->crtc_id, 0, 0, 0, NULL, 0, NULL);
        }
        for (int i = 0; i < 2; i++)
                buffer_destroy(k->fd, &h->buf[i], k->retain && i == h->front);
        if (h->painter)
                dmo_painter_free(h->painter);
        free(h->shadow);
        drmModeFreeCrtc(h->saved);
}

/* Someone else (a compositor) holds the display: -EBUSY; not allowed (not
 * root, not on the active VT): -EACCES. Right after the console switched
 * VTs the compositor is still letting go (logind pauses its devices), so
 * for wait_ms the refusal is tried again. */
static int become_master(int fd, int wait_ms)
{
        uint64_t deadline = now_ms() + (uint64_t)wait_ms;
        for (;;) {
                if (drmSetMaster(fd) == 0 || drmIsMaster(fd))
                        return 0;
                int err = errno == EPERM ? -EACCES : errno ? -errno : -EBUSY;
                if (now_ms() >= deadline)
                        return err;
                struct timespec ts = {0, MASTER_POLL_MS * 1000000L};
                nanosleep(&ts, NULL);
        }
}

static void kms_close(struct dmo_output *o);

static void free_resourcesp(drmModeRes **res)
{
        drmModeFreeResources(*res);
}

static int kms_open(const struct dmo_output_config *cfg, struct dmo_output **out)
{
        struct kms_args args;
        char dev[256];
        int err = parse_args(cfg->arg, &args, dev, sizeof(dev));
        if (err < 0)
                return err;
        struct kms_output *k = calloc(1, sizeof(*k));
        if (!k)
                return -ENOMEM;
        k->base.ops = &dmo_output_kms;
        k->prewarm = cfg->prewarm;
        if (getenv("DORMOUSE_DEBUG_TIMING"))
                k->report_first_frame = k->report_complete_frame =
                    dmo_timing_process_start_s(&k->started_s) == 0;
        __attribute__((cleanup(free_resourcesp))) drmModeRes *res = NULL;
        k->fd = find_card(&args, &res);
        if (k->fd < 0) {
                err = k->fd;
                free(k);
                return err;
        }
        err = become_master(k->fd, dmo_console_master_wait_ms(cfg->console));
        if (err < 0) {
                close(k->fd);
                free(k);
                return err;
        }
        /* No console text or cursor over the splash; the console puts the
         * mode back. */
        dmo_console_set_graphics(cfg->console);
        if (!cfg->theme) {
                kms_close(&k->base);
                return -EINVAL;
        }
        uint64_t dumb = 0;
        if (drmGetCap(k->fd, DRM_CAP_DUMB_BUFFER, &dumb) < 0 || !dumb) {
                kms_close(&k->base);
                return -EOPNOTSUPP;
        }
        struct card_state *cs = calloc(1, sizeof(*cs));
        if (!cs) {
                kms_close(&k->base);
                return -ENOMEM;
        }
        struct dmo_drm_head sel[MAX_HEADS];
        cs->res = dmo_steal_ptr(res);
        err = read_card(k->fd, cs);
        int n = err < 0 ? err : dmo_drm_select(&cs->plain, sel, MAX_HEADS);
        for (int i = 0; i < n; i++) {
                err = head_open(k, &k->heads[i], cs, &sel[i], cfg);
                k->n_heads = (size_t)i + 1;
                if (err < 0)
                        break;
        }
        if (n < 0)
                err = n;
        card_state_free(cs);
        free(cs);
        /* Every head shows the backdrop: now the pictures, fonts and the rest. */
        double max_scale = 0;
        for (size_t i = 0; err == 0 && i < k->n_heads; i++) {
                const struct kms_head *h = &k->heads[i];
                double s = dmo_painter_scale_for(h->width, h->height, cfg->scale, h->phys_width_mm);
                max_scale = s > max_scale ? s : max_scale;
        }
        if (err == 0)
                dmo_output_complete_theme(cfg, max_scale);
        for (size_t i = 0; err == 0 && i < k->n_heads; i++) {
                struct kms_head *h = &k->heads[i];
                err = dmo_painter_new(cfg->theme, h->width, h->height, cfg->scale, h->phys_width_mm,
                                      &h->painter);
        }
        if (err < 0) {
                kms_close(&k->base);
                return err;
        }
        *out = &k->base;
        return 0;
}

static void add_damage(struct dmo_rect *list, unsigned *n, const struct dmo_rect *r)
{
        if (r->w <= 0 || r->h <= 0)
                return;
        if (*n < MAX_DAMAGE) {
                list[(*n)++] = *r;
                return;
        }
        /* Full: merge everything into the last slot's bounding box. */
        struct dmo_rect *b = &list[MAX_DAMAGE - 1];
        int x0 = b->x < r->x ? b->x : r->x, y0 = b->y < r->y ? b->y : r->y;
        int x1 = b->x + b->w > r->x + r->w ? b->x + b->w : r->x + r->w;
        int y1 = b->y + b->h > r->y + r->h ? b->y + b->h : r->y + r->h;
        *b = (struct dmo_rect){x0, y0, x1 - x0, y1 - y0};
}

static void copy_rect(const struct kms_head *h, struct kms_buffer *b, const struct dmo_rect *r)
{
        int x0 = r->x < 0 ? 0 : r->x, y0 = r->y < 0 ? 0 : r->y;
        int x1 = r->x + r->w > h->width ? h->width : r->x + r->w;
        int y1 = r->y + r->h > h->height ? h->height : r->y + r->h;
        if (x1 <= x0 || y1 <= y0)
                return;
        size_t bytes = (size_t)(x1 - x0) * 4;
        for (int y = y0; y < y1; y++)
                memcpy(b->map + (size_t)y * b->pitch + (size_t)x0 * 4,
                       h->shadow + (size_t)y * (size_t)h->shadow_stride + (size_t)x0 * 4, bytes);
}

static void copy_damage(struct kms_head *h, struct kms_buffer *b, bool with_prev)
{
        if (!b->valid) {
                struct dmo_rect all = {0, 0, h->width, h->height};
                copy_rect(h, b, &all);
                b->valid = true;
                return;
        }
        for (unsigned i = 0; i < h->n_damage; i++)
                copy_rect(h, b, &h->damage[i]);
        for (unsigned i = 0; with_prev && i < h->n_prev; i++)
                copy_rect(h, b, &h->prev[i]);
}

static void mark_dirty(struct kms_head *h, const struct kms_buffer *b)
{
        drmModeClip clips[MAX_DAMAGE];
        unsigned n = 0;
        for (unsigned i = 0; i < h->n_damage; i++) {
                const struct dmo_rect *r = &h->damage[i];
                clips[n++] = (drmModeClip){(uint16_t)r->x, (uint16_t)r->y, (uint16_t)(r->x + r->w),
                                           (uint16_t)(r->y + r->h)};
        }
        /* Drivers without a dirty hook say ENOSYS: they scan out memory directly. */
        drmModeDirtyFB(h->out->fd, b->fb_id, n ? clips : NULL, n);
        h->need_dirty = false;
}

/* Puts buffer idx on screen for the first time; *how says whether a flip
 * (same mode kept, no flicker) or a modeset did it. */
static int first_frame(struct kms_head *h, int idx, const char **how)
{
        struct kms_output *k = h->out;
        struct kms_buffer *b = &h->buf[idx];
        /* Same mode already up: a flip replaces the picture without a modeset. */
        if (h->keep_current && h->saved->buffer_id &&
            drmModePageFlip(k->fd, h->crtc_id, b->fb_id, DRM_MODE_PAGE_FLIP_EVENT, h) == 0) {
                h->flip_pending = true;
                h->queued = idx;
                h->front =
                    1 - idx; /* nothing of ours on screen yet, but the other buffer is free */
                *how = "flipped";
                return 0;
        }
        if (drmModeSetCrtc(k->fd, h->crtc_id, b->fb_id, 0, 0, &h->connector_id, 1, &h->mode) != 0)
                return -errno;
        h->front = idx;
        *how = "set";
        return 0;
}

static int kms_dispatch(struct dmo_output *o);

/* A flip completed since the last look: take its event now rather than a
 * frame later (the backdrop's flip is usually done by the first render). */
static void take_flip_events(struct kms_output *k)
{
        struct pollfd p = {.fd = k->fd, .events = POLLIN};
        if (poll(&p, 1, 0) > 0)
                kms_dispatch(&k->base);
}

static int present(struct kms_head *h)
{
        struct kms_output *k = h->out;
        if (h->flip_pending)
                take_flip_events(k);
        if (h->flip_pending)
                return 0; /* the damage waits for the next call */
        if (h->n_damage == 0 && !h->need_dirty)
                return 0;
        if (h->in_place) {
                struct kms_buffer *b = &h->buf[h->front];
                copy_damage(h, b, false);
                mark_dirty(h, b);
                h->n_damage = 0;
                return 0;
        }
        int back = h->front < 0 ? 0 : 1 - h->front;
        struct kms_buffer *b = &h->buf[back];
        copy_damage(h, b, true);
        int err = 0;
        const char *how = "flipped";
        if (h->front < 0) {
                err = first_frame(h, back, &how);
        } else if (drmModePageFlip(k->fd, h->crtc_id, b->fb_id, DRM_MODE_PAGE_FLIP_EVENT, h) == 0) {
                h->flip_pending = true;
                h->queued = back;
        } else if (errno == EBUSY) {
                return 0; /* a flip of someone else's: try again next frame */
        } else {
                /* No flips here (some virtual devices): show this buffer and
                 * draw into it in place from now on. */
                h->in_place = true;
                if (drmModeSetCrtc(k->fd, h->crtc_id, b->fb_id, 0, 0, &h->connector_id, 1,
                                   &h->mode) != 0)
                        return -errno;
                h->front = back;
                how = "set";
        }
        if (err < 0)
                return err;
        report_frame(k, &k->report_complete_frame, "first complete frame", how);
        if (h->need_dirty || h->in_place)
                mark_dirty(h, b);
        memcpy(h->prev, h->damage, sizeof(h->prev));
        h->n_prev = h->n_damage;
        h->n_damage = 0;
        return 0;
}

/* Unplugged (simpledrm removed when the GPU's own driver loads): every
 * ioctl on the device answers ENODEV, and a flip that was pending never
 * completes. */
static bool device_gone(const struct kms_output *k)
{
        uint64_t v;
        return drmGetCap(k->fd, DRM_CAP_DUMB_BUFFER, &v) < 0 && errno == ENODEV;
}

static int kms_render(struct dmo_output *o, const struct dmo_scene *scene, bool force_full)
{
        struct kms_output *k = (struct kms_output *)o;
        int ret = 0;
        if (device_gone(k))
                return -ENODEV;
        for (size_t i = 0; i < k->n_heads; i++) {
                struct kms_head *h = &k->heads[i];
                struct dmo_rect rects[MAX_DAMAGE];
                unsigned n = 0;
                int err = dmo_painter_paint(h->painter, h->shadow, h->shadow_stride, scene,
                                            force_full, rects, MAX_DAMAGE, &n);
                if (err < 0) {
                        ret = err;
                        continue;
                }
                if (force_full) {
                        /* Video memory may have been lost (freeze/thaw, resume):
                         * both buffers are redrawn from the shadow. */
                        h->buf[0].valid = h->buf[1].valid = false;
                        h->need_dirty = true;
                }
                for (unsigned j = 0; j < n; j++)
                        add_damage(h->damage, &h->n_damage, &rects[j]);
                err = present(h);
                if (err < 0)
                        ret = err;
        }
        /* The first frame is on its way: finish preparing for later ones. */
        if (k->prewarm)
                for (size_t i = 0; i < k->n_heads; i++)
                        dmo_painter_prewarm(k->heads[i].painter);
        return ret;
}

static int kms_event_fd(struct dmo_output *o)
{
        return ((struct kms_output *)o)->fd;
}

static void flip_done(int fd, unsigned seq, unsigned sec, unsigned usec, void *data)
{
        struct kms_head *h = data;
        h->flip_pending = false;
        h->front = h->queued;
}

static int kms_dispatch(struct dmo_output *o)
{
        struct kms_output *k = (struct kms_output *)o;
        drmEventContext ev = {.version = 2, .page_flip_handler = flip_done};
        return drmHandleEvent(k->fd, &ev) == 0 ? 0 : -EIO;
}

static void kms_set_retain(struct dmo_output *o, bool retain)
{
        ((struct kms_output *)o)->retain = retain;
}

static bool any_pending(const struct kms_output *k)
{
        for (size_t i = 0; i < k->n_heads; i++)
                if (k->heads[i].flip_pending)
                        return true;
        return false;
}

static void wait_for_flips(struct kms_output *k)
{
        uint64_t deadline = now_ms() + CLOSE_WAIT_MS;
        while (any_pending(k) && now_ms() < deadline) {
                struct pollfd p = {.fd = k->fd, .events = POLLIN};
                if (poll(&p, 1, 100) > 0)
                        kms_dispatch(&k->base);
        }
}

static void kms_settle(struct dmo_output *o)
{
        struct kms_output *k = (struct kms_output *)o;
        wait_for_flips(k);
        struct dmo_rect all = {0, 0, 0, 0};
        for (size_t i = 0; i < k->n_heads; i++) {
                struct kms_head *h = &k->heads[i];
                if (h->front < 0)
                        continue;
                all.w = h->width;
                all.h = h->height;
                for (int j = 0; j < 2; j++) {
                        copy_rect(h, &h->buf[j], &all);
                        h->buf[j].valid = true;
                }
                h->n_damage = 0;
                h->n_prev = 0;
                mark_dirty(h, &h->buf[h->front]);
        }
}

static void kms_forget_frame(struct dmo_output *o)
{
        struct kms_output *k = (struct kms_output *)o;
        for (size_t i = 0; i < k->n_heads; i++) {
                struct kms_head *h = &k->heads[i];
                if (h->shadow)
                        memset(h->shadow, 0, (size_t)h->height * (size_t)h->shadow_stride);
                /* Both buffers still hold what the screen shows; the next
                 * render paints the whole shadow again and copies it all. */
                dmo_painter_forget(h->painter);
                h->buf[0].valid = h->buf[1].valid = false;
        }
}

static void kms_close(struct dmo_output *o)
{
        struct kms_output *k = (struct kms_output *)o;
        if (!k)
                return;
        /* Tearing down a buffer a flip still points at is what the kernel
         * punishes with a blank screen: let the flips land first. */
        wait_for_flips(k);
        for (size_t i = 0; i < k->n_heads; i++)
                head_close(k, &k->heads[i]);
        drmDropMaster(k->fd);
        close(k->fd);
        free(k);
}

static const char *kms_unavailable_reason(int err)
{
        switch (err) {
        case -ENODEV:
                return _("No display device (/dev/dri/card*) appeared in time; "
                         "falling back to another splash output.");
        case -EBUSY:
                return _("Another program (a desktop session or display server) "
                         "controls the display; the splash cannot draw on it. Run from "
                         "a text console, or let the session hand over.");
        case -EACCES:
                return _("Not allowed to take over the display: run as root, from "
                         "the active virtual terminal.");
        case -EOPNOTSUPP:
                return _("The display driver has no dumb buffers; use --splash=fbdev "
                         "or --splash=text.");
        default:
                return NULL;
        }
}

const struct dmo_output_ops dmo_output_kms = {
    .name = "kms",
    .is_screen = true,
    .needs_theme = true,
    .unavailable_reason = kms_unavailable_reason,
    .open = kms_open,
    .render = kms_render,
    .event_fd = kms_event_fd,
    .dispatch = kms_dispatch,
    .set_retain = kms_set_retain,
    .settle = kms_settle,
    .forget_frame = kms_forget_frame,
    .close = kms_close,
};
