/* backdrop: the theme's background (colour or vertical gradient, and the
 * firmware's logo when both progress scenes show it) as plain XRGB8888
 * pixels, without cairo.
 *
 * Contract:
 * - An output shows it as its first frame, the moment it has a buffer, so the
 *   console gives way to the theme's colours while the painter is still
 *   loading fonts and images. The painter's first frame then draws the same
 *   background (a background image, if the theme has one, comes with it).
 * - No allocation, no I/O; writes exactly width×height pixels of each row at
 *   `stride` bytes apart.
 */
#ifndef DMO_SPLASH_BACKDROP_H
#define DMO_SPLASH_BACKDROP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dmo_theme;

void dmo_backdrop_fill(const struct dmo_theme *t, uint8_t *pixels, size_t stride, int width,
                       int height);

/* The colour of row y of a height-row backdrop, as 0x00RRGGBB. */
uint32_t dmo_backdrop_row(const struct dmo_theme *t, int y, int height);

/* Where a w×h firmware logo goes on a width×height screen, as Plymouth's
 * two-step plugin puts it without panel information: centred, its middle
 * 38.2 % down; the firmware's offsets (xoff, yoff ≥ 0; -1: none) when they
 * centre it on this very screen. False when it does not fit. The backdrop
 * and the painter both place it here, so it never moves between them. */
bool dmo_firmware_logo_place(int width, int height, int w, int h, int xoff, int yoff, int *x,
                             int *y);

#endif
