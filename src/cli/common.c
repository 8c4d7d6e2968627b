#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "engine/engine.h"
#include "kernel/cmdline.h"
#include "kernel/faults.h"
#include "kernel/sim_kernel.h"
#include "kernel/snapshot_dev.h"
#include "kernel/swap_area.h"
#include "util/cleanup.h"
#include "util/i18n.h"

static const char default_config_path[] = DMO_SYSCONFDIR "/dormouse.conf";
static const int default_resume_timeout_ms = 5000;

void dmo_cli_error(const char *fmt, ...)
{
        va_list ap;
        fputs("dormouse: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
}

void dmo_cli_note(const char *fmt, ...)
{
        va_list ap;
        fputs("dormouse: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
}

void dmo_cli_common_init(struct dmo_cli_common *c)
{
        memset(c, 0, sizeof(*c));
        c->config_path = default_config_path;
        c->resume_offset = -1;
        c->sim_size = 256ull << 20;
        c->sim_seed = 1;
        dmo_config_init(&c->config);
}

static int parse_u64(const char *what, const char *arg, uint64_t max, uint64_t *out)
{
        char *end;
        errno = 0;
        unsigned long long v = strtoull(arg, &end, 0);
        if (!*arg || *end || errno || v > max || arg[0] == '-') {
                dmo_cli_error(_("%s: \"%s\" is not a number between 0 and %llu"), what, arg,
                              (unsigned long long)max);
                return -EINVAL;
        }
        *out = v;
        return 0;
}

int dmo_cli_common_option(struct dmo_cli_common *c, int opt, const char *arg)
{
        uint64_t v;
        switch (opt) {
        case OPT_CONFIG:
                c->config_path = arg;
                c->config_path_given = true;
                return 1;
        case OPT_RESUME_DEVICE:
                c->resume_device = arg;
                return 1;
        case OPT_RESUME_OFFSET:
                if (parse_u64("--resume-offset", arg, INT64_MAX / 65536, &v) < 0)
                        return -EINVAL;
                c->resume_offset = (int64_t)v;
                return 1;
        case OPT_CMDLINE:
                c->cmdline_path = arg;
                return 1;
        case OPT_KERNEL:
                if (strcmp(arg, "sim") == 0)
                        c->simulated = true;
                else if (strcmp(arg, "snapshot") == 0)
                        c->simulated = false;
                else {
                        dmo_cli_error(_("--kernel: \"%s\" is unknown; use \"snapshot\" (the real "
                                        "kernel, default) or \"sim\" (the simulated kernel)"),
                                      arg);
                        return -EINVAL;
                }
                return 1;
        case OPT_SIM_SIZE:
                if (dmo_parse_size(arg, &v) < 0 || v == 0) {
                        dmo_cli_error(_("--sim-size: \"%s\" is not a size (e.g. 4096, 256M, 1G)"),
                                      arg);
                        return -EINVAL;
                }
                c->sim_size = v;
                return 1;
        case OPT_SIM_SEED:
                if (parse_u64("--sim-seed", arg, UINT64_MAX, &v) < 0)
                        return -EINVAL;
                c->sim_seed = v;
                return 1;
        case OPT_SIM_FAULT:
                c->sim_faults = arg;
                return 1;
        case OPT_SIM_RELEASE:
                c->sim_release = arg;
                return 1;
        case OPT_SIM_PROC:
                c->sim_proc = arg;
                return 1;
        case OPT_SPLASH:
                c->splash = arg;
                return 1;
        case OPT_THEME:
                c->theme = arg;
                return 1;
        case OPT_THREADS:
                if (parse_u64("--threads", arg, 256, &v) < 0)
                        return -EINVAL;
                c->threads = (unsigned)v;
                return 1;
        case OPT_STEP_DELAY:
                if (parse_u64("--debug-step-delay", arg, 10000, &v) < 0)
                        return -EINVAL;
                c->step_delay_ms = (unsigned)v;
                return 1;
        }
        return 0;
}

static const char *note_text(enum dmo_config_note_kind kind)
{
        switch (kind) {
        case DMO_NOTE_UNKNOWN_KEY:
                return _("unknown key \"%s\", skipped (see doc/config.md for the keys)");
        case DMO_NOTE_IGNORED_KEY:
                return _("\"%s\" is a suspend-utils key that dormouse ignores");
        case DMO_NOTE_BAD_VALUE:
                return _("\"%s\": value \"%s\" not understood, default kept");
        case DMO_NOTE_SYNTAX:
                return _("\"%s\" is not of the form \"key = value\", skipped");
        }
        return "%s";
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
                return DMO_EXIT_USAGE;
        }
        for (unsigned i = 0; i < notes.count; i++) {
                const struct dmo_config_note *n = &notes.note[i];
                char text[256];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
                snprintf(text, sizeof(text), note_text(n->kind), n->key, n->value);
#pragma GCC diagnostic pop
                dmo_cli_note("%s:%u: %s", c->config_path, n->line, text);
        }
        if (!c->threads)
                c->threads = c->config.threads;
        if (!c->splash && c->config.splash[0])
                c->splash = c->config.splash;
        if (!c->theme && c->config.theme[0])
                c->theme = c->config.theme;
        return 0;
}

int dmo_cli_open_kernel(struct dmo_cli_common *c, enum dmo_snapshot_mode mode,
                        struct dmo_snapshot **out)
{
        int r;
        if (c->simulated) {
                struct dmo_fault_plan *plan = NULL;
                if (c->sim_faults) {
                        r = dmo_fault_plan_parse(c->sim_faults, &plan);
                        if (r < 0) {
                                dmo_cli_error(_("--sim-fault: \"%s\" is not a fault plan (e.g. "
                                                "enospc@100,crash@data-written)"),
                                              c->sim_faults);
                                return r;
                        }
                }
                struct dmo_sim_params p = {
                    .size_bytes = c->sim_size,
                    .seed = c->sim_seed,
                    .faults = plan,
                    .release_override = c->sim_release,
                    .proc_dir = c->sim_proc,
                };
                r = dmo_sim_kernel_new(&p, mode, out);
                if (r < 0) {
                        dmo_fault_plan_free(plan);
                        dmo_cli_error(_("cannot start the simulated kernel: %s"), strerror(-r));
                        return r;
                }
                c->fault_plan = plan; /* the simulated kernel borrows it */
                return r;
        }
        r = dmo_snapshot_open_dev("/dev/snapshot", mode, out);
        if (r == -ENOENT)
                dmo_cli_error(
                    _("/dev/snapshot does not exist: this kernel was built without "
                      "CONFIG_HIBERNATION_SNAPSHOT_DEV, so userland hibernation is not "
                      "possible; use the kernel's own hibernation (systemctl hibernate)"));
        else if (r == -EPERM || r == -EACCES) {
                char detail[64] = "";
                switch (dmo_hibernation_disabled_reason("/", detail, sizeof(detail))) {
                case DMO_HIB_NOT_PRIVILEGED:
                        dmo_cli_error(_("/dev/snapshot: permission denied; run dormouse as root "
                                        "(systemctl hibernate does this for you)"));
                        break;
                case DMO_HIB_LOCKDOWN:
                        dmo_cli_error(_("/dev/snapshot: the kernel is locked down (%s), which "
                                        "forbids hibernation; this is what Secure Boot does. "
                                        "Turn Secure Boot off, or use suspend to RAM"),
                                      detail);
                        break;
                case DMO_HIB_DISABLED:
                        dmo_cli_error(_("/dev/snapshot: hibernation is disabled on the kernel "
                                        "command line (nohibernate or hibernate=no); remove it "
                                        "and reboot"));
                        break;
                case DMO_HIB_NOT_BUILT:
                        dmo_cli_error(_("this kernel was built without hibernation support "
                                        "(CONFIG_HIBERNATION)"));
                        break;
                default:
                        dmo_cli_error(_("/dev/snapshot: the kernel refused hibernation (secret "
                                        "memory or CXL memory in use, or a security module)"));
                        break;
                }
        } else if (r == -EBUSY)
                dmo_cli_error(_("/dev/snapshot is busy: another hibernation is in progress"));
        else if (r < 0)
                dmo_cli_error(_("/dev/snapshot: %s"), strerror(-r));
        return r;
}

void dmo_cli_common_release(struct dmo_cli_common *c)
{
        dmo_fault_plan_free(c->fault_plan);
        c->fault_plan = NULL;
}

static int read_cmdline(const struct dmo_cli_common *c, struct dmo_cmdline *cl)
{
        const char *path = c->cmdline_path ? c->cmdline_path : "/proc/cmdline";
        char line[DMO_CMDLINE_MAX];
        FILE *f = fopen(path, "re");
        memset(cl, 0, sizeof(*cl));
        if (!f) {
                if (!c->cmdline_path && errno == ENOENT)
                        return 0;
                dmo_cli_error(_("cannot read the kernel command line %s: %s"), path,
                              strerror(errno));
                return -errno;
        }
        size_t n = fread(line, 1, sizeof(line) - 1, f);
        fclose(f);
        line[n] = '\0';
        int r = dmo_cmdline_parse(line, cl);
        if (r == -EINVAL)
                dmo_cli_note(_("%s: the value of %s is not valid, ignored"), path, cl->bad_param);
        return 0;
}

int dmo_cli_swap_target(const struct dmo_cli_common *c, bool wait, struct dmo_swap_target *t,
                        char *path_buf, size_t path_len, bool *noresume)
{
        struct dmo_cmdline cl;
        const char *spec = c->resume_device;
        int64_t offset = c->resume_offset;
        int r;

        memset(t, 0, sizeof(*t));
        if (read_cmdline(c, &cl) < 0)
                return DMO_EXIT_USAGE;
        if (noresume)
                *noresume = cl.noresume || cl.nohibernate;
        if (!spec && c->config.resume_device[0])
                spec = c->config.resume_device;
        if (!spec && cl.resume[0])
                spec = cl.resume;
        if (offset < 0 && c->config.resume_offset >= 0)
                offset = c->config.resume_offset;
        if (offset < 0 && cl.has_resume_offset)
                offset = (int64_t)cl.resume_offset;
        if (!spec) {
                dmo_cli_error(_("no resume device: give --resume-device, set \"resume device\" "
                                "in %s, or put resume= on the kernel command line"),
                              c->config_path);
                return DMO_EXIT_USAGE;
        }

        struct stat direct;
        if (spec == c->resume_device && stat(spec, &direct) == 0) {
                /* A path given on the command line is taken as it is. */
                snprintf(path_buf, path_len, "%s", spec);
                r = 0;
        } else if (wait) {
                int timeout = c->config.resume_timeout_ms >= 0 ? c->config.resume_timeout_ms
                                                               : default_resume_timeout_ms;
                r = dmo_resume_device_wait(spec, "/dev", "/sys", (unsigned)timeout, path_buf,
                                           path_len);
        } else {
                r = dmo_resume_device_resolve(spec, "/dev", "/sys", path_buf, path_len);
        }
        if (r == -ETIMEDOUT || r == -ENOENT) {
                dmo_cli_error(_("resume device %s not found%s; check resume= or \"resume "
                                "device\""),
                              spec, wait ? _(" (waited for it)") : "");
                return wait ? DMO_EXIT_NO_IMAGE : DMO_EXIT_USAGE;
        }
        if (r < 0) {
                dmo_cli_error(_("resume device \"%s\": %s"), spec, strerror(-r));
                return DMO_EXIT_USAGE;
        }

        struct stat st;
        if (stat(path_buf, &st) < 0) {
                dmo_cli_error(_("resume device %s: %s"), path_buf, strerror(errno));
                return DMO_EXIT_USAGE;
        }
        t->path = path_buf;
        t->header_page = offset > 0 ? (uint64_t)offset : 0;
        if (S_ISBLK(st.st_mode)) {
                t->dev = st.st_rdev;
        } else if (S_ISREG(st.st_mode) && !c->simulated) {
                /* A swap file: the kernel wants the partition and the file's
                 * first physical page; we write through the partition. */
                uint64_t first_page;
                dev_t backing;
                r = dmo_swapfile_resume_offset(path_buf, &first_page, &backing);
                if (r < 0) {
                        dmo_cli_error(_("%s: cannot map the swap file onto its disk (%s); use a "
                                        "swap partition, or give the partition and "
                                        "--resume-offset"),
                                      path_buf, strerror(-r));
                        return DMO_EXIT_USAGE;
                }
                char majmin[32];
                snprintf(majmin, sizeof(majmin), "%u:%u", major(backing), minor(backing));
                r = dmo_resume_device_resolve(majmin, "/dev", "/sys", path_buf, path_len);
                if (r < 0) {
                        dmo_cli_error(_("%s: the disk %s holding it has no device node"), path_buf,
                                      majmin);
                        return DMO_EXIT_USAGE;
                }
                t->path = path_buf;
                t->dev = backing;
                t->header_page = first_page;
        } else if (!S_ISREG(st.st_mode)) {
                dmo_cli_error(_("resume device %s is neither a block device nor a file"), path_buf);
                return DMO_EXIT_USAGE;
        }
        return 0;
}
