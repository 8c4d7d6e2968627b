#include "engine/engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "crypto/crypto.h"
#include "engine/critical.h"
#include "image/format.h"
#include "image/reader.h"
#include "image/sigdev.h"
#include "image/writer.h"
#include "kernel/blockdev.h"
#include "kernel/swap_area.h"
#include "util/cleanup.h"
#include "util/self_memory.h"

struct timer {
        struct timespec start;
};

static void timer_start(struct timer *t)
{
        clock_gettime(CLOCK_MONOTONIC, &t->start);
}

static double timer_lap(struct timer *t)
{
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double s =
            (double)(now.tv_sec - t->start.tv_sec) + (double)(now.tv_nsec - t->start.tv_nsec) / 1e9;
        t->start = now;
        return s;
}

/* Debug knob for screenshots: hold each 1% of the data phase. */
struct step_pacer {
        unsigned delay_ms;
        uint64_t every;
        uint64_t next;
};

static void pacer_init(struct step_pacer *p, unsigned delay_ms, uint64_t total)
{
        p->delay_ms = delay_ms;
        p->every = total / 100 ? total / 100 : 1;
        p->next = p->every;
}

static void pacer_tick(struct step_pacer *p, uint64_t done)
{
        if (!p->delay_ms || done < p->next)
                return;
        p->next += p->every;
        usleep(p->delay_ms * 1000u);
}

/* Reads n whole pages. 1: all there; 0: the image ended before the first;
 * -EIO: it ended in the middle (the kernel announced more than it gave). */
static int read_kernel_pages(struct dmo_snapshot *snap, uint8_t *buf, size_t n, size_t page_size)
{
        size_t got = 0, want = n * page_size;
        while (got < want) {
                ssize_t r = snap->ops->read_image(snap, buf + got, want - got);
                if (r < 0)
                        return (int)r;
                if (r == 0)
                        return got ? -EIO : 0;
                got += (size_t)r;
        }
        return 1;
}

static int write_kernel_pages(struct dmo_snapshot *snap, const uint8_t *buf, size_t n,
                              size_t page_size)
{
        size_t put = 0, want = n * page_size;
        while (put < want) {
                ssize_t r = snap->ops->write_image(snap, buf + put, want - put);
                if (r < 0)
                        return (int)r;
                if (r == 0)
                        return -EIO;
                put += (size_t)r;
        }
        return 0;
}

static double now_s(void)
{
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void note_kernel_call(struct dmo_engine_profile *prof, double seconds, uint64_t pages_before)
{
        prof->kernel_io_s += seconds;
        prof->kernel_calls++;
        if (seconds > prof->slowest_kernel_call_s) {
                prof->slowest_kernel_call_s = seconds;
                prof->slowest_kernel_call_after = pages_before;
        }
}

/* Adds (sign 1) or takes away (sign -1) the process's CPU time so far:
 * called with -1 when a phase starts and 1 when it ends. */
static void account_cpu(struct dmo_engine_profile *prof, double sign)
{
        struct rusage ru;
        if (!prof || getrusage(RUSAGE_SELF, &ru) < 0)
                return;
        prof->cpu_user_s += sign * ((double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6);
        prof->cpu_sys_s += sign * ((double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
}

static int alloc_swap_slot(void *ctx, uint64_t *byte_offset);

/* Everything a hibernation holds; released in reverse order by one function. */
struct hibernation {
        struct dmo_snapshot *snap;
        const struct dmo_hibernate_config *cfg;
        struct dmo_hibernate_result *res;
        struct dmo_blockdev *dev;
        struct dmo_image_writer *writer;
        uint8_t *scratch; /* one page, to see the end of the kernel's stream */
        uint64_t avail_swap;
        /* The kernel's preferred image size before ours: set back when this
         * system goes on (restored, aborted or failed), as the kernel's own
         * path leaves it. */
        uint64_t kernel_pref;
        bool pref_changed;
        struct dmo_engine_profile *prof; /* the result's, when profiling */
        struct dmo_kernel_identity id;
        uint64_t start_ns;
        struct dmo_critical critical; /* signature on disk, machine not down yet */
        bool frozen;
        bool image_ready;
        bool swap_allocated;
};

static int fail(struct dmo_hibernate_result *res, enum dmo_step step, int err)
{
        res->outcome = DMO_HIBERNATE_FAILED;
        res->step = step;
        res->error = err;
        return err;
}

/* Takes the signature off and reads the header back to be sure it is gone.
 * Retried: a failed removal is what leaves a stale image on disk. */
static int remove_signature(struct dmo_blockdev *dev, uint64_t header_page, uint32_t page_size)
{
        enum { ATTEMPTS = 5 };
        int r = -EIO;
        for (int i = 0; i < ATTEMPTS; i++) {
                if (i)
                        usleep(100000u << (i - 1)); /* 0.1, 0.2, 0.4, 0.8 s */
                r = dmo_sig_clear(dev, header_page, page_size);
                if (r < 0)
                        continue;
                struct dmo_sig sig;
                r = dmo_sig_read(dev, header_page, page_size, &sig);
                if (r == -ENOENT)
                        return 0;
                if (r == 0)
                        r = -EIO; /* the write "succeeded", the signature is still there */
        }
        return r;
}

/* The one way back to a running system before the signature is on disk.
 * restored: the second return of create_image, in the restored system. Its
 * splash is not running (it stopped for the snapshot) and the devices went
 * through a suspend: devices_thawed starts it after the thaw, with a whole
 * repaint, instead of after_freeze; and user space, the person's programs,
 * is thawed before anything is drawn. */
static void unwind(struct hibernation *h, bool restored)
{
        struct dmo_snapshot *snap = h->snap;
        if (h->swap_allocated)
                snap->ops->free_swap_pages(snap);
        if (h->image_ready)
                snap->ops->free_image(snap); /* UNFREEZE is ignored while an image is ready */
        if (h->frozen) {
                /* Threads started after the freeze carry the freezing task's
                 * exemption, which the kernel wants gone by the thaw (it
                 * warns otherwise): end them first, start afresh after. */
                dmo_image_writer_free(h->writer);
                h->writer = NULL;
                if (h->cfg->hooks.before_freeze)
                        h->cfg->hooks.before_freeze(h->cfg->hooks.ctx);
                snap->ops->unfreeze(snap);
                if (restored && h->cfg->hooks.devices_thawed)
                        h->cfg->hooks.devices_thawed(h->cfg->hooks.ctx);
                else if (h->cfg->hooks.after_freeze)
                        h->cfg->hooks.after_freeze(h->cfg->hooks.ctx);
        }
        if (h->pref_changed)
                snap->ops->pref_image_size(snap, h->kernel_pref);
        h->swap_allocated = h->image_ready = h->frozen = h->pref_changed = false;
}

static int alloc_swap_slot(void *ctx, uint64_t *byte_offset)
{
        struct hibernation *h = ctx;
        if (!h->prof)
                return h->snap->ops->alloc_swap_page(h->snap, byte_offset);
        double t0 = now_s();
        int r = h->snap->ops->alloc_swap_page(h->snap, byte_offset);
        h->prof->alloc_s += now_s() - t0;
        h->prof->allocs++;
        return r;
}

/* An upper bound for the image's page count, known before the snapshot:
 * the writer's extent list is sized for it and never grows after. */
static int max_image_pages(struct dmo_snapshot *snap, uint32_t page_size, uint64_t *pages)
{
        uint64_t bytes = 0;
        int r = snap->ops->max_image_bytes(snap, &bytes);
        if (r < 0)
                return r;
        *pages = bytes / page_size ? bytes / page_size : 1;
        return 0;
}

static uint64_t realtime_ns(void)
{
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* The kernel's preferred image size; where it cannot be read (no sysfs),
 * the kernel's default, 2/5 of memory (Documentation/ABI:
 * /sys/power/image_size). */
static uint64_t kernel_pref_image_size(struct dmo_snapshot *snap)
{
        uint64_t bytes = 0, memory = 0;
        if (snap->ops->get_pref_image_size(snap, &bytes) == 0)
                return bytes;
        if (snap->ops->memory_bytes(snap, &memory) < 0)
                return 0;
        return memory / 5 * 2;
}

static int prepare(struct hibernation *h)
{
        const struct dmo_hibernate_config *cfg = h->cfg;
        struct dmo_snapshot *snap = h->snap;
        struct dmo_swap_info swap;
        int r;

        dmo_progress_set_phase(cfg->progress, DMO_PHASE_PREPARE);
        r = snap->ops->open_target(snap, &cfg->target, &h->dev);
        if (r < 0)
                return fail(h->res, DMO_STEP_OPEN_DEVICE, r);
        r = dmo_swap_header_read(h->dev, cfg->target.header_page, &swap);
        if (r < 0)
                return fail(h->res, DMO_STEP_SWAP_HEADER, r);
        if (!dmo_swap_magic_is_swap(swap.magic))
                return fail(h->res, DMO_STEP_SWAP_HEADER, -ENODEV);
        r = snap->ops->identity(snap, &h->id);
        if (r < 0)
                return fail(h->res, DMO_STEP_OPEN_DEVICE, r);
        h->res->stats.page_size = h->id.page_size;
        /* A stale image must not survive next to a half-written new one. */
        r = dmo_sig_clear(h->dev, cfg->target.header_page, h->id.page_size);
        if (r < 0)
                return fail(h->res, DMO_STEP_SIGNATURE, r);

        r = snap->ops->set_swap_area(snap, &cfg->target);
        if (r < 0)
                return fail(h->res, DMO_STEP_SET_SWAP_AREA, r);
        dmo_snapshot_checkpoint(snap, DMO_CP_OPENED);

        r = snap->ops->avail_swap(snap, &h->avail_swap);
        if (r < 0)
                return fail(h->res, DMO_STEP_ALLOCATE, r);
        h->res->swap_free_bytes = h->avail_swap;
        h->kernel_pref = kernel_pref_image_size(snap);
        h->scratch = malloc(h->id.page_size);
        if (!h->scratch)
                return fail(h->res, DMO_STEP_ALLOCATE, -ENOMEM);
        return 0;
}

/* The writer's codec threads are created here, by the thread that froze
 * the system: they inherit its exemption from the freezer (PF_SUSPEND_TASK)
 * and keep running while the image is written. Created before the freeze,
 * they would stop with the rest of user space and the write would hang.
 * Memory is still unrestricted at this point (the kernel restricts it inside
 * CREATE_IMAGE), and a failure here unwinds like any other. */
static int start_writer(struct hibernation *h)
{
        const struct dmo_hibernate_config *cfg = h->cfg;
        struct dmo_image_writer_params wp = {
            .algo = cfg->compress,
            .level = cfg->compress_level,
            .threads = cfg->threads,
            .chunk_pages = cfg->chunk_pages,
            .page_size = h->id.page_size,
            .key = cfg->key,
            .envelope = cfg->envelope,
            .tpm = cfg->tpm,
            .cipher = cfg->cipher,
        };
        int r = max_image_pages(h->snap, h->id.page_size, &wp.expected_pages);
        if (r < 0)
                return fail(h->res, DMO_STEP_ALLOCATE, r);
        r = dmo_image_writer_new(&wp, h->dev, alloc_swap_slot, h, cfg->progress, &h->writer);
        if (r < 0)
                return fail(h->res, DMO_STEP_ALLOCATE, r);
        if (cfg->lock_memory && mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
                return fail(h->res, DMO_STEP_ALLOCATE, -errno);
        return 0;
}

/* What the swap area holds for the image: avail less a reserve for the
 * header, the extent map and the chunk headers, two pages and well under
 * 1% of the data. */
static uint64_t usable_swap(uint64_t avail, uint32_t page_size)
{
        uint64_t reserve = 2ull * page_size + avail / 128;
        return avail > reserve ? avail - reserve : 0;
}

/* The image size to ask the kernel for; false: leave the kernel's as it is.
 *
 * Unset, it is the kernel's own preference (/sys/power/image_size, 2/5 of
 * RAM by default) plus this process's resident memory, which the image
 * holds too: the kernel then frees no more of the person's memory than its
 * own `echo disk` would. Without the addition, dormouse's own 30 MB tipped
 * a system just under the preference over it, and the kernel swapped 80 MB
 * out, a page at a time, before the snapshot (check-vm: preallocation
 * 1.95 s against 0.98 s), to be read back after resume.
 *
 * Either way no more than the swap area holds uncompressed: the stored
 * size is not known before the data is written (zero pages and
 * compression shrink it), so nothing is refused here, but an image that
 * fits even uncompressed cannot run out of room, and the kernel can make
 * it so by freeing memory first. */
static bool image_size_to_ask(const struct hibernation *h, uint64_t *ask)
{
        if (h->cfg->image_size >= 0) {
                *ask = (uint64_t)h->cfg->image_size;
                return true;
        }
        uint64_t usable = usable_swap(h->avail_swap, h->id.page_size);
        uint64_t want = h->kernel_pref;
        if (want == 0) /* "as small as possible" stays so */
                return false;
        uint64_t own = 0;
        if (dmo_self_resident_bytes(&own) < 0)
                own = 0;
        want = want > UINT64_MAX - own ? UINT64_MAX : want + own;
        if (want > usable)
                /* 0 would mean "as small as possible" to the kernel: ask
                 * for one page instead, which it reads the same way. */
                want = usable ? usable : h->id.page_size;
        *ask = want;
        return want != h->kernel_pref;
}

static int snapshot(struct hibernation *h, int *in_suspend)
{
        const struct dmo_hibernate_config *cfg = h->cfg;
        struct dmo_snapshot *snap = h->snap;
        struct timer t;
        int r;

        timer_start(&t);
        dmo_progress_set_phase(cfg->progress, DMO_PHASE_FREEZE);
        if (cfg->hooks.before_freeze)
                cfg->hooks.before_freeze(cfg->hooks.ctx);
        r = snap->ops->freeze(snap);
        if (cfg->hooks.after_freeze)
                cfg->hooks.after_freeze(cfg->hooks.ctx);
        if (r < 0)
                return fail(h->res, DMO_STEP_FREEZE, r);
        h->frozen = true;
        dmo_snapshot_checkpoint(snap, DMO_CP_FROZEN);
        r = start_writer(h);
        if (r < 0)
                return r;
        uint64_t ask;
        if (image_size_to_ask(h, &ask)) {
                r = snap->ops->pref_image_size(snap, ask);
                if (r < 0)
                        return fail(h->res, DMO_STEP_CREATE_IMAGE, r);
                h->res->image_size_asked = ask;
                h->pref_changed = true;
        }
        h->res->stats.freeze_s = timer_lap(&t);

        dmo_progress_set_phase(cfg->progress, DMO_PHASE_SNAPSHOT);
        if (cfg->hooks.before_snapshot)
                cfg->hooks.before_snapshot(cfg->hooks.ctx);
        r = snap->ops->create_image(snap, in_suspend);
        bool restored = r == 0 && !*in_suspend;
        if (restored)
                dmo_progress_set_phase(cfg->progress, DMO_PHASE_DONE);
        /* Devices are back (after a failure too): the screen must be drawn
         * anew. In the restored system that waits until user space runs
         * again (unwind): drawing first kept the person's programs frozen
         * for a whole repaint, ~80 ms in check-vm. */
        if (!restored && cfg->hooks.devices_thawed)
                cfg->hooks.devices_thawed(cfg->hooks.ctx);
        if (r < 0)
                return fail(h->res, DMO_STEP_CREATE_IMAGE, r);
        h->image_ready = true;
        h->res->stats.snapshot_s = timer_lap(&t);
        return 0;
}

/* Whether the writer may store chunks uncompressed (image/writer.h):
 * the swap area is asked again after the snapshot, since reclaim inside
 * CREATE_IMAGE may have swapped pages out to this very area. */
static bool allow_store(struct hibernation *h, uint64_t pages)
{
        uint64_t avail = 0;
        if (h->snap->ops->avail_swap(h->snap, &avail) < 0)
                return dmo_image_writer_allow_store(h->writer, pages, 0);
        return dmo_image_writer_allow_store(h->writer, pages, usable_swap(avail, h->id.page_size));
}

static int write_data(struct hibernation *h)
{
        const struct dmo_hibernate_config *cfg = h->cfg;
        struct dmo_snapshot *snap = h->snap;
        const size_t page_size = h->id.page_size;
        uint64_t image_bytes = 0, done = 0;
        struct step_pacer pacer;
        int r;

        r = snap->ops->get_image_size(snap, &image_bytes);
        if (r < 0)
                return fail(h->res, DMO_STEP_READ_KERNEL, r);
        uint64_t total = image_bytes / page_size;
        h->res->image_bytes = image_bytes;
        h->res->store_allowed = allow_store(h, total);
        account_cpu(h->prof, -1);
        dmo_progress_set_total(cfg->progress, total);
        dmo_progress_set_phase(cfg->progress, DMO_PHASE_WRITE);
        pacer_init(&pacer, cfg->step_delay_ms, total);
        h->swap_allocated = true;

        while (done < total) {
                void *pages;
                size_t n;
                if (dmo_progress_abort_requested(cfg->progress))
                        return -ECANCELED;
                double t0 = h->prof ? now_s() : 0, t1 = 0;
                r = dmo_image_writer_page_buffers(h->writer, &pages, &n);
                if (r < 0)
                        return fail(h->res, DMO_STEP_WRITE_IMAGE, r);
                /* The writer was sized for the largest image before the
                 * kernel said how large this one is. */
                if (n > total - done)
                        n = (size_t)(total - done);
                if (h->prof)
                        t1 = now_s();
                r = read_kernel_pages(snap, pages, n, page_size);
                if (r <= 0) /* the kernel announced more pages than it gave */
                        return fail(h->res, DMO_STEP_READ_KERNEL, r < 0 ? r : -EIO);
                if (h->prof) {
                        double t2 = now_s();
                        note_kernel_call(h->prof, t2 - t1, done);
                        h->prof->image_s += t1 - t0;
                        t0 = t2;
                }
                r = dmo_image_writer_commit_pages(h->writer, n);
                if (r < 0)
                        return fail(h->res, DMO_STEP_WRITE_IMAGE, r);
                if (h->prof)
                        h->prof->image_s += now_s() - t0;
                dmo_progress_add_pages(cfg->progress, n);
                if (done < total / 2 && done + n >= total / 2)
                        dmo_snapshot_checkpoint(snap, DMO_CP_DATA_HALF_WRITTEN);
                done += n;
                pacer_tick(&pacer, done);
        }
        /* ...and not fewer either: the stream must end here. */
        r = read_kernel_pages(snap, h->scratch, 1, page_size);
        if (r != 0)
                return fail(h->res, DMO_STEP_READ_KERNEL, r < 0 ? r : -EFBIG);
        h->res->stats.image_pages = done;
        dmo_snapshot_checkpoint(snap, DMO_CP_DATA_WRITTEN);
        return 0;
}

static int seal(struct hibernation *h, struct timer *t)
{
        const struct dmo_hibernate_config *cfg = h->cfg;
        struct dmo_image_result ir;
        struct dmo_image_meta meta = {
            .identity = h->id,
            .start_ns = h->start_ns,
            .platform_mode = cfg->shutdown == DMO_SHUTDOWN_PLATFORM,
        };
        int r;

        dmo_progress_set_phase(cfg->progress, DMO_PHASE_SYNC);
        r = dmo_image_writer_finish(h->writer, &meta, &ir);
        if (r < 0)
                return fail(h->res, DMO_STEP_FINISH_IMAGE, r);
        h->res->stats.stored_bytes = ir.stored_bytes;
        h->res->stats.zero_pages = ir.zero_pages;
        h->res->stats.data_s = timer_lap(t);
        account_cpu(h->prof, 1);
        if (h->prof)
                h->prof->direct_io = dmo_blockdev_direct(h->dev);
        dmo_snapshot_checkpoint(h->snap, DMO_CP_HEADER_WRITTEN);
        if (h->prof) {
                h->prof->writes = ir.writes;
                h->prof->write_s = (double)ir.io_ns / 1e9;
                h->prof->codec_wait_s = (double)ir.wait_ns / 1e9;
                h->prof->mean_speed = ir.mean_speed;
                h->prof->chunks = ir.chunk_count;
                h->prof->stored_chunks = ir.stored_chunks;
        }
        if (cfg->hooks.stats_ready)
                cfg->hooks.stats_ready(cfg->hooks.ctx, &h->res->stats);

        /* One atomic step: an Esc either made it before the close (abort
         * now) or is refused, never taken and then lost. */
        if (dmo_progress_close_abort_window(cfg->progress))
                return -ECANCELED;

        /* From here until the machine is down, dying would thaw the system
         * with a valid image on disk. */
        dmo_critical_enter(&h->critical);
        r = dmo_sig_write(h->dev, cfg->target.header_page, h->id.page_size, &ir.sig);
        if (r < 0) {
                fail(h->res, DMO_STEP_SIGNATURE, r);
                return 1; /* the signature may be half, or wholly, on disk */
        }
        dmo_snapshot_checkpoint(h->snap, DMO_CP_SIGNATURE_WRITTEN);
        h->res->stats.sync_s = timer_lap(t);
        return 0;
}

static int shut_down(struct hibernation *h)
{
        const struct dmo_hibernate_config *cfg = h->cfg;
        enum dmo_shutdown mode = cfg->shutdown;

        if (cfg->hooks.choose_shutdown)
                mode = cfg->hooks.choose_shutdown(cfg->hooks.ctx, mode);
        dmo_progress_set_going_down(cfg->progress,
                                    mode == DMO_SHUTDOWN_SUSPEND  ? DMO_GOING_DOWN_SUSPEND
                                    : mode == DMO_SHUTDOWN_REBOOT ? DMO_GOING_DOWN_REBOOT
                                                                  : DMO_GOING_DOWN_POWEROFF);
        dmo_progress_set_phase(cfg->progress, DMO_PHASE_POWEROFF);
        h->res->shutdown_used = mode;
        return h->snap->ops->shutdown(h->snap, mode);
}

/* The machine is still up although a signature went on disk: it woke from
 * RAM (r == DMO_SHUTDOWN_WOKE), or the shutdown or the signature write
 * failed (r < 0, the failure already in the result). The system must not
 * thaw while a valid image is on disk, so the signature comes off first. If
 * it will not, the machine stays frozen and goes down into the image, which
 * still matches the disks: reboot, else power off, tried until one works
 * or the signature finally comes off. Returns 0 when the machine is down
 * (only a test kernel returns then) or the system may thaw; the result
 * says which. */
static int leave_sealed_image(struct hibernation *h, int r)
{
        const struct dmo_hibernate_config *cfg = h->cfg;
        static const enum dmo_shutdown fallback[] = {DMO_SHUTDOWN_REBOOT, DMO_SHUTDOWN_POWEROFF};

        for (;;) {
                int cleared = remove_signature(h->dev, cfg->target.header_page, h->id.page_size);
                if (cleared == 0) {
                        dmo_critical_leave(&h->critical);
                        if (r == DMO_SHUTDOWN_WOKE) {
                                h->res->outcome = DMO_HIBERNATE_RESUMED;
                                return 0;
                        }
                        if (h->res->outcome != DMO_HIBERNATE_FAILED)
                                fail(h->res, DMO_STEP_POWER_OFF, r < 0 ? r : -EIO);
                        return h->res->error;
                }
                h->res->sig_error = cleared;
                for (size_t i = 0; i < DMO_ARRAY_SIZE(fallback); i++) {
                        h->res->shutdown_used = fallback[i];
                        if (h->snap->ops->shutdown(h->snap, fallback[i]) == DMO_SHUTDOWN_DONE) {
                                h->res->outcome = DMO_HIBERNATE_POWERED_OFF;
                                h->res->went_down_into_image = true;
                                h->res->error = 0;
                                h->res->step = DMO_STEP_NONE;
                                return 0;
                        }
                }
                sleep(1);
        }
}

int dmo_engine_hibernate(struct dmo_snapshot *snap, const struct dmo_hibernate_config *cfg,
                         struct dmo_hibernate_result *res)
{
        struct hibernation h = {.snap = snap, .cfg = cfg, .res = res};
        int in_suspend = 0, r;
        struct timer t;

        memset(res, 0, sizeof(*res));
        h.start_ns = realtime_ns();
        res->stats.profile.enabled = cfg->profile;
        h.prof = cfg->profile ? &res->stats.profile : NULL;
        dmo_progress_set_abortable(cfg->progress, true);
        r = prepare(&h);
        if (r < 0)
                goto out;
        r = snapshot(&h, &in_suspend);
        if (r < 0)
                goto out;
        if (!in_suspend) {
                /* Second return of create_image: the restored system runs. */
                unwind(&h, true);
                dmo_progress_set_phase(cfg->progress, DMO_PHASE_DONE);
                res->outcome = DMO_HIBERNATE_RESUMED;
                goto out;
        }
        dmo_snapshot_checkpoint(snap, DMO_CP_IMAGE_CREATED);

        timer_start(&t);
        r = write_data(&h);
        if (r == 0)
                r = seal(&h, &t);
        if (r < 0)
                goto out;
        if (r == 0) {
                r = shut_down(&h);
                if (r == DMO_SHUTDOWN_DONE) {
                        res->outcome = DMO_HIBERNATE_POWERED_OFF;
                        goto out;
                }
                if (r < 0)
                        fail(res, DMO_STEP_POWER_OFF, r);
        } else {
                r = res->error; /* the signature write failed */
        }
        r = leave_sealed_image(&h, r);
out:
        if (r == -ECANCELED) {
                res->outcome = DMO_HIBERNATE_ABORTED;
                dmo_progress_set_phase(cfg->progress, DMO_PHASE_ABORTED);
                r = 0;
        } else if (r < 0) {
                dmo_progress_set_phase(cfg->progress, DMO_PHASE_FAILED);
        }
        dmo_critical_leave(&h.critical);
        if (res->outcome != DMO_HIBERNATE_POWERED_OFF) {
                unwind(&h, false);
                if (h.dev && res->outcome != DMO_HIBERNATE_RESUMED) {
                        struct dmo_sig sig;
                        res->signature_cleared = dmo_sig_read(h.dev, cfg->target.header_page,
                                                              h.id.page_size, &sig) == -ENOENT;
                }
        }
        if (h.dev) {
                res->device_bytes = dmo_blockdev_size(h.dev);
                res->device_bytes_now = dmo_blockdev_size_now(h.dev);
        }
        dmo_image_writer_free(h.writer);
        free(h.scratch);
        dmo_blockdev_free(h.dev);
        if (cfg->lock_memory)
                munlockall();
        return r;
}

/* ------------------------------------------------------------------ resume */

struct resumption {
        struct dmo_snapshot *snap;
        const struct dmo_resume_config *cfg;
        struct dmo_resume_result *res;
        struct dmo_blockdev *dev;
        struct dmo_image_reader *reader;
        struct dmo_crypto_key *key; /* encrypted: the unlock hook's, not ours */
        struct dmo_image_info info;
        struct dmo_kernel_identity id;
        struct dmo_critical critical; /* signature off, restore not done yet */
        bool frozen;
        bool early_boot; /* check_boot_stage said so: the swap area is ours */
};

/* The image's slots, once its signature is off; never on a running
 * system, whose swap may use them. */
static void discard_slots(struct resumption *rs)
{
        if (!rs->early_boot || !rs->info.map_ok || rs->res->slots_discarded)
                return;
        int r = dmo_image_discard(rs->dev, &rs->info);
        rs->res->slots_discarded = r == 0;
        rs->res->discard_error = r;
}

static int refuse(struct resumption *rs, enum dmo_resume_outcome outcome, enum dmo_step step,
                  int err)
{
        rs->res->outcome = outcome;
        rs->res->step = step;
        rs->res->error = err;
        return err < 0 ? err : -EINVAL;
}

/* The probe failed on an image whose signature is there, and the device is
 * shorter than its own swap header says: it shrank since mkswap (a volume
 * or partition cut short, a virtual disk resized), and the image's header,
 * map or data reach past its new end. That is no proof that the image is
 * gone: past the end it may still be whole, and the device may get its
 * size back. A block device only (or one the fault plan cuts short while
 * open): a swap file cut short has given its blocks back. Fills the
 * result's sizes. */
static bool device_shrank(struct resumption *rs)
{
        const uint64_t now = dmo_blockdev_size_now(rs->dev);
        struct dmo_swap_info si;
        if (!rs->info.has_sig)
                return false;
        if (!dmo_blockdev_rdev(rs->dev) && now == dmo_blockdev_size(rs->dev))
                return false;
        if (dmo_swap_header_read(rs->dev, rs->cfg->target.header_page, &si) < 0 || !si.page_size ||
            si.last_page >= UINT64_MAX / si.page_size || (si.last_page + 1) * si.page_size <= now)
                return false;
        rs->res->device_bytes = now;
        rs->res->swap_area_bytes = (si.last_page + 1) * si.page_size;
        return true;
}

/* A read of the image that failed. The device failing it (-EIO) is not
 * damage: what is on the disk may be whole (a loose cable, a disk that
 * reads on the next try), and only the checksums can say it is not; so the
 * image is kept and the boot stops (DMO_RESUME_KEPT). Anything else is
 * `otherwise`. */
static int refuse_read(struct resumption *rs, enum dmo_resume_outcome otherwise, int err)
{
        return refuse(rs, err == -EIO ? DMO_RESUME_KEPT : otherwise, DMO_STEP_READ_IMAGE, err);
}

static bool same_kernel(const struct dmo_kernel_identity *a, const struct dmo_kernel_identity *b)
{
        return strcmp(a->sysname, b->sysname) == 0 && strcmp(a->release, b->release) == 0 &&
               strcmp(a->version, b->version) == 0 && strcmp(a->machine, b->machine) == 0;
}

static int unlock(struct resumption *rs);

/* While the passphrase is asked for, the image's stream is read into free
 * memory, less what the kernel needs to take the image's pages (all of
 * them, uncompressed) and a margin for everything else in this early boot. */
static uint64_t prefetch_budget(struct dmo_snapshot *snap, const struct dmo_image_header *h)
{
        const uint64_t margin = 64ull << 20;
        uint64_t free_bytes;
        if (snap->ops->free_memory_bytes(snap, &free_bytes) < 0)
                return 0;
        uint64_t needed = h->image_pages * (uint64_t)h->page_size + margin;
        if (free_bytes <= needed)
                return 0;
        uint64_t budget = free_bytes - needed;
        return budget < h->stream_len ? budget : h->stream_len;
}

static int check_image(struct resumption *rs)
{
        const struct dmo_resume_config *cfg = rs->cfg;
        struct dmo_snapshot *snap = rs->snap;
        int r;

        dmo_progress_set_phase(cfg->progress, DMO_PHASE_CHECK);
        r = snap->ops->identity(snap, &rs->id);
        if (r < 0)
                return refuse(rs, DMO_RESUME_FAILED, DMO_STEP_OPEN_DEVICE, r);
        rs->res->stats.page_size = rs->id.page_size;
        r = snap->ops->open_target(snap, &cfg->target, &rs->dev);
        if (r < 0)
                return refuse(rs, DMO_RESUME_NOT_SWAP, DMO_STEP_OPEN_DEVICE, r);
        r = dmo_image_probe(rs->dev, cfg->target.header_page, rs->id.page_size, &rs->info);
        if (r == -ENOENT)
                return refuse(rs, DMO_RESUME_NO_IMAGE, DMO_STEP_NONE, r);
        if (r == -ENODEV && rs->info.fault == DMO_FAULT_FOREIGN)
                return refuse(rs, DMO_RESUME_FOREIGN, DMO_STEP_SWAP_HEADER, r);
        if (r == -ENODEV)
                return refuse(rs, DMO_RESUME_NOT_SWAP, DMO_STEP_SWAP_HEADER, r);
        if (cfg->noresume) {
                /* Discarded either way; its slots only in an early boot. */
                rs->early_boot = r == 0 && snap->ops->check_boot_stage(snap, &cfg->target,
                                                                       &rs->res->live_reason) >= 0;
                return refuse(rs, DMO_RESUME_DISCARDED, DMO_STEP_NONE, -ECANCELED);
        }
        /* An image is there. Restoring it, or even taking it off, is only
         * for an early boot: never on a system that runs. */
        int live = snap->ops->check_boot_stage(snap, &cfg->target, &rs->res->live_reason);
        if (live < 0)
                return refuse(rs, DMO_RESUME_LIVE_SYSTEM, DMO_STEP_BOOT_STAGE, live);
        rs->early_boot = true;
        /* From here the resume either restores the image or leaves the swap
         * area as it must (plain, or the image kept and the boot stopped):
         * a signal ending it half way would let the boot go on with a valid
         * image on disk. */
        dmo_critical_enter(&rs->critical);
        if (r < 0 && device_shrank(rs))
                return refuse(rs, DMO_RESUME_KEPT, DMO_STEP_READ_IMAGE, -ENXIO);
        if (r < 0)
                return refuse_read(rs, DMO_RESUME_REFUSED, r);
        if (!same_kernel(&rs->info.header.identity, &rs->id) ||
            rs->info.header.page_size != rs->id.page_size) {
                snprintf(rs->res->image_release, sizeof(rs->res->image_release), "%s",
                         rs->info.header.identity.release);
                snprintf(rs->res->running_release, sizeof(rs->res->running_release), "%s",
                         rs->id.release);
                /* The image is sound, only this kernel cannot take it:
                 * thrown away only when the person says so. */
                bool discard =
                    cfg->hooks.discard_other_kernel_image &&
                    cfg->hooks.discard_other_kernel_image(
                        cfg->hooks.ctx, rs->info.header.identity.release, rs->id.release);
                return refuse(rs, discard ? DMO_RESUME_REFUSED : DMO_RESUME_OTHER_KERNEL,
                              DMO_STEP_KERNEL_MISMATCH, -EXDEV);
        }
        if (cfg->hooks.image_found)
                cfg->hooks.image_found(cfg->hooks.ctx);
        r = dmo_image_reader_new(&rs->info, rs->dev, cfg->threads, cfg->progress, &rs->reader);
        if (r < 0)
                return refuse_read(rs, DMO_RESUME_FAILED, r);
        if (rs->info.header.flags & DMO_IMAGE_F_ENCRYPTED) {
                dmo_image_reader_prefetch(rs->reader, prefetch_budget(snap, &rs->info.header));
                r = unlock(rs);
                if (r < 0)
                        return r;
        }
        if (cfg->lock_memory && mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
                return refuse(rs, DMO_RESUME_FAILED, DMO_STEP_READ_IMAGE, -errno);
        return 0;
}

/* The key of an encrypted image, while the reader reads ahead; then the
 * header and the extent list are authenticated with it. */
static int unlock(struct resumption *rs)
{
        const struct dmo_resume_config *cfg = rs->cfg;
        /* Before anyone types a passphrase: an image sealed with AES-GCM
         * cannot be opened where the CPU lacks AES instructions. It stays
         * on disk for a machine that can. */
        if (!dmo_crypto_cipher_available(rs->info.header.crypto.cipher)) {
                rs->res->image_cipher = rs->info.header.crypto.cipher;
                return refuse(rs, DMO_RESUME_LOCKED, DMO_STEP_UNLOCK, -ENOTSUP);
        }
        int r = cfg->unlock ? cfg->unlock(cfg->unlock_ctx, &rs->info, &rs->key) : -ENOKEY;
        if (r == -ECANCELED) /* the person's choice, not noresume */
                return refuse(rs, DMO_RESUME_DISCARDED, DMO_STEP_UNLOCK, r);
        if (r == -EKEYREJECTED || r == -ENOKEY)
                return refuse(rs, DMO_RESUME_LOCKED, DMO_STEP_UNLOCK, r);
        if (r < 0)
                return refuse(rs, DMO_RESUME_FAILED, DMO_STEP_UNLOCK, r);
        r = dmo_image_reader_set_key(rs->reader, rs->key);
        if (r < 0) /* the right key, and a header someone altered */
                return refuse(rs, DMO_RESUME_REFUSED, DMO_STEP_READ_IMAGE, r);
        r = cfg->consume ? cfg->consume(cfg->unlock_ctx, &rs->info) : 0;
        if (r == -ESTALE) /* restored before, or an older copy */
                return refuse(rs, DMO_RESUME_REFUSED, DMO_STEP_UNLOCK, r);
        if (r < 0)
                return refuse(rs, DMO_RESUME_LOCKED, DMO_STEP_UNLOCK, r);
        return 0;
}

static int load_image(struct resumption *rs)
{
        const struct dmo_resume_config *cfg = rs->cfg;
        struct dmo_snapshot *snap = rs->snap;
        const size_t page_size = rs->id.page_size;
        uint64_t done = 0;
        struct step_pacer pacer;
        int r;

        dmo_progress_set_total(cfg->progress, rs->info.header.image_pages);
        dmo_progress_set_bytes_total(cfg->progress, rs->info.header.stream_len);
        dmo_progress_set_phase(cfg->progress, DMO_PHASE_READ);
        pacer_init(&pacer, cfg->step_delay_ms, rs->info.header.image_pages);
        struct dmo_engine_profile *prof = cfg->profile ? &rs->res->stats.profile : NULL;
        account_cpu(prof, -1);
        for (;;) {
                const void *pages;
                size_t n;
                double t0 = prof ? now_s() : 0;
                r = dmo_image_reader_next_pages(rs->reader, &pages, &n);
                if (r < 0)
                        return refuse_read(rs, DMO_RESUME_REFUSED, r);
                if (r == 0)
                        break;
                if (n > rs->info.header.image_pages - done)
                        return refuse(rs, DMO_RESUME_REFUSED, DMO_STEP_READ_IMAGE, -EBADMSG);
                double t1 = prof ? now_s() : 0;
                r = write_kernel_pages(snap, pages, n, page_size);
                if (r < 0)
                        return refuse(rs, DMO_RESUME_REFUSED, DMO_STEP_WRITE_KERNEL, r);
                if (prof) {
                        prof->image_s += t1 - t0;
                        note_kernel_call(prof, now_s() - t1, done);
                }
                done += n;
                dmo_progress_add_pages(cfg->progress, n);
                pacer_tick(&pacer, done);
        }
        if (done != rs->info.header.image_pages)
                return refuse(rs, DMO_RESUME_REFUSED, DMO_STEP_READ_IMAGE, -EBADMSG);
        account_cpu(prof, 1);
        if (prof) {
                prof->direct_io = dmo_blockdev_direct(rs->dev);
                prof->chunks = rs->info.header.chunk_count;
                prof->stored_chunks = dmo_image_reader_chunks_in_place(rs->reader);
        }
        rs->res->stats.image_pages = done;
        rs->res->stats.stored_bytes = rs->info.header.stored_bytes;
        if (cfg->hooks.stats_ready)
                cfg->hooks.stats_ready(cfg->hooks.ctx, &rs->res->stats);
        dmo_snapshot_checkpoint(snap, DMO_CP_RESUME_LOADED);
        return 0;
}

static int restore(struct resumption *rs)
{
        struct dmo_snapshot *snap = rs->snap;
        int r;

        /* Every page is in the kernel: the reader's threads and its reads of
         * the device end here, before the signature is written through the
         * same device. */
        dmo_image_reader_free(rs->reader);
        rs->reader = NULL;

        /* (Still in the critical window: dying now would lose the image
         * about to be taken off the disk.) */
        /* Off before the jump: a crash in the restored system must not bring
         * this image back a second time. */
        r = remove_signature(rs->dev, rs->cfg->target.header_page, rs->id.page_size);
        if (r < 0)
                return refuse(rs, DMO_RESUME_KEPT, DMO_STEP_SIGNATURE, r);
        rs->res->signature_cleared = true;
        dmo_snapshot_checkpoint(snap, DMO_CP_SIGNATURE_REMOVED);
        /* Every page is in the kernel: the slots on disk are done with. */
        discard_slots(rs);

        dmo_progress_set_phase(rs->cfg->progress, DMO_PHASE_RESTORE);
        if (rs->cfg->hooks.before_restore)
                rs->cfg->hooks.before_restore(rs->cfg->hooks.ctx);
        if (rs->info.header.flags & DMO_IMAGE_F_PLATFORM) {
                /* saved in ACPI S4 mode: restore through the platform too */
                r = snap->ops->platform_support(snap, true);
                if (r < 0)
                        return refuse(rs, DMO_RESUME_FAILED, DMO_STEP_RESTORE, r);
        }
        r = snap->ops->freeze(snap);
        if (r < 0)
                return refuse(rs, DMO_RESUME_FAILED, DMO_STEP_FREEZE, r);
        rs->frozen = true;
        r = snap->ops->atomic_restore(snap);
        if (r == DMO_RESTORE_MISMATCH)
                return refuse(rs, DMO_RESUME_MISMATCH, DMO_STEP_RESTORE, r);
        if (r != DMO_RESTORED)
                return refuse(rs, DMO_RESUME_FAILED, DMO_STEP_RESTORE, r < 0 ? r : -EIO);
        /* Only a test kernel comes back from a successful restore: this
         * is where the restored system returns from create_image with
         * in_suspend == 0 and lets go of the snapshot. */
        dmo_critical_leave(&rs->critical);
        snap->ops->free_image(snap);
        snap->ops->unfreeze(snap);
        rs->frozen = false;
        rs->res->outcome = DMO_RESUME_RESTORED;
        return 0;
}

int dmo_engine_resume(struct dmo_snapshot *snap, const struct dmo_resume_config *cfg,
                      struct dmo_resume_result *res)
{
        struct resumption rs = {.snap = snap, .cfg = cfg, .res = res};
        struct timer t;
        int r;

        memset(res, 0, sizeof(*res));
        res->stats.profile.enabled = cfg->profile;
        timer_start(&t);
        r = check_image(&rs);
        res->stats.check_s = timer_lap(&t);
        if (r == 0)
                r = load_image(&rs);
        res->stats.restore_s = timer_lap(&t);
        if (r == 0)
                r = restore(&rs);
        if (r < 0) {
                if (rs.frozen) {
                        /* The kernel ignores UNFREEZE while a loaded image
                         * is ready: let go of it first. */
                        snap->ops->free_image(snap);
                        snap->ops->unfreeze(snap);
                }
                dmo_progress_set_phase(cfg->progress, res->outcome == DMO_RESUME_NO_IMAGE
                                                          ? DMO_PHASE_DONE
                                                          : DMO_PHASE_FAILED);
        } else {
                dmo_progress_set_phase(cfg->progress, DMO_PHASE_DONE);
        }
        dmo_critical_leave(&rs.critical);
        /* The reader's read-ahead must be over before the device is written. */
        dmo_image_reader_free(rs.reader);
        rs.reader = NULL;
        /* Whatever was refused, the swap area goes back to plain swap; when
         * it cannot, the image is still there and the result says so. */
        if (rs.dev &&
            (res->outcome == DMO_RESUME_REFUSED || res->outcome == DMO_RESUME_DISCARDED ||
             res->outcome == DMO_RESUME_FAILED || res->outcome == DMO_RESUME_MISMATCH) &&
            !res->signature_cleared) {
                int c = remove_signature(rs.dev, cfg->target.header_page, rs.id.page_size);
                res->signature_cleared = c == 0;
                if (c == 0)
                        discard_slots(&rs);
                bool damaged =
                    res->outcome == DMO_RESUME_REFUSED && res->step != DMO_STEP_KERNEL_MISMATCH;
                if (c < 0 && !damaged) {
                        /* A sound image stays on disk: never claim the
                         * swap area is usable, never let the boot go on. */
                        res->outcome = DMO_RESUME_KEPT;
                        res->step = DMO_STEP_SIGNATURE;
                        res->error = c;
                        r = c;
                }
        }
        dmo_blockdev_free(rs.dev);
        if (cfg->lock_memory)
                munlockall();
        return res->outcome == DMO_RESUME_RESTORED ? 0 : r;
}
