#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/display.h"
#include "engine/engine.h"
#include "util/i18n.h"

static void usage(FILE *f)
{
        fprintf(
            f, "%s",
            _("Usage: dormouse hibernate [OPTIONS]\n"
              "Save memory to the swap area and power off.\n\n"
              "  --resume-device PATH   swap partition, swap file or image file\n"
              "  --resume-offset PAGES  swap header offset (swap files)\n"
              "  --compress lz4|zstd|none  (default lz4)\n"
              "  --compress-level N     0 = fast default\n"
              "  --image-size BYTES     preferred image size (kernel may go below)\n"
              "  --shutdown platform|shutdown|reboot|suspend\n"
              "  --splash kms|fbdev|text|png:DIR|none\n"
              "  --theme NAME           splash theme\n"
              "  --threads N            compression workers (0 = one per CPU)\n"
              "  --config FILE          default /etc/dormouse.conf\n"
              "  --kernel snapshot|sim  real kernel (default) or the simulated one\n"
              "  --sim-size SIZE --sim-seed N --sim-fault SPEC --sim-kernel-release R\n"
              "  --debug-step-delay MS  pause at each percent of the data phase (screenshots)\n"));
}

static void print_stats(const struct dmo_hibernate_result *res, uint64_t page_size)
{
        const struct dmo_engine_stats *s = &res->stats;
        double raw_mb = (double)s->image_pages * (double)page_size / 1e6;
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

int dmo_cmd_hibernate(int argc, char **argv)
{
        static const struct option opts[] = {
            DMO_CLI_COMMON_LONG_OPTIONS,
            {"compress", required_argument, NULL, OPT_COMPRESS},
            {"compress-level", required_argument, NULL, OPT_COMPRESS_LEVEL},
            {"image-size", required_argument, NULL, OPT_IMAGE_SIZE},
            {"shutdown", required_argument, NULL, OPT_SHUTDOWN},
            {0},
        };
        struct dmo_cli_common c;
        const char *compress = NULL, *shutdown = NULL, *image_size = NULL;
        int level = -1, opt, r;

        dmo_cli_common_init(&c);
        optind = 1;
        while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                r = dmo_cli_common_option(&c, opt, optarg);
                if (r < 0)
                        return DMO_EXIT_USAGE;
                if (r > 0)
                        continue;
                switch (opt) {
                case OPT_COMPRESS:
                        compress = optarg;
                        break;
                case OPT_COMPRESS_LEVEL:
                        level = atoi(optarg);
                        if (level < 0 || level > 22) {
                                dmo_cli_error(_("--compress-level: use 0 to 22"));
                                return DMO_EXIT_USAGE;
                        }
                        break;
                case OPT_IMAGE_SIZE:
                        image_size = optarg;
                        break;
                case OPT_SHUTDOWN:
                        shutdown = optarg;
                        break;
                case OPT_HELP:
                        usage(stdout);
                        return DMO_EXIT_OK;
                default:
                        usage(stderr);
                        return DMO_EXIT_USAGE;
                }
        }
        if (optind < argc) {
                dmo_cli_error(_("hibernate: unexpected argument \"%s\""), argv[optind]);
                return DMO_EXIT_USAGE;
        }
        if (dmo_cli_common_finish(&c))
                return DMO_EXIT_USAGE;

        struct dmo_hibernate_config hc = {
            .compress = c.config.compress,
            .compress_level = level >= 0 ? level : c.config.compress_level,
            .threads = c.threads,
            .image_size = c.config.image_size,
            .shutdown = c.config.shutdown,
            .lock_memory = !c.simulated,
            .step_delay_ms = c.step_delay_ms,
        };
        if (compress && dmo_compress_parse(compress, &hc.compress) < 0) {
                dmo_cli_error(_("--compress: \"%s\" is unknown; use lz4, zstd or none"), compress);
                return DMO_EXIT_USAGE;
        }
        if (shutdown && dmo_shutdown_parse(shutdown, &hc.shutdown) < 0) {
                dmo_cli_error(_("--shutdown: \"%s\" is unknown; use platform, shutdown, reboot or "
                                "suspend"),
                              shutdown);
                return DMO_EXIT_USAGE;
        }
        if (image_size) {
                uint64_t bytes;
                if (dmo_parse_size(image_size, &bytes) < 0 || bytes > INT64_MAX) {
                        dmo_cli_error(_("--image-size: \"%s\" is not a size"), image_size);
                        return DMO_EXIT_USAGE;
                }
                hc.image_size = (int64_t)bytes;
        }

        char path[512];
        if (dmo_cli_swap_target(&c, false, &hc.target, path, sizeof(path), NULL))
                return DMO_EXIT_USAGE;

        struct dmo_snapshot *snap = NULL;
        struct dmo_progress *progress = NULL;
        struct dmo_splash_session *splash = NULL;
        struct dmo_cli_splash cs;
        int status = DMO_EXIT_FAILED;

        if (dmo_progress_new(DMO_MODE_HIBERNATE, &progress) < 0)
                return DMO_EXIT_FAILED;
        r = dmo_cli_open_kernel(&c, DMO_SNAPSHOT_HIBERNATE, &snap);
        if (r < 0) {
                status = r == -EINVAL ? DMO_EXIT_USAGE : DMO_EXIT_FAILED;
                goto out;
        }
        /* The splash loads everything it will ever need before the freeze. */
        dmo_cli_splash_init(&cs, &c, DMO_MODE_HIBERNATE, progress);
        dmo_splash_session_new(&cs.params, &splash);
        hc.progress = progress;
        hc.profile = dmo_cli_profiling();
        hc.hooks.ctx = splash;
        hc.hooks.devices_thawed = dmo_splash_session_devices_thawed;
        hc.hooks.before_freeze = dmo_splash_session_pause;
        hc.hooks.after_freeze = dmo_splash_session_after_freeze;
        hc.hooks.before_snapshot = dmo_splash_session_pause;
        hc.hooks.stats_ready = dmo_cli_print_profile;

        struct dmo_hibernate_result res;
        char failure[512] = "";
        r = dmo_engine_hibernate(snap, &hc, &res);
        if (res.outcome == DMO_HIBERNATE_FAILED)
                snprintf(failure, sizeof(failure), _("hibernation failed while %s (%s): %s"),
                         dmo_cli_step_text(res.step), hc.target.path, strerror(-res.error));
        dmo_splash_session_fail(splash, failure[0] ? failure : NULL);
        dmo_splash_session_free(splash);
        splash = NULL;

        switch (res.outcome) {
        case DMO_HIBERNATE_POWERED_OFF:
                if (res.went_down_into_image)
                        dmo_cli_error(_("the machine could not stay up: the image on %s could not "
                                        "be removed (%s), and a running system must never keep "
                                        "one; it went down into the image instead (%s), which "
                                        "still matches the disks"),
                                      hc.target.path, strerror(-res.sig_error),
                                      dmo_shutdown_name(res.shutdown_used));
                print_stats(&res, res.stats.page_size);
                fprintf(stderr, _("dormouse: image written to %s; %s\n"), hc.target.path,
                        c.simulated ? _("the simulated machine is now powered off")
                                    : _("powering off"));
                status = DMO_EXIT_OK;
                break;
        case DMO_HIBERNATE_RESUMED:
                fprintf(stderr, _("dormouse: resumed\n"));
                status = DMO_EXIT_OK;
                break;
        case DMO_HIBERNATE_ABORTED:
                fprintf(stderr,
                        _("dormouse: hibernation cancelled; the system is running and %s "
                          "is a plain swap area again\n"),
                        hc.target.path);
                status = DMO_EXIT_CANCELLED;
                break;
        case DMO_HIBERNATE_FAILED:
                dmo_cli_error("%s", failure);
                if (res.error == -ENOSPC)
                        dmo_cli_note(_("the swap area is too small for this image: make it "
                                       "larger, or lower \"image size\" so the kernel frees "
                                       "more memory first"));
                fprintf(stderr, "%s\n",
                        res.signature_cleared
                            ? _("dormouse: nothing was hibernated; the system is running and "
                                "the swap area is intact")
                            : _("dormouse: nothing was hibernated; the system is running"));
                status = DMO_EXIT_FAILED;
                break;
        }
out:
        dmo_splash_session_free(splash);
        dmo_snapshot_free(snap);
        dmo_progress_free(progress);
        dmo_cli_common_release(&c);
        return status;
}
