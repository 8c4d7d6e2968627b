/* bmpload: the firmware's boot logo (ACPI BGRT, /sys/firmware/acpi/bgrt/image)
 * → a cairo ARGB32 surface. The BGRT image is a Windows BMP.
 *
 * Contract:
 * - Accepts uncompressed BMPs with a BITMAPINFOHEADER or later header, 24 or
 *   32 bits per pixel (BI_RGB; 32-bit BI_BITFIELDS with the usual masks),
 *   bottom-up or top-down. Anything else is -ENOTSUP.
 * - Refuses hostile input before allocating pixel memory: the same limits as
 *   pngload (DMO_PNG_MAX_SIDE per side, DMO_PNG_MAX_BYTES decoded), and pixel
 *   rows that would reach past the data are -EINVAL.
 * - Never aborts, never prints; reads the file once (dmo_bmp_load_file).
 */
#ifndef DMO_SPLASH_BMPLOAD_H
#define DMO_SPLASH_BMPLOAD_H

#include <stddef.h>

#include <cairo.h>

/* -EINVAL (not a BMP / truncated), -ENOTSUP (a BMP kind not handled), -EFBIG
 * (too large), -ENOMEM. */
int dmo_bmp_load_mem(const void *data, size_t len, cairo_surface_t **out);
/* Also -ENOENT/-EACCES from opening the file. */
int dmo_bmp_load_file(const char *path, cairo_surface_t **out);

#endif
