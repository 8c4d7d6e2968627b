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
