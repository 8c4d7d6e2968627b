/* Fuzz target: systemd's HibernateLocation EFI variable as efivarfs gives
 * it (attributes, UTF-16LE), decoded and its JSON parsed; whatever is
 * accepted must format back and parse to the same location. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/hibernate_location.h"
#include "kernel/efivar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char text[4096], again[4096];
        if (dmo_efivar_decode_string(data, size, text, sizeof(text)) < 0)
                return 0;
        struct dmo_hibernate_location loc, back;
        if (dmo_hibernate_location_parse(text, &loc) < 0)
                return 0;
        if (strlen(loc.uuid) != 36)
                abort();
        if (dmo_hibernate_location_format(&loc, again, sizeof(again)) == 0 &&
            (dmo_hibernate_location_parse(again, &back) < 0 || back.offset != loc.offset ||
             strcmp(back.uuid, loc.uuid) != 0 || strcmp(back.os.id, loc.os.id) != 0))
                abort();
        return 0;
}
