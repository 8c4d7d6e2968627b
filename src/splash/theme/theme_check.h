/* theme_check: lints a theme for `dormouse theme check DIR`.
 *
 * Contract: loads the theme (unknown keys, broken images and missing fonts
 * come from the loader as diagnostics), then lays it out at 800×600,
 * 1280×800, 1920×1080 and 3840×2160 and paints every mode, alone and with
 * each dialog (passphrase, question), with the longest plausible strings in
 * the current language. Reports text whose ink leaves its box (it would be
 * clipped), elements that overlap (texts, bar, logo, throbber, dialog),
 * elements outside the screen, and text whose contrast with any pixel
 * under it is below WCAG 2's 4.5:1 (3:1 for large text: 24 px, or 18.66 px
 * bold). Never prints; returns the exit status for
 * the CLI.
 */
#ifndef DMO_SPLASH_THEME_CHECK_H
#define DMO_SPLASH_THEME_CHECK_H

#include "splash/theme/theme.h"

/* 0: clean; 1: warnings only; 2: errors (or the theme does not load). */
int dmo_theme_check(const char *name_or_dir, const struct dmo_theme_paths *paths,
                    struct dmo_diag *diag);

#endif
