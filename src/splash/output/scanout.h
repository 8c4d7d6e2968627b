/* scanout: the picture another program left on a CRTC (Plymouth's boot
 * splash, still shown after `plymouth deactivate`), and how a screen starts
 * from a copy of it instead of its own backdrop, so the handover shows no
 * step: not the backdrop without the logo, not black.
 *
 * Contract:
 * - Pure functions over plain structs: no libdrm calls, no I/O, no
 *   allocation. The KMS output fills struct dmo_scanout from
 *   drmModeGetFB2() and the CRTC it found, maps the buffer read-only and
 *   copies with dmo_scanout_copy().
 * - Only a picture that can be read as it is shown is copied: one plane of
 *   32-bit XRGB or ARGB, linear (no tiling or compression modifier), the
 *   CRTC's viewport inside the buffer. Anything else is -EOPNOTSUPP; the
 *   caller then leaves that picture on screen, untouched, until its own
 *   first complete frame replaces it.
 */
#ifndef DMO_SPLASH_SCANOUT_H
#define DMO_SPLASH_SCANOUT_H

#include <stdbool.h>
#include <stdint.h>

struct dmo_scanout {
        uint32_t width, height; /* the framebuffer's */
        uint32_t format;        /* DRM fourcc */
        bool has_modifier;      /* the framebuffer was made with a modifier */
        uint64_t modifier;
        unsigned n_planes;      /* planes with a buffer handle */
        uint32_t pitch, offset; /* plane 0, in bytes */
        uint32_t x, y;          /* the CRTC's viewport origin in the framebuffer */
};

/* 0 when the view_w × view_h viewport can be copied out of fb, else
 * -EOPNOTSUPP (format, modifier, planes) or -ERANGE (outside the buffer). */
int dmo_scanout_check(const struct dmo_scanout *fb, int view_w, int view_h);

/* Bytes from the start of the buffer that the copy reads: the mapping must
 * cover them. */
uint64_t dmo_scanout_span(const struct dmo_scanout *fb, int view_h);

/* Copies the viewport (checked by dmo_scanout_check) from src, the mapped
 * buffer from its first byte, into dst: view_w × view_h pixels of XRGB8888
 * at dst_pitch bytes a row. */
void dmo_scanout_copy(const struct dmo_scanout *fb, const uint8_t *src, uint8_t *dst,
                      uint32_t dst_pitch, int view_w, int view_h);

#endif
