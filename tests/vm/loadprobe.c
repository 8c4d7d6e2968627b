/* loadprobe: how long a process takes to reach main. run.py links this one
 * file three ways (static; libc and libdrm; every library the dormouse
 * binary names in DT_NEEDED) so the first-frame scenario can say how much of
 * dormouse's way to its first frame is the dynamic loader, in the same run.
 * It prints "loadprobe: NAME main N ms after the process started" (NAME is
 * argv[1]) and exits. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The process's start in CLOCK_BOOTTIME seconds (/proc/self/stat field 22). */
static double process_start_s(void)
{
        char buf[1024];
        FILE *f = fopen("/proc/self/stat", "r");
        if (!f)
                return 0;
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *p = strrchr(buf, ')');
        unsigned long long ticks = 0;
        if (!p || sscanf(p + 2,
                         "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
                         "%*d %*d %*d %*d %llu",
                         &ticks) != 1)
                return 0;
        return (double)ticks / (double)sysconf(_SC_CLK_TCK);
}

int main(int argc, char **argv)
{
        struct timespec now;
        clock_gettime(CLOCK_BOOTTIME, &now);
        double t = (double)now.tv_sec + (double)now.tv_nsec / 1e9 - process_start_s();
        fprintf(stderr, "loadprobe: %s main %.0f ms after the process started\n",
                argc > 1 ? argv[1] : "?", t * 1000.0);
        return 0;
}
