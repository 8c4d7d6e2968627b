/* swap_area: what the kernel knows about a swap area — its header page
 * (mkswap's layout: version, last_page, bad pages, UUID, label, and the
 * 10-byte magic at page_size - 10), a swap file's resume offset (FIEMAP,
 * and on Btrfs its chunk tree through btrfs_map)
 * and the list of active areas in /proc/swaps.
 *
 * Contract:
 * - The one owner of mkswap's layout: src/image asks here where the magic,
 *   the fields and the bad-page list are, and never parses them itself.
 * - Reads only. The one write helper, dmo_swap_set_magic(), edits a page in
 *   memory; the bytes of dormouse's own signature block (the rest of the
 *   header page's tail) belong to src/image, not here.
 * - May call the blockdev and btrfs_map modules and libc; never prints, no
 *   global state.
 * - Every parser bounds-checks its input and is fuzzed
 *   (tests/fuzz/fuzz-swap-header.c).
 */
#ifndef DMO_KERNEL_SWAP_AREA_H
#define DMO_KERNEL_SWAP_AREA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct dmo_blockdev;
struct dmo_swap_target;
struct stat;

#define DMO_SWAP_MAGIC_LEN 10
#define DMO_SWAP_PAGE_MIN  4096u
#define DMO_SWAP_PAGE_MAX  65536u
#define DMO_SWAP_LABEL_MAX 16

enum dmo_swap_magic {
        DMO_SWAP_MAGIC_NONE,       /* not a swap area at any page size */
        DMO_SWAP_MAGIC_SWAPSPACE2, /* a usable swap area */
        DMO_SWAP_MAGIC_SWAP_SPACE, /* v0 swap ("SWAP-SPACE"): refused, needs mkswap */
        DMO_SWAP_MAGIC_ULSUSPEND,  /* carries a userland hibernation signature */
        DMO_SWAP_MAGIC_S1SUSPEND,  /* carries the kernel's own hibernation image */
        DMO_SWAP_MAGIC_S2SUSPEND,  /* kernel image, older variant */
        DMO_SWAP_MAGIC_LINHIB0001, /* kernel image, 2.6.37-3.x LZO era */
};

struct dmo_swap_info {
        enum dmo_swap_magic magic;
        uint32_t page_size; /* the variant the magic was found at; 0 if none */
        uint32_t version;   /* 1 */
        uint64_t last_page; /* index of the last usable page; slot 0 is the header */
        uint32_t nr_badpages;
        bool byteswapped; /* made on a machine of the other endianness */
        uint8_t uuid[16];
        char label[DMO_SWAP_LABEL_MAX + 1];
};

/* Parses a header page. buf must hold at least DMO_SWAP_PAGE_MIN bytes
 * (-EINVAL otherwise); every page size variant that fits in len is tried,
 * smallest first.
 * 0: out->magic tells what was found (DMO_SWAP_MAGIC_NONE included);
 * -EPROTONOSUPPORT: a v0 "SWAP-SPACE" area (out->magic set);
 * -EUCLEAN: the magic is there but the fields are impossible
 * (version, last_page 0, too many bad pages). */
int dmo_swap_header_parse(const uint8_t *buf, size_t len, struct dmo_swap_info *out);

/* The same for a header page of exactly page_size bytes (a power of two in
 * [DMO_SWAP_PAGE_MIN, MAX], else -EINVAL): only the magic at page_size - 10
 * counts, as for an area of a known page size. */
int dmo_swap_header_parse_page(const uint8_t *page, size_t page_size, struct dmo_swap_info *out);

/* Byte offset in the header page where mkswap's bad-page list ends: a
 * signature stored in the page's tail must start at or after it. */
size_t dmo_swap_badpages_end(const struct dmo_swap_info *info);

/* The DMO_SWAP_MAGIC_LEN bytes of a magic (not NUL-terminated where the
 * magic fills all ten); NULL for DMO_SWAP_MAGIC_NONE. */
const char *dmo_swap_magic_bytes(enum dmo_swap_magic m);

/* Reads and parses the header at header_page (in units of the running
 * system's page size, like resume_offset=). */
int dmo_swap_header_read(struct dmo_blockdev *d, uint64_t header_page, struct dmo_swap_info *out);
/* Same at a byte offset. */
int dmo_swap_header_read_at(struct dmo_blockdev *d, uint64_t byte_offset,
                            struct dmo_swap_info *out);

/* True if the magic names a swap area that is, or can go back to being,
 * usable swap (SWAPSPACE2 or a hibernation signature over it). */
bool dmo_swap_magic_is_swap(enum dmo_swap_magic m);
const char *dmo_swap_magic_name(enum dmo_swap_magic m);

/* Where the magic sits in a header page of page_size bytes, or 0 if the
 * page size is not one of the variants. */
size_t dmo_swap_magic_offset(size_t page_size);
int dmo_swap_set_magic(uint8_t *page, size_t page_size, const char magic[DMO_SWAP_MAGIC_LEN]);

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" into buf (37 bytes). */
void dmo_swap_uuid_format(const uint8_t uuid[16], char buf[37]);

/* Resume offset of a swap file: the physical block of its first byte, in
 * units of the system page size, and the device holding it. FIEMAP gives
 * the block; on Btrfs, whose FIEMAP addresses are its own logical ones,
 * the chunk tree maps it onto the disk and names the device (btrfs_map.h:
 * needs root, -EPERM otherwise; st_dev there is an anonymous device).
 * -EINVAL: not a regular file; -EOPNOTSUPP: the filesystem has no FIEMAP;
 * -ENODATA: the first page
 * is a hole or preallocated but never written (run mkswap on it);
 * -EMEDIUMTYPE: the first page is inline, encoded, encrypted, not block
 * aligned or of unknown location (the kernel cannot swap there). */
int dmo_swapfile_resume_offset(const char *path, uint64_t *first_physical_page, dev_t *backing_dev);

/* One line of /proc/swaps. */
struct dmo_swap_entry {
        char path[256]; /* octal escapes (\040) decoded */
        bool is_file;   /* "file", else "partition" */
        bool deleted;   /* a swap file unlinked while active */
        bool is_zram;   /* compressed RAM, useless for hibernation */
        uint64_t size_kib, used_kib;
        int priority;
};

/* Parses a /proc/swaps-format file. Fills up to max entries, *n gets the
 * number of entries in the file (may exceed max). -EINVAL on a malformed line. */
int dmo_proc_swaps_parse(const char *path, struct dmo_swap_entry *entries, size_t max, size_t *n);
/* The area hibernation would pick, like systemd: skip zram and deleted files,
 * highest priority, then most free space. -ENOENT if none fits. */
int dmo_proc_swaps_pick(const struct dmo_swap_entry *entries, size_t n, size_t *index);

/* Whether st (a stat of a device node) is the target's device: a block
 * device of its number, or, where devices are files (the simulated
 * kernel), the same file. */
bool dmo_swap_target_is(const struct dmo_swap_target *t, const struct stat *st, bool files);

/* Whether the kernel will take an image at the target: it writes one only
 * to an active area starting at exactly that page (SNAPSHOT_SET_SWAP_AREA,
 * swap_type_of()). Each active area of a /proc/swaps-format file is placed
 * on its disk (a swap file through FIEMAP, see above). */
enum dmo_swap_active {
        DMO_SWAP_ACTIVE_HERE,    /* an active area starts at the target's page */
        DMO_SWAP_ACTIVE_UNKNOWN, /* cannot tell (no list, an area not placed): the kernel will */
        DMO_SWAP_ACTIVE_NONE,    /* no active area starts there */
        DMO_SWAP_ACTIVE_MOVED,   /* none; a swap file on that disk starts at another page */
};

struct dmo_swap_active_result {
        enum dmo_swap_active where;
        char moved_path[256]; /* DMO_SWAP_ACTIVE_MOVED: that swap file */
        uint64_t moved_first; /* and its first page */
};

/* Looks through proc_swaps (files: devices are files, as above; a swap
 * file is then compared as a device). Returns 0 with out->where set. */
int dmo_swap_active_at(const char *proc_swaps, const struct dmo_swap_target *t, bool files,
                       struct dmo_swap_active_result *out);

#endif
