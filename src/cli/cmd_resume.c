/* dormouse resume: parse the options, run the engine, report. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/efi_location.h"
#include "cli/display.h"
#include "cli/keys.h"
#include "engine/engine.h"
#include "kernel/kmsg.h"
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
            dmo_cli_default_secret_key, DMO_SYSCONFDIR "/dormouse.conf");
        fputs(_("\n  --efivars DIR          where HibernateLocation is read when nothing names a\n"
                "                         resume device (default the system's efivarfs)\n"),
              f);
}

/* The splash comes up only once there is an image to restore: a normal
 * boot without one stays quiet. */
struct resume_ui {
        struct dmo_cli_splash cs;
        struct dmo_splash_launch *launch;   /* the splash coming up */
        struct dmo_splash_session *session; /* ...and once it is up */
        /* The device came from HibernateLocation: the variable goes once
         * the image it names is being restored, as systemd-hibernate-resume
         * removes it, so that nothing looks there again. */
        const struct dmo_cli_common *efi_location;
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

/* A sound image of this kernel: the splash, and HibernateLocation has
 * served. */
static void image_found(void *ctx)
{
        struct resume_ui *ui = ctx;
        if (ui->efi_location) {
                dmo_cli_efi_location_clear(ui->efi_location);
                ui->efi_location = NULL;
        }
        show_splash(ui);
}

/* Everything but the launch thread touches the splash only after this. */
static struct dmo_splash_session *splash_ready(struct resume_ui *ui)
{
        if (ui->launch) {
                ui->session = dmo_splash_session_launch_join(ui->launch);
                ui->launch = NULL;
        }
        return ui->session;
}

/* The unlock hook's way to the splash: up by then, or NULL. */
static struct dmo_splash_session *unlock_splash(void *ctx)
{
        return splash_ready(ctx);
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

/* How long a question waits for an answer before its default holds: long
 * enough to read it and reach for the keyboard, short enough that a machine
 * nobody watches restarts into the boot menu instead of waiting forever. */
static const int question_timeout_ms = 60 * 1000;

/* The image belongs to another kernel (the engine's
 * discard_other_kernel_image hook). Keeping it is the default answer, and
 * the one taken with no screen, no keyboard or no answer in time: the
 * person restarts and picks that kernel in the boot menu. Throwing the
 * session away takes a second, explicit yes. */
static bool discard_other_kernel_image(void *ctx, const char *image_release,
                                       const char *running_release)
{
        struct resume_ui *ui = ctx;
        char made_by[65], running[65], context[256];
        dmo_cli_printable_releases(image_release, running_release, made_by, running);
        show_splash(ui);
        struct dmo_splash_session *s = splash_ready(ui);
        snprintf(context, sizeof(context),
                 _("This session was saved by kernel %s, but kernel %s is running."), made_by,
                 running);
        if (dmo_splash_session_ask_yes_no(s, context,
                                          _("Keep it, and restart to pick that kernel?"), true,
                                          question_timeout_ms) != 0)
                return false;
        snprintf(context, sizeof(context),
                 _("Discarding it loses everything that was open in the session saved by "
                   "kernel %s."),
                 made_by);
        return dmo_splash_session_ask_yes_no(s, context, _("Discard the saved session for good?"),
                                             false, question_timeout_ms) == 1;
}

struct resume_cmd {
        struct dmo_cli_common c;
        struct dmo_resume_config rc;
        struct dmo_cli_keyopts keys;
        struct dmo_cli_unlock unlock;
        bool noresume; /* --noresume */
        bool help;
        char path[512]; /* the resolved resume device */
        char msg[512];  /* why nothing was restored, for the splash and stderr */
        char note[512]; /* an image skipped without a refusal, or the device not found */
        enum dmo_cli_target_source source;
        const char *kmsg; /* --kmsg */
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
                if (opt == OPT_NORESUME) {
                        m->noresume = true;
                } else if (opt == OPT_KEY_FILE) {
                        m->keys.key_file = optarg;
                } else if (opt == OPT_SECRET_KEY) {
                        m->keys.secret_key = optarg;
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
        const struct dmo_config *cfg = &m->c.config;
        if (!m->keys.key_file && cfg->key_file[0])
                m->keys.key_file = cfg->key_file;
        if (!m->keys.secret_key && cfg->secret_key[0])
                m->keys.secret_key = cfg->secret_key;
        r = dmo_cli_swap_target_why(&m->c, true, &m->rc.target, m->path, sizeof(m->path),
                                    &cmdline_noresume, m->note, sizeof(m->note), &m->source);
        m->rc.noresume = m->noresume || cmdline_noresume;
        return r;
}

/* Opens the kernel and runs the engine; the splash comes up when an image
 * is found and shows a refusal before it goes. 0 when the engine ran. */
static int run(struct resume_cmd *m)
{
        struct dmo_snapshot *snap = NULL;
        struct dmo_progress *progress = NULL;
        struct resume_ui ui = {
            .launch = NULL,
            .efi_location = m->source == DMO_TARGET_EFI_LOCATION ? &m->c : NULL,
        };
        int r = dmo_progress_new(DMO_MODE_RESUME, &progress);
        if (r < 0)
                return r;
        r = dmo_cli_open_kernel(&m->c, DMO_SNAPSHOT_RESUME, &snap);
        if (r < 0)
                goto out;
        dmo_cli_splash_init(&ui.cs, &m->c, DMO_MODE_RESUME, progress);
        m->rc.progress = progress;
        m->rc.hooks = (struct dmo_engine_hooks){
            .ctx = &ui,
            .image_found = image_found,
            .devices_thawed = redraw_splash,
            .before_restore = settle_splash,
            .stats_ready = dmo_cli_print_profile,
            .discard_other_kernel_image = discard_other_kernel_image,
        };
        m->unlock = (struct dmo_cli_unlock){
            .opts = &m->keys,
            .splash = unlock_splash,
            .splash_ctx = &ui,
        };
        m->rc.unlock = dmo_cli_unlock;
        m->rc.unlock_ctx = &m->unlock;
        dmo_engine_resume(snap, &m->rc, &m->res);
        dmo_cli_unlock_release(&m->unlock);
        /* A dormouse image was there and is gone (refused, or discarded by
         * noresume): the variable would only send the next boot to a plain
         * swap area. Images still on disk (kept) keep it. */
        if (ui.efi_location &&
            (m->res.outcome == DMO_RESUME_REFUSED || m->res.outcome == DMO_RESUME_DISCARDED))
                dmo_cli_efi_location_clear(ui.efi_location);
        m->result = dmo_cli_resume_describe(&m->rc, &m->res, m->msg, sizeof(m->msg), m->note,
                                            sizeof(m->note));
        /* A refusal stays on the screen long enough to be read. */
        dmo_splash_session_fail(splash_ready(&ui), m->msg[0] ? m->msg : NULL);
        dmo_splash_session_free(ui.session);
        ui.session = NULL;
out:
        dmo_splash_session_free(splash_ready(&ui));
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

/* In the initramfs no journald runs: what was only on the screen is lost
 * to `journalctl -b`. The kernel's log buffer keeps it until journald
 * imports it. The real kernel's /dev/kmsg, or --kmsg; the simulated kernel
 * writes nowhere unless told. Nothing is restored by then: the engine has
 * returned without the jump into the saved system. */
static void tell_journal(const struct resume_cmd *m)
{
        const char *path = m->kmsg ? m->kmsg : m->c.simulated ? NULL : DMO_KMSG_PATH;
        const char *text = m->msg[0] ? m->msg : m->note;
        if (!path || !text[0])
                return;
        /* The printed sentence, without the program's name (the record has
         * it as its identifier) and the line's end. */
        static const char name[] = "dormouse: ";
        if (strncmp(text, name, sizeof(name) - 1) == 0)
                text += sizeof(name) - 1;
        enum dmo_kmsg_level level = m->msg[0] ? DMO_KMSG_ERR : DMO_KMSG_WARNING;
        int r = dmo_kmsg_write(path, level, "dormouse", text);
        if (r < 0 && m->kmsg)
                dmo_cli_note(_("--kmsg %s: %s"), m->kmsg, strerror(-r));
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
                tell_journal(&m);
        dmo_cli_common_release(&m.c);
        return dmo_cli_exit_status(DMO_CMD_RESUME, r);
}
