/* bench-kernel-image: how many bytes Linux's own hibernation would put on
 * the swap device for a page stream, to compare dormouse's image with.
 *
 * The framing is kernel/power/swap.c's as of 6.12 (swsusp_write,
 * save_compressed_image, swap_write_page): the stream's first page (the
 * kernel's swsusp_info header) is written as it is; the rest goes in blocks
 * of UNC_PAGES = 32 pages (128 KiB), each compressed in one call (LZO-1x-1,
 * or LZ4_compress_default with hibernate.compressor=lz4) and written as an
 * 8-byte length (a size_t on 64-bit) followed by the compressed bytes,
 * padded to whole pages. There is no stored-raw fallback: a block that
 * does not compress is written expanded. Every page written is listed in
 * the swap map, a chain of pages of PAGE_SIZE / 8 - 1 = 511 entries; the
 * first map page is allocated before any data and a new one whenever one
 * fills. The signature page (swsusp_header) is the swap header page and,
 * like dormouse's signature block, not counted.
 *
 * The compressors are the user-space libraries (liblzo2's lzo1x_1_compress,
 * liblz4's LZ4_compress_default): the kernel's lib/lzo and lib/lz4 are
 * ports of the same algorithms with the same parameters (LZO's 2^14-entry
 * dictionary, LZ4 acceleration 1 with a 16 KiB hash table), so sizes agree
 * to within the ports' small differences, not byte for byte.
 *
 * Contract: a bench helper; allocates in new(), nothing after; no I/O.
 */
#ifndef DMO_TESTS_BENCH_KERNEL_IMAGE_H
#define DMO_TESTS_BENCH_KERNEL_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

enum dmo_kernel_compressor {
        DMO_KERNEL_LZO, /* the kernel's default */
        DMO_KERNEL_LZ4, /* hibernate.compressor=lz4 (6.9 and later) */
};

/* The kernel's block: UNC_PAGES pages. */
#define DMO_KERNEL_UNC_PAGES 32u

struct dmo_kernel_image_size {
        uint64_t pages;        /* stream pages fed, the header page included */
        uint64_t blocks;       /* compressed blocks */
        uint64_t cmp_bytes;    /* compressor output, all blocks */
        uint64_t header_bytes; /* 8 per block */
        uint64_t pad_bytes;    /* each block's tail to a page boundary */
        uint64_t map_pages;    /* swap map */
        uint64_t bytes;        /* on disk: header page, blocks' pages, map pages */
};

struct dmo_kernel_image;

/* -ENOSYS: LZO asked for and the bench was built without liblzo2. */
int dmo_kernel_image_new(enum dmo_kernel_compressor algo, uint32_t page_size,
                         struct dmo_kernel_image **out);
void dmo_kernel_image_free(struct dmo_kernel_image *k);

/* Whether this build can model algo. */
bool dmo_kernel_image_has(enum dmo_kernel_compressor algo);
const char *dmo_kernel_image_name(enum dmo_kernel_compressor algo);

/* Where the stream's next page goes: page_size bytes, fill then add(). */
void *dmo_kernel_image_page(struct dmo_kernel_image *k);
/* The page from page() is filled. 0, or -EIO when the compressor fails. */
int dmo_kernel_image_add(struct dmo_kernel_image *k);

/* Compresses the last partial block and says what the image holds; the
 * model starts over empty. */
int dmo_kernel_image_finish(struct dmo_kernel_image *k, struct dmo_kernel_image_size *out);

#endif
