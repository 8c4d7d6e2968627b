/* The text output: a live line on a terminal, a few log lines elsewhere. */
#include "splash/output/output.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "tests/testlib.h"

static char out_buf[1 << 16];

/* Everything written so far to the reading end (non-blocking). */
static const char *drain(int fd)
{
        size_t len = 0;
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        for (;;) {
                ssize_t n = read(fd, out_buf + len, sizeof(out_buf) - 1 - len);
                if (n <= 0)
                        break;
                len += (size_t)n;
        }
        out_buf[len] = '\0';
        return out_buf;
}

static void scene_from(struct dmo_progress *p, struct dmo_scene *sc)
{
        memset(sc, 0, sizeof(*sc));
        dmo_progress_sample(p, &sc->progress);
        sc->bar_fraction = sc->progress.fraction;
}

static int count_lines(const char *s)
{
        int n = 0;
        for (; *s; s++)
                n += *s == '\n';
        return n;
}

static struct dmo_output *open_text(int fd)
{
        struct dmo_output_config cfg = {.tty_fd = fd};
        struct dmo_output *o = NULL;
        if (dmo_output_text.open(&cfg, &o) != 0)
                return NULL;
        return o;
}

/* A text output logging into a pipe, with a progress model to drive it. */
struct log_rig {
        int fds[2];
        struct dmo_output *o;
        struct dmo_progress *p;
};

static bool log_rig_open(struct log_rig *r)
{
        if (pipe(r->fds) < 0)
                return false;
        r->o = open_text(r->fds[1]);
        return r->o && dmo_progress_new(DMO_MODE_HIBERNATE, &r->p) == 0;
}

/* Draws the model as it is now, times over. */
static void log_rig_render(struct log_rig *r, int times)
{
        struct dmo_scene sc;
        scene_from(r->p, &sc);
        for (int i = 0; i < times; i++)
                r->o->ops->render(r->o, &sc, false);
}

/* Closes the output and returns everything it wrote. */
static const char *log_rig_close(struct log_rig *r)
{
        r->o->ops->close(r->o);
        dmo_progress_free(r->p);
        const char *log = drain(r->fds[0]);
        close(r->fds[0]);
        close(r->fds[1]);
        return log;
}

/* A text output on a pseudo-terminal, cols columns wide (0: the pty's
 * default), with the C library in `locale`. */
struct tty {
        int master, slave;
        struct dmo_output *o;
};

static bool tty_open(struct tty *t, const char *locale, unsigned short cols)
{
        *t = (struct tty){.master = -1, .slave = -1};
        struct winsize ws = {.ws_row = 24, .ws_col = cols};
        if (!setlocale(LC_ALL, locale) ||
            openpty(&t->master, &t->slave, NULL, NULL, cols ? &ws : NULL) != 0)
                return false;
        t->o = open_text(t->slave);
        return t->o != NULL;
}

/* Closes the output and the program's end; what the output wrote on close
 * can still be drained from t->master until tty_close(). */
static void tty_close_output(struct tty *t)
{
        t->o->ops->close(t->o);
        close(t->slave);
}

static void tty_close(struct tty *t)
{
        close(t->master);
}

static void test_log_of_a_100000_page_run_has_start_each_tenth_once_and_totals(void)
{
        struct log_rig r;
        REQUIRE(log_rig_open(&r));
        static const enum dmo_phase before[] = {DMO_PHASE_PREPARE, DMO_PHASE_FREEZE,
                                                DMO_PHASE_SNAPSHOT};
        for (size_t i = 0; i < 3; i++) {
                dmo_progress_set_phase(r.p, before[i]);
                log_rig_render(&r, 5);
        }
        dmo_progress_set_phase(r.p, DMO_PHASE_WRITE);
        dmo_progress_set_total(r.p, 100000);
        for (int i = 0; i < 100000; i += 250) {
                dmo_progress_add_pages(r.p, 250);
                dmo_progress_add_bytes(r.p, 250 * 2048, 0);
                log_rig_render(&r, 1);
        }
        dmo_progress_set_phase(r.p, DMO_PHASE_SYNC);
        log_rig_render(&r, 1);
        dmo_progress_set_phase(r.p, DMO_PHASE_POWEROFF);
        log_rig_render(&r, 2);
        dmo_progress_set_phase(r.p, DMO_PHASE_DONE);
        log_rig_render(&r, 1);
        const char *log = log_rig_close(&r);
        for (const char *l = log; *l;) {
                const char *nl = strchr(l, '\n');
                int n = nl ? (int)(nl - l) : (int)strlen(l);
                printf("# %.*s\n", n, l);
                l += n + (nl != NULL);
        }

        CHECK(strchr(log, '\r') == NULL);
        CHECK_INT(count_lines(log), >=, 10);
        CHECK_INT(count_lines(log), <=, 15);
        CHECK_STR_CONTAINS(log, "Preparing");
        CHECK_STR_CONTAINS(log, "100000 pages");
        CHECK_STR_CONTAINS(log, "MB on disk");
        /* What is not known yet is left out, not written as "-". */
        CHECK(strstr(log, ", -") == NULL);
        /* Every tenth from 10% to 90% is reported by some line; progress lines
         * (with page counts) appear at most once per tenth. */
        for (unsigned d = 1; d <= 9; d++) {
                int any = 0, progress = 0;
                for (const char *l = log; l && *l;
                     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                        unsigned pct;
                        if (sscanf(l, "[%u%%]", &pct) != 1 || pct / 10 != d)
                                continue;
                        any++;
                        const char *nl = strchr(l, '\n');
                        const char *pages = strstr(l, " pages");
                        if (pages && (!nl || pages < nl))
                                progress++;
                }
                CHECK_INT(any, >=, 1);
                CHECK_INT(progress, <=, 1);
        }
        /* The bracket is the whole job and never goes back; the percent
         * after the page counts is their own share, and agrees with them. */
        unsigned last = 0, checked = 0;
        for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                unsigned job, share;
                unsigned long long done, total;
                if (sscanf(l, "[%u%%]", &job) == 1) {
                        CHECK_INT(job, >=, last);
                        last = job;
                }
                const char *colon = strchr(l, ':');
                if (colon &&
                    sscanf(colon, ": %llu of %llu pages (%u%%)", &done, &total, &share) == 3) {
                        CHECK_INT(share, ==, (unsigned)((done * 200 + total) / (2 * total)));
                        checked++;
                }
        }
        CHECK_INT(checked, >=, 5);
}

/* The process that hibernated wakes up in the restored system with the
 * counters frozen at the snapshot: its log says it is done, without totals
 * of "0 pages" it never wrote in this life. */
static void test_log_after_a_resume_has_no_bogus_totals(void)
{
        struct log_rig r;
        REQUIRE(log_rig_open(&r));
        dmo_progress_set_phase(r.p, DMO_PHASE_SNAPSHOT);
        log_rig_render(&r, 1);
        dmo_progress_set_phase(r.p, DMO_PHASE_DONE); /* create_image returned 0 */
        log_rig_render(&r, 1);
        const char *log = log_rig_close(&r);
        printf("# %s", log);
        CHECK(strstr(log, "0 pages") == NULL);
        CHECK(strstr(log, "MB on disk") == NULL);
}

static void test_log_of_an_aborted_run_says_how_far_it_got(void)
{
        struct log_rig r;
        REQUIRE(log_rig_open(&r));
        dmo_progress_set_phase(r.p, DMO_PHASE_WRITE);
        dmo_progress_set_total(r.p, 1000);
        dmo_progress_add_pages(r.p, 123);
        log_rig_render(&r, 1);
        dmo_progress_set_message(r.p, "Esc pressed.");
        dmo_progress_set_phase(r.p, DMO_PHASE_ABORTED);
        log_rig_render(&r, 2);
        const char *log = log_rig_close(&r);
        CHECK_STR_CONTAINS(log, "after 123 of 1000 pages");
        CHECK_STR_CONTAINS(log, "Esc pressed.");
        CHECK_INT(count_lines(log), ==, 2);
}

/* The engine's failed phase comes before the command's reason for it (the
 * scene's detail): the log writes one line, with the reason, not an empty
 * "Something went wrong: " first. */
static void test_log_of_a_failure_waits_for_its_reason(void)
{
        struct log_rig r;
        REQUIRE(log_rig_open(&r));
        dmo_progress_set_phase(r.p, DMO_PHASE_WRITE);
        dmo_progress_set_total(r.p, 1000);
        log_rig_render(&r, 1);
        dmo_progress_set_phase(r.p, DMO_PHASE_FAILED);
        log_rig_render(&r, 3);
        struct dmo_scene sc;
        scene_from(r.p, &sc);
        snprintf(sc.detail, sizeof(sc.detail), "the disk is gone (/dev/vda)");
        r.o->ops->render(r.o, &sc, false);
        r.o->ops->render(r.o, &sc, false);
        const char *log = log_rig_close(&r);
        printf("# %s", log);
        CHECK_STR_CONTAINS(log, "Something went wrong: the disk is gone (/dev/vda)\n");
        CHECK(strstr(log, "Something went wrong: \n") == NULL);
        CHECK_INT(count_lines(log), ==, 2);
}

/* Visible columns of the last redraw: after the last \r, without the erase. */
static int last_line_cols(const char *s, char *line, size_t len)
{
        const char *cr = strrchr(s, '\r');
        const char *start = cr ? cr + 1 : s;
        const char *end = strstr(start, "\033[K");
        size_t n = end ? (size_t)(end - start) : strlen(start);
        if (n >= len)
                n = len - 1;
        memcpy(line, start, n);
        line[n] = '\0';
        int cols = 0;
        for (size_t i = 0; i < n; i++)
                cols += ((unsigned char)line[i] & 0xc0) != 0x80;
        return cols;
}

static struct dmo_scene writing_scene(double f)
{
        struct dmo_scene sc;
        memset(&sc, 0, sizeof(sc));
        sc.progress.mode = DMO_MODE_HIBERNATE;
        sc.progress.phase = DMO_PHASE_WRITE;
        sc.progress.fraction = f;
        sc.bar_fraction = f;
        sc.progress.mb_per_s = 412.4;
        sc.progress.eta_s = 3.2;
        return sc;
}

/* Under half a second left is "1 s", never "0 s" with work still to do. */
static void test_tty_time_left_is_never_zero_while_work_is_left(void)
{
        struct tty t;
        REQUIRE(tty_open(&t, "C.UTF-8", 100));
        struct dmo_scene sc = writing_scene(0.52);
        sc.progress.eta_s = 0.3;
        t.o->ops->render(t.o, &sc, false);
        char line[1024];
        last_line_cols(drain(t.master), line, sizeof(line));
        printf("# [%s]\n", line);
        CHECK_STR_CONTAINS(line, " 1 s left");
        tty_close_output(&t);
        tty_close(&t);
}

static void test_tty_redraws_one_line_with_percent_rate_and_time(void)
{
        struct tty t;
        REQUIRE(tty_open(&t, "C.UTF-8", 100));
        struct dmo_output *o = t.o;
        int master = t.master, slave = t.slave;
        struct winsize ws = {.ws_row = 24, .ws_col = 100};
        struct dmo_scene sc = writing_scene(0.52);
        o->ops->render(o, &sc, false);
        sc = writing_scene(0.53);
        o->ops->render(o, &sc, false);
        const char *s = drain(master);
        char line[1024];
        int cols = last_line_cols(s, line, sizeof(line));
        printf("# [%s] %d cols\n", line, cols);
        CHECK(strchr(s, '\n') == NULL);
        CHECK_INT(s[0], ==, '\r');
        CHECK_STR_CONTAINS(line, " 53%");
        CHECK_STR_CONTAINS(line, "412 MB/s");
        CHECK_STR_CONTAINS(line, "3 s left");
        CHECK_STR_CONTAINS(line, "\u2588");
        CHECK_INT(cols, <=, 99);
        CHECK_INT(cols, >=, 80);

        /* Unchanged scene: nothing written. */
        o->ops->render(o, &sc, false);
        CHECK_INT(strlen(drain(master)), ==, 0);

        /* A narrower terminal gets a shorter line. */
        ws.ws_col = 60;
        REQUIRE(ioctl(slave, TIOCSWINSZ, &ws) == 0);
        o->ops->render(o, &sc, false);
        int narrow = last_line_cols(drain(master), line, sizeof(line));
        printf("# [%s] %d cols\n", line, narrow);
        CHECK_INT(narrow, <=, 59);
        CHECK_STR_CONTAINS(line, " 53%");

        /* Very narrow: the percent survives. */
        ws.ws_col = 20;
        REQUIRE(ioctl(slave, TIOCSWINSZ, &ws) == 0);
        o->ops->render(o, &sc, false);
        narrow = last_line_cols(drain(master), line, sizeof(line));
        CHECK_INT(narrow, <=, 19);
        CHECK_STR_CONTAINS(line, "53%");

        /* Done: the line ends, once. */
        sc.progress.phase = DMO_PHASE_DONE;
        sc.progress.fraction = sc.bar_fraction = 1;
        o->ops->render(o, &sc, false);
        o->ops->render(o, &sc, false);
        s = drain(master);
        CHECK_INT(count_lines(s), ==, 1);
        CHECK_STR_CONTAINS(s, "100%");
        tty_close_output(&t);
        CHECK_INT(strlen(drain(master)), ==, 0); /* no extra newline after a finished line */
        tty_close(&t);
}

/* Columns between the bar's brackets. */
static int bar_cols(const char *line)
{
        const char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
        int n = 0;
        for (const char *c = a ? a + 1 : NULL; c && c < b; c++)
                n += ((unsigned char)*c & 0xc0) != 0x80;
        return a && b ? n : -1;
}

/* At 80 and 60 columns the bar keeps its length when the throughput and
 * the time left appear, and the phase label is whole. */
static void test_tty_layout_is_stable_at_80_and_60_columns(void)
{
        static const unsigned short widths[] = {80, 60};
        for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
                struct tty t;
                REQUIRE(tty_open(&t, "C.UTF-8", widths[i]));
                struct dmo_output *o = t.o;
                char line[1024];
                struct dmo_scene sc = writing_scene(0.30);
                sc.progress.mb_per_s = 0; /* not measured yet */
                sc.progress.eta_s = -1;
                o->ops->render(o, &sc, false);
                last_line_cols(drain(t.master), line, sizeof(line));
                int before = bar_cols(line);
                printf("# %u cols, no rate yet: [%s]\n", widths[i], line);
                CHECK_STR_CONTAINS(line, "Saving memory to disk");
                sc = writing_scene(0.31);
                sc.progress.eta_s = 754; /* minutes */
                o->ops->render(o, &sc, false);
                int cols = last_line_cols(drain(t.master), line, sizeof(line));
                printf("# %u cols, with rate: [%s] %d cols\n", widths[i], line, cols);
                CHECK_INT(bar_cols(line), ==, before);
                CHECK_INT(before, >=, 8);
                CHECK_INT(cols, <=, widths[i] - 1);
                CHECK_STR_CONTAINS(line, "Saving memory to disk");
                tty_close_output(&t);
                tty_close(&t);
        }
}

static void test_tty_hides_an_infinite_or_unknown_time_left(void)
{
        struct tty t;
        REQUIRE(tty_open(&t, "C.UTF-8", 0));
        struct dmo_output *o = t.o;
        int master = t.master;
        /* A stalled rate gives an infinite ETA; a garbage rate must not print either. */
        struct dmo_scene sc = writing_scene(0.15);
        sc.progress.eta_s = 1.0 / 0.0;
        sc.progress.mb_per_s = 1e300;
        o->ops->render(o, &sc, false);
        const char *s = drain(master);
        CHECK_STR_CONTAINS(s, " 15%");
        CHECK(strstr(s, "left") == NULL);
        CHECK(strstr(s, "MB/s") == NULL);
        sc.progress.eta_s = 0.0 / 0.0;
        sc.progress.fraction = 0.16;
        o->ops->render(o, &sc, false);
        CHECK(strstr(drain(master), "left") == NULL);
        tty_close_output(&t);
        tty_close(&t);
}

static void test_tty_without_utf8_draws_hashes(void)
{
        struct tty t;
        REQUIRE(tty_open(&t, "C", 80));
        struct dmo_output *o = t.o;
        int master = t.master;
        struct dmo_scene sc = writing_scene(0.5);
        o->ops->render(o, &sc, false);
        const char *s = drain(master);
        CHECK_STR_CONTAINS(s, "#####");
        for (const char *c = s; *c; c++)
                CHECK(((unsigned char)*c) < 0x80);
        tty_close_output(&t);
        s = drain(master);
        CHECK_STR_CONTAINS(s, "\n"); /* an unfinished line is ended at close */
        tty_close(&t);
}

static void test_tty_failure_shows_the_detail_on_its_own_line(void)
{
        struct tty t;
        REQUIRE(tty_open(&t, "C.UTF-8", 0));
        struct dmo_output *o = t.o;
        int master = t.master;
        struct dmo_scene sc = writing_scene(0.3);
        sc.progress.phase = DMO_PHASE_FAILED;
        snprintf(sc.detail, sizeof(sc.detail), "Writing to /dev/vda2 failed: no space left.");
        o->ops->render(o, &sc, false);
        const char *s = drain(master);
        CHECK_STR_CONTAINS(s, "Something went wrong");
        CHECK_STR_CONTAINS(s, "\nWriting to /dev/vda2 failed: no space left.");
        tty_close_output(&t);
        tty_close(&t);
}

static void test_tty_password_dialog_shows_bullets_not_text(void)
{
        struct tty t;
        REQUIRE(tty_open(&t, "C.UTF-8", 0));
        struct dmo_output *o = t.o;
        int master = t.master;
        struct dmo_scene sc = writing_scene(0.3);
        sc.dialog.kind = DMO_DIALOG_PASSWORD;
        snprintf(sc.dialog.prompt, sizeof(sc.dialog.prompt), "Passphrase:");
        sc.dialog.bullets = 3;
        o->ops->render(o, &sc, false);
        const char *s = drain(master);
        CHECK_STR_CONTAINS(s, "Passphrase: \u2022\u2022\u2022\033[K");
        CHECK(strstr(s, "\u2022\u2022\u2022\u2022") == NULL);
        tty_close_output(&t);
        tty_close(&t);
}

DMO_TEST_MAIN(T(test_log_of_a_100000_page_run_has_start_each_tenth_once_and_totals),
              T(test_log_after_a_resume_has_no_bogus_totals),
              T(test_log_of_an_aborted_run_says_how_far_it_got),
              T(test_log_of_a_failure_waits_for_its_reason),
              T(test_tty_redraws_one_line_with_percent_rate_and_time),
              T(test_tty_time_left_is_never_zero_while_work_is_left),
              T(test_tty_layout_is_stable_at_80_and_60_columns),
              T(test_tty_without_utf8_draws_hashes),
              T(test_tty_hides_an_infinite_or_unknown_time_left),
              T(test_tty_failure_shows_the_detail_on_its_own_line),
              T(test_tty_password_dialog_shows_bullets_not_text))
