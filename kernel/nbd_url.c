/* nbd://HOST[:PORT]/EXPORT (nbd_url.h). */
#include "kernel/nbd_url.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/parse.h"

static const char scheme_sep[] = "://";

/* The scheme's length when spec starts with one that begins with "nbd"
 * (letters and '+') followed by "://"; 0 otherwise. */
static size_t nbd_scheme_len(const char *spec)
{
        if (!spec || strncasecmp(spec, "nbd", 3) != 0)
                return 0;
        size_t n = 3;
        while ((spec[n] >= 'a' && spec[n] <= 'z') || (spec[n] >= 'A' && spec[n] <= 'Z') ||
               spec[n] == '+')
                n++;
        return strncmp(spec + n, scheme_sep, sizeof(scheme_sep) - 1) == 0 ? n : 0;
}

bool dmo_nbd_url_is(const char *spec)
{
        return nbd_scheme_len(spec) > 0;
}

static bool scheme_is(const char *spec, size_t len, const char *name)
{
        return strlen(name) == len && strncasecmp(spec, name, len) == 0;
}

static bool is_alnum(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* RFC 1123 host names: labels of letters, digits and inner hyphens. */
static bool valid_host_name(const char *h, size_t len)
{
        if (len == 0 || len > DMO_NBD_HOST_MAX)
                return false;
        size_t label = 0;
        for (size_t i = 0; i < len; i++) {
                char c = h[i];
                if (c == '.') {
                        if (label == 0 || h[i - 1] == '-')
                                return false;
                        label = 0;
                } else if (is_alnum(c) || c == '-') {
                        if (label == 0 && c == '-')
                                return false;
                        if (++label > 63)
                                return false;
                } else {
                        return false;
                }
        }
        /* A trailing dot (the root) is fine; a trailing hyphen is not. */
        return h[len - 1] != '-';
}

static bool all_digits_and_dots(const char *h, size_t len)
{
        for (size_t i = 0; i < len; i++)
                if (!(h[i] == '.' || (h[i] >= '0' && h[i] <= '9')))
                        return false;
        return true;
}

/* Host (brackets included for IPv6) into out. */
static enum dmo_nbd_url_error parse_host(const char *h, size_t len, struct dmo_nbd_url *out)
{
        char buf[DMO_NBD_HOST_MAX + 1];
        if (len == 0)
                return DMO_NBD_URL_NO_HOST;
        if (h[0] == '[') {
                struct in6_addr a6;
                if (len < 3 || h[len - 1] != ']' || len - 2 > DMO_NBD_HOST_MAX)
                        return DMO_NBD_URL_BAD_HOST;
                memcpy(buf, h + 1, len - 2);
                buf[len - 2] = '\0';
                if (inet_pton(AF_INET6, buf, &a6) != 1)
                        return DMO_NBD_URL_BAD_HOST;
                out->ipv6 = true;
        } else {
                struct in_addr a4;
                if (len > DMO_NBD_HOST_MAX)
                        return DMO_NBD_URL_BAD_HOST;
                memcpy(buf, h, len);
                buf[len] = '\0';
                /* Dotted digits are an address or nothing (a top-level
                 * domain is never numeric): 256.1.1.1 and 10.1 are refused. */
                if (all_digits_and_dots(h, len) ? inet_pton(AF_INET, buf, &a4) != 1
                                                : !valid_host_name(h, len))
                        return DMO_NBD_URL_BAD_HOST;
        }
        memcpy(out->host, buf, strlen(buf) + 1);
        return DMO_NBD_URL_OK;
}

static enum dmo_nbd_url_error parse_port(const char *p, size_t len, uint16_t *port)
{
        unsigned v = 0;
        if (len == 0 || len > 5)
                return DMO_NBD_URL_BAD_PORT;
        for (size_t i = 0; i < len; i++) {
                if (p[i] < '0' || p[i] > '9')
                        return DMO_NBD_URL_BAD_PORT;
                v = v * 10 + (unsigned)(p[i] - '0');
        }
        if (v == 0 || v > 65535)
                return DMO_NBD_URL_BAD_PORT;
        *port = (uint16_t)v;
        return DMO_NBD_URL_OK;
}

/* A byte allowed in a decoded export name. */
static bool export_byte_ok(int c)
{
        return c > 0x20 && c < 0x7f && c != '"' && c != '\'' && c != '\\';
}

static enum dmo_nbd_url_error parse_export(const char *s, struct dmo_nbd_url *out)
{
        size_t n = 0;
        for (; *s; s++) {
                int c = (unsigned char)*s;
                if (c == '?' || c == '#')
                        return DMO_NBD_URL_QUERY;
                if (c == '%') {
                        int hi = dmo_hex_value(s[1]), lo = hi < 0 ? -1 : dmo_hex_value(s[2]);
                        if (lo < 0)
                                return DMO_NBD_URL_BAD_EXPORT;
                        c = hi * 16 + lo;
                        s += 2;
                }
                if (!export_byte_ok(c))
                        return DMO_NBD_URL_BAD_EXPORT;
                if (n >= DMO_NBD_EXPORT_MAX)
                        return DMO_NBD_URL_LONG_EXPORT;
                out->export_name[n++] = (char)c;
        }
        out->export_name[n] = '\0';
        return DMO_NBD_URL_OK;
}

static enum dmo_nbd_url_error parse(const char *spec, struct dmo_nbd_url *out)
{
        size_t slen = nbd_scheme_len(spec);
        if (slen == 0)
                return DMO_NBD_URL_NOT_NBD;
        if (scheme_is(spec, slen, "nbds") || scheme_is(spec, slen, "nbds+unix"))
                return DMO_NBD_URL_TLS;
        if (scheme_is(spec, slen, "nbd+unix"))
                return DMO_NBD_URL_UNIX;
        if (!scheme_is(spec, slen, "nbd") && !scheme_is(spec, slen, "nbd+tcp"))
                return DMO_NBD_URL_NOT_NBD;

        const char *auth = spec + slen + sizeof(scheme_sep) - 1;
        size_t alen = strcspn(auth, "/?#");
        if (memchr(auth, '@', alen))
                return DMO_NBD_URL_USERINFO;
        /* The port follows the last ':' after the host (after ']' for
         * IPv6); a bare IPv6 address has more than one. */
        const char *host_end = auth + alen;
        if (alen && auth[0] == '[') {
                const char *close = memchr(auth, ']', alen);
                if (!close)
                        return DMO_NBD_URL_BAD_HOST;
                host_end = close + 1;
                if (host_end < auth + alen && *host_end != ':')
                        return DMO_NBD_URL_BAD_HOST;
        } else {
                const char *colon = memchr(auth, ':', alen);
                if (colon) {
                        if (memchr(colon + 1, ':', (size_t)(auth + alen - colon - 1)))
                                return DMO_NBD_URL_BAD_HOST;
                        host_end = colon;
                }
        }
        enum dmo_nbd_url_error e = parse_host(auth, (size_t)(host_end - auth), out);
        if (e != DMO_NBD_URL_OK)
                return e;
        out->port = DMO_NBD_DEFAULT_PORT;
        if (host_end < auth + alen) {
                e = parse_port(host_end + 1, (size_t)(auth + alen - host_end - 1), &out->port);
                if (e != DMO_NBD_URL_OK)
                        return e;
        }
        const char *rest = auth + alen;
        if (*rest == '?' || *rest == '#')
                return DMO_NBD_URL_QUERY;
        return *rest == '/' ? parse_export(rest + 1, out) : DMO_NBD_URL_OK;
}

int dmo_nbd_url_parse(const char *spec, struct dmo_nbd_url *out, enum dmo_nbd_url_error *why)
{
        memset(out, 0, sizeof(*out));
        enum dmo_nbd_url_error e = parse(spec, out);
        if (why)
                *why = e;
        if (e == DMO_NBD_URL_OK)
                return 0;
        memset(out, 0, sizeof(*out));
        return -EINVAL;
}

void dmo_nbd_url_server(const struct dmo_nbd_url *u, char *buf, size_t len)
{
        const char *open = u->ipv6 ? "[" : "", *close = u->ipv6 ? "]" : "";
        if (u->port == DMO_NBD_DEFAULT_PORT)
                snprintf(buf, len, "%s%s%s", open, u->host, close);
        else
                snprintf(buf, len, "%s%s%s:%u", open, u->host, close, (unsigned)u->port);
}
