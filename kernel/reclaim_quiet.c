#include "kernel/reclaim_quiet.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/small_file.h"

static const char *const knob_names[DMO_RECLAIM_KNOBS] = {"watermark_boost_factor",
                                                          "compaction_proactiveness"};

static int knob_path(const struct dmo_reclaim_quiet *q, int i, char *path, size_t len)
{
        int n = snprintf(path, len, "%s/%s", q->dir, knob_names[i]);
        return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

static int write_knob(const char *path, const char *value)
{
        int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        size_t len = strlen(value);
        ssize_t n = write(fd, value, len);
        int r = n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        return r;
}

int dmo_reclaim_quiet_begin(struct dmo_reclaim_quiet *q, const char *dir)
{
        memset(q, 0, sizeof(*q));
        q->dir = dir;
        int changed = 0;
        for (int i = 0; i < DMO_RECLAIM_KNOBS; i++) {
                char path[256];
                if (knob_path(q, i, path, sizeof(path)) < 0)
                        continue;
                ssize_t n = dmo_read_small_file(path, q->knob[i].old, sizeof(q->knob[i].old));
                if (n <= 0)
                        continue;
                q->knob[i].old[strcspn(q->knob[i].old, "\n")] = '\0';
                if (strcmp(q->knob[i].old, "0") == 0)
                        continue;
                if (write_knob(path, "0") == 0) {
                        q->knob[i].changed = true;
                        changed++;
                }
        }
        /* Boosts made before now (cryptsetup's Argon2id takes half the
         * memory before dormouse starts) stay until kswapd works them off:
         * the factor at 0 only stops new ones. Writing watermark_scale_factor,
         * even its own value, recomputes the watermarks and sets every
         * zone's boost to 0 (mm/page_alloc.c, __setup_per_zone_wmarks). */
        char path[256], scale[32];
        int n = snprintf(path, sizeof(path), "%s/watermark_scale_factor", dir);
        if (n > 0 && (size_t)n < sizeof(path) &&
            dmo_read_small_file(path, scale, sizeof(scale)) > 0) {
                scale[strcspn(scale, "\n")] = '\0';
                (void)write_knob(path, scale);
        }
        return changed;
}

void dmo_reclaim_quiet_end(struct dmo_reclaim_quiet *q)
{
        for (int i = 0; i < DMO_RECLAIM_KNOBS; i++) {
                char path[256];
                if (!q->knob[i].changed || knob_path(q, i, path, sizeof(path)) < 0)
                        continue;
                (void)write_knob(path, q->knob[i].old);
                q->knob[i].changed = false;
        }
}
