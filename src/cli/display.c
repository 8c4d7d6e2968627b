#include "cli/display.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "splash/output.h"
#include "splash/renderer.h"
#include "splash/theme.h"
#include "util/i18n.h"

#define MAX_OUTPUTS 3

struct dmo_display {
        struct dmo_theme *theme;
        struct dmo_diag theme_diag; /* from decoding the theme's images */
        struct dmo_output *outputs[MAX_OUTPUTS];
        size_t n_outputs;
        struct dmo_renderer *renderer;
        int key_fd;
        bool graphical; /* a screen (kms, fbdev) is among the outputs */
        enum dmo_mode mode;
};

/* How long a failure stays on a screen before the boot (or the desktop)
 * takes it over: long enough to read two lines. */
static const unsigned failure_hold_s = 5;

static bool dir_exists(const char *path)
{
        return access(path, R_OK | X_OK) == 0;
}

static void pick_dir(const char *env, const char *sub, char *out, size_t len)
{
        const char *e = getenv(env);
        if (e && *e) {
                snprintf(out, len, "%s", e);
                return;
        }
        snprintf(out, len, "%s/%s", DMO_DATADIR, sub);
        if (dir_exists(out))
                return;
        snprintf(out, len, "%s/%s", DMO_SRCDIR, sub);
}

void dmo_display_data_paths(char *themes, size_t tlen, char *fonts, size_t flen)
{
        pick_dir("DORMOUSE_THEMES_DIR", "themes", themes, tlen);
        pick_dir("DORMOUSE_FONTS_DIR", "fonts", fonts, flen);
}

static void report_diag(const struct dmo_diag *diag, enum dmo_diag_severity min)
{
        char line[640];
        for (size_t i = 0; i < diag->n; i++) {
                if (diag->items[i].severity < min)
                        continue;
                dmo_diag_format(&diag->items[i], line, sizeof(line));
                dmo_cli_note("%s", line);
        }
}

static int open_output(struct dmo_display *d, const char *name, const char *arg, int tty_fd)
{
        const struct dmo_output_ops *ops = dmo_output_find(name);
        if (!ops) {
                dmo_cli_error(_("--splash: \"%s\" is unknown; use kms, fbdev, text, png:DIR or "
                                "none"),
                              name);
                return -EINVAL;
        }
        if (d->n_outputs >= MAX_OUTPUTS)
                return -E2BIG;
        struct dmo_output_config cfg = {
            .theme = strcmp(name, "text") == 0 ? NULL : d->theme,
            .diag = &d->theme_diag,
            .arg = arg,
            .tty_fd = tty_fd,
        };
        if (cfg.theme == NULL && strcmp(name, "text") != 0)
                return -ENOENT; /* no theme: the graphical outputs have nothing to draw */
        struct dmo_output *o;
        int r = ops->open(&cfg, &o);
        if (r < 0)
                return r;
        d->outputs[d->n_outputs++] = o;
        if (strcmp(name, "kms") == 0 || strcmp(name, "fbdev") == 0)
                d->graphical = true;
        return 0;
}

static void load_theme(struct dmo_display *d, const struct dmo_cli_common *c)
{
        char themes[512], fonts[512];
        struct dmo_diag diag;
        dmo_display_data_paths(themes, sizeof(themes), fonts, sizeof(fonts));
        struct dmo_theme_paths paths = {.themes_dir = themes, .fonts_dir = fonts};
        const char *name = c->theme ? c->theme : "default";
        dmo_diag_init(&diag);
        /* Images wait until a screen shows the theme's background. */
        int r = dmo_theme_load_ex(name, &paths, DMO_THEME_DEFER_IMAGES, &d->theme, &diag);
        report_diag(&diag, DMO_DIAG_WARNING);
        dmo_diag_clear(&diag);
        if (r < 0) {
                dmo_cli_note(_("theme \"%s\" could not be loaded from %s (%s); showing text "
                               "progress only"),
                             name, themes, strerror(-r));
                d->theme = NULL;
        }
}

void dmo_display_start(const struct dmo_cli_common *c, enum dmo_mode mode,
                       struct dmo_progress *progress, struct dmo_display **out)
{
        const char *spec = c->splash ? c->splash : "";
        *out = NULL;
        if (strcmp(spec, "none") == 0)
                return;
        struct dmo_display *d = calloc(1, sizeof(*d));
        if (!d)
                return;
        d->key_fd = -1;
        d->mode = mode;
        dmo_diag_init(&d->theme_diag);

        char name[16] = "";
        const char *arg = NULL;
        const char *colon = strchr(spec, ':');
        snprintf(name, sizeof(name), "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec), spec);
        if (colon)
                arg = colon + 1;

        bool graphical = strcmp(name, "text") != 0;
        if (graphical)
                load_theme(d, c);

        if (!*name) {
                /* Automatic: the best screen there is, and the text line. In
                 * the initramfs the GPU driver may still be loading. */
                const char *kms_arg = mode == DMO_MODE_RESUME ? "timeout=3000" : "timeout=0";
                if (d->theme && open_output(d, "kms", kms_arg, -1) < 0)
                        open_output(d, "fbdev", NULL, -1);
                open_output(d, "text", d->graphical ? "log" : NULL, -1);
        } else {
                int r = open_output(d, name, arg, -1);
                const struct dmo_output_ops *ops = dmo_output_find(name);
                if (r < 0 && r != -EINVAL && ops) {
                        dmo_cli_note(_("splash \"%s\" is not available (%s); showing text progress "
                                       "instead"),
                                     spec, dmo_output_strerror(ops, r));
                }
                /* With a picture somewhere else (png files, a screen), keep the
                 * log on the console too; alone, text is text. */
                if (strcmp(name, "text") != 0)
                        open_output(d, "text", d->graphical ? "log" : NULL, -1);
        }
        report_diag(&d->theme_diag, DMO_DIAG_WARNING);
        dmo_diag_clear(&d->theme_diag);

        /* Keys come through a file description of our own: the renderer
         * makes it non-blocking, which must not leak into stdin/stderr when
         * they share the console's (writes to it would fail with EAGAIN). */
        int key_fd = -1;
        const char *tty = isatty(STDIN_FILENO) ? ttyname(STDIN_FILENO) : NULL;
        if (tty && mode == DMO_MODE_HIBERNATE)
                key_fd = open(tty, O_RDONLY | O_NOCTTY | O_CLOEXEC);
        d->key_fd = key_fd;
        struct dmo_renderer_config rc = {
            .progress = progress,
            .outputs = d->outputs,
            .n_outputs = d->n_outputs,
            .fps = 30,
            .key_fd = key_fd,
        };
        if (d->n_outputs == 0 || dmo_renderer_new(&rc, &d->renderer) < 0 ||
            dmo_renderer_start(d->renderer) < 0) {
                dmo_display_stop(d, NULL);
                return;
        }
        *out = d;
}

static const int launch_nice = -10;

struct dmo_display_launch {
        pthread_t thread;
        const struct dmo_cli_common *common;
        enum dmo_mode mode;
        struct dmo_progress *progress;
        struct dmo_display *display;
};

static void *launch_main(void *arg)
{
        struct dmo_display_launch *l = arg;
        /* Ahead of the loader's threads on a busy CPU, or the screen would
         * show the console until the image is half read. The nice value is
         * per thread on Linux and the renderer inherits it; it sleeps
         * between frames, so this costs the load nothing more than the
         * frames themselves. Without the privilege it stays as it is. */
        setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), launch_nice);
        dmo_display_start(l->common, l->mode, l->progress, &l->display);
        return NULL;
}

int dmo_display_launch(const struct dmo_cli_common *c, enum dmo_mode mode,
                       struct dmo_progress *progress, struct dmo_display_launch **out)
{
        *out = NULL;
        struct dmo_display_launch *l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        *l = (struct dmo_display_launch){.common = c, .mode = mode, .progress = progress};
        int err = pthread_create(&l->thread, NULL, launch_main, l);
        if (err) {
                free(l);
                return -err;
        }
        *out = l;
        return 0;
}

struct dmo_display *dmo_display_launch_join(struct dmo_display_launch *l)
{
        if (!l)
                return NULL;
        pthread_join(l->thread, NULL);
        struct dmo_display *d = l->display;
        free(l);
        return d;
}

void dmo_display_pause(void *display)
{
        struct dmo_display *d = display;
        if (d && d->renderer)
                dmo_renderer_stop(d->renderer);
}

void dmo_display_devices_thawed(void *display)
{
        struct dmo_display *d = display;
        if (!d || !d->renderer)
                return;
        dmo_renderer_force_full(d->renderer);
        /* Stopped for the snapshot (hibernate), running (resume): start() says
         * -EBUSY when it already runs. The thread is created by the freezing
         * thread, so it is exempt from the freezer like its parent. */
        int r = dmo_renderer_start(d->renderer);
        if (r < 0 && r != -EBUSY)
                dmo_cli_note(_("the splash stopped: its thread could not be restarted"));
}

void dmo_display_after_freeze(void *display)
{
        struct dmo_display *d = display;
        if (d && d->renderer && dmo_renderer_start(d->renderer) < 0)
                dmo_cli_note(_("the splash stopped: its thread could not be restarted"));
}

void dmo_display_before_restore(void *display)
{
        struct dmo_display *d = display;
        if (!d || !d->renderer)
                return;
        /* The final frame (restoring, bar full) stays in every buffer: the
         * restored kernel shows one of them until its own splash redraws. */
        dmo_display_pause(d);
        dmo_renderer_settle(d->renderer);
}

void dmo_display_stop(struct dmo_display *d, const char *failure)
{
        if (!d)
                return;
        if (d->renderer) {
                if (failure) {
                        dmo_renderer_set_detail(d->renderer,
                                                d->mode == DMO_MODE_RESUME ? DMO_SCENE_RESUME_ERROR
                                                                           : DMO_SCENE_ERROR,
                                                failure);
                        /* Started, in case the failure came while it was
                         * stopped around the freeze. */
                        dmo_renderer_start(d->renderer);
                        if (d->graphical)
                                sleep(failure_hold_s);
                }
                dmo_renderer_stop(d->renderer); /* -EINVAL if it was not running: fine */
                dmo_renderer_free(d->renderer);
        }
        for (size_t i = 0; i < d->n_outputs; i++)
                d->outputs[i]->ops->close(d->outputs[i]);
        dmo_theme_free(d->theme);
        if (d->key_fd >= 0)
                close(d->key_fd);
        free(d);
}
