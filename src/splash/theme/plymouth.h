/* plymouth: Plymouth themes shown by dormouse, in the look the machine boots with.
 *
 * Contract:
 * - Recognises a Plymouth theme setting ("plymouth" for the system's default,
 *   "plymouth:NAME", or a path ending in ".plymouth"), finds its .plymouth
 *   file (the default from /etc/plymouth/plymouthd.conf, then
 *   /usr/share/plymouth/plymouthd.defaults, as plymouth-set-default-theme
 *   does; all under an injectable root) and translates a two-step theme into
 *   the text of an equivalent dormouse theme.conf (format 1), which theme.c
 *   then loads like any other: this module never touches struct dmo_theme.
 * - The .plymouth file is untrusted: at most 256 KiB, any bytes. Only numbers
 *   it parses and image names it finds in the theme's ImageDir (listed, never
 *   decoded here) go into the generated text.
 * - A theme of another plugin (script, fade-throbber, space-flares, text,
 *   details, tribar, …) is refused with -ENOTSUP and an error naming the
 *   plugin; a [two-step] key dormouse cannot honour is a note naming it.
 * - Never draws, never prints, no global state.
 */
#ifndef DMO_SPLASH_PLYMOUTH_H
#define DMO_SPLASH_PLYMOUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "splash/theme/theme.h"

/* True for "plymouth", "plymouth:NAME" and "….plymouth". */
bool dmo_plymouth_is_ref(const char *setting);

/* The system's default Plymouth theme name (plymouthd.conf, then
 * plymouthd.defaults under root; NULL root: "/"). -ENOENT when neither names one. */
int dmo_plymouth_default_theme(const char *root, char *name, size_t len);

/* Finds the .plymouth file of a setting. -ENOENT (with an error in diag)
 * when there is none. */
int dmo_plymouth_find(const char *setting, const char *root, char *file, size_t len,
                      struct dmo_diag *diag);

/* Translates .plymouth text (read from `file`, for diagnostics and for the
 * default ImageDir) into theme.conf text (*conf, free() it) and the theme
 * directory the images are named relative to (image_dir). paths: where
 * dormouse's fonts are (a theme's font family is looked up there) and the
 * Plymouth root. */
int dmo_plymouth_translate(const char *text, size_t len, const char *file,
                           const struct dmo_theme_paths *paths, char **conf, char *image_dir,
                           size_t dir_len, struct dmo_diag *diag);

/* dmo_plymouth_find + read + dmo_plymouth_translate; file gets the .plymouth path. */
int dmo_plymouth_load(const char *setting, const struct dmo_theme_paths *paths, char **conf,
                      char *image_dir, size_t dir_len, char *file, size_t file_len,
                      struct dmo_diag *diag);

#endif
