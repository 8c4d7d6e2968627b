/* bench-splash: painter cost per frame at 1080p and 4K for each theme:
 * backdrop latency (theme.conf read + the background filled without cairo,
 * what a screen shows first), first-frame latency (the same + the theme's
 * images + painter new + first paint), a full
 * repaint, an incremental repaint (one progress step), and peak RSS.
 * Targets: incremental ≤ 4 ms at 1080p, first frame ≤ 100 ms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "splash/paint/backdrop.h"
#include "splash/paint/painter.h"
#include "splash/preview.h"
#include "splash/theme/theme.h"

static double now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
        static const char *const themes[] = {"default", "minimal", "nocturne"};
        static const int sizes[][2] = {{1920, 1080}, {3840, 2160}};
        struct dmo_theme_paths paths = {.themes_dir = DMO_SRCDIR "/themes",
                                        .fonts_dir = DMO_SRCDIR "/fonts"};
        int rounds = argc > 1 ? atoi(argv[1]) : 50;
        int fail = 0;

        printf("%-9s %-10s %12s %10s %10s %12s\n", "theme", "size", "backdrop ms", "first ms",
               "full ms", "incr ms");
        for (size_t ti = 0; ti < sizeof(themes) / sizeof(themes[0]); ti++) {
                for (size_t si = 0; si < 2; si++) {
                        int w = sizes[si][0], h = sizes[si][1];
                        uint8_t *px = malloc((size_t)w * h * 4);
                        struct dmo_scene sc;
                        struct dmo_rect d[8];
                        unsigned nd;
                        double t0 = now_ms();
                        struct dmo_theme *t = NULL;
                        struct dmo_painter *p = NULL;
                        /* As the display does it: the background first, the
                         * theme's images after it. */
                        if (!px || dmo_theme_load_ex(themes[ti], &paths, DMO_THEME_DEFER_IMAGES, &t,
                                                     NULL) < 0) {
                                fprintf(stderr, "cannot load %s\n", themes[ti]);
                                return 1;
                        }
                        dmo_backdrop_fill(t, px, (size_t)w * 4, w, h);
                        double backdrop = now_ms() - t0;
                        dmo_theme_load_images(t, NULL);
                        if (dmo_painter_new(t, w, h, 0, 0, &p) < 0) {
                                fprintf(stderr, "cannot set up %s\n", themes[ti]);
                                return 1;
                        }
                        dmo_preview_scene(DMO_SCENE_HIBERNATE, 0.3, 0, &sc);
                        dmo_painter_paint(p, px, w * 4, &sc, true, d, 8, &nd);
                        double first = now_ms() - t0;

                        t0 = now_ms();
                        for (int i = 0; i < rounds; i++)
                                dmo_painter_paint(p, px, w * 4, &sc, true, d, 8, &nd);
                        double full = (now_ms() - t0) / rounds;

                        /* One progress step per frame: bar, stats line, throbber. */
                        t0 = now_ms();
                        for (int i = 0; i < rounds * 4; i++) {
                                dmo_preview_scene(DMO_SCENE_HIBERNATE, 0.3 + i * 0.001,
                                                  (uint32_t)i + 1, &sc);
                                dmo_painter_paint(p, px, w * 4, &sc, false, d, 8, &nd);
                        }
                        double incr = (now_ms() - t0) / (rounds * 4);
                        printf("%-9s %4dx%-5d %12.1f %10.1f %10.2f %12.3f\n", themes[ti], w, h,
                               backdrop, first, full, incr);
                        if (w == 1920 && (incr > 4 || first > 100))
                                fail = 1;
                        dmo_painter_free(p);
                        dmo_theme_free(t);
                        free(px);
                }
        }
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("peak RSS %.1f MiB\n", ru.ru_maxrss / 1024.0);
        return fail;
}
