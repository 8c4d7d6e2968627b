#include "cli/cli.h"
#include "engine/engine.h"
#include "util/i18n.h"

#include <stdio.h>
#include <stdlib.h>

bool dmo_cli_profiling(void)
{
        return getenv("DORMOUSE_DEBUG_TIMING") != NULL;
}

/* Debugging output for developers, deliberately untranslated. */
void dmo_cli_print_profile(void *ctx, const struct dmo_engine_stats *s)
{
        const struct dmo_engine_profile *p = &s->profile;
        (void)ctx;
        if (!p->enabled)
                return;
        if (p->allocs || p->writes)
                fprintf(
                    stderr,
                    "dormouse: timing: data phase %.3f s: reading the kernel %.3f s (%llu calls), "
                    "storing "
                    "%.3f s (%llu slot allocations %.3f s, %llu writes %.3f s, waiting for "
                    "the codec %.3f s)\n",
                    s->data_s, p->kernel_io_s, (unsigned long long)p->kernel_calls, p->image_s,
                    (unsigned long long)p->allocs, p->alloc_s, (unsigned long long)p->writes,
                    p->write_s, p->codec_wait_s);
        else
                fprintf(stderr,
                        "dormouse: timing: load phase: reading and decoding the image %.3f s, "
                        "handing pages to the kernel %.3f s (%llu calls)\n",
                        p->image_s, p->kernel_io_s, (unsigned long long)p->kernel_calls);
}

/* Completes "hibernation failed while ..." and "... while %s". */
const char *dmo_cli_step_text(int step)
{
        switch ((enum dmo_step)step) {
        case DMO_STEP_NONE:
                return _("starting");
        case DMO_STEP_OPEN_DEVICE:
                return _("opening the resume device");
        case DMO_STEP_SWAP_HEADER:
                return _("reading the swap header (is it a swap area made by mkswap?)");
        case DMO_STEP_SET_SWAP_AREA:
                return _("telling the kernel which swap area to use (is swap enabled on it?)");
        case DMO_STEP_ALLOCATE:
                return _("reserving memory and swap space");
        case DMO_STEP_FREEZE:
                return _("stopping programs");
        case DMO_STEP_CREATE_IMAGE:
                return _("taking the memory snapshot");
        case DMO_STEP_READ_KERNEL:
                return _("reading the snapshot from the kernel");
        case DMO_STEP_WRITE_IMAGE:
                return _("writing the image to swap");
        case DMO_STEP_FINISH_IMAGE:
                return _("writing the image header");
        case DMO_STEP_SIGNATURE:
                return _("writing the swap signature");
        case DMO_STEP_POWER_OFF:
                return _("powering off");
        case DMO_STEP_READ_IMAGE:
                return _("reading the image");
        case DMO_STEP_KERNEL_MISMATCH:
                return _("comparing kernels");
        case DMO_STEP_WRITE_KERNEL:
                return _("handing the image to the kernel");
        case DMO_STEP_RESTORE:
                return _("restoring");
        case DMO_STEP_BOOT_STAGE:
                return _("checking that this is an early boot");
        }
        return "?";
}
