/* builtin: the look the splash falls back to when no theme can be loaded
 * (a broken install, a removed or misspelled theme): the default theme's
 * colours and layout without its images, compiled into the binary so that a
 * screen never stays black. Text appears when the shipped fonts are found;
 * without them the bar alone still moves.
 *
 * Contract: constant data only; loaded like any keyfile through
 * dmo_theme_load_from_memory().
 */
#ifndef DMO_SPLASH_THEME_BUILTIN_H
#define DMO_SPLASH_THEME_BUILTIN_H

#include <stddef.h>

extern const char dmo_theme_builtin_conf[];
extern const size_t dmo_theme_builtin_conf_len;

#endif
