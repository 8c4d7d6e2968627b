/* The console object on pseudo-terminals: the VT layer (VT_GETSTATE,
 * VT_OPENQRY, VT_ACTIVATE, KD*MODE, VT_DISALLOCATE) is simulated through
 * the ioctl hook, so the switch, its bounds and the restore order are
 * checked without a real console; the no-VT paths use real ioctls on a
 * pty, which refuses them as any non-VT terminal does. */
#include "splash/output/console.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <pty.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/testlib.h"

enum { MAX_CALLS = 256 };

struct call {
        unsigned long req;
        int fd;
        long arg;        /* the value for ACTIVATE, SETMODE, DISALLOCATE */
        bool vt_fd_open; /* at the time of the call, our VT's fd was open */
};

/* A VT layer: `active` shows, VT_OPENQRY answers `free_vt` (or fails),
 * VT_ACTIVATE switches at once unless `stuck`. As the kernel does, a switch
 * away from our VT (vt_fd) in graphics mode is ignored in VT_AUTO mode and
 * waits for VT_RELDISP in VT_PROCESS mode. */
struct fake_vt {
        int active;
        int free_vt;           /* <= 0: VT_OPENQRY fails */
        unsigned short in_use; /* VT_GETSTATE's v_state: the VTs in use */
        bool stuck;            /* the session never lets go (switches never happen) */
        int mode[64];
        int vt_mode[64]; /* VT_AUTO (0) or VT_PROCESS, by fd */
        int pending;     /* a switch waiting for VT_RELDISP, 0: none */
        int vt_fd;       /* the fd the console opened for the VT, set by the test */
        struct call calls[MAX_CALLS];
        int n;
};

static bool fd_open(int fd)
{
        return fd >= 0 && fcntl(fd, F_GETFD) >= 0;
}

static int fake_ioctl(void *ctx, int fd, unsigned long req, unsigned long arg)
{
        struct fake_vt *v = ctx;
        if (v->n < MAX_CALLS)
                v->calls[v->n++] = (struct call){req, fd, (long)arg, fd_open(v->vt_fd)};
        switch (req) {
        case VT_GETSTATE:
                ((struct vt_stat *)arg)->v_active = (unsigned short)v->active;
                ((struct vt_stat *)arg)->v_state = v->in_use;
                return 0;
        case VT_OPENQRY:
                if (v->free_vt <= 0) {
                        errno = EBUSY;
                        return -1;
                }
                *(int *)arg = v->free_vt;
                return 0;
        case VT_ACTIVATE:
                if (v->stuck)
                        return 0;
                if (v->vt_fd >= 0 && v->active == v->free_vt && v->mode[v->vt_fd] == KD_GRAPHICS) {
                        if (v->vt_mode[v->vt_fd] == VT_PROCESS)
                                v->pending = (int)arg;
                        return 0; /* VT_AUTO: ignored, and the ioctl still succeeds */
                }
                v->active = (int)arg;
                return 0;
        case VT_SETMODE:
                if (fd < 64)
                        v->vt_mode[fd] = ((struct vt_mode *)arg)->mode;
                v->pending = 0;
                return 0;
        case VT_RELDISP:
                if (fd >= 64 || v->vt_mode[fd] != VT_PROCESS || !v->pending || arg != 1) {
                        errno = EINVAL;
                        return -1;
                }
                v->active = v->pending;
                v->pending = 0;
                return 0;
        case VT_DISALLOCATE:
                return 0;
        case KDGETMODE:
                *(int *)arg = fd < 64 ? v->mode[fd] : KD_TEXT;
                return 0;
        case KDSETMODE:
                if (fd < 64)
                        v->mode[fd] = (int)arg;
                return 0;
        default:
                errno = ENOTTY;
                return -1;
        }
}

/* tty0 and tty7 as pseudo-terminals under a scratch directory. */
struct rig {
        int m0, s0, m7, s7;
        char dir[256], tty0[300], prefix[300];
        struct fake_vt vt;
        struct dmo_console_params p;
};

static bool rig_init(struct rig *g)
{
        char name[128];
        memset(g, 0, sizeof(*g));
        if (openpty(&g->m0, &g->s0, NULL, NULL, NULL) != 0 ||
            openpty(&g->m7, &g->s7, NULL, NULL, NULL) != 0)
                return false;
        snprintf(g->dir, sizeof(g->dir), "%s/console-XXXXXX", dmo_test_tmpdir());
        if (!mkdtemp(g->dir))
                return false;
        snprintf(g->tty0, sizeof(g->tty0), "%s/tty0", g->dir);
        snprintf(g->prefix, sizeof(g->prefix), "%s/tty", g->dir);
        if (ttyname_r(g->s0, name, sizeof(name)) != 0 || symlink(name, g->tty0) != 0)
                return false;
        char tty7[320];
        snprintf(tty7, sizeof(tty7), "%s/tty7", g->dir);
        if (ttyname_r(g->s7, name, sizeof(name)) != 0 || symlink(name, tty7) != 0)
                return false;
        g->vt = (struct fake_vt){.active = 2, .free_vt = 7, .vt_fd = -1};
        g->p = (struct dmo_console_params){.tty0 = g->tty0,
                                           .tty_prefix = g->prefix,
                                           .switch_vt = true,
                                           .activate_ms = 200,
                                           .master_ms = 300,
                                           .ioctl = fake_ioctl,
                                           .ioctl_ctx = &g->vt};
        return true;
}

static void rig_free(struct rig *g)
{
        close(g->m0);
        close(g->s0);
        close(g->m7);
        close(g->s7);
}

static int count(const struct fake_vt *v, unsigned long req)
{
        int n = 0;
        for (int i = 0; i < v->n; i++)
                n += v->calls[i].req == req;
        return n;
}

/* Index of the first call of req (with arg, unless arg < 0) from `from`, or -1. */
static int find(const struct fake_vt *v, int from, unsigned long req, long arg)
{
        for (int i = from; i < v->n; i++)
                if (v->calls[i].req == req && (arg < 0 || v->calls[i].arg == arg))
                        return i;
        return -1;
}

static long long now_ms(void)
{
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void test_no_tty0_is_enoent_and_changes_nothing(void)
{
        struct rig g;
        REQUIRE(rig_init(&g));
        char missing[320];
        snprintf(missing, sizeof(missing), "%s/no-such-tty0", g.dir);
        g.p.tty0 = missing;
        struct dmo_console *c = (struct dmo_console *)&g; /* must be cleared */
        CHECK_INT(dmo_console_new(&g.p, &c), ==, -ENOENT);
        CHECK(c == NULL);
        CHECK_INT(g.vt.n, ==, 0);
        /* Every call takes the missing console. */
        CHECK_INT(dmo_console_fd(NULL), ==, -1);
        CHECK_INT(dmo_console_set_graphics(NULL), ==, 0);
        CHECK_INT(dmo_console_master_wait_ms(NULL), ==, 0);
        dmo_console_free(NULL);
        rig_free(&g);
}

static void test_a_terminal_that_is_not_a_vt_is_enotty(void)
{
        struct rig g;
        REQUIRE(rig_init(&g));
        g.p.ioctl = NULL; /* the real ioctl on a pty: VT_GETSTATE is refused */
        struct dmo_console *c;
        CHECK_INT(dmo_console_new(&g.p, &c), ==, -ENOTTY);
        CHECK(c == NULL);
        g.p.switch_vt = false;
        CHECK_INT(dmo_console_new(&g.p, &c), ==, -ENOTTY);
        CHECK(c == NULL);
        rig_free(&g);
}

static void test_no_free_vt_is_ebusy_and_nothing_switches(void)
{
        struct rig g;
        REQUIRE(rig_init(&g));
        g.vt.free_vt = 0;
        struct dmo_console *c;
        CHECK_INT(dmo_console_new(&g.p, &c), ==, -EBUSY);
        CHECK(c == NULL);
        CHECK_INT(count(&g.vt, VT_ACTIVATE), ==, 0);
        CHECK_INT(count(&g.vt, VT_DISALLOCATE), ==, 0);
        CHECK_INT(g.vt.active, ==, 2);
        rig_free(&g);
}

static void test_activation_that_never_happens_times_out_and_undoes(void)
{
        struct rig g;
        REQUIRE(rig_init(&g));
        g.vt.stuck = true;
        struct dmo_console *c;
        long long t0 = now_ms();
        CHECK_INT(dmo_console_new(&g.p, &c), ==, -ETIMEDOUT);
        long long took = now_ms() - t0;
        printf("# gave up after %lld ms (bound 200 ms)\n", took);
        CHECK(c == NULL);
        CHECK(took >= 200);
        CHECK(took < 5000); /* bounded: the run never waits on the splash */
        /* Asked for our VT, then back to the one before, then let ours go. */
        int on = find(&g.vt, 0, VT_ACTIVATE, 7);
        int back = find(&g.vt, 0, VT_ACTIVATE, 2);
        int gone = find(&g.vt, 0, VT_DISALLOCATE, 7);
        CHECK(on >= 0 && back > on && gone > back);
        rig_free(&g);
}

static void test_switch_graphics_and_back_before_text_mode(void)
{
        struct rig g;
        REQUIRE(rig_init(&g));
        struct dmo_console *c;
        REQUIRE(dmo_console_new(&g.p, &c) == 0);
        CHECK_INT(g.vt.active, ==, 7);
        CHECK_INT(dmo_console_vt(c), ==, 7);
        CHECK_INT(dmo_console_previous_vt(c), ==, 2);
        int fd = dmo_console_fd(c);
        CHECK(fd >= 0 && isatty(fd)); /* keys and text progress come from/go to it */
        g.vt.vt_fd = fd;
        CHECK_INT(dmo_console_master_wait_ms(c), ==, 300);

        CHECK_INT(dmo_console_set_graphics(c), ==, 0);
        CHECK_INT(dmo_console_set_graphics(c), ==, 0); /* once is enough */
        CHECK_INT(count(&g.vt, KDSETMODE), ==, 1);
        int set = find(&g.vt, 0, KDSETMODE, KD_GRAPHICS);
        REQUIRE(set >= 0);
        CHECK_INT(g.vt.calls[set].fd, ==, fd); /* our VT, not the desktop's */

        int before_free = g.vt.n;
        dmo_console_free(c);
        int text = find(&g.vt, before_free, KDSETMODE, KD_TEXT);
        int back = find(&g.vt, before_free, VT_ACTIVATE, 2);
        int gone = find(&g.vt, before_free, VT_DISALLOCATE, 7);
        /* The switch back first, while our VT is still in graphics mode:
         * text mode on the VT shown is a redraw of the empty console. The
         * kernel only lets a VT in graphics mode go in VT_PROCESS mode, and
         * only once released; VT_AUTO again before text mode. */
        int released = find(&g.vt, before_free, VT_RELDISP, 1);
        CHECK(back >= 0 && released > back && text > released && gone > text);
        CHECK_INT(g.vt.vt_mode[fd], ==, VT_AUTO);
        REQUIRE(text >= 0);
        CHECK_INT(g.vt.calls[text].fd, ==, fd); /* ours, no longer shown */
        CHECK_INT(g.vt.active, ==, 2);          /* the desktop has its screen back */
        /* Deallocated only once nobody has it open. */
        REQUIRE(gone >= 0);
        CHECK(!g.vt.calls[gone].vt_fd_open);
        rig_free(&g);
}

/* GDM starts its login screen when VT 1 is shown (and logs the user in
 * again): when VT_OPENQRY says VT 1 is free, the splash takes the next VT
 * that VT_GETSTATE shows free, and VT 1 only when none is. */
static void test_the_login_vt_is_left_to_the_display_manager(void)
{
        struct rig g;
        REQUIRE(rig_init(&g));
        g.vt.free_vt = 1;
        g.vt.in_use = (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 6);
        struct dmo_console *c;
        REQUIRE(dmo_console_new(&g.p, &c) == 0);
        CHECK_INT(dmo_console_vt(c), ==, 7);
        CHECK_INT(g.vt.active, ==, 7);
        CHECK_INT(find(&g.vt, 0, VT_ACTIVATE, 1), ==, -1);
        dmo_console_free(c);
        CHECK_INT(g.vt.active, ==, 2);
        rig_free(&g);
}

/* A VT in text mode is redrawn by the console the moment it is shown: with
 * a screen to come, the VT is in graphics mode before the switch, and a
 * screen's own request later changes nothing. */
static void test_graphics_before_the_switch_when_a_screen_will_draw(void)
{
        struct rig g;
        REQUIRE(rig_init(&g));
        g.p.graphics_at_switch = true;
        struct dmo_console *c;
        REQUIRE(dmo_console_new(&g.p, &c) == 0);
        int fd = dmo_console_fd(c);
        g.vt.vt_fd = fd;
        int set = find(&g.vt, 0, KDSETMODE, KD_GRAPHICS);
        int shown = find(&g.vt, 0, VT_ACTIVATE, 7);
        CHECK(set >= 0 && shown > set);
        REQUIRE(set >= 0);
        CHECK_INT(g.vt.calls[set].fd, ==, fd); /* our VT, not the desktop's */
        CHECK_INT(dmo_console_set_graphics(c), ==, 0);
        CHECK_INT(count(&g.vt, KDSETMODE), ==, 1);
        CHECK(!dmo_console_found_graphics(c)); /* a new VT is a text console */
        int before_free = g.vt.n;
        dmo_console_free(c);
        int text = find(&g.vt, before_free, KDSETMODE, KD_TEXT);
        int back = find(&g.vt, before_free, VT_ACTIVATE, 2);
        CHECK(back >= 0 && text > back);
        rig_free(&g);
}

/* The desktop's VT does not come back (its session is gone, the switch
 * times out): the console's text mode is restored anyway, so the VT left
 * on screen shows its text, not a picture nobody updates. */
static void test_a_switch_back_that_fails_still_restores_text_mode(void)
{
        struct rig g;
        REQUIRE(rig_init(&g));
        g.p.graphics_at_switch = true;
        struct dmo_console *c;
        REQUIRE(dmo_console_new(&g.p, &c) == 0);
        g.vt.vt_fd = dmo_console_fd(c);
        g.vt.stuck = true;
        int before_free = g.vt.n;
        dmo_console_free(c); /* returns: the switch is bounded by activate_ms */
        int back = find(&g.vt, before_free, VT_ACTIVATE, 2);
        int text = find(&g.vt, before_free, KDSETMODE, KD_TEXT);
        CHECK(back >= 0 && text > back);
        /* Then the plain switch from text mode, tried once more. */
        CHECK(find(&g.vt, text, VT_ACTIVATE, 2) > text);
        CHECK_INT(g.vt.active, ==, 7);
        rig_free(&g);
}

/* No screen took the VT after all: the text progress written there must
 * show, so the mode goes back to text at once; and a switch that never
 * happens leaves no VT in graphics mode behind. */
static void test_text_again_when_no_screen_draws(void)
{
        struct rig g;
        REQUIRE(rig_init(&g));
        g.p.graphics_at_switch = true;
        struct dmo_console *c;
        REQUIRE(dmo_console_new(&g.p, &c) == 0);
        int fd = dmo_console_fd(c);
        CHECK_INT(dmo_console_set_text(c), ==, 0);
        int text = find(&g.vt, 0, KDSETMODE, KD_TEXT);
        REQUIRE(text >= 0);
        CHECK_INT(g.vt.calls[text].fd, ==, fd);
        int before_free = g.vt.n;
        dmo_console_free(c);
        CHECK_INT(find(&g.vt, before_free, KDSETMODE, -1), ==, -1); /* nothing to undo */
        rig_free(&g);

        REQUIRE(rig_init(&g));
        g.p.graphics_at_switch = true;
        g.vt.stuck = true;
        CHECK_INT(dmo_console_new(&g.p, &c), ==, -ETIMEDOUT);
        int set = find(&g.vt, 0, KDSETMODE, KD_GRAPHICS);
        text = find(&g.vt, 0, KDSETMODE, KD_TEXT);
        int gone = find(&g.vt, 0, VT_DISALLOCATE, 7);
        CHECK(set >= 0 && text > set && gone > text);
        CHECK(dmo_console_set_text(NULL) == 0);
        rig_free(&g);
}

static void test_without_switch_graphics_goes_to_the_active_vt(void)
{
        struct rig g;
        REQUIRE(rig_init(&g));
        g.p.switch_vt = false;
        struct dmo_console *c;
        REQUIRE(dmo_console_new(&g.p, &c) == 0);
        CHECK_INT(dmo_console_fd(c), ==, -1);
        CHECK_INT(dmo_console_vt(c), ==, 0);
        CHECK_INT(dmo_console_master_wait_ms(c), ==, 0);
        CHECK_INT(count(&g.vt, VT_OPENQRY), ==, 0);
        CHECK_INT(dmo_console_set_graphics(c), ==, 0);
        dmo_console_free(c);
        CHECK(find(&g.vt, 0, KDSETMODE, KD_TEXT) > find(&g.vt, 0, KDSETMODE, KD_GRAPHICS));
        CHECK_INT(count(&g.vt, VT_ACTIVATE), ==, 0);
        CHECK_INT(count(&g.vt, VT_DISALLOCATE), ==, 0);
        rig_free(&g);
}

static void test_a_vt_found_in_graphics_mode_is_told_and_kept_so(void)
{
        struct rig g;
        REQUIRE(rig_init(&g));
        g.p.switch_vt = false;
        struct dmo_console *c;
        REQUIRE(dmo_console_new(&g.p, &c) == 0);
        CHECK(!dmo_console_found_graphics(c));
        /* Plymouth's splash left the active VT in graphics mode. */
        for (int fd = 0; fd < 64; fd++)
                g.vt.mode[fd] = KD_GRAPHICS;
        REQUIRE(dmo_console_set_graphics(c) == 0);
        CHECK(dmo_console_found_graphics(c));
        int before_free = g.vt.n;
        dmo_console_free(c);
        CHECK_INT(find(&g.vt, before_free, KDSETMODE, KD_TEXT), ==, -1);
        CHECK(!dmo_console_found_graphics(NULL));
        rig_free(&g);
}

static void test_a_vt_found_in_text_mode_is_not_a_picture_to_continue(void)
{
        struct rig g;
        REQUIRE(rig_init(&g));
        g.p.switch_vt = false;
        struct dmo_console *c;
        REQUIRE(dmo_console_new(&g.p, &c) == 0);
        REQUIRE(dmo_console_set_graphics(c) == 0);
        CHECK(!dmo_console_found_graphics(c));
        /* Asked again (a second screen): still what was found first. */
        REQUIRE(dmo_console_set_graphics(c) == 0);
        CHECK(!dmo_console_found_graphics(c));
        dmo_console_free(c);
        rig_free(&g);
}

static void test_retain_leaves_the_vt_shown_in_graphics_mode(void)
{
        struct rig g;
        REQUIRE(rig_init(&g));
        struct dmo_console *c;
        REQUIRE(dmo_console_new(&g.p, &c) == 0);
        REQUIRE(dmo_console_set_graphics(c) == 0);
        dmo_console_set_retain(c, true);
        int before_free = g.vt.n;
        dmo_console_free(c);
        CHECK_INT(find(&g.vt, before_free, KDSETMODE, -1), ==, -1);
        CHECK_INT(find(&g.vt, before_free, VT_ACTIVATE, -1), ==, -1);
        CHECK_INT(g.vt.active, ==, 7);
        rig_free(&g);
}

DMO_TEST_MAIN(T(test_no_tty0_is_enoent_and_changes_nothing),
              T(test_a_terminal_that_is_not_a_vt_is_enotty),
              T(test_no_free_vt_is_ebusy_and_nothing_switches),
              T(test_activation_that_never_happens_times_out_and_undoes),
              T(test_switch_graphics_and_back_before_text_mode),
              T(test_the_login_vt_is_left_to_the_display_manager),
              T(test_graphics_before_the_switch_when_a_screen_will_draw),
              T(test_text_again_when_no_screen_draws),
              T(test_without_switch_graphics_goes_to_the_active_vt),
              T(test_a_vt_found_in_graphics_mode_is_told_and_kept_so),
              T(test_a_vt_found_in_text_mode_is_not_a_picture_to_continue),
              T(test_a_switch_back_that_fails_still_restores_text_mode),
              T(test_retain_leaves_the_vt_shown_in_graphics_mode))
