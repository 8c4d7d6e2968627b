/* PCR lists as systemd-cryptenroll writes them: see keys.h. Its own
 * object, so that the config parser links it alone. */
#include <errno.h>
#include <stdio.h>

#include "keys/keys.h"

int dmo_keys_pcrs_parse(const char *text, uint32_t *mask)
{
        uint32_t m = 0;
        const char *p = text;
        while (*p) {
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                unsigned n = 0;
                while (*p >= '0' && *p <= '9' && n < 24)
                        n = n * 10 + (unsigned)(*p++ - '0');
                if (n >= 24)
                        return -EINVAL;
                m |= 1u << n;
                if (*p == '+' || *p == ',') {
                        if (!*++p)
                                return -EINVAL;
                } else if (*p) {
                        return -EINVAL;
                }
        }
        *mask = m;
        return 0;
}

void dmo_keys_pcrs_format(uint32_t mask, char *buf, size_t len)
{
        size_t n = 0;
        buf[0] = '\0';
        for (unsigned i = 0; i < 24 && n < len; i++)
                if (mask & (1u << i))
                        n += (size_t)snprintf(buf + n, len - n, "%s%u", n ? "+" : "", i);
}
