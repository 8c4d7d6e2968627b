#include "kernel/sim_kernel.h"
#include "kernel/snapshot_dev.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kernel/blockdev.h"
#include "kernel/boot_stage.h"
#include "kernel/faults.h"
#include "kernel/sim_pages.h"
#include "kernel/swap_area.h"
#include "util/cleanup.h"

enum { CLUSTER_SLOTS = 256 };

struct sim {
        struct dmo_snapshot base;
        struct dmo_sim_params p;
        struct dmo_kernel_identity id;
        uint32_t ps;
        uint8_t *page;   /* a page being read out or written back */
        uint8_t *expect; /* what a written page should be */

        /* swap area */
        bool swap_set;
        uint64_t header_page, nslots, nclusters, stride, start;
        uint64_t cluster_pos, in_cluster, allocated;

        bool frozen, ready, platform, powered_off, pref_set;
        bool shutdown_failed; /* the plan's shutdown-fails has been used up */
        uint64_t pref;

        /* hibernate: pages of the image and the read cursor */
        uint64_t image_pages, cur_page;
        uint32_t cur_off;

        /* resume: the write cursor and what it found */
        uint64_t expected_pages, written_pages;
        uint32_t write_off;
        bool header_ok, mismatch;
        uint64_t mm_page;
        uint32_t mm_off;
};

static struct sim *to_sim(struct dmo_snapshot *s)
{
        return (struct sim *)s;
}

static uint64_t mix64(uint64_t x)
{
        x ^= x >> 30;
        x *= 0xbf58476d1ce4e5b9ull;
        x ^= x >> 27;
        x *= 0x94d049bb133111ebull;
        return x ^ (x >> 31);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
        while (b) {
                uint64_t t = a % b;
                a = b;
                b = t;
        }
        return a;
}

/* A stride coprime with the cluster count visits every cluster once; one
 * that is not +-1 makes the next cluster never the neighbour, so the image
 * writer meets a fragmented extent map as on a used swap area. */
static void plan_clusters(struct sim *m)
{
        uint64_t c = m->nclusters;
        uint64_t h = mix64(m->p.seed ^ 0x5157415053ull);
        m->stride = 1;
        m->start = c ? h % c : 0;
        if (c <= 4)
                return;
        uint64_t span = c - 3; /* candidates 2 .. c-2 */
        uint64_t first = 2 + (h >> 17) % span;
        for (uint64_t i = 0; i < span; i++) {
                uint64_t cand = 2 + (first - 2 + i) % span;
                if (gcd(cand, c) == 1) {
                        m->stride = cand;
                        return;
                }
        }
}

static int sim_set_swap_area(struct dmo_snapshot *s, const struct dmo_swap_target *t)
{
        struct sim *m = to_sim(s);
        if (m->powered_off)
                return -ESHUTDOWN;
        if (!t || !t->path)
                return -EINVAL;
        if (m->allocated > 0)
                return -EPERM;
        struct dmo_blockdev *d = NULL;
        int r = dmo_blockdev_open(t->path, false, NULL, &d);
        if (r < 0)
                return r;
        struct dmo_swap_info info;
        uint64_t dev_size = dmo_blockdev_size(d);
        if (t->header_page > UINT64_MAX / m->ps / 2)
                r = -ENODEV;
        else
                r = dmo_swap_header_read_at(d, t->header_page * m->ps, &info);
        dmo_blockdev_free(d);
        if (r < 0 || !dmo_swap_magic_is_swap(info.magic) || info.page_size != m->ps)
                return -ENODEV;
        if ((t->header_page + info.last_page + 1) > dev_size / m->ps)
                return -ENODEV;

        m->swap_set = true;
        m->header_page = t->header_page;
        m->nslots = info.last_page;
        m->nclusters = (m->nslots + CLUSTER_SLOTS - 1) / CLUSTER_SLOTS;
        m->cluster_pos = m->in_cluster = m->allocated = 0;
        plan_clusters(m);
        return 0;
}

static int sim_alloc_swap_page(struct dmo_snapshot *s, uint64_t *byte_offset)
{
        struct sim *m = to_sim(s);
        uint64_t limit;
        if (m->powered_off)
                return -ESHUTDOWN;
        if (!m->swap_set)
                return -ENODEV;
        if (m->allocated >= m->nslots)
                return -ENOSPC;
        if (dmo_fault_enospc_after(m->p.faults, &limit) && m->allocated >= limit)
                return -ENOSPC;
        uint64_t cluster = (m->start + m->cluster_pos * m->stride) % m->nclusters;
        uint64_t first = 1 + cluster * CLUSTER_SLOTS;
        uint64_t len =
            m->nslots - (first - 1) < CLUSTER_SLOTS ? m->nslots - (first - 1) : CLUSTER_SLOTS;
        uint64_t slot = first + m->in_cluster;
        if (++m->in_cluster == len) {
                m->in_cluster = 0;
                m->cluster_pos++;
        }
        m->allocated++;
        *byte_offset = (m->header_page + slot) * m->ps;
        return 0;
}

static int sim_free_swap_pages(struct dmo_snapshot *s)
{
        struct sim *m = to_sim(s);
        if (m->powered_off)
                return -ESHUTDOWN;
        if (!m->swap_set)
                return -ENODEV;
        m->cluster_pos = m->in_cluster = m->allocated = 0;
        return 0;
}

static int sim_avail_swap(struct dmo_snapshot *s, uint64_t *bytes)
{
        struct sim *m = to_sim(s);
        if (m->powered_off)
                return -ESHUTDOWN;
        if (!m->swap_set)
                return -ENODEV;
        *bytes = (m->nslots - m->allocated) * m->ps;
        return 0;
}

static int sim_freeze(struct dmo_snapshot *s)
{
        struct sim *m = to_sim(s);
        if (m->powered_off)
                return -ESHUTDOWN;
        m->frozen = true;
        return 0;
}

static int sim_unfreeze(struct dmo_snapshot *s)
{
        struct sim *m = to_sim(s);
        if (m->powered_off)
                return -ESHUTDOWN;
        /* The kernel's trap, kept on purpose: a ready image pins the freeze. */
        if (m->ready)
                return 0;
        m->frozen = false;
        return 0;
}

static int sim_pref_image_size(struct dmo_snapshot *s, uint64_t bytes)
{
        struct sim *m = to_sim(s);
        if (m->powered_off)
                return -ESHUTDOWN;
        m->pref = bytes;
        m->pref_set = true;
        return 0;
}

static int sim_get_pref_image_size(struct dmo_snapshot *s, uint64_t *bytes)
{
        struct sim *m = to_sim(s);
        if (m->powered_off)
                return -ESHUTDOWN;
        *bytes = m->pref_set ? m->pref : m->p.size_bytes;
        return 0;
}

static int sim_create_image(struct dmo_snapshot *s, int *in_suspend)
{
        struct sim *m = to_sim(s);
        if (m->powered_off)
                return -ESHUTDOWN;
        if (s->mode != DMO_SNAPSHOT_HIBERNATE || !m->frozen || m->ready)
                return -EPERM;
        uint64_t full = m->p.size_bytes / m->ps;
        uint64_t pages = full;
        if (m->pref_set && m->pref / m->ps < full) {
                /* Like the kernel: shrink toward the wish, but not below what
                 * cannot be freed (here: half). */
                pages = m->pref / m->ps;
                if (pages < full / 2)
                        pages = full / 2;
        }
        if (pages < 2)
                pages = 2;
        m->image_pages = pages;
        m->cur_page = 0;
        m->cur_off = 0;
        m->ready = true;
        *in_suspend = 1;
        return 0;
}

static int sim_get_image_size(struct dmo_snapshot *s, uint64_t *bytes)
{
        struct sim *m = to_sim(s);
        if (m->powered_off)
                return -ESHUTDOWN;
        if (s->mode != DMO_SNAPSHOT_HIBERNATE || !m->ready)
                return -ENODATA;
        *bytes = m->image_pages * m->ps;
        return 0;
}

static void make_page(struct sim *m, uint64_t index, uint8_t *buf)
{
        if (index == 0) {
                struct dmo_sim_header h = {
                    .pages = m->image_pages, .page_size = m->ps, .seed = m->p.seed, .id = m->id};
                dmo_sim_header_encode(&h, buf, m->ps);
        } else {
                dmo_sim_page_fill(m->p.seed, index, buf, m->ps);
        }
}

static ssize_t sim_read_one(struct dmo_snapshot *s, void *buf, size_t len)
{
        struct sim *m = to_sim(s);
        if (m->powered_off)
                return -ESHUTDOWN;
        if (s->mode != DMO_SNAPSHOT_HIBERNATE)
                return -EBADF;
        if (!m->ready)
                return -ENODATA;
        if (m->cur_page >= m->image_pages || len == 0)
                return 0;
        size_t n = m->ps - m->cur_off;
        if (len < n)
                n = len;
        if (dmo_fault_short_read(m->p.faults) && n > 1)
                n /= 2;
        if (m->cur_off == 0 && n == m->ps) {
                make_page(m, m->cur_page, buf);
        } else {
                if (m->cur_off == 0)
                        make_page(m, m->cur_page, m->page);
                memcpy(buf, m->page + m->cur_off, n);
        }
        m->cur_off += (uint32_t)n;
        if (m->cur_off == m->ps) {
                m->cur_off = 0;
                m->cur_page++;
        }
        return (ssize_t)n;
}

static bool same_identity(const struct dmo_kernel_identity *a, const struct dmo_kernel_identity *b)
{
        return strcmp(a->sysname, b->sysname) == 0 && strcmp(a->release, b->release) == 0 &&
               strcmp(a->version, b->version) == 0 && strcmp(a->machine, b->machine) == 0 &&
               a->page_size == b->page_size;
}

static int take_page(struct sim *m, const uint8_t *data)
{
        uint64_t index = m->written_pages;
        if (index == 0) {
                struct dmo_sim_header h;
                if (dmo_sim_header_decode(data, m->ps, &h) < 0 || h.seed != m->p.seed ||
                    h.pages < 2 || !same_identity(&h.id, &m->id))
                        return -EINVAL;
                m->header_ok = true;
                m->expected_pages = h.pages;
        } else {
                dmo_sim_page_fill(m->p.seed, index, m->expect, m->ps);
                if (!m->mismatch && memcmp(data, m->expect, m->ps) != 0) {
                        uint32_t off = 0;
                        while (data[off] == m->expect[off])
                                off++;
                        m->mismatch = true;
                        m->mm_page = index;
                        m->mm_off = off;
                }
        }
        m->written_pages++;
        if (m->written_pages == m->expected_pages)
                m->ready = true;
        return 0;
}

static ssize_t sim_write_one(struct dmo_snapshot *s, const void *buf, size_t len)
{
        struct sim *m = to_sim(s);
        if (m->powered_off)
                return -ESHUTDOWN;
        if (s->mode != DMO_SNAPSHOT_RESUME)
                return -EBADF;
        if (m->header_ok && m->written_pages >= m->expected_pages)
                return -EFBIG;
        if (len == 0)
                return 0;
        size_t n = m->ps - m->write_off;
        if (len < n)
                n = len;
        int r;
        if (m->write_off == 0 && n == m->ps) {
                r = take_page(m, buf);
        } else {
                memcpy(m->page + m->write_off, buf, n);
                m->write_off += (uint32_t)n;
                if (m->write_off < m->ps)
                        return (ssize_t)n;
                m->write_off = 0;
                r = take_page(m, m->page);
        }
        return r < 0 ? r : (ssize_t)n;
}

/* Like the kernel's readv()/writev() on /dev/snapshot: one page at a time
 * until len is used up, a short transfer ends the call, an error after
 * progress is reported on the next call. */
static ssize_t sim_read_image(struct dmo_snapshot *s, void *buf, size_t len)
{
        struct sim *m = to_sim(s);
        size_t got = 0;
        while (got < len) {
                size_t want = m->ps - m->cur_off;
                if (want > len - got)
                        want = len - got;
                ssize_t n = sim_read_one(s, (uint8_t *)buf + got, want);
                if (n < 0)
                        return got ? (ssize_t)got : n;
                got += (size_t)n;
                if ((size_t)n != want)
                        break;
        }
        return (ssize_t)got;
}

static ssize_t sim_write_image(struct dmo_snapshot *s, const void *buf, size_t len)
{
        struct sim *m = to_sim(s);
        size_t put = 0;
        while (put < len) {
                size_t want = m->ps - m->write_off;
                if (want > len - put)
                        want = len - put;
                ssize_t n = sim_write_one(s, (const uint8_t *)buf + put, want);
                if (n < 0)
                        return put ? (ssize_t)put : n;
                put += (size_t)n;
                if ((size_t)n != want)
                        break;
        }
        return (ssize_t)put;
}

static int sim_atomic_restore(struct dmo_snapshot *s)
{
        struct sim *m = to_sim(s);
        if (m->powered_off)
                return -ESHUTDOWN;
        if (s->mode != DMO_SNAPSHOT_RESUME || !m->frozen)
                return -EPERM;
        if (!m->header_ok || m->written_pages < m->expected_pages)
                return -ENODATA;
        if (m->mismatch)
                return DMO_RESTORE_MISMATCH;
        return DMO_RESTORED;
}

static int sim_free_image(struct dmo_snapshot *s)
{
        struct sim *m = to_sim(s);
        if (m->powered_off)
                return -ESHUTDOWN;
        m->ready = false;
        m->cur_page = m->cur_off = 0;
        m->image_pages = 0;
        m->written_pages = m->expected_pages = 0;
        m->write_off = 0;
        m->header_ok = m->mismatch = false;
        return 0;
}

static int sim_platform_support(struct dmo_snapshot *s, bool enable)
{
        struct sim *m = to_sim(s);
        if (m->powered_off)
                return -ESHUTDOWN;
        m->platform = enable;
        return 0;
}

static int sim_shutdown(struct dmo_snapshot *s, enum dmo_shutdown mode)
{
        struct sim *m = to_sim(s);
        if (m->powered_off)
                return -ESHUTDOWN;
        if (!m->frozen)
                return -EPERM;
        if (dmo_fault_shutdown_fails(m->p.faults) && !m->shutdown_failed) {
                m->shutdown_failed = true;
                return -EIO;
        }
        if (mode == DMO_SHUTDOWN_SUSPEND) {
                /* Woke up from RAM: the kernel lets go of the image. */
                m->ready = false;
                return DMO_SHUTDOWN_WOKE;
        }
        m->powered_off = true;
        return DMO_SHUTDOWN_DONE;
}

static int sim_open_target(struct dmo_snapshot *s, const struct dmo_swap_target *t,
                           struct dmo_blockdev **out)
{
        int r = dmo_blockdev_open(t->path, true, to_sim(s)->p.faults, out);
        if (r == 0 && to_sim(s)->p.direct_io)
                (void)dmo_blockdev_set_direct(*out, true); /* refused: stays buffered */
        return r;
}

static int sim_check_boot_stage(struct dmo_snapshot *s, const struct dmo_swap_target *t,
                                enum dmo_live_reason *reason)
{
        const char *proc = to_sim(s)->p.proc_dir;
        *reason = DMO_LIVE_NONE;
        return proc ? dmo_boot_stage_check(proc, t, reason) : 0;
}

static int sim_memory_bytes(struct dmo_snapshot *s, uint64_t *bytes)
{
        *bytes = to_sim(s)->p.size_bytes;
        return 0;
}

/* The simulated machine's buffers are this process's, on the host: the
 * host's free memory is what they can take. */
static int sim_free_memory_bytes(struct dmo_snapshot *s, uint64_t *bytes)
{
        (void)s;
        return dmo_snapshot_free_memory(bytes);
}

static int sim_identity(struct dmo_snapshot *s, struct dmo_kernel_identity *id)
{
        *id = to_sim(s)->id;
        return 0;
}

static void sim_checkpoint(struct dmo_snapshot *s, enum dmo_checkpoint cp)
{
        if (dmo_fault_crash_at(to_sim(s)->p.faults, cp))
                raise(SIGKILL);
}

static void sim_free(struct dmo_snapshot *s)
{
        struct sim *m = to_sim(s);
        free(m->page);
        free(m->expect);
        free(m);
}

static const struct dmo_snapshot_ops sim_ops = {
    .set_swap_area = sim_set_swap_area,
    .freeze = sim_freeze,
    .unfreeze = sim_unfreeze,
    .pref_image_size = sim_pref_image_size,
    .get_pref_image_size = sim_get_pref_image_size,
    .create_image = sim_create_image,
    .get_image_size = sim_get_image_size,
    .read_image = sim_read_image,
    .write_image = sim_write_image,
    .alloc_swap_page = sim_alloc_swap_page,
    .free_swap_pages = sim_free_swap_pages,
    .avail_swap = sim_avail_swap,
    .atomic_restore = sim_atomic_restore,
    .free_image = sim_free_image,
    .platform_support = sim_platform_support,
    .shutdown = sim_shutdown,
    .open_target = sim_open_target,
    .memory_bytes = sim_memory_bytes,
    .max_image_bytes = sim_memory_bytes,
    .free_memory_bytes = sim_free_memory_bytes,
    .check_boot_stage = sim_check_boot_stage,
    .identity = sim_identity,
    .checkpoint = sim_checkpoint,
    .free = sim_free,
};

static void copy_field(char dst[65], const char *src)
{
        size_t n = strnlen(src, 64);
        memcpy(dst, src, n);
        dst[n] = '\0';
}

int dmo_sim_kernel_new(const struct dmo_sim_params *p, enum dmo_snapshot_mode mode,
                       struct dmo_snapshot **out)
{
        if (!p || !out || (mode != DMO_SNAPSHOT_HIBERNATE && mode != DMO_SNAPSHOT_RESUME))
                return -EINVAL;
        uint32_t ps = p->page_size ? p->page_size : (uint32_t)sysconf(_SC_PAGESIZE);
        if (!dmo_sim_page_size_ok(ps) || p->size_bytes / ps < 2)
                return -EINVAL;

        _cleanup_free_ struct sim *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->page = malloc(ps);
        m->expect = malloc(ps);
        if (!m->page || !m->expect) {
                free(m->page);
                free(m->expect);
                return -ENOMEM;
        }
        m->base.ops = &sim_ops;
        m->base.mode = mode;
        m->p = *p;
        m->p.release_override = NULL; /* copied into id; the caller's string may go */
        m->ps = ps;

        struct utsname u;
        if (uname(&u) < 0) {
                free(m->page);
                free(m->expect);
                return -errno;
        }
        copy_field(m->id.sysname, u.sysname);
        copy_field(m->id.release, p->release_override ? p->release_override : u.release);
        copy_field(m->id.version, u.version);
        copy_field(m->id.machine, u.machine);
        m->id.page_size = ps;
        *out = &dmo_steal_ptr(m)->base;
        return 0;
}

const struct dmo_fault_plan *dmo_sim_kernel_faults(struct dmo_snapshot *s)
{
        return s && s->ops == &sim_ops ? to_sim(s)->p.faults : NULL;
}

int dmo_sim_kernel_first_mismatch(struct dmo_snapshot *s, uint64_t *page, uint32_t *byte_offset)
{
        struct sim *m = to_sim(s);
        if (s->ops != &sim_ops || !m->mismatch)
                return -ENOENT;
        *page = m->mm_page;
        *byte_offset = m->mm_off;
        return 0;
}

uint64_t dmo_sim_kernel_pages_moved(struct dmo_snapshot *s)
{
        struct sim *m = to_sim(s);
        return s->mode == DMO_SNAPSHOT_HIBERNATE ? m->cur_page : m->written_pages;
}

bool dmo_sim_kernel_frozen(struct dmo_snapshot *s)
{
        return to_sim(s)->frozen;
}

bool dmo_sim_kernel_powered_off(struct dmo_snapshot *s)
{
        return to_sim(s)->powered_off;
}

uint64_t dmo_sim_kernel_max_pages(struct dmo_snapshot *s)
{
        struct sim *m = to_sim(s);
        return m->p.size_bytes / m->ps;
}
