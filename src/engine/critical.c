#include "engine/critical.h"

#include <string.h>

static const int critical_signals[DMO_CRITICAL_SIGNALS] = {
    SIGHUP,  SIGINT,  SIGQUIT, SIGTERM, SIGPIPE, SIGALRM,   SIGUSR1, SIGUSR2,
    SIGTSTP, SIGTTIN, SIGTTOU, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF,
};

const int *dmo_critical_signals(void)
{
        return critical_signals;
}

void dmo_critical_enter(struct dmo_critical *c)
{
        if (c->open)
                return;
        struct sigaction ignore;
        memset(&ignore, 0, sizeof(ignore));
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        for (int i = 0; i < DMO_CRITICAL_SIGNALS; i++)
                sigaction(critical_signals[i], &ignore, &c->saved[i]);
        c->open = true;
}

void dmo_critical_leave(struct dmo_critical *c)
{
        if (!c->open)
                return;
        for (int i = 0; i < DMO_CRITICAL_SIGNALS; i++)
                sigaction(critical_signals[i], &c->saved[i], NULL);
        c->open = false;
}
