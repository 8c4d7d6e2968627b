/* The resume's splash: it comes up only once there is an image to
 * restore (a normal boot without one stays quiet), and asks the questions
 * the engine's hooks put. See display.h. */
#include <stdio.h>

#include "cli/display.h"
#include "cli/efi_location.h"
#include "cli/report.h"
#include "engine/engine.h"
#include "util/i18n.h"

/* The splash comes up only once there is an image to restore: a normal
 * boot without one stays quiet. */
/* The image starts loading at once; the splash follows when it is ready. */
static void show_splash(void *ctx)
{
        struct dmo_cli_resume_ui *ui = ctx;
        if (ui->session || ui->launch)
                return;
        if (dmo_splash_session_launch(&ui->cs.params, &ui->launch) < 0)
                dmo_splash_session_new(&ui->cs.params, &ui->session);
}

void dmo_cli_resume_ui_show(struct dmo_cli_resume_ui *ui)
{
        show_splash(ui);
}

/* A sound image of this kernel: the splash, and HibernateLocation has
 * served. */
static void image_found(void *ctx)
{
        struct dmo_cli_resume_ui *ui = ctx;
        if (ui->efi_location) {
                dmo_cli_efi_location_clear(ui->efi_location);
                ui->efi_location = NULL;
        }
        show_splash(ui);
}

struct dmo_splash_session *dmo_cli_resume_ui_splash(struct dmo_cli_resume_ui *ui)
{
        if (ui->launch) {
                ui->session = dmo_splash_session_launch_join(ui->launch);
                ui->launch = NULL;
        }
        return ui->session;
}

static void redraw_splash(void *ctx)
{
        struct dmo_cli_resume_ui *ui = ctx;
        dmo_splash_session_devices_thawed(dmo_cli_resume_ui_splash(ui));
}

static void settle_splash(void *ctx)
{
        struct dmo_cli_resume_ui *ui = ctx;
        dmo_splash_session_before_restore(dmo_cli_resume_ui_splash(ui));
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
        struct dmo_cli_resume_ui *ui = ctx;
        char made_by[65], running[65], context[256];
        dmo_cli_printable_releases(image_release, running_release, made_by, running);
        show_splash(ui);
        struct dmo_splash_session *s = dmo_cli_resume_ui_splash(ui);
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

void dmo_cli_resume_ui_hooks(struct dmo_cli_resume_ui *ui, struct dmo_engine_hooks *hooks)
{
        *hooks = (struct dmo_engine_hooks){
            .ctx = ui,
            .image_found = image_found,
            .devices_thawed = redraw_splash,
            .before_restore = settle_splash,
            .stats_ready = dmo_cli_print_profile,
            .discard_other_kernel_image = discard_other_kernel_image,
        };
}
