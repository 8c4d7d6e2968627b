/* The renderer thread with a fake output that records every scene. */
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
        atomic_int dialog_kind; /* of the last frame, for the typing thread */
        atomic_uint bullets;
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
        atomic_store(&f->dialog_kind, (int)sc->dialog.kind);
        return 0;
}

static const struct dmo_output_ops fake_ops = {
    .name = "fake",
    .render = fake_render,
};

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
        return f;
}

static void sleep_ms(int ms)
{
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
}

struct rig {
        struct dmo_progress *p;
        struct fake_output *f;
        struct dmo_renderer *r;
        int keys[2]; /* pipe: [1] is where the test types */
};

static bool rig_start(struct rig *g, unsigned fps, bool with_keys)
{
        memset(g, 0, sizeof(*g));
        g->keys[0] = g->keys[1] = -1;
        if (dmo_progress_new(DMO_MODE_HIBERNATE, &g->p) != 0)
                return false;
        g->f = fake_new();
        if (with_keys && pipe(g->keys) != 0)
                return false;
        struct dmo_output *outs[] = {&g->f->base};
        struct dmo_renderer_config cfg = {
            .progress = g->p, .outputs = outs, .n_outputs = 1, .fps = fps, .key_fd = g->keys[0]};
        return dmo_renderer_new(&cfg, &g->r) == 0 && dmo_renderer_start(g->r) == 0;
}

static void rig_free(struct rig *g)
{
        dmo_renderer_free(g->r);
        dmo_progress_free(g->p);
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
                sleep_ms(20);
        }
        dmo_progress_set_phase(g.p, DMO_PHASE_SYNC);
        CHECK_INT(dmo_renderer_stop(g.r), ==, 0);
        int n = atomic_load(&g.f->n);
        CHECK_INT(n, >=, 2); /* a loaded machine may draw few; the checks below hold for any */
        bool eased = false;
        for (int i = 1; i < n; i++) {
                const struct dmo_scene *a = &g.f->frames[i - 1], *b = &g.f->frames[i];
                CHECK(b->bar_fraction >= a->bar_fraction);
                CHECK(b->bar_fraction <= b->progress.fraction + 1e-9);
                CHECK_INT(b->frame_counter, ==, a->frame_counter + 1);
                eased |= b->bar_fraction < b->progress.fraction - 1e-6;
        }
        /* The bar lags the model at least once: it is eased, not copied. */
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
        sleep_ms(60);
        int before = atomic_load(&g.f->n);
        dmo_renderer_force_full(g.r);
        sleep_ms(60);
        dmo_renderer_stop(g.r);
        int n = atomic_load(&g.f->n);
        REQUIRE(n > before + 1);
        CHECK(g.f->force[0]);
        int full = 0;
        for (int i = 1; i < n; i++)
                full += g.f->force[i];
        CHECK_INT(full, ==, 1);
        bool after = false;
        for (int i = before; i < n; i++)
                after |= g.f->force[i];
        CHECK(after);
        rig_free(&g);
}

static void test_restart_keeps_the_bar_and_repaints_fully_only_on_request(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 60, false));
        dmo_progress_set_phase(g.p, DMO_PHASE_WRITE);
        dmo_progress_set_total(g.p, 100);
        dmo_progress_add_pages(g.p, 50);
        sleep_ms(40);
        CHECK(g.f->force[0]); /* the very first frame is full */
        /* The CLI stops the thread around the kernel's freeze, then starts it
         * again: the screen still holds the last frame. */
        REQUIRE(dmo_renderer_stop(g.r) == 0);
        int first_run = atomic_load(&g.f->n);
        double bar = g.f->frames[first_run - 1].bar_fraction;
        REQUIRE(dmo_renderer_start(g.r) == 0);
        sleep_ms(40);
        dmo_renderer_stop(g.r);
        int second_run = atomic_load(&g.f->n);
        REQUIRE(second_run > first_run);
        CHECK(!g.f->force[first_run]);
        CHECK(g.f->frames[first_run].bar_fraction >= bar);
        CHECK_INT(g.f->frames[first_run].frame_counter, ==,
                  g.f->frames[first_run - 1].frame_counter + 1);
        /* After the kernel suspended the devices: a full repaint. */
        dmo_renderer_force_full(g.r);
        REQUIRE(dmo_renderer_start(g.r) == 0);
        sleep_ms(40);
        dmo_renderer_stop(g.r);
        REQUIRE(atomic_load(&g.f->n) > second_run);
        CHECK(g.f->force[second_run]);
        rig_free(&g);
}

static void test_frame_rate_is_bounded(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 10, false));
        sleep_ms(500);
        dmo_renderer_stop(g.r);
        int n = atomic_load(&g.f->n);
        /* 10 fps for 0.5 s: ~5 frames plus the final one; never more than
         * the rate allows (fewer is a loaded machine, not a fault). */
        CHECK_INT(n, >=, 1);
        CHECK_INT(n, <=, 8);
        rig_free(&g);
}

/* 60 fps asked, 20 ms of CPU per frame: without a budget that is ~25
 * frames in half a second (all of a CPU); with it, a frame and then a pause
 * of ~113 ms, so a handful. */
static void test_expensive_frames_come_less_often(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 60, false));
        REQUIRE(dmo_renderer_stop(g.r) == 0);
        g.f->base.ops = &slow_ops;
        atomic_store(&g.f->n, 0);
        REQUIRE(dmo_renderer_start(g.r) == 0);
        sleep_ms(500);
        dmo_renderer_stop(g.r);
        int n = atomic_load(&g.f->n);
        printf("# %d frames in 0.5 s at 20 ms of CPU each\n", n);
        CHECK_INT(n, >=, 2);
        CHECK_INT(n, <=, 8);
        rig_free(&g);
}

static void test_failed_phase_and_detail_make_error_scene(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 60, false));
        dmo_progress_set_phase(g.p, DMO_PHASE_FAILED);
        sleep_ms(40);
        dmo_renderer_stop(g.r);
        int n = atomic_load(&g.f->n);
        CHECK_INT(g.f->frames[n - 1].kind, ==, DMO_SCENE_ERROR);
        rig_free(&g);

        REQUIRE(rig_start(&g, 60, false));
        dmo_renderer_set_detail(g.r, DMO_SCENE_ABORTED, "Cancelled from the keyboard.");
        dmo_renderer_stop(g.r);
        n = atomic_load(&g.f->n);
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
        sleep_ms(100);
        CHECK(dmo_progress_abort_requested(g.p));
        dmo_renderer_stop(g.r);
        rig_free(&g);
}

static void test_lone_esc_requests_abort_but_arrow_does_not(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 60, true));
        type(&g, "\x1b[A");
        sleep_ms(150);
        CHECK(!dmo_progress_abort_requested(g.p));
        type(&g, "\x1b");
        sleep_ms(150);
        CHECK(dmo_progress_abort_requested(g.p));
        dmo_renderer_stop(g.r);
        rig_free(&g);
}

static void test_r_toggles_reboot_after_in_scene(void)
{
        struct rig g;
        REQUIRE(rig_start(&g, 60, true));
        type(&g, "r");
        sleep_ms(100);
        CHECK(dmo_renderer_reboot_after(g.r));
        type(&g, "r");
        sleep_ms(100);
        CHECK(!dmo_renderer_reboot_after(g.r));
        dmo_renderer_stop(g.r);
        int n = atomic_load(&g.f->n);
        bool seen = false;
        for (int i = 0; i < n; i++)
                seen |= g.f->frames[i].reboot_after;
        CHECK(seen);
        CHECK(!g.f->frames[n - 1].reboot_after);
        CHECK(!dmo_progress_abort_requested(g.p));
        rig_free(&g);
}

struct typist {
        struct rig *g;
        const char *keys;
        unsigned wait_kind;
};

/* Waits until the dialog is on screen, then types. */
static void *typist_main(void *arg)
{
        struct typist *t = arg;
        for (int i = 0; i < 200 && atomic_load(&t->g->f->dialog_kind) != (int)t->wait_kind; i++)
                sleep_ms(5);
        for (const char *k = t->keys; *k; k++) {
                char one[2] = {*k, 0};
                type(t->g, one);
                sleep_ms(15);
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
        for (int i = 0; i < 400 && atomic_load(&g->f->dialog_kind) != DMO_DIALOG_PASSWORD; i++)
                sleep_ms(5);
        for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
                type(g, steps[k].bytes);
                for (int i = 0; i < 400 && steps[k].bullets >= 0 &&
                                atomic_load(&g->f->bullets) != (unsigned)steps[k].bullets;
                     i++)
                        sleep_ms(5);
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
        int err = dmo_renderer_ask_password(g.r, "Passphrase", buf, sizeof(buf), 5000);
        pthread_join(th, NULL);
        CHECK_INT(err, ==, 0);
        CHECK(strcmp(buf, "ab\xc3\xa9") == 0);
        /* Backspace went to the dialog, not to abort. */
        CHECK(!dmo_progress_abort_requested(g.p));
        sleep_ms(50);
        dmo_renderer_stop(g.r);
        int n = atomic_load(&g.f->n);
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
        struct typist t = {&g, "secret\x1b", DMO_DIALOG_PASSWORD};
        pthread_t th;
        pthread_create(&th, NULL, typist_main, &t);
        char buf[64];
        int err = dmo_renderer_ask_password(g.r, "Passphrase", buf, sizeof(buf), 5000);
        pthread_join(th, NULL);
        CHECK_INT(err, ==, -ECANCELED);
        CHECK(buf[0] == '\0' && buf[3] == '\0');
        CHECK(!dmo_progress_abort_requested(g.p));
        /* A short buffer takes what fits. */
        t.keys = "abcdef\r";
        pthread_create(&th, NULL, typist_main, &t);
        char small[4];
        err = dmo_renderer_ask_password(g.r, "Passphrase", small, sizeof(small), 5000);
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
        struct typist t = {&g, "n", DMO_DIALOG_QUESTION};
        pthread_t th;
        pthread_create(&th, NULL, typist_main, &t);
        CHECK_INT(dmo_renderer_ask_yes_no(g.r, "Continue?", true, 5000), ==, 0);
        pthread_join(th, NULL);
        t.keys = "\t\r"; /* move from "no" to "yes", then Enter */
        pthread_create(&th, NULL, typist_main, &t);
        CHECK_INT(dmo_renderer_ask_yes_no(g.r, "Continue?", false, 5000), ==, 1);
        pthread_join(th, NULL);
        CHECK_INT(dmo_renderer_ask_yes_no(g.r, "Continue?", true, 50), ==, 1);
        CHECK_INT(dmo_renderer_ask_yes_no(g.r, "Continue?", false, 50), ==, 0);
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

DMO_TEST_MAIN(T(test_bar_eases_forward_never_back_and_ends_exact),
              T(test_first_frame_and_requested_frame_are_full), T(test_frame_rate_is_bounded),
              T(test_restart_keeps_the_bar_and_repaints_fully_only_on_request),
              T(test_expensive_frames_come_less_often),
              T(test_failed_phase_and_detail_make_error_scene), T(test_backspace_requests_abort),
              T(test_lone_esc_requests_abort_but_arrow_does_not),
              T(test_r_toggles_reboot_after_in_scene),
              T(test_password_dialog_takes_keys_shows_bullets_not_abort),
              T(test_password_dialog_esc_cancels_and_wipes),
              T(test_yes_no_keys_and_timeout_default),
              T(test_dialog_without_keys_or_thread_is_refused))
