#include "kernel/btrfs_map.h"

#include <errno.h>
#include <linux/btrfs.h>
#include <linux/btrfs_tree.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "util/le.h"

/* The fields of struct btrfs_chunk and its first struct btrfs_stripe that
 * the mapping needs, where the kernel's header puts them. */
enum {
        CHUNK_LENGTH = offsetof(struct btrfs_chunk, length),
        CHUNK_TYPE = offsetof(struct btrfs_chunk, type),
        CHUNK_NUM_STRIPES = offsetof(struct btrfs_chunk, num_stripes),
        STRIPE0_DEVID = offsetof(struct btrfs_chunk, stripe) + offsetof(struct btrfs_stripe, devid),
        STRIPE0_OFFSET =
            offsetof(struct btrfs_chunk, stripe) + offsetof(struct btrfs_stripe, offset),
        CHUNK_MIN_LEN = sizeof(struct btrfs_chunk),
};

int dmo_btrfs_chunk_map(const uint8_t *item, size_t len, uint64_t chunk_start, uint64_t logical,
                        uint64_t *devid, uint64_t *physical)
{
        if (len < CHUNK_MIN_LEN || dmo_get_le16(item + CHUNK_NUM_STRIPES) == 0)
                return -EINVAL;
        uint64_t length = dmo_get_le64(item + CHUNK_LENGTH);
        if (logical < chunk_start || logical - chunk_start >= length)
                return -ERANGE;
        if (dmo_get_le64(item + CHUNK_TYPE) & BTRFS_BLOCK_GROUP_PROFILE_MASK)
                return -EMEDIUMTYPE;
        uint64_t base = dmo_get_le64(item + STRIPE0_OFFSET);
        if (base > UINT64_MAX - (logical - chunk_start))
                return -EINVAL;
        *devid = dmo_get_le64(item + STRIPE0_DEVID);
        *physical = base + (logical - chunk_start);
        return 0;
}

/* The chunk item with the largest start at or below logical: the chunk
 * tree's CHUNK_ITEM keys are (FIRST_CHUNK_TREE, CHUNK_ITEM, start), so the
 * search walks starts from 0 to logical, a batch at a time. */
static int find_chunk(int fd, uint64_t logical, uint8_t item[CHUNK_MIN_LEN], uint64_t *start)
{
        struct btrfs_ioctl_search_args args;
        bool found = false;
        uint64_t from = 0;
        for (;;) {
                memset(&args, 0, sizeof(args));
                struct btrfs_ioctl_search_key *k = &args.key;
                k->tree_id = BTRFS_CHUNK_TREE_OBJECTID;
                k->min_objectid = k->max_objectid = BTRFS_FIRST_CHUNK_TREE_OBJECTID;
                k->min_type = k->max_type = BTRFS_CHUNK_ITEM_KEY;
                k->min_offset = from;
                k->max_offset = logical;
                k->max_transid = UINT64_MAX;
                k->nr_items = 4096;
                if (ioctl(fd, BTRFS_IOC_TREE_SEARCH, &args) < 0)
                        return -errno;
                if (k->nr_items == 0)
                        break;
                size_t pos = 0;
                uint64_t last = 0;
                for (uint32_t i = 0; i < k->nr_items; i++) {
                        struct btrfs_ioctl_search_header h;
                        if (pos + sizeof(h) > sizeof(args.buf))
                                return -EINVAL;
                        memcpy(&h, args.buf + pos, sizeof(h));
                        pos += sizeof(h);
                        if (h.len > sizeof(args.buf) - pos)
                                return -EINVAL;
                        if (h.type == BTRFS_CHUNK_ITEM_KEY && h.offset <= logical &&
                            h.len >= CHUNK_MIN_LEN) {
                                memcpy(item, args.buf + pos, CHUNK_MIN_LEN);
                                *start = h.offset;
                                found = true;
                        }
                        last = h.offset;
                        pos += h.len;
                }
                if (last >= logical)
                        break;
                from = last + 1;
        }
        return found ? 0 : -ENOENT;
}

int dmo_btrfs_logical_to_physical(int fd, uint64_t logical, uint64_t *physical, dev_t *dev)
{
        uint8_t item[CHUNK_MIN_LEN];
        uint64_t start = 0, devid = 0;
        int r = find_chunk(fd, logical, item, &start);
        if (r == 0)
                r = dmo_btrfs_chunk_map(item, sizeof(item), start, logical, &devid, physical);
        if (r < 0)
                return r;
        struct btrfs_ioctl_dev_info_args info;
        memset(&info, 0, sizeof(info));
        info.devid = devid;
        if (ioctl(fd, BTRFS_IOC_DEV_INFO, &info) < 0)
                return -errno;
        info.path[sizeof(info.path) - 1] = '\0';
        struct stat st;
        if (stat((const char *)info.path, &st) < 0)
                return -errno;
        if (!S_ISBLK(st.st_mode))
                return -ENOTBLK;
        *dev = st.st_rdev;
        return 0;
}
