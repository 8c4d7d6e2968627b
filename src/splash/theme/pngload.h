/* pngload: PNG files and buffers → cairo ARGB32 surfaces, through libpng.
 *
 * Contract:
 * - Accepts every PNG colour type and depth (palette, gray, gray+alpha, RGB,
 *   RGBA, 16-bit, tRNS, interlaced) and converts to premultiplied ARGB32.
 * - Refuses hostile input before allocating pixel memory: more than
 *   DMO_PNG_MAX_SIDE pixels per side or DMO_PNG_MAX_BYTES decoded bytes.
 * - Errors (truncated data, bad CRC, bad header) come back as a negative errno
 *   and a short English reason for diagnostics; never aborts, never prints.
 */
#ifndef DMO_SPLASH_PNGLOAD_H
#define DMO_SPLASH_PNGLOAD_H

#include <stddef.h>

#include <cairo.h>

#define DMO_PNG_MAX_SIDE  16384
#define DMO_PNG_MAX_BYTES (64u << 20)

/* -ENOENT/-EACCES (file), -EINVAL (not a PNG / corrupt), -EFBIG (too large),
 * -ENOMEM. why (may be NULL) gets the reason. */
int dmo_png_load_file(const char *path, cairo_surface_t **out, char *why, size_t whylen);
int dmo_png_load_mem(const void *data, size_t len, cairo_surface_t **out, char *why, size_t whylen);

#endif
