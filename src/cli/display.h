/* display: the CLI's side of the splash. Picks outputs from --splash (or the
 * config), loads the theme, opens the outputs and starts the renderer, all
 * before the engine freezes anything. It never fails the command: an output
 * that cannot be opened is reported and the next one is tried (kms → fbdev →
 * text), so a broken theme or a missing GPU costs the pictures, never the
 * hibernation.
 */
#ifndef DMO_CLI_DISPLAY_H
#define DMO_CLI_DISPLAY_H

#include "cli/cli.h"
#include "progress/progress.h"

struct dmo_display;

/* *out may be NULL afterwards (--splash none); every other call accepts NULL. */
void dmo_display_start(const struct dmo_cli_common *c, enum dmo_mode mode,
                       struct dmo_progress *progress, struct dmo_display **out);

/* The same on a thread of its own, for resume: the image loads while the
 * splash comes up (a GPU driver still loading in the initramfs can keep the
 * kms output waiting for seconds). The copy of *c must outlive the launch.
 * join() waits for the thread, frees the launch and gives what start() would
 * have (NULL included); join(NULL) is NULL. */
struct dmo_display_launch;
int dmo_display_launch(const struct dmo_cli_common *c, enum dmo_mode mode,
                       struct dmo_progress *progress, struct dmo_display_launch **out);
struct dmo_display *dmo_display_launch_join(struct dmo_display_launch *l);

/* Stops drawing (the renderer's thread ends after a final frame). The
 * engine's before_freeze and before_snapshot hooks: before SNAPSHOT_FREEZE
 * the thread must go so the freezing thread can start it again exempt from
 * the freezer (see engine.h); before SNAPSHOT_CREATE_IMAGE nothing may draw
 * while the kernel suspends the devices. */
void dmo_display_pause(void *display);

/* After the freeze (or the thaw): drawing goes on, on a thread the calling
 * thread creates. */
void dmo_display_after_freeze(void *display);

/* After the devices came back: drawing goes on, the whole frame redrawn. */
void dmo_display_devices_thawed(void *display);
/* Resume, just before the restore: stop drawing and leave the final frame in
 * every buffer of every output. */
void dmo_display_before_restore(void *display);

/* Final frame, restores the screen, frees. With a failure (a translated
 * sentence), the error scene shows it, for a few seconds on a screen. */
void dmo_display_stop(struct dmo_display *d, const char *failure);

/* Where themes and fonts are: $DORMOUSE_THEMES_DIR / $DORMOUSE_FONTS_DIR,
 * then the installed data dir, then the source tree (running uninstalled). */
void dmo_display_data_paths(char *themes, size_t tlen, char *fonts, size_t flen);

#endif
