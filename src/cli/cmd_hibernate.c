/* dormouse hibernate: parse the options, run the engine, report. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/config.h"
#include "cli/display.h"
#include "cli/keys.h"
#include "cli/network.h"
#include "cli/report.h"
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
            dmo_keys_default_public_key, DMO_SYSCONFDIR "/dormouse.conf");
        fputs(_("  --efivars DIR          where HibernateLocation is written when nothing names a\n"
                "                         resume device (default the system's efivarfs)\n"),
              f);
        fputs(_("  --encrypt tpm|tpm+passphrase  the key sealed by the TPM (and a PIN)\n"), f);
        fputs(_("  --tpm-pcrs LIST        PCRs the key is sealed to (default 7; like 0+7)\n"), f);
        fputs(_("  --tpm-device TCTI      the TPM (tpm2-tss TCTI; default its own choice)\n"), f);
}

struct hibernate_cmd {
        struct dmo_cli_common c;
        struct dmo_hibernate_config hc;
        const char *compress, *shutdown, *image_size; /* as given */
        struct dmo_cli_keyargs k;                     /* key options as given */
        struct dmo_cli_image_keys keys;               /* encrypted: this image's, ours */
        int level;                                    /* --compress-level; < 0: not given */
        bool no_initramfs_check;                      /* --no-initramfs-check */
        enum dmo_cli_target_source source;            /* picked: HibernateLocation goes with it */
        struct dmo_cli_network net;                   /* nbd://: the export, connected */
        const char *sim_state_dir;                    /* --sim-state-dir */
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
            {"tpm-device", required_argument, NULL, OPT_TPM_DEVICE},
            {"tpm-pcrs", required_argument, NULL, OPT_TPM_PCRS},
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
                if (r > 0 || dmo_cli_keys_option(&h->k, opt, optarg))
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
        if (dmo_cli_keys_finish(&h->k, &c->config) < 0)
                return -EINVAL;
        if (h->image_size) {
                if (dmo_cli_parse_size("--image-size", h->image_size, 0, INT64_MAX, &bytes) < 0)
                        return -EINVAL;
                hc->image_size = (int64_t)bytes;
        }
        h->c.initramfs_state_dir =
            c->simulated ? h->sim_state_dir : DMO_LOCALSTATEDIR "/lib/dormouse";
        h->net.hibernate = true;
        h->net.plain = h->k.opts.mode == DMO_ENCRYPT_NONE;
        return dmo_cli_swap_target_why(c, false, &hc->target, h->path, sizeof(h->path), NULL, NULL,
                                       0, &h->source, &h->net);
}

static int parse(struct hibernate_cmd *h, int argc, char **argv)
{
        int r = parse_options(h, argc, argv);
        if (r < 0 || h->help)
                return r;
        return parse_config(h);
}

/* Opens the kernel, brings up the splash, runs the engine; the splash shows
 * a failure before it goes. 0 when the engine ran (h->res says how). */
static int run(struct hibernate_cmd *h)
{
        struct dmo_snapshot *snap = NULL;
        struct dmo_progress *progress = NULL;
        struct dmo_splash_session *splash = NULL;
        struct dmo_cli_splash cs;
        const struct dmo_cli_resume_check check = {
            .c = &h->c,
            .target = &h->hc.target,
            .encrypt = h->k.opts.mode,
            .secret_key = h->k.opts.secret_key,
            .skip_initramfs = h->no_initramfs_check || h->c.config.skip_initramfs_check,
            .sim_state_dir = h->sim_state_dir,
            .via_efi_location = h->source == DMO_TARGET_ACTIVE_SWAP,
        };
        int r = dmo_cli_prepare_resume(&check);
        if (r < 0)
                return r;
        r = dmo_progress_new(DMO_MODE_HIBERNATE, &progress);
        if (r < 0)
                return r;
        r = dmo_cli_open_kernel(&h->c, DMO_SNAPSHOT_HIBERNATE, &snap);
        if (r < 0)
                goto out;
        /* The splash loads everything it will ever need before the freeze. */
        dmo_cli_splash_init(&cs, &h->c, DMO_MODE_HIBERNATE, progress);
        dmo_splash_session_new(&cs.params, &splash);
        /* Asked for and derived now: nothing secret is made after the
         * snapshot. */
        r = dmo_cli_hibernate_key(&h->k.opts, splash, h->hc.target.path, &h->keys, &h->hc);
        if (r < 0) {
                dmo_splash_session_free(splash);
                goto out;
        }
        h->hc.progress = progress;
        dmo_cli_splash_hibernate_hooks(&h->hc.hooks, splash);
        dmo_engine_hibernate(snap, &h->hc, &h->res);
        dmo_cli_hibernate_failure(&h->res, h->hc.target.path, h->failure, sizeof(h->failure));
        dmo_splash_session_fail(splash, h->failure[0] ? h->failure : NULL);
        dmo_splash_session_free(splash);
out:
        dmo_crypto_key_free(h->keys.key);
        h->keys.key = NULL;
        dmo_snapshot_free(snap);
        dmo_progress_free(progress);
        return r;
}

int dmo_cmd_hibernate(int argc, char **argv)
{
        struct hibernate_cmd h = {.level = -1};
        dmo_cli_common_init(&h.c);
        int r = parse(&h, argc, argv);
        if (r == 0 && !h.help)
                r = run(&h);
        if (r == 0 && !h.help)
                r = dmo_cli_hibernate_report(&h.res, h.hc.target.path, h.c.simulated, h.failure);
        /* The system goes on (failed, cancelled, or back after a resume):
         * the export is let go. After a power off it stays as it is. */
        dmo_cli_network_release(&h.net, h.res.outcome != DMO_HIBERNATE_POWERED_OFF);
        dmo_cli_common_release(&h.c);
        return dmo_cli_exit_status(DMO_CMD_HIBERNATE, r);
}
