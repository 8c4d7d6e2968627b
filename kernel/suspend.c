/* Suspend to RAM through /sys/power, and the RTC wake alarm. */
#include "kernel/suspend.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>

#include "util/small_file.h"

uint64_t dmo_boottime_us(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_BOOTTIME, &ts);
        return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

int dmo_wake_alarm_open(bool plain_clock_ok)
{
        int fd = timerfd_create(CLOCK_BOOTTIME_ALARM, TFD_NONBLOCK | TFD_CLOEXEC);
        if (fd >= 0 || !plain_clock_ok)
                return fd >= 0 ? fd : -errno;
        fd = timerfd_create(CLOCK_BOOTTIME, TFD_NONBLOCK | TFD_CLOEXEC);
        return fd >= 0 ? fd : -errno;
}

int dmo_wake_alarm_set(int fd, uint64_t at_us)
{
        struct itimerspec its = {
            .it_value = {.tv_sec = (time_t)(at_us / 1000000),
                         .tv_nsec = (long)(at_us % 1000000) * 1000},
        };
        return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) < 0 ? -errno : 0;
}

/* Writes word to POWER_DIR/file in one write(), as the kernel wants it. */
static int write_word(const char *power_dir, const char *file, const char *word)
{
        char path[4096];
        if ((size_t)snprintf(path, sizeof(path), "%s/%s", power_dir, file) >= sizeof(path))
                return -ENAMETOOLONG;
        return dmo_write_small_file(path, word);
}

int dmo_suspend_to_ram(const char *power_dir, const char *const *states, size_t n_states,
                       const char *const *mem_modes, size_t n_mem_modes)
{
        int r = -EINVAL;
        for (size_t i = 0; i < n_mem_modes; i++) {
                r = write_word(power_dir, "mem_sleep", mem_modes[i]);
                if (r == 0)
                        break;
        }
        if (n_mem_modes > 0 && r < 0)
                return r;
        r = -EINVAL;
        for (size_t i = 0; i < n_states; i++) {
                r = write_word(power_dir, "state", states[i]);
                if (r == 0)
                        return 0;
        }
        return r;
}
