#include "splash/theme/bmpload.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splash/theme/pngload.h"
#include "util/cleanup.h"
#include "util/le.h"

/* BITMAPFILEHEADER (14 bytes) + BITMAPINFOHEADER (40 bytes) at least. */
enum {
        FILE_HEADER = 14,
        INFO_HEADER_MIN = 40,
        BI_RGB = 0,
        BI_BITFIELDS = 3,
};

int dmo_bmp_load_mem(const void *data, size_t len, cairo_surface_t **out)
{
        const uint8_t *b = data;
        *out = NULL;
        if (len < FILE_HEADER + INFO_HEADER_MIN || b[0] != 'B' || b[1] != 'M')
                return -EINVAL;
        uint32_t pix_off = dmo_get_le32(b + 10), hdr = dmo_get_le32(b + 14);
        if (hdr < INFO_HEADER_MIN || hdr > len - FILE_HEADER)
                return -EINVAL;
        int32_t w = (int32_t)dmo_get_le32(b + 18), h = (int32_t)dmo_get_le32(b + 22);
        unsigned bpp = dmo_get_le16(b + 28), comp = dmo_get_le32(b + 30);
        if (bpp != 24 && bpp != 32)
                return -ENOTSUP;
        if (!(comp == BI_RGB || (comp == BI_BITFIELDS && bpp == 32)))
                return -ENOTSUP;
        if (comp == BI_BITFIELDS) {
                /* Masks follow a 40-byte header; only the usual BGRA order. */
                if (len < FILE_HEADER + INFO_HEADER_MIN + 12)
                        return -EINVAL;
                const uint8_t *m = b + FILE_HEADER + INFO_HEADER_MIN;
                if (dmo_get_le32(m) != 0xff0000u || dmo_get_le32(m + 4) != 0xff00u ||
                    dmo_get_le32(m + 8) != 0xffu)
                        return -ENOTSUP;
        }
        bool top_down = h < 0;
        if (w <= 0 || h == 0 || h == INT32_MIN)
                return -EINVAL;
        uint32_t uh = (uint32_t)(top_down ? -h : h), uw = (uint32_t)w;
        if (uw > DMO_PNG_MAX_SIDE || uh > DMO_PNG_MAX_SIDE ||
            (uint64_t)uw * uh * 4 > DMO_PNG_MAX_BYTES)
                return -EFBIG;
        uint64_t row = ((uint64_t)uw * (bpp / 8) + 3) & ~(uint64_t)3;
        if (pix_off > len || row * uh > len - pix_off)
                return -EINVAL;

        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)uw, (int)uh);
        if (cairo_surface_status(s)) {
                cairo_surface_destroy(s);
                return -ENOMEM;
        }
        cairo_surface_flush(s);
        uint8_t *dst = cairo_image_surface_get_data(s);
        int stride = cairo_image_surface_get_stride(s);
        for (uint32_t y = 0; y < uh; y++) {
                const uint8_t *src = b + pix_off + row * (top_down ? y : uh - 1 - y);
                uint32_t *d = (uint32_t *)(dst + (size_t)y * stride);
                for (uint32_t x = 0; x < uw; x++, src += bpp / 8) {
                        /* Firmware logos are opaque; a 32-bit alpha byte is not
                         * reliably set, so it is ignored like the kernel's fbcon does. */
                        d[x] =
                            0xff000000u | (uint32_t)src[2] << 16 | (uint32_t)src[1] << 8 | src[0];
                }
        }
        cairo_surface_mark_dirty(s);
        *out = s;
        return 0;
}

int dmo_bmp_load_file(const char *path, cairo_surface_t **out)
{
        *out = NULL;
        _cleanup_fclose_ FILE *f = fopen(path, "rbe");
        if (!f)
                return -errno;
        /* Largest image the limits allow, plus headers. */
        const size_t cap = DMO_PNG_MAX_BYTES + 4096;
        size_t len = 0, size = 1 << 16;
        _cleanup_free_ uint8_t *buf = malloc(size);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                size_t n = fread(buf + len, 1, size - len, f);
                len += n;
                if (len < size)
                        break;
                if (size >= cap)
                        return -EFBIG;
                size_t ns = size * 2 > cap ? cap : size * 2;
                uint8_t *nb = realloc(buf, ns);
                if (!nb)
                        return -ENOMEM;
                buf = nb;
                size = ns;
        }
        if (ferror(f))
                return -EIO;
        return dmo_bmp_load_mem(buf, len, out);
}
