#include "util/i18n.h"

#include <locale.h>
#include <stdlib.h>

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
