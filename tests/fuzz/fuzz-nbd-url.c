/* Fuzz target: a network resume device, nbd://HOST[:PORT]/EXPORT
 * (kernel/nbd_url.h). What is accepted must be what the contract promises:
 * a host that is a name or an address, a port in range, an export name of
 * printable bytes within bounds, and the server's name for people fitting
 * its buffer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/nbd_url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *spec = malloc(size + 1);
        if (!spec)
                return 0;
        memcpy(spec, data, size);
        spec[size] = '\0';
        struct dmo_nbd_url u;
        enum dmo_nbd_url_error why;
        int r = dmo_nbd_url_parse(spec, &u, &why);
        if ((r == 0) != (why == DMO_NBD_URL_OK))
                abort();
        if (r == 0) {
                size_t hl = strnlen(u.host, sizeof(u.host));
                size_t el = strnlen(u.export_name, sizeof(u.export_name));
                if (hl == 0 || hl > DMO_NBD_HOST_MAX || el > DMO_NBD_EXPORT_MAX || u.port == 0 ||
                    !dmo_nbd_url_is(spec))
                        abort();
                for (size_t i = 0; i < el; i++)
                        if (u.export_name[i] <= ' ' || u.export_name[i] >= 0x7f ||
                            u.export_name[i] == '"' || u.export_name[i] == '\'' ||
                            u.export_name[i] == '\\')
                                abort();
                for (size_t i = 0; i < hl; i++)
                        if (u.host[i] <= ' ' || u.host[i] >= 0x7f || u.host[i] == '/' ||
                            u.host[i] == '@')
                                abort();
                char server[300];
                dmo_nbd_url_server(&u, server, sizeof(server));
                if (strlen(server) < hl)
                        abort();
                char small[8];
                dmo_nbd_url_server(&u, small, sizeof(small));
                if (strlen(small) >= sizeof(small))
                        abort();
        } else if (u.host[0] || u.export_name[0] || u.port) {
                abort();
        }
        free(spec);
        return 0;
}
