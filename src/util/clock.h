/* clock: nanoseconds on a clock, for durations the engine measures.
 *
 * Contract: one clock_gettime(); no allocation, no I/O, safe after the
 * snapshot and from any thread. */
#ifndef DMO_UTIL_CLOCK_H
#define DMO_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t dmo_clock_ns(clockid_t clk)
{
        struct timespec ts;
        clock_gettime(clk, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
