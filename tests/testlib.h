/* testlib: a tiny TAP producer for dormouse's tests.
 *
 * Contract: each test program calls TEST(name) blocks through dmo_test_run();
 * every CHECK that fails marks the current test "not ok" and prints what was
 * expected, with file and line. The automake TAP driver reads the output.
 * Helpers to find the source tree (fixtures, themes, fonts) and to make
 * scratch directories that are removed at exit live here too. */
#ifndef DMO_TESTLIB_H
#define DMO_TESTLIB_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dmo_test_state {
        int planned;
        int current;
        bool current_failed;
        int failures;
};

extern struct dmo_test_state dmo_test_state_;

#define CHECK(cond)                                                                                \
        do {                                                                                       \
                if (!(cond)) {                                                                     \
                        dmo_test_state_.current_failed = true;                                     \
                        printf("# %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);          \
                }                                                                                  \
        } while (0)

#define CHECK_INT(a, op, b)                                                                        \
        do {                                                                                       \
                long long va_ = (long long)(a), vb_ = (long long)(b);                              \
                if (!(va_ op vb_)) {                                                               \
                        dmo_test_state_.current_failed = true;                                     \
                        printf("# %s:%d: check failed: %s %s %s (%lld vs %lld)\n", __FILE__,       \
                               __LINE__, #a, #op, #b, va_, vb_);                                   \
                }                                                                                  \
        } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                                            \
        do {                                                                                       \
                const char *h_ = (hay), *n_ = (needle);                                            \
                if (!h_ || !strstr(h_, n_)) {                                                      \
                        dmo_test_state_.current_failed = true;                                     \
                        printf("# %s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__,    \
                               h_ ? h_ : "(null)", n_);                                            \
                }                                                                                  \
        } while (0)

/* Stops the current test when a precondition for the rest of it fails. */
#define REQUIRE(cond)                                                                              \
        do {                                                                                       \
                if (!(cond)) {                                                                     \
                        dmo_test_state_.current_failed = true;                                     \
                        printf("# %s:%d: required: %s\n", __FILE__, __LINE__, #cond);              \
                        return;                                                                    \
                }                                                                                  \
        } while (0)

typedef void (*dmo_test_fn)(void);

struct dmo_test_case {
        const char *name;
        dmo_test_fn fn;
};

/* Runs every case, prints TAP, returns the process exit status. */
int dmo_test_run(const struct dmo_test_case *cases, size_t n);

/* Path below the source tree ($DMO_SRCDIR, else the configure-time one). */
const char *dmo_test_srcpath(const char *rel, char *buf, size_t len);

/* A fresh scratch directory, removed (recursively) when the program exits. */
const char *dmo_test_tmpdir(void);

/* Runs a shell command, returns its exit status (or -1); output goes to the TAP log as comments
 * when it fails. */
int dmo_test_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Reads at most len - 1 bytes of a file into buf, NUL-terminated (an empty
 * string when it cannot be read); returns buf. */
const char *dmo_test_read_file(const char *path, char *buf, size_t len);

/* The dormouse program under test: $DMO_BUILDDIR/dormouse. */
const char *dmo_test_program(void);
/* Runs it with the arguments (shell words), stdin from /dev/null, stdout and
 * stderr captured; returns its exit status. DMO_TEST_VERBOSE=1 copies the
 * output into the TAP log. */
int dmo_test_run_program(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* What the last run printed, NUL-terminated (at most 16 KiB). */
const char *dmo_test_program_output(void);
/* Copies the last 20 lines of it into the TAP log as comments. */
void dmo_test_show_program_output(void);

/* A point in time on CLOCK_MONOTONIC. Every wait in a test is a deadline on
 * a condition, never a count of polls or sleeps: a poll that returns at once
 * (a hung-up terminal, a closed pipe) would use up a count in microseconds,
 * and a loaded machine stretches each sleep. */
struct dmo_test_deadline {
        int64_t end_ns;
};

struct dmo_test_deadline dmo_test_deadline_in(int timeout_ms);
bool dmo_test_deadline_passed(struct dmo_test_deadline d);
/* Milliseconds left (rounded up), 0 once passed: a timeout for poll(). */
int dmo_test_deadline_left_ms(struct dmo_test_deadline d);
/* Sleeps ms, or until the deadline if that comes first. */
void dmo_test_nap_ms(struct dmo_test_deadline d, int ms);

/* Evaluates cond until it is true or timeout_ms have passed, napping 1 ms
 * between tries; true when it became true (it is tried once more at the
 * deadline). */
#define DMO_TEST_WAIT_UNTIL(cond, timeout_ms)                                                      \
        ({                                                                                         \
                struct dmo_test_deadline dl_ = dmo_test_deadline_in(timeout_ms);                   \
                bool ok_;                                                                          \
                while (!(ok_ = (cond)) && !dmo_test_deadline_passed(dl_))                          \
                        dmo_test_nap_ms(dl_, 1);                                                   \
                ok_ || (cond);                                                                     \
        })

#define DMO_TEST_MAIN(...)                                                                         \
        int main(void)                                                                             \
        {                                                                                          \
                static const struct dmo_test_case cases_[] = {__VA_ARGS__};                        \
                return dmo_test_run(cases_, sizeof(cases_) / sizeof(cases_[0]));                   \
        }

#define T(fn)                                                                                      \
        {                                                                                          \
#fn, fn                                                                            \
        }

#endif
