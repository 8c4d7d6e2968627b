/* util/printable: untrusted text (an image's kernel identity) reaches the
 * terminal without control characters or broken UTF-8, and valid text is
 * left alone. */
#include "util/printable.h"

#include "tests/testlib.h"

static void check_filtered(const char *in, const char *want)
{
        char buf[256];
        snprintf(buf, sizeof(buf), "%s", in);
        dmo_sanitize_printable(buf);
        if (strcmp(buf, want) != 0)
                printf("# \"%s\" became \"%s\", wanted \"%s\"\n", in, buf, want);
        CHECK(strcmp(buf, want) == 0);
        CHECK(dmo_is_printable(buf));
        CHECK(dmo_is_printable(in) == (strcmp(in, want) == 0));
}

static void plain_and_utf8_text_is_kept(void)
{
        check_filtered("6.1.0-57-amd64", "6.1.0-57-amd64");
        check_filtered("#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3",
                       "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3");
        check_filtered("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xad",
                       "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xad");
        check_filtered("", "");
        CHECK(dmo_sanitize_printable(NULL) == NULL);
}

static void escape_sequences_and_control_characters_are_replaced(void)
{
        check_filtered("6.1\x1b]0;owned\x07", "6.1?]0;owned?");
        check_filtered("\x1b[2J\x1b[H", "?[2J?[H");
        check_filtered("a\rb\nc\td\x7f", "a?b?c?d?");
        /* C1 controls in UTF-8 (U+009B is CSI on some terminals) */
        check_filtered("x\xc2\x9b"
                       "31m",
                       "x??31m");
        check_filtered("\xc2\x85", "??");
}

static void invalid_utf8_becomes_one_mark_per_byte(void)
{
        check_filtered("\xff\xfe", "??");
        check_filtered("\xc3", "?");                /* truncated */
        check_filtered("\xc3(", "?(");              /* bad continuation */
        check_filtered("\xc0\xaf", "??");           /* overlong '/' */
        check_filtered("\xe0\x80\xaf", "???");      /* overlong */
        check_filtered("\xed\xa0\x80", "???");      /* surrogate U+D800 */
        check_filtered("\xf4\x90\x80\x80", "????"); /* above U+10FFFF */
        check_filtered("\x80x\xbf", "?x?");         /* stray continuations */
        check_filtered("ok\xe2\x82", "ok??");       /* cut at the end */
}

static void a_buffer_with_nuls_keeps_its_length(void)
{
        char buf[8] = {'a', 0, 0x1b, 'b', (char)0xc3, 0, 'c', 'd'};
        CHECK_INT(dmo_sanitize_printable_buf(buf, sizeof(buf)), ==, 4);
        CHECK(memcmp(buf, "a??b??cd", 8) == 0);
}

static void every_byte_value_alone_is_printable_afterwards(void)
{
        for (int b = 1; b < 256; b++) {
                char s[4] = {'<', (char)b, '>', 0};
                dmo_sanitize_printable(s);
                CHECK(dmo_is_printable(s));
                CHECK_INT(strlen(s), ==, 3);
                if (b >= 0x20 && b < 0x7f)
                        CHECK(s[1] == (char)b);
                else
                        CHECK(s[1] == '?');
        }
}

DMO_TEST_MAIN(T(plain_and_utf8_text_is_kept),
              T(escape_sequences_and_control_characters_are_replaced),
              T(invalid_utf8_becomes_one_mark_per_byte), T(a_buffer_with_nuls_keeps_its_length),
              T(every_byte_value_alone_is_printable_afterwards))
