/* rate: the data phase's throughput, from the points in time at which the
 * page count was seen to grow, for the MB/s and time-left figures.
 *
 * Why not an average since the phase began (or a moving average seeded
 * with one): the time a phase spends not moving pages is not the rate of
 * the pages left. At resume the kernel takes the first hundred pages, then
 * sets aside the image's memory for half a second before it takes more; an
 * average over that said "3 MB/s, about 2 minutes left" of a restore that
 * took two seconds. So the rate is measured over the current flow only:
 * - the time before the first page moved is not counted;
 * - a stall, a gap between points far longer than the usual one (4 times
 *   the lower median of the recent gaps, and at least 150 ms), ends the
 *   flow before it: a slow disk whose pages come in even bursts has no
 *   stalls, its gaps are all alike;
 * - no figure until the flow has lasted 300 ms over at least three gaps;
 *   once there was one, a flow too short for a new figure keeps the last.
 *
 * Contract: arithmetic on the times the caller passes (seconds on any
 * monotonic clock); no clock, no I/O, no allocation, no locking: a value
 * type its owner embeds and guards. */
#ifndef DMO_PROGRESS_RATE_H
#define DMO_PROGRESS_RATE_H

#include <stdint.h>

enum { DMO_RATE_POINTS = 32 };

struct dmo_rate {
        double t[DMO_RATE_POINTS];       /* ring of points, oldest at head */
        uint64_t pages[DMO_RATE_POINTS]; /* the page count at t */
        unsigned head, count;
        uint64_t last_pages; /* the count at the reset or the newest point */
        double held;         /* the last figure, pages/s; 0 while none */
};

/* Starts over (a new phase) with the count the phase starts from. */
void dmo_rate_reset(struct dmo_rate *r, uint64_t pages);

/* The page count seen at now; a point is kept only when it grew. */
void dmo_rate_note(struct dmo_rate *r, double now, uint64_t pages);

/* Pages per second over the current flow, between its first point and the
 * newest; 0 while there is no figure worth showing. While the pages do not
 * move the figure stands. Updates the held figure. */
double dmo_rate_pages_per_s(struct dmo_rate *r);

/* Seconds left of a data phase, < 0 while there is no figure: the pages
 * left at the page rate, but never less than the bytes left on the device
 * at the rate the device moves them while it works (its requests' bytes
 * over their durations), where the phase's bytes are known in advance (at
 * resume, the image's chunk stream; bytes_left 0 otherwise).
 *
 * Why both: where the device is the bottleneck its bytes come at a steady
 * rate, but the pages they hold follow how well each part of memory
 * compressed; when the part that compressed well came first (the kernel's
 * own memory, before the programs'), the page rate promised half the time
 * it took. Why the device's rate while it works, not the bytes seen per
 * second: where the device is fast, it waits for the pages to be taken, so
 * bytes per second of the whole phase would follow the pages' compression
 * in turn and promise too much time; its rate while working is then far
 * above what the pages need, and the pages decide. */
double dmo_rate_time_left(double pages_left, double pages_per_s, double bytes_left,
                          double device_bytes_per_s);

#endif
