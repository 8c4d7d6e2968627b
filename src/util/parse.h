/* parse: the one number parser for the command line and the config file.
 *
 * Contract: every function takes the whole string (no leading or trailing
 * spaces, no sign), stores its result only on success and returns 0,
 * -EINVAL when the text is not a number of that kind (empty, a sign,
 * trailing garbage) or -ERANGE when it is one but outside the range or
 * beyond 64 bits. Numbers are decimal, or hexadecimal with "0x"; a leading
 * zero does not mean octal. Never prints, never allocates.
 */
#ifndef DMO_PARSE_H
#define DMO_PARSE_H

#include <stdint.h>

int dmo_parse_u64(const char *s, uint64_t *out);

/* The same, within [min, max]. */
int dmo_parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int dmo_parse_unsigned(const char *s, unsigned min, unsigned max, unsigned *out);

/* A size in bytes: "4096", "256M", "1G", "1.5GiB", "64 kB". Suffixes K, M,
 * G, T (any case, powers of 1024, optionally followed by "iB" or "B");
 * a fraction keeps at most 6 digits and the result is rounded down. */
int dmo_parse_size(const char *s, uint64_t *bytes);

/* A decimal fraction ("0.42", "2", "1.5") within [min, max]. */
int dmo_parse_double(const char *s, double min, double max, double *out);

/* One hexadecimal digit's value (either case), -1 for anything else.
 * Inline, so that a parser linked on its own (a fuzz target) needs no
 * more than this header. */
static inline int dmo_hex_value(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

#endif
