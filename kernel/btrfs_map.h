/* btrfs_map: where a byte of a Btrfs file is on its disk, for a swap file's
 * resume offset.
 *
 * Btrfs answers FIEMAP with its own logical addresses, which the chunk
 * tree maps onto (device, physical offset) pairs; resume_offset= and
 * SNAPSHOT_SET_SWAP_AREA want the physical page on the block device, which
 * is what the kernel's own swap-file code (btrfs_swap_activate) computes
 * from the same chunk tree. The mapping is asked of the kernel itself, with
 * BTRFS_IOC_TREE_SEARCH on the chunk tree and BTRFS_IOC_DEV_INFO for the
 * device: the same answer as `btrfs inspect-internal map-swapfile -r`
 * (btrfs-progs reads the same items), without a tool's output to parse or
 * btrfs-progs in the initramfs or on the system.
 *
 * Contract:
 * - Reads only: two ioctls on an open file of the file system (the tree
 *   search needs CAP_SYS_ADMIN, as for the kernel's hibernation) and a
 *   stat of the device node the kernel names.
 * - Only what the kernel swaps on: a single-profile data chunk (it refuses
 *   RAID and DUP data for swap files); anything else is -EMEDIUMTYPE.
 * - May call libc; never prints, no global state. The chunk item parser is
 *   a pure function over the bytes the tree search returns, tested apart.
 */
#ifndef DMO_KERNEL_BTRFS_MAP_H
#define DMO_KERNEL_BTRFS_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A chunk item (struct btrfs_chunk, little-endian, as the tree search
 * returns it) of the chunk that starts at logical address chunk_start:
 * the device id and physical byte of logical.
 * -EINVAL: the item is short or names no stripe; -ERANGE: logical is not
 * in this chunk; -EMEDIUMTYPE: not a single-profile chunk (the kernel does
 * not swap on it). */
int dmo_btrfs_chunk_map(const uint8_t *item, size_t len, uint64_t chunk_start, uint64_t logical,
                        uint64_t *devid, uint64_t *physical);

/* The physical byte of logical address `logical` of the Btrfs file system
 * that fd (any file of it) is on, and the block device holding it.
 * -ENOENT: no chunk holds it; -EPERM: the tree search needs root; other
 * negative errno from the ioctls or dmo_btrfs_chunk_map(). */
int dmo_btrfs_logical_to_physical(int fd, uint64_t logical, uint64_t *physical, dev_t *dev);

#endif
