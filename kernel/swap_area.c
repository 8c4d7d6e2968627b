#include "kernel/swap_area.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "kernel/blockdev.h"
#include "kernel/btrfs_map.h"
#include "kernel/snapshot.h"
#include "util/cleanup.h"

/* mkswap's union swap_header, info part (after 1024 boot bytes). */
enum {
        SWAP_OFF_VERSION = 1024,
        SWAP_OFF_LAST_PAGE = 1028,
        SWAP_OFF_NR_BADPAGES = 1032,
        SWAP_OFF_UUID = 1036,
        SWAP_OFF_LABEL = 1052,
        SWAP_OFF_BADPAGES = 1536,
};

static const struct {
        char bytes[DMO_SWAP_MAGIC_LEN];
        enum dmo_swap_magic kind;
        const char *name;
} magics[] = {
    {{'S', 'W', 'A', 'P', 'S', 'P', 'A', 'C', 'E', '2'}, DMO_SWAP_MAGIC_SWAPSPACE2, "SWAPSPACE2"},
    {{'S', 'W', 'A', 'P', '-', 'S', 'P', 'A', 'C', 'E'}, DMO_SWAP_MAGIC_SWAP_SPACE, "SWAP-SPACE"},
    {{'U', 'L', 'S', 'U', 'S', 'P', 'E', 'N', 'D', 0}, DMO_SWAP_MAGIC_ULSUSPEND, "ULSUSPEND"},
    {{'S', '1', 'S', 'U', 'S', 'P', 'E', 'N', 'D', 0}, DMO_SWAP_MAGIC_S1SUSPEND, "S1SUSPEND"},
    {{'S', '2', 'S', 'U', 'S', 'P', 'E', 'N', 'D', 0}, DMO_SWAP_MAGIC_S2SUSPEND, "S2SUSPEND"},
    {{'L', 'I', 'N', 'H', 'I', 'B', '0', '0', '0', '1'}, DMO_SWAP_MAGIC_LINHIB0001, "LINHIB0001"},
};

static uint32_t get_u32(const uint8_t *p, bool swap)
{
        uint32_t v;
        memcpy(&v, p, sizeof(v)); /* mkswap writes host order */
        return swap ? __builtin_bswap32(v) : v;
}

const char *dmo_swap_magic_name(enum dmo_swap_magic m)
{
        for (size_t i = 0; i < DMO_ARRAY_SIZE(magics); i++)
                if (magics[i].kind == m)
                        return magics[i].name;
        return "none";
}

bool dmo_swap_magic_is_swap(enum dmo_swap_magic m)
{
        return m == DMO_SWAP_MAGIC_SWAPSPACE2 || m == DMO_SWAP_MAGIC_ULSUSPEND ||
               m == DMO_SWAP_MAGIC_S1SUSPEND || m == DMO_SWAP_MAGIC_S2SUSPEND ||
               m == DMO_SWAP_MAGIC_LINHIB0001;
}

size_t dmo_swap_magic_offset(size_t page_size)
{
        if (page_size < DMO_SWAP_PAGE_MIN || page_size > DMO_SWAP_PAGE_MAX ||
            (page_size & (page_size - 1)))
                return 0;
        return page_size - DMO_SWAP_MAGIC_LEN;
}

int dmo_swap_set_magic(uint8_t *page, size_t page_size, const char magic[DMO_SWAP_MAGIC_LEN])
{
        size_t off = dmo_swap_magic_offset(page_size);
        if (!page || !magic || off == 0)
                return -EINVAL;
        memcpy(page + off, magic, DMO_SWAP_MAGIC_LEN);
        return 0;
}

static enum dmo_swap_magic magic_at(const uint8_t *p)
{
        for (size_t i = 0; i < DMO_ARRAY_SIZE(magics); i++)
                if (memcmp(p, magics[i].bytes, DMO_SWAP_MAGIC_LEN) == 0)
                        return magics[i].kind;
        return DMO_SWAP_MAGIC_NONE;
}

/* The info fields of a header whose magic was found at page size ps. */
static int parse_fields(const uint8_t *buf, struct dmo_swap_info *out)
{
        if (out->magic == DMO_SWAP_MAGIC_SWAP_SPACE)
                return -EPROTONOSUPPORT;

        /* The kernel accepts a header written by the other endianness. */
        uint32_t version = get_u32(buf + SWAP_OFF_VERSION, false);
        if (version != 1 && __builtin_bswap32(version) == 1)
                out->byteswapped = true;
        bool sw = out->byteswapped;
        out->version = get_u32(buf + SWAP_OFF_VERSION, sw);
        out->last_page = get_u32(buf + SWAP_OFF_LAST_PAGE, sw);
        out->nr_badpages = get_u32(buf + SWAP_OFF_NR_BADPAGES, sw);
        memcpy(out->uuid, buf + SWAP_OFF_UUID, sizeof(out->uuid));
        memcpy(out->label, buf + SWAP_OFF_LABEL, DMO_SWAP_LABEL_MAX);
        out->label[DMO_SWAP_LABEL_MAX] = '\0';

        size_t max_bad = (out->page_size - SWAP_OFF_BADPAGES - DMO_SWAP_MAGIC_LEN) / 4;
        if (out->version != 1 || out->last_page == 0 || out->nr_badpages > max_bad)
                return -EUCLEAN;
        return 0;
}

int dmo_swap_header_parse(const uint8_t *buf, size_t len, struct dmo_swap_info *out)
{
        if (!buf || !out || len < DMO_SWAP_PAGE_MIN)
                return -EINVAL;
        memset(out, 0, sizeof(*out));

        for (size_t ps = DMO_SWAP_PAGE_MIN; ps <= DMO_SWAP_PAGE_MAX && ps <= len; ps *= 2) {
                enum dmo_swap_magic m = magic_at(buf + ps - DMO_SWAP_MAGIC_LEN);
                if (m == DMO_SWAP_MAGIC_NONE)
                        continue;
                out->magic = m;
                out->page_size = (uint32_t)ps;
                break;
        }
        if (out->magic == DMO_SWAP_MAGIC_NONE)
                return 0;
        return parse_fields(buf, out);
}

int dmo_swap_header_parse_page(const uint8_t *page, size_t page_size, struct dmo_swap_info *out)
{
        size_t off = dmo_swap_magic_offset(page_size);
        if (!page || !out || off == 0)
                return -EINVAL;
        memset(out, 0, sizeof(*out));
        out->magic = magic_at(page + off);
        if (out->magic == DMO_SWAP_MAGIC_NONE)
                return 0;
        out->page_size = (uint32_t)page_size;
        return parse_fields(page, out);
}

size_t dmo_swap_badpages_end(const struct dmo_swap_info *info)
{
        return SWAP_OFF_BADPAGES + (size_t)info->nr_badpages * 4;
}

const char *dmo_swap_magic_bytes(enum dmo_swap_magic m)
{
        for (size_t i = 0; i < DMO_ARRAY_SIZE(magics); i++)
                if (magics[i].kind == m)
                        return magics[i].bytes;
        return NULL;
}

int dmo_swap_header_read_at(struct dmo_blockdev *d, uint64_t byte_offset, struct dmo_swap_info *out)
{
        uint64_t size = dmo_blockdev_size(d);
        if (byte_offset > size || size - byte_offset < DMO_SWAP_PAGE_MIN)
                return -ENXIO;
        size_t len = DMO_SWAP_PAGE_MAX;
        if (size - byte_offset < len)
                len = (size_t)(size - byte_offset);
        /* Page aligned, as direct I/O wants it (a misaligned buffer would
         * cost this read a detour through the page cache). */
        _cleanup_free_ uint8_t *buf = aligned_alloc(DMO_SWAP_PAGE_MIN, DMO_SWAP_PAGE_MAX);
        if (!buf)
                return -ENOMEM;
        int r = dmo_blockdev_pread(d, buf, len, byte_offset);
        if (r < 0)
                return r;
        return dmo_swap_header_parse(buf, len, out);
}

int dmo_swap_header_read(struct dmo_blockdev *d, uint64_t header_page, struct dmo_swap_info *out)
{
        uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
        if (header_page > UINT64_MAX / ps)
                return -ENXIO;
        return dmo_swap_header_read_at(d, header_page * ps, out);
}

void dmo_swap_uuid_format(const uint8_t uuid[16], char buf[37])
{
        static const char hex[] = "0123456789abcdef";
        char *p = buf;
        for (int i = 0; i < 16; i++) {
                if (i == 4 || i == 6 || i == 8 || i == 10)
                        *p++ = '-';
                *p++ = hex[uuid[i] >> 4];
                *p++ = hex[uuid[i] & 15];
        }
        *p = '\0';
}

int dmo_swapfile_resume_offset(const char *path, uint64_t *first_physical_page, dev_t *backing_dev)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        struct statfs sfs;
        if (fstatfs(fd, &sfs) < 0)
                return -errno;
        /* Btrfs answers FIEMAP with its own logical addresses, which its
         * chunk tree maps onto the disk (btrfs_map.h). */
        bool btrfs = (unsigned long)sfs.f_type == (unsigned long)BTRFS_SUPER_MAGIC;

        uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
        union {
                struct fiemap fm;
                uint8_t bytes[sizeof(struct fiemap) + sizeof(struct fiemap_extent)];
        } req;
        memset(&req, 0, sizeof(req));
        req.fm.fm_start = 0;
        req.fm.fm_length = ps;
        req.fm.fm_flags = FIEMAP_FLAG_SYNC;
        req.fm.fm_extent_count = 1;
        if (ioctl(fd, FS_IOC_FIEMAP, &req.fm) < 0)
                return (errno == ENOTTY || errno == EOPNOTSUPP) ? -EOPNOTSUPP : -errno;

        const struct fiemap_extent *e = &req.fm.fm_extents[0];
        if (req.fm.fm_mapped_extents == 0 || e->fe_logical > 0)
                return -ENODATA;
        if (e->fe_flags & FIEMAP_EXTENT_UNWRITTEN)
                return -ENODATA;
        const uint32_t not_plain = FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC |
                                   FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_ENCRYPTED |
                                   FIEMAP_EXTENT_NOT_ALIGNED | FIEMAP_EXTENT_DATA_INLINE |
                                   FIEMAP_EXTENT_DATA_TAIL;
        if (e->fe_flags & not_plain)
                return -EMEDIUMTYPE;
        uint64_t physical = e->fe_physical;
        dev_t dev = st.st_dev;
        if (btrfs) {
                int r = dmo_btrfs_logical_to_physical(fd, e->fe_physical, &physical, &dev);
                if (r < 0)
                        return r == -ENOTTY ? -EOPNOTSUPP : r;
        }
        if (physical % ps != 0)
                return -EMEDIUMTYPE;
        *first_physical_page = physical / ps;
        *backing_dev = dev;
        return 0;
}

/* /proc/swaps escapes space, tab, newline and backslash as \ooo. */
static int unescape_path(const char *in, char *out, size_t len)
{
        size_t o = 0;
        for (const char *p = in; *p; p++) {
                char c = *p;
                if (c == '\\') {
                        if (p[1] < '0' || p[1] > '3' || p[2] < '0' || p[2] > '7' || p[3] < '0' ||
                            p[3] > '7')
                                return -EINVAL;
                        c = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
                        p += 3;
                }
                if (o + 1 >= len)
                        return -ENAMETOOLONG;
                out[o++] = c;
        }
        out[o] = '\0';
        return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
        char *end;
        if (!s || *s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno || *end)
                return -EINVAL;
        *out = v;
        return 0;
}

static int parse_swaps_line(char *line, struct dmo_swap_entry *e)
{
        char *save = NULL;
        char *f[5];
        for (int i = 0; i < 5; i++) {
                f[i] = strtok_r(i ? NULL : line, " \t\n", &save);
                if (!f[i])
                        return -EINVAL;
        }
        if (strtok_r(NULL, " \t\n", &save))
                return -EINVAL;
        memset(e, 0, sizeof(*e));
        if (unescape_path(f[0], e->path, sizeof(e->path)) < 0)
                return -EINVAL;
        static const char deleted[] = " (deleted)";
        size_t pl = strlen(e->path), dl = sizeof(deleted) - 1;
        if (pl > dl && strcmp(e->path + pl - dl, deleted) == 0) {
                e->deleted = true;
                e->path[pl - dl] = '\0';
        }
        e->is_zram = strncmp(e->path, "/dev/zram", 9) == 0;
        if (strcmp(f[1], "file") == 0)
                e->is_file = true;
        else if (strcmp(f[1], "partition") != 0)
                return -EINVAL;
        if (parse_u64(f[2], &e->size_kib) < 0 || parse_u64(f[3], &e->used_kib) < 0)
                return -EINVAL;
        char *end;
        errno = 0;
        long prio = strtol(f[4], &end, 10);
        if (errno || *end || end == f[4] || prio < -32768 || prio > 32767)
                return -EINVAL;
        e->priority = (int)prio;
        return 0;
}

int dmo_proc_swaps_parse(const char *path, struct dmo_swap_entry *entries, size_t max, size_t *n)
{
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return -errno;
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;
        size_t count = 0;
        bool first = true;
        while (getline(&line, &cap, f) >= 0) {
                if (first) {
                        first = false;
                        if (strncmp(line, "Filename", 8) == 0)
                                continue;
                }
                if (strspn(line, " \t\n") == strlen(line))
                        continue;
                struct dmo_swap_entry tmp;
                if (parse_swaps_line(line, &tmp) < 0)
                        return -EINVAL;
                if (count < max)
                        entries[count] = tmp;
                count++;
        }
        if (ferror(f))
                return -EIO;
        *n = count;
        return 0;
}

int dmo_proc_swaps_pick(const struct dmo_swap_entry *entries, size_t n, size_t *index)
{
        bool found = false;
        size_t best = 0;
        for (size_t i = 0; i < n; i++) {
                const struct dmo_swap_entry *e = &entries[i];
                if (e->is_zram || e->deleted)
                        continue;
                if (found) {
                        const struct dmo_swap_entry *b = &entries[best];
                        uint64_t free_e =
                            e->size_kib - (e->used_kib < e->size_kib ? e->used_kib : e->size_kib);
                        uint64_t free_b =
                            b->size_kib - (b->used_kib < b->size_kib ? b->used_kib : b->size_kib);
                        if (e->priority < b->priority ||
                            (e->priority == b->priority && free_e <= free_b))
                                continue;
                }
                best = i;
                found = true;
        }
        if (!found)
                return -ENOENT;
        *index = best;
        return 0;
}

bool dmo_swap_target_is(const struct dmo_swap_target *t, const struct stat *st, bool files)
{
        if (!files)
                return S_ISBLK(st->st_mode) && st->st_rdev == t->dev;
        struct stat ts;
        return stat(t->path, &ts) == 0 && ts.st_dev == st->st_dev && ts.st_ino == st->st_ino;
}

/* Where one active area is in the kernel's terms. */
struct area {
        bool known;     /* false: its place could not be told (Btrfs, gone) */
        bool same_dev;  /* on the target's device */
        uint64_t first; /* its header page there */
};

static struct area locate(const struct dmo_swap_entry *e, const struct dmo_swap_target *t,
                          bool files)
{
        struct area a = {0};
        struct stat st;
        if (files || !e->is_file) {
                if (stat(e->path, &st) < 0)
                        return a;
                a.known = true;
                a.same_dev = dmo_swap_target_is(t, &st, files);
                return a; /* a partition's header is its first page */
        }
        dev_t backing;
        if (dmo_swapfile_resume_offset(e->path, &a.first, &backing) < 0)
                return a;
        a.known = true;
        a.same_dev = backing == t->dev;
        return a;
}

#define ACTIVE_MAX 32
_Static_assert(sizeof(((struct dmo_swap_active_result *)0)->moved_path) ==
                   sizeof(((struct dmo_swap_entry *)0)->path),
               "a moved swap file's path is copied whole");

int dmo_swap_active_at(const char *proc_swaps, const struct dmo_swap_target *t, bool files,
                       struct dmo_swap_active_result *out)
{
        struct dmo_swap_entry entries[ACTIVE_MAX];
        size_t n = 0;
        *out = (struct dmo_swap_active_result){.where = DMO_SWAP_ACTIVE_UNKNOWN};
        if (dmo_proc_swaps_parse(proc_swaps, entries, ACTIVE_MAX, &n) < 0)
                return 0;
        if (n > ACTIVE_MAX)
                n = ACTIVE_MAX;
        out->where = DMO_SWAP_ACTIVE_NONE;
        for (size_t i = 0; i < n; i++) {
                if (entries[i].deleted)
                        continue;
                struct area a = locate(&entries[i], t, files);
                if (!a.known) {
                        out->where = DMO_SWAP_ACTIVE_UNKNOWN; /* this may be it */
                        return 0;
                }
                if (a.same_dev && a.first == t->header_page) {
                        out->where = DMO_SWAP_ACTIVE_HERE;
                        return 0;
                }
                if (a.same_dev && entries[i].is_file && !files) {
                        out->where = DMO_SWAP_ACTIVE_MOVED;
                        memcpy(out->moved_path, entries[i].path, sizeof(out->moved_path));
                        out->moved_first = a.first;
                }
        }
        return 0;
}
