/* Theme diagnostics in tests: print them as TAP comments, and look for one
 * by severity, key and text. */
#ifndef DMO_TESTS_DIAG_TESTUTIL_H
#define DMO_TESTS_DIAG_TESTUTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "splash/theme/theme.h"

static inline void dump(const struct dmo_diag *d)
{
        for (size_t i = 0; i < d->n; i++) {
                char line[700];
                dmo_diag_format(&d->items[i], line, sizeof(line));
                printf("# %s\n", line);
        }
}

/* key, text: NULL matches any. */
static inline bool has_diag(const struct dmo_diag *d, enum dmo_diag_severity sev, const char *key,
                            const char *text)
{
        for (size_t i = 0; i < d->n; i++)
                if (d->items[i].severity == sev && (!key || !strcmp(d->items[i].key, key)) &&
                    (!text || strstr(d->items[i].message, text)))
                        return true;
        return false;
}

#endif
