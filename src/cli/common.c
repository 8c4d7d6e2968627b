/* What hibernate and resume share: the common options and the config file. */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel/faults.h"
#include "splash/session.h"
#include "util/i18n.h"
#include "util/parse.h"
#include "util/strtable.h"

static const char default_config_path[] = DMO_SYSCONFDIR "/dormouse.conf";

void dmo_cli_common_init(struct dmo_cli_common *c)
{
        memset(c, 0, sizeof(*c));
        c->config_path = default_config_path;
        c->resume_offset = -1;
        c->sim_size = 256ull << 20;
        c->sim_seed = 1;
        dmo_config_init(&c->config);
}

int dmo_cli_parse_number(const char *option, const char *arg, uint64_t min, uint64_t max,
                         uint64_t *out)
{
        int r = dmo_parse_u64_range(arg, min, max, out);
        if (r == -ERANGE)
                dmo_cli_error(_("%s: %s is out of range; give a whole number from %llu to %llu"),
                              option, arg, (unsigned long long)min, (unsigned long long)max);
        else if (r < 0)
                dmo_cli_error(_("%s: \"%s\" is not a whole number; give one from %llu to %llu"),
                              option, arg, (unsigned long long)min, (unsigned long long)max);
        return r < 0 ? -EINVAL : 0;
}

/* A size the way a person writes one: 65536 → "64K", 1 << 30 → "1G". */
static void human_size(uint64_t v, char *buf, size_t len)
{
        static const char units[] = "KMGT";
        int u = -1;
        while (u < 3 && v >= 1024 && v % 1024 == 0) {
                v /= 1024;
                u++;
        }
        if (u < 0)
                snprintf(buf, len, "%llu", (unsigned long long)v);
        else
                snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
}

int dmo_cli_parse_size(const char *option, const char *arg, uint64_t min, uint64_t max,
                       uint64_t *out)
{
        uint64_t v;
        int r = dmo_parse_size(arg, &v);
        if (r == -EINVAL) {
                dmo_cli_error(_("%s: \"%s\" is not a size; give bytes, or a number with K, M, G "
                                "or T (e.g. 4096, 256M, 1.5G)"),
                              option, arg);
                return -EINVAL;
        }
        char lo[32], hi[32];
        human_size(min, lo, sizeof(lo));
        human_size(max, hi, sizeof(hi));
        if (r == 0 && v < min) {
                dmo_cli_error(_("%s: %s is too small; give a size from %s to %s"), option, arg, lo,
                              hi);
                return -EINVAL;
        }
        if (r < 0 || v > max) {
                dmo_cli_error(_("%s: %s is too large; give a size from %s to %s"), option, arg, lo,
                              hi);
                return -EINVAL;
        }
        *out = v;
        return 0;
}

/* --kernel: the real kernel's /dev/snapshot, or the simulated kernel. */
enum kernel_kind { KERNEL_SNAPSHOT, KERNEL_SIM };
static const char *const kernel_kind_table[] = {
    [KERNEL_SNAPSHOT] = "snapshot",
    [KERNEL_SIM] = "sim",
};
DMO_DEFINE_STRING_TABLE_LOOKUP(static, kernel_kind, enum kernel_kind)

static int parse_kernel(struct dmo_cli_common *c, const char *arg)
{
        enum kernel_kind k;
        if (kernel_kind_from_string(arg, &k) < 0) {
                dmo_cli_error(_("--kernel: \"%s\" is unknown; use \"snapshot\" (the real "
                                "kernel, default) or \"sim\" (the simulated kernel)"),
                              arg);
                return -EINVAL;
        }
        c->simulated = k == KERNEL_SIM;
        return 1;
}

/* The options that take a number: where it goes, its range. */
static int parse_numeric(struct dmo_cli_common *c, int opt, const char *arg)
{
        uint64_t v;
        int r = -ENOENT;
        switch (opt) {
        case OPT_RESUME_OFFSET:
                r = dmo_cli_parse_number("--resume-offset", arg, 0, INT64_MAX / 65536, &v);
                if (r == 0)
                        c->resume_offset = (int64_t)v;
                break;
        case OPT_SIM_SIZE:
                /* At least two pages; at most what a test machine holds. */
                r = dmo_cli_parse_size("--sim-size", arg, 8ull << 10, 64ull << 30, &v);
                if (r == 0)
                        c->sim_size = v;
                break;
        case OPT_SIM_SEED:
                r = dmo_cli_parse_number("--sim-seed", arg, 0, UINT64_MAX, &c->sim_seed);
                break;
        case OPT_THREADS:
                r = dmo_cli_parse_number("--threads", arg, 0, 256, &v);
                if (r == 0)
                        c->threads = (unsigned)v;
                break;
        case OPT_STEP_DELAY:
                r = dmo_cli_parse_number("--debug-step-delay", arg, 0, 10000, &v);
                if (r == 0)
                        c->step_delay_ms = (unsigned)v;
                break;
        }
        return r == -ENOENT ? 0 : r < 0 ? r : 1;
}

int dmo_cli_common_option(struct dmo_cli_common *c, int opt, const char *arg)
{
        switch (opt) {
        case OPT_CONFIG:
                c->config_path = arg;
                c->config_path_given = true;
                return 1;
        case OPT_RESUME_DEVICE:
                c->resume_device = arg;
                return 1;
        case OPT_CMDLINE:
                c->cmdline_path = arg;
                return 1;
        case OPT_KERNEL:
                return parse_kernel(c, arg);
        case OPT_SIM_FAULT:
                c->sim_faults = arg;
                return 1;
        case OPT_SIM_RELEASE:
                c->sim_release = arg;
                return 1;
        case OPT_EFIVARS:
                c->efivars_dir = arg;
                return 1;
        case OPT_SIM_PROC:
                c->sim_proc = arg;
                return 1;
        case OPT_SPLASH:
                if (!dmo_splash_spec_known(arg)) {
                        dmo_cli_error(_("--splash: \"%s\" is unknown; use kms, fbdev, text, "
                                        "png:DIR or none"),
                                      arg);
                        return -EINVAL;
                }
                c->splash = arg;
                return 1;
        case OPT_THEME:
                c->theme = arg;
                return 1;
        }
        return parse_numeric(c, opt, arg);
}

static void print_note(const char *path, const struct dmo_config_note *n)
{
        char text[256] = "";
        switch (n->kind) {
        case DMO_NOTE_UNKNOWN_KEY:
                snprintf(text, sizeof(text),
                         _("unknown key \"%s\", skipped (see doc/config.md for the keys)"), n->key);
                break;
        case DMO_NOTE_IGNORED_KEY:
                snprintf(text, sizeof(text),
                         _("\"%s\" is a suspend-utils key that dormouse ignores"), n->key);
                break;
        case DMO_NOTE_BAD_VALUE:
                snprintf(text, sizeof(text), _("\"%s\": value \"%s\" not understood, default kept"),
                         n->key, n->value);
                break;
        case DMO_NOTE_SYNTAX:
                snprintf(text, sizeof(text),
                         _("\"%s\" is not of the form \"key = value\", skipped"), n->key);
                break;
        }
        dmo_cli_note("%s:%u: %s", path, n->line, text);
}

int dmo_cli_common_finish(struct dmo_cli_common *c)
{
        struct dmo_config_notes notes = {0};
        int r = dmo_config_load(&c->config, c->config_path, &notes);
        if (r == -ENOENT && !c->config_path_given) {
                /* no /etc/dormouse.conf: defaults */
        } else if (r < 0) {
                dmo_cli_error(_("cannot read the config file %s: %s"), c->config_path,
                              strerror(-r));
                return -EINVAL;
        }
        for (unsigned i = 0; i < notes.count; i++)
                print_note(c->config_path, &notes.note[i]);
        if (!c->threads)
                c->threads = c->config.threads;
        if (!c->splash && c->config.splash[0])
                c->splash = c->config.splash;
        if (!c->theme && c->config.theme[0])
                c->theme = c->config.theme;
        /* Frames as files would be written after the snapshot, on file
         * systems the image expects unchanged. */
        if (!c->simulated && dmo_splash_spec_writes_files(c->splash)) {
                dmo_cli_error(_("--splash png:DIR writes files while the system is frozen; it "
                                "works only with --kernel sim. Use kms, fbdev or text"));
                return -EINVAL;
        }
        return 0;
}

void dmo_cli_common_release(struct dmo_cli_common *c)
{
        dmo_fault_plan_free(c->fault_plan);
        c->fault_plan = NULL;
}
