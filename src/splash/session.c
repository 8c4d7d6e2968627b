#include "splash/session.h"
#include "splash/theme/builtin.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "splash/output/console.h"
#include "splash/output/output.h"
#include "splash/renderer.h"
#include "util/cleanup.h"
#include "util/i18n.h"
#include "util/thread.h"
#include "util/tty.h"
#include "util/timing.h"

#define MAX_OUTPUTS 3

struct dmo_splash_session {
        struct dmo_splash_session_params p;
        struct dmo_theme *theme;
        bool images_loaded;
        struct dmo_diag theme_diag; /* from decoding the theme's images */
        struct dmo_output *outputs[MAX_OUTPUTS];
        size_t n_outputs;
        struct dmo_renderer *renderer;
        struct dmo_console *console;                /* NULL: none (no VT, tests) */
        const struct dmo_output_ops *screen_failed; /* the first screen that could not open */
        int screen_err;                             /* ...and why */
        int key_fds[DMO_RENDERER_MAX_KEYS];         /* -1: none */
        size_t n_key_fds;
        bool screen; /* a screen (kms, fbdev) is among the outputs */
};

/* How long hibernate waits for the splash's first complete frame before the
 * engine starts: the engine's threads (workers, the writer) would take the
 * CPU from that frame on a machine with few cores, for a screen the design
 * wants up before the snapshot anyway. A bound, not a cost: the frame takes
 * milliseconds on real hardware. */
static const int first_frame_wait_ms = 1000;

/* How long a failure stays on a screen before the boot (or the desktop)
 * takes it over: long enough to read two lines. */
static const unsigned failure_hold_s = 5;

static void report(const struct dmo_splash_session *s, enum dmo_splash_report kind, const char *fmt,
                   ...) __attribute__((format(printf, 3, 4)));
static void report(const struct dmo_splash_session *s, enum dmo_splash_report kind, const char *fmt,
                   ...)
{
        char line[768];
        va_list ap;
        if (!s->p.report)
                return;
        va_start(ap, fmt);
        vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        s->p.report(s->p.report_ctx, kind, line);
}

static void report_diag(const struct dmo_splash_session *s, const struct dmo_diag *diag)
{
        char line[640];
        for (size_t i = 0; i < diag->n; i++) {
                if (diag->items[i].severity < DMO_DIAG_WARNING)
                        continue;
                dmo_diag_format(&diag->items[i], line, sizeof(line));
                report(s, DMO_SPLASH_NOTE, "%s", line);
        }
}

/* The second step of the deferred theme load: the first screen calls it
 * once its backdrop is up, the others find it done unless they draw at a
 * larger scale (the @2x images). At resume a replacement screen calls it
 * from the renderer thread, the only one that makes or uses painters then. */
static void complete_theme(void *ctx, double max_scale)
{
        struct dmo_splash_session *s = ctx;
        if (!s->theme)
                return;
        dmo_theme_load_images_for(s->theme, max_scale, &s->theme_diag);
        if (!s->images_loaded)
                dmo_timing_mark("theme images decoded");
        s->images_loaded = true;
}

static int open_one(struct dmo_splash_session *s, const struct dmo_output_ops *ops, const char *arg,
                    struct dmo_output **out)
{
        if (ops->needs_theme && !s->theme)
                return -ENOENT; /* nothing to draw */
        struct dmo_output_config cfg = {
            .theme = ops->needs_theme ? s->theme : NULL,
            .complete_theme = complete_theme,
            .complete_ctx = s,
            .arg = arg,
            .tty_fd = -1,
            .console = s->console,
            .prewarm = s->p.mode != DMO_MODE_RESUME,
        };
        /* On a VT of our own with no picture on it, the text goes there:
         * that VT is what the screen shows. */
        if (!ops->is_screen && !s->screen && dmo_console_fd(s->console) >= 0) {
                cfg.tty_fd = dmo_console_fd(s->console);
                cfg.arg = NULL;
        }
        return ops->open(&cfg, out);
}

static int open_output(struct dmo_splash_session *s, const struct dmo_output_ops *ops,
                       const char *arg)
{
        if (s->n_outputs >= MAX_OUTPUTS)
                return -E2BIG;
        struct dmo_output *o;
        int r = open_one(s, ops, arg, &o);
        if (r < 0) {
                if (ops->is_screen && !s->screen_failed) {
                        s->screen_failed = ops;
                        s->screen_err = r;
                }
                return r;
        }
        s->outputs[s->n_outputs++] = o;
        s->screen |= ops->is_screen;
        return 0;
}

static void load_theme(struct dmo_splash_session *s)
{
        struct dmo_diag diag;
        const char *name = s->p.theme ? s->p.theme : "default";
        const char *dir =
            s->p.paths && s->p.paths->themes_dir ? s->p.paths->themes_dir : DMO_DATADIR "/themes";
        dmo_diag_init(&diag);
        /* Images wait until a screen shows the theme's background. */
        int r = dmo_theme_load_ex(name, s->p.paths, DMO_THEME_DEFER_IMAGES, &s->theme, &diag);
        report_diag(s, &diag);
        dmo_diag_clear(&diag);
        dmo_timing_mark("theme read");
        if (r < 0) {
                /* A screen never stays black: the built-in look instead. */
                dmo_diag_init(&diag);
                int b =
                    dmo_theme_load_from_memory(dmo_theme_builtin_conf, dmo_theme_builtin_conf_len,
                                               NULL, s->p.paths, &s->theme, &diag);
                dmo_diag_clear(&diag);
                if (b == 0) {
                        report(s, DMO_SPLASH_NOTE,
                               _("theme \"%s\" could not be loaded from %s (%s); using the "
                                 "built-in look"),
                               name, dir, strerror(-r));
                        return;
                }
                report(s, DMO_SPLASH_NOTE,
                       _("theme \"%s\" could not be loaded from %s (%s); showing text progress "
                         "only"),
                       name, dir, strerror(-r));
                s->theme = NULL;
        }
}

static const char *console_strerror(int err)
{
        switch (err) {
        case -ETIMEDOUT:
                return _("the desktop session did not give up the screen in time");
        case -EBUSY:
                return _("no virtual terminal is free");
        case -ENOENT:
        case -ENOTTY:
                return _("this system has no virtual terminals");
        default:
                return strerror(-err);
        }
}

/* On a desktop the compositor holds the display: a VT of our own makes
 * logind pause its devices so it drops DRM master. Bounded: a session that
 * does not let go costs the pictures, never the hibernation. */
static void open_console(struct dmo_splash_session *s)
{
        if (!s->p.tty0)
                return;
        struct dmo_console_params cp = {
            .tty0 = s->p.tty0,
            .tty_prefix = s->p.tty_prefix,
            .switch_vt = s->p.switch_vt && s->p.mode == DMO_MODE_HIBERNATE,
            /* Only a screen opens the console: it will draw there. */
            .graphics_at_switch = true,
        };
        int r = dmo_console_new(&cp, &s->console);
        if (r < 0 && cp.switch_vt) {
                if (r != -ENOENT && r != -ENOTTY)
                        report(s, DMO_SPLASH_NOTE,
                               _("the splash could not switch to a virtual terminal of its own "
                                 "(%s); it shows only if the display is free"),
                               console_strerror(r));
                /* As before there were VT switches: graphics mode on the
                 * active VT, for a text console's framebuffer. */
                cp.switch_vt = false;
                dmo_console_new(&cp, &s->console);
        }
        dmo_timing_mark("console ready");
}

/* After a VT switch with no screen: say why, once, and where the text is. */
static void report_handover(const struct dmo_splash_session *s)
{
        if (s->screen || dmo_console_vt(s->console) == 0)
                return;
        /* The text progress goes to the VT: it must be readable there. */
        dmo_console_set_text(s->console);
        const char *why =
            s->screen_failed ? dmo_output_strerror(s->screen_failed, s->screen_err) : NULL;
        report(s, DMO_SPLASH_NOTE,
               _("the splash could not take the display on virtual terminal %d (%s); showing "
                 "text progress there"),
               dmo_console_vt(s->console), why ? why : strerror(-s->screen_err));
}

/* The renderer's replace_lost, at resume: a screen whose device went away
 * (in the initramfs the firmware's framebuffer, efifb or simpledrm, gives
 * way to the GPU's own driver) is closed without restoring anything on it,
 * and the best screen there is now takes its place: the new driver's DRM
 * device, else its framebuffer. Asked again until one opens; the kms output
 * does not wait here, the renderer asks again. */
static struct dmo_output *replace_lost_screen(void *ctx, size_t index)
{
        struct dmo_splash_session *s = ctx;
        struct dmo_output *lost = s->outputs[index];
        if (lost) {
                if (lost->ops->set_retain)
                        lost->ops->set_retain(lost, true);
                lost->ops->close(lost);
                s->outputs[index] = NULL;
                report(s, DMO_SPLASH_NOTE,
                       _("the display went away (a graphics driver took it over); the splash "
                         "follows it to the new device"));
        }
        static const struct dmo_output_ops *const screens[] = {&dmo_output_kms, &dmo_output_fbdev};
        static const char *const args[] = {"timeout=0", NULL};
        for (size_t i = 0; i < DMO_ARRAY_SIZE(screens); i++) {
                struct dmo_output *o;
                if (open_one(s, screens[i], args[i], &o) == 0) {
                        s->outputs[index] = o;
                        return o;
                }
        }
        return NULL;
}

/* With a picture somewhere else (png files, a screen) the text output keeps
 * a log on the console; alone, text is text. */
static void open_text(struct dmo_splash_session *s)
{
        open_output(s, &dmo_output_text, s->screen ? "log" : NULL);
}

/* "png:DIR" → "png" in name, "DIR" (or NULL) returned. */
static const char *spec_split(const char *spec, char *name, size_t len)
{
        const char *colon = strchr(spec, ':');
        snprintf(name, len, "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec), spec);
        return colon ? colon + 1 : NULL;
}

bool dmo_splash_spec_writes_files(const char *spec)
{
        char name[16];
        if (!spec)
                return false;
        spec_split(spec, name, sizeof(name));
        const struct dmo_output_ops *ops = dmo_output_find(name);
        return ops && ops->writes_files;
}

bool dmo_splash_spec_known(const char *spec)
{
        char name[16];
        if (!spec || !*spec || !strcmp(spec, "none"))
                return true;
        if (strlen(spec) >= 512)
                return false;
        spec_split(spec, name, sizeof(name));
        return dmo_output_find(name) != NULL;
}

static int open_outputs(struct dmo_splash_session *s, const char *spec)
{
        char name[16];
        const char *arg = spec_split(spec, name, sizeof(name));

        if (!*name) {
                /* Automatic: the best screen there is, and the text line. In
                 * the initramfs the GPU driver may still be loading. */
                load_theme(s);
                if (s->theme)
                        open_console(s);
                const char *kms_arg = s->p.mode == DMO_MODE_RESUME ? "timeout=3000" : "timeout=0";
                if (open_output(s, &dmo_output_kms, kms_arg) < 0)
                        open_output(s, &dmo_output_fbdev, NULL);
                report_handover(s);
                open_text(s);
                return 0;
        }
        const struct dmo_output_ops *ops = dmo_output_find(name);
        if (!ops) {
                report(s, DMO_SPLASH_ERROR,
                       _("--splash: \"%s\" is unknown; use kms, fbdev, text, png:DIR or none"),
                       name);
                open_text(s);
                return -EINVAL;
        }
        if (ops->needs_theme)
                load_theme(s);
        if (ops->is_screen && s->theme)
                open_console(s);
        int r = open_output(s, ops, arg);
        if (r < 0) {
                const char *why = dmo_output_strerror(ops, r);
                report(s, DMO_SPLASH_NOTE,
                       _("splash \"%s\" is not available (%s); showing text progress instead"),
                       spec, why ? why : strerror(-r));
                report_handover(s);
        }
        if (ops->needs_theme || r < 0)
                open_text(s);
        return 0;
}

/* Keys come through a file description of our own: the renderer makes it
 * non-blocking, which must not leak into stdin/stderr when they share the
 * console's (writes to it would fail with EAGAIN). */
static int open_keys(int tty_fd)
{
        int fd = dmo_tty_reopen(tty_fd, O_RDONLY);
        return fd >= 0 ? fd : -1;
}

/* The terminal behind fd: /dev/console names the console's own device
 * (TIOCGDEV), so it compares equal to the VT or serial line it is. */
static dev_t terminal_dev(int fd)
{
        unsigned int dev = 0;
        struct stat st;
        if (ioctl(fd, TIOCGDEV, &dev) == 0)
                return (dev_t)dev;
        return fstat(fd, &st) == 0 ? st.st_rdev : 0;
}

static void add_keys(struct dmo_splash_session *s, int fd)
{
        if (fd < 0)
                return;
        dev_t dev = terminal_dev(fd);
        for (size_t i = 0; i < s->n_key_fds; i++) {
                if (dev != 0 && terminal_dev(s->key_fds[i]) == dev) {
                        close(fd); /* the same terminal: one reader is enough */
                        return;
                }
        }
        if (s->n_key_fds < DMO_RENDERER_MAX_KEYS)
                s->key_fds[s->n_key_fds++] = fd;
        else
                close(fd);
}

/* On a VT of our own the keys come from it: under a service stdin is not a
 * terminal, and the desktop's keyboard is paused. Otherwise from the
 * terminal on stdin and, at resume with a picture on the screen, from the
 * VT shown: the keyboard of the person looking at the screen types there,
 * whatever console= made of the initramfs's stdin. (A hibernation without
 * a VT of its own leaves the active VT's input to whoever reads it.) */
static void open_key_fds(struct dmo_splash_session *s)
{
        int console_fd = dmo_console_fd(s->console);
        if (console_fd >= 0) {
                add_keys(s, open_keys(console_fd));
                return;
        }
        add_keys(s, open_keys(s->p.key_tty_fd));
        int vt = dmo_console_shown_vt(s->console);
        if (s->p.mode == DMO_MODE_RESUME && s->screen && vt > 0) {
                char path[256];
                snprintf(path, sizeof(path), "%s%d", s->p.tty_prefix ? s->p.tty_prefix : "/dev/tty",
                         vt);
                add_keys(s, open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC));
        }
}

int dmo_splash_session_new(const struct dmo_splash_session_params *p,
                           struct dmo_splash_session **out)
{
        const char *spec = p->spec ? p->spec : "";
        *out = NULL;
        if (strcmp(spec, "none") == 0)
                return 0;
        struct dmo_splash_session *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->p = *p;
        dmo_diag_init(&s->theme_diag);

        int err = open_outputs(s, spec);
        report_diag(s, &s->theme_diag);
        dmo_diag_clear(&s->theme_diag);

        open_key_fds(s);
        struct dmo_renderer_config rc = {
            .progress = p->progress,
            .outputs = s->outputs,
            .n_outputs = s->n_outputs,
            .fps = 30,
            .key_fds = s->key_fds,
            .n_key_fds = s->n_key_fds,
            /* Only at resume: a hibernation's devices are frozen, never
             * unplugged, and nothing may be allocated after its snapshot. */
            .replace_lost = p->mode == DMO_MODE_RESUME ? replace_lost_screen : NULL,
            .replace_ctx = s,
        };
        if (s->n_outputs == 0 || dmo_renderer_new(&rc, &s->renderer) < 0 ||
            dmo_renderer_start(s->renderer) < 0) {
                dmo_splash_session_free(s);
                return err;
        }
        /* At resume the image loads meanwhile (session_launch): no wait. */
        if (s->screen && p->mode == DMO_MODE_HIBERNATE)
                dmo_renderer_wait_first_frame(s->renderer, first_frame_wait_ms);
        *out = s;
        return err;
}

static const int launch_nice = -10;

struct dmo_splash_launch {
        pthread_t thread;
        const struct dmo_splash_session_params *p;
        struct dmo_splash_session *session;
};

static void *launch_main(void *arg)
{
        struct dmo_splash_launch *l = arg;
        dmo_thread_set_name("dmo-splash-up");
        /* Ahead of the loader's threads on a busy CPU, or the screen would
         * show the console until the image is half read. The nice value is
         * per thread on Linux and the renderer inherits it; it sleeps
         * between frames, so this costs the load nothing more than the
         * frames themselves. Without the privilege it stays as it is. */
        setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), launch_nice);
        dmo_splash_session_new(l->p, &l->session);
        return NULL;
}

int dmo_splash_session_launch(const struct dmo_splash_session_params *p,
                              struct dmo_splash_launch **out)
{
        *out = NULL;
        struct dmo_splash_launch *l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        l->p = p;
        int err = dmo_thread_start(&l->thread, launch_main, l, DMO_THREAD_STACK_RENDER, 0);
        if (err < 0) {
                free(l);
                return err;
        }
        *out = l;
        return 0;
}

struct dmo_splash_session *dmo_splash_session_launch_join(struct dmo_splash_launch *l)
{
        if (!l)
                return NULL;
        pthread_join(l->thread, NULL);
        struct dmo_splash_session *s = l->session;
        free(l);
        return s;
}

void dmo_splash_session_pause(void *session)
{
        struct dmo_splash_session *s = session;
        if (!s || !s->renderer)
                return;
        dmo_renderer_stop(s->renderer);
        /* The frames kept in memory would be in the image: zero pages are
         * not. Each path out of the snapshot (the image written, a failure,
         * the restored system) starts the renderer again through
         * devices_thawed, whose first frame is drawn whole. */
        dmo_renderer_forget_frames(s->renderer);
}

void dmo_splash_session_before_freeze(void *session)
{
        struct dmo_splash_session *s = session;
        if (s && s->renderer)
                dmo_renderer_pause(s->renderer);
}

void dmo_splash_session_devices_thawed(void *session)
{
        struct dmo_splash_session *s = session;
        if (!s || !s->renderer)
                return;
        dmo_renderer_force_full(s->renderer);
        /* Stopped for the snapshot (hibernate), running (resume): start() says
         * -EBUSY when it already runs. Created by the freezing thread while
         * user space is frozen, the thread is exempt from the freezer like its
         * parent; in the restored system this comes after the thaw, and it is
         * an ordinary thread. */
        int r = dmo_renderer_start(s->renderer);
        if (r < 0 && r != -EBUSY)
                report(s, DMO_SPLASH_NOTE, "%s",
                       _("the splash stopped: its thread could not be restarted"));
}

void dmo_splash_session_after_freeze(void *session)
{
        struct dmo_splash_session *s = session;
        if (s && s->renderer && dmo_renderer_start(s->renderer) < 0)
                report(s, DMO_SPLASH_NOTE, "%s",
                       _("the splash stopped: its thread could not be restarted"));
}

void dmo_splash_session_before_restore(void *session)
{
        struct dmo_splash_session *s = session;
        if (!s || !s->renderer)
                return;
        /* The final frame (restoring, bar full) stays in every buffer: the
         * restored kernel shows one of them until its own splash redraws. */
        dmo_renderer_stop(s->renderer);
        dmo_renderer_settle(s->renderer);
}

bool dmo_splash_session_reboot_after(struct dmo_splash_session *s)
{
        return s && s->renderer && dmo_renderer_reboot_after(s->renderer);
}

int dmo_splash_session_ask_password(struct dmo_splash_session *s, const char *prompt, char *buf,
                                    size_t len)
{
        if (!s || !s->renderer || s->n_key_fds == 0)
                return -ENOTTY;
        return dmo_renderer_ask_password(s->renderer, prompt, buf, len, -1);
}

int dmo_splash_session_ask_yes_no(struct dmo_splash_session *s, const char *context,
                                  const char *prompt, bool default_yes, int timeout_ms)
{
        if (!s || !s->renderer || s->n_key_fds == 0)
                return -ENOTTY;
        enum dmo_scene_kind kind =
            s->p.mode == DMO_MODE_RESUME ? DMO_SCENE_RESUME : DMO_SCENE_HIBERNATE;
        if (context)
                dmo_renderer_set_detail(s->renderer, kind, context);
        int r = dmo_renderer_ask_yes_no(s->renderer, prompt, default_yes, timeout_ms);
        if (context)
                dmo_renderer_set_detail(s->renderer, kind, NULL);
        return r;
}

void dmo_splash_session_fail(struct dmo_splash_session *s, const char *failure)
{
        if (!s || !s->renderer || !failure)
                return;
        dmo_renderer_set_detail(
            s->renderer, s->p.mode == DMO_MODE_RESUME ? DMO_SCENE_RESUME_ERROR : DMO_SCENE_ERROR,
            failure);
        /* Started, in case the failure came while it was stopped around the
         * freeze. */
        dmo_renderer_start(s->renderer);
        /* On a screen, or as text on a VT of our own that the desktop's
         * takes over right after. */
        if (s->screen || dmo_console_vt(s->console) > 0)
                sleep(failure_hold_s);
}

void dmo_splash_session_free(struct dmo_splash_session *s)
{
        if (!s)
                return;
        if (s->renderer) {
                dmo_renderer_stop(s->renderer); /* -EINVAL if it was not running: fine */
                dmo_renderer_free(s->renderer);
        }
        for (size_t i = 0; i < s->n_outputs; i++)
                if (s->outputs[i])
                        s->outputs[i]->ops->close(s->outputs[i]);
        for (size_t i = 0; i < s->n_key_fds; i++)
                close(s->key_fds[i]);
        /* Last: the desktop gets its VT back once nothing of ours draws. */
        dmo_console_free(s->console);
        dmo_theme_free(s->theme);
        free(s);
}
