/* testpty: a person at a terminal, for tests that run the dormouse program
 * on a pseudo-terminal, wait for what it shows and type keys.
 *
 * Contract:
 * - Every wait is a deadline on CLOCK_MONOTONIC (dmo_test_deadline), never a
 *   count of polls: a terminal whose far side hung up (the program closes it
 *   while exiting, before it can be reaped) makes poll() return at once, so
 *   a count of "10 ms" polls would run out in microseconds.
 * - The program's exit is waited for on a pidfd where the kernel has them,
 *   else by polling waitpid() at short intervals up to the deadline.
 * - Whatever the program showed is kept (the last 64 KiB) for the test to
 *   check and for the TAP log when a wait fails.
 * - A program that outlives the deadline of dmo_test_pty_finish() is
 *   killed: a test never hangs. */
#ifndef DMO_TESTPTY_H
#define DMO_TESTPTY_H

#include <stdbool.h>

struct dmo_test_pty;

/* Starts argv (argv[0] is the path of the program) on a new
 * pseudo-terminal as its controlling terminal; 0 or a negative errno. */
int dmo_test_pty_spawn(const char *const argv[], struct dmo_test_pty **out);

/* Reads what the program shows until `text` appears after the end of the
 * previous match (or the start), or timeout_ms pass, or the program closed
 * the terminal. True when it appeared; false prints the terminal's last
 * lines into the TAP log. */
bool dmo_test_pty_await(struct dmo_test_pty *t, const char *text, int timeout_ms);

/* Types keys on the terminal; 0 or a negative errno. */
int dmo_test_pty_type(struct dmo_test_pty *t, const char *keys);

/* What the terminal showed after the end of the last match (all of it
 * before the first), NUL-terminated; valid until the next call. */
const char *dmo_test_pty_since_match(const struct dmo_test_pty *t);

/* Reads the terminal until the program exits, for at most timeout_ms.
 * Returns its exit status, -1 when it died of a signal, or -ETIMEDOUT when
 * it outlived the deadline (it is killed then). Frees nothing: call
 * dmo_test_pty_free() after reading the output. */
int dmo_test_pty_finish(struct dmo_test_pty *t, int timeout_ms);

/* Kills the program if it still runs, reaps it, closes the terminal. */
void dmo_test_pty_free(struct dmo_test_pty *t);

#endif
