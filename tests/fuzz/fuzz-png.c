/* Fuzz target: the PNG loader, from memory. */
#include <stddef.h>
#include <stdint.h>

#include <cairo.h>

#include "splash/theme/pngload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        cairo_surface_t *s = NULL;
        char why[128];
        if (dmo_png_load_mem(data, size, &s, why, sizeof(why)) == 0)
                cairo_surface_destroy(s);
        return 0;
}
