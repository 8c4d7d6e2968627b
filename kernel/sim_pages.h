/* sim_pages: the simulated kernel's memory, a page stream that looks like a
 * real hibernation image to a compressor (about a third zero pages, text,
 * machine code, page tables and pointer arrays, incompressible data, and
 * copies of recent pages) but is a pure function of (seed, page index), so
 * a resume can check every page without storing any.
 *
 * Page 0 of a stream is the header page (like the kernel's swsusp_info):
 * magic, page count, page size, seed and the identity of the kernel that
 * made it, with a checksum; pages 1..count-1 are data pages.
 *
 * Contract:
 * - Pure functions, no state, no allocation, no I/O; fast enough that a
 *   benchmark measures the storage path, not the generator.
 * - The header page's byte layout is defined here, little-endian, once.
 * - Page sizes: multiples of 64 from 1024 to 65536.
 */
#ifndef DMO_KERNEL_SIM_PAGES_H
#define DMO_KERNEL_SIM_PAGES_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/snapshot.h"

enum dmo_sim_page_kind {
        DMO_SIM_PAGE_HEADER,
        DMO_SIM_PAGE_ZERO,
        DMO_SIM_PAGE_TEXT,
        DMO_SIM_PAGE_CODE,
        DMO_SIM_PAGE_POINTERS,
        DMO_SIM_PAGE_RANDOM,
        DMO_SIM_PAGE_COPY,
        DMO_SIM_PAGE_KIND_COUNT
};

struct dmo_sim_header {
        uint64_t pages; /* including this header page */
        uint32_t page_size;
        uint64_t seed;
        struct dmo_kernel_identity id;
};

bool dmo_sim_page_size_ok(size_t page_size);

/* What data page `index` (>= 1) is; page 0 is always the header. */
enum dmo_sim_page_kind dmo_sim_page_kind(uint64_t seed, uint64_t index);

/* Fills buf (page_size bytes) with data page `index` (>= 1). */
void dmo_sim_page_fill(uint64_t seed, uint64_t index, void *buf, size_t page_size);

/* Header page: encode fills the whole page; decode returns -EINVAL for a
 * page that is not a simulated kernel header (magic, checksum, layout
 * version, page size or page count wrong). */
int dmo_sim_header_encode(const struct dmo_sim_header *h, void *page, size_t page_size);
int dmo_sim_header_decode(const void *page, size_t page_size, struct dmo_sim_header *out);

#endif
