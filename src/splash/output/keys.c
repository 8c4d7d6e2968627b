#include "splash/output/keys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

enum {
        BYTE_ESC = 0x1b,
        BYTE_DEL = 0x7f,
        BYTE_BS = 0x08,
};

void dmo_key_decoder_init(struct dmo_key_decoder *d)
{
        memset(d, 0, sizeof(*d));
}

static void reset(struct dmo_key_decoder *d)
{
        d->len = 0;
        d->utf8_need = 0;
}

static bool esc_pending(const struct dmo_key_decoder *d)
{
        return d->len > 0 && d->seq[0] == BYTE_ESC;
}

static size_t simple(struct dmo_key_event *ev, enum dmo_key_kind kind)
{
        memset(ev, 0, sizeof(*ev));
        ev->kind = kind;
        return 1;
}

static size_t finish_utf8(struct dmo_key_decoder *d, struct dmo_key_event *ev)
{
        static const uint32_t min_of_len[5] = {0, 0, 0x80, 0x800, 0x10000};
        static const uint8_t lead_mask[5] = {0, 0x7f, 0x1f, 0x0f, 0x07};
        size_t n = d->len;
        uint32_t cp = d->seq[0] & lead_mask[n];

        for (size_t i = 1; i < n; i++)
                cp = (cp << 6) | (d->seq[i] & 0x3f);
        reset(d);
        /* Overlong forms, surrogates and values past Unicode are not characters. */
        if (cp < min_of_len[n] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
                return 0;
        memset(ev, 0, sizeof(*ev));
        ev->kind = DMO_KEY_CHAR;
        ev->codepoint = cp;
        memcpy(ev->utf8, d->seq, n);
        return 1;
}

static size_t finish_sequence(struct dmo_key_decoder *d, uint8_t final, struct dmo_key_event *ev)
{
        /* Arrows: CSI A..D or SS3 A..D, with or without modifiers (CSI 1;5A). */
        enum dmo_key_kind kind = DMO_KEY_OTHER;
        switch (final) {
        case 'A':
                kind = DMO_KEY_UP;
                break;
        case 'B':
                kind = DMO_KEY_DOWN;
                break;
        case 'C':
                kind = DMO_KEY_RIGHT;
                break;
        case 'D':
                kind = DMO_KEY_LEFT;
                break;
        }
        reset(d);
        return simple(ev, kind);
}

static size_t push_fresh(struct dmo_key_decoder *d, uint8_t byte, uint64_t now_ms,
                         struct dmo_key_event *ev)
{
        bool after_cr = d->last_cr;

        d->last_cr = byte == '\r';
        if (byte == BYTE_ESC) {
                d->seq[0] = byte;
                d->len = 1;
                d->esc_ms = now_ms;
                return 0;
        }
        if (byte == '\r')
                return simple(ev, DMO_KEY_ENTER);
        if (byte == '\n')
                return after_cr ? 0 : simple(ev, DMO_KEY_ENTER);
        if (byte == BYTE_DEL || byte == BYTE_BS)
                return simple(ev, DMO_KEY_BACKSPACE);
        if (byte == '\t')
                return simple(ev, DMO_KEY_TAB);
        if (byte < 0x20)
                return simple(ev, DMO_KEY_OTHER);
        if (byte < 0x80) {
                d->seq[0] = byte;
                d->len = 1;
                return finish_utf8(d, ev);
        }
        if (byte >= 0xc2 && byte <= 0xdf)
                d->utf8_need = 2;
        else if (byte >= 0xe0 && byte <= 0xef)
                d->utf8_need = 3;
        else if (byte >= 0xf0 && byte <= 0xf4)
                d->utf8_need = 4;
        else
                return 0; /* a stray continuation byte or an invalid lead byte */
        d->seq[0] = byte;
        d->len = 1;
        return 0;
}

static size_t push_escape(struct dmo_key_decoder *d, uint8_t byte, uint64_t now_ms,
                          struct dmo_key_event *ev)
{
        if (d->len == 1) {
                if (byte == '[' || byte == 'O') {
                        d->seq[d->len++] = byte;
                        return 0;
                }
                if (byte == BYTE_ESC) {
                        /* Esc Esc: the first one was a key on its own. */
                        d->esc_ms = now_ms;
                        return simple(ev, DMO_KEY_ESC);
                }
                /* Alt+key arrives as Esc key: not an Esc press. */
                reset(d);
                return simple(ev, DMO_KEY_OTHER);
        }
        if (d->seq[1] == 'O')
                return finish_sequence(d, byte, ev);
        if (byte >= 0x40 && byte <= 0x7e)
                return finish_sequence(d, byte, ev);
        if (byte < 0x20 || byte > 0x3f || d->len >= sizeof(d->seq)) {
                /* Not a well-formed CSI: drop it rather than guess. */
                reset(d);
                return simple(ev, DMO_KEY_OTHER);
        }
        d->seq[d->len++] = byte;
        return 0;
}

size_t dmo_key_decoder_push(struct dmo_key_decoder *d, uint8_t byte, uint64_t now_ms,
                            struct dmo_key_event ev[2])
{
        size_t n = dmo_key_decoder_tick(d, now_ms, &ev[0]);

        if (esc_pending(d))
                return n + push_escape(d, byte, now_ms, &ev[n]);
        if (d->utf8_need) {
                if ((byte & 0xc0) == 0x80) {
                        d->seq[d->len++] = byte;
                        return d->len == d->utf8_need ? n + finish_utf8(d, &ev[n]) : n;
                }
                reset(d); /* truncated character: drop it, the byte starts afresh */
        }
        return n + push_fresh(d, byte, now_ms, &ev[n]);
}

size_t dmo_key_decoder_tick(struct dmo_key_decoder *d, uint64_t now_ms, struct dmo_key_event *ev)
{
        if (!esc_pending(d) || d->len != 1 || now_ms - d->esc_ms < DMO_KEY_ESC_TIMEOUT_MS)
                return 0;
        reset(d);
        return simple(ev, DMO_KEY_ESC);
}

int dmo_key_decoder_timeout_ms(const struct dmo_key_decoder *d, uint64_t now_ms)
{
        if (!esc_pending(d) || d->len != 1)
                return -1;
        uint64_t waited = now_ms - d->esc_ms;
        return waited >= DMO_KEY_ESC_TIMEOUT_MS ? 0 : (int)(DMO_KEY_ESC_TIMEOUT_MS - waited);
}

struct dmo_keys {
        int fd;
        int saved_flags;
        bool have_termios;
        struct termios saved;
        struct dmo_key_decoder dec;
};

int dmo_keys_open(int fd, struct dmo_keys **out)
{
        struct dmo_keys *k = calloc(1, sizeof(*k));
        if (!k)
                return -ENOMEM;
        k->fd = fd;
        dmo_key_decoder_init(&k->dec);
        k->saved_flags = fcntl(fd, F_GETFL);
        if (k->saved_flags < 0) {
                int err = -errno;
                free(k);
                return err;
        }
        if (tcgetattr(fd, &k->saved) == 0) {
                struct termios raw = k->saved;
                /* ISIG off too: Ctrl-C must not kill us while the system is frozen. */
                raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ECHONL | ISIG | IEXTEN);
                raw.c_iflag &= ~(tcflag_t)(IXON | ICRNL | INLCR | IGNCR);
                /* VMIN 1 with O_NONBLOCK: an empty terminal reads as EAGAIN;
                 * with VMIN 0 it would read 0, which means end of file. */
                raw.c_cc[VMIN] = 1;
                raw.c_cc[VTIME] = 0;
                if (tcsetattr(fd, TCSANOW, &raw) == 0)
                        k->have_termios = true;
        }
        if (fcntl(fd, F_SETFL, k->saved_flags | O_NONBLOCK) < 0) {
                int err = -errno;
                if (k->have_termios)
                        tcsetattr(fd, TCSANOW, &k->saved);
                free(k);
                return err;
        }
        *out = k;
        return 0;
}

int dmo_keys_fd(const struct dmo_keys *k)
{
        return k->fd;
}

int dmo_keys_read(struct dmo_keys *k, uint64_t now_ms, struct dmo_key_event *ev, size_t max)
{
        /* Each byte yields at most two events: read no more than fits. */
        uint8_t buf[64];
        size_t want = max / 2 < sizeof(buf) ? max / 2 : sizeof(buf);
        size_t n = 0;

        if (want == 0)
                return -EINVAL;
        n += dmo_key_decoder_tick(&k->dec, now_ms, &ev[0]);
        ssize_t got = read(k->fd, buf, want - (n > 0));
        if (got == 0)
                return n > 0 ? (int)n : -EPIPE;
        if (got < 0) {
                if (errno == EAGAIN || errno == EINTR)
                        return (int)n;
                return -errno;
        }
        for (ssize_t i = 0; i < got; i++) {
                struct dmo_key_event two[2];
                size_t m = dmo_key_decoder_push(&k->dec, buf[i], now_ms, two);
                for (size_t j = 0; j < m; j++)
                        ev[n++] = two[j];
        }
        return (int)n;
}

int dmo_keys_timeout_ms(const struct dmo_keys *k, uint64_t now_ms)
{
        return dmo_key_decoder_timeout_ms(&k->dec, now_ms);
}

void dmo_keys_close(struct dmo_keys *k)
{
        if (!k)
                return;
        if (k->have_termios)
                tcsetattr(k->fd, TCSANOW, &k->saved);
        fcntl(k->fd, F_SETFL, k->saved_flags);
        free(k);
}

uint64_t dmo_keys_now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}
