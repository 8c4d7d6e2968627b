/* sigdev: the signature block on a device — read-modify-write of the swap
 * header page with a sync, so the engine writes "the signature, last" and
 * takes it off before a restore in one call. */
#include <errno.h>
#include <string.h>

#include "image/sigdev.h"
#include "kernel/blockdev.h"

/* The page lives on the stack: these run after the snapshot, when the
 * engine must not allocate. */
#define PAGE_MAX DMO_IMAGE_MAX_PAGE_SIZE

static int read_header_page(struct dmo_blockdev *d, uint64_t header_page, uint32_t page_size,
                            uint8_t *page, uint64_t *off)
{
        if (dmo_image_check_page_size(page_size) < 0)
                return -EINVAL;
        const uint64_t size = dmo_blockdev_size(d);
        if (size < page_size || header_page > size / page_size - 1)
                return -ENODEV;
        *off = header_page * page_size;
        return dmo_blockdev_pread(d, page, page_size, *off);
}

int dmo_sig_read(struct dmo_blockdev *d, uint64_t header_page, uint32_t page_size,
                 struct dmo_sig *out)
{
        uint8_t page[PAGE_MAX] __attribute__((aligned(4096)));
        uint64_t off;
        int r = read_header_page(d, header_page, page_size, page, &off);
        if (r < 0)
                return r;
        return dmo_sig_parse(page, page_size, out);
}

int dmo_sig_write(struct dmo_blockdev *d, uint64_t header_page, uint32_t page_size,
                  const struct dmo_sig *sig)
{
        uint8_t page[PAGE_MAX] __attribute__((aligned(4096)));
        uint64_t off;
        int r = read_header_page(d, header_page, page_size, page, &off);
        if (r < 0)
                return r;
        if (sig->header_offset == off)
                return -EINVAL; /* the header cannot live in the swap header page */
        r = dmo_sig_install(page, page_size, sig);
        if (r < 0)
                return r;
        r = dmo_blockdev_pwrite(d, page, page_size, off);
        if (r < 0)
                return r;
        return dmo_blockdev_sync(d);
}

int dmo_sig_clear(struct dmo_blockdev *d, uint64_t header_page, uint32_t page_size)
{
        uint8_t page[PAGE_MAX] __attribute__((aligned(4096)));
        uint64_t off;
        int r = read_header_page(d, header_page, page_size, page, &off);
        if (r < 0)
                return r;
        int changed;
        r = dmo_sig_remove(page, page_size, &changed);
        if (r < 0 || !changed)
                return r;
        r = dmo_blockdev_pwrite(d, page, page_size, off);
        if (r < 0)
                return r;
        return dmo_blockdev_sync(d);
}
