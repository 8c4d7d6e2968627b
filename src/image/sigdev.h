/* sigdev: the signature block applied to a device.
 *
 * Read-modify-write of the swap header page at header_page * page_size
 * (header_page in units of page_size, like resume_offset=), followed by a
 * sync. The byte layout is format's (dmo_sig_install/remove/parse).
 *
 * Contract:
 * - Allocates nothing (the page is on the stack), so the engine may call
 *   these after the snapshot; touches only the swap header page.
 * - May call format and the block device. Never prints.
 */
#ifndef DMO_IMAGE_SIGDEV_H
#define DMO_IMAGE_SIGDEV_H

#include <stdint.h>

#include "image/format.h"

struct dmo_blockdev;

/* dmo_sig_parse()'s answers for the page on the device, or an I/O error;
 * -ENODEV also when header_page lies outside the device. */
int dmo_sig_read(struct dmo_blockdev *d, uint64_t header_page, uint32_t page_size,
                 struct dmo_sig *out);

/* Installs sig (from dmo_image_writer_finish()) and syncs. The engine calls
 * this last, after the image is durable. */
int dmo_sig_write(struct dmo_blockdev *d, uint64_t header_page, uint32_t page_size,
                  const struct dmo_sig *sig);

/* Takes our signature off (even a damaged one) and syncs; idempotent: on a
 * plain swap area it writes nothing and returns 0. -ENODEV when the area is
 * not swap or carries another tool's image, which it leaves alone. */
int dmo_sig_clear(struct dmo_blockdev *d, uint64_t header_page, uint32_t page_size);

#endif
