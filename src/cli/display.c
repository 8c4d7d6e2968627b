#include "cli/display.h"
#include "cli/report.h"
#include "engine/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static bool dir_exists(const char *path)
{
        return access(path, R_OK | X_OK) == 0;
}

static void pick_dir(const char *env, const char *sub, char *out, size_t len)
{
        const char *e = getenv(env);
        if (e && *e) {
                snprintf(out, len, "%s", e);
                return;
        }
        snprintf(out, len, "%s/%s", DMO_DATADIR, sub);
        if (dir_exists(out))
                return;
        snprintf(out, len, "%s/%s", DMO_SRCDIR, sub);
}

void dmo_display_data_paths(char *themes, size_t tlen, char *fonts, size_t flen)
{
        pick_dir("DORMOUSE_THEMES_DIR", "themes", themes, tlen);
        pick_dir("DORMOUSE_FONTS_DIR", "fonts", fonts, flen);
}

void dmo_display_plymouth_paths(struct dmo_theme_paths *paths)
{
        const char *root = getenv("DORMOUSE_PLYMOUTH_ROOT"), *bgrt = getenv("DORMOUSE_BGRT_DIR");
        paths->plymouth_root = root && *root ? root : NULL;
        paths->bgrt_dir = bgrt && *bgrt ? bgrt : NULL;
}

static void print_report(void *ctx, enum dmo_splash_report kind, const char *sentence)
{
        (void)ctx;
        if (kind == DMO_SPLASH_ERROR)
                dmo_cli_error("%s", sentence);
        else
                dmo_cli_note("%s", sentence);
}

void dmo_cli_splash_init(struct dmo_cli_splash *cs, const struct dmo_cli_common *c,
                         enum dmo_mode mode, struct dmo_progress *progress)
{
        dmo_display_data_paths(cs->themes, sizeof(cs->themes), cs->fonts, sizeof(cs->fonts));
        cs->paths = (struct dmo_theme_paths){.themes_dir = cs->themes, .fonts_dir = cs->fonts};
        dmo_display_plymouth_paths(&cs->paths);
        cs->params = (struct dmo_splash_session_params){
            .mode = mode,
            .progress = progress,
            .spec = c->splash,
            .theme = c->theme,
            .paths = &cs->paths,
            /* Esc and Backspace cancel a hibernation; a resume has nothing
             * left to cancel, but its questions (an image of another
             * kernel) and an encrypted image's passphrase are answered
             * from here. */
            .key_tty_fd = STDIN_FILENO,
            .tty0 = "/dev/tty0",
            .tty_prefix = "/dev/tty",
            /* The simulated kernel leaves the machine's VTs where they are. */
            .switch_vt = !c->simulated,
            .report = print_report,
        };
}

enum dmo_shutdown dmo_cli_splash_choose_shutdown(void *session, enum dmo_shutdown planned)
{
        if (session && planned != DMO_SHUTDOWN_SUSPEND && dmo_splash_session_reboot_after(session))
                return DMO_SHUTDOWN_REBOOT;
        return planned;
}

/* The last moment before the snapshot: the splash stops drawing (nothing
 * may draw while the kernel suspends the devices), and with
 * DORMOUSE_DEBUG_TIMING what dormouse itself puts in the image is
 * measured. */
static void before_snapshot(void *session)
{
        dmo_splash_session_pause(session);
        if (dmo_cli_profiling())
                dmo_cli_print_own_memory();
}

void dmo_cli_splash_hibernate_hooks(struct dmo_engine_hooks *hooks,
                                    struct dmo_splash_session *session)
{
        hooks->ctx = session;
        hooks->devices_thawed = dmo_splash_session_devices_thawed;
        hooks->before_freeze = dmo_splash_session_before_freeze;
        hooks->after_freeze = dmo_splash_session_after_freeze;
        hooks->before_snapshot = before_snapshot;
        hooks->stats_ready = dmo_cli_print_profile;
        hooks->choose_shutdown = dmo_cli_splash_choose_shutdown;
}
