/* renderer: the splash's own thread. It samples the progress model at a
 * frame rate, builds a scene and hands it to every output; it also reads
 * keys (abort, reboot toggle, dialogs) and output events (page flips), all in
 * one poll loop.
 *
 * Contract:
 * - Owns the thread, the scene, the dialog state and the tty key mode; it
 *   does not own the outputs (the caller opens and closes them) nor the key
 *   fds (they are restored, never closed).
 * - Never blocks the engine: the engine's calls (force_full, set_detail)
 *   take a short mutex and return; only dmo_renderer_stop() waits, for the
 *   final frame and the join.
 * - Calls outputs only from its thread; after dmo_renderer_start() and until
 *   dmo_renderer_stop() returns, nobody else may call them.
 * - No allocation after dmo_renderer_new().
 * - Drawing takes at most ~15% of one CPU: when frames are expensive (an
 *   emulated CPU), they come less often than the frame rate asks.
 */
#ifndef DMO_SPLASH_RENDERER_H
#define DMO_SPLASH_RENDERER_H

#include <stdbool.h>
#include <stddef.h>

#include "progress/progress.h"
#include "splash/output/output.h"
#include "splash/scene.h"

struct dmo_renderer_config {
        struct dmo_progress *progress;
        struct dmo_output *const *outputs; /* opened; at most DMO_RENDERER_MAX_OUTPUTS */
        size_t n_outputs;
        unsigned fps; /* frames per second, 1..240; 0: 60 */
        /* The most of one CPU drawing may take, in percent (1..100): a
         * frame that cost c ms is followed by a pause of at least
         * c (100 - p) / p ms. 0: 15, or 5 when only one CPU is online. */
        unsigned cpu_budget_percent;
        /* The terminals keys come from, all read alike (-1 entries are
         * skipped): in the initramfs the terminal on stdin may be a serial
         * console while the keyboard types on the VT the screen shows. At
         * most DMO_RENDERER_MAX_KEYS. */
        const int *key_fds;
        size_t n_key_fds;
        bool reboot_after; /* initial state of the `r` toggle */
        /* An output whose device went away (its render() said -ENODEV: in
         * the initramfs the firmware's framebuffer is replaced by the GPU's
         * own driver) is not drawn to again. With this callback the renderer
         * asks, on its thread and at most every DMO_RENDERER_REPROBE_MS, for
         * a replacement of slot `index` until it gets one, then draws the
         * whole frame on it. The caller owns both outputs: it closes the
         * lost one (its device is gone: nothing is restored on it). NULL:
         * a lost output stays dark. */
        struct dmo_output *(*replace_lost)(void *ctx, size_t index);
        void *replace_ctx;
};

#define DMO_RENDERER_REPROBE_MS 100

#define DMO_RENDERER_MAX_OUTPUTS 8
#define DMO_RENDERER_MAX_KEYS    2

struct dmo_renderer;

int dmo_renderer_new(const struct dmo_renderer_config *cfg, struct dmo_renderer **out);
int dmo_renderer_start(struct dmo_renderer *r);
/* Waits, at most timeout_ms, until the renderer's first frame went to the
 * outputs (shown, or refused by them); 0 or -ETIMEDOUT. For a caller whose
 * own work would compete with that frame for the CPU. */
int dmo_renderer_wait_first_frame(struct dmo_renderer *r, int timeout_ms);
/* The next frame repaints everything (video memory was lost or overwritten). */
void dmo_renderer_force_full(struct dmo_renderer *r);
/* Shows a scene of this kind (DMO_SCENE_ERROR, DMO_SCENE_ABORTED) with an
 * already translated detail line; NULL text clears it and lets the phase
 * decide the kind again. */
void dmo_renderer_set_detail(struct dmo_renderer *r, enum dmo_scene_kind kind, const char *text);
/* Draws the final frame, waits for the outputs' pending flips, joins. */
int dmo_renderer_stop(struct dmo_renderer *r);
/* Joins the thread at once, without a final frame: the screen keeps the
 * frame it shows, and dmo_renderer_start() goes on from there (a flip in
 * flight completes meanwhile; its event waits on the output's fd). For the
 * freeze, whose exemption only threads started after it carry: a final
 * frame there would cost the hibernation a whole frame of CPU time. */
int dmo_renderer_pause(struct dmo_renderer *r);
/* With the renderer stopped: every output leaves its last frame in all of its
 * buffers (see dmo_output_ops.settle). -EBUSY while it runs. */
int dmo_renderer_settle(struct dmo_renderer *r);
/* With the renderer stopped, just before a snapshot: every output zeroes
 * the frame it keeps in memory (dmo_output_ops.forget_frame), which then
 * costs nothing in the image; the screens keep showing it. The next frame
 * is drawn whole. -EBUSY while it runs. */
int dmo_renderer_forget_frames(struct dmo_renderer *r);
void dmo_renderer_free(struct dmo_renderer *r);

/* The `r` key toggles "reboot instead of power off". */
bool dmo_renderer_reboot_after(struct dmo_renderer *r);

/* Dialogs, called from another thread than the renderer's (the engine's or
 * the CLI's) while the renderer runs; keys go to the dialog, not to abort.
 * timeout_ms < 0: no timeout.
 * ask_password: 0 with a NUL-terminated passphrase in buf (Enter),
 * -ECANCELED (Esc), -ETIMEDOUT, -ENOTTY (no key fd), -EBUSY (another dialog
 * is open), -EINVAL (not running). buf is wiped unless 0 is returned. */
int dmo_renderer_ask_password(struct dmo_renderer *r, const char *prompt, char *buf, size_t len,
                              int timeout_ms);
/* 1 yes, 0 no (y/n keys, or Enter on the highlighted answer, which starts at
 * default_yes; arrows and Tab move it); the default on timeout; errors as
 * above. */
int dmo_renderer_ask_yes_no(struct dmo_renderer *r, const char *prompt, bool default_yes,
                            int timeout_ms);

#endif
