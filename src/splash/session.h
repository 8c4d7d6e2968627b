/* session: the splash for one hibernate or resume run, the top of the
 * splash tree. It is the only thing the CLI calls.
 *
 * Contract:
 * - Owns everything the splash uses: the theme (and the moment its deferred
 *   images are decoded), the outputs and their fallback chain (kms → fbdev →
 *   text), the renderer thread, the key descriptors and the console (the
 *   VT it shows on, switched to and back from on a desktop).
 * - Never fails the command: an output that cannot be opened is reported and
 *   the next one tried, so a broken theme or a missing GPU costs the
 *   pictures, never the hibernation. Only allocation failures and a bad
 *   --splash name come back as errors, and even then the run goes on without
 *   a splash.
 * - Says what it could not do through params.report, in translated
 *   sentences; never prints itself (the CLI prints).
 * - May call theme/, output/ and the renderer; never calls the engine or the
 *   kernel (the engine calls it through the hook adapters below).
 * - All allocation and file I/O happen in _new(); the hooks only stop and
 *   start the renderer thread.
 */
#ifndef DMO_SPLASH_SESSION_H
#define DMO_SPLASH_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "progress/progress.h"
#include "splash/theme/theme.h"

enum dmo_splash_report {
        DMO_SPLASH_NOTE,  /* what the splash does instead */
        DMO_SPLASH_ERROR, /* a mistake of the caller's (an unknown output name) */
};

struct dmo_splash_session_params {
        enum dmo_mode mode;
        struct dmo_progress *progress;
        /* --splash: "" automatic, "none", "kms[:ARG]", "fbdev[:ARG]", "text",
         * "png:DIR[...]". NULL: automatic. */
        const char *spec;
        const char *theme;                   /* name or directory; NULL: "default" */
        const struct dmo_theme_paths *paths; /* where themes and fonts are */
        /* A terminal whose keys (Esc, Backspace, r) go to the splash, e.g.
         * stdin; it is reopened, never changed in place. -1: no keys. At
         * resume a screen on the active VT also takes the keys of that VT,
         * the keyboard in front of it: in the initramfs stdin is
         * /dev/console, which console=ttyS0 makes a serial line. */
        int key_tty_fd;
        /* The virtual terminals: "/dev/tty0" and "/dev/tty" (VT n is
         * tty_prefix + n); screens put the VT they show on in graphics mode.
         * NULL tty0: no console at all. */
        const char *tty0;
        const char *tty_prefix;
        /* A hibernate that may show a screen takes a VT of its own
         * (splash/output/console.h): the desktop's compositor lets go of the
         * display, and keys come from that VT. False: stay on the active VT
         * (the simulated kernel must leave the machine's VTs alone). */
        bool switch_vt;
        /* One translated sentence per call; may be NULL (nothing reported). */
        void (*report)(void *ctx, enum dmo_splash_report kind, const char *sentence);
        void *report_ctx;
};

struct dmo_splash_session;

/* *out is NULL afterwards with --splash=none or when nothing could be shown;
 * every other call accepts NULL. 0, or -EINVAL (unknown output name, with a
 * report; text progress is shown instead) or -ENOMEM. */
int dmo_splash_session_new(const struct dmo_splash_session_params *p,
                           struct dmo_splash_session **out);

/* The same on a thread of its own, for resume: the image loads while the
 * splash comes up (a GPU driver still loading in the initramfs can keep the
 * kms output waiting for seconds). *p and the strings it points to must
 * outlive the launch. join() waits for the thread, frees the launch and gives
 * what _new() would have (NULL included); join(NULL) is NULL. */
struct dmo_splash_launch;
int dmo_splash_session_launch(const struct dmo_splash_session_params *p,
                              struct dmo_splash_launch **out);
struct dmo_splash_session *dmo_splash_session_launch_join(struct dmo_splash_launch *l);

/* Engine hook adapters (void * so they fit struct dmo_*_hooks directly). */

/* Stops drawing (the renderer's thread ends after a final frame, which the
 * screen keeps): before SNAPSHOT_CREATE_IMAGE nothing may draw while the
 * kernel suspends the devices. The outputs' frames in memory are zeroed
 * then (renderer.h: dmo_renderer_forget_frames), so that the image does
 * not carry them; the next frame, after devices_thawed, is drawn whole. */
void dmo_splash_session_pause(void *session);
/* Before SNAPSHOT_FREEZE the thread must go so the freezing thread can start
 * it again exempt from the freezer (see engine.h, and after_freeze below):
 * it ends at once, without a final frame, since the next one comes right
 * after the freeze. */
void dmo_splash_session_before_freeze(void *session);
/* After the freeze (or the thaw): drawing goes on, on a thread the calling
 * thread creates. */
void dmo_splash_session_after_freeze(void *session);
/* After the devices came back: drawing goes on, the whole frame redrawn. */
void dmo_splash_session_devices_thawed(void *session);
/* Resume, just before the restore: stop drawing and leave the final frame in
 * every buffer of every output. */
void dmo_splash_session_before_restore(void *session);

/* Whether --splash SPEC names an output that writes files while it draws
 * (png:DIR): such an output must not run during a real hibernation. */
bool dmo_splash_spec_writes_files(const char *spec);

/* Whether SPEC is a --splash value the session understands: empty
 * (automatic), "none", or an output name (kms, fbdev, text, png) with its
 * optional ":ARG". For checking options and the config file up front. */
bool dmo_splash_spec_known(const char *spec);

/* The `r` key toggled "reboot instead of power off". */
bool dmo_splash_session_reboot_after(struct dmo_splash_session *s);

/* The password dialog of the running splash (renderer.h), with no timeout:
 * keys go to the dialog. -ENOTTY when there is no splash, no renderer, or
 * no keys to read (the caller asks on a terminal instead); otherwise as
 * dmo_renderer_ask_password(). */
int dmo_splash_session_ask_password(struct dmo_splash_session *s, const char *prompt, char *buf,
                                    size_t len);

/* Asks a yes/no question on the splash: context (may be NULL) is shown on
 * the detail line while it waits, the prompt (one short line) in the
 * dialog; both translated. y/n, or Enter on the highlighted answer, which
 * starts at default_yes. 1 yes, 0 no, the default when timeout_ms passes
 * (< 0: no timeout); -ENOTTY when nobody can answer (no session, no keys:
 * the caller asks on a terminal instead), -EBUSY while another dialog is
 * open. */
int dmo_splash_session_ask_yes_no(struct dmo_splash_session *s, const char *context,
                                  const char *prompt, bool default_yes, int timeout_ms);

/* Shows the error scene of the session's mode with a translated sentence
 * and, on a screen, holds it long enough to read (a few seconds). */
void dmo_splash_session_fail(struct dmo_splash_session *s, const char *failure);

/* Final frame, restores the screens and the console, frees. */
void dmo_splash_session_free(struct dmo_splash_session *s);

#endif
