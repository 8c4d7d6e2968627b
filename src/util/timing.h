/* timing: DORMOUSE_DEBUG_TIMING's marks, for developers and the VM
 * benchmark (tests/vm/run.py reads them from the serial console).
 *
 * Contract:
 * - dmo_timing_mark() prints "dormouse: timing: WHAT N ms after the process
 *   started" on stderr when DORMOUSE_DEBUG_TIMING is set, and does nothing
 *   else; the text is deliberately untranslated.
 * - No allocation; one read of /proc/self/stat the first time it is asked.
 *   Never called after the freeze (it writes to stderr).
 */
#ifndef DMO_UTIL_TIMING_H
#define DMO_UTIL_TIMING_H

#include <stdbool.h>

/* DORMOUSE_DEBUG_TIMING is set. */
bool dmo_timing_enabled(void);

/* The process's start in CLOCK_BOOTTIME seconds (10 ms steps), for a
 * caller that reads it once and times many events against it; 0 or a
 * negative errno. */
int dmo_timing_process_start_s(double *out);

/* Milliseconds from the process's start (the kernel's start time, in clock
 * ticks: 10 ms steps) to now; negative when it cannot be read. */
double dmo_timing_since_start_ms(void);

/* "dormouse: timing: WHAT N ms after the process started", when enabled. */
void dmo_timing_mark(const char *what);

#endif
