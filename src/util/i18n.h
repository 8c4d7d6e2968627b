/* i18n: the one place that binds user-facing text to gettext.
 * Every string a person reads goes through _() (or N_() where it must be a
 * constant and is translated later). Modules below the edge (kernel/, image,
 * codec, engine) return errno codes and never produce sentences. */
#ifndef DMO_I18N_H
#define DMO_I18N_H

#include "config.h"

#include <stdbool.h>
#include <stddef.h>

#if ENABLE_NLS
#include <libintl.h>
#define _(s) gettext(s)
#else
#define _(s) (s)
#endif
#define N_(s) (s)

/* The name of the locale dmo_i18n_init() selects for LC_MESSAGES when the
 * environment asks for C.<codeset> and sets LANGUAGE. */
#define DMO_I18N_MESSAGES_LOCALE "dormouse"

/* Sets the locale from the environment (LC_NUMERIC stays "C": numbers in
 * files and logs are read and written the C way) and binds the text domain
 * to dmo_i18n_localedir(). When the environment asks for a C.<codeset>
 * locale (LANG=C.UTF-8) and sets LANGUAGE, LC_MESSAGES becomes
 * DMO_I18N_MESSAGES_LOCALE from dmo_i18n_locpath(), so that gettext
 * honours LANGUAGE on glibc 2.39 and later too (they ignore it in
 * C.<codeset>). */
void dmo_i18n_init(void);

/* Speaks lang (a LANGUAGE value) from here on: sets LANGUAGE, the locale
 * C.UTF-8 (else the environment's), LC_NUMERIC "C" and, as dmo_i18n_init()
 * does, LC_MESSAGES DMO_I18N_MESSAGES_LOCALE. 0 or a negative errno. */
int dmo_i18n_use_language(const char *lang);

/* The directory holding the locale DMO_I18N_MESSAGES_LOCALE (only its
 * LC_MESSAGES): the build tree's data/locale when this program runs from
 * its build tree, else $(pkglibdir)/locale. */
const char *dmo_i18n_locpath(void);

/* Where the catalogs are: $DORMOUSE_LOCALEDIR when set (the tests, the
 * initramfs); the build tree's po/locale when this program runs from its
 * build tree ("make" puts every catalog of po/LINGUAS there); else the
 * installed LOCALEDIR. */
const char *dmo_i18n_localedir(void);

/* Whether a catalog answers for the current language (LANGUAGE, LC_ALL,
 * LC_MESSAGES, LANG). False for English, which needs none. */
bool dmo_i18n_have_catalog(void);

/* The decimal separator for numbers a person reads: the locale's when the
 * environment's LC_NUMERIC has one other than ".", else the interface
 * language's (its translators write it in the catalog). */
void dmo_i18n_decimal_point(char *out, size_t len);

/* Whether the interface language reads right to left. Its translators say
 * so by translating the marker "default:LTR" as "default:RTL" (GTK's
 * convention), so a new language needs no list in the code. */
bool dmo_i18n_rtl(void);

#endif
