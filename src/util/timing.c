#include "util/timing.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

bool dmo_timing_enabled(void)
{
        return getenv("DORMOUSE_DEBUG_TIMING") != NULL;
}

/* /proc/self/stat field 22, in clock ticks since boot. */
int dmo_timing_process_start_s(double *out)
{
        char buf[1024];
        FILE *f = fopen("/proc/self/stat", "re");
        if (!f)
                return -errno;
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
        unsigned long long ticks = 0;
        if (!p || sscanf(p + 2,
                         "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
                         "%*d %*d %*d %*d %llu",
                         &ticks) != 1)
                return -EINVAL;
        long hz = sysconf(_SC_CLK_TCK);
        *out = (double)ticks / (double)(hz > 0 ? hz : 100);
        return 0;
}

double dmo_timing_since_start_ms(void)
{
        double start;
        struct timespec now;
        if (dmo_timing_process_start_s(&start) < 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0)
                return -1.0;
        return ((double)now.tv_sec + (double)now.tv_nsec / 1e9 - start) * 1000.0;
}

void dmo_timing_mark(const char *what)
{
        if (!dmo_timing_enabled())
                return;
        double ms = dmo_timing_since_start_ms();
        if (ms >= 0)
                fprintf(stderr, "dormouse: timing: %s %.0f ms after the process started\n", what,
                        ms);
}
