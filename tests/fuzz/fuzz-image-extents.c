/* Fuzz target: the extent-map chain. The input is a small "device" whose
 * first page is an image header (its map fields are taken as they are) and
 * whose other pages hold map pages, as a hostile disk would present them. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image/format.h"
#include "util/le.h"

#include <xxhash.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PS        4096u
#define DEV_PAGES 64u

struct dev {
        const uint8_t *buf;
        size_t size;
        unsigned reads;
};

static int rd(void *ctx, void *buf, size_t len, uint64_t off)
{
        struct dev *d = ctx;
        d->reads++;
        if (off > d->size || len > d->size - off)
                return -ENXIO;
        memcpy(buf, d->buf + off, len);
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static uint8_t disk[DEV_PAGES * PS];
        if (size < 64)
                return 0;
        memset(disk, 0, sizeof(disk));
        memcpy(disk, data, size < sizeof(disk) ? size : sizeof(disk));

        /* A header whose geometry comes from the input's first bytes, kept
         * valid so the loader is reached. */
        struct dmo_image_header h = {.page_size = PS, .chunk_pages = 64, .compress = 0};
        h.extent_count = 1 + dmo_get_le32(data) % 2000;
        h.map_pages = (uint32_t)dmo_map_pages_for(h.extent_count, PS);
        h.map_offset = (uint64_t)(dmo_get_le32(data + 4) % (DEV_PAGES + 2)) * PS;
        uint64_t stream_pages = h.extent_count + dmo_get_le32(data + 8) % 64;
        h.stream_len = stream_pages * PS - dmo_get_le16(data + 12) % PS;
        h.image_pages = stream_pages * 16;
        h.chunk_count = (h.image_pages + 63) / 64;
        h.raw_bytes = h.image_pages * PS;
        h.map_hash = dmo_get_le64(data + 16);
        if (dmo_image_header_check(&h) != 0)
                return 0;

        struct dev d = {disk, sizeof(disk), 0};
        const struct dmo_map_bounds b = {
            .device_size = dmo_get_le16(data + 24) % 2 ? sizeof(disk) : sizeof(disk) / 2,
            .swap_header_offset = 0,
            .header_offset = (uint64_t)(data[26] % DEV_PAGES) * PS,
        };
        uint8_t page[PS];
        struct dmo_extent *ext = calloc(h.extent_count, sizeof(*ext));
        struct dmo_extent *scratch = calloc(dmo_map_scratch_len(&h), sizeof(*scratch));
        if (!ext || !scratch)
                abort();
        /* The map hash is random, so make a second attempt with the right
         * one: otherwise the checks after the hash would never run. */
        for (int attempt = 0; attempt < 2; attempt++) {
                d.reads = 0;
                int r = dmo_extent_map_load(&h, &b, rd, &d, page, ext, scratch);
                if (d.reads > h.map_pages)
                        __builtin_trap();
                if (r == 0) {
                        uint64_t total = 0;
                        for (uint64_t i = 0; i < h.extent_count; i++) {
                                if (ext[i].pages == 0 || ext[i].offset % PS ||
                                    ext[i].offset + ext[i].pages * PS > b.device_size)
                                        __builtin_trap();
                                total += ext[i].pages;
                        }
                        if (total != stream_pages)
                                __builtin_trap();
                }
                /* Recompute the hash over the chain as the loader would see it. */
                uint64_t off = h.map_offset;
                static uint8_t cat[DEV_PAGES * PS];
                size_t m = 0;
                for (uint32_t i = 0; i < h.map_pages && off <= sizeof(disk) - PS && m < DEV_PAGES;
                     i++, m++) {
                        memcpy(cat + m * PS, disk + off, PS);
                        off = dmo_get_le64(disk + off + 16);
                }
                h.map_hash = XXH3_64bits(cat, m * PS);
        }
        free(ext);
        free(scratch);
        return 0;
}
