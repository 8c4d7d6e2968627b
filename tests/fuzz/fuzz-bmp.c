/* Fuzz target: the BMP loader for the firmware's boot logo (ACPI BGRT), from memory. */
#include <stddef.h>
#include <stdint.h>

#include <cairo.h>

#include "splash/theme/bmpload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        cairo_surface_t *s = NULL;
        if (dmo_bmp_load_mem(data, size, &s) == 0)
                cairo_surface_destroy(s);
        return 0;
}
