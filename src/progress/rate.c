#include "progress/rate.h"

#include <stdlib.h>
#include <string.h>

/* A gap this many times the usual one is a stall... */
static const double stall_factor = 4.0;
/* ...and never one shorter than this (frames are sampled at up to 60 Hz). */
static const double stall_min_s = 0.15;
/* The least flow a figure is made from. */
static const double flow_min_s = 0.3;
static const unsigned flow_min_gaps = 3;

void dmo_rate_reset(struct dmo_rate *r, uint64_t pages)
{
        memset(r, 0, sizeof(*r));
        r->last_pages = pages;
}

void dmo_rate_note(struct dmo_rate *r, double now, uint64_t pages)
{
        if (pages <= r->last_pages)
                return;
        r->last_pages = pages;
        unsigned at = (r->head + r->count) % DMO_RATE_POINTS;
        if (r->count == DMO_RATE_POINTS)
                r->head = (r->head + 1) % DMO_RATE_POINTS; /* the oldest goes */
        else
                r->count++;
        r->t[at] = now;
        r->pages[at] = pages;
}

static double point_t(const struct dmo_rate *r, unsigned i)
{
        return r->t[(r->head + i) % DMO_RATE_POINTS];
}

static uint64_t point_pages(const struct dmo_rate *r, unsigned i)
{
        return r->pages[(r->head + i) % DMO_RATE_POINTS];
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

/* The gap that counts as a stall, from the gaps between the points. */
static double stall_limit(const struct dmo_rate *r)
{
        double gaps[DMO_RATE_POINTS];
        unsigned n = 0;
        for (unsigned i = 1; i < r->count; i++)
                gaps[n++] = point_t(r, i) - point_t(r, i - 1);
        if (n == 0)
                return stall_min_s;
        qsort(gaps, n, sizeof(gaps[0]), cmp_double);
        /* The lower median: of two gaps, a stall and a frame's, the frame's. */
        double limit = stall_factor * gaps[(n - 1) / 2];
        return limit > stall_min_s ? limit : stall_min_s;
}

double dmo_rate_pages_per_s(struct dmo_rate *r)
{
        if (r->count < 2)
                return r->held;
        double limit = stall_limit(r);
        unsigned newest = r->count - 1, first = 0;
        for (unsigned i = newest; i > 0; i--) {
                if (point_t(r, i) - point_t(r, i - 1) > limit) {
                        first = i; /* the flow begins where the stall ended */
                        break;
                }
        }
        double span = point_t(r, newest) - point_t(r, first);
        if (span < flow_min_s || newest - first < flow_min_gaps)
                return r->held;
        /* Between two points, both where the count was seen to grow: up to
         * now would count the gap in progress without its pages. */
        double pages = (double)(point_pages(r, newest) - point_pages(r, first));
        r->held = pages / span;
        return r->held;
}

double dmo_rate_time_left(double pages_left, double pages_per_s, double bytes_left,
                          double device_bytes_per_s)
{
        if (!(pages_per_s > 0) || pages_left < 0)
                return -1;
        double by_pages = pages_left / pages_per_s;
        if (!(device_bytes_per_s > 0) || !(bytes_left > 0))
                return by_pages;
        double by_bytes = bytes_left / device_bytes_per_s;
        return by_bytes > by_pages ? by_bytes : by_pages;
}
