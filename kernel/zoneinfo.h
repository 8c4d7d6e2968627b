/* zoneinfo: the page frames the kernel's memory zones span, from
 * /proc/zoneinfo, for the largest image a hibernation can make.
 *
 * The kernel copies every page it saves into a free page frame before the
 * image is written (hibernate_preallocate_memory, swsusp_save), and the
 * saved pages and their copies are distinct frames of the zones: an image
 * holds at most half of the frames present in them. MemTotal is no such
 * bound, since reserved frames (the kernel's own code and data) are saved
 * too and MemTotal leaves them out.
 *
 * Contract: reads the one file it is given; no allocation, no logging.
 */
#ifndef DMO_KERNEL_ZONEINFO_H
#define DMO_KERNEL_ZONEINFO_H

#include <stdint.h>

/* The sum of every zone's "present" pages in the zoneinfo file at path.
 * -ENOENT (or another errno) when it cannot be read, -EINVAL when it names
 * no zone with present pages or a count is not a number. */
int dmo_zoneinfo_present_pages(const char *path, uint64_t *pages);

/* The most pages a stream read from /dev/snapshot can have with present
 * page frames in the zones: half of them (the data pages), one page of
 * page frame numbers per page_size / 8 data pages, and the header page. */
uint64_t dmo_zoneinfo_max_image_pages(uint64_t present, uint32_t page_size);

#endif
