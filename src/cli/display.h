/* display: the CLI's adapter to the splash session (splash/session.h). It
 * turns --splash, --theme and the data directories into the session's
 * parameters and prints what the session reports, as notes or errors. All
 * the splash's logic (outputs, fallbacks, renderer, keys) is the session's.
 */
#ifndef DMO_CLI_DISPLAY_H
#define DMO_CLI_DISPLAY_H

#include <stddef.h>

#include "cli/cli.h"
#include "progress/progress.h"
#include "splash/session.h"

/* The session's parameters and the storage they point into: keep it alive
 * as long as the session (or its launch). */
struct dmo_cli_splash {
        char themes[512], fonts[512];
        struct dmo_theme_paths paths;
        struct dmo_splash_session_params params;
};

void dmo_cli_splash_init(struct dmo_cli_splash *cs, const struct dmo_cli_common *c,
                         enum dmo_mode mode, struct dmo_progress *progress);

/* The engine's choose_shutdown hook (ctx: the session): the person pressed
 * `r` on the splash, so the machine reboots into the image instead of
 * powering off. Suspend-to-both is left alone. */
enum dmo_shutdown dmo_cli_splash_choose_shutdown(void *session, enum dmo_shutdown planned);

/* The hibernate engine's hooks that the session serves (ctx: session). */
struct dmo_engine_hooks;
void dmo_cli_splash_hibernate_hooks(struct dmo_engine_hooks *hooks,
                                    struct dmo_splash_session *session);

/* Resume's splash. It comes up only once there is an image to restore,
 * on its own thread while the image starts loading. */
struct dmo_cli_resume_ui {
        struct dmo_cli_splash cs;
        struct dmo_splash_launch *launch;   /* the splash coming up */
        struct dmo_splash_session *session; /* ...and once it is up */
        /* The device came from HibernateLocation: the variable goes once
         * the image it names is being restored, as systemd-hibernate-resume
         * removes it, so that nothing looks there again. */
        const struct dmo_cli_common *efi_location;
};
/* The resume engine's hooks that the splash serves (ctx: ui). */
void dmo_cli_resume_ui_hooks(struct dmo_cli_resume_ui *ui, struct dmo_engine_hooks *hooks);
/* Brings the splash up now (a network device being connected), as an
 * image found would. */
void dmo_cli_resume_ui_show(struct dmo_cli_resume_ui *ui);
/* The splash once it is up, or NULL; everything but the launch thread
 * touches the splash only after this. */
struct dmo_splash_session *dmo_cli_resume_ui_splash(struct dmo_cli_resume_ui *ui);

/* Where themes and fonts are: $DORMOUSE_THEMES_DIR / $DORMOUSE_FONTS_DIR,
 * then the installed data dir, then the source tree (running uninstalled). */
void dmo_display_data_paths(char *themes, size_t tlen, char *fonts, size_t flen);

/* Where Plymouth's themes and the firmware logo are read, for tests and
 * previews: $DORMOUSE_PLYMOUTH_ROOT (default "/") and $DORMOUSE_BGRT_DIR
 * (default /sys/firmware/acpi/bgrt). */
void dmo_display_plymouth_paths(struct dmo_theme_paths *paths);

#endif
