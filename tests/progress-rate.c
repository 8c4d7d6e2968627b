/* The data phase's rate, from points in time the test makes up: the resume
 * that stalls after its first pages (the kernel setting aside the image's
 * memory), a steady flow, a slow disk in even bursts, idle time before the
 * first page. Each time-left figure is compared with the real time left of
 * the made-up run, which is known exactly. */
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

DMO_TEST_MAIN(T(resume_that_stalls_after_its_first_pages), T(steady_flow_is_measured_exactly),
              T(slow_disk_in_even_bursts_has_no_stalls), T(figure_stands_while_pages_do_not_move),
              T(reset_forgets_the_last_phase))
