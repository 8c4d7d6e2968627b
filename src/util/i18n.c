#include "util/i18n.h"

#include <errno.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether this program runs from its build tree (not installed): then the
 * catalogs "make" compiled into the tree are the ones to use, the way the
 * themes and fonts of the source tree are. */
static bool running_from_tree(void)
{
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        size_t bl = strlen(DMO_BUILDDIR);
        if (n <= 0)
                return false;
        exe[n] = '\0';
        return (size_t)n > bl && !strncmp(exe, DMO_BUILDDIR, bl) && exe[bl] == '/';
}

const char *dmo_i18n_localedir(void)
{
        const char *dir = getenv("DORMOUSE_LOCALEDIR");
        if (dir && *dir)
                return dir;
        return running_from_tree() ? DMO_BUILDDIR "/po/locale" : LOCALEDIR;
}

const char *dmo_i18n_locpath(void)
{
        return running_from_tree() ? DMO_BUILDDIR "/data/locale" : DMO_PKGLIBDIR "/locale";
}

#if ENABLE_NLS
/* The locale name the environment asks for LC_MESSAGES, the way setlocale()
 * reads it: LC_ALL, LC_MESSAGES, LANG, the first one set and not empty. */
static const char *requested_messages_locale(void)
{
        static const char *const vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
        for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
                const char *v = getenv(vars[i]);
                if (v && *v)
                        return v;
        }
        return "";
}

/* glibc 2.39 and later ignore LANGUAGE when the LC_MESSAGES locale is
 * named "C" or "C.<codeset>" (intl/dcigettext.c, guess_category_value);
 * glibc up to 2.38 ignored it for "C" only. "LANG=C.UTF-8 LANGUAGE=de"
 * is how the initramfs (which has no locale data) and the tests choose a
 * language, so when the environment asks for a C.<codeset> locale and
 * LANGUAGE is set, LC_MESSAGES becomes DMO_I18N_MESSAGES_LOCALE: a copy of
 * C.UTF-8's LC_MESSAGES under another name, in dmo_i18n_locpath(). Plain
 * "C" and "POSIX" keep their untranslated messages, as on every glibc.
 * want: the locale name asked for. */
static void use_messages_locale(const char *want)
{
        const char *language = getenv("LANGUAGE");
        if (!language || !*language || strncmp(want, "C.", 2) != 0)
                return;

        const char *old = getenv("LOCPATH");
        char *saved = old ? strdup(old) : NULL;
        if (old && !saved)
                return;
        /* setlocale() reads LOCPATH on each call; the rest of the program
         * and its children see the environment as it was. */
        if (setenv("LOCPATH", dmo_i18n_locpath(), 1) == 0) {
                setlocale(LC_MESSAGES, DMO_I18N_MESSAGES_LOCALE);
                if (saved)
                        setenv("LOCPATH", saved, 1);
                else
                        unsetenv("LOCPATH");
        }
        free(saved);
}
#endif

void dmo_i18n_init(void)
{
        setlocale(LC_ALL, "");
        /* Numbers in configuration files, themes and logs are read and
         * written the C way ("0.62"); the screen formats its own with
         * dmo_i18n_decimal_point(). */
        setlocale(LC_NUMERIC, "C");
#if ENABLE_NLS
        use_messages_locale(requested_messages_locale());
        bindtextdomain(PACKAGE, dmo_i18n_localedir());
        bind_textdomain_codeset(PACKAGE, "UTF-8");
        textdomain(PACKAGE);
#endif
}

int dmo_i18n_use_language(const char *lang)
{
        if (setenv("LANGUAGE", lang, 1) != 0)
                return -errno;
        /* gettext ignores LANGUAGE in the "C" locale; any UTF-8 locale will do. */
        if (!setlocale(LC_ALL, "C.UTF-8"))
                setlocale(LC_ALL, "");
        setlocale(LC_NUMERIC, "C");
#if ENABLE_NLS
        use_messages_locale("C.UTF-8");
#endif
        return 0;
}

bool dmo_i18n_rtl(void)
{
        /* TRANSLATORS: not shown. Translate as "default:RTL" when your
         * language is written from right to left (Arabic, Hebrew, Persian);
         * the splash then mirrors its layout. Keep "default:LTR" otherwise. */
        return strcmp(_("default:LTR"), "default:RTL") == 0;
}

bool dmo_i18n_have_catalog(void)
{
#if ENABLE_NLS
        /* The empty msgid translates to the catalog's header when there is
         * a catalog for the language. */
        const char *h = gettext("");
        return h && *h;
#else
        return false;
#endif
}

void dmo_i18n_decimal_point(char *out, size_t len)
{
        locale_t loc = newlocale(LC_NUMERIC_MASK, "", (locale_t)0);
        if (loc) {
                const char *r = nl_langinfo_l(RADIXCHAR, loc);
                bool own = r && *r && strcmp(r, ".") != 0;
                if (own)
                        snprintf(out, len, "%s", r);
                freelocale(loc);
                if (own)
                        return;
        }
        /* TRANSLATORS: not shown as such: after the colon, the decimal
         * separator of your language ("decimal-separator:," gives 4,9 GB).
         * Used when the locale does not say otherwise. */
        const char *t = _("decimal-separator:.");
        const char *sep = strchr(t, ':');
        snprintf(out, len, "%s", sep && sep[1] ? sep + 1 : ".");
}
