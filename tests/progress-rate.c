/* The data phase's rate, from points in time the test makes up: the resume
 * that stalls after its first pages (the kernel setting aside the image's
 * memory), a steady flow, a slow disk in even bursts, idle time before the
 * first page; and the time left of a resume whose well-compressed part
 * comes first, from a slow disk and from a fast one. Each time-left figure
 * is compared with the real time left of the made-up run, which is known
 * exactly. */
#include <math.h>

#include "progress/rate.h"
#include "tests/testlib.h"

/* A made-up run: pages come at `pps` pages/s, seen every `frame` s. */
struct run {
        struct dmo_rate r;
        double t;
        double pages;
        uint64_t total;
};

static void advance(struct run *run, double seconds, double pps, double frame)
{
        for (double end = run->t + seconds; run->t + frame <= end + 1e-9;) {
                run->t += frame;
                run->pages += pps * frame;
                dmo_rate_note(&run->r, run->t, (uint64_t)run->pages);
        }
}

/* Seconds left by the figure, and the error against the real time left
 * (pages left at the real rate), in percent. */
static double eta_error_percent(struct run *run, double real_pps)
{
        double pps = dmo_rate_pages_per_s(&run->r);
        if (!(pps > 0))
                return NAN;
        double left = (double)run->total - run->pages;
        return 100.0 * (left / pps - left / real_pps) / (left / real_pps);
}

static void resume_that_stalls_after_its_first_pages(void)
{
        /* 63851 pages, 128 of them at once, half a second of the kernel's
         * own work, then 60000 pages/s, frames every 33 ms. */
        struct run run = {.total = 63851};
        dmo_rate_reset(&run.r, 0);
        advance(&run, 0.2, 0, 0.033); /* before the first page: nothing */
        CHECK(dmo_rate_pages_per_s(&run.r) == 0);
        run.pages = 128;
        run.t += 0.033;
        dmo_rate_note(&run.r, run.t, 128);
        advance(&run, 0.53, 0, 0.033); /* the stall */
        CHECK(dmo_rate_pages_per_s(&run.r) == 0);
        /* From here on, every figure shown is within 10 % of the truth;
         * the old average since the phase began was 20 times too slow. */
        int shown = 0;
        double worst = 0;
        while (run.pages + 60000 * 0.033 < run.total) {
                advance(&run, 0.033, 60000, 0.033);
                double e = eta_error_percent(&run, 60000);
                if (!isnan(e)) {
                        shown++;
                        worst = fabs(e) > worst ? fabs(e) : worst;
                }
        }
        printf("# %d frames with a figure, worst time-left error %.1f %%\n", shown, worst);
        CHECK(shown > 0);
        CHECK(worst < 10);
}

static void steady_flow_is_measured_exactly(void)
{
        struct run run = {.total = 1000000};
        dmo_rate_reset(&run.r, 0);
        advance(&run, 0.2, 25000, 0.05);
        CHECK(dmo_rate_pages_per_s(&run.r) == 0); /* too short yet */
        advance(&run, 0.3, 25000, 0.05);
        double pps = dmo_rate_pages_per_s(&run.r);
        CHECK(fabs(pps - 25000) < 25000 * 0.02);
}

static void slow_disk_in_even_bursts_has_no_stalls(void)
{
        /* 5 MB/s in 1 MiB chunks: 256 pages every 0.2 s, sampled at 30 Hz,
         * so most frames see nothing new. */
        struct run run = {.total = 20000};
        dmo_rate_reset(&run.r, 0);
        for (int chunk = 1; chunk <= 12; chunk++) {
                for (int f = 0; f < 6; f++) {
                        run.t += 0.2 / 6;
                        dmo_rate_note(&run.r, run.t, (uint64_t)run.pages);
                }
                run.pages += 256;
                dmo_rate_note(&run.r, run.t, (uint64_t)run.pages);
        }
        double e = eta_error_percent(&run, 256 / 0.2);
        printf("# slow disk: %.0f pages/s measured, 1280 real, time-left error %.1f %%\n",
               dmo_rate_pages_per_s(&run.r), e);
        CHECK(!isnan(e) && fabs(e) < 15);
}

static void figure_stands_while_pages_do_not_move(void)
{
        struct run run = {.total = 1000000};
        dmo_rate_reset(&run.r, 0);
        advance(&run, 1.0, 10000, 0.05);
        double before = dmo_rate_pages_per_s(&run.r);
        CHECK(before > 9000 && before < 11000);
        advance(&run, 2.0, 0, 0.05);
        CHECK(dmo_rate_pages_per_s(&run.r) == before);
        /* Then a short flow after the stall: too short for its own figure,
         * the last one stands rather than a blank. */
        advance(&run, 0.1, 20000, 0.05);
        CHECK(dmo_rate_pages_per_s(&run.r) == before);
        advance(&run, 0.5, 20000, 0.05);
        double after = dmo_rate_pages_per_s(&run.r);
        CHECK(after > 18000 && after < 22000);
}

static void reset_forgets_the_last_phase(void)
{
        struct run run = {.total = 1000000};
        dmo_rate_reset(&run.r, 0);
        advance(&run, 1.0, 10000, 0.05);
        CHECK(dmo_rate_pages_per_s(&run.r) > 0);
        dmo_rate_reset(&run.r, (uint64_t)run.pages);
        CHECK(dmo_rate_pages_per_s(&run.r) == 0);
        /* The count it starts from is not a page moved. */
        dmo_rate_note(&run.r, run.t + 0.05, (uint64_t)run.pages);
        CHECK(run.r.count == 0);
}

/* A resume whose first 30 % of pages (the kernel's own memory) compressed
 * to a third and the rest not at all, the pages seen at 30 frames per
 * second. Which of the disk and the pages' own work (decoding, handing
 * them to the kernel: cpu_pps pages per second) limits it: the slower. The
 * disk works only while it is the bottleneck; its rate while working is
 * disk_bps either way. Returns the worst error of the time left, in
 * percent, over every frame with a figure; *pages_only the first figure's
 * error by the pages alone, *observed the worst by the bytes seen per
 * second of the whole phase instead of the disk's working rate. */
static double compressible_part_first(double disk_bps, double cpu_pps, double *pages_only,
                                      double *observed)
{
        const double page = 4096, frame = 1.0 / 30;
        const uint64_t total = 65536;
        const double early_pages = 0.3 * total, early_ratio = 1.0 / 3;
        const double early_bytes = early_pages * page * early_ratio;
        const double stream = early_bytes + (total - early_pages) * page;
        /* Time of each part: the slower of its bytes on the disk and its pages. */
        const double t_early = fmax(early_bytes / disk_bps, early_pages / cpu_pps);
        const double t_late =
            fmax((stream - early_bytes) / disk_bps, (total - early_pages) / cpu_pps);
        struct dmo_rate pages_r;
        dmo_rate_reset(&pages_r, 0);
        double worst = 0;
        int shown = 0;
        *observed = 0;
        for (double t = frame; t < t_early + t_late - frame; t += frame) {
                double pages, bytes;
                if (t < t_early) {
                        pages = early_pages * t / t_early;
                        bytes = early_bytes * t / t_early;
                } else {
                        pages = early_pages + (total - early_pages) * (t - t_early) / t_late;
                        bytes = early_bytes + (stream - early_bytes) * (t - t_early) / t_late;
                }
                dmo_rate_note(&pages_r, t, (uint64_t)pages);
                double pps = dmo_rate_pages_per_s(&pages_r);
                if (!(pps > 0))
                        continue;
                double real = t_early + t_late - t;
                double eta =
                    dmo_rate_time_left((double)total - pages, pps, stream - bytes, disk_bps);
                double seen =
                    dmo_rate_time_left((double)total - pages, pps, stream - bytes, bytes / t);
                if (shown++ == 0)
                        *pages_only = 100 * (((double)total - pages) / pps - real) / real;
                worst = fmax(worst, fabs(100 * (eta - real) / real));
                *observed = fmax(*observed, fabs(100 * (seen - real) / real));
        }
        CHECK(shown > 0);
        return worst;
}

/* The disk delivers 24 MB/s and the pages could go six times faster: the
 * page rate at the first figure is twice the rate of the pages left, and
 * the time left must follow the bytes left on the disk. */
static void slow_disk_with_the_compressible_part_first(void)
{
        double pages_only, observed;
        double worst = compressible_part_first(24e6, 36000, &pages_only, &observed);
        printf("# slow disk: first figure by the pages alone %+.0f %%, worst with the disk's "
               "rate %.1f %%\n",
               pages_only, worst);
        CHECK(pages_only < -40); /* what the bytes are there for */
        CHECK(worst < 10);
}

/* The disk delivers 1 GB/s and the pages take their own time: the disk
 * waits for them, and bytes per second of the whole phase follow the
 * pages' compression (a third of the bytes per page at first) and would
 * promise up to twice the time. The disk's working rate leaves the pages
 * to decide. */
static void fast_disk_leaves_the_pages_to_decide(void)
{
        double pages_only, observed;
        double worst = compressible_part_first(1e9, 36000, &pages_only, &observed);
        printf("# fast disk: worst with the disk's working rate %.1f %%, with the bytes seen "
               "per second %.0f %%\n",
               worst, observed);
        CHECK(worst < 10);
        CHECK(observed > 40); /* what the working rate is there for */
}

static void time_left_without_bytes_is_the_pages(void)
{
        CHECK(dmo_rate_time_left(1000, 0, 0, 0) < 0);      /* no rate: no figure */
        CHECK(dmo_rate_time_left(1000, 500, 0, 0) == 2);   /* no bytes known */
        CHECK(dmo_rate_time_left(1000, 500, 1e6, 0) == 2); /* no device time yet */
        CHECK(dmo_rate_time_left(1000, 500, 0, 1e6) == 2); /* every byte read */
        CHECK(dmo_rate_time_left(1000, 500, 3e6, 1e6) == 3);
        CHECK(dmo_rate_time_left(1000, 500, 1e6, 1e6) == 2); /* the disk is ahead */
}

DMO_TEST_MAIN(T(resume_that_stalls_after_its_first_pages), T(steady_flow_is_measured_exactly),
              T(slow_disk_in_even_bursts_has_no_stalls), T(figure_stands_while_pages_do_not_move),
              T(reset_forgets_the_last_phase), T(slow_disk_with_the_compressible_part_first),
              T(fast_disk_leaves_the_pages_to_decide), T(time_left_without_bytes_is_the_pages))
