#include "util/self_memory.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/small_file.h"

int dmo_self_resident_bytes(uint64_t *bytes)
{
        int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        char buf[128];
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        int err = errno;
        close(fd);
        if (n < 0)
                return -err;
        buf[n] = '\0';
        /* "size resident shared text lib data dt", in pages */
        uint64_t size, resident;
        if (sscanf(buf, "%" SCNu64 " %" SCNu64, &size, &resident) != 2)
                return -EINVAL;
        long ps = sysconf(_SC_PAGESIZE);
        if (ps <= 0)
                return -EINVAL;
        *bytes = resident * (uint64_t)ps;
        return 0;
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

/* /proc/self/FILE read into buf with open() and read(): no allocation. */
static bool read_proc_self(const char *file, char *buf, size_t len)
{
        char path[64];
        if ((size_t)snprintf(path, sizeof(path), "/proc/self/%s", file) >= sizeof(path))
                return false;
        return dmo_read_small_file(path, buf, len) > 0;
}

int dmo_self_locked_memory(struct dmo_self_locked *out)
{
        char status[4096], rollup[2048];
        if (!read_proc_self("status", status, sizeof(status)))
                return -ENOENT;
        out->resident_locked = -1;
        if (read_proc_self("smaps_rollup", rollup, sizeof(rollup)))
                out->resident_locked = status_field_kib(rollup, "Locked");
        out->mapped_locked = status_field_kib(status, "VmLck");
        out->pinned = status_field_kib(status, "VmPin");
        out->peak_resident = status_field_kib(status, "VmHWM");
        return 0;
}

static const uint64_t HUGE_MAPPING = 1ull << 40;

/* One line of /proc/self/maps: "start-end perms offset dev inode  path". */
struct map_line {
        uint64_t start, end;
        char perms[5];
        const char *path; /* in the line, "" for an anonymous mapping */
};

static bool parse_map_line(char *line, struct map_line *m)
{
        int path_at = 0;
        unsigned long long start, end;
        if (sscanf(line, "%llx-%llx %4s %*s %*s %*s %n", &start, &end, m->perms, &path_at) < 3)
                return false;
        m->start = start;
        m->end = end;
        m->path = path_at > 0 ? line + path_at : "";
        return true;
}

/* Whether a whole page reads as zeros; read in place, so not through
 * AddressSanitizer's eyes (the heap's red zones are part of the page). */
__attribute__((no_sanitize_address)) static bool page_is_zero(const void *page, size_t len)
{
        typedef uint64_t __attribute__((may_alias)) word;
        const volatile word *w = page;
        for (size_t i = 0; i < len / sizeof(word); i += 4)
                if (w[i] | w[i + 1] | w[i + 2] | w[i + 3])
                        return false;
        return true;
}

/* Counts the resident pages of [start, end) and, when scan, those not all
 * zero. pagemap: bit 63 present (in memory), bit 62 swapped. */
static int count_pages(int pagemap, uint64_t start, uint64_t end, size_t ps, bool scan,
                       uint64_t *resident, uint64_t *nonzero)
{
        uint64_t entries[512];
        for (uint64_t va = start; va < end;) {
                uint64_t n = (end - va) / ps;
                if (n > DMO_ARRAY_SIZE(entries))
                        n = DMO_ARRAY_SIZE(entries);
                ssize_t got = pread(pagemap, entries, n * sizeof(entries[0]),
                                    (off_t)(va / ps * sizeof(entries[0])));
                if (got < 0)
                        return -errno;
                if (got < (ssize_t)sizeof(entries[0]))
                        return -EIO;
                n = (uint64_t)got / sizeof(entries[0]);
                for (uint64_t i = 0; i < n; i++, va += ps) {
                        if (!(entries[i] >> 63 & 1))
                                continue;
                        (*resident)++;
                        if (scan && !page_is_zero((const void *)(uintptr_t)va, ps))
                                (*nonzero)++;
                }
        }
        return 0;
}

static const char *mapping_name(const char *path)
{
        if (!*path)
                return "anon";
        if (*path == '[')
                return path;
        const char *slash = strrchr(path, '/');
        return slash ? slash + 1 : path;
}

/* Keeps the DMO_SELF_TOP_MAPPINGS mappings with the most non-zero pages. */
static void note_top(struct dmo_self_private_pages *out, const struct dmo_self_mapping_pages *m)
{
        unsigned i = out->ntop;
        if (m->nonzero == 0)
                return;
        if (i == DMO_SELF_TOP_MAPPINGS) {
                if (out->top[i - 1].nonzero >= m->nonzero)
                        return;
                i--;
        } else {
                out->ntop++;
        }
        for (; i > 0 && out->top[i - 1].nonzero < m->nonzero; i--)
                out->top[i] = out->top[i - 1];
        out->top[i] = *m;
}

/* One mapping of /proc/self/maps into the totals. */
static int account_mapping(struct dmo_self_private_pages *out, int pagemap, char *line)
{
        struct map_line ml;
        if (!parse_map_line(line, &ml))
                return 0;
        size_t ps = (size_t)out->page_size;
        /* Inaccessible (reserved address space, guard pages), or larger
         * than any buffer of ours (a sanitizer's shadow, whose pagemap
         * alone would take seconds to read): left out. */
        if (strncmp(ml.perms, "---", 3) == 0 || ml.end - ml.start >= HUGE_MAPPING)
                return 0;
        if (ml.perms[1] != 'w') {
                /* Best effort: pagemap has nothing to say about [vsyscall]. */
                count_pages(pagemap, ml.start, ml.end, ps, false, &out->readonly_resident,
                            &(uint64_t){0});
                return 0;
        }
        if (ml.perms[3] != 'p')
                return count_pages(pagemap, ml.start, ml.end, ps, false, &out->shared_resident,
                                   &(uint64_t){0});
        struct dmo_self_mapping_pages m = {.bytes = ml.end - ml.start};
        snprintf(m.name, sizeof(m.name), "%s", mapping_name(ml.path));
        int r =
            count_pages(pagemap, ml.start, ml.end, ps, ml.perms[0] == 'r', &m.resident, &m.nonzero);
        if (r < 0)
                return r;
        out->mappings++;
        out->resident += m.resident;
        out->nonzero += m.nonzero;
        note_top(out, &m);
        return 0;
}

int dmo_self_private_pages(struct dmo_self_private_pages *out)
{
        memset(out, 0, sizeof(*out));
        long ps = sysconf(_SC_PAGESIZE);
        if (ps <= 0)
                return -EINVAL;
        out->page_size = (uint64_t)ps;
        int maps = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
        if (maps < 0)
                return -errno;
        int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
        if (pagemap < 0) {
                int err = -errno;
                close(maps);
                return err;
        }
        /* Whole lines at a time: a path is at most PATH_MAX long. */
        char buf[8192];
        size_t have = 0;
        int r = 0;
        for (;;) {
                ssize_t got = read(maps, buf + have, sizeof(buf) - 1 - have);
                if (got < 0) {
                        r = -errno;
                        break;
                }
                have += (size_t)got;
                buf[have] = '\0';
                char *line = buf, *nl;
                while (r == 0 && (nl = strchr(line, '\n'))) {
                        *nl = '\0';
                        r = account_mapping(out, pagemap, line);
                        line = nl + 1;
                }
                if (r < 0 || got == 0)
                        break;
                have -= (size_t)(line - buf);
                if (have == sizeof(buf) - 1) {
                        r = -ENAMETOOLONG; /* a line longer than any path */
                        break;
                }
                memmove(buf, line, have);
        }
        close(pagemap);
        close(maps);
        return r;
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

/* Adds one thread's time to its name's entry. */
static unsigned add_thread(struct dmo_self_thread_cpu *by, unsigned nby, unsigned max,
                           const char *name, double seconds)
{
        unsigned i = 0;
        while (i < nby && strcmp(by[i].name, name) != 0)
                i++;
        if (i == nby) {
                if (nby == max)
                        return nby;
                snprintf(by[i].name, sizeof(by[i].name), "%s", name);
                by[i].seconds = 0;
                by[i].threads = 0;
                nby++;
        }
        by[i].seconds += seconds;
        by[i].threads++;
        return nby;
}

/* getdents64 rather than opendir: no allocation. */
unsigned dmo_self_thread_cpu(struct dmo_self_thread_cpu *by, unsigned max)
{
        unsigned nby = 0;
        int dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0)
                return 0;
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
                        nby = add_thread(by, nby, max, name, seconds);
                }
        }
        close(dir);
        return nby;
}
