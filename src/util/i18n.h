/* i18n: the one place that binds user-facing text to gettext.
 * Every string a person reads goes through _() (or N_() where it must be a
 * constant and is translated later). Modules below the edge (kernel/, image,
 * codec, engine) return errno codes and never produce sentences. */
#ifndef DMO_I18N_H
#define DMO_I18N_H

#include "config.h"

#include <stdbool.h>

#if ENABLE_NLS
#include <libintl.h>
#define _(s) gettext(s)
#else
#define _(s) (s)
#endif
#define N_(s) (s)

/* Binds the text domain: LOCALEDIR unless $DORMOUSE_LOCALEDIR is set (used by
 * the tests and the initramfs, which carry catalogs elsewhere). */
void dmo_i18n_init(void);

/* Whether the interface language reads right to left. Its translators say
 * so by translating the marker "default:LTR" as "default:RTL" (GTK's
 * convention), so a new language needs no list in the code. */
bool dmo_i18n_rtl(void);

#endif
