/* The kernel's hibernation image size for a page stream (see the header).
 * The framing is a dozen lines of arithmetic: no library knows it. */
#include "tests/bench-kernel-image.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#ifdef HAVE_LZO2
#include <lzo1x.h>
#endif

/* size_t, the block's length field on 64-bit (CMP_HEADER). */
static const uint64_t cmp_header = 8;

struct dmo_kernel_image {
        enum dmo_kernel_compressor algo;
        uint32_t page_size;
        uint8_t *unc; /* one block of pages */
        uint8_t *cmp; /* the compressor's output */
        size_t cmp_cap;
        void *wrkmem;  /* LZO's dictionary */
        uint32_t fill; /* pages in unc */
        struct dmo_kernel_image_size s;
};

bool dmo_kernel_image_has(enum dmo_kernel_compressor algo)
{
#ifdef HAVE_LZO2
        return algo == DMO_KERNEL_LZO || algo == DMO_KERNEL_LZ4;
#else
        return algo == DMO_KERNEL_LZ4;
#endif
}

const char *dmo_kernel_image_name(enum dmo_kernel_compressor algo)
{
        return algo == DMO_KERNEL_LZO ? "LZO" : "LZ4";
}

void dmo_kernel_image_free(struct dmo_kernel_image *k)
{
        if (!k)
                return;
        free(k->unc);
        free(k->cmp);
        free(k->wrkmem);
        free(k);
}

int dmo_kernel_image_new(enum dmo_kernel_compressor algo, uint32_t page_size,
                         struct dmo_kernel_image **out)
{
        if (!dmo_kernel_image_has(algo))
                return -ENOSYS;
#ifdef HAVE_LZO2
        if (algo == DMO_KERNEL_LZO && lzo_init() != LZO_E_OK)
                return -ENOSYS;
#endif
        struct dmo_kernel_image *k = calloc(1, sizeof(*k));
        if (!k)
                return -ENOMEM;
        const size_t unc = (size_t)DMO_KERNEL_UNC_PAGES * page_size;
        k->algo = algo;
        k->page_size = page_size;
        /* Either compressor's worst case fits: LZO's x + x/16 + 67,
         * LZ4_COMPRESSBOUND's x + x/255 + 16. */
        k->cmp_cap = unc + unc / 16 + 64 + 3;
        k->unc = malloc(unc);
        k->cmp = malloc(k->cmp_cap);
#ifdef HAVE_LZO2
        if (algo == DMO_KERNEL_LZO)
                k->wrkmem = malloc(LZO1X_1_MEM_COMPRESS);
#endif
        if (!k->unc || !k->cmp || (algo == DMO_KERNEL_LZO && !k->wrkmem)) {
                dmo_kernel_image_free(k);
                return -ENOMEM;
        }
        *out = k;
        return 0;
}

void *dmo_kernel_image_page(struct dmo_kernel_image *k)
{
        return k->unc + (size_t)k->fill * k->page_size;
}

static int compress_block(struct dmo_kernel_image *k)
{
        const size_t len = (size_t)k->fill * k->page_size;
        size_t out = 0;
        if (k->algo == DMO_KERNEL_LZ4) {
                int n = LZ4_compress_default((const char *)k->unc, (char *)k->cmp, (int)len,
                                             (int)k->cmp_cap);
                if (n <= 0)
                        return -EIO;
                out = (size_t)n;
        } else {
#ifdef HAVE_LZO2
                lzo_uint n = 0;
                if (lzo1x_1_compress(k->unc, len, k->cmp, &n, k->wrkmem) != LZO_E_OK)
                        return -EIO;
                out = n;
#else
                return -ENOSYS;
#endif
        }
        const uint64_t ps = k->page_size;
        const uint64_t written = cmp_header + out;
        const uint64_t pages = (written + ps - 1) / ps;
        k->s.blocks++;
        k->s.cmp_bytes += out;
        k->s.header_bytes += cmp_header;
        k->s.pad_bytes += pages * ps - written;
        k->s.bytes += pages * ps;
        k->fill = 0;
        return 0;
}

int dmo_kernel_image_add(struct dmo_kernel_image *k)
{
        if (k->s.pages++ == 0) {
                /* swsusp_write: the header page, as it is. */
                k->s.bytes += k->page_size;
                return 0;
        }
        if (++k->fill < DMO_KERNEL_UNC_PAGES)
                return 0;
        return compress_block(k);
}

int dmo_kernel_image_finish(struct dmo_kernel_image *k, struct dmo_kernel_image_size *out)
{
        int r = k->fill ? compress_block(k) : 0;
        if (r < 0)
                return r;
        const uint64_t per_map = k->page_size / 8 - 1;
        const uint64_t written = k->s.bytes / k->page_size;
        k->s.map_pages = written / per_map + 1;
        k->s.bytes += k->s.map_pages * k->page_size;
        *out = k->s;
        k->s = (struct dmo_kernel_image_size){0};
        return 0;
}
