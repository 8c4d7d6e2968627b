#include "splash/theme/pngload.h"

#include <errno.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "util/cleanup.h"

struct png_src {
        FILE *f;
        const uint8_t *data;
        size_t len, pos;
};

struct png_err {
        char *why;
        size_t whylen;
        int err;
};

static void set_why(struct png_err *e, int err, const char *msg)
{
        if (e->err == 0)
                e->err = err;
        if (e->why && e->whylen && e->why[0] == '\0')
                snprintf(e->why, e->whylen, "%s", msg);
}

static void on_error(png_structp png, png_const_charp msg)
{
        struct png_err *e = png_get_error_ptr(png);
        /* libpng reports its user limits as errors; keep them distinguishable. */
        set_why(e, strstr(msg, "limit") ? -EFBIG : -EINVAL, msg);
        png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
        /* libpng warns about the user limits, then fails with a generic
         * "Invalid IHDR data": keep the warning, it says what is wrong. */
        if (strstr(msg, "limit"))
                set_why(png_get_error_ptr(png), -EFBIG, msg);
}

static void read_mem(png_structp png, png_bytep out, size_t n)
{
        struct png_src *s = png_get_io_ptr(png);
        if (s->len - s->pos < n)
                png_error(png, "truncated PNG data");
        memcpy(out, s->data + s->pos, n);
        s->pos += n;
}

static void read_file(png_structp png, png_bytep out, size_t n)
{
        struct png_src *s = png_get_io_ptr(png);
        if (fread(out, 1, n, s->f) != n)
                png_error(png, "truncated PNG file");
}

static inline uint8_t premul(uint8_t c, uint8_t a)
{
        unsigned t = (unsigned)c * a + 128;
        return (uint8_t)((t + (t >> 8)) >> 8);
}

/* Everything libpng touches between setjmp and longjmp that must survive the
 * jump lives in this struct (not in locals), so it is not clobbered. */
struct png_job {
        png_structp png;
        png_infop info;
        uint8_t *rgba;
        png_bytep *rows;
        struct png_err err;
};

static int decode(struct png_job *j, struct png_src *src, cairo_surface_t **out)
{
        uint32_t w, h;
        int depth, ctype, interlace;

        if (setjmp(png_jmpbuf(j->png)))
                return j->err.err ? j->err.err : -EINVAL;

        png_set_read_fn(j->png, src, src->f ? read_file : read_mem);
        /* libpng's own cap first, so absurd headers fail before any row allocation. */
        png_set_user_limits(j->png, DMO_PNG_MAX_SIDE, DMO_PNG_MAX_SIDE);
        png_set_chunk_malloc_max(j->png, 8u << 20);
        /* The ancillary chunks nothing here reads are skipped unread: libpng
         * 1.6.39 allocates an sPLT chunk's declared length whatever the cap
         * above says (a 107-byte file asked for 2 GB; found by fuzz-png). */
        static const png_byte unused[] = "sPLT\0iCCP\0zTXt\0iTXt\0tEXt\0eXIf\0hIST\0pCAL\0"
                                         "sCAL\0oFFs\0pHYs\0tIME\0sTER\0cHRM\0sRGB\0gAMA\0"
                                         "bKGD\0sBIT";
        png_set_keep_unknown_chunks(j->png, PNG_HANDLE_CHUNK_NEVER, unused,
                                    (int)(sizeof(unused) / 5));
        png_read_info(j->png, j->info);
        png_get_IHDR(j->png, j->info, &w, &h, &depth, &ctype, &interlace, NULL, NULL);
        if (w == 0 || h == 0 || w > DMO_PNG_MAX_SIDE || h > DMO_PNG_MAX_SIDE ||
            (uint64_t)w * h * 4 > DMO_PNG_MAX_BYTES) {
                set_why(&j->err, -EFBIG, "image too large");
                return -EFBIG;
        }

        if (depth == 16)
                png_set_strip_16(j->png);
        if (ctype == PNG_COLOR_TYPE_PALETTE)
                png_set_palette_to_rgb(j->png);
        if (ctype == PNG_COLOR_TYPE_GRAY && depth < 8)
                png_set_expand_gray_1_2_4_to_8(j->png);
        if (png_get_valid(j->png, j->info, PNG_INFO_tRNS))
                png_set_tRNS_to_alpha(j->png);
        if (ctype == PNG_COLOR_TYPE_GRAY || ctype == PNG_COLOR_TYPE_GRAY_ALPHA)
                png_set_gray_to_rgb(j->png);
        png_set_filler(j->png, 0xff, PNG_FILLER_AFTER);
        if (interlace != PNG_INTERLACE_NONE)
                png_set_interlace_handling(j->png);
        png_read_update_info(j->png, j->info);
        if (png_get_rowbytes(j->png, j->info) != (size_t)w * 4) {
                set_why(&j->err, -EINVAL, "unsupported PNG layout");
                return -EINVAL;
        }

        j->rgba = malloc((size_t)w * h * 4);
        j->rows = malloc(sizeof(*j->rows) * h);
        if (!j->rgba || !j->rows) {
                set_why(&j->err, -ENOMEM, "out of memory");
                return -ENOMEM;
        }
        for (uint32_t y = 0; y < h; y++)
                j->rows[y] = j->rgba + (size_t)y * w * 4;
        png_read_image(j->png, j->rows);
        png_read_end(j->png, NULL);

        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)w, (int)h);
        if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
                cairo_surface_destroy(s);
                set_why(&j->err, -ENOMEM, "out of memory");
                return -ENOMEM;
        }
        cairo_surface_flush(s);
        uint8_t *dst = cairo_image_surface_get_data(s);
        int stride = cairo_image_surface_get_stride(s);
        for (uint32_t y = 0; y < h; y++) {
                const uint8_t *sp = j->rows[y];
                uint32_t *dp = (uint32_t *)(dst + (size_t)y * stride);
                for (uint32_t x = 0; x < w; x++, sp += 4) {
                        uint8_t a = sp[3];
                        /* Artwork is mostly opaque or clear: no arithmetic there. */
                        if (a == 0xff)
                                dp[x] = 0xffu << 24 | (uint32_t)sp[0] << 16 | (uint32_t)sp[1] << 8 |
                                        sp[2];
                        else if (a == 0)
                                dp[x] = 0;
                        else
                                dp[x] = (uint32_t)a << 24 | (uint32_t)premul(sp[0], a) << 16 |
                                        (uint32_t)premul(sp[1], a) << 8 | premul(sp[2], a);
                }
        }
        cairo_surface_mark_dirty(s);
        *out = s;
        return 0;
}

static int load(struct png_src *src, cairo_surface_t **out, char *why, size_t whylen)
{
        struct png_job j = {.err = {.why = why, .whylen = whylen}};
        uint8_t sig[8];
        int r;

        if (why && whylen)
                why[0] = '\0';
        *out = NULL;
        if (src->f) {
                if (fread(sig, 1, sizeof(sig), src->f) != sizeof(sig)) {
                        set_why(&j.err, -EINVAL, "not a PNG file (too short)");
                        return -EINVAL;
                }
        } else {
                if (src->len < sizeof(sig)) {
                        set_why(&j.err, -EINVAL, "not a PNG file (too short)");
                        return -EINVAL;
                }
                memcpy(sig, src->data, sizeof(sig));
                src->pos = sizeof(sig);
        }
        if (png_sig_cmp(sig, 0, sizeof(sig)) != 0) {
                set_why(&j.err, -EINVAL, "not a PNG file (bad signature)");
                return -EINVAL;
        }
        j.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &j.err, on_error, on_warning);
        if (!j.png)
                return -ENOMEM;
        j.info = png_create_info_struct(j.png);
        if (!j.info) {
                png_destroy_read_struct(&j.png, NULL, NULL);
                return -ENOMEM;
        }
        png_set_sig_bytes(j.png, sizeof(sig));
        r = decode(&j, src, out);
        png_destroy_read_struct(&j.png, &j.info, NULL);
        free(j.rows);
        free(j.rgba);
        return r;
}

int dmo_png_load_file(const char *path, cairo_surface_t **out, char *why, size_t whylen)
{
        _cleanup_fclose_ FILE *f = fopen(path, "rbe");
        if (!f) {
                int e = errno;
                if (why && whylen)
                        snprintf(why, whylen, "%s", strerror(e));
                *out = NULL;
                return -e;
        }
        struct png_src src = {.f = f};
        return load(&src, out, why, whylen);
}

int dmo_png_load_mem(const void *data, size_t len, cairo_surface_t **out, char *why, size_t whylen)
{
        struct png_src src = {.data = data, .len = len};
        return load(&src, out, why, whylen);
}
