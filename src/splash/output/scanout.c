#include "splash/output/scanout.h"

#include <errno.h>
#include <string.h>

#include <drm_fourcc.h>

enum { BYTES_PER_PIXEL = 4 };

int dmo_scanout_check(const struct dmo_scanout *fb, int view_w, int view_h)
{
        if (fb->format != DRM_FORMAT_XRGB8888 && fb->format != DRM_FORMAT_ARGB8888)
                return -EOPNOTSUPP;
        if (fb->has_modifier && fb->modifier != DRM_FORMAT_MOD_LINEAR)
                return -EOPNOTSUPP;
        if (fb->n_planes != 1)
                return -EOPNOTSUPP;
        if (view_w <= 0 || view_h <= 0)
                return -ERANGE;
        if ((uint64_t)fb->x + (uint64_t)view_w > fb->width ||
            (uint64_t)fb->y + (uint64_t)view_h > fb->height)
                return -ERANGE;
        if ((uint64_t)fb->pitch < (uint64_t)fb->width * BYTES_PER_PIXEL)
                return -ERANGE;
        return 0;
}

uint64_t dmo_scanout_span(const struct dmo_scanout *fb, int view_h)
{
        return (uint64_t)fb->offset + (uint64_t)fb->pitch * ((uint64_t)fb->y + (uint64_t)view_h);
}

void dmo_scanout_copy(const struct dmo_scanout *fb, const uint8_t *src, uint8_t *dst,
                      uint32_t dst_pitch, int view_w, int view_h)
{
        const uint8_t *row =
            src + fb->offset + (size_t)fb->y * fb->pitch + (size_t)fb->x * BYTES_PER_PIXEL;
        size_t bytes = (size_t)view_w * BYTES_PER_PIXEL;
        for (int y = 0; y < view_h; y++)
                memcpy(dst + (size_t)y * dst_pitch, row + (size_t)y * fb->pitch, bytes);
}
