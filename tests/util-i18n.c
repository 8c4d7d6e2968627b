/* util/i18n: LANGUAGE chooses the language under LANG=C.UTF-8 (how the
 * initramfs and the tests choose one) on every glibc, also on 2.39 and
 * later, which ignore LANGUAGE in a locale named C.<codeset>; plain C stays
 * untranslated, LC_NUMERIC stays C and LOCPATH is left as it was. */
#include "util/i18n.h"

#include "tests/testlib.h"

#include <locale.h>

/* The environment of one run: LANG=lang (NULL: unset), LC_ALL=all,
 * LANGUAGE=language; LC_MESSAGES always unset. */
static void init_with(const char *lang, const char *all, const char *language)
{
        unsetenv("LC_MESSAGES");
        unsetenv("DORMOUSE_LOCALEDIR");
        if (lang)
                setenv("LANG", lang, 1);
        else
                unsetenv("LANG");
        if (all)
                setenv("LC_ALL", all, 1);
        else
                unsetenv("LC_ALL");
        if (language)
                setenv("LANGUAGE", language, 1);
        else
                unsetenv("LANGUAGE");
        dmo_i18n_init();
}

static bool translated_as(const char *msgid, const char *want)
{
        const char *got = _(msgid);
        if (strcmp(got, want) != 0)
                printf("# \"%s\" came out as \"%s\", wanted \"%s\" (LC_MESSAGES %s)\n", msgid, got,
                       want, setlocale(LC_MESSAGES, NULL));
        return strcmp(got, want) == 0;
}

static void language_chooses_the_catalog_under_lang_c_utf8(void)
{
        init_with("C.UTF-8", NULL, "de");
        CHECK(translated_as("Yes", "Ja"));
        CHECK(dmo_i18n_have_catalog());
        init_with("C.UTF-8", NULL, "fr");
        CHECK(translated_as("No", "Non"));
}

static void language_chooses_the_catalog_under_lc_all_c_utf8(void)
{
        init_with("de_DE.UTF-8", "C.utf8", "de");
        CHECK(translated_as("Yes", "Ja"));
}

static void plain_c_and_posix_stay_untranslated(void)
{
        init_with(NULL, "C", "de");
        CHECK(translated_as("Yes", "Yes"));
        CHECK(!strcmp(setlocale(LC_MESSAGES, NULL), "C"));
        init_with("POSIX", NULL, "de");
        CHECK(translated_as("Yes", "Yes"));
}

static void without_language_c_utf8_is_english(void)
{
        init_with("C.UTF-8", NULL, NULL);
        CHECK(translated_as("Yes", "Yes"));
        CHECK(!dmo_i18n_have_catalog());
        CHECK(strcmp(setlocale(LC_MESSAGES, NULL), DMO_I18N_MESSAGES_LOCALE) != 0);
}

static void numbers_stay_c_and_locpath_is_left_alone(void)
{
        unsetenv("LOCPATH");
        init_with("C.UTF-8", NULL, "de");
        CHECK(!strcmp(setlocale(LC_NUMERIC, NULL), "C"));
        CHECK(getenv("LOCPATH") == NULL);
        setenv("LOCPATH", "/nonexistent-dormouse-locpath", 1);
        init_with("C.UTF-8", NULL, "it");
        const char *lp = getenv("LOCPATH");
        CHECK(lp && !strcmp(lp, "/nonexistent-dormouse-locpath"));
        CHECK(translated_as("Yes", "Sì"));
        unsetenv("LOCPATH");
}

DMO_TEST_MAIN(T(language_chooses_the_catalog_under_lang_c_utf8),
              T(language_chooses_the_catalog_under_lc_all_c_utf8),
              T(plain_c_and_posix_stay_untranslated), T(without_language_c_utf8_is_english),
              T(numbers_stay_c_and_locpath_is_left_alone))
