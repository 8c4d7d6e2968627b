#include "util/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

static int digit_value(char c, unsigned base)
{
        int d;
        if (c >= '0' && c <= '9')
                d = c - '0';
        else if (c >= 'a' && c <= 'f')
                d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
                d = c - 'A' + 10;
        else
                return -1;
        return (unsigned)d < base ? d : -1;
}

/* Digits in `base` from *s on; moves *s past them. -EINVAL when none. */
static int parse_digits(const char **s, unsigned base, uint64_t *out)
{
        const char *p = *s;
        uint64_t v = 0;
        bool overflow = false;
        int d;
        for (; (d = digit_value(*p, base)) >= 0; p++) {
                if (v > (UINT64_MAX - (unsigned)d) / base)
                        overflow = true;
                else
                        v = v * base + (unsigned)d;
        }
        if (p == *s)
                return -EINVAL;
        *s = p;
        if (overflow)
                return -ERANGE;
        *out = v;
        return 0;
}

static int parse_number(const char **s, uint64_t *out)
{
        if (!*s || !**s)
                return -EINVAL;
        if ((*s)[0] == '0' && ((*s)[1] == 'x' || (*s)[1] == 'X')) {
                *s += 2;
                return parse_digits(s, 16, out);
        }
        return parse_digits(s, 10, out);
}

int dmo_parse_u64(const char *s, uint64_t *out)
{
        uint64_t v;
        int r = parse_number(&s, &v);
        if (r == -ERANGE && *s)
                return -EINVAL; /* garbage weighs more than size */
        if (r < 0)
                return r;
        if (*s)
                return -EINVAL;
        *out = v;
        return 0;
}

int dmo_parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
        uint64_t v;
        int r = dmo_parse_u64(s, &v);
        if (r < 0)
                return r;
        if (v < min || v > max)
                return -ERANGE;
        *out = v;
        return 0;
}

int dmo_parse_unsigned(const char *s, unsigned min, unsigned max, unsigned *out)
{
        uint64_t v;
        int r = dmo_parse_u64_range(s, min, max, &v);
        if (r == 0)
                *out = (unsigned)v;
        return r;
}

/* "K" → 1, "M" → 2...; the exponent of 1024. -EINVAL when not a suffix. */
static int suffix_power(const char *s)
{
        static const char letters[] = "kmgt";
        int power = 0;
        if (*s) {
                const char *at = NULL;
                for (const char *l = letters; *l; l++)
                        if (tolower((unsigned char)*s) == *l)
                                at = l;
                if (!at)
                        return -EINVAL;
                power = (int)(at - letters) + 1;
                s++;
                if (tolower((unsigned char)*s) == 'i')
                        s++;
                if (tolower((unsigned char)*s) == 'b')
                        s++;
        }
        return *s ? -EINVAL : power;
}

int dmo_parse_size(const char *s, uint64_t *bytes)
{
        uint64_t whole, frac = 0, den = 1;
        if (!s || !isdigit((unsigned char)*s))
                return -EINVAL;
        int r = parse_digits(&s, 10, &whole);
        bool too_big = r == -ERANGE;
        if (*s == '.') {
                s++;
                if (!isdigit((unsigned char)*s))
                        return -EINVAL;
                for (; isdigit((unsigned char)*s); s++)
                        if (den < 1000000) { /* 6 digits at most */
                                frac = frac * 10 + (uint64_t)(*s - '0');
                                den *= 10;
                        }
        }
        while (*s == ' ')
                s++;
        int power = suffix_power(s);
        if (power < 0)
                return -EINVAL;
        if (too_big)
                return -ERANGE;
        uint64_t mult = 1ull << (10 * power);
        if (whole > UINT64_MAX / mult)
                return -ERANGE;
        /* frac < 10^6 < 2^20 and mult <= 2^40: the product fits. */
        uint64_t extra = frac * mult / den;
        if (whole * mult > UINT64_MAX - extra)
                return -ERANGE;
        *bytes = whole * mult + extra;
        return 0;
}

int dmo_parse_double(const char *s, double min, double max, double *out)
{
        char *end;
        if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
                return -EINVAL;
        errno = 0;
        double v = strtod(s, &end);
        if (*end || end == s)
                return -EINVAL;
        if (errno || !isfinite(v) || v < min || v > max)
                return -ERANGE;
        *out = v;
        return 0;
}
