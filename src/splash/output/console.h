/* console: the virtual terminal the splash shows on, one object shared by
 * the screens (kms, fbdev) and the keys, as Plymouth's terminal object is
 * passed to every renderer.
 *
 * Contract:
 * - Owned by the splash session; outputs get it through their config and
 *   only ask it for graphics mode and how long to wait for DRM master.
 * - dmo_console_new() with switch_vt (hibernate from a desktop): takes a free
 *   VT (VT_OPENQRY on tty0; not VT 1 while VT_GETSTATE shows another of
 *   VTs 2-15 free: GDM starts its login screen when VT 1 is shown),
 *   activates it and waits, bounded, by polling
 *   VT_GETSTATE (VT_WAITACTIVE would block without a bound), so that logind
 *   pauses the session's DRM and input devices and the compositor drops DRM
 *   master. Without switch_vt it stays on the active VT (the initramfs).
 * - Never blocks the run for longer than its bounds: when there is no VT
 *   (no tty0, not a VT, VT_OPENQRY fails) or activation times out it gives
 *   up, undoes what it did, and says why (dmo_console_new() returns the
 *   error; the session goes on without it).
 * - With graphics_at_switch the VT is in graphics mode before VT_ACTIVATE:
 *   a VT in text mode is redrawn by the console (fbcon) the moment it is
 *   shown, which flashed an empty console or old boot text between the
 *   desktop and the splash.
 * - dmo_console_free() restores what it changed: first the VT that was
 *   active before, while ours is still in graphics mode (the screen keeps
 *   the last picture until the compositor repaints, never the console's
 *   empty text screen), then our VT's display mode, then it deallocates
 *   the VT.
 * - Device paths and the ioctl itself come in the parameters, so tests drive
 *   it on pseudo-terminals with a simulated VT layer; nothing here knows
 *   about DRM or the painter, and it never prints.
 */
#ifndef DMO_SPLASH_OUTPUT_CONSOLE_H
#define DMO_SPLASH_OUTPUT_CONSOLE_H

#include <stdbool.h>

struct dmo_console_params {
        const char *tty0;       /* the VT master device: "/dev/tty0" */
        const char *tty_prefix; /* VT n is tty_prefix + n: "/dev/tty" */
        bool switch_vt;         /* take a VT of our own (hibernate) */
        /* A screen will draw on that VT: it goes to graphics mode before it
         * is shown, so the switch shows the desktop's last picture until the
         * splash's first, never the console's text or cursor.
         * dmo_console_set_text() undoes it when no screen took the VT. */
        bool graphics_at_switch;
        int activate_ms; /* bound on the switch; 0: 1000 */
        int master_ms;   /* how long screens retry DRM master after a switch; 0: 1000 */
        /* NULL: ioctl(2). Tests simulate the VT layer here. Returns -1 and
         * sets errno like ioctl(2). */
        int (*ioctl)(void *ctx, int fd, unsigned long req, unsigned long arg);
        void *ioctl_ctx;
};

struct dmo_console;

/* 0 with *out set, or a negative errno with *out NULL and nothing changed:
 * -ENOENT no tty0, -ENOTTY tty0 is not a VT, -EBUSY no free VT,
 * -ETIMEDOUT the VT did not become active within the bound. */
int dmo_console_new(const struct dmo_console_params *p, struct dmo_console **out);

/* The VT's terminal (keys, text progress), -1 without a VT of our own. */
int dmo_console_fd(const struct dmo_console *c);
/* Our VT's number; 0 without one. */
int dmo_console_vt(const struct dmo_console *c);
/* The VT on screen: ours, or without one the VT that was active when the
 * console was opened (its keyboard is the one in front of the screen). 0
 * when unknown. */
int dmo_console_shown_vt(const struct dmo_console *c);
/* The VT active before ours; 0 when unknown. */
int dmo_console_previous_vt(const struct dmo_console *c);

/* KD_GRAPHICS on the VT shown, so the console draws no text or cursor over
 * the splash; the mode found is restored at free. Idempotent; NULL: 0. */
int dmo_console_set_graphics(struct dmo_console *c);

/* Back to the mode found (text, for a new VT) where no screen shows on the
 * VT after all, so the text progress written there can be read. NULL: 0. */
int dmo_console_set_text(struct dmo_console *c);

/* Whether the VT was already in graphics mode before the splash set it:
 * another program (Plymouth's boot splash) left a picture on the screen,
 * not the console's text. False before dmo_console_set_graphics() and for
 * NULL. */
bool dmo_console_found_graphics(const struct dmo_console *c);

/* Milliseconds a screen may keep retrying drmSetMaster: after a switch the
 * compositor drops master a moment later; 0 without a switch (or NULL). */
int dmo_console_master_wait_ms(const struct dmo_console *c);

/* Leaves the last frame on screen at free: the VT stays in graphics mode
 * and active (resume hands over to the restored kernel). */
void dmo_console_set_retain(struct dmo_console *c, bool retain);

void dmo_console_free(struct dmo_console *c);

#endif
