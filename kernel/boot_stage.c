#include "kernel/boot_stage.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel/swap_area.h"
#include "util/cleanup.h"

enum { MAX_SWAPS = 64 };

/* Is this /proc/swaps entry the resume device (or on it)? */
static bool same_area(const struct dmo_swap_entry *e, const struct dmo_swap_target *t)
{
        char a[PATH_MAX], b[PATH_MAX];
        if (realpath(e->path, a) && realpath(t->path, b) && strcmp(a, b) == 0)
                return true;
        struct stat st;
        if (t->dev == 0 || stat(e->path, &st) < 0)
                return false;
        if (S_ISBLK(st.st_mode))
                return st.st_rdev == t->dev;
        /* A swap file on the resume partition: at resume time nothing at
         * all is swapped on yet, so any active file there means a running
         * system. */
        return S_ISREG(st.st_mode) && st.st_dev == t->dev;
}

static int swap_active(const char *proc_dir, const struct dmo_swap_target *t, bool *active)
{
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/swaps", proc_dir);
        _cleanup_free_ struct dmo_swap_entry *e = calloc(MAX_SWAPS, sizeof(*e));
        if (!e)
                return -ENOMEM;
        size_t n = 0;
        int r = dmo_proc_swaps_parse(path, e, MAX_SWAPS, &n);
        if (r == -ENOENT) { /* no swap support, or nothing mounted at /proc yet */
                *active = false;
                return 0;
        }
        if (r < 0)
                return r;
        *active = false;
        for (size_t i = 0; i < n && i < MAX_SWAPS; i++)
                if (same_area(&e[i], t))
                        *active = true;
        return 0;
}

static bool in_memory_fs(const char *type)
{
        return strcmp(type, "rootfs") == 0 || strcmp(type, "ramfs") == 0 ||
               strcmp(type, "tmpfs") == 0;
}

/* The last mount on "/" wins, as in the kernel's mount table. */
static int root_rw_on_disk(const char *proc_dir, bool *rw_disk)
{
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/mounts", proc_dir);
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return -errno;
        char line[1024];
        bool found = false;
        while (fgets(line, sizeof(line), f)) {
                char dev[256], mnt[256], type[64], opts[512];
                if (sscanf(line, "%255s %255s %63s %511s", dev, mnt, type, opts) != 4)
                        continue;
                if (strcmp(mnt, "/") != 0)
                        continue;
                found = true;
                bool rw = strncmp(opts, "rw", 2) == 0 && (opts[2] == ',' || opts[2] == '\0');
                *rw_disk = rw && !in_memory_fs(type);
        }
        if (!found)
                *rw_disk = false;
        return 0;
}

int dmo_boot_stage_check(const char *proc_dir, const struct dmo_swap_target *t,
                         enum dmo_live_reason *reason)
{
        *reason = DMO_LIVE_NONE;
        bool active = false, rw_disk = false;
        int r = swap_active(proc_dir, t, &active);
        if (r < 0)
                return r;
        if (active) {
                *reason = DMO_LIVE_SWAP_ACTIVE;
                return -EBUSY;
        }
        r = root_rw_on_disk(proc_dir, &rw_disk);
        if (r < 0)
                return r;
        if (rw_disk) {
                *reason = DMO_LIVE_ROOT_RW;
                return -EBUSY;
        }
        return 0;
}
