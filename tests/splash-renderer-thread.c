/* The renderer thread with a fake output that records every scene.
 *
 * Nothing here waits for a fixed time and then asserts: each step waits for
 * the condition it needs (a frame showing this dialog's own prompt, the
 * abort flag, a toggle), with a deadline far beyond any plausible delay, so
 * a loaded machine makes the test slower, never wrong. The two tests that
 * measure a frame rate check only upper bounds over the time that really
 * passed (a loaded machine draws fewer frames, never more). */
#include "splash/renderer.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "tests/testlib.h"

enum { MAX_FRAMES = 4096 };

struct fake_output {
        struct dmo_output base;
        struct dmo_scene frames[MAX_FRAMES];
        bool force[MAX_FRAMES];
        atomic_int n;
        atomic_uint bullets;
        atomic_int forgotten; /* forget_frame calls */
        pthread_mutex_t lock; /* the last frame's dialog, for the typing thread */
        struct dmo_dialog dialog;
};

static int fake_render(struct dmo_output *o, const struct dmo_scene *sc, bool force_full)
{
        struct fake_output *f = (struct fake_output *)o;
        int n = atomic_load(&f->n);
        if (n < MAX_FRAMES) {
                f->frames[n] = *sc;
                f->force[n] = force_full;
                atomic_store(&f->n, n + 1);
        }
        atomic_store(&f->bullets, sc->dialog.bullets);
        pthread_mutex_lock(&f->lock);
        f->dialog = sc->dialog;
        pthread_mutex_unlock(&f->lock);
        return 0;
}

static void fake_forget_frame(struct dmo_output *o)
{
        atomic_fetch_add(&((struct fake_output *)o)->forgotten, 1);
}

static const struct dmo_output_ops fake_ops = {
    .name = "fake",
    .render = fake_render,
    .forget_frame = fake_forget_frame,
};

static void sleep_ms(int ms)
{
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
}

static double cpu_ms(void)
{
        struct timespec t;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* A screen whose every frame costs 20 ms of CPU (an emulated machine). */
static int slow_render(struct dmo_output *o, const struct dmo_scene *sc, bool force_full)
{
        double end = cpu_ms() + 20;
        while (cpu_ms() < end)
                ;
        return fake_render(o, sc, force_full);
}

static const struct dmo_output_ops slow_ops = {
    .name = "slow",
    .render = slow_render,
};

static struct fake_output *fake_new(void)
{
        struct fake_output *f = calloc(1, sizeof(*f));
        f->base.ops = &fake_ops;
        pthread_mutex_init(&f->lock, NULL);
        return f;
}

/* Long enough for any loaded machine: the slowest wait, two 20 ms frames at
 * nice 19 against two busy loops (and five other builds on two cores), took
 * up to 18 s. A deadline only ends a wait that a broken renderer would
 * never end. */
static const int deadline_ms = 60000;

static uint64_t now_ms(void)
{
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* Polls cond until it holds or the deadline passes. */
#define WAIT_FOR(cond)                                                                             \
        ({                                                                                         \
                uint64_t end_ = now_ms() + (uint64_t)deadline_ms;                                  \
                bool ok_;                                                                          \
                while (!(ok_ = (cond)) && now_ms() < end_)                                         \
                        sleep_ms(2);                                                               \
                ok_;                                                                               \
        })

static int frames(const struct fake_output *f)
{
        return atomic_load(&f->n);
}

/* The last frame shows a dialog of this kind with this prompt: a dialog of
 * its own, never one left over from before. */
static bool shows_dialog(struct fake_output *f, enum dmo_dialog_kind kind, const char *prompt)
{
        pthread_mutex_lock(&f->lock);
        bool yes = f->dialog.kind == kind && strcmp(f->dialog.prompt, prompt) == 0;
        pthread_mutex_unlock(&f->lock);
        return yes;
}

struct rig {
        struct dmo_progress *p;
        struct fake_output *f;
        struct dmo_renderer *r;
        int keys[2]; /* pipe: [1] is where the test types */
};

static bool rig_start_budget(struct rig *g, unsigned fps, bool with_keys, unsigned budget)
{
        memset(g, 0, sizeof(*g));
        g->keys[0] = g->keys[1] = -1;
        if (dmo_progress_new(DMO_MODE_HIBERNATE, &g->p) != 0)
                return false;
        g->f = fake_new();
        if (with_keys && pipe(g->keys) != 0)
                return false;
        struct dmo_output *outs[] = {&g->f->base};
        struct dmo_renderer_config cfg = {.progress = g->p,
                                          .outputs = outs,
                                          .n_outputs = 1,
                                          .fps = fps,
                                          .key_fds = g->keys, /* [0]: the read end, or -1 */
                                          .n_key_fds = 1,
                                          .cpu_budget_percent = budget};
        return dmo_renderer_new(&cfg, &g->r) == 0 && dmo_renderer_start(g->r) == 0;
}

static bool rig_start(struct rig *g, unsigned fps, bool with_keys)
{
        return rig_start_budget(g, fps, with_keys, 15);
}

static void rig_free(struct rig *g)
{
        dmo_renderer_free(g->r);
        dmo_progress_free(g->p);
        pthread_mutex_destroy(&g->f->lock);
        free(g->f);
        if (g->keys[0] >= 0) {
                close(g->keys[0]);
                close(g->keys[1]);
        }
}

static void type(struct rig *g, const char *s)
{
        if (write(g->keys[1], s, strlen(s)) != (ssize_t)strlen(s))
                printf("# short write to the key pipe\n");
}

static void test_bar_eases_forward_never_back_and_ends_exact(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 120, false));
        dmo_progress_set_phase(g.p, DMO_PHASE_WRITE);
        dmo_progress_set_total(g.p, 1000);
        for (int i = 0; i < 10; i++) {
                dmo_progress_add_pages(g.p, 100);
                /* A frame has seen this step before the next one comes. */
                uint64_t done = (uint64_t)(i + 1) * 100;
                REQUIRE(WAIT_FOR(frames(g.f) > 0 &&
                                 g.f->frames[frames(g.f) - 1].progress.pages_done >= done));
        }
        dmo_progress_set_phase(g.p, DMO_PHASE_SYNC);
        CHECK_INT(dmo_renderer_stop(g.r), ==, 0);
        int n = frames(g.f);
        CHECK_INT(n, >=, 11);
        bool eased = false;
        for (int i = 1; i < n; i++) {
                const struct dmo_scene *a = &g.f->frames[i - 1], *b = &g.f->frames[i];
                CHECK(b->bar_fraction >= a->bar_fraction);
                CHECK(b->bar_fraction <= b->progress.fraction + 1e-9);
                CHECK_INT(b->frame_counter, ==, a->frame_counter + 1);
                eased |= b->bar_fraction < b->progress.fraction - 1e-6;
        }
        /* The bar lags the model at least once (the first frame after each
         * of the ten steps lags it): it is eased, not copied. */
        CHECK(eased);
        const struct dmo_scene *last = &g.f->frames[n - 1];
        CHECK_INT(last->progress.phase, ==, DMO_PHASE_SYNC);
        CHECK(last->bar_fraction == last->progress.fraction);
        CHECK_INT(last->kind, ==, DMO_SCENE_HIBERNATE);
        rig_free(&g);
}

static void test_first_frame_and_requested_frame_are_full(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 60, false));
        REQUIRE(WAIT_FOR(frames(g.f) >= 2));
        int before = frames(g.f);
        dmo_renderer_force_full(g.r);
        REQUIRE(WAIT_FOR(frames(g.f) >= before + 2));
        dmo_renderer_stop(g.r);
        int n = frames(g.f);
        CHECK(g.f->force[0]);
        int full = 0;
        for (int i = 1; i < n; i++)
                full += g.f->force[i];
        CHECK_INT(full, ==, 1);
        /* The requested one comes after the request (a frame drawn while it
         * was made may come first). */
        bool after = false;
        for (int i = before - 1; i < n; i++)
                after |= g.f->force[i];
        CHECK(after);
        rig_free(&g);
}

/* The wait for the first frame returns once the output has it, and times
 * out on a renderer that never drew (not started). */
static void test_wait_for_the_first_frame(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 30, false));
        CHECK_INT(dmo_renderer_wait_first_frame(g.r, 5000), ==, 0);
        CHECK_INT(frames(g.f), >=, 1);
        dmo_renderer_stop(g.r);
        rig_free(&g);

        struct dmo_progress *p;
        REQUIRE(dmo_progress_new(DMO_MODE_HIBERNATE, &p) == 0);
        struct fake_output *f = fake_new();
        struct dmo_output *outs[] = {&f->base};
        struct dmo_renderer_config cfg = {.progress = p, .outputs = outs, .n_outputs = 1};
        struct dmo_renderer *r;
        REQUIRE(dmo_renderer_new(&cfg, &r) == 0);
        CHECK_INT(dmo_renderer_wait_first_frame(r, 50), ==, -ETIMEDOUT);
        CHECK_INT(frames(f), ==, 0);
        dmo_renderer_free(r);
        dmo_progress_free(p);
        pthread_mutex_destroy(&f->lock);
        free(f);
}

static void test_restart_keeps_the_bar_and_repaints_fully_only_on_request(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 60, false));
        dmo_progress_set_phase(g.p, DMO_PHASE_WRITE);
        dmo_progress_set_total(g.p, 100);
        dmo_progress_add_pages(g.p, 50);
        REQUIRE(WAIT_FOR(frames(g.f) >= 2));
        CHECK(g.f->force[0]); /* the very first frame is full */
        /* The CLI stops the thread around the kernel's freeze, then starts it
         * again: the screen still holds the last frame. */
        REQUIRE(dmo_renderer_stop(g.r) == 0);
        int first_run = frames(g.f);
        double bar = g.f->frames[first_run - 1].bar_fraction;
        REQUIRE(dmo_renderer_start(g.r) == 0);
        REQUIRE(WAIT_FOR(frames(g.f) > first_run));
        dmo_renderer_stop(g.r);
        int second_run = frames(g.f);
        CHECK(!g.f->force[first_run]);
        CHECK(g.f->frames[first_run].bar_fraction >= bar);
        CHECK_INT(g.f->frames[first_run].frame_counter, ==,
                  g.f->frames[first_run - 1].frame_counter + 1);
        /* After the kernel suspended the devices: a full repaint. */
        dmo_renderer_force_full(g.r);
        REQUIRE(dmo_renderer_start(g.r) == 0);
        REQUIRE(WAIT_FOR(frames(g.f) > second_run));
        dmo_renderer_stop(g.r);
        CHECK(g.f->force[second_run]);
        rig_free(&g);
}

/* Before the snapshot the outputs drop the frame they keep in memory: only
 * with the thread stopped, and the next frame is drawn whole. */
static void test_forgotten_frames_are_drawn_whole_next(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 60, false));
        dmo_progress_set_phase(g.p, DMO_PHASE_SNAPSHOT);
        REQUIRE(WAIT_FOR(frames(g.f) >= 2));
        CHECK_INT(dmo_renderer_forget_frames(g.r), ==, -EBUSY);
        CHECK_INT(atomic_load(&g.f->forgotten), ==, 0);
        REQUIRE(dmo_renderer_stop(g.r) == 0);
        int stopped = frames(g.f);
        CHECK(!g.f->force[stopped - 1]);
        REQUIRE(dmo_renderer_forget_frames(g.r) == 0);
        CHECK_INT(atomic_load(&g.f->forgotten), ==, 1);
        REQUIRE(dmo_renderer_start(g.r) == 0);
        REQUIRE(WAIT_FOR(frames(g.f) > stopped));
        dmo_renderer_stop(g.r);
        CHECK(g.f->force[stopped]);
        rig_free(&g);
}

/* Around the freeze the thread goes without a final frame (it would cost
 * the hibernation a frame of CPU time); a stop draws one. One frame a
 * second, so no periodic frame comes in between on any machine that gets
 * from one call to the next within the second. */
static void test_pause_draws_no_final_frame_stop_does(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 1, false));
        dmo_progress_set_phase(g.p, DMO_PHASE_WRITE);
        REQUIRE(WAIT_FOR(frames(g.f) >= 1));
        uint64_t t0 = now_ms();
        int before = frames(g.f);
        REQUIRE(dmo_renderer_pause(g.r) == 0);
        int after_pause = frames(g.f);
        uint64_t t1 = now_ms();
        if (t1 - t0 < 900)
                CHECK_INT(after_pause, ==, before);
        else
                printf("# the pause took %llu ms: a periodic frame may have come\n",
                       (unsigned long long)(t1 - t0));
        CHECK_INT(dmo_renderer_pause(g.r), ==, -EINVAL); /* not running */
        REQUIRE(dmo_renderer_start(g.r) == 0);
        REQUIRE(WAIT_FOR(frames(g.f) > after_pause)); /* drawing goes on */
        int running = frames(g.f);
        t0 = now_ms();
        REQUIRE(dmo_renderer_stop(g.r) == 0);
        if (now_ms() - t0 < 900)
                CHECK_INT(frames(g.f), ==, running + 1);
        rig_free(&g);
}

/* Frames drawn in elapsed_ms at most: one per period, the first and the
 * final one. A loaded machine draws fewer, never more. */
static int most_frames(uint64_t elapsed_ms, unsigned period_ms)
{
        return (int)(elapsed_ms / period_ms) + 2;
}

static void test_frame_rate_is_bounded(void)
{
        struct rig g;
        uint64_t t0 = now_ms();
        REQUIRE(rig_start(&g, 10, false));
        REQUIRE(WAIT_FOR(frames(g.f) >= 3));
        dmo_renderer_stop(g.r);
        uint64_t elapsed = now_ms() - t0;
        int n = frames(g.f);
        printf("# %d frames in %llu ms at 10 fps\n", n, (unsigned long long)elapsed);
        /* 10 fps: 100 ms apart; a little slack for timer rounding. */
        CHECK_INT(n, <=, most_frames(elapsed, 90));
        CHECK(elapsed >= 150); /* three frames take at least two periods */
        rig_free(&g);
}

/* 60 fps asked, 20 ms of CPU per frame: without a budget that is a frame
 * every ~20 ms (all of a CPU); with it (~15% of a CPU), a frame and then a
 * pause of ~113 ms; at 5% (one CPU online), ~380 ms. */
static void expensive_frames(unsigned budget, uint64_t least_pause_ms)
{
        struct rig g;
        REQUIRE(rig_start_budget(&g, 60, false, budget));
        REQUIRE(dmo_renderer_stop(g.r) == 0);
        g.f->base.ops = &slow_ops;
        atomic_store(&g.f->n, 0);
        uint64_t t0 = now_ms();
        REQUIRE(dmo_renderer_start(g.r) == 0);
        /* Each frame takes 20 ms of CPU: at nice 19 against busy loops
         * that is seconds of wall time, so two frames are enough. */
        REQUIRE(WAIT_FOR(frames(g.f) >= 2));
        dmo_renderer_stop(g.r);
        uint64_t elapsed = now_ms() - t0;
        int n = frames(g.f);
        printf("# budget %u%%: %d frames in %llu ms at 20 ms of CPU each\n", budget, n,
               (unsigned long long)elapsed);
        /* A pause between two frames, even unloaded. */
        CHECK(elapsed >= least_pause_ms);
        CHECK_INT(n, <=, most_frames(elapsed, (unsigned)least_pause_ms));
        rig_free(&g);
}

static void test_expensive_frames_come_less_often(void)
{
        expensive_frames(15, 100);
}

static void test_smaller_budget_spaces_expensive_frames_further(void)
{
        expensive_frames(5, 350);
}

/* A share of more than the whole CPU is refused. */
static void test_budget_above_a_whole_cpu_is_refused(void)
{
        struct dmo_progress *p;
        REQUIRE(dmo_progress_new(DMO_MODE_HIBERNATE, &p) == 0);
        struct dmo_renderer *r = NULL;
        struct dmo_renderer_config cfg = {.progress = p, .cpu_budget_percent = 101};
        CHECK_INT(dmo_renderer_new(&cfg, &r), ==, -EINVAL);
        CHECK(r == NULL);
        dmo_progress_free(p);
}

static void test_failed_phase_and_detail_make_error_scene(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 60, false));
        dmo_progress_set_phase(g.p, DMO_PHASE_FAILED);
        dmo_renderer_stop(g.r); /* the final frame samples the model */
        int n = frames(g.f);
        CHECK_INT(g.f->frames[n - 1].kind, ==, DMO_SCENE_ERROR);
        rig_free(&g);

        REQUIRE(rig_start(&g, 60, false));
        dmo_renderer_set_detail(g.r, DMO_SCENE_ABORTED, "Cancelled from the keyboard.");
        dmo_renderer_stop(g.r);
        n = frames(g.f);
        CHECK_INT(g.f->frames[n - 1].kind, ==, DMO_SCENE_ABORTED);
        CHECK(strcmp(g.f->frames[n - 1].detail, "Cancelled from the keyboard.") == 0);
        rig_free(&g);
}

static void test_backspace_requests_abort(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 60, true));
        CHECK(!dmo_progress_abort_requested(g.p));
        type(&g, "\x7f");
        CHECK(WAIT_FOR(dmo_progress_abort_requested(g.p)));
        dmo_renderer_stop(g.r);
        rig_free(&g);
}

static void test_lone_esc_requests_abort_but_arrow_does_not(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 60, true));
        /* The `r` after the arrow is a marker: once it toggled, every byte
         * of the arrow was read and decoded. */
        type(&g, "\x1b[Ar");
        REQUIRE(WAIT_FOR(dmo_renderer_reboot_after(g.r)));
        CHECK(!dmo_progress_abort_requested(g.p));
        type(&g, "\x1b");
        CHECK(WAIT_FOR(dmo_progress_abort_requested(g.p)));
        dmo_renderer_stop(g.r);
        rig_free(&g);
}

static void test_r_toggles_reboot_after_in_scene(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 60, true));
        type(&g, "r");
        CHECK(WAIT_FOR(dmo_renderer_reboot_after(g.r)));
        int n = frames(g.f);
        REQUIRE(WAIT_FOR(frames(g.f) > n + 1)); /* a frame drawn after the toggle */
        type(&g, "r");
        CHECK(WAIT_FOR(!dmo_renderer_reboot_after(g.r)));
        dmo_renderer_stop(g.r);
        n = frames(g.f);
        bool seen = false;
        for (int i = 0; i < n; i++)
                seen |= g.f->frames[i].reboot_after;
        CHECK(seen);
        CHECK(!g.f->frames[n - 1].reboot_after);
        CHECK(!dmo_progress_abort_requested(g.p));
        rig_free(&g);
}

/* Dialogs wait for a key at most this long: far beyond the deadline the
 * typists wait for, so a dialog never times out under a slow typist. */
static const int dialog_timeout_ms = 2 * 60000;

struct typist {
        struct rig *g;
        const char *keys;
        enum dmo_dialog_kind kind;
        const char *prompt; /* unique per dialog in a test */
};

/* Waits until a frame shows this very dialog, then types. */
static void *typist_main(void *arg)
{
        struct typist *t = arg;
        if (!WAIT_FOR(shows_dialog(t->g->f, t->kind, t->prompt)))
                return NULL; /* the dialog's own check reports it */
        for (const char *k = t->keys; *k; k++) {
                char one[2] = {*k, 0};
                type(t->g, one);
        }
        return NULL;
}

/* Types a passphrase key by key, each time waiting until a frame shows the
 * bullets it should (so the test does not depend on the frame rate). */
static void *passphrase_typist_main(void *arg)
{
        struct rig *g = arg;
        static const struct {
                const char *bytes;
                int bullets; /* after this key; -1: do not wait */
        } steps[] = {{"a", 1}, {"b", 2}, {"\xc3\xa9", 3}, {"x", 4}, {"\x7f", 3}, {"\r", -1}};
        if (!WAIT_FOR(shows_dialog(g->f, DMO_DIALOG_PASSWORD, "Passphrase")))
                return NULL;
        for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
                type(g, steps[k].bytes);
                if (steps[k].bullets >= 0 &&
                    !WAIT_FOR(atomic_load(&g->f->bullets) == (unsigned)steps[k].bullets))
                        return NULL;
        }
        return NULL;
}

static void test_password_dialog_takes_keys_shows_bullets_not_abort(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 60, true));
        pthread_t th;
        pthread_create(&th, NULL, passphrase_typist_main, &g);
        char buf[64];
        int err = dmo_renderer_ask_password(g.r, "Passphrase", buf, sizeof(buf), dialog_timeout_ms);
        pthread_join(th, NULL);
        CHECK_INT(err, ==, 0);
        CHECK(strcmp(buf, "ab\xc3\xa9") == 0);
        /* Backspace went to the dialog, not to abort. */
        CHECK(!dmo_progress_abort_requested(g.p));
        dmo_renderer_stop(g.r); /* the final frame has the dialog closed */
        int n = frames(g.f);
        unsigned most = 0;
        bool prompt = false;
        for (int i = 0; i < n; i++) {
                if (g.f->frames[i].dialog.bullets > most)
                        most = g.f->frames[i].dialog.bullets;
                prompt |= strcmp(g.f->frames[i].dialog.prompt, "Passphrase") == 0;
        }
        CHECK_INT(most, ==, 4);
        CHECK(prompt);
        CHECK_INT(g.f->frames[n - 1].dialog.kind, ==, DMO_DIALOG_NONE);
        rig_free(&g);
}

static void test_password_dialog_esc_cancels_and_wipes(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 60, true));
        struct typist t = {&g, "secret\x1b", DMO_DIALOG_PASSWORD, "Passphrase 1"};
        pthread_t th;
        pthread_create(&th, NULL, typist_main, &t);
        char buf[64];
        int err = dmo_renderer_ask_password(g.r, t.prompt, buf, sizeof(buf), dialog_timeout_ms);
        pthread_join(th, NULL);
        CHECK_INT(err, ==, -ECANCELED);
        CHECK(buf[0] == '\0' && buf[3] == '\0');
        CHECK(!dmo_progress_abort_requested(g.p));
        /* A short buffer takes what fits. */
        t.keys = "abcdef\r";
        t.prompt = "Passphrase 2";
        pthread_create(&th, NULL, typist_main, &t);
        char small[4];
        err = dmo_renderer_ask_password(g.r, t.prompt, small, sizeof(small), dialog_timeout_ms);
        pthread_join(th, NULL);
        CHECK_INT(err, ==, 0);
        CHECK(strcmp(small, "abc") == 0);
        dmo_renderer_stop(g.r);
        rig_free(&g);
}

static void test_yes_no_keys_and_timeout_default(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 60, true));
        struct typist t = {&g, "n", DMO_DIALOG_QUESTION, "Continue? (1)"};
        pthread_t th;
        pthread_create(&th, NULL, typist_main, &t);
        CHECK_INT(dmo_renderer_ask_yes_no(g.r, t.prompt, true, dialog_timeout_ms), ==, 0);
        pthread_join(th, NULL);
        /* The second typist waits for the second dialog, not for the first
         * one still on screen. */
        t.keys = "\t\r"; /* move from "no" to "yes", then Enter */
        t.prompt = "Continue? (2)";
        pthread_create(&th, NULL, typist_main, &t);
        CHECK_INT(dmo_renderer_ask_yes_no(g.r, t.prompt, false, dialog_timeout_ms), ==, 1);
        pthread_join(th, NULL);
        /* Nobody types: the default comes back after the timeout. */
        CHECK_INT(dmo_renderer_ask_yes_no(g.r, "Continue? (3)", true, 50), ==, 1);
        CHECK_INT(dmo_renderer_ask_yes_no(g.r, "Continue? (4)", false, 50), ==, 0);
        dmo_renderer_stop(g.r);
        rig_free(&g);
}

static void test_dialog_without_keys_or_thread_is_refused(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 60, false));
        char buf[8];
        CHECK_INT(dmo_renderer_ask_password(g.r, "x", buf, sizeof(buf), 10), ==, -ENOTTY);
        dmo_renderer_stop(g.r);
        CHECK_INT(dmo_renderer_ask_yes_no(g.r, "x", true, 10), ==, -EINVAL);
        rig_free(&g);
}

/* Two key terminals, as in the initramfs: stdin's (a serial console that
 * hangs up here) and the VT the screen shows. The passphrase typed on the
 * second reaches the dialog; the first one's end does not fail it; with
 * both gone a dialog has nobody to answer it. */
static void test_keys_from_either_terminal_reach_the_dialog(void)
{
        struct dmo_progress *p;
        REQUIRE(dmo_progress_new(DMO_MODE_RESUME, &p) == 0);
        struct fake_output *f = fake_new();
        int serial[2], vt[2];
        REQUIRE(pipe(serial) == 0 && pipe(vt) == 0);
        struct dmo_output *outs[] = {&f->base};
        int key_fds[] = {serial[0], vt[0]};
        struct dmo_renderer_config cfg = {.progress = p,
                                          .outputs = outs,
                                          .n_outputs = 1,
                                          .fps = 60,
                                          .key_fds = key_fds,
                                          .n_key_fds = 2};
        struct dmo_renderer *r;
        REQUIRE(dmo_renderer_new(&cfg, &r) == 0 && dmo_renderer_start(r) == 0);
        close(serial[1]); /* EOF on the first terminal */
        struct rig g = {.p = p, .f = f, .r = r, .keys = {vt[0], vt[1]}};
        struct typist t = {&g, "open sesame\r", DMO_DIALOG_PASSWORD, "Passphrase to resume:"};
        pthread_t th;
        pthread_create(&th, NULL, typist_main, &t);
        char buf[64];
        int err = dmo_renderer_ask_password(r, t.prompt, buf, sizeof(buf), dialog_timeout_ms);
        pthread_join(th, NULL);
        CHECK_INT(err, ==, 0);
        CHECK(strcmp(buf, "open sesame") == 0);
        close(vt[1]); /* now the second one ends too */
        CHECK_INT(dmo_renderer_ask_password(r, "again", buf, sizeof(buf), dialog_timeout_ms), ==,
                  -ENOTTY);
        dmo_renderer_free(r);
        dmo_progress_free(p);
        pthread_mutex_destroy(&f->lock);
        free(f);
        close(serial[0]);
        close(vt[0]);
}

/* A screen that draws three frames, then its device is gone. */
static atomic_int gone_calls;
static int gone_render(struct dmo_output *o, const struct dmo_scene *sc, bool force_full)
{
        struct fake_output *f = (struct fake_output *)o;
        atomic_fetch_add(&gone_calls, 1);
        if (frames(f) >= 3)
                return -ENODEV;
        return fake_render(o, sc, force_full);
}

static const struct dmo_output_ops gone_ops = {
    .name = "gone",
    .render = gone_render,
};

struct successor {
        struct fake_output *next;
        atomic_int asked;
        int refuse_first; /* the new device is not there for this many asks */
        size_t index;
};

static struct dmo_output *give_successor(void *ctx, size_t index)
{
        struct successor *s = ctx;
        s->index = index;
        if (atomic_fetch_add(&s->asked, 1) < s->refuse_first)
                return NULL;
        return &s->next->base;
}

/* The firmware's framebuffer is replaced by the GPU's driver while the
 * splash is up: the lost screen is never drawn to again, a replacement is
 * asked for (again, while there is none) and gets the whole frame. */
static void test_lost_screen_is_replaced_and_never_drawn_again(void)
{
        struct dmo_progress *p;
        REQUIRE(dmo_progress_new(DMO_MODE_RESUME, &p) == 0);
        struct fake_output *old = fake_new(), *keep = fake_new();
        old->base.ops = &gone_ops;
        struct successor succ = {.next = fake_new(), .refuse_first = 2};
        struct dmo_output *outs[] = {&keep->base, &old->base};
        struct dmo_renderer_config cfg = {.progress = p,
                                          .outputs = outs,
                                          .n_outputs = 2,
                                          .fps = 100,
                                          .replace_lost = give_successor,
                                          .replace_ctx = &succ};
        struct dmo_renderer *r;
        REQUIRE(dmo_renderer_new(&cfg, &r) == 0 && dmo_renderer_start(r) == 0);
        dmo_progress_set_total(p, 100);
        dmo_progress_set_phase(p, DMO_PHASE_READ);
        CHECK(WAIT_FOR(frames(succ.next) >= 3));
        int calls_then = atomic_load(&gone_calls);
        dmo_progress_add_pages(p, 50);
        CHECK(WAIT_FOR(frames(succ.next) >= 8));
        dmo_renderer_stop(r);
        CHECK_INT(atomic_load(&gone_calls), ==, calls_then); /* not one call after it was gone */
        CHECK_INT(atomic_load(&gone_calls), ==, 4);          /* three frames, then -ENODEV */
        CHECK(atomic_load(&succ.asked) >= 3);                /* asked until it was there */
        CHECK_INT((int)succ.index, ==, 1);
        CHECK(succ.next->force[0]);        /* its first frame is whole */
        CHECK(frames(keep) > frames(old)); /* the other screen went on */
        dmo_renderer_free(r);
        dmo_progress_free(p);
        free(old);
        free(keep);
        free(succ.next);
}

DMO_TEST_MAIN(
    T(test_forgotten_frames_are_drawn_whole_next),
    T(test_bar_eases_forward_never_back_and_ends_exact),
    T(test_first_frame_and_requested_frame_are_full), T(test_wait_for_the_first_frame),
    T(test_frame_rate_is_bounded), T(test_restart_keeps_the_bar_and_repaints_fully_only_on_request),
    T(test_pause_draws_no_final_frame_stop_does), T(test_expensive_frames_come_less_often),
    T(test_smaller_budget_spaces_expensive_frames_further),
    T(test_budget_above_a_whole_cpu_is_refused), T(test_failed_phase_and_detail_make_error_scene),
    T(test_backspace_requests_abort), T(test_lone_esc_requests_abort_but_arrow_does_not),
    T(test_r_toggles_reboot_after_in_scene),
    T(test_password_dialog_takes_keys_shows_bullets_not_abort),
    T(test_password_dialog_esc_cancels_and_wipes), T(test_yes_no_keys_and_timeout_default),
    T(test_dialog_without_keys_or_thread_is_refused),
    T(test_keys_from_either_terminal_reach_the_dialog),
    T(test_lost_screen_is_replaced_and_never_drawn_again))
