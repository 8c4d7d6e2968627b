/* format: the byte layouts of a dormouse image, and nothing else.
 *
 * Four structures live on disk (doc/image-format.md is the normative spec):
 * - the signature block, in the unused tail of the swap header page, with
 *   the swap magic slot set to "ULSUSPEND" while an image is present;
 * - the image header, one page with its own xxh3-64 checksum;
 * - the extent map, a chain of pages listing the device runs that, put end
 *   to end, hold the chunk stream;
 * - the chunk headers inside the stream, one before each chunk's payload.
 *
 * Contract:
 * - This is the only code in dormouse that knows these byte layouts; every
 *   field is stored with explicit little-endian helpers, never by copying a
 *   C struct.
 * - Pure functions on caller-provided buffers: no allocation, no I/O (the
 *   extent-map loader reads through a callback the caller gives it), no
 *   global state, no printing. Safe on hostile input: every decoder bounds
 *   every length before using it and never loops without a fixed bound.
 * - Returns 0 or a negative errno. Decoders use: -ENOENT (nothing there),
 *   -ENODEV (not ours / not a swap area), -EBADMSG (ours but corrupt),
 *   -EPROTONOSUPPORT (a newer major version, or a feature this reader does
 *   not implement, such as encryption), -EINVAL (caller error).
 */
#ifndef DMO_IMAGE_FORMAT_H
#define DMO_IMAGE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "codec/codec.h"
#include "crypto/crypto.h"
#include "kernel/snapshot.h"
#include "kernel/swap_area.h" /* DMO_SWAP_MAGIC_LEN: mkswap's layout is owned there */

/* Format version. A reader accepts any minor of its major and refuses a
 * newer major with -EPROTONOSUPPORT. */
#define DMO_IMAGE_MAJOR 1
#define DMO_IMAGE_MINOR 2 /* 1.1: encryption; 1.2: the TPM section */

#define DMO_IMAGE_MIN_PAGE_SIZE 4096u
#define DMO_IMAGE_MAX_PAGE_SIZE 65536u
/* Upper bound on kernel pages in one image (256 TiB of 4 KiB pages). */
#define DMO_IMAGE_MAX_PAGES (1ull << 36)

/* Why something was refused; filled by decoders that take a fault pointer
 * and reported by dmo_image_probe() so `dormouse info` can say which part. */
enum dmo_image_fault {
        DMO_FAULT_NONE = 0,
        DMO_FAULT_NOT_SWAP,        /* the header page is no swap area */
        DMO_FAULT_FOREIGN,         /* another tool's hibernation signature */
        DMO_FAULT_SIGNATURE,       /* our signature block is corrupt */
        DMO_FAULT_HEADER_IO,       /* the image header could not be read */
        DMO_FAULT_HEADER_MAGIC,    /* no image header where the signature points */
        DMO_FAULT_HEADER_CHECKSUM, /* header checksum or its binding to the signature */
        DMO_FAULT_HEADER_FIELDS,   /* a header field is out of range or inconsistent */
        DMO_FAULT_VERSION,         /* a newer major version */
        DMO_FAULT_ENCRYPTED,       /* encrypted, or an unknown incompatible feature */
        DMO_FAULT_EXTENT_MAP,      /* the extent map is corrupt or out of bounds */
        DMO_FAULT_EXTENT_IO,       /* the extent map could not be read */
        DMO_FAULT_SWAP_IO,         /* the swap header page could not be read */
        DMO_FAULT_TRUNCATED,       /* the image reaches past the end of the device */
        DMO_FAULT_COUNT
};

/* Stable identifier of a fault ("extent-map"), for logs and JSON. */
const char *dmo_image_fault_id(enum dmo_image_fault f);

/* ---- page sizes ---- */

/* 0 if page_size is a power of two in [DMO_IMAGE_MIN_PAGE_SIZE, MAX]. */
int dmo_image_check_page_size(uint32_t page_size);

/* ---- signature block ---- */

#define DMO_SIG_BLOCK_SIZE 64u
/* The block starts this many bytes before the end of the swap header page:
 * clear of mkswap's fields and of the kernel's swsusp_header tail. */
#define DMO_SIG_BLOCK_FROM_END 128u

struct dmo_sig {
        uint16_t major; /* format version of the image */
        uint16_t minor;
        uint32_t page_size;     /* the image's page size */
        uint64_t header_offset; /* byte offset of the image header page on the device */
        uint32_t header_len;    /* bytes of the image header (one page) */
        uint64_t header_hash;   /* xxh3-64 of that whole page as written */
        char orig_magic[DMO_SWAP_MAGIC_LEN]; /* parse: the saved magic; install ignores it */
};

/* Turns the swap header page into one announcing an image: saves the
 * current magic into the block, sets the slot to "ULSUSPEND\0". Installing
 * over our own signature keeps the originally saved magic. -ENODEV: not a
 * swap area (or another tool's image); -ENOSPC: mkswap's bad-page list
 * reaches into the block; -EINVAL: bad page size or sig. */
int dmo_sig_install(uint8_t *page, uint32_t page_size, const struct dmo_sig *sig);

/* Restores the saved magic and zeroes the block, so blkid and swapon see a
 * plain swap area again. A block whose checksum is broken still comes off
 * (the magic becomes "SWAPSPACE2"). 0 also when there was nothing to remove
 * (*changed tells, nullable); -ENODEV when the page is not a swap area or
 * holds another tool's image, which is left untouched. */
int dmo_sig_remove(uint8_t *page, uint32_t page_size, int *changed);

/* 0: our signature, *out filled; -ENOENT: a plain swap area (no image);
 * -ENODEV: not a swap area, or another tool's hibernation signature;
 * -EBADMSG: our block is corrupt; -EPROTONOSUPPORT: a newer major. */
int dmo_sig_parse(const uint8_t *page, uint32_t page_size, struct dmo_sig *out);

/* ---- image header ---- */

#define DMO_IMAGE_HEADER_LEN 1024u /* bytes defined by version 1.0 */

/* Compression levels are the codec's business. The writer keeps them within
 * this range, and dmo_image_header_check() accepts exactly the levels the
 * writer can produce: this range and dmo_compress_level_check(). */
#define DMO_IMAGE_LEVEL_MIN (-(1 << 17))
#define DMO_IMAGE_LEVEL_MAX 255

/* Incompatible flags (low 16 bits): a reader that does not know one of
 * them refuses the image. Compatible flags (high 16 bits) may be ignored. */
#define DMO_IMAGE_F_ENCRYPTED      0x00000001u /* the encryption section is in use (1.1) */
#define DMO_IMAGE_F_TPM            0x00000002u /* the TPM section is in use (1.2) */
#define DMO_IMAGE_F_INCOMPAT_MASK  0x0000ffffu
#define DMO_IMAGE_F_INCOMPAT_KNOWN (DMO_IMAGE_F_ENCRYPTED | DMO_IMAGE_F_TPM)
#define DMO_IMAGE_F_PLATFORM       0x00010000u /* hibernated in platform (ACPI S4) mode */

/* The encryption section (doc/image-format.md §2.2), 200 bytes at offset
 * 512 of the header. Nothing in it is secret: the image key is in it only
 * wrapped (passphrase mode) or sealed (public-key mode). */
#define DMO_IMAGE_CRYPTO_LEN 200u

struct dmo_image_crypto {
        uint32_t cipher;                 /* enum dmo_chunk_cipher (crypto/crypto.h) */
        struct dmo_crypto_envelope env;  /* env.mode: enum dmo_encrypt_mode (the KDF) */
        uint8_t mac[DMO_CRYPTO_MAC_LEN]; /* keyed BLAKE2b of header and extent list */
};

/* The section's bytes with the MAC read as zero: what the image key is
 * bound to (dmo_crypto_key_bind). */
void dmo_image_crypto_section(const struct dmo_image_crypto *c, uint8_t out[DMO_IMAGE_CRYPTO_LEN]);

/* The TPM section (doc/image-format.md §2.3), at offset 1024 of the header
 * when DMO_IMAGE_F_TPM is set (which needs DMO_IMAGE_F_ENCRYPTED): the image
 * key sealed by the TPM, and the NV counter value the image expects. The
 * header's checksum and MAC then cover it (header_len 1568). */
#define DMO_IMAGE_TPM_OFFSET   1024u
#define DMO_IMAGE_TPM_LEN      544u
#define DMO_IMAGE_TPM_BLOB_MAX 512u
#define DMO_IMAGE_TPM_PIN      0x00000001u /* tpm.flags: sealed to a PIN too */

struct dmo_image_tpm {
        uint32_t pcrs;     /* bit N: PCR N of the SHA-256 bank */
        uint32_t flags;    /* DMO_IMAGE_TPM_* */
        uint32_t nv_index; /* the counter's NV index; 0: no counter */
        uint64_t counter;  /* its value when the image was written */
        uint32_t blob_len;
        uint8_t blob[DMO_IMAGE_TPM_BLOB_MAX]; /* TPM2B_PUBLIC, TPM2B_PRIVATE */
};

struct dmo_image_header {
        uint16_t major;
        uint16_t minor;
        uint32_t header_len; /* decode: bytes covered by the checksum */
        uint32_t flags;      /* DMO_IMAGE_F_* */
        uint32_t page_size;
        uint64_t image_pages; /* kernel pages in the image */
        uint32_t compress;    /* enum dmo_compress */
        int32_t level;
        uint32_t chunk_pages;
        uint64_t chunk_count;
        uint64_t stream_len; /* bytes of the chunk stream */
        uint64_t map_offset; /* byte offset of the first extent-map page */
        uint32_t map_pages;
        uint64_t extent_count;
        uint64_t map_hash;                   /* xxh3-64 of all map pages, in chain order */
        struct dmo_kernel_identity identity; /* identity.page_size is not stored */
        uint64_t start_ns;                   /* CLOCK_REALTIME when hibernation began */
        uint64_t end_ns;                     /* CLOCK_REALTIME when the image was complete */
        uint64_t write_ns;                   /* time spent writing the image */
        uint64_t raw_bytes;                  /* image_pages * page_size */
        uint64_t stored_bytes;               /* stream + map + header bytes on disk */
        uint64_t zero_pages;                 /* pages elided as all-zero */
        struct dmo_image_crypto crypto;
        struct dmo_image_tpm tpm; /* all zero without DMO_IMAGE_F_TPM */
};

/* Writes the header into page (page_size bytes; the rest is zeroed) with
 * its checksum. -EINVAL if a field is out of range. */
int dmo_image_header_encode(uint8_t *page, uint32_t page_size, const struct dmo_image_header *h);

/* Decodes and fully checks a header page. page_size is the size the
 * signature announced; the header must agree. fault is nullable. */
int dmo_image_header_decode(const uint8_t *page, uint32_t page_size, struct dmo_image_header *h,
                            enum dmo_image_fault *fault);

/* The range checks shared by encode and decode (no checksum, no version). */
int dmo_image_header_check(const struct dmo_image_header *h);

struct dmo_extent;

/* The header's authentication in an encrypted image: a keyed BLAKE2b
 * (dmo_crypto_mac_*) over the header as encoded with its checksum and MAC
 * read as zero, then every extent of the map as LE64 offset, LE64 pages.
 * It covers every field (chunk_count and stream_len among them) and where
 * the stream lies; the map pages' own bytes are checked structurally. key
 * must be bound. compute: fills h->crypto.mac; verify: 0 or -EBADMSG. */
int dmo_image_header_mac(struct dmo_crypto_key *key, struct dmo_image_header *h,
                         const struct dmo_extent *ext, uint64_t n_ext);
int dmo_image_header_mac_verify(struct dmo_crypto_key *key, const struct dmo_image_header *h,
                                const struct dmo_extent *ext, uint64_t n_ext);

/* ---- extent map ---- */

struct dmo_extent {
        uint64_t offset; /* device byte offset, page aligned */
        uint64_t pages;  /* length in pages, >= 1 */
};

#define DMO_MAP_PAGE_HEADER_LEN 32u
#define DMO_MAP_ENTRY_LEN       16u

uint32_t dmo_map_entries_per_page(uint32_t page_size);
/* Map pages needed for n extents (0 for n == 0). */
uint64_t dmo_map_pages_for(uint64_t extents, uint32_t page_size);

/* One map page: entries[0..count), its chain index and the next page's
 * byte offset (0 on the last page). */
/* The checksum rules, in one place: the signature's header_hash is
 * xxh3-64 of the whole image header page as written; the header's map_hash
 * is xxh3-64 over all map pages, in chain order. */
uint64_t dmo_image_header_hash(const uint8_t *page, uint32_t page_size);
struct dmo_map_hasher {
        XXH3_state_t state;
};
void dmo_map_hash_begin(struct dmo_map_hasher *h);
void dmo_map_hash_page(struct dmo_map_hasher *h, const uint8_t *page, uint32_t page_size);
uint64_t dmo_map_hash_end(const struct dmo_map_hasher *h);

int dmo_map_page_encode(uint8_t *page, uint32_t page_size, uint32_t index, uint64_t next,
                        const struct dmo_extent *entries, uint32_t count);
/* -EBADMSG on a bad magic, checksum, index, or a count of 0, above the
 * page's capacity or above max (the room in out). Entries are returned as
 * stored; dmo_extent_map_load() checks them against the device. */
int dmo_map_page_decode(const uint8_t *page, uint32_t page_size, uint32_t index,
                        struct dmo_extent *out, uint32_t max, uint32_t *count, uint64_t *next);

/* Reads len bytes at byte offset off of the device; 0 or -errno. */
typedef int (*dmo_image_read_fn)(void *ctx, void *buf, size_t len, uint64_t off);

/* Where the extent map must not point: the swap header page and the image
 * header page, and the size of the device. */
struct dmo_map_bounds {
        uint64_t device_size;
        uint64_t swap_header_offset;
        uint64_t header_offset;
};

/* Memory dmo_extent_map_load() needs, in dmo_extent elements. */
uint64_t dmo_map_scratch_len(const struct dmo_image_header *h);

/* Follows the map chain of a checked header and validates the whole map:
 * chain indices and length, map hash, every extent inside the device and
 * page aligned, no overlap between extents, map pages and the two header
 * pages, total length equal to the stream's page count. page_buf holds one
 * page; ext holds h->extent_count entries; scratch holds
 * dmo_map_scratch_len(h) entries. -EBADMSG on any inconsistency, the read
 * callback's error on I/O failure. Never reads more than h->map_pages pages. */
int dmo_extent_map_load(const struct dmo_image_header *h, const struct dmo_map_bounds *b,
                        dmo_image_read_fn rd, void *rd_ctx, uint8_t *page_buf,
                        struct dmo_extent *ext, struct dmo_extent *scratch);

/* ---- chunk headers ---- */

#define DMO_CHUNK_HEADER_LEN 56u

/* Encodes c's seq, npages, zero_map, flags, payload_len and hashes. */
void dmo_chunk_header_encode(uint8_t out[DMO_CHUNK_HEADER_LEN], const struct dmo_chunk *c);

/* Decodes and checks one chunk header against the image's geometry: magic,
 * own checksum, npages in 1..chunk_pages, zero_map within npages, known
 * flags (compressed only if the image's algorithm is not none), payload_len
 * equal to the non-zero pages' bytes when stored raw and strictly below it
 * when compressed. In an encrypted image (encrypted = true) payload_len
 * also carries the DMO_CRYPTO_TAG_LEN-byte tag and pages_hash is 0 (no
 * checksum of the plain pages is stored in clear). Fills seq, npages,
 * zero_map, flags, payload_len, payload_hash and pages_hash of c. -EBADMSG
 * otherwise. */
int dmo_chunk_header_decode(const uint8_t in[DMO_CHUNK_HEADER_LEN], uint32_t page_size,
                            uint32_t chunk_pages, uint32_t compress, bool encrypted,
                            struct dmo_chunk *c);

#endif
