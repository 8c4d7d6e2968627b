/* The engine's results in words: what it was doing when it stopped, the
 * image it wrote, its timing profile. */
#include "cli/cli.h"
#include "cli/report.h"
#include "engine/engine.h"
#include "util/clock.h"
#include "util/i18n.h"
#include "util/self_memory.h"
#include "util/strtable.h"

#include <stdio.h>
#include <stdlib.h>

bool dmo_cli_profiling(void)
{
        return getenv("DORMOUSE_DEBUG_TIMING") != NULL;
}

bool dmo_cli_debug_lock_memory(void)
{
        return getenv("DORMOUSE_DEBUG_LOCK_MEMORY") != NULL;
}

/* Locked and resident memory at the end of the data phase. */
static void print_memory(void)
{
        struct dmo_self_locked m;
        if (dmo_self_locked_memory(&m) < 0)
                return;
        fprintf(stderr,
                "dormouse: timing: memory at the end of the data phase: locked %ld KiB resident "
                "(smaps Locked), %ld KiB mapped (VmLck), pinned %ld KiB (VmPin), peak resident "
                "%ld KiB (VmHWM)\n",
                m.resident_locked, m.mapped_locked, m.pinned, m.peak_resident);
}

static double mib(uint64_t pages, uint64_t page_size)
{
        return (double)(pages * page_size) / 1048576.0;
}

void dmo_cli_print_own_memory(void)
{
        struct dmo_self_private_pages p;
        const uint64_t t0 = dmo_clock_ns(CLOCK_MONOTONIC);
        int r = dmo_self_private_pages(&p);
        const double scan_ms = (double)(dmo_clock_ns(CLOCK_MONOTONIC) - t0) / 1e6;
        if (r < 0)
                return;
        char top[512];
        size_t n = 0;
        for (unsigned i = 0; i < p.ntop && n < sizeof(top); i++)
                n += (size_t)snprintf(
                    top + n, sizeof(top) - n, "%s%s %.2f of %.2f MiB", i ? ", " : "", p.top[i].name,
                    mib(p.top[i].nonzero, p.page_size), (double)p.top[i].bytes / 1048576.0);
        fprintf(stderr,
                "dormouse: timing: own memory at the snapshot: %.2f MiB not all zero (in the "
                "image), %.2f MiB zero, of %.2f MiB resident in %u private writable mappings; "
                "shared writable %.2f MiB, read-only %.2f MiB resident; most non-zero: %s; "
                "scanned in %.0f ms\n",
                mib(p.nonzero, p.page_size), mib(p.resident - p.nonzero, p.page_size),
                mib(p.resident, p.page_size), p.mappings, mib(p.shared_resident, p.page_size),
                mib(p.readonly_resident, p.page_size), p.ntop ? top : "none", scan_ms);
}

/* CPU time by thread name, over the threads alive now. The codec's and the
 * writer's threads start after the freeze and the renderer again after the
 * snapshot, so when hibernating theirs is (nearly) the data phase's; the
 * main thread's is the whole run. */
static void print_thread_cpu(void)
{
        struct dmo_self_thread_cpu by[8];
        unsigned nby = dmo_self_thread_cpu(by, 8);
        char line[512];
        size_t n = 0;
        for (unsigned i = 0; i < nby && n < sizeof(line); i++)
                n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s %.2f s (%u)", i ? ", " : "",
                                      by[i].name, by[i].seconds, by[i].threads);
        if (nby)
                fprintf(stderr,
                        "dormouse: timing: CPU by thread (threads alive now, each since it "
                        "started): %s\n",
                        line);
}

/* Debugging output for developers, deliberately untranslated. */
void dmo_cli_print_profile(void *ctx, const struct dmo_engine_stats *s)
{
        const struct dmo_engine_profile *p = &s->profile;
        (void)ctx;
        if (!p->enabled)
                return;
        print_memory();
        print_thread_cpu();
        /* One line per path that tests/vm/run.py puts in its phase table. */
        if (p->allocs || p->writes)
                fprintf(stderr,
                        "dormouse: timing: phases: freeze %.3f s, snapshot %.3f s, data %.3f s "
                        "(%llu pages, %llu bytes stored)\n",
                        s->freeze_s, s->snapshot_s, s->data_s, (unsigned long long)s->image_pages,
                        (unsigned long long)s->stored_bytes);
        else
                fprintf(stderr,
                        "dormouse: timing: phases: check %.3f s, load %.3f s (%llu pages, %llu "
                        "bytes read)\n",
                        s->check_s, p->image_s + p->kernel_io_s, (unsigned long long)s->image_pages,
                        (unsigned long long)s->stored_bytes);
        if (p->allocs || p->writes)
                fprintf(
                    stderr,
                    "dormouse: timing: data phase %.3f s: reading the kernel %.3f s (%llu calls), "
                    "storing "
                    "%.3f s (%llu slot allocations %.3f s, %llu writes %.3f s, waiting for "
                    "the codec %.3f s, compressor speed %.1f, %llu of %llu chunks stored "
                    "uncompressed); process CPU user %.3f s, system %.3f s; slowest read "
                    "of the kernel %.3f s after %llu pages; %s\n",
                    s->data_s, p->kernel_io_s, (unsigned long long)p->kernel_calls, p->image_s,
                    (unsigned long long)p->allocs, p->alloc_s, (unsigned long long)p->writes,
                    p->write_s, p->codec_wait_s, p->mean_speed,
                    (unsigned long long)p->stored_chunks, (unsigned long long)p->chunks,
                    p->cpu_user_s, p->cpu_sys_s, p->slowest_kernel_call_s,
                    (unsigned long long)p->slowest_kernel_call_after,
                    p->direct_io ? "direct I/O" : "through the page cache");
        else
                fprintf(stderr,
                        "dormouse: timing: load phase: reading and decoding the image %.3f s, "
                        "handing pages to the kernel %.3f s (%llu calls), %llu of %llu chunks "
                        "from the read buffers as they were; process CPU user %.3f s, system "
                        "%.3f s; slowest hand-over %.3f s after %llu pages; %s\n",
                        p->image_s, p->kernel_io_s, (unsigned long long)p->kernel_calls,
                        (unsigned long long)p->stored_chunks, (unsigned long long)p->chunks,
                        p->cpu_user_s, p->cpu_sys_s, p->slowest_kernel_call_s,
                        (unsigned long long)p->slowest_kernel_call_after,
                        p->direct_io ? "direct I/O" : "through the page cache");
}

void dmo_cli_print_stats(const struct dmo_engine_stats *s)
{
        double raw_mb = (double)s->image_pages * (double)s->page_size / 1e6;
        double stored_mb = (double)s->stored_bytes / 1e6;
        fprintf(stderr,
                _("dormouse: image: %llu pages (%.1f MB), stored %.1f MB (ratio %.2f), %llu zero "
                  "pages\n"),
                (unsigned long long)s->image_pages, raw_mb, stored_mb,
                stored_mb > 0 ? raw_mb / stored_mb : 0.0, (unsigned long long)s->zero_pages);
        fprintf(stderr,
                _("dormouse: freeze %.3f s, snapshot %.3f s, write %.3f s (%.0f MB/s), seal %.3f "
                  "s\n"),
                s->freeze_s, s->snapshot_s, s->data_s, s->data_s > 0 ? raw_mb / s->data_s : 0.0,
                s->sync_s);
}

/* Completes "hibernation failed while ..." and "... while %s". */
static const char *const step_text_table[] = {
    [DMO_STEP_NONE] = N_("starting"),
    [DMO_STEP_OPEN_DEVICE] = N_("opening the resume device"),
    [DMO_STEP_SWAP_HEADER] = N_("reading the swap header (is it a swap area made by mkswap?)"),
    [DMO_STEP_SET_SWAP_AREA] =
        N_("telling the kernel which swap area to use (is swap enabled on it?)"),
    [DMO_STEP_ALLOCATE] = N_("reserving memory and swap space"),
    [DMO_STEP_FREEZE] = N_("stopping programs"),
    [DMO_STEP_CREATE_IMAGE] = N_("taking the memory snapshot"),
    [DMO_STEP_READ_KERNEL] = N_("reading the snapshot from the kernel"),
    [DMO_STEP_WRITE_IMAGE] = N_("writing the image to swap"),
    [DMO_STEP_FINISH_IMAGE] = N_("writing the image header"),
    [DMO_STEP_SIGNATURE] = N_("writing the swap signature"),
    [DMO_STEP_POWER_OFF] = N_("powering off"),
    [DMO_STEP_READ_IMAGE] = N_("reading the image"),
    [DMO_STEP_KERNEL_MISMATCH] = N_("comparing kernels"),
    [DMO_STEP_WRITE_KERNEL] = N_("handing the image to the kernel"),
    [DMO_STEP_RESTORE] = N_("restoring"),
    [DMO_STEP_BOOT_STAGE] = N_("checking that this is an early boot"),
    [DMO_STEP_UNLOCK] = N_("unlocking the encrypted image"),
};
DMO_STRING_TABLE_TO_STRING(static, step_text, enum dmo_step, step_text_table, NULL)

const char *dmo_cli_step_text(int step)
{
        const char *s = step_text((enum dmo_step)step);
        return s ? _(s) : "?";
}

const char *dmo_cli_went_down_text(enum dmo_shutdown how, bool simulated)
{
        if (how == DMO_SHUTDOWN_REBOOT)
                return simulated ? _("the simulated machine now reboots into the image")
                                 : _("rebooting into the image");
        return simulated ? _("the simulated machine is now powered off") : _("powering off");
}
