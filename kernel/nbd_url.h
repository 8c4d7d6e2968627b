/* nbd_url: where a network resume device is, as written in dormouse.conf
 * ("resume device = nbd://HOST[:PORT]/EXPORT"), on the command line
 * (--resume-device) or on the kernel command line (dormouse.resume=).
 *
 * The form is the NBD URI's plain-TCP subset
 * (https://github.com/NetworkBlockDevice/nbd/blob/master/doc/uri.md):
 *   nbd://server.lab/swap-pc12       a host name (letters, digits, '-' and
 *                                    '.'; labels of 1 to 63, 253 in all)
 *   nbd://192.0.2.7:10810/swap       an IPv4 address and a port
 *   nbd://[2001:db8::7]/swap         an IPv6 address, in brackets
 *   nbd://server.lab                 the server's default export ("")
 * The port (1 to 65535, at most five digits) defaults to 10809, the IANA
 * port of NBD. The export name is the
 * rest after the first '/', percent-escapes (%2F) decoded: printable ASCII
 * other than space, '"', '\'' and '\\' (a raw '?' or '#' would start a query
 * or a fragment: escaped, %3F and %23, they are part of the name), at most
 * DMO_NBD_EXPORT_MAX bytes decoded. User names,
 * queries, fragments, TLS (nbds://) and Unix sockets (nbd+unix://) are
 * refused with a reason of their own: the kernel's client carries plain
 * TCP, and the initramfs has no certificates.
 *
 * Contract: pure string work; no allocation, no I/O, no global state;
 * never prints. What was wrong comes back as an enum the edge turns into a
 * sentence. Fuzzed (tests/fuzz/fuzz-nbd-url.c).
 */
#ifndef DMO_KERNEL_NBD_URL_H
#define DMO_KERNEL_NBD_URL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DMO_NBD_HOST_MAX     253
#define DMO_NBD_EXPORT_MAX   255
#define DMO_NBD_DEFAULT_PORT 10809

struct dmo_nbd_url {
        char host[DMO_NBD_HOST_MAX + 1]; /* without brackets */
        bool ipv6;                       /* host is an IPv6 address */
        uint16_t port;
        char export_name[DMO_NBD_EXPORT_MAX + 1]; /* decoded; "" the default export */
};

enum dmo_nbd_url_error {
        DMO_NBD_URL_OK,
        DMO_NBD_URL_NOT_NBD,     /* does not start with nbd:// */
        DMO_NBD_URL_TLS,         /* nbds:// or nbds+unix:// */
        DMO_NBD_URL_UNIX,        /* nbd+unix:// */
        DMO_NBD_URL_NO_HOST,     /* nbd:///x */
        DMO_NBD_URL_BAD_HOST,    /* not a host name, IPv4 or [IPv6] address */
        DMO_NBD_URL_USERINFO,    /* user@host */
        DMO_NBD_URL_BAD_PORT,    /* not 1 to 65535 */
        DMO_NBD_URL_BAD_EXPORT,  /* a character not allowed, a bad or %00 escape */
        DMO_NBD_URL_LONG_EXPORT, /* more than DMO_NBD_EXPORT_MAX bytes */
        DMO_NBD_URL_QUERY,       /* ?... or #... */
};

/* True when spec names a network device at all (starts with nbd, nbds or
 * nbd+: "nbd://", "nbds://", "nbd+unix://"...): the caller then parses it
 * here and never as a path. */
bool dmo_nbd_url_is(const char *spec);

/* 0 and *out filled, or -EINVAL with *why set (out is then zeroed). */
int dmo_nbd_url_parse(const char *spec, struct dmo_nbd_url *out, enum dmo_nbd_url_error *why);

/* "HOST" or "[v6]" then ":PORT" when it is not the default: how the server
 * is named to a person. Cut to fit len. */
void dmo_nbd_url_server(const struct dmo_nbd_url *u, char *buf, size_t len);

#endif
