/* The key decoder: bytes in, key events out, with a clock the test controls. */
#include "splash/output/keys.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "tests/testlib.h"

/* Feeds a string at time t (all bytes at once) and collects the events. */
static size_t feed(struct dmo_key_decoder *d, const char *bytes, size_t len, uint64_t t,
                   struct dmo_key_event *out, size_t max)
{
        size_t n = 0;
        for (size_t i = 0; i < len; i++) {
                struct dmo_key_event two[2];
                size_t m = dmo_key_decoder_push(d, (uint8_t)bytes[i], t, two);
                for (size_t j = 0; j < m && n < max; j++)
                        out[n++] = two[j];
        }
        return n;
}

static void test_lone_esc_is_reported_after_its_timeout(void)
{
        struct dmo_key_decoder d;
        struct dmo_key_event ev[4];
        dmo_key_decoder_init(&d);
        CHECK_INT(feed(&d, "\x1b", 1, 1000, ev, 4), ==, 0);
        CHECK_INT(dmo_key_decoder_timeout_ms(&d, 1010), ==, DMO_KEY_ESC_TIMEOUT_MS - 10);
        CHECK_INT(dmo_key_decoder_tick(&d, 1000 + DMO_KEY_ESC_TIMEOUT_MS - 1, ev), ==, 0);
        CHECK_INT(dmo_key_decoder_tick(&d, 1000 + DMO_KEY_ESC_TIMEOUT_MS, ev), ==, 1);
        CHECK_INT(ev[0].kind, ==, DMO_KEY_ESC);
        /* Reported once. */
        CHECK_INT(dmo_key_decoder_tick(&d, 5000, ev), ==, 0);
        CHECK_INT(dmo_key_decoder_timeout_ms(&d, 5000), ==, -1);
}

static void test_arrow_sequences_are_not_esc(void)
{
        struct dmo_key_decoder d;
        struct dmo_key_event ev[8];
        dmo_key_decoder_init(&d);
        size_t n = feed(&d, "\x1b[A\x1b[B\x1bOC\x1b[1;5D", 15, 100, ev, 8);
        REQUIRE(n == 4);
        CHECK_INT(ev[0].kind, ==, DMO_KEY_UP);
        CHECK_INT(ev[1].kind, ==, DMO_KEY_DOWN);
        CHECK_INT(ev[2].kind, ==, DMO_KEY_RIGHT);
        CHECK_INT(ev[3].kind, ==, DMO_KEY_LEFT);
        /* Nothing left pending that could turn into an Esc later. */
        CHECK_INT(dmo_key_decoder_tick(&d, 100000, ev), ==, 0);
        /* Function keys (CSI 1 5 ~) and Alt+x are other keys, never Esc. */
        n = feed(&d, "\x1b[15~\x1bx", 7, 200, ev, 8);
        REQUIRE(n == 2);
        CHECK_INT(ev[0].kind, ==, DMO_KEY_OTHER);
        CHECK_INT(ev[1].kind, ==, DMO_KEY_OTHER);
        CHECK_INT(dmo_key_decoder_tick(&d, 100000, ev), ==, 0);
}

static void test_esc_then_late_bytes_is_esc_then_keys(void)
{
        struct dmo_key_decoder d;
        struct dmo_key_event ev[4];
        dmo_key_decoder_init(&d);
        feed(&d, "\x1b", 1, 0, ev, 4);
        /* '[' long after the Esc: a person typed Esc, then '['. */
        size_t n = feed(&d, "[", 1, 500, ev, 4);
        REQUIRE(n == 2);
        CHECK_INT(ev[0].kind, ==, DMO_KEY_ESC);
        CHECK_INT(ev[1].kind, ==, DMO_KEY_CHAR);
        CHECK_INT(ev[1].codepoint, ==, '[');
}

static void test_double_esc_is_two_escs(void)
{
        struct dmo_key_decoder d;
        struct dmo_key_event ev[4];
        dmo_key_decoder_init(&d);
        size_t n = feed(&d, "\x1b\x1b", 2, 0, ev, 4);
        CHECK_INT(n, ==, 1);
        CHECK_INT(ev[0].kind, ==, DMO_KEY_ESC);
        CHECK_INT(dmo_key_decoder_tick(&d, 1000, ev), ==, 1);
        CHECK_INT(ev[0].kind, ==, DMO_KEY_ESC);
}

static void test_backspace_variants_and_enter(void)
{
        struct dmo_key_decoder d;
        struct dmo_key_event ev[8];
        dmo_key_decoder_init(&d);
        size_t n = feed(&d, "\x7f\x08\r\n\n\r", 6, 0, ev, 8);
        REQUIRE(n == 5);
        CHECK_INT(ev[0].kind, ==, DMO_KEY_BACKSPACE);
        CHECK_INT(ev[1].kind, ==, DMO_KEY_BACKSPACE);
        /* \r\n is one Enter, a lone \n and a lone \r are one each. */
        CHECK_INT(ev[2].kind, ==, DMO_KEY_ENTER);
        CHECK_INT(ev[3].kind, ==, DMO_KEY_ENTER);
        CHECK_INT(ev[4].kind, ==, DMO_KEY_ENTER);
}

static void test_utf8_characters_decode_and_invalid_bytes_are_dropped(void)
{
        struct dmo_key_decoder d;
        struct dmo_key_event ev[8];
        dmo_key_decoder_init(&d);
        /* r, é, €, 😀 */
        const char *s = "r\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
        size_t n = feed(&d, s, strlen(s), 0, ev, 8);
        REQUIRE(n == 4);
        CHECK_INT(ev[0].codepoint, ==, 'r');
        CHECK_INT(ev[1].codepoint, ==, 0xe9);
        CHECK(strcmp(ev[1].utf8, "\xc3\xa9") == 0);
        CHECK_INT(ev[2].codepoint, ==, 0x20ac);
        CHECK_INT(ev[3].codepoint, ==, 0x1f600);
        CHECK(strcmp(ev[3].utf8, "\xf0\x9f\x98\x80") == 0);
        /* Overlong '/', a surrogate, a stray continuation, a truncated é before 'a',
         * an invalid lead byte: only the 'a' survives. */
        const char *bad = "\xc0\xaf\xed\xa0\x80\x80\xc3"
                          "a\xff";
        n = feed(&d, bad, strlen(bad), 0, ev, 8);
        REQUIRE(n == 1);
        CHECK_INT(ev[0].kind, ==, DMO_KEY_CHAR);
        CHECK_INT(ev[0].codepoint, ==, 'a');
}

static void test_overlong_csi_is_dropped_not_buffered_forever(void)
{
        struct dmo_key_decoder d;
        struct dmo_key_event ev[64];
        dmo_key_decoder_init(&d);
        char seq[40] = "\x1b[";
        memset(seq + 2, '1', sizeof(seq) - 2);
        size_t n = feed(&d, seq, sizeof(seq), 0, ev, 64);
        CHECK_INT(n, >=, 1);
        CHECK_INT(ev[0].kind, ==, DMO_KEY_OTHER);
        n = feed(&d, "q", 1, 0, ev, 64);
        REQUIRE(n >= 1);
        CHECK_INT(ev[n - 1].codepoint, ==, 'q');
}

static void test_keys_read_from_a_pipe_decodes_and_reports_eof(void)
{
        int fds[2];
        REQUIRE(pipe(fds) == 0);
        struct dmo_keys *k = NULL;
        REQUIRE(dmo_keys_open(fds[0], &k) == 0);
        struct dmo_key_event ev[8];
        CHECK_INT(dmo_keys_read(k, 0, ev, 8), ==, 0); /* nothing yet, no blocking */
        CHECK_INT(write(fds[1], "x\x7f", 2), ==, 2);
        int n = dmo_keys_read(k, 0, ev, 8);
        REQUIRE(n == 2);
        CHECK_INT(ev[0].kind, ==, DMO_KEY_CHAR);
        CHECK_INT(ev[1].kind, ==, DMO_KEY_BACKSPACE);
        close(fds[1]);
        CHECK_INT(dmo_keys_read(k, 0, ev, 8), ==, -EPIPE);
        int flags = fcntl(fds[0], F_GETFL);
        dmo_keys_close(k);
        /* The file flags found at open come back. */
        CHECK(flags & O_NONBLOCK);
        CHECK(!(fcntl(fds[0], F_GETFL) & O_NONBLOCK));
        close(fds[0]);
}

DMO_TEST_MAIN(T(test_lone_esc_is_reported_after_its_timeout), T(test_arrow_sequences_are_not_esc),
              T(test_esc_then_late_bytes_is_esc_then_keys), T(test_double_esc_is_two_escs),
              T(test_backspace_variants_and_enter),
              T(test_utf8_characters_decode_and_invalid_bytes_are_dropped),
              T(test_overlong_csi_is_dropped_not_buffered_forever),
              T(test_keys_read_from_a_pipe_decodes_and_reports_eof))
