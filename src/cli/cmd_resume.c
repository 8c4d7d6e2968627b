/* dormouse resume: parse the options, run the engine, report. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/network.h"
#include "cli/efi_location.h"
#include "cli/display.h"
#include "cli/keys.h"
#include "cli/report.h"
#include "engine/engine.h"
#include "kernel/reclaim_quiet.h"
#include "util/i18n.h"

static void usage(FILE *f)
{
        /* The configuration file's path is the build's (--sysconfdir). */
        fprintf(
            f,
            _("Usage: dormouse resume [OPTIONS]\n"
              "Restore a hibernated system, if the swap area holds an image.\n"
              "Run it from the initramfs before anything enables swap.\n\n"
              "  --resume-device PATH   default: \"resume device\" in the config, then resume=\n"
              "  --resume-offset PAGES  swap header offset (swap files)\n"
              "  --cmdline FILE         kernel command line to read (default /proc/cmdline)\n"
              "  --noresume             discard the image instead of restoring it\n"
              "  --key-file FILE        passphrase of an encrypted image from FILE (mode 0600)\n"
              "  --secret-key FILE      pubkey mode: default %s\n"
              "  --splash kms|fbdev|text|png:DIR|none   --theme NAME   --threads N\n"
              "  --config FILE          default %s\n"
              "  --kernel snapshot|sim  real kernel (default) or the simulated one\n"
              "  --sim-seed N --sim-fault SPEC --sim-kernel-release R --sim-proc DIR\n"
              "  --kmsg FILE            where an image skipped or refused is also said, for the\n"
              "                         next boot's journal (default /dev/kmsg; the simulated\n"
              "                         kernel: nowhere)\n\n"
              "Exit status: 0 restored, 1 no image, 2 usage, 3 image refused (swap usable "
              "again),\n4 simulated kernel: restored content differed, 7 the image could not be "
              "removed:\nit is still on disk; stop the boot. 8 encrypted image not unlocked "
              "(wrong or no\npassphrase): left on disk untouched. 9 the image was made by "
              "another kernel and\nis kept: restart and choose that kernel.\n"),
            dmo_keys_default_secret_key, DMO_SYSCONFDIR "/dormouse.conf");
        fputs(_("\n  --efivars DIR          where HibernateLocation is read when nothing names a\n"
                "                         resume device (default the system's efivarfs)\n"),
              f);
        fputs(_("  --tpm-device TCTI      the TPM (tpm2-tss TCTI; default its own choice)\n"), f);
}

/* The key module's way to the splash: up by then, or NULL. */
static struct dmo_splash_session *resume_splash(void *ui)
{
        return dmo_cli_resume_ui_splash(ui);
}

struct resume_cmd {
        struct dmo_cli_common c;
        struct dmo_resume_config rc;
        struct dmo_cli_keyargs k;
        bool noresume; /* --noresume */
        bool help;
        char path[512]; /* the resolved resume device */
        char msg[512];  /* why nothing was restored, for the splash and stderr */
        char note[512]; /* an image skipped without a refusal, or the device not found */
        enum dmo_cli_target_source source;
        struct dmo_cli_network net; /* nbd://: the export, connected */
        const char *kmsg;           /* --kmsg */
        struct dmo_resume_result res;
        int result; /* what describe() made of res */
};

static int parse_options(struct resume_cmd *m, int argc, char **argv)
{
        static const struct option opts[] = {
            DMO_CLI_COMMON_LONG_OPTIONS,
            {"noresume", no_argument, NULL, OPT_NORESUME},
            {"key-file", required_argument, NULL, OPT_KEY_FILE},
            {"secret-key", required_argument, NULL, OPT_SECRET_KEY},
            {"tpm-device", required_argument, NULL, OPT_TPM_DEVICE},
            {"kmsg", required_argument, NULL, OPT_KMSG},
            {0},
        };
        int opt, r;
        optind = 1;
        while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                r = dmo_cli_common_option(&m->c, opt, optarg);
                if (r < 0)
                        return r;
                if (r > 0)
                        continue;
                if (dmo_cli_keys_option(&m->k, opt, optarg)) {
                        continue;
                } else if (opt == OPT_NORESUME) {
                        m->noresume = true;
                } else if (opt == OPT_KMSG) {
                        m->kmsg = optarg;
                } else if (opt == OPT_HELP) {
                        usage(stdout);
                        m->help = true;
                        return 0;
                } else {
                        usage(stderr);
                        return -EINVAL;
                }
        }
        if (optind < argc) {
                dmo_cli_error(_("resume: unexpected argument \"%s\""), argv[optind]);
                return -EINVAL;
        }
        return 0;
}

static int parse(struct resume_cmd *m, int argc, char **argv)
{
        bool cmdline_noresume = false;
        int r = parse_options(m, argc, argv);
        if (r < 0 || m->help)
                return r;
        r = dmo_cli_common_finish(&m->c);
        if (r < 0)
                return r;
        m->rc = (struct dmo_resume_config){
            .threads = m->c.threads,
            .step_delay_ms = m->c.step_delay_ms,
            .lock_memory = !m->c.simulated || dmo_cli_debug_lock_memory(),
            .profile = dmo_cli_profiling(),
        };
        dmo_cli_keyopts_from_config(&m->k.opts, &m->c.config);
        /* A network device is connected in run(), under the splash. */
        m->net.defer = true;
        r = dmo_cli_swap_target_why(&m->c, true, &m->rc.target, m->path, sizeof(m->path),
                                    &cmdline_noresume, m->note, sizeof(m->note), &m->source,
                                    &m->net);
        m->rc.noresume = m->noresume || cmdline_noresume;
        return r;
}

/* The export of a network resume device, connected under the splash:
 * "Connecting to HOST..." while nbd-client waits for the network and the
 * server, and why not on the screen when they never come (the boot goes
 * on: no image). */
static int connect_network(struct resume_cmd *m, struct dmo_cli_resume_ui *ui,
                           struct dmo_progress *progress)
{
        char text[400];
        snprintf(text, sizeof(text), _("Connecting to %s..."), m->net.server);
        dmo_progress_set_phase(progress, DMO_PHASE_WAIT);
        dmo_progress_set_message(progress, text);
        dmo_cli_resume_ui_show(ui);
        int r = dmo_cli_swap_target_connect(&m->c, &m->rc.target, m->path, sizeof(m->path), &m->net,
                                            m->note, sizeof(m->note));
        dmo_progress_set_message(progress, "");
        if (r < 0)
                dmo_splash_session_fail(dmo_cli_resume_ui_splash(ui), m->note);
        return r;
}

/* The resume's hooks: the splash's (resume_ui), and from the moment an
 * image is found the boot kernel's kswapd and kcompactd kept still while
 * it loads and until the jump (kernel/reclaim_quiet.h); back as they were
 * where the boot goes on. A boot without an image leaves them alone. */
struct resume_hooks {
        struct dmo_cli_resume_ui ui; /* first: the engine's ctx is &ui */
        void (*ui_image_found)(void *ctx);
        struct dmo_reclaim_quiet *quiet; /* NULL: the simulated kernel */
};

static void image_found(void *ctx)
{
        struct resume_hooks *rh = ctx;
        if (rh->quiet)
                dmo_reclaim_quiet_begin(rh->quiet, "/proc/sys/vm");
        rh->ui_image_found(ctx);
}

/* Opens the kernel and runs the engine; the splash comes up when an image
 * is found (or a network device is being connected) and shows a refusal
 * before it goes. 0 when the engine ran. */
static int run(struct resume_cmd *m)
{
        struct dmo_snapshot *snap = NULL;
        struct dmo_progress *progress = NULL;
        struct dmo_keys_unlock *unlock = NULL;
        struct dmo_reclaim_quiet quiet = {0};
        struct resume_hooks rh = {
            .ui = {.launch = NULL,
                   .efi_location = m->source == DMO_TARGET_EFI_LOCATION ? &m->c : NULL},
            .quiet = m->c.simulated ? NULL : &quiet,
        };
        struct dmo_cli_resume_ui *ui = &rh.ui;
        int r = dmo_progress_new(DMO_MODE_RESUME, &progress);
        if (r < 0)
                return r;
        r = dmo_cli_open_kernel(&m->c, DMO_SNAPSHOT_RESUME, &snap);
        if (r < 0)
                goto out;
        dmo_cli_splash_init(&ui->cs, &m->c, DMO_MODE_RESUME, progress);
        if (m->net.pending) {
                r = connect_network(m, ui, progress);
                if (r < 0)
                        goto out;
        }
        m->rc.progress = progress;
        dmo_cli_resume_ui_hooks(ui, &m->rc.hooks);
        rh.ui_image_found = m->rc.hooks.image_found;
        m->rc.hooks.image_found = image_found;
        struct dmo_cli_keys keys;
        dmo_cli_keys_init(&keys, NULL, resume_splash, ui);
        r = dmo_keys_unlock_new(&m->k.opts, &keys.ui, &unlock);
        if (r < 0)
                goto out;
        m->rc.unlock = dmo_keys_unlock;
        m->rc.consume = dmo_keys_consume;
        m->rc.unlock_ctx = unlock;
        dmo_engine_resume(snap, &m->rc, &m->res);
        dmo_reclaim_quiet_end(&quiet);
        dmo_keys_unlock_free(unlock);
        /* A dormouse image was there and is gone (refused, or discarded by
         * noresume): the variable would only send the next boot to a plain
         * swap area. Images still on disk (kept) keep it. */
        if (ui->efi_location &&
            (m->res.outcome == DMO_RESUME_REFUSED || m->res.outcome == DMO_RESUME_DISCARDED))
                dmo_cli_efi_location_clear(ui->efi_location);
        m->result = dmo_cli_resume_describe(&m->rc, &m->res, m->msg, sizeof(m->msg), m->note,
                                            sizeof(m->note));
        /* A refusal stays on the screen long enough to be read. */
        dmo_splash_session_fail(dmo_cli_resume_ui_splash(ui), m->msg[0] ? m->msg : NULL);
        dmo_splash_session_free(ui->session);
        ui->session = NULL;
out:
        dmo_splash_session_free(dmo_cli_resume_ui_splash(ui));
        dmo_snapshot_free(snap);
        dmo_progress_free(progress);
        return r;
}

static int report(const struct resume_cmd *m)
{
        if (m->msg[0]) {
                dmo_cli_error("%s", m->msg);
                if (m->res.outcome == DMO_RESUME_REFUSED || m->res.outcome == DMO_RESUME_FAILED)
                        dmo_cli_resume_swap_state(&m->res);
        }
        return m->result;
}

int dmo_cmd_resume(int argc, char **argv)
{
        struct resume_cmd m = {0};
        dmo_cli_common_init(&m.c);
        int r = parse(&m, argc, argv);
        if (r == 0 && !m.help)
                r = run(&m);
        if (r == 0 && !m.help)
                r = report(&m);
        if (!m.help && (m.msg[0] || m.note[0]))
                dmo_cli_resume_tell_journal(m.kmsg, m.c.simulated, m.msg, m.note);
        /* Still here: nothing was restored (a real restore never returns),
         * the boot goes on without the export. */
        dmo_cli_network_release(&m.net, true);
        dmo_cli_common_release(&m.c);
        return dmo_cli_exit_status(DMO_CMD_RESUME, r);
}
