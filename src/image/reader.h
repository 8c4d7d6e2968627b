/* reader: finds, verifies and streams back a dormouse image.
 *
 * dmo_image_probe() answers "is there an image, and is it sound?" from the
 * swap header page, the image header and the whole extent map; it fills the
 * struct dmo_image_info that `dormouse info` shows. The reader then streams
 * the chunks back along the extents, decodes them in parallel through the
 * codec and hands out the kernel's pages in order.
 *
 * Contract:
 * - Every corruption is reported before the last page is delivered: chunk
 *   headers are checked (own checksum, sequence, page count, stream bounds)
 *   before their payload is used, payload and page checksums before any page
 *   of the chunk is handed out, and the stream's totals while the last chunk
 *   is parsed. next_page() returning 0 means the whole image was consistent.
 * - dmo_image_probe() and dmo_image_reader_new() allocate; next_page() never
 *   does. The read-ahead issues requests of at least 1 MiB along each extent.
 * - May call format, the codec, the block device and the progress model
 *   (dmo_progress_add_bytes for bytes read, with each read's duration).
 *   Never writes to the device,
 *   never prints. After an error, next_page() keeps returning it.
 */
#ifndef DMO_IMAGE_READER_H
#define DMO_IMAGE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image/format.h"

struct dmo_blockdev;
struct dmo_progress;

/* Everything known about an image; filled as far as probing got. */
#define DMO_INFO_EXTENTS 32

struct dmo_image_info {
        enum dmo_image_fault fault; /* why probing stopped, DMO_FAULT_NONE if sound */
        uint32_t page_size;
        uint64_t device_size;
        uint64_t swap_header_offset;
        bool has_sig;    /* sig is valid */
        bool has_header; /* header is valid (checksum, version, fields) */
        bool map_ok;     /* the extent map was read and checked */
        struct dmo_sig sig;
        struct dmo_image_header header;
        /* Where the chunk stream lies: its first extents (all of them when
         * there are few), for `dormouse info` and tests that must hit it. */
        struct dmo_extent extents[DMO_INFO_EXTENTS];
        unsigned n_extents;
};

/* 0: a sound image (info fully filled); -ENOENT: a plain swap area;
 * -ENODEV: not a swap area, or another tool's image (info->fault says);
 * -EBADMSG: ours but corrupt (info->fault says which part);
 * -EPROTONOSUPPORT: a newer major version, or encrypted;
 * another negative errno: the device could not be read. */
int dmo_image_probe(struct dmo_blockdev *dev, uint64_t header_page, uint32_t page_size,
                    struct dmo_image_info *info);

/* After the image is finished with (restored, refused, discarded) and its
 * signature is off: tells the device that the image's slots (stream
 * extents, map pages, header page; never the swap header page) hold
 * nothing any more (dmo_blockdev_discard). Only for an image whose extent
 * map was verified (info->map_ok): a damaged map says nothing reliable
 * about where the image lies. Returns the first error; tries every slot.
 * The caller must be sure the swap area is not in use (an early boot). */
int dmo_image_discard(struct dmo_blockdev *dev, const struct dmo_image_info *info);

struct dmo_image_reader;

/* info must come from a successful dmo_image_probe() on the same device;
 * the extent map is read and checked again (against the header's map hash).
 * threads: codec workers, 0 = one per online CPU. */
int dmo_image_reader_new(const struct dmo_image_info *info, struct dmo_blockdev *dev,
                         unsigned threads, struct dmo_progress *progress,
                         struct dmo_image_reader **out);

/* An encrypted image (header flag ENCRYPTED) needs its key before any
 * page comes out; the read-ahead runs meanwhile and fills its buffers (a
 * few MiB, or what dmo_image_reader_prefetch allows) while a person types a
 * passphrase. key (unwrapped from the image's
 * envelope, owned by the caller, kept until the reader is freed) is bound
 * to the image, then the header and the extent list are authenticated
 * against the header's MAC: -EBADMSG if they were altered (by someone who
 * could not know the key), -EINVAL for a plain image or a second key,
 * -ENOTSUP when this CPU cannot run the image's chunk cipher. */
int dmo_image_reader_set_key(struct dmo_image_reader *r, struct dmo_crypto_key *key);

/* Encrypted images only, until the key is set: lets the read-ahead read up
 * to bytes more of the stream (in its own memory, allocated as it goes,
 * given back as the restore consumes it), so that the wait after the right
 * passphrase is the decryption and the restore, not the disk. The caller
 * sizes it to the memory that is free. No effect on a plain image. */
void dmo_image_reader_prefetch(struct dmo_image_reader *r, uint64_t bytes);

/* Stream bytes read ahead beyond the usual buffers before the key came. */
uint64_t dmo_image_reader_prefetched(struct dmo_image_reader *r);

/* Chunks handed out so far straight from the read-ahead buffers, neither
 * copied nor decoded by the codec's workers: stored as they were (not
 * compressed, no zero page, not encrypted) and lying whole in one buffer;
 * their checksums are checked on the calling thread. */
uint64_t dmo_image_reader_chunks_in_place(const struct dmo_image_reader *r);

/* 1: *pages points at the next *n (>= 1) consecutive pages, the rest of
 * the current chunk (valid until the next call); 0: the end, every page
 * delivered and the stream consistent; -EBADMSG: corrupt data (encrypted:
 * also any chunk that fails authentication, out of place, from another
 * image, or missing); -ENOKEY: encrypted and no key was set; -EIO and
 * friends: the device failed. */
int dmo_image_reader_next_pages(struct dmo_image_reader *r, const void **pages, size_t *n);

void dmo_image_reader_free(struct dmo_image_reader *r);

/* Machine-readable description (one JSON object, stable keys). Returns the
 * length written, or -ENOSPC if len is too small (buf holds a truncated,
 * NUL-terminated prefix). */
int dmo_image_info_to_json(const struct dmo_image_info *info, char *buf, size_t len);

#endif
