/* A Btrfs chunk item mapped as the kernel's swap-file code maps it: the
 * logical address inside a single-profile data chunk goes to its stripe's
 * physical offset on the stripe's device; an address outside the chunk, a
 * RAID or DUP chunk, and a short or stripe-less item are refused. (The
 * ioctls themselves need a mounted Btrfs: the VM scenario btrfs-swapfile
 * checks them against `btrfs inspect-internal map-swapfile -r`.) */
#include "tests/testlib.h"

#include <errno.h>
#include <linux/btrfs_tree.h>
#include <stddef.h>

#include "kernel/btrfs_map.h"
#include "util/le.h"

/* struct btrfs_chunk with one stripe, little-endian, as the tree search
 * returns it. */
static void make_chunk(uint8_t *item, uint64_t length, uint64_t type, uint16_t stripes,
                       uint64_t devid, uint64_t offset)
{
        memset(item, 0, sizeof(struct btrfs_chunk));
        dmo_put_le64(item + offsetof(struct btrfs_chunk, length), length);
        dmo_put_le64(item + offsetof(struct btrfs_chunk, stripe_len), 65536);
        dmo_put_le64(item + offsetof(struct btrfs_chunk, type), type);
        dmo_put_le16(item + offsetof(struct btrfs_chunk, num_stripes), stripes);
        uint8_t *s = item + offsetof(struct btrfs_chunk, stripe);
        dmo_put_le64(s + offsetof(struct btrfs_stripe, devid), devid);
        dmo_put_le64(s + offsetof(struct btrfs_stripe, offset), offset);
}

static void test_single_data_chunk_maps_onto_its_stripe(void)
{
        uint8_t item[sizeof(struct btrfs_chunk)];
        /* mkfs.btrfs's first data chunk: logical 298844160, 1 GiB, at
         * physical 307232768 of device 1 */
        make_chunk(item, 1ull << 30, BTRFS_BLOCK_GROUP_DATA, 1, 1, 307232768);
        uint64_t devid = 0, phys = 0;
        CHECK_INT(
            dmo_btrfs_chunk_map(item, sizeof(item), 298844160, 298844160 + 8192, &devid, &phys), ==,
            0);
        CHECK_INT(devid, ==, 1);
        CHECK_INT(phys, ==, 307232768 + 8192);
        /* the chunk's first and last byte */
        CHECK_INT(dmo_btrfs_chunk_map(item, sizeof(item), 298844160, 298844160, &devid, &phys), ==,
                  0);
        CHECK_INT(phys, ==, 307232768);
        CHECK_INT(dmo_btrfs_chunk_map(item, sizeof(item), 298844160, 298844160 + (1ull << 30) - 1,
                                      &devid, &phys),
                  ==, 0);
}

static void test_addresses_outside_the_chunk_are_refused(void)
{
        uint8_t item[sizeof(struct btrfs_chunk)];
        make_chunk(item, 1ull << 30, BTRFS_BLOCK_GROUP_DATA, 1, 1, 1 << 20);
        uint64_t devid, phys;
        CHECK_INT(
            dmo_btrfs_chunk_map(item, sizeof(item), 1ull << 30, (1ull << 30) - 1, &devid, &phys),
            ==, -ERANGE);
        CHECK_INT(dmo_btrfs_chunk_map(item, sizeof(item), 1ull << 30, 2ull << 30, &devid, &phys),
                  ==, -ERANGE);
}

static void test_profiles_the_kernel_does_not_swap_on_are_refused(void)
{
        static const uint64_t profiles[] = {BTRFS_BLOCK_GROUP_DUP,   BTRFS_BLOCK_GROUP_RAID0,
                                            BTRFS_BLOCK_GROUP_RAID1, BTRFS_BLOCK_GROUP_RAID10,
                                            BTRFS_BLOCK_GROUP_RAID5, BTRFS_BLOCK_GROUP_RAID6};
        uint8_t item[sizeof(struct btrfs_chunk)];
        uint64_t devid, phys;
        for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
                make_chunk(item, 1ull << 30, BTRFS_BLOCK_GROUP_DATA | profiles[i], 2, 1, 0);
                CHECK_INT(dmo_btrfs_chunk_map(item, sizeof(item), 0, 4096, &devid, &phys), ==,
                          -EMEDIUMTYPE);
        }
}

static void test_short_or_stripeless_items_are_refused(void)
{
        uint8_t item[sizeof(struct btrfs_chunk)];
        uint64_t devid, phys;
        make_chunk(item, 1ull << 30, BTRFS_BLOCK_GROUP_DATA, 1, 1, 0);
        CHECK_INT(dmo_btrfs_chunk_map(item, sizeof(item) - 1, 0, 4096, &devid, &phys), ==, -EINVAL);
        make_chunk(item, 1ull << 30, BTRFS_BLOCK_GROUP_DATA, 0, 1, 0);
        CHECK_INT(dmo_btrfs_chunk_map(item, sizeof(item), 0, 4096, &devid, &phys), ==, -EINVAL);
        make_chunk(item, 1ull << 30, BTRFS_BLOCK_GROUP_DATA, 1, 1, UINT64_MAX - 100);
        CHECK_INT(dmo_btrfs_chunk_map(item, sizeof(item), 0, 4096, &devid, &phys), ==, -EINVAL);
}

DMO_TEST_MAIN(T(test_single_data_chunk_maps_onto_its_stripe),
              T(test_addresses_outside_the_chunk_are_refused),
              T(test_profiles_the_kernel_does_not_swap_on_are_refused),
              T(test_short_or_stripeless_items_are_refused))
