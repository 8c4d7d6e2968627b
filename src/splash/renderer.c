#include "splash/renderer.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "splash/output/keys.h"
#include "util/thread.h"

enum {
        DEFAULT_FPS = 60,
        MAX_FPS = 240,
        /* How long stop() gives the outputs to finish a flip in flight. */
        DRAIN_STEP_MS = 25,
        DRAIN_STEPS = 8,
        MAX_KEY_EVENTS = 32,
};

/* The most of one CPU drawing may take (dmo_renderer_config's
 * cpu_budget_percent): on a slow machine (an emulator, an old netbook)
 * frames come less often instead of slowing the hibernation down. A fast
 * one stays at the frame rate: a progress step costs ~0.1 ms. With one CPU
 * every millisecond drawn is one the hibernation waits (check-vm, one
 * vCPU: the renderer took 0.24 s of a 2.08 s data phase at 15%), so the
 * share is smaller there; with more, the codec's threads leave room. */
enum { CPU_BUDGET_PERCENT = 15, CPU_BUDGET_PERCENT_ONE_CPU = 5 };

/* Time constant of the bar's easing: it covers ~63% of the gap in this time. */
static const double ease_tau_s = 0.12;

struct dialog_state {
        enum dmo_dialog_kind kind;
        char prompt[256];
        char *buf; /* the caller's passphrase buffer */
        size_t cap;
        size_t used;
        unsigned bullets;
        bool answer_yes;
        bool done;
        int result;
};

struct dmo_renderer {
        struct dmo_progress *progress;
        struct dmo_output *outputs[DMO_RENDERER_MAX_OUTPUTS];
        size_t n_outputs;
        struct dmo_output *(*replace_lost)(void *ctx, size_t index);
        void *replace_ctx;
        unsigned period_ms;
        double cpu_budget; /* a fraction of one CPU */
        /* One per key terminal; NULL after its EOF. */
        struct dmo_keys *keys[DMO_RENDERER_MAX_KEYS];
        size_t n_keys;
        int wake_fd;
        pthread_t thread;
        bool running;

        /* Shared with the engine and dialog callers, under lock. */
        pthread_mutex_t lock;
        pthread_cond_t cond; /* dialog done, first frame drawn */
        bool stop;
        bool pausing;     /* with stop: no final frame (dmo_renderer_pause) */
        bool first_drawn; /* the first frame went to the outputs */
        bool force_full;
        bool reboot_after;
        bool have_kind;
        enum dmo_scene_kind kind;
        char detail[256];
        struct dialog_state dialog;

        /* The renderer thread's own. */
        struct dmo_scene scene;
        bool first_frame;
        uint64_t last_ms;
        bool lost[DMO_RENDERER_MAX_OUTPUTS]; /* device gone: not drawn to */
        uint64_t reprobe_ms;                 /* when a replacement was last asked for */
};

static void wake(struct dmo_renderer *r)
{
        uint64_t one = 1;
        /* A full counter already means "wake up": nothing to do on failure. */
        if (write(r->wake_fd, &one, sizeof(one)) < 0)
                return;
}

int dmo_renderer_new(const struct dmo_renderer_config *cfg, struct dmo_renderer **out)
{
        if (!cfg->progress || cfg->n_outputs > DMO_RENDERER_MAX_OUTPUTS || cfg->fps > MAX_FPS ||
            cfg->n_key_fds > DMO_RENDERER_MAX_KEYS || cfg->cpu_budget_percent > 100)
                return -EINVAL;
        struct dmo_renderer *r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        r->progress = cfg->progress;
        for (size_t i = 0; i < cfg->n_outputs; i++)
                r->outputs[i] = cfg->outputs[i];
        r->n_outputs = cfg->n_outputs;
        r->replace_lost = cfg->replace_lost;
        r->replace_ctx = cfg->replace_ctx;
        r->period_ms = 1000u / (cfg->fps ? cfg->fps : DEFAULT_FPS);
        unsigned budget = cfg->cpu_budget_percent;
        if (budget == 0)
                budget = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? CPU_BUDGET_PERCENT
                                                           : CPU_BUDGET_PERCENT_ONE_CPU;
        r->cpu_budget = budget / 100.0;
        r->reboot_after = cfg->reboot_after;
        r->first_frame = true;
        r->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (r->wake_fd < 0) {
                int err = -errno;
                free(r);
                return err;
        }
        for (size_t i = 0; i < cfg->n_key_fds; i++) {
                if (cfg->key_fds[i] < 0)
                        continue;
                int err = dmo_keys_open(cfg->key_fds[i], &r->keys[r->n_keys]);
                if (err < 0) {
                        while (r->n_keys > 0)
                                dmo_keys_close(r->keys[--r->n_keys]);
                        close(r->wake_fd);
                        free(r);
                        return err;
                }
                r->n_keys++;
        }
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&r->cond, &ca);
        pthread_condattr_destroy(&ca);
        pthread_mutex_init(&r->lock, NULL);
        *out = r;
        return 0;
}

static enum dmo_scene_kind kind_of(const struct dmo_progress_snapshot *p)
{
        if (p->phase == DMO_PHASE_ABORTED)
                return DMO_SCENE_ABORTED;
        if (p->phase == DMO_PHASE_FAILED)
                return p->mode == DMO_MODE_RESUME ? DMO_SCENE_RESUME_ERROR : DMO_SCENE_ERROR;
        return p->mode == DMO_MODE_RESUME ? DMO_SCENE_RESUME : DMO_SCENE_HIBERNATE;
}

/* Samples the model and builds the next scene; returns whether to repaint
 * everything. */
static bool build_scene(struct dmo_renderer *r, uint64_t now_ms, bool final)
{
        struct dmo_scene *sc = &r->scene;
        double prev_bar = sc->bar_fraction;

        dmo_progress_sample(r->progress, &sc->progress);
        pthread_mutex_lock(&r->lock);
        bool force = r->force_full || r->first_frame;
        r->force_full = false;
        r->first_frame = false;
        sc->kind = r->have_kind ? r->kind : kind_of(&sc->progress);
        memcpy(sc->detail, r->detail, sizeof(sc->detail));
        sc->reboot_after = r->reboot_after;
        memset(&sc->dialog, 0, sizeof(sc->dialog));
        sc->dialog.kind = r->dialog.kind;
        if (r->dialog.kind != DMO_DIALOG_NONE) {
                memcpy(sc->dialog.prompt, r->dialog.prompt, sizeof(sc->dialog.prompt));
                sc->dialog.bullets = r->dialog.bullets;
                sc->dialog.answer_yes = r->dialog.answer_yes;
        }
        pthread_mutex_unlock(&r->lock);

        double target = sc->progress.fraction;
        double bar = prev_bar;
        /* Done (e.g. the first frame of a restored system, whose screen was
         * showing the resume splash at nearly full): no catching up. */
        if (final || sc->progress.phase == DMO_PHASE_DONE) {
                bar = target;
        } else if (target > bar) {
                double dt = (double)(now_ms - r->last_ms) / 1000.0;
                bar += (target - bar) * (1.0 - exp(-dt / ease_tau_s));
                if (target - bar < 0.0005)
                        bar = target;
        }
        /* Never backwards, whatever the model says. */
        sc->bar_fraction = bar > prev_bar ? bar : prev_bar;
        r->last_ms = now_ms;
        return force;
}

/* Outputs whose device went away get a replacement when the caller has
 * one (the new device may take a while to appear: asked again later). */
static void replace_lost_outputs(struct dmo_renderer *r, uint64_t now_ms)
{
        if (!r->replace_lost || now_ms - r->reprobe_ms < DMO_RENDERER_REPROBE_MS)
                return;
        r->reprobe_ms = now_ms;
        for (size_t i = 0; i < r->n_outputs; i++) {
                if (!r->lost[i])
                        continue;
                struct dmo_output *o = r->replace_lost(r->replace_ctx, i);
                if (!o)
                        continue;
                r->outputs[i] = o;
                r->lost[i] = false;
                /* A new screen has nothing of ours on it yet. */
                o->ops->render(o, &r->scene, true);
        }
}

/* Returns whether the frame was a whole repaint (the first, or one asked
 * for after the devices came back). */
static bool draw(struct dmo_renderer *r, uint64_t now_ms, bool final)
{
        bool force = build_scene(r, now_ms, final);
        for (size_t i = 0; i < r->n_outputs; i++) {
                if (r->lost[i])
                        continue;
                if (r->outputs[i]->ops->render(r->outputs[i], &r->scene, force) == -ENODEV)
                        r->lost[i] = true;
        }
        replace_lost_outputs(r, now_ms);
        r->scene.frame_counter++;
        return force;
}

static void dialog_finish(struct dialog_state *d, int result)
{
        d->done = true;
        d->result = result;
}

static void password_key(struct dialog_state *d, const struct dmo_key_event *ev)
{
        switch (ev->kind) {
        case DMO_KEY_CHAR: {
                size_t n = strlen(ev->utf8);
                if (d->used + n + 1 > d->cap)
                        return; /* full: further characters are not taken */
                memcpy(d->buf + d->used, ev->utf8, n);
                d->used += n;
                d->buf[d->used] = '\0';
                d->bullets++;
                return;
        }
        case DMO_KEY_BACKSPACE:
                if (d->used == 0)
                        return;
                /* Remove one whole UTF-8 character. */
                do
                        d->used--;
                while (d->used > 0 && ((unsigned char)d->buf[d->used] & 0xc0) == 0x80);
                d->buf[d->used] = '\0';
                d->bullets--;
                return;
        case DMO_KEY_ENTER:
                dialog_finish(d, 0);
                return;
        case DMO_KEY_ESC:
                dialog_finish(d, -ECANCELED);
                return;
        default:
                return;
        }
}

static void question_key(struct dialog_state *d, const struct dmo_key_event *ev)
{
        switch (ev->kind) {
        case DMO_KEY_CHAR:
                if (ev->codepoint == 'y' || ev->codepoint == 'Y')
                        dialog_finish(d, 1);
                else if (ev->codepoint == 'n' || ev->codepoint == 'N')
                        dialog_finish(d, 0);
                return;
        case DMO_KEY_LEFT:
        case DMO_KEY_RIGHT:
        case DMO_KEY_UP:
        case DMO_KEY_DOWN:
        case DMO_KEY_TAB:
                d->answer_yes = !d->answer_yes;
                return;
        case DMO_KEY_ENTER:
                dialog_finish(d, d->answer_yes ? 1 : 0);
                return;
        case DMO_KEY_ESC:
                dialog_finish(d, -ECANCELED);
                return;
        default:
                return;
        }
}

static void handle_key(struct dmo_renderer *r, const struct dmo_key_event *ev)
{
        pthread_mutex_lock(&r->lock);
        struct dialog_state *d = &r->dialog;
        if (d->kind != DMO_DIALOG_NONE && !d->done) {
                if (d->kind == DMO_DIALOG_PASSWORD)
                        password_key(d, ev);
                else
                        question_key(d, ev);
                if (d->done)
                        pthread_cond_broadcast(&r->cond);
                pthread_mutex_unlock(&r->lock);
                return;
        }
        if (ev->kind == DMO_KEY_CHAR && (ev->codepoint == 'r' || ev->codepoint == 'R'))
                r->reboot_after = !r->reboot_after;
        pthread_mutex_unlock(&r->lock);
        if (ev->kind == DMO_KEY_ESC || ev->kind == DMO_KEY_BACKSPACE)
                dmo_progress_request_abort(r->progress);
}

static bool have_keys(const struct dmo_renderer *r)
{
        for (size_t i = 0; i < r->n_keys; i++)
                if (r->keys[i])
                        return true;
        return false;
}

static void read_keys(struct dmo_renderer *r, size_t source, uint64_t now_ms)
{
        struct dmo_key_event ev[MAX_KEY_EVENTS];
        int n = dmo_keys_read(r->keys[source], now_ms, ev, MAX_KEY_EVENTS);
        if (n == -EPIPE || (n < 0 && n != -EAGAIN)) {
                /* The terminal went away: nothing more will come from it. A
                 * dialog fails only when no terminal is left to answer it. */
                pthread_mutex_lock(&r->lock);
                dmo_keys_close(r->keys[source]);
                r->keys[source] = NULL;
                if (!have_keys(r) && r->dialog.kind != DMO_DIALOG_NONE && !r->dialog.done) {
                        dialog_finish(&r->dialog, -ENOTTY);
                        pthread_cond_broadcast(&r->cond);
                }
                pthread_mutex_unlock(&r->lock);
                return;
        }
        for (int i = 0; i < n; i++)
                handle_key(r, &ev[i]);
}

/* Polls wake, output events and keys until `timeout_ms`; returns whether the
 * outputs had anything to dispatch. */
static bool poll_once(struct dmo_renderer *r, int timeout_ms)
{
        struct pollfd fds[DMO_RENDERER_MAX_OUTPUTS + DMO_RENDERER_MAX_KEYS + 1];
        size_t owner[DMO_RENDERER_MAX_OUTPUTS + DMO_RENDERER_MAX_KEYS + 1];
        nfds_t n = 0;
        bool dispatched = false;

        fds[n++] = (struct pollfd){.fd = r->wake_fd, .events = POLLIN};
        nfds_t first_output = n;
        for (size_t i = 0; i < r->n_keys; i++) {
                if (!r->keys[i])
                        continue;
                fds[n++] = (struct pollfd){.fd = dmo_keys_fd(r->keys[i]), .events = POLLIN};
                int kt = dmo_keys_timeout_ms(r->keys[i], dmo_keys_now_ms());
                if (kt >= 0 && (timeout_ms < 0 || kt < timeout_ms))
                        timeout_ms = kt;
                first_output = n;
        }
        for (size_t i = 0; i < r->n_outputs; i++) {
                struct dmo_output *o = r->outputs[i];
                if (r->lost[i])
                        continue;
                int fd = o->ops->event_fd ? o->ops->event_fd(o) : -1;
                if (fd < 0 || !o->ops->dispatch)
                        continue;
                owner[n] = i;
                fds[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
        }
        int ready = poll(fds, n, timeout_ms);
        if (ready < 0)
                return false;
        if (fds[0].revents & POLLIN) {
                uint64_t v;
                if (read(r->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
                        return false;
        }
        for (nfds_t i = first_output; i < n; i++) {
                if (!(fds[i].revents & (POLLIN | POLLERR | POLLHUP)))
                        continue;
                struct dmo_output *o = r->outputs[owner[i]];
                o->ops->dispatch(o);
                dispatched = true;
        }
        /* Keys also on timeout: a lone Esc is only known once its wait is over. */
        for (size_t i = 0; i < r->n_keys; i++)
                if (r->keys[i])
                        read_keys(r, i, dmo_keys_now_ms());
        return dispatched;
}

static double thread_cpu_ms(void)
{
        struct timespec t;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void *renderer_main(void *arg)
{
        struct dmo_renderer *r = arg;
        dmo_thread_set_name("dmo-render");
        uint64_t next = dmo_keys_now_ms();

        r->last_ms = next;
        for (;;) {
                pthread_mutex_lock(&r->lock);
                bool stop = r->stop;
                pthread_mutex_unlock(&r->lock);
                if (stop)
                        break;
                uint64_t now = dmo_keys_now_ms();
                if (now >= next) {
                        double cpu0 = thread_cpu_ms();
                        bool whole = draw(r, now, false);
                        if (!r->first_drawn) {
                                pthread_mutex_lock(&r->lock);
                                r->first_drawn = true;
                                pthread_cond_broadcast(&r->cond);
                                pthread_mutex_unlock(&r->lock);
                        }
                        /* A frame that cost c ms of CPU is followed by a pause
                         * of at least c (1 - budget) / budget ms. A whole
                         * repaint happens once (and after a resume of the
                         * devices): at 5% its pause would keep the next
                         * progress off the screen for seconds. */
                        double cost = whole ? 0 : thread_cpu_ms() - cpu0;
                        uint64_t pause = (uint64_t)(cost * (1.0 - r->cpu_budget) / r->cpu_budget);
                        next += r->period_ms;
                        if (next <= now)
                                next = now + r->period_ms;
                        if (next < now + pause)
                                next = now + pause;
                }
                now = dmo_keys_now_ms();
                poll_once(r, next > now ? (int)(next - now) : 0);
        }
        pthread_mutex_lock(&r->lock);
        bool pausing = r->pausing;
        pthread_mutex_unlock(&r->lock);
        if (pausing)
                return NULL; /* a flip in flight completes while it sleeps */
        /* Let a flip in flight complete so the final frame is shown, not kept
         * as damage for a next frame that never comes. */
        for (int i = 0; i < DRAIN_STEPS && poll_once(r, DRAIN_STEP_MS); i++)
                ;
        draw(r, dmo_keys_now_ms(), true);
        return NULL;
}

int dmo_renderer_start(struct dmo_renderer *r)
{
        if (r->running)
                return -EBUSY;
        /* Started again around the freeze, the screen still shows the last
         * frame: no full repaint (after the devices were suspended, the
         * display asks for one with dmo_renderer_force_full()). */
        r->stop = false;
        int err = dmo_thread_start(&r->thread, renderer_main, r, DMO_THREAD_STACK_RENDER, 0);
        if (err < 0)
                return err;
        r->running = true;
        return 0;
}

void dmo_renderer_force_full(struct dmo_renderer *r)
{
        pthread_mutex_lock(&r->lock);
        r->force_full = true;
        pthread_mutex_unlock(&r->lock);
        wake(r);
}

void dmo_renderer_set_detail(struct dmo_renderer *r, enum dmo_scene_kind kind, const char *text)
{
        pthread_mutex_lock(&r->lock);
        r->have_kind = text != NULL;
        r->kind = kind;
        r->detail[0] = '\0';
        if (text) {
                size_t n = strnlen(text, sizeof(r->detail) - 1);
                memcpy(r->detail, text, n);
                r->detail[n] = '\0';
        }
        pthread_mutex_unlock(&r->lock);
        wake(r);
}

static int stop_thread(struct dmo_renderer *r, bool pausing)
{
        if (!r->running)
                return -EINVAL;
        pthread_mutex_lock(&r->lock);
        r->stop = true;
        r->pausing = pausing;
        if (r->dialog.kind != DMO_DIALOG_NONE && !r->dialog.done) {
                dialog_finish(&r->dialog, -ECANCELED);
                pthread_cond_broadcast(&r->cond);
        }
        pthread_mutex_unlock(&r->lock);
        wake(r);
        int err = pthread_join(r->thread, NULL);
        r->running = false;
        return -err;
}

int dmo_renderer_stop(struct dmo_renderer *r)
{
        return stop_thread(r, false);
}

int dmo_renderer_pause(struct dmo_renderer *r)
{
        return stop_thread(r, true);
}

int dmo_renderer_settle(struct dmo_renderer *r)
{
        if (r->running)
                return -EBUSY;
        for (size_t i = 0; i < r->n_outputs; i++)
                if (!r->lost[i] && r->outputs[i]->ops->settle)
                        r->outputs[i]->ops->settle(r->outputs[i]);
        return 0;
}

int dmo_renderer_forget_frames(struct dmo_renderer *r)
{
        if (r->running)
                return -EBUSY;
        for (size_t i = 0; i < r->n_outputs; i++)
                if (!r->lost[i] && r->outputs[i]->ops->forget_frame)
                        r->outputs[i]->ops->forget_frame(r->outputs[i]);
        pthread_mutex_lock(&r->lock);
        r->force_full = true;
        pthread_mutex_unlock(&r->lock);
        return 0;
}

void dmo_renderer_free(struct dmo_renderer *r)
{
        if (!r)
                return;
        if (r->running)
                dmo_renderer_stop(r);
        for (size_t i = 0; i < r->n_keys; i++)
                dmo_keys_close(r->keys[i]);
        close(r->wake_fd);
        pthread_cond_destroy(&r->cond);
        pthread_mutex_destroy(&r->lock);
        free(r);
}

bool dmo_renderer_reboot_after(struct dmo_renderer *r)
{
        pthread_mutex_lock(&r->lock);
        bool v = r->reboot_after;
        pthread_mutex_unlock(&r->lock);
        return v;
}

static void deadline_after(struct timespec *ts, int timeout_ms)
{
        clock_gettime(CLOCK_MONOTONIC, ts);
        ts->tv_sec += timeout_ms / 1000;
        ts->tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (ts->tv_nsec >= 1000000000L) {
                ts->tv_sec++;
                ts->tv_nsec -= 1000000000L;
        }
}

int dmo_renderer_wait_first_frame(struct dmo_renderer *r, int timeout_ms)
{
        struct timespec deadline;
        int err = 0;
        deadline_after(&deadline, timeout_ms);
        pthread_mutex_lock(&r->lock);
        while (!r->first_drawn && err != ETIMEDOUT)
                err = pthread_cond_timedwait(&r->cond, &r->lock, &deadline);
        bool drawn = r->first_drawn;
        pthread_mutex_unlock(&r->lock);
        return drawn ? 0 : -ETIMEDOUT;
}

/* Opens the dialog, waits for its end, closes it; returns the result or
 * `on_timeout`. Called with r->lock held. */
static int run_dialog(struct dmo_renderer *r, int timeout_ms, int on_timeout)
{
        struct timespec deadline;
        int result;

        if (timeout_ms >= 0)
                deadline_after(&deadline, timeout_ms);
        pthread_mutex_unlock(&r->lock);
        wake(r);
        pthread_mutex_lock(&r->lock);
        while (!r->dialog.done) {
                int err = timeout_ms >= 0 ? pthread_cond_timedwait(&r->cond, &r->lock, &deadline)
                                          : pthread_cond_wait(&r->cond, &r->lock);
                if (err == ETIMEDOUT && !r->dialog.done) {
                        dialog_finish(&r->dialog, on_timeout);
                        break;
                }
        }
        result = r->dialog.result;
        memset(&r->dialog, 0, sizeof(r->dialog));
        pthread_mutex_unlock(&r->lock);
        wake(r);
        return result;
}

static int open_dialog(struct dmo_renderer *r, enum dmo_dialog_kind kind, const char *prompt)
{
        if (!r->running)
                return -EINVAL;
        pthread_mutex_lock(&r->lock);
        if (!have_keys(r) || r->stop) {
                pthread_mutex_unlock(&r->lock);
                return r->stop ? -EINVAL : -ENOTTY;
        }
        if (r->dialog.kind != DMO_DIALOG_NONE) {
                pthread_mutex_unlock(&r->lock);
                return -EBUSY;
        }
        memset(&r->dialog, 0, sizeof(r->dialog));
        r->dialog.kind = kind;
        size_t n = strnlen(prompt, sizeof(r->dialog.prompt) - 1);
        memcpy(r->dialog.prompt, prompt, n);
        return 0; /* with the lock held */
}

int dmo_renderer_ask_password(struct dmo_renderer *r, const char *prompt, char *buf, size_t len,
                              int timeout_ms)
{
        if (!buf || len == 0)
                return -EINVAL;
        buf[0] = '\0';
        int err = open_dialog(r, DMO_DIALOG_PASSWORD, prompt);
        if (err < 0)
                return err;
        r->dialog.buf = buf;
        r->dialog.cap = len;
        int result = run_dialog(r, timeout_ms, -ETIMEDOUT);
        if (result != 0)
                explicit_bzero(buf, len);
        return result;
}

int dmo_renderer_ask_yes_no(struct dmo_renderer *r, const char *prompt, bool default_yes,
                            int timeout_ms)
{
        int err = open_dialog(r, DMO_DIALOG_QUESTION, prompt);
        if (err < 0)
                return err;
        r->dialog.answer_yes = default_yes;
        return run_dialog(r, timeout_ms, default_yes ? 1 : 0);
}
