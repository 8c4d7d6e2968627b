/* dormouse hibernate: parse the options, run the engine, report. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/config.h"
#include "cli/display.h"
#include "cli/efi_location.h"
#include "cli/keys.h"
#include "cli/resume_check.h"
#include "engine/engine.h"
#include "util/i18n.h"
#include "util/parse.h"

static void usage(FILE *f)
{
        /* The configuration file's path is the build's (--sysconfdir). */
        fprintf(
            f,
            _("Usage: dormouse hibernate [OPTIONS]\n"
              "Save memory to the swap area and power off.\n\n"
              "  --resume-device PATH   swap partition, swap file or image file\n"
              "  --resume-offset PAGES  swap header offset (swap files)\n"
              "  --compress lz4|zstd|none  (default lz4)\n"
              "  --compress-level N     0 to 22 (default 0: the fastest)\n"
              "  --image-size BYTES     preferred image size (kernel may go below)\n"
              "  --shutdown platform|shutdown|reboot|suspend\n"
              "  --encrypt passphrase|pubkey|none  (default none: the image is plain on disk)\n"
              "  --key-file FILE        passphrase from FILE (mode 0600) instead of asking\n"
              "  --public-key FILE      pubkey mode: default %s\n"
              "  --splash kms|fbdev|text|png:DIR|none\n"
              "  --theme NAME           splash theme\n"
              "  --threads N            compression workers (0 = one per CPU)\n"
              "  --config FILE          default %s\n"
              "  --no-initramfs-check   the initramfs is built another way: do not check that\n"
              "                         it has dormouse and looks where the image goes\n"
              "  --kernel snapshot|sim  real kernel (default) or the simulated one\n"
              "  --sim-size SIZE --sim-seed N --sim-fault SPEC --sim-kernel-release R\n"
              "  --sim-proc DIR --sim-state-dir DIR  the simulated machine's /proc and\n"
              "                         /var/lib/dormouse: check them as the real ones\n"
              "  --debug-step-delay MS  pause at each percent of the data phase (screenshots)\n"),
            dmo_cli_default_public_key, DMO_SYSCONFDIR "/dormouse.conf");
        fputs(_("  --efivars DIR          where HibernateLocation is written when nothing names a\n"
                "                         resume device (default the system's efivarfs)\n"),
              f);
}

struct hibernate_cmd {
        struct dmo_cli_common c;
        struct dmo_hibernate_config hc;
        const char *compress, *shutdown, *image_size; /* as given */
        const char *encrypt;                          /* --encrypt as given */
        struct dmo_cli_keyopts keys;
        struct dmo_crypto_key *key; /* encrypted: this image's key, ours */
        struct dmo_crypto_envelope envelope;
        int level;                         /* --compress-level; < 0: not given */
        bool no_initramfs_check;           /* --no-initramfs-check */
        enum dmo_cli_target_source source; /* picked: HibernateLocation goes with it */
        const char *sim_state_dir;         /* --sim-state-dir */
        bool help;
        char path[512];    /* the resolved resume device */
        char failure[512]; /* what went wrong, for the splash and stderr */
        struct dmo_hibernate_result res;
};

static int parse_options(struct hibernate_cmd *h, int argc, char **argv)
{
        static const struct option opts[] = {
            DMO_CLI_COMMON_LONG_OPTIONS,
            {"compress", required_argument, NULL, OPT_COMPRESS},
            {"compress-level", required_argument, NULL, OPT_COMPRESS_LEVEL},
            {"image-size", required_argument, NULL, OPT_IMAGE_SIZE},
            {"shutdown", required_argument, NULL, OPT_SHUTDOWN},
            {"encrypt", required_argument, NULL, OPT_ENCRYPT},
            {"key-file", required_argument, NULL, OPT_KEY_FILE},
            {"public-key", required_argument, NULL, OPT_PUBLIC_KEY},
            {"no-initramfs-check", no_argument, NULL, OPT_NO_INITRAMFS_CHECK},
            {"sim-state-dir", required_argument, NULL, OPT_SIM_STATE_DIR},
            {0},
        };
        uint64_t v;
        int opt, r;
        optind = 1;
        while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                r = dmo_cli_common_option(&h->c, opt, optarg);
                if (r < 0)
                        return r;
                if (r > 0)
                        continue;
                switch (opt) {
                case OPT_COMPRESS:
                        h->compress = optarg;
                        break;
                case OPT_COMPRESS_LEVEL:
                        if (dmo_cli_parse_number("--compress-level", optarg, 0, 22, &v) < 0)
                                return -EINVAL;
                        h->level = (int)v;
                        break;
                case OPT_IMAGE_SIZE:
                        h->image_size = optarg;
                        break;
                case OPT_SHUTDOWN:
                        h->shutdown = optarg;
                        break;
                case OPT_ENCRYPT:
                        h->encrypt = optarg;
                        break;
                case OPT_KEY_FILE:
                        h->keys.key_file = optarg;
                        break;
                case OPT_PUBLIC_KEY:
                        h->keys.public_key = optarg;
                        break;
                case OPT_NO_INITRAMFS_CHECK:
                        h->no_initramfs_check = true;
                        break;
                case OPT_SIM_STATE_DIR:
                        h->sim_state_dir = optarg;
                        break;
                case OPT_HELP:
                        usage(stdout);
                        h->help = true;
                        return 0;
                default:
                        usage(stderr);
                        return -EINVAL;
                }
        }
        if (optind < argc) {
                dmo_cli_error(_("hibernate: unexpected argument \"%s\""), argv[optind]);
                return -EINVAL;
        }
        return 0;
}

/* The engine's config: the config file, overridden by the options. */
static int parse_config(struct hibernate_cmd *h)
{
        struct dmo_hibernate_config *hc = &h->hc;
        const struct dmo_cli_common *c = &h->c;
        uint64_t bytes;
        int r = dmo_cli_common_finish(&h->c);
        if (r < 0)
                return r;
        *hc = (struct dmo_hibernate_config){
            .compress = c->config.compress,
            .compress_level = h->level >= 0 ? h->level : c->config.compress_level,
            .threads = c->threads,
            .image_size = c->config.image_size,
            .shutdown = c->config.shutdown,
            .lock_memory = !c->simulated || dmo_cli_debug_lock_memory(),
            .step_delay_ms = c->step_delay_ms,
            .profile = dmo_cli_profiling(),
        };
        if (h->compress && dmo_compress_parse(h->compress, &hc->compress) < 0) {
                dmo_cli_error(_("--compress: \"%s\" is unknown; use lz4, zstd or none"),
                              h->compress);
                return -EINVAL;
        }
        if (h->shutdown && dmo_shutdown_parse(h->shutdown, &hc->shutdown) < 0) {
                dmo_cli_error(_("--shutdown: \"%s\" is unknown; use platform, shutdown, reboot or "
                                "suspend"),
                              h->shutdown);
                return -EINVAL;
        }
        h->keys.mode = c->config.encrypt;
        if (h->encrypt && dmo_encrypt_mode_parse(h->encrypt, &h->keys.mode) < 0) {
                dmo_cli_error(_("--encrypt: \"%s\" is unknown; use passphrase, pubkey or none"),
                              h->encrypt);
                return -EINVAL;
        }
        if (!h->keys.key_file && c->config.key_file[0])
                h->keys.key_file = c->config.key_file;
        if (!h->keys.public_key && c->config.public_key[0])
                h->keys.public_key = c->config.public_key;
        h->keys.kdf = c->config.kdf;
        if (h->image_size) {
                if (dmo_cli_parse_size("--image-size", h->image_size, 0, INT64_MAX, &bytes) < 0)
                        return -EINVAL;
                hc->image_size = (int64_t)bytes;
        }
        h->c.initramfs_state_dir =
            c->simulated ? h->sim_state_dir : DMO_LOCALSTATEDIR "/lib/dormouse";
        return dmo_cli_swap_target_why(c, false, &hc->target, h->path, sizeof(h->path), NULL, NULL,
                                       0, &h->source);
}

static int parse(struct hibernate_cmd *h, int argc, char **argv)
{
        int r = parse_options(h, argc, argv);
        if (r < 0 || h->help)
                return r;
        return parse_config(h);
}

static void set_hooks(struct dmo_hibernate_config *hc, struct dmo_splash_session *splash)
{
        hc->hooks.ctx = splash;
        hc->hooks.devices_thawed = dmo_splash_session_devices_thawed;
        hc->hooks.before_freeze = dmo_splash_session_before_freeze;
        hc->hooks.after_freeze = dmo_splash_session_after_freeze;
        hc->hooks.before_snapshot = dmo_splash_session_pause;
        hc->hooks.stats_ready = dmo_cli_print_profile;
        hc->hooks.choose_shutdown = dmo_cli_splash_choose_shutdown;
}

/* The target has no swap signature: a configuration error, as for resume. */
static bool not_swap(const struct dmo_hibernate_result *res)
{
        return res->step == DMO_STEP_SWAP_HEADER &&
               (res->error == -ENODEV || res->error == -EINVAL);
}

/* Opens the kernel, brings up the splash, runs the engine; the splash shows
 * a failure before it goes. 0 when the engine ran (h->res says how). */
static int run(struct hibernate_cmd *h)
{
        struct dmo_snapshot *snap = NULL;
        struct dmo_progress *progress = NULL;
        struct dmo_splash_session *splash = NULL;
        struct dmo_cli_splash cs;
        /* Before the snapshot device is even opened (its open already
         * tells the kernel's PM notifiers a hibernation is coming); but a
         * kernel that refuses any hibernation (lockdown) says so first. */
        struct dmo_cli_resume_check check = {
            .c = &h->c,
            .target = &h->hc.target,
            .encrypt = h->keys.mode,
            .secret_key = h->c.config.secret_key[0] ? h->c.config.secret_key : NULL,
            .skip_initramfs = h->no_initramfs_check || h->c.config.skip_initramfs_check,
            .sim_state_dir = h->sim_state_dir,
            .via_efi_location = h->source == DMO_TARGET_ACTIVE_SWAP,
        };
        int r = dmo_cli_kernel_refuses_hibernation(&h->c) ? 0 : dmo_cli_check_resumable(&check);
        if (r < 0)
                return r;
        /* Written while everything can still stop; a hibernation that
         * fails or is cancelled leaves a stale one, which the resume and
         * systemd-hibernate-clear both know to ignore and remove. */
        if (h->source == DMO_TARGET_ACTIVE_SWAP) {
                r = dmo_cli_efi_location_write(&h->c, &h->hc.target);
                if (r < 0)
                        return r;
        }
        r = dmo_progress_new(DMO_MODE_HIBERNATE, &progress);
        if (r < 0)
                return r;
        r = dmo_cli_open_kernel(&h->c, DMO_SNAPSHOT_HIBERNATE, &snap);
        if (r < 0)
                goto out;
        /* The splash loads everything it will ever need before the freeze. */
        dmo_cli_splash_init(&cs, &h->c, DMO_MODE_HIBERNATE, progress);
        dmo_splash_session_new(&cs.params, &splash);
        dmo_cli_warn_readable_swap(h->hc.target.path, h->keys.mode != DMO_ENCRYPT_NONE);
        if (h->keys.mode != DMO_ENCRYPT_NONE) {
                /* Asked for and derived now: nothing secret is made after
                 * the snapshot. */
                r = dmo_cli_hibernate_key(&h->keys, splash, &h->key, &h->envelope);
                if (r < 0) {
                        dmo_splash_session_free(splash);
                        r = r == -ECANCELED ? -ECANCELED : -EKEYREJECTED;
                        goto out;
                }
                h->hc.key = h->key;
                h->hc.envelope = &h->envelope;
        }
        h->hc.progress = progress;
        set_hooks(&h->hc, splash);
        dmo_engine_hibernate(snap, &h->hc, &h->res);
        if (h->res.outcome == DMO_HIBERNATE_FAILED && not_swap(&h->res))
                /* The same sentence as resume gives for the same device. */
                snprintf(h->failure, sizeof(h->failure),
                         _("%s: no swap signature; run mkswap on it, or point "
                           "\"resume device\" at a swap area"),
                         h->hc.target.path);
        else if (h->res.outcome == DMO_HIBERNATE_FAILED)
                snprintf(h->failure, sizeof(h->failure), _("hibernation failed while %s (%s): %s"),
                         dmo_cli_step_text(h->res.step), h->hc.target.path,
                         strerror(-h->res.error));
        dmo_splash_session_fail(splash, h->failure[0] ? h->failure : NULL);
        dmo_splash_session_free(splash);
out:
        dmo_crypto_key_free(h->key);
        h->key = NULL;
        dmo_snapshot_free(snap);
        dmo_progress_free(progress);
        return r;
}

static void report_failure(const struct hibernate_cmd *h)
{
        dmo_cli_error("%s", h->failure);
        if (h->res.error == -ENOSPC)
                dmo_cli_note(_("the swap area is too small for this image: it had %.1f MB free "
                               "and the image holds %.1f MB of memory before compression. Make "
                               "the area larger, or lower \"image size\" so the kernel frees "
                               "more memory first"),
                             (double)h->res.swap_free_bytes / 1e6,
                             (double)h->res.image_bytes / 1e6);
        fprintf(stderr, "%s\n",
                h->res.signature_cleared
                    ? _("dormouse: nothing was hibernated; the system is running and "
                        "the swap area is intact")
                    : _("dormouse: nothing was hibernated; the system is running"));
}

/* Says what happened; returns the command's result. */
static int report(const struct hibernate_cmd *h)
{
        const char *dev = h->hc.target.path;
        switch (h->res.outcome) {
        case DMO_HIBERNATE_POWERED_OFF:
                if (h->res.went_down_into_image)
                        dmo_cli_error(_("the machine could not stay up: the image on %s could not "
                                        "be removed (%s), and a running system must never keep "
                                        "one; it went down into the image instead (%s), which "
                                        "still matches the disks"),
                                      dev, strerror(-h->res.sig_error),
                                      dmo_shutdown_name(h->res.shutdown_used));
                dmo_cli_print_stats(&h->res.stats);
                fprintf(stderr, _("dormouse: image written to %s; %s\n"), dev,
                        dmo_cli_went_down_text(h->res.shutdown_used, h->c.simulated));
                return 0;
        case DMO_HIBERNATE_RESUMED:
                fprintf(stderr, _("dormouse: resumed\n"));
                return 0;
        case DMO_HIBERNATE_ABORTED:
                fprintf(stderr,
                        _("dormouse: hibernation cancelled; the system is running and %s "
                          "is a plain swap area again\n"),
                        dev);
                return -ECANCELED;
        case DMO_HIBERNATE_FAILED:
                break;
        }
        report_failure(h);
        /* the engine's error is in the message; a device that is not a swap
         * area is a configuration error (exit 2), as for resume */
        return not_swap(&h->res) ? -EINVAL : -EIO;
}

int dmo_cmd_hibernate(int argc, char **argv)
{
        struct hibernate_cmd h = {.level = -1};
        dmo_cli_common_init(&h.c);
        int r = parse(&h, argc, argv);
        if (r == 0 && !h.help)
                r = run(&h);
        if (r == 0 && !h.help)
                r = report(&h);
        dmo_cli_common_release(&h.c);
        return dmo_cli_exit_status(DMO_CMD_HIBERNATE, r);
}
