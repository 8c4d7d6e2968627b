/* Room output/ (output.h is its main header): where frames go (kms,
 * fbdev, png, text), the DRM device choice (drm_select), the keys and the
 * console (the VT the screens show on, console.h). It owns
 * devices and their buffers; it may call paint/ and read theme/ (a theme is
 * const here); it never decides which output to use (the session does),
 * never builds a scene (the renderer does) and never prints, except the
 * text output on its terminal and the kms output's timing lines that
 * DORMOUSE_DEBUG_TIMING asks for.
 *
 * output: one place a scene is shown. Implementations, one file each:
 * kms (libdrm), fbdev (/dev/fb0), png (files, headless), text (a tty or a log).
 *
 * Contract:
 * - Screens (kms, fbdev) show the theme's background (splash/paint/backdrop.h) as
 *   soon as they have a buffer, inside open(), before the painter loads
 *   fonts and images; the first render() replaces it with a complete frame.
 *   The kms output makes one exception: when the VT was in graphics mode
 *   before it came (a boot splash, Plymouth's, left its picture), it
 *   continues that picture instead (a copy in its own buffer, or the
 *   picture left as it is when it cannot be read: scanout.h), so the
 *   handover shows neither black nor a backdrop without the logo.
 * - open() does every allocation and file I/O the output will ever need
 *   (devices, buffers, theme and font through the painter); after the engine
 *   froze the system, render() does no allocation and no file I/O except on
 *   the output device itself (the png output is for tests and previews and is
 *   exempt).
 * - render() draws the scene and shows it; it may skip work that did not
 *   change since the last call (damage tracking) unless force_full is set,
 *   which the renderer sets after the kernel froze/thawed devices and after a
 *   resume (video memory is not part of the image).
 * - render() never blocks for long: a page flip still pending is not waited
 *   for; the frame is shown on the next call.
 * - render() returns -ENODEV, before touching the device's memory, once
 *   the device is gone (unplugged: the firmware's framebuffer or simpledrm
 *   removed when the GPU's own driver loads). The caller then stops using
 *   the output and closes it after set_retain(true): nothing is restored
 *   on a device that is not there.
 * - close() restores what open() found (saved CRTC, the text output's tty
 *   mode; the VT's display mode is the console's) unless
 *   dmo_output_set_retain() asked to leave the last frame on screen.
 */
#ifndef DMO_SPLASH_OUTPUT_H
#define DMO_SPLASH_OUTPUT_H

#include <stdbool.h>

#include "splash/scene.h"

struct dmo_output_ops;

struct dmo_theme;

/* Implementations embed this as their first member. */
struct dmo_output {
        const struct dmo_output_ops *ops;
};

struct dmo_console;

struct dmo_output_config {
        /* NULL for the text output. Its images may still be pending
         * (DMO_THEME_DEFER_IMAGES): a screen puts the backdrop up, then calls
         * dmo_output_complete_theme() before it makes its painter. Outputs
         * only read the theme. */
        const struct dmo_theme *theme;
        /* The theme's owner (the session) decodes the deferred images here,
         * for painters up to max_scale (dmo_painter_scale_for), once for all
         * outputs (a larger scale later adds the @2x images). NULL: the
         * theme is already complete. */
        void (*complete_theme)(void *ctx, double max_scale);
        void *complete_ctx;
        const char *arg; /* after the colon in --splash=kms:ARG */
        double scale;    /* HiDPI scale; 0: automatic */
        int tty_fd;      /* the text output's terminal, -1: stderr */
        /* The VT the screens show on (graphics mode, how long to wait for
         * DRM master after a VT switch); NULL: none. The session owns it. */
        struct dmo_console *console;
        /* After the first frame, have the painter prepare every string a
         * later frame may show (dmo_painter_prewarm): a hibernation may not
         * allocate after its snapshot. At resume nothing forbids it, and on
         * one CPU that work would delay the image's load. */
        bool prewarm;
};

struct dmo_output_ops {
        const char *name;
        bool is_screen;   /* shows frames on a display (kms, fbdev) */
        bool needs_theme; /* draws the theme: opened only with one */
        /* Writes files on mounted file systems while it draws (png): never
         * with a real hibernation, where that would happen while frozen. */
        bool writes_files;
        /* Optional: a translated sentence for an error open() returned,
         * saying what failed and what to do; NULL when strerror() says
         * enough. */
        const char *(*unavailable_reason)(int err);
        int (*open)(const struct dmo_output_config *cfg, struct dmo_output **out);
        int (*render)(struct dmo_output *o, const struct dmo_scene *scene, bool force_full);
        /* Optional: fd the renderer polls (DRM events); -1 if none. */
        int (*event_fd)(struct dmo_output *o);
        /* Optional: handle readable event_fd (page-flip completion). */
        int (*dispatch)(struct dmo_output *o);
        void (*set_retain)(struct dmo_output *o, bool retain);
        /* Optional, with the renderer stopped: wait for flips in flight and
         * put the last frame into every buffer the output owns, so the screen
         * shows it whichever buffer is scanned out after this process is gone
         * (a restored kernel re-showing its own buffer at the same place in
         * video memory). */
        void (*settle)(struct dmo_output *o);
        /* Optional, with the renderer stopped, just before a snapshot: zero
         * the frame the output keeps in its own memory for the painter to
         * draw into (a shadow of the screen, the png output's surface), so
         * that it costs nothing in the image (all-zero pages are left out
         * of it). The screen keeps showing the frame. The next render()
         * draws the whole frame again, whatever force_full says; settle()
         * is not to be called before it. No allocation, no I/O. */
        void (*forget_frame)(struct dmo_output *o);
        void (*close)(struct dmo_output *o);
};

extern const struct dmo_output_ops dmo_output_kms;
extern const struct dmo_output_ops dmo_output_fbdev;
extern const struct dmo_output_ops dmo_output_png;
extern const struct dmo_output_ops dmo_output_text;

/* Asks the theme's owner to finish a deferred load (see the config). */
static inline void dmo_output_complete_theme(const struct dmo_output_config *cfg, double max_scale)
{
        if (cfg->complete_theme)
                cfg->complete_theme(cfg->complete_ctx, max_scale);
}

/* "kms", "fbdev", "png", "text" → ops, or NULL. */
const struct dmo_output_ops *dmo_output_find(const char *name);

/* ops->unavailable_reason(err), then the reasons common to all outputs;
 * NULL when strerror() says enough. */
const char *dmo_output_strerror(const struct dmo_output_ops *ops, int err);

#endif
