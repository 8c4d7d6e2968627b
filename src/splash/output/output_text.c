/* The text output: on a terminal, one line redrawn in place (phase, bar,
 * percent, throughput, time left); elsewhere (a log, a pipe, a serial
 * console), a few plain lines per run. Every string is translated in open()
 * so render() never loads a catalog, allocates or blocks. */
#include "splash/output/output.h"

#include <errno.h>
#include <stdarg.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

#include "util/i18n.h"

enum {
        LINE_MAX_BYTES = 2048,
        DEFAULT_COLS = 80,
        BAR_MIN = 8,
        BAR_MAX = 50,
        MB = 1000000,
        MAX_ETA_S = 100 * 3600,
        MAX_MBPS = 1000000,
};

struct text_strings {
        const char *labels[DMO_PHASE_COUNT];
        int label_cols[DMO_PHASE_COUNT];
        int label_width;    /* the widest label, so the bar does not jump */
        const char *mbps;   /* "%u MB/s" */
        const char *secs;   /* "%u s left" */
        const char *mins;   /* "%u min left" */
        const char *yes_no; /* "[Y/n]" */
        const char *no_yes; /* "[y/N]" */
        const char *log_phase;
        const char *log_progress;
        const char *log_item;
        const char *log_totals;
        const char *log_aborted;
        const char *log_failed;
};

struct text_output {
        struct dmo_output base;
        int fd;
        bool tty;
        bool utf8;
        bool retain;
        struct text_strings s;
        /* tty state */
        bool line_open; /* a line is shown without its newline */
        bool finished;
        /* log state */
        bool started;
        enum dmo_phase last_phase;
        int last_decile;
        bool totals_done;
        char line[LINE_MAX_BYTES];
        char prev[LINE_MAX_BYTES];
};

static int text_cols(const char *s, bool utf8)
{
        if (!utf8)
                return (int)strlen(s);
        mbstate_t st;
        memset(&st, 0, sizeof(st));
        int cols = 0;
        size_t len = strlen(s);
        while (len > 0) {
                wchar_t wc;
                size_t n = mbrtowc(&wc, s, len, &st);
                if (n == 0 || n == (size_t)-1 || n == (size_t)-2) {
                        /* Not valid in this locale: count bytes rather than fail. */
                        memset(&st, 0, sizeof(st));
                        n = 1;
                        cols++;
                } else {
                        int w = wcwidth(wc);
                        cols += w > 0 ? w : 0;
                }
                s += n;
                len -= n;
        }
        return cols;
}

static void load_strings(struct text_strings *s, bool utf8)
{
        s->label_width = 0;
        for (int i = 0; i < DMO_PHASE_COUNT; i++) {
                s->labels[i] = dmo_phase_label((enum dmo_phase)i);
                s->label_cols[i] = text_cols(s->labels[i], utf8);
                if (s->label_cols[i] > s->label_width)
                        s->label_width = s->label_cols[i];
        }
        for (int how = DMO_GOING_DOWN_POWEROFF; how <= DMO_GOING_DOWN_SUSPEND; how++) {
                int cols = text_cols(
                    dmo_progress_phase_label(DMO_PHASE_POWEROFF, (enum dmo_going_down)how), utf8);
                if (cols > s->label_width)
                        s->label_width = cols;
        }
        s->mbps = _("%u MB/s");
        s->secs = _("%u s left");
        s->mins = _("%u min left");
        s->yes_no = _("[Y/n]");
        s->no_yes = _("[y/N]");
        /* TRANSLATORS: a log line when a phase starts: percent, phase label. */
        s->log_phase = _("[%3u%%] %s\n");
        /* TRANSLATORS: the whole job's percent (like the bar), phase label,
         * pages done, pages in all, the share of the pages done (their own
         * percent), then what is known of the throughput and the time left,
         * each after the separator below (", 230 MB/s, 1 s left"), or
         * nothing. "[ 40%] Writing the image: 1200 of 5400 pages (22%)" */
        s->log_progress = _("[%3u%%] %s: %llu of %llu pages (%u%%)%s\n");
        /* TRANSLATORS: goes before the throughput and before the time left
         * at the end of a log line. */
        s->log_item = _(", %s");
        /* TRANSLATORS: phase label, pages, MB of memory, seconds (with tenths), MB/s, MB stored. */
        s->log_totals = _("[100%%] %s: %llu pages (%llu MB) in %u.%u s, %u MB/s on average, "
                          "%llu MB on disk\n");
        /* TRANSLATORS: label, pages done, pages in all, message. */
        s->log_aborted = _("%s after %llu of %llu pages. %s\n");
        /* TRANSLATORS: label, the error in detail. */
        s->log_failed = _("%s: %s\n");
}

/* The translated formats are looked up once, at open (no catalog lookups
 * after the freeze), so the format handed to snprintf is not a literal. This
 * returns the cached translation and names the msgid it came from: the
 * format_arg attribute lets the compiler check the arguments against that
 * literal, as it does for gettext(); msgfmt --check-format checks the
 * translation against the msgid. */
static const char *cached(const char *translated, const char *msgid) __attribute__((format_arg(2)));
static const char *cached(const char *translated, const char *msgid)
{
        (void)msgid;
        return translated;
}

static bool locale_is_utf8(void)
{
        const char *cs = nl_langinfo(CODESET);
        return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

static int text_open(const struct dmo_output_config *cfg, struct dmo_output **out)
{
        struct text_output *t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        t->base.ops = &dmo_output_text;
        t->fd = cfg->tty_fd >= 0 ? cfg->tty_fd : STDERR_FILENO;
        /* arg "log": plain lines even on a terminal, e.g. the console of a
         * machine whose screen shows the graphical splash (a serial console
         * redrawn in place costs CPU the hibernation needs). */
        t->tty = isatty(t->fd) && !(cfg->arg && strcmp(cfg->arg, "log") == 0);
        t->utf8 = locale_is_utf8();
        t->last_decile = -1;
        load_strings(&t->s, t->utf8);
        *out = &t->base;
        return 0;
}

/* Writes all of it or gives up: a terminal that does not take the line now
 * gets the next one, the engine is never held up by a slow console. */
static void emit(struct text_output *t, const char *buf, size_t len)
{
        while (len > 0) {
                ssize_t n = write(t->fd, buf, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return;
                buf += n;
                len -= (size_t)n;
        }
}

static unsigned percent_of(double f)
{
        if (!(f > 0))
                return 0;
        if (f >= 1)
                return 100;
        return (unsigned)(f * 100.0);
}

static bool is_final(enum dmo_phase p)
{
        return p == DMO_PHASE_DONE || p == DMO_PHASE_ABORTED || p == DMO_PHASE_FAILED;
}

static bool is_data_phase(enum dmo_phase p)
{
        return p == DMO_PHASE_WRITE || p == DMO_PHASE_READ;
}

static void format_eta(const struct text_output *t, double eta, char *buf, size_t len)
{
        buf[0] = '\0';
        /* Unknown, or so far off (a stalled rate) that a number would be noise. */
        if (!(eta >= 0) || !(eta < MAX_ETA_S))
                return;
        unsigned s = (unsigned)(eta + 0.5);
        if (s < 1)
                s = 1; /* never "0 s" while there is work left */
        if (s < 100)
                snprintf(buf, len, cached(t->s.secs, "%u s left"), s);
        else
                snprintf(buf, len, cached(t->s.mins, "%u min left"), (s + 59) / 60);
}

static void format_rate(const struct text_output *t, double mbps, char *buf, size_t len)
{
        buf[0] = '\0';
        if (mbps > 0 && mbps < MAX_MBPS)
                snprintf(buf, len, cached(t->s.mbps, "%u MB/s"), (unsigned)(mbps + 0.5));
}

/* Appends with bounds; the line buffer is large enough for any layout that
 * fits a terminal, and a cut line is still a valid (shorter) line. */
static size_t append(char *buf, size_t pos, size_t cap, const char *s)
{
        size_t n = strlen(s);
        if (pos + n >= cap)
                n = pos < cap - 1 ? cap - 1 - pos : 0;
        memcpy(buf + pos, s, n);
        buf[pos + n] = '\0';
        return pos + n;
}

static size_t append_spaces(char *buf, size_t pos, size_t cap, int n)
{
        while (n-- > 0 && pos + 1 < cap)
                buf[pos++] = ' ';
        buf[pos] = '\0';
        return pos;
}

static size_t append_bar(const struct text_output *t, char *buf, size_t pos, size_t cap,
                         double frac, int width)
{
        /* Eighths of a cell, from ▏ (1/8) to █ (8/8). */
        static const char *const eighths[9] = {
            " ", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589", "\u2588",
        };
        if (!(frac > 0))
                frac = 0;
        if (frac > 1)
                frac = 1;
        long units = t->utf8 ? 8 : 1;
        long filled = (long)(frac * (double)(width * units) + 0.5);
        for (int i = 0; i < width; i++) {
                long cell = filled - (long)i * units;
                if (cell <= 0)
                        pos = append(buf, pos, cap, " ");
                else if (!t->utf8)
                        pos = append(buf, pos, cap, "#");
                else
                        pos = append(buf, pos, cap, eighths[cell >= 8 ? 8 : cell]);
        }
        return pos;
}

/* The label in exactly `width` columns: padded, or cut at a character
 * boundary with an ellipsis. */
static size_t append_label(const struct text_output *t, char *buf, size_t pos, size_t cap,
                           const char *label, int width)
{
        const char *ellipsis = t->utf8 ? "\u2026" : ".";
        int cols = text_cols(label, t->utf8);
        if (cols <= width) {
                pos = append(buf, pos, cap, label);
                return append_spaces(buf, pos, cap, width - cols);
        }
        mbstate_t st;
        memset(&st, 0, sizeof(st));
        size_t len = strlen(label);
        int used = 0;
        while (len > 0) {
                wchar_t wc;
                size_t n = t->utf8 ? mbrtowc(&wc, label, len, &st) : 1;
                int w = 1;
                if (n == 0 || n == (size_t)-1 || n == (size_t)-2)
                        break;
                if (t->utf8)
                        w = wcwidth(wc) > 0 ? wcwidth(wc) : 0;
                if (used + w > width - 1 || pos + n >= cap)
                        break;
                memcpy(buf + pos, label, n);
                pos += n;
                buf[pos] = '\0';
                used += w;
                label += n;
                len -= n;
        }
        pos = append(buf, pos, cap, ellipsis);
        return append_spaces(buf, pos, cap, width - 1 - used);
}

static int terminal_cols(const struct text_output *t)
{
        struct winsize ws;
        if (ioctl(t->fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
                return ws.ws_col;
        return DEFAULT_COLS;
}

static size_t tty_dialog_line(struct text_output *t, const struct dmo_scene *sc, char *buf,
                              size_t cap)
{
        size_t pos = append(buf, 0, cap, "\r");
        /* What the screen shows on its detail line while it asks: the
         * question alone may not say what it is about. */
        if (sc->detail[0]) {
                pos = append(buf, pos, cap, sc->detail);
                pos = append(buf, pos, cap, " ");
        }
        pos = append(buf, pos, cap, sc->dialog.prompt);
        pos = append(buf, pos, cap, " ");
        if (sc->dialog.kind == DMO_DIALOG_PASSWORD) {
                for (unsigned i = 0; i < sc->dialog.bullets && i < 64; i++)
                        pos = append(buf, pos, cap, t->utf8 ? "\u2022" : "*");
        } else {
                pos = append(buf, pos, cap, sc->dialog.answer_yes ? t->s.yes_no : t->s.no_yes);
        }
        return append(buf, pos, cap, "\033[K");
}

/* Columns the throughput and the time left take at their widest usual
 * values ("  9999 MB/s  99 min left"), in this language. */
static int stats_reserve(const struct text_output *t)
{
        char rate[64], secs[64], mins[64];
        format_rate(t, 9999, rate, sizeof(rate));
        snprintf(secs, sizeof(secs), cached(t->s.secs, "%u s left"), 99u);
        snprintf(mins, sizeof(mins), cached(t->s.mins, "%u min left"), 99u);
        int s = text_cols(secs, t->utf8), m = text_cols(mins, t->utf8);
        return 2 + text_cols(rate, t->utf8) + 2 + (s > m ? s : m);
}

/* The phase's name; while waiting for the device, what it waits for when
 * the engine's caller says (a network device: "Connecting to HOST..."). */
static const char *phase_text(const struct text_output *t, const struct dmo_progress_snapshot *p,
                              enum dmo_phase ph)
{
        if (ph == DMO_PHASE_WAIT && p->message[0])
                return p->message;
        return ph == DMO_PHASE_POWEROFF ? dmo_progress_phase_label(ph, p->going_down)
                                        : t->s.labels[ph];
}

static size_t tty_progress_line(struct text_output *t, const struct dmo_scene *sc, char *buf,
                                size_t cap)
{
        const struct dmo_progress_snapshot *p = &sc->progress;
        enum dmo_phase ph = p->phase < DMO_PHASE_COUNT ? p->phase : DMO_PHASE_FAILED;
        char rate[64], eta[64], pct[8];
        format_rate(t, is_data_phase(ph) ? p->mb_per_s : 0, rate, sizeof(rate));
        format_eta(t, is_final(ph) ? -1 : p->eta_s, eta, sizeof(eta));
        snprintf(pct, sizeof(pct), "%3u%%", percent_of(p->fraction));

        /* The last column stays empty: writing it makes some terminals wrap. */
        int cols = terminal_cols(t) - 1;
        /* The widest label, whole: a phase name is not cut. */
        int label_w = t->s.label_width;
        if (label_w > cols - 6)
                label_w = cols - 6 > 0 ? cols - 6 : 0;
        int fixed = label_w + 3 /* "  [" */ + 3 /* "]  " */ + 4 /* "100%" */;
        /* Room for the throughput and the time left is kept whether they
         * are shown yet or not, so the bar keeps its length when they come
         * and go; where there is no room for them, they are never shown. */
        int bar = cols - fixed - stats_reserve(t);
        if (bar < BAR_MIN) {
                /* Narrow terminal: throughput and time go first, then the bar. */
                rate[0] = eta[0] = '\0';
                bar = cols - fixed;
        }
        if (bar > BAR_MAX)
                bar = BAR_MAX;

        size_t pos = append(buf, 0, cap, "\r");
        if (label_w > 0)
                pos = append_label(t, buf, pos, cap, phase_text(t, p, ph), label_w);
        if (label_w > 0)
                pos = append(buf, pos, cap, bar >= BAR_MIN ? "  " : " ");
        if (bar >= BAR_MIN) {
                pos = append(buf, pos, cap, "[");
                pos = append_bar(t, buf, pos, cap, sc->bar_fraction, bar);
                pos = append(buf, pos, cap, "]  ");
        }
        pos = append(buf, pos, cap, pct);
        if (rate[0]) {
                pos = append(buf, pos, cap, "  ");
                pos = append(buf, pos, cap, rate);
        }
        if (eta[0]) {
                pos = append(buf, pos, cap, "  ");
                pos = append(buf, pos, cap, eta);
        }
        return append(buf, pos, cap, "\033[K");
}

static int render_tty(struct text_output *t, const struct dmo_scene *sc, bool force_full)
{
        const struct dmo_progress_snapshot *p = &sc->progress;
        bool final = sc->dialog.kind == DMO_DIALOG_NONE && is_final(p->phase);
        size_t len;

        if (final && t->finished)
                return 0;
        if (!final)
                t->finished = false;
        if (sc->dialog.kind != DMO_DIALOG_NONE)
                len = tty_dialog_line(t, sc, t->line, sizeof(t->line));
        else
                len = tty_progress_line(t, sc, t->line, sizeof(t->line));
        /* The same line again costs a serial console 100 bytes for nothing. */
        if (!force_full && !final && strcmp(t->line, t->prev) == 0)
                return 0;
        memcpy(t->prev, t->line, len + 1);
        emit(t, t->line, len);
        t->line_open = true;
        if (final) {
                const char *why = sc->detail[0] ? sc->detail : p->message;
                len = 0;
                t->line[0] = '\0';
                len = append(t->line, len, sizeof(t->line), "\n");
                if (p->phase != DMO_PHASE_DONE && why[0]) {
                        len = append(t->line, len, sizeof(t->line), why);
                        len = append(t->line, len, sizeof(t->line), "\n");
                }
                emit(t, t->line, len);
                t->line_open = false;
                t->finished = true;
                t->prev[0] = '\0';
        }
        return 0;
}

static void log_totals(struct text_output *t, const struct dmo_progress_snapshot *p,
                       enum dmo_phase ph)
{
        unsigned tenths = p->elapsed_s > 0 && p->elapsed_s < MAX_ETA_S
                              ? (unsigned)(p->elapsed_s * 10.0 + 0.5)
                              : 0;
        double rate = p->elapsed_s > 0 ? (double)p->bytes_in / MB / p->elapsed_s : 0;
        unsigned avg = rate < MAX_MBPS ? (unsigned)rate : MAX_MBPS;
        int n = snprintf(t->line, sizeof(t->line),
                         cached(t->s.log_totals, "[100%%] %s: %llu pages (%llu MB) in %u.%u s, %u "
                                                 "MB/s on average, %llu MB on disk\n"),
                         phase_text(t, p, ph), (unsigned long long)p->pages_done,
                         (unsigned long long)(p->bytes_in / MB), tenths / 10, tenths % 10, avg,
                         (unsigned long long)(p->bytes_out / MB));
        if (n > 0)
                emit(t, t->line, (size_t)n < sizeof(t->line) ? (size_t)n : sizeof(t->line) - 1);
        t->totals_done = true;
}

static int render_log(struct text_output *t, const struct dmo_scene *sc)
{
        const struct dmo_progress_snapshot *p = &sc->progress;
        enum dmo_phase ph = p->phase < DMO_PHASE_COUNT ? p->phase : DMO_PHASE_FAILED;
        unsigned pct = percent_of(p->fraction);
        int decile = (int)(pct / 10);
        int n = 0;

        if (t->started && ph == t->last_phase) {
                /* Within a phase: one line each time a new tenth is reached,
                 * none for 0% and 100% (the start and totals lines say those). */
                if (decile <= t->last_decile || decile < 1 || decile > 9)
                        return 0;
                t->last_decile = decile;
                char rate[64], eta[64], tail[160] = "";
                format_rate(t, p->mb_per_s, rate, sizeof(rate));
                format_eta(t, p->eta_s, eta, sizeof(eta));
                /* What is not known yet is left out, not shown as "-". */
                size_t tl = 0;
                if (rate[0])
                        tl += (size_t)snprintf(tail + tl, sizeof(tail) - tl,
                                               cached(t->s.log_item, ", %s"), rate);
                if (eta[0] && tl < sizeof(tail))
                        snprintf(tail + tl, sizeof(tail) - tl, cached(t->s.log_item, ", %s"), eta);
                int share = dmo_progress_data_percent(p);
                if (share < 0) /* a phase without pages to count */
                        n = snprintf(t->line, sizeof(t->line),
                                     cached(t->s.log_phase, "[%3u%%] %s\n"), (unsigned)decile * 10,
                                     phase_text(t, p, ph));
                else
                        n = snprintf(
                            t->line, sizeof(t->line),
                            cached(t->s.log_progress, "[%3u%%] %s: %llu of %llu pages (%u%%)%s\n"),
                            (unsigned)decile * 10, phase_text(t, p, ph),
                            (unsigned long long)p->pages_done, (unsigned long long)p->pages_total,
                            (unsigned)share, tail);
        } else {
                /* The engine says it failed before the command knows why;
                 * the reason comes as the scene's detail a moment later.
                 * The line waits for it rather than end in an empty ": ". */
                if (ph == DMO_PHASE_FAILED && !sc->detail[0] && !p->message[0])
                        return 0;
                t->started = true;
                t->last_phase = ph;
                /* A phase line stands for the tenth it starts in. */
                if (decile > t->last_decile)
                        t->last_decile = decile;
                /* Back in a system restored from the image, the counters are
                 * the ones frozen at the snapshot (no pages yet): no totals. */
                if (ph == DMO_PHASE_POWEROFF ||
                    (ph == DMO_PHASE_DONE && !t->totals_done && p->pages_total > 0)) {
                        log_totals(t, p, ph);
                        return 0;
                }
                if (ph == DMO_PHASE_ABORTED)
                        n = snprintf(t->line, sizeof(t->line),
                                     cached(t->s.log_aborted, "%s after %llu of %llu pages. %s\n"),
                                     phase_text(t, p, ph), (unsigned long long)p->pages_done,
                                     (unsigned long long)p->pages_total, p->message);
                else if (ph == DMO_PHASE_FAILED)
                        n = snprintf(t->line, sizeof(t->line), cached(t->s.log_failed, "%s: %s\n"),
                                     phase_text(t, p, ph), sc->detail[0] ? sc->detail : p->message);
                else
                        n = snprintf(t->line, sizeof(t->line),
                                     cached(t->s.log_phase, "[%3u%%] %s\n"), pct,
                                     phase_text(t, p, ph));
        }
        if (n > 0)
                emit(t, t->line, (size_t)n < sizeof(t->line) ? (size_t)n : sizeof(t->line) - 1);
        return 0;
}

static int text_render(struct dmo_output *o, const struct dmo_scene *scene, bool force_full)
{
        struct text_output *t = (struct text_output *)o;
        if (t->tty)
                return render_tty(t, scene, force_full);
        /* A log has no dialogs to redraw: the prompt is the CLI's to print. */
        return render_log(t, scene);
}

static void text_set_retain(struct dmo_output *o, bool retain)
{
        ((struct text_output *)o)->retain = retain;
}

static void text_close(struct dmo_output *o)
{
        struct text_output *t = (struct text_output *)o;
        if (!t)
                return;
        /* Leave the prompt on a line of its own, unless asked to keep the
         * line as it is for whoever takes the terminal over. */
        if (t->line_open && !t->retain)
                emit(t, "\n", 1);
        free(t);
}

const struct dmo_output_ops dmo_output_text = {
    .name = "text",
    .open = text_open,
    .render = text_render,
    .set_retain = text_set_retain,
    .close = text_close,
};
