/* critical: the windows in which the process must not die of a signal.
 *
 * From the signature write to the power off, and on resume from removing
 * the signature to the jump into the saved system, dying is the one thing
 * that loses data: closing /dev/snapshot makes the kernel thaw the system
 * with a valid image still on disk (the next boot restores it over file
 * systems changed since), or a resume gives up an image it already took off
 * the disk.
 *
 * Contract:
 * - Inside a window the catchable signals that end or stop a process
 *   (SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1/2, SIGTSTP,
 *   SIGTTIN, SIGTTOU, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF) are ignored
 *   process-wide. A per-thread mask would not do: the kernel delivers a
 *   process signal to any thread that does not block it, and the splash's
 *   and codec's threads were started before the window.
 * - Leaving puts the earlier dispositions back. A signal that came inside
 *   is dropped: whoever sent it wanted the process gone, which happens at
 *   the power off anyway, and in a system restored from the image it never
 *   happened.
 * - Windows do not nest; leave() on a closed window does nothing.
 * - Allocates nothing; never prints.
 */
#ifndef DMO_ENGINE_CRITICAL_H
#define DMO_ENGINE_CRITICAL_H

#include <signal.h>
#include <stdbool.h>

enum { DMO_CRITICAL_SIGNALS = 15 };

struct dmo_critical {
        bool open;
        struct sigaction saved[DMO_CRITICAL_SIGNALS];
};

void dmo_critical_enter(struct dmo_critical *c);
void dmo_critical_leave(struct dmo_critical *c);

/* The signals a window ignores, for tests: DMO_CRITICAL_SIGNALS of them. */
const int *dmo_critical_signals(void);

#endif
