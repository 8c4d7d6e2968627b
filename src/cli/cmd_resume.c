#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/display.h"
#include "engine/engine.h"
#include "util/i18n.h"

static void usage(FILE *f)
{
        fprintf(
            f, "%s",
            _("Usage: dormouse resume [OPTIONS]\n"
              "Restore a hibernated system, if the swap area holds an image.\n"
              "Run it from the initramfs before anything enables swap.\n\n"
              "  --resume-device PATH   default: \"resume device\" in the config, then resume=\n"
              "  --resume-offset PAGES  swap header offset (swap files)\n"
              "  --cmdline FILE         kernel command line to read (default /proc/cmdline)\n"
              "  --noresume             discard the image instead of restoring it\n"
              "  --splash kms|fbdev|text|png:DIR|none   --theme NAME   --threads N\n"
              "  --config FILE          default /etc/dormouse.conf\n"
              "  --kernel snapshot|sim  real kernel (default) or the simulated one\n"
              "  --sim-seed N --sim-fault SPEC --sim-kernel-release R --sim-proc DIR\n\n"
              "Exit status: 0 restored, 1 no image, 2 usage, 3 image refused (swap usable "
              "again),\n4 simulated kernel: restored content differed, 7 the image could not be "
              "removed:\nit is still on disk; stop the boot.\n"));
}

/* Says what happened; refusals and failures are also written into msg (for
 * the splash), and printed by the caller. Returns the exit status. */
static int report(const struct dmo_resume_config *rc, const struct dmo_resume_result *res,
                  char *msg, size_t len)
{
        const char *dev = rc->target.path;
        const struct dmo_engine_stats *s = &res->stats;
        double raw_mb = (double)s->image_pages * (double)s->page_size / 1e6;

        switch (res->outcome) {
        case DMO_RESUME_RESTORED:
                fprintf(stderr,
                        _("dormouse: restored %llu pages (%.1f MB) from %s in %.3f s (%.0f MB/s); "
                          "every page verified bit-exact by the simulated kernel\n"),
                        (unsigned long long)s->image_pages, raw_mb, dev, s->restore_s,
                        s->restore_s > 0 ? raw_mb / s->restore_s : 0.0);
                return DMO_EXIT_OK;
        case DMO_RESUME_NO_IMAGE:
                return DMO_EXIT_NO_IMAGE; /* quiet: this is every normal boot */
        case DMO_RESUME_DISCARDED:
                fprintf(stderr,
                        _("dormouse: noresume: the hibernation image on %s was discarded; %s is a "
                          "plain swap area again\n"),
                        dev, dev);
                return DMO_EXIT_NO_IMAGE;
        case DMO_RESUME_FOREIGN:
                fprintf(stderr,
                        _("dormouse: %s carries a hibernation signature that is not dormouse's "
                          "(another tool's image, or a damaged one); leaving it alone. swapon "
                          "will reinitialise the area, or run mkswap on it.\n"),
                        dev);
                return DMO_EXIT_NO_IMAGE;
        case DMO_RESUME_NOT_SWAP:
                if (res->step == DMO_STEP_OPEN_DEVICE)
                        snprintf(msg, len, _("%s: cannot open the resume device: %s"), dev,
                                 strerror(-res->error));
                else
                        snprintf(msg, len,
                                 _("%s: no swap signature; run mkswap on it, or point "
                                   "\"resume device\" at a swap area"),
                                 dev);
                return DMO_EXIT_USAGE;
        case DMO_RESUME_REFUSED:
                if (res->step == DMO_STEP_KERNEL_MISMATCH)
                        snprintf(msg, len,
                                 _("%s: the image was made by kernel %s but %s is running; "
                                   "boot the kernel that hibernated to resume"),
                                 dev, res->image_release, res->running_release);
                else if (res->error == -EPROTONOSUPPORT)
                        snprintf(msg, len,
                                 _("%s: the image uses a format or encryption this dormouse "
                                   "does not support; update dormouse in the initramfs"),
                                 dev);
                else
                        snprintf(msg, len,
                                 _("%s: the image is damaged (%s while %s); nothing was "
                                   "restored"),
                                 dev, strerror(-res->error), dmo_cli_step_text(res->step));
                break;
        case DMO_RESUME_MISMATCH:
                snprintf(msg, len,
                         _("%s: BUG: the restored memory differs from what was hibernated "
                           "(simulated kernel check)"),
                         dev);
                return DMO_EXIT_MISMATCH;
        case DMO_RESUME_FAILED:
                if (res->step == DMO_STEP_RESTORE || res->step == DMO_STEP_FREEZE)
                        snprintf(msg, len,
                                 _("%s: the kernel could not restore the image (%s while %s)"), dev,
                                 strerror(-res->error), dmo_cli_step_text(res->step));
                else
                        snprintf(msg, len, _("%s: dormouse could not load the image (%s while %s)"),
                                 dev, strerror(-res->error), dmo_cli_step_text(res->step));
                break;
        case DMO_RESUME_LIVE_SYSTEM:
                if (res->live_reason == DMO_LIVE_SWAP_ACTIVE)
                        snprintf(msg, len,
                                 _("%s is in use as swap: this is a running system, and a "
                                   "resume here would restore memory over file systems changed "
                                   "since. Nothing was touched; resume runs from the initramfs "
                                   "(use --noresume to discard the image)"),
                                 dev);
                else if (res->live_reason == DMO_LIVE_ROOT_RW)
                        snprintf(msg, len,
                                 _("the root file system is mounted read-write: this is a "
                                   "running system, and a resume here would restore memory over "
                                   "file systems changed since. Nothing was touched on %s; "
                                   "resume runs from the initramfs"),
                                 dev);
                else
                        snprintf(msg, len,
                                 _("cannot tell whether this is an early boot (%s); nothing was "
                                   "touched on %s"),
                                 strerror(-res->error), dev);
                return DMO_EXIT_USAGE;
        case DMO_RESUME_KEPT:
                snprintf(msg, len,
                         _("%s: the image could not be removed from the swap area (%s); it is "
                           "still there. Do not boot on: the file systems must stay as it "
                           "expects them. Make the device writable and resume again, or run "
                           "\"dormouse resume --noresume\" once it is writable to discard it"),
                         dev, strerror(-res->error));
                return DMO_EXIT_KEPT;
        }
        return DMO_EXIT_REFUSED;
}

static void report_swap_state(const struct dmo_resume_result *res)
{
        fprintf(stderr, "%s\n",
                res->signature_cleared
                    ? _("dormouse: the swap area is usable again; booting normally. Do not "
                        "repair by hand the file systems that were mounted when the system "
                        "hibernated: their state was saved in the lost image.")
                    : _("dormouse: could not restore the swap signature; run mkswap on the "
                        "resume device before enabling swap."));
}

/* The splash comes up only once there is an image to restore: a normal
 * boot without one stays quiet. */
struct resume_ui {
        struct dmo_cli_splash cs;
        struct dmo_splash_launch *launch;   /* the splash coming up */
        struct dmo_splash_session *session; /* ...and once it is up */
};

/* The image starts loading at once; the splash follows when it is ready. */
static void show_splash(void *ctx)
{
        struct resume_ui *ui = ctx;
        if (ui->session || ui->launch)
                return;
        if (dmo_splash_session_launch(&ui->cs.params, &ui->launch) < 0)
                dmo_splash_session_new(&ui->cs.params, &ui->session);
}

/* Everything but the launch thread touches the display only after this. */
static struct dmo_splash_session *splash_ready(struct resume_ui *ui)
{
        if (ui->launch) {
                ui->session = dmo_splash_session_launch_join(ui->launch);
                ui->launch = NULL;
        }
        return ui->session;
}

static void redraw_splash(void *ctx)
{
        struct resume_ui *ui = ctx;
        dmo_splash_session_devices_thawed(splash_ready(ui));
}

static void settle_splash(void *ctx)
{
        struct resume_ui *ui = ctx;
        dmo_splash_session_before_restore(splash_ready(ui));
}

int dmo_cmd_resume(int argc, char **argv)
{
        static const struct option opts[] = {
            DMO_CLI_COMMON_LONG_OPTIONS,
            {"noresume", no_argument, NULL, OPT_NORESUME},
            {0},
        };
        struct dmo_cli_common c;
        bool noresume = false;
        int opt, r;

        dmo_cli_common_init(&c);
        optind = 1;
        while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                r = dmo_cli_common_option(&c, opt, optarg);
                if (r < 0)
                        return DMO_EXIT_USAGE;
                if (r > 0)
                        continue;
                if (opt == OPT_NORESUME) {
                        noresume = true;
                } else if (opt == OPT_HELP) {
                        usage(stdout);
                        return DMO_EXIT_OK;
                } else {
                        usage(stderr);
                        return DMO_EXIT_USAGE;
                }
        }
        if (optind < argc) {
                dmo_cli_error(_("resume: unexpected argument \"%s\""), argv[optind]);
                return DMO_EXIT_USAGE;
        }
        if (dmo_cli_common_finish(&c))
                return DMO_EXIT_USAGE;

        struct dmo_resume_config rc = {
            .threads = c.threads, .step_delay_ms = c.step_delay_ms, .lock_memory = !c.simulated};
        char path[512];
        bool cmdline_noresume = false;
        r = dmo_cli_swap_target(&c, true, &rc.target, path, sizeof(path), &cmdline_noresume);
        if (r)
                return r;
        rc.noresume = noresume || cmdline_noresume;

        struct dmo_snapshot *snap = NULL;
        struct dmo_progress *progress = NULL;
        struct resume_ui ui = {.launch = NULL};
        int status = DMO_EXIT_REFUSED;
        if (dmo_progress_new(DMO_MODE_RESUME, &progress) < 0)
                return DMO_EXIT_REFUSED;
        r = dmo_cli_open_kernel(&c, DMO_SNAPSHOT_RESUME, &snap);
        if (r < 0) {
                status = r == -EINVAL ? DMO_EXIT_USAGE : DMO_EXIT_REFUSED;
                goto out;
        }
        dmo_cli_splash_init(&ui.cs, &c, DMO_MODE_RESUME, progress);
        rc.progress = progress;
        rc.profile = dmo_cli_profiling();
        rc.hooks.ctx = &ui;
        rc.hooks.image_found = show_splash;
        rc.hooks.devices_thawed = redraw_splash;
        rc.hooks.before_restore = settle_splash;
        rc.hooks.stats_ready = dmo_cli_print_profile;

        struct dmo_resume_result res;
        char msg[512] = "";
        dmo_engine_resume(snap, &rc, &res);
        status = report(&rc, &res, msg, sizeof(msg));
        /* A refusal stays on the screen long enough to be read. */
        dmo_splash_session_fail(splash_ready(&ui), msg[0] ? msg : NULL);
        dmo_splash_session_free(ui.session);
        ui.session = NULL;
        if (msg[0]) {
                dmo_cli_error("%s", msg);
                if (status == DMO_EXIT_REFUSED)
                        report_swap_state(&res);
        }
out:
        dmo_splash_session_free(splash_ready(&ui));
        dmo_snapshot_free(snap);
        dmo_progress_free(progress);
        dmo_cli_common_release(&c);
        return status;
}
