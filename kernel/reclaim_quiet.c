#include "kernel/reclaim_quiet.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/small_file.h"

static const char *const knob_names[DMO_RECLAIM_KNOBS] = {"watermark_boost_factor",
                                                          "compaction_proactiveness"};

/* DIR/NAME into path; -ENAMETOOLONG where it does not fit. */
static int knob_path(const char *dir, const char *name, char *path, size_t len)
{
        int n = snprintf(path, len, "%s/%s", dir, name);
        return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

int dmo_reclaim_quiet_begin(struct dmo_reclaim_quiet *q, const char *dir)
{
        char path[256];
        memset(q, 0, sizeof(*q));
        q->dir = dir;
        int changed = 0;
        for (int i = 0; i < DMO_RECLAIM_KNOBS; i++) {
                if (knob_path(dir, knob_names[i], path, sizeof(path)) < 0 ||
                    dmo_read_small_file(path, q->knob[i].old, sizeof(q->knob[i].old)) <= 0)
                        continue;
                q->knob[i].old[strcspn(q->knob[i].old, "\n")] = '\0';
                if (strcmp(q->knob[i].old, "0") == 0)
                        continue;
                if (dmo_write_small_file(path, "0") == 0) {
                        q->knob[i].changed = true;
                        changed++;
                }
        }
        /* Boosts made before now (cryptsetup's Argon2id takes half the
         * memory before dormouse starts) stay until kswapd works them off:
         * the factor at 0 only stops new ones. Writing watermark_scale_factor,
         * even its own value, recomputes the watermarks and sets every
         * zone's boost to 0 (mm/page_alloc.c, __setup_per_zone_wmarks). */
        char scale[32];
        if (knob_path(dir, "watermark_scale_factor", path, sizeof(path)) == 0 &&
            dmo_read_small_file(path, scale, sizeof(scale)) > 0) {
                scale[strcspn(scale, "\n")] = '\0';
                (void)dmo_write_small_file(path, scale);
        }
        return changed;
}

void dmo_reclaim_quiet_end(struct dmo_reclaim_quiet *q)
{
        for (int i = 0; i < DMO_RECLAIM_KNOBS; i++) {
                char path[256];
                if (!q->knob[i].changed || knob_path(q->dir, knob_names[i], path, sizeof(path)) < 0)
                        continue;
                /* Nothing better to do where it fails: the boot goes on with
                 * a quieter memory manager. */
                (void)dmo_write_small_file(path, q->knob[i].old);
                q->knob[i].changed = false;
        }
}
