/* output_png: extras of the png output (dmo_output_png in output.h) for
 * tests and previews: the frame in memory and the frame count.
 * arg: "DIR" or "DIR:WIDTHxHEIGHT[@SCALE]"; frames go to DIR/frame-NNNNN.png,
 * one per render() that changed something. */
#ifndef DMO_SPLASH_OUTPUT_PNG_H
#define DMO_SPLASH_OUTPUT_PNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "splash/output/output.h"

int dmo_output_png_parse_arg(const char *arg, char *dir, size_t dirlen, int *w, int *h,
                             double *scale);
/* The last frame (XRGB8888), valid until the next render or close. */
const uint8_t *dmo_output_png_pixels(struct dmo_output *o, int *w, int *h, int *stride);
/* Frames written so far. */
unsigned dmo_output_png_frames(struct dmo_output *o);
/* Whether its painter prepared every later string (output.h, prewarm). */
bool dmo_output_png_prewarmed(struct dmo_output *o);

#endif
