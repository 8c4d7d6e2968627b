#include "splash/output/console.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static const int default_activate_ms = 1000;
static const int default_master_ms = 1000;
/* VT_GETSTATE is cheap; a switch takes a few frames of the compositor. */
static const int poll_step_ms = 10;

struct dmo_console {
        struct dmo_console_params p;
        int tty0_fd;
        int vt_fd;       /* our VT's terminal, -1 on the active VT */
        int vt;          /* our VT, 0: none */
        int previous_vt; /* active before us, 0: unknown */
        int shown_vt;    /* the VT on screen: ours, or the one active at _new() */
        int mode_fd;     /* where KDSETMODE went: vt_fd or tty0_fd */
        int saved_mode;
        bool graphics;
        bool retain;
};

static int xioctl(const struct dmo_console *c, int fd, unsigned long req, unsigned long arg)
{
        int r;
        do {
                r = c->p.ioctl ? c->p.ioctl(c->p.ioctl_ctx, fd, req, arg) : ioctl(fd, req, arg);
        } while (r < 0 && errno == EINTR);
        return r < 0 ? -errno : r;
}

static void sleep_ms(int ms)
{
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
}

static long long now_ms(void)
{
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int active_vt(const struct dmo_console *c)
{
        struct vt_stat st = {0};
        int r = xioctl(c, c->tty0_fd, VT_GETSTATE, (unsigned long)&st);
        return r < 0 ? r : st.v_active;
}

/* VT_GETSTATE until vt is shown or the deadline (now_ms()) passed. */
static int wait_active(const struct dmo_console *c, int vt, long long end)
{
        for (;;) {
                int r = active_vt(c);
                if (r == vt)
                        return 0;
                if (r < 0)
                        return r;
                if (now_ms() >= end)
                        return -ETIMEDOUT;
                sleep_ms(poll_step_ms);
        }
}

/* VT_ACTIVATE, then VT_GETSTATE until the switch happened or the bound
 * passed: the switch waits for the VT in VT_PROCESS mode (the compositor,
 * through logind) to let go, which a hung session may never do. */
static int activate(const struct dmo_console *c, int vt, int bound_ms)
{
        int r = xioctl(c, c->tty0_fd, VT_ACTIVATE, (unsigned long)vt);
        return r < 0 ? r : wait_active(c, vt, now_ms() + bound_ms);
}

static void release_vt(struct dmo_console *c)
{
        if (c->vt_fd >= 0)
                close(c->vt_fd);
        c->vt_fd = -1;
        /* Only a VT nobody has open and that is not shown can go. */
        if (c->vt > 0)
                xioctl(c, c->tty0_fd, VT_DISALLOCATE, (unsigned long)c->vt);
        c->vt = 0;
}

/* KD_GRAPHICS on fd, remembering the mode found for dmo_console_free(). */
static int set_graphics_on(struct dmo_console *c, int fd)
{
        int mode = KD_TEXT;
        int r = xioctl(c, fd, KDGETMODE, (unsigned long)&mode);
        if (r < 0)
                return r;
        r = xioctl(c, fd, KDSETMODE, KD_GRAPHICS);
        if (r < 0)
                return r;
        c->mode_fd = fd;
        c->saved_mode = mode;
        c->graphics = true;
        return 0;
}

/* Back to the desktop's VT with ours still in graphics mode. The kernel
 * ignores a switch away from a VT in graphics mode unless that VT is in
 * VT_PROCESS mode, where the switch waits for the VT's owner to release it:
 * ours, with no signals (relsig 0 only checks that we exist), released by
 * VT_RELDISP once the switch is pending (it is scheduled, so RELDISP says
 * EINVAL until then). 0 when the desktop's VT is shown; otherwise our VT is
 * in VT_AUTO mode again with no switch pending. */
static int leave_in_graphics(struct dmo_console *c, int bound_ms)
{
        struct vt_mode process = {.mode = VT_PROCESS};
        int r = xioctl(c, c->vt_fd, VT_SETMODE, (unsigned long)&process);
        if (r < 0)
                return r;
        r = xioctl(c, c->tty0_fd, VT_ACTIVATE, (unsigned long)c->previous_vt);
        long long end = now_ms() + bound_ms;
        while (r == 0) {
                r = xioctl(c, c->vt_fd, VT_RELDISP, 1);
                if (r == 0 || r != -EINVAL || now_ms() >= end)
                        break;
                sleep_ms(poll_step_ms);
        }
        if (r == 0)
                r = wait_active(c, c->previous_vt, end);
        /* Also cancels a switch still pending (VT_SETMODE clears it). */
        struct vt_mode autom = {.mode = VT_AUTO};
        xioctl(c, c->vt_fd, VT_SETMODE, (unsigned long)&autom);
        return r;
}

/* The VT a display manager logs people in on: GDM starts its login screen
 * when this VT is shown (and tries its automatic login again), so showing
 * the splash there left a GNOME session on another VT at resume. */
static const int login_vt = 1;

/* VT_OPENQRY's free VT, or when that is the login VT the next free one that
 * VT_GETSTATE can tell (VTs 2-15, free where v_state's bit is clear, the
 * test VT_OPENQRY makes); the login VT when none of them is free. */
static int free_vt(struct dmo_console *c)
{
        int n = 0;
        int r = xioctl(c, c->tty0_fd, VT_OPENQRY, (unsigned long)&n);
        if (r < 0 || n <= 0)
                return -EBUSY;
        if (n != login_vt)
                return n;
        struct vt_stat st = {0};
        if (xioctl(c, c->tty0_fd, VT_GETSTATE, (unsigned long)&st) < 0)
                return n;
        for (int vt = login_vt + 1; vt < 16; vt++)
                if (!(st.v_state & (1u << vt)))
                        return vt;
        return n;
}

static int take_vt(struct dmo_console *c)
{
        char path[256];
        int r = active_vt(c);
        if (r < 0)
                return r == -EINVAL ? -ENOTTY : r;
        c->previous_vt = r;
        int n = free_vt(c);
        if (n < 0)
                return n;
        snprintf(path, sizeof(path), "%s%d", c->p.tty_prefix ? c->p.tty_prefix : "/dev/tty", n);
        c->vt_fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (c->vt_fd < 0)
                return -errno;
        c->vt = n;
        /* Not fatal: without it the switch may show the console a moment. */
        if (c->p.graphics_at_switch)
                (void)set_graphics_on(c, c->vt_fd);
        r = activate(c, n, c->p.activate_ms > 0 ? c->p.activate_ms : default_activate_ms);
        if (r < 0) {
                /* Back where we were before anything is freed: a switch
                 * still pending would otherwise land on a dead VT. */
                activate(c, c->previous_vt, poll_step_ms * 10);
                dmo_console_set_text(c);
                release_vt(c);
                return r;
        }
        return 0;
}

int dmo_console_new(const struct dmo_console_params *p, struct dmo_console **out)
{
        *out = NULL;
        struct dmo_console *c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->p = *p;
        c->vt_fd = c->mode_fd = -1;
        c->tty0_fd = open(p->tty0 ? p->tty0 : "/dev/tty0", O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (c->tty0_fd < 0) {
                int err = errno == ENOENT || errno == ENXIO || errno == ENODEV ? -ENOENT : -errno;
                free(c);
                return err;
        }
        int r = 0;
        if (p->switch_vt) {
                r = take_vt(c);
                c->shown_vt = c->vt;
        } else {
                r = active_vt(c);
                c->shown_vt = r > 0 ? r : 0;
                r = r < 0 ? -ENOTTY : 0;
        }
        if (r < 0) {
                close(c->tty0_fd);
                free(c);
                return r;
        }
        *out = c;
        return 0;
}

int dmo_console_fd(const struct dmo_console *c)
{
        return c ? c->vt_fd : -1;
}

int dmo_console_vt(const struct dmo_console *c)
{
        return c ? c->vt : 0;
}

int dmo_console_shown_vt(const struct dmo_console *c)
{
        return c ? c->shown_vt : 0;
}

int dmo_console_previous_vt(const struct dmo_console *c)
{
        return c ? c->previous_vt : 0;
}

int dmo_console_set_graphics(struct dmo_console *c)
{
        if (!c || c->graphics)
                return 0;
        return set_graphics_on(c, c->vt_fd >= 0 ? c->vt_fd : c->tty0_fd);
}

int dmo_console_set_text(struct dmo_console *c)
{
        if (!c || !c->graphics)
                return 0;
        int r = xioctl(c, c->mode_fd, KDSETMODE, (unsigned long)c->saved_mode);
        if (r < 0)
                return r;
        c->graphics = false;
        return 0;
}

bool dmo_console_found_graphics(const struct dmo_console *c)
{
        return c && c->graphics && c->saved_mode == KD_GRAPHICS;
}

int dmo_console_master_wait_ms(const struct dmo_console *c)
{
        if (!c || c->vt == 0)
                return 0;
        return c->p.master_ms > 0 ? c->p.master_ms : default_master_ms;
}

void dmo_console_set_retain(struct dmo_console *c, bool retain)
{
        if (c)
                c->retain = retain;
}

void dmo_console_free(struct dmo_console *c)
{
        if (!c)
                return;
        int bound_ms = c->p.activate_ms > 0 ? c->p.activate_ms : default_activate_ms;
        bool back = false;
        if (c->vt > 0 && !c->retain && c->previous_vt > 0 && c->graphics)
                /* Our VT put into text mode while it is shown is redrawn by
                 * the console (fbcon sets its own mode: an empty black
                 * screen), which stayed up until the compositor repainted.
                 * Leaving in graphics mode keeps the last picture (the
                 * compositor's, which the screens put back) instead. */
                back = leave_in_graphics(c, bound_ms) == 0;
        if (c->graphics && !c->retain)
                xioctl(c, c->mode_fd, KDSETMODE, (unsigned long)c->saved_mode);
        if (c->vt > 0 && !c->retain) {
                /* Without graphics mode, or if leaving in it failed: the
                 * plain switch, from text mode. */
                if (!back && c->previous_vt > 0)
                        activate(c, c->previous_vt, bound_ms);
                release_vt(c);
        } else if (c->vt_fd >= 0) {
                close(c->vt_fd);
        }
        close(c->tty0_fd);
        free(c);
}
