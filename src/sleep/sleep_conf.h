/* sleep_conf: the keys of systemd's sleep.conf that decide what
 * suspend-then-hibernate and hybrid sleep do, read the way systemd-sleep
 * reads them, so that a machine configured for systemd-sleep behaves the
 * same under dormouse.
 *
 * Files, as systemd 257 finds them (under a root, "" on a running system):
 * the first of /etc, /run, /usr/local/lib and /usr/lib's systemd/sleep.conf,
 * then every *.conf of their sleep.conf.d directories in file name order
 * (a name in an earlier directory hides the same name in a later one);
 * later settings win. Only the [Sleep] section counts.
 *
 * Keys: HibernateDelaySec= (unset: no delay, the battery decides),
 * SuspendEstimationSec= (default 1 h), HibernateOnACPower= (default yes),
 * SuspendState= (default "mem standby freeze"), MemorySleepMode=
 * (default: the kernel's), and AllowSuspend=, AllowHibernation=,
 * AllowSuspendThenHibernate=, AllowHybridSleep= (the last two default to
 * AllowSuspend and AllowHibernation both). Other keys of systemd's are
 * ignored, as they concern the kernel's own path; a key systemd does not
 * know is reported in `problem` and ignored, as systemd does.
 *
 * Contract: reads the files under the root it is given and nothing else; no
 * allocation survives a call; no global state; never prints and has no
 * words of its own: the first problem is kept as a kind and its facts (file,
 * line, key, value), and the caller says it.
 */
#ifndef DMO_SLEEP_SLEEP_CONF_H
#define DMO_SLEEP_SLEEP_CONF_H

#include <stdbool.h>
#include <stdint.h>

#define DMO_USEC_INFINITY   UINT64_MAX
#define DMO_SLEEP_WORDS_MAX 8

struct dmo_sleep_words {
        unsigned n;
        char word[DMO_SLEEP_WORDS_MAX][16];
};

enum dmo_sleep_conf_problem_kind {
        DMO_SLEEP_CONF_FINE,          /* nothing was wrong */
        DMO_SLEEP_CONF_NOT_BOOL,      /* KEY=VALUE, VALUE not yes or no */
        DMO_SLEEP_CONF_NOT_TIMESPAN,  /* KEY=VALUE, VALUE not a time span */
        DMO_SLEEP_CONF_UNKNOWN_KEY,   /* KEY (VALUE) not one of systemd's */
        DMO_SLEEP_CONF_NOT_KEY_VALUE, /* the line (in value) is not KEY=VALUE */
};

/* The first thing that was wrong, e.g. /etc/systemd/sleep.conf, line 3,
 * HibernateDelaySec=soon, not a time span. Each text is cut to fit. */
struct dmo_sleep_conf_problem {
        enum dmo_sleep_conf_problem_kind kind;
        char file[256]; /* as named to the parser, without the root */
        unsigned line;  /* from 1 */
        char key[256];
        char value[256];
};

struct dmo_sleep_conf {
        uint64_t hibernate_delay_us;    /* DMO_USEC_INFINITY: not set */
        uint64_t suspend_estimation_us; /* how often a battery is looked at */
        bool hibernate_on_ac_power;
        struct dmo_sleep_words suspend_state;     /* written to /sys/power/state */
        struct dmo_sleep_words memory_sleep_mode; /* written to /sys/power/mem_sleep */
        bool allow_suspend, allow_hibernation, allow_suspend_then_hibernate, allow_hybrid_sleep;
        struct dmo_sleep_conf_problem problem; /* kind DMO_SLEEP_CONF_FINE: none */
};

/* systemd's defaults. */
void dmo_sleep_conf_defaults(struct dmo_sleep_conf *c);

/* Reads the files under root ("" for the system's). Missing files are not
 * an error. Returns 0 (or -ENOMEM); a bad line leaves its key at the value
 * before it and is kept in c->problem (the first one only). */
int dmo_sleep_conf_load(const char *root, struct dmo_sleep_conf *c);

/* One file's lines into c (the loader's step; the tests feed text). */
void dmo_sleep_conf_parse(const char *name, const char *text, struct dmo_sleep_conf *c);

/* A systemd time span: "90", "90s", "30min", "1h 30min", "2h30m",
 * "infinity"; units us, ms, s, min (m), h, d, w, M (30.44 d), y (365.25 d)
 * and their long names. Returns 0, or -EINVAL / -ERANGE. */
int dmo_parse_timespan(const char *s, uint64_t *usec);

#endif
