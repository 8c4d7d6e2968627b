/* strtable: one way to map an enum to its names and back.
 *
 * Contract: a table is a `static const char *const x_table[]` with designated
 * initializers indexed by the enum (`[DMO_CP_FROZEN] = "frozen"`); holes are
 * NULL and never match. The macros below generate the two lookups in the
 * spirit of systemd's DEFINE_STRING_TABLE_LOOKUP:
 *
 *   DMO_DEFINE_STRING_TABLE_LOOKUP(static, checkpoint, enum dmo_checkpoint)
 *     → checkpoint_to_string(v): the name, or NULL when v has none;
 *       checkpoint_from_string(s, &v): 0, or -EINVAL when s names nothing.
 *
 * Modules that already export their own names use the two halves,
 * DMO_STRING_TABLE_TO_STRING and DMO_STRING_TABLE_FROM_STRING, which take the
 * function's name, the table and (to_string) what to return for no name.
 * Lookups never allocate, never print and accept a NULL string (-EINVAL).
 * Tables of translatable text hold N_() strings; the caller applies _().
 */
#ifndef DMO_STRTABLE_H
#define DMO_STRTABLE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

/* table[v], or NULL when v is outside the table or a hole. */
static inline const char *dmo_strtable_get(const char *const *table, size_t n, long long v)
{
        if (v < 0 || (unsigned long long)v >= n)
                return NULL;
        return table[v];
}

/* The index whose name is s (compared ignoring ASCII case when icase), or
 * -EINVAL. */
static inline int dmo_strtable_find(const char *const *table, size_t n, const char *s, bool icase)
{
        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (table[i] && (icase ? strcasecmp(table[i], s) : strcmp(table[i], s)) == 0)
                        return (int)i;
        return -EINVAL;
}

#define DMO_STRTABLE_SIZE(table) (sizeof(table) / sizeof((table)[0]))

#define DMO_STRING_TABLE_TO_STRING(scope, func, type, table, fallback)                             \
        __attribute__((unused)) scope const char *func(type v)                                     \
        {                                                                                          \
                const char *s_ = dmo_strtable_get(table, DMO_STRTABLE_SIZE(table), (long long)v);  \
                return s_ ? s_ : (fallback);                                                       \
        }

#define DMO_STRING_TABLE_FROM_STRING_FULL(scope, func, type, table, icase)                         \
        __attribute__((unused)) scope int func(const char *s, type *out)                           \
        {                                                                                          \
                int i_ = dmo_strtable_find(table, DMO_STRTABLE_SIZE(table), s, icase);             \
                if (i_ < 0)                                                                        \
                        return i_;                                                                 \
                *out = (type)i_;                                                                   \
                return 0;                                                                          \
        }

#define DMO_STRING_TABLE_FROM_STRING(scope, func, type, table)                                     \
        DMO_STRING_TABLE_FROM_STRING_FULL(scope, func, type, table, false)

#define DMO_DEFINE_STRING_TABLE_LOOKUP(scope, name, type)                                          \
        DMO_STRING_TABLE_TO_STRING(scope, name##_to_string, type, name##_table, NULL)              \
        DMO_STRING_TABLE_FROM_STRING(scope, name##_from_string, type, name##_table)

#endif
