/* suspend: suspend to RAM the way systemd-sleep does (the first state of a
 * list the kernel takes, written to /sys/power/state), and the wake alarm
 * that ends a suspend on time (a CLOCK_BOOTTIME_ALARM timer: the kernel
 * programs the RTC with it before the machine sleeps).
 *
 * The power directory is a parameter: "/sys/power" on a running system, a
 * directory of the tests' own otherwise (its "state" a regular file or a
 * FIFO that stands in for the sleep). Nothing here reads the real one
 * unless asked to.
 *
 * Contract: no allocation, no logging; errors are negative errno values.
 */
#ifndef DMO_KERNEL_SUSPEND_H
#define DMO_KERNEL_SUSPEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CLOCK_BOOTTIME in microseconds: it goes on counting while suspended. */
uint64_t dmo_boottime_us(void);

/* A timer that wakes the machine at an absolute CLOCK_BOOTTIME time.
 * -EPERM without CAP_WAKE_ALARM, -EOPNOTSUPP (or -EINVAL) where the kernel
 * has no RTC with an alarm. With plain_clock_ok (tests only), such a
 * machine gets a CLOCK_BOOTTIME timer, which does not wake it. Returns the
 * descriptor or a negative errno. */
int dmo_wake_alarm_open(bool plain_clock_ok);
int dmo_wake_alarm_set(int fd, uint64_t at_us);

/* Suspends: writes the first of mem_modes the kernel accepts to
 * POWER_DIR/mem_sleep (none: the kernel's default), then the first of
 * states it accepts to POWER_DIR/state, which returns after the wake.
 * Returns 0 after a wake, or the last refusal's negative errno when the
 * kernel took no state (nothing slept). */
int dmo_suspend_to_ram(const char *power_dir, const char *const *states, size_t n_states,
                       const char *const *mem_modes, size_t n_mem_modes);

#endif
