#include "util/i18n.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

void dmo_i18n_init(void)
{
        setlocale(LC_ALL, "");
#if ENABLE_NLS
        const char *dir = getenv("DORMOUSE_LOCALEDIR");
        bindtextdomain(PACKAGE, dir ? dir : LOCALEDIR);
        bind_textdomain_codeset(PACKAGE, "UTF-8");
        textdomain(PACKAGE);
#endif
}

bool dmo_i18n_rtl(void)
{
        /* TRANSLATORS: not shown. Translate as "default:RTL" when your
         * language is written from right to left (Arabic, Hebrew, Persian);
         * the splash then mirrors its layout. Keep "default:LTR" otherwise. */
        return strcmp(_("default:LTR"), "default:RTL") == 0;
}
