#include "util/printable.h"

#include <stdint.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (at most `left` bytes), 0 if the
 * byte at s does not start one. Shortest form only; no surrogates; at most
 * U+10FFFF (RFC 3629). Sets *cp to the code point. */
static size_t utf8_seq(const unsigned char *s, size_t left, uint32_t *cp)
{
        unsigned char c = s[0];
        size_t n;
        uint32_t v, min;
        if (c < 0x80) {
                *cp = c;
                return 1;
        } else if (c >= 0xc2 && c <= 0xdf) {
                n = 2, v = c & 0x1f, min = 0x80;
        } else if (c >= 0xe0 && c <= 0xef) {
                n = 3, v = c & 0x0f, min = 0x800;
        } else if (c >= 0xf0 && c <= 0xf4) {
                n = 4, v = c & 0x07, min = 0x10000;
        } else {
                return 0;
        }
        if (n > left)
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                v = v << 6 | (s[i] & 0x3f);
        }
        if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
                return 0;
        *cp = v;
        return n;
}

static bool is_control(uint32_t cp)
{
        return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

size_t dmo_sanitize_printable_buf(char *s, size_t len)
{
        unsigned char *u = (unsigned char *)s;
        size_t replaced = 0;
        for (size_t i = 0; i < len;) {
                uint32_t cp;
                size_t n = utf8_seq(u + i, len - i, &cp);
                if (n == 0) { /* a byte that starts no valid sequence */
                        u[i++] = '?';
                        replaced++;
                } else if (is_control(cp)) { /* every byte of its encoding */
                        memset(u + i, '?', n);
                        replaced += n;
                        i += n;
                } else {
                        i += n;
                }
        }
        return replaced;
}

char *dmo_sanitize_printable(char *s)
{
        if (s)
                dmo_sanitize_printable_buf(s, strlen(s));
        return s;
}

bool dmo_is_printable(const char *s)
{
        const unsigned char *u = (const unsigned char *)s;
        size_t len = strlen(s);
        for (size_t i = 0; i < len;) {
                uint32_t cp;
                size_t n = utf8_seq(u + i, len - i, &cp);
                if (n == 0 || is_control(cp))
                        return false;
                i += n;
        }
        return true;
}
