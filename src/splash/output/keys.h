/* keys: key presses from a terminal, for the splash (abort, reboot toggle,
 * passphrase and yes/no dialogs).
 *
 * Contract:
 * - The decoder is a pure function of the bytes fed to it and the clock the
 *   caller passes in: no I/O, no allocation, testable without a terminal.
 * - dmo_keys_open() puts a tty into non-canonical, no-echo mode and
 *   dmo_keys_close() restores exactly what it found. A non-tty fd (a pipe in
 *   tests) is read as is. The fd stays the caller's: it is never closed here.
 * - Never interprets keys (no abort, no dialogs): that is the renderer's job.
 */
#ifndef DMO_SPLASH_KEYS_H
#define DMO_SPLASH_KEYS_H

#include <stddef.h>
#include <stdint.h>

enum dmo_key_kind {
        DMO_KEY_ESC,       /* a lone Esc, not the start of an escape sequence */
        DMO_KEY_BACKSPACE, /* 0x7f or 0x08 */
        DMO_KEY_ENTER,     /* \r or \n (\r\n counts once) */
        DMO_KEY_CHAR,      /* a printable character, utf8/codepoint set */
        DMO_KEY_UP,
        DMO_KEY_DOWN,
        DMO_KEY_LEFT,
        DMO_KEY_RIGHT,
        DMO_KEY_TAB,
        DMO_KEY_OTHER, /* any other escape sequence or control byte */
};

struct dmo_key_event {
        enum dmo_key_kind kind;
        uint32_t codepoint; /* DMO_KEY_CHAR */
        char utf8[5];       /* DMO_KEY_CHAR, NUL-terminated */
};

/* How long a lone Esc waits for the rest of a possible escape sequence. */
#define DMO_KEY_ESC_TIMEOUT_MS 50

/* A value type so the renderer can embed it; the fields are the decoder's. */
struct dmo_key_decoder {
        uint8_t seq[16]; /* escape sequence or UTF-8 character being collected */
        size_t len;
        size_t utf8_need; /* bytes the UTF-8 character needs in all */
        uint64_t esc_ms;  /* when the pending Esc arrived */
        int last_cr;      /* the previous byte was \r: swallow a following \n */
};

void dmo_key_decoder_init(struct dmo_key_decoder *d);

/* Feeds one byte that arrived at now_ms. Writes up to two events (a pending
 * Esc and the key the byte completes) and returns how many. */
size_t dmo_key_decoder_push(struct dmo_key_decoder *d, uint8_t byte, uint64_t now_ms,
                            struct dmo_key_event ev[2]);

/* Called when no byte came: reports a lone Esc once its timeout passed.
 * Returns the number of events written (0 or 1). */
size_t dmo_key_decoder_tick(struct dmo_key_decoder *d, uint64_t now_ms, struct dmo_key_event *ev);

/* Milliseconds until dmo_key_decoder_tick() has something to say, or -1 when
 * nothing is pending (for poll timeouts). */
int dmo_key_decoder_timeout_ms(const struct dmo_key_decoder *d, uint64_t now_ms);

struct dmo_keys;

/* Takes the terminal fd (not its ownership); fails only on allocation. */
int dmo_keys_open(int fd, struct dmo_keys **out);
int dmo_keys_fd(const struct dmo_keys *k);
/* Reads what is available without blocking and decodes it. Returns the number
 * of events written (at most max), 0 when nothing complete came, -EPIPE at the
 * end of input, or another negative errno. */
int dmo_keys_read(struct dmo_keys *k, uint64_t now_ms, struct dmo_key_event *ev, size_t max);
int dmo_keys_timeout_ms(const struct dmo_keys *k, uint64_t now_ms);
/* Restores the terminal mode and file flags found at open. */
void dmo_keys_close(struct dmo_keys *k);

/* CLOCK_MONOTONIC in milliseconds, the clock the functions above expect. */
uint64_t dmo_keys_now_ms(void);

#endif
