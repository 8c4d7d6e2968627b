/* systemd's sleep.conf: the files in systemd's order, the keys
 * suspend-then-hibernate and hybrid sleep need. Hand-written: libsystemd
 * exports no parser for systemd's own configuration files. */
#include "sleep/sleep_conf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define USEC_PER_SEC UINT64_C(1000000)

static const char *const conf_dirs[] = {"/etc/systemd", "/run/systemd", "/usr/local/lib/systemd",
                                        "/usr/lib/systemd"};
#define N_CONF_DIRS (sizeof(conf_dirs) / sizeof(conf_dirs[0]))

struct allow_settings {
        int suspend, hibernation, s2h, hybrid; /* -1: not set */
};

static void words_set(struct dmo_sleep_words *w, const char *list)
{
        w->n = 0;
        for (const char *p = list; *p;) {
                p += strspn(p, " \t");
                size_t len = strcspn(p, " \t");
                if (len == 0)
                        break;
                if (w->n < DMO_SLEEP_WORDS_MAX && len < sizeof(w->word[0])) {
                        memcpy(w->word[w->n], p, len);
                        w->word[w->n][len] = '\0';
                        w->n++;
                }
                p += len;
        }
}

/* systemd's list keys add to the list; an empty value empties it. */
static void words_append(struct dmo_sleep_words *w, const char *list)
{
        if (!*list) {
                w->n = 0;
                return;
        }
        struct dmo_sleep_words more;
        words_set(&more, list);
        for (unsigned i = 0; i < more.n && w->n < DMO_SLEEP_WORDS_MAX; i++)
                memcpy(w->word[w->n++], more.word[i], sizeof(more.word[i]));
}

void dmo_sleep_conf_defaults(struct dmo_sleep_conf *c)
{
        *c = (struct dmo_sleep_conf){
            .hibernate_delay_us = DMO_USEC_INFINITY,
            .suspend_estimation_us = 3600 * USEC_PER_SEC,
            .hibernate_on_ac_power = true,
            .allow_suspend = true,
            .allow_hibernation = true,
            .allow_suspend_then_hibernate = true,
            .allow_hybrid_sleep = true,
        };
}

static const struct {
        const char *name;
        uint64_t usec;
} units[] = {
    {"usec", 1},
    {"us", 1},
    {"µs", 1},
    {"msec", 1000},
    {"ms", 1000},
    {"seconds", USEC_PER_SEC},
    {"second", USEC_PER_SEC},
    {"sec", USEC_PER_SEC},
    {"s", USEC_PER_SEC},
    {"minutes", 60 * USEC_PER_SEC},
    {"minute", 60 * USEC_PER_SEC},
    {"min", 60 * USEC_PER_SEC},
    {"hours", 3600 * USEC_PER_SEC},
    {"hour", 3600 * USEC_PER_SEC},
    {"hr", 3600 * USEC_PER_SEC},
    {"h", 3600 * USEC_PER_SEC},
    {"days", 86400 * USEC_PER_SEC},
    {"day", 86400 * USEC_PER_SEC},
    {"d", 86400 * USEC_PER_SEC},
    {"weeks", 7 * 86400 * USEC_PER_SEC},
    {"week", 7 * 86400 * USEC_PER_SEC},
    {"w", 7 * 86400 * USEC_PER_SEC},
    {"months", 2629800 * USEC_PER_SEC},
    {"month", 2629800 * USEC_PER_SEC},
    {"M", 2629800 * USEC_PER_SEC},
    {"years", 31557600 * USEC_PER_SEC},
    {"year", 31557600 * USEC_PER_SEC},
    {"y", 31557600 * USEC_PER_SEC},
    {"m", 60 * USEC_PER_SEC}, /* after "ms", "min", "month(s)" */
};

/* The unit at p (the longest name that is not followed by a letter), or 0;
 * *len is its length. */
static uint64_t unit_at(const char *p, size_t *len)
{
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
                size_t n = strlen(units[i].name);
                if (strncmp(p, units[i].name, n) == 0 && !isalpha((unsigned char)p[n])) {
                        *len = n;
                        return units[i].usec;
                }
        }
        return 0;
}

int dmo_parse_timespan(const char *s, uint64_t *usec)
{
        while (isspace((unsigned char)*s))
                s++;
        if (strcmp(s, "infinity") == 0) {
                *usec = DMO_USEC_INFINITY;
                return 0;
        }
        uint64_t total = 0;
        bool any = false;
        const char *p = s;
        for (;;) {
                while (isspace((unsigned char)*p))
                        p++;
                if (!*p)
                        break;
                if (!isdigit((unsigned char)*p))
                        return -EINVAL;
                errno = 0;
                char *end;
                unsigned long long whole = strtoull(p, &end, 10);
                if (errno)
                        return -ERANGE;
                double frac = 0;
                if (*end == '.') {
                        const char *f = end + 1;
                        double scale = 0.1;
                        while (isdigit((unsigned char)*f)) {
                                frac += (*f - '0') * scale;
                                scale /= 10;
                                f++;
                        }
                        end = (char *)f;
                }
                p = end;
                while (*p == ' ' || *p == '\t')
                        p++;
                size_t len = 0;
                uint64_t unit = *p ? unit_at(p, &len) : USEC_PER_SEC;
                if (!unit) {
                        /* A bare number is seconds, but only on its own. */
                        return -EINVAL;
                }
                if (!*p && any)
                        return -EINVAL; /* "1h 30": systemd wants a unit there */
                p += len;
                if (whole > UINT64_MAX / unit)
                        return -ERANGE;
                uint64_t part = (uint64_t)whole * unit + (uint64_t)(frac * (double)unit);
                if (total > UINT64_MAX - 1 - part)
                        return -ERANGE;
                total += part;
                any = true;
        }
        if (!any)
                return -EINVAL;
        *usec = total;
        return 0;
}

static int parse_bool(const char *v)
{
        static const char *const yes[] = {"1", "yes", "y", "true", "t", "on"};
        static const char *const no[] = {"0", "no", "n", "false", "f", "off"};
        for (size_t i = 0; i < 6; i++) {
                if (strcasecmp(v, yes[i]) == 0)
                        return 1;
                if (strcasecmp(v, no[i]) == 0)
                        return 0;
        }
        return -1;
}

/* Keeps the first problem, its texts cut to fit. */
static void problem(struct dmo_sleep_conf *c, enum dmo_sleep_conf_problem_kind kind,
                    const char *name, unsigned line, const char *key, const char *value)
{
        struct dmo_sleep_conf_problem *p = &c->problem;
        if (p->kind != DMO_SLEEP_CONF_FINE)
                return;
        p->kind = kind;
        p->line = line;
        snprintf(p->file, sizeof(p->file), "%s", name);
        snprintf(p->key, sizeof(p->key), "%s", key);
        snprintf(p->value, sizeof(p->value), "%s", value);
}

/* Keys of systemd's [Sleep] that concern only its own path (or are gone):
 * known, so not reported, and ignored. */
static const char *const other_keys[] = {"HibernateMode", "HibernateState", "HybridSleepMode",
                                         "HybridSleepState", "SuspendMode"};

static void apply(struct dmo_sleep_conf *c, struct allow_settings *allow, const char *name,
                  unsigned line, const char *key, const char *value)
{
        int b;
        uint64_t us;
        int *allow_slot = NULL;
        if (strcmp(key, "AllowSuspend") == 0)
                allow_slot = &allow->suspend;
        else if (strcmp(key, "AllowHibernation") == 0)
                allow_slot = &allow->hibernation;
        else if (strcmp(key, "AllowSuspendThenHibernate") == 0)
                allow_slot = &allow->s2h;
        else if (strcmp(key, "AllowHybridSleep") == 0)
                allow_slot = &allow->hybrid;
        if (allow_slot || strcmp(key, "HibernateOnACPower") == 0) {
                b = parse_bool(value);
                if (b < 0) {
                        problem(c, DMO_SLEEP_CONF_NOT_BOOL, name, line, key, value);
                        return;
                }
                if (allow_slot)
                        *allow_slot = b;
                else
                        c->hibernate_on_ac_power = b;
        } else if (strcmp(key, "HibernateDelaySec") == 0 ||
                   strcmp(key, "SuspendEstimationSec") == 0) {
                if (!*value) {
                        us = strcmp(key, "HibernateDelaySec") == 0 ? DMO_USEC_INFINITY
                                                                   : 3600 * USEC_PER_SEC;
                } else if (dmo_parse_timespan(value, &us) < 0 || us == 0) {
                        problem(c, DMO_SLEEP_CONF_NOT_TIMESPAN, name, line, key, value);
                        return;
                }
                if (strcmp(key, "HibernateDelaySec") == 0)
                        c->hibernate_delay_us = us;
                else
                        c->suspend_estimation_us = us;
        } else if (strcmp(key, "SuspendState") == 0) {
                words_append(&c->suspend_state, value);
        } else if (strcmp(key, "MemorySleepMode") == 0) {
                words_append(&c->memory_sleep_mode, value);
        } else {
                for (size_t i = 0; i < sizeof(other_keys) / sizeof(other_keys[0]); i++)
                        if (strcmp(key, other_keys[i]) == 0)
                                return;
                problem(c, DMO_SLEEP_CONF_UNKNOWN_KEY, name, line, key, value);
        }
}

static char *trim(char *s)
{
        while (isspace((unsigned char)*s))
                s++;
        size_t n = strlen(s);
        while (n && isspace((unsigned char)s[n - 1]))
                s[--n] = '\0';
        return s;
}

static void parse_into(const char *name, const char *text, struct dmo_sleep_conf *c,
                       struct allow_settings *allow)
{
        bool in_sleep = false;
        unsigned line_no = 0;
        for (const char *p = text; *p;) {
                size_t len = strcspn(p, "\n");
                char line[1024];
                size_t keep = len < sizeof(line) - 1 ? len : sizeof(line) - 1;
                memcpy(line, p, keep);
                line[keep] = '\0';
                p += len + (p[len] == '\n');
                line_no++;
                char *l = trim(line);
                if (!*l || *l == '#' || *l == ';')
                        continue;
                if (*l == '[') {
                        in_sleep = strcmp(l, "[Sleep]") == 0;
                        continue;
                }
                if (!in_sleep)
                        continue;
                char *eq = strchr(l, '=');
                if (!eq) {
                        problem(c, DMO_SLEEP_CONF_NOT_KEY_VALUE, name, line_no, "", l);
                        continue;
                }
                *eq = '\0';
                apply(c, allow, name, line_no, trim(l), trim(eq + 1));
        }
}

static void finish(struct dmo_sleep_conf *c, const struct allow_settings *allow)
{
        if (allow->suspend >= 0)
                c->allow_suspend = allow->suspend;
        if (allow->hibernation >= 0)
                c->allow_hibernation = allow->hibernation;
        c->allow_suspend_then_hibernate =
            allow->s2h >= 0 ? allow->s2h : c->allow_suspend && c->allow_hibernation;
        c->allow_hybrid_sleep =
            allow->hybrid >= 0 ? allow->hybrid : c->allow_suspend && c->allow_hibernation;
        if (c->suspend_state.n == 0)
                words_set(&c->suspend_state, "mem standby freeze");
}

void dmo_sleep_conf_parse(const char *name, const char *text, struct dmo_sleep_conf *c)
{
        struct allow_settings allow = {-1, -1, -1, -1};
        parse_into(name, text, c, &allow);
        finish(c, &allow);
}

/* The whole of a small file; NULL when absent or unreadable. */
static char *slurp(const char *path)
{
        FILE *f = fopen(path, "re");
        if (!f)
                return NULL;
        char *buf = malloc(65536);
        size_t n = buf ? fread(buf, 1, 65535, f) : 0;
        fclose(f);
        if (buf)
                buf[n] = '\0';
        return buf;
}

struct dropin {
        char name[256];
        size_t dir; /* index in conf_dirs */
};

static int by_name(const void *a, const void *b)
{
        return strcmp(((const struct dropin *)a)->name, ((const struct dropin *)b)->name);
}

#define DROPINS_MAX 64

/* The *.conf names of every sleep.conf.d, each once, from the first
 * directory that has it. */
static size_t list_dropins(const char *root, struct dropin *list)
{
        char path[4096];
        size_t n = 0;
        for (size_t i = 0; i < N_CONF_DIRS; i++) {
                snprintf(path, sizeof(path), "%s%s/sleep.conf.d", root, conf_dirs[i]);
                DIR *d = opendir(path);
                if (!d)
                        continue;
                struct dirent *e;
                while ((e = readdir(d)) && n < DROPINS_MAX) {
                        size_t len = strlen(e->d_name);
                        if (len < 6 || len >= sizeof(list[0].name) || e->d_name[0] == '.' ||
                            strcmp(e->d_name + len - 5, ".conf") != 0)
                                continue;
                        bool seen = false;
                        for (size_t k = 0; k < n && !seen; k++)
                                seen = strcmp(list[k].name, e->d_name) == 0;
                        if (seen)
                                continue;
                        memcpy(list[n].name, e->d_name, len + 1);
                        list[n++].dir = i;
                }
                closedir(d);
        }
        qsort(list, n, sizeof(list[0]), by_name);
        return n;
}

static void parse_file(const char *root, const char *path, struct dmo_sleep_conf *c,
                       struct allow_settings *allow, bool *found)
{
        char *text = slurp(path);
        if (!text)
                return;
        parse_into(path + strlen(root), text, c, allow);
        free(text);
        *found = true;
}

int dmo_sleep_conf_load(const char *root, struct dmo_sleep_conf *c)
{
        struct allow_settings allow = {-1, -1, -1, -1};
        char path[4096];
        bool found = false;
        dmo_sleep_conf_defaults(c);
        for (size_t i = 0; i < N_CONF_DIRS && !found; i++) {
                snprintf(path, sizeof(path), "%s%s/sleep.conf", root, conf_dirs[i]);
                parse_file(root, path, c, &allow, &found);
        }
        struct dropin *list = calloc(DROPINS_MAX, sizeof(*list));
        if (!list)
                return -ENOMEM;
        size_t n = list_dropins(root, list);
        for (size_t k = 0; k < n; k++) {
                snprintf(path, sizeof(path), "%s%s/sleep.conf.d/%s", root, conf_dirs[list[k].dir],
                         list[k].name);
                parse_file(root, path, c, &allow, &found);
        }
        free(list);
        finish(c, &allow);
        return 0;
}
