#include "kernel/faults.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/strtable.h"

struct dmo_fault_plan {
        bool has_enospc, has_eio_write, has_eio_read, has_readonly, has_eio_sync, has_shrink;
        uint64_t enospc_after, eio_write_at, eio_read_at, readonly_from, eio_sync_at, shrink_to;
        bool short_write, short_read, shutdown_fails;
        uint32_t crash_mask;
};

static const char *const checkpoint_names[DMO_CP_COUNT] = {
    [DMO_CP_OPENED] = "opened",
    [DMO_CP_FROZEN] = "frozen",
    [DMO_CP_IMAGE_CREATED] = "image-created",
    [DMO_CP_DATA_HALF_WRITTEN] = "data-half-written",
    [DMO_CP_DATA_WRITTEN] = "data-written",
    [DMO_CP_HEADER_WRITTEN] = "header-written",
    [DMO_CP_SIGNATURE_WRITTEN] = "signature-written",
    [DMO_CP_RESUME_LOADED] = "resume-loaded",
    [DMO_CP_SIGNATURE_REMOVED] = "signature-removed",
};

DMO_STRING_TABLE_TO_STRING(, dmo_checkpoint_name, enum dmo_checkpoint, checkpoint_names, NULL)
DMO_STRING_TABLE_FROM_STRING(, dmo_checkpoint_parse, enum dmo_checkpoint, checkpoint_names)

/* Plain decimal only: no sign, no spaces, no hex, no overflow. */
static int parse_count(const char *s, uint64_t *out)
{
        uint64_t v = 0;
        if (!*s)
                return -EINVAL;
        for (; *s; s++) {
                if (*s < '0' || *s > '9')
                        return -EINVAL;
                unsigned d = (unsigned)(*s - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -EINVAL;
                v = v * 10 + d;
        }
        *out = v;
        return 0;
}

static int set_counter(bool *has, uint64_t *slot, const char *arg, uint64_t min)
{
        uint64_t v;
        if (*has || parse_count(arg, &v) < 0 || v < min)
                return -EINVAL;
        *has = true;
        *slot = v;
        return 0;
}

static int parse_item(struct dmo_fault_plan *p, char *item)
{
        char *at = strchr(item, '@');
        const char *arg = NULL;
        if (at) {
                *at = '\0';
                arg = at + 1;
        }
        if (strcmp(item, "short-write") == 0 && !arg) {
                p->short_write = true;
                return 0;
        }
        if (strcmp(item, "short-read") == 0 && !arg) {
                p->short_read = true;
                return 0;
        }
        if (strcmp(item, "shutdown-fails") == 0 && !arg) {
                p->shutdown_fails = true;
                return 0;
        }
        if (!arg)
                return -EINVAL;
        if (strcmp(item, "enospc") == 0)
                return set_counter(&p->has_enospc, &p->enospc_after, arg, 0);
        /* The N-th call is 1-based: "@0" would name a call that never happens. */
        if (strcmp(item, "eio-write") == 0)
                return set_counter(&p->has_eio_write, &p->eio_write_at, arg, 1);
        if (strcmp(item, "eio-read") == 0)
                return set_counter(&p->has_eio_read, &p->eio_read_at, arg, 1);
        if (strcmp(item, "eio-sync") == 0)
                return set_counter(&p->has_eio_sync, &p->eio_sync_at, arg, 1);
        if (strcmp(item, "readonly") == 0)
                return set_counter(&p->has_readonly, &p->readonly_from, arg, 1);
        if (strcmp(item, "shrink") == 0)
                return set_counter(&p->has_shrink, &p->shrink_to, arg, 0);
        if (strcmp(item, "crash") == 0) {
                enum dmo_checkpoint cp;
                if (dmo_checkpoint_parse(arg, &cp) < 0)
                        return -EINVAL;
                p->crash_mask |= 1u << cp;
                return 0;
        }
        return -EINVAL;
}

int dmo_fault_plan_parse(const char *spec, struct dmo_fault_plan **out)
{
        if (!spec || !out)
                return -EINVAL;
        size_t len = strnlen(spec, DMO_FAULT_SPEC_MAX + 1);
        if (len > DMO_FAULT_SPEC_MAX)
                return -EINVAL;

        _cleanup_free_ struct dmo_fault_plan *p = calloc(1, sizeof(*p));
        _cleanup_free_ char *copy = strdup(spec);
        if (!p || !copy)
                return -ENOMEM;

        if (len > 0) {
                char *cur = copy;
                for (;;) {
                        char *comma = strchr(cur, ',');
                        if (comma)
                                *comma = '\0';
                        if (parse_item(p, cur) < 0)
                                return -EINVAL;
                        if (!comma)
                                break;
                        cur = comma + 1;
                }
        }
        *out = dmo_steal_ptr(p);
        return 0;
}

void dmo_fault_plan_free(struct dmo_fault_plan *p)
{
        free(p);
}

bool dmo_fault_enospc_after(const struct dmo_fault_plan *p, uint64_t *n)
{
        if (!p || !p->has_enospc)
                return false;
        *n = p->enospc_after;
        return true;
}

bool dmo_fault_eio_write_at(const struct dmo_fault_plan *p, uint64_t *n)
{
        if (!p || !p->has_eio_write)
                return false;
        *n = p->eio_write_at;
        return true;
}

bool dmo_fault_eio_read_at(const struct dmo_fault_plan *p, uint64_t *n)
{
        if (!p || !p->has_eio_read)
                return false;
        *n = p->eio_read_at;
        return true;
}

bool dmo_fault_readonly_from(const struct dmo_fault_plan *p, uint64_t *n)
{
        if (!p || !p->has_readonly)
                return false;
        *n = p->readonly_from;
        return true;
}

bool dmo_fault_eio_sync_at(const struct dmo_fault_plan *p, uint64_t *n)
{
        if (!p || !p->has_eio_sync)
                return false;
        *n = p->eio_sync_at;
        return true;
}

bool dmo_fault_shutdown_fails(const struct dmo_fault_plan *p)
{
        return p && p->shutdown_fails;
}

bool dmo_fault_short_write(const struct dmo_fault_plan *p)
{
        return p && p->short_write;
}

bool dmo_fault_shrink_to(const struct dmo_fault_plan *p, uint64_t *n)
{
        if (!p || !p->has_shrink)
                return false;
        *n = p->shrink_to;
        return true;
}

bool dmo_fault_short_read(const struct dmo_fault_plan *p)
{
        return p && p->short_read;
}

bool dmo_fault_crash_at(const struct dmo_fault_plan *p, enum dmo_checkpoint cp)
{
        return p && (unsigned)cp < DMO_CP_COUNT && (p->crash_mask & (1u << cp));
}
