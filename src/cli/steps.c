/* The engine's results in words: what it was doing when it stopped, the
 * image it wrote, its timing profile. */
#include "cli/cli.h"
#include "engine/engine.h"
#include "util/i18n.h"
#include "util/small_file.h"
#include "util/strtable.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

bool dmo_cli_profiling(void)
{
        return getenv("DORMOUSE_DEBUG_TIMING") != NULL;
}

bool dmo_cli_debug_lock_memory(void)
{
        return getenv("DORMOUSE_DEBUG_LOCK_MEMORY") != NULL;
}

/* A "Field:   123 kB" line of /proc/self/status, in KiB; -1 if absent. */
static long status_field_kib(const char *status, const char *field)
{
        size_t n = strlen(field);
        for (const char *line = status; line && *line; line = strchr(line, '\n')) {
                if (*line == '\n')
                        line++;
                if (strncmp(line, field, n) == 0 && line[n] == ':')
                        return strtol(line + n + 1, NULL, 10);
        }
        return -1;
}

/* /proc/self/FILE read into buf with open() and read(): no allocation
 * (fopen would allocate), as this runs after the snapshot. */
static bool read_proc_self(const char *file, char *buf, size_t len)
{
        char path[64];
        if ((size_t)snprintf(path, sizeof(path), "/proc/self/%s", file) >= sizeof(path))
                return false;
        return dmo_read_small_file(path, buf, len) > 0;
}

/* Locked and resident memory at the end of the data phase. VmLck counts
 * whole locked mappings, reserved but inaccessible ones too (glibc's
 * per-thread malloc arenas reserve 64 MiB each); smaps_rollup's Locked is
 * what is resident and locked. */
static void print_memory(void)
{
        char status[4096], rollup[2048];
        if (!read_proc_self("status", status, sizeof(status)))
                return;
        long resident_locked = -1;
        if (read_proc_self("smaps_rollup", rollup, sizeof(rollup)))
                resident_locked = status_field_kib(rollup, "Locked");
        fprintf(stderr,
                "dormouse: timing: memory at the end of the data phase: locked %ld KiB resident "
                "(smaps Locked), %ld KiB mapped (VmLck), pinned %ld KiB (VmPin), peak resident "
                "%ld KiB (VmHWM)\n",
                resident_locked, status_field_kib(status, "VmLck"),
                status_field_kib(status, "VmPin"), status_field_kib(status, "VmHWM"));
}

/* The user and system time of one thread from its /proc stat line, in
 * seconds, and its name; false when the line does not parse. */
static bool thread_cpu(const char *tid, char name[16], double *seconds)
{
        char path[64], stat[1024];
        snprintf(path, sizeof(path), "task/%s/stat", tid);
        if (!read_proc_self(path, stat, sizeof(stat)))
                return false;
        /* "tid (comm) state ppid ...": comm may hold spaces and brackets. */
        const char *open_ = strchr(stat, '('), *close_ = strrchr(stat, ')');
        if (!open_ || !close_ || close_ < open_)
                return false;
        size_t n = (size_t)(close_ - open_ - 1);
        if (n > 15)
                n = 15;
        memcpy(name, open_ + 1, n);
        name[n] = '\0';
        /* After the comm, as util/timing.c reads it: state is field 3,
         * utime 14, stime 15. */
        unsigned long long user, sys;
        if (sscanf(close_ + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &user,
                   &sys) != 2)
                return false;
        long tick = sysconf(_SC_CLK_TCK);
        *seconds = (double)(user + sys) / (double)(tick > 0 ? tick : 100);
        return true;
}

/* CPU time by thread name, over the threads alive now. The codec's and the
 * writer's threads start after the freeze and the renderer again after the
 * snapshot, so when hibernating theirs is (nearly) the data phase's; the
 * main thread's is the whole run. getdents64 and open/read only: this runs
 * after the snapshot. */
static void print_thread_cpu(void)
{
        enum { MAX_NAMES = 8 };
        struct {
                char name[16];
                double seconds;
                unsigned threads;
        } by[MAX_NAMES];
        unsigned nby = 0;
        int dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0)
                return;
        long self = (long)getpid();
        _Alignas(8) char buf[4096];
        long got;
        while ((got = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
                for (long off = 0; off < got;) {
                        const struct {
                                uint64_t ino;
                                int64_t next;
                                unsigned short reclen;
                                unsigned char type;
                                char name[];
                        } *d = (const void *)(buf + off);
                        off += d->reclen;
                        char name[16];
                        double seconds;
                        if (d->name[0] == '.' || !thread_cpu(d->name, name, &seconds))
                                continue;
                        if (strtol(d->name, NULL, 10) == self)
                                snprintf(name, sizeof(name), "main");
                        unsigned i = 0;
                        while (i < nby && strcmp(by[i].name, name) != 0)
                                i++;
                        if (i == nby) {
                                if (nby == MAX_NAMES)
                                        continue;
                                memcpy(by[i].name, name, sizeof(name));
                                by[i].seconds = 0;
                                by[i].threads = 0;
                                nby++;
                        }
                        by[i].seconds += seconds;
                        by[i].threads++;
                }
        }
        close(dir);
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
