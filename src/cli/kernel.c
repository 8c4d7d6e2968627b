/* Opening the kernel the options ask for: the simulated one, or
 * /dev/snapshot with a sentence for every reason it can refuse. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "kernel/faults.h"
#include "kernel/sim_kernel.h"
#include "kernel/snapshot_dev.h"
#include "util/i18n.h"

int dmo_cli_open_kernel(struct dmo_cli_common *c, enum dmo_snapshot_mode mode,
                        struct dmo_snapshot **out)
{
        int r;
        if (c->simulated) {
                struct dmo_fault_plan *plan = NULL;
                if (c->sim_faults) {
                        r = dmo_fault_plan_parse(c->sim_faults, &plan);
                        if (r < 0) {
                                dmo_cli_error(_("--sim-fault: \"%s\" is not a fault plan (e.g. "
                                                "enospc@100,crash@data-written)"),
                                              c->sim_faults);
                                return r;
                        }
                }
                struct dmo_sim_params p = {
                    .size_bytes = c->sim_size,
                    .seed = c->sim_seed,
                    .faults = plan,
                    .release_override = c->sim_release,
                    .proc_dir = c->sim_proc,
                };
                r = dmo_sim_kernel_new(&p, mode, out);
                if (r < 0) {
                        dmo_fault_plan_free(plan);
                        dmo_cli_error(_("cannot start the simulated kernel: %s"), strerror(-r));
                        return r;
                }
                c->fault_plan = plan; /* the simulated kernel borrows it */
                return r;
        }
        r = dmo_snapshot_open_dev("/dev/snapshot", mode, out);
        if (r == -ENOENT)
                dmo_cli_error(
                    _("/dev/snapshot does not exist: this kernel was built without "
                      "CONFIG_HIBERNATION_SNAPSHOT_DEV, so userland hibernation is not "
                      "possible; use the kernel's own hibernation (systemctl hibernate)"));
        else if (r == -EPERM || r == -EACCES) {
                char detail[64] = "";
                switch (dmo_hibernation_disabled_reason("/", detail, sizeof(detail))) {
                case DMO_HIB_NOT_PRIVILEGED:
                        dmo_cli_error(_("/dev/snapshot: permission denied; run dormouse as root "
                                        "(systemctl hibernate does this for you)"));
                        break;
                case DMO_HIB_LOCKDOWN:
                        dmo_cli_error(_("/dev/snapshot: the kernel is locked down (%s), which "
                                        "forbids hibernation; this is what Secure Boot does. "
                                        "Turn Secure Boot off, or use suspend to RAM"),
                                      detail);
                        break;
                case DMO_HIB_DISABLED:
                        dmo_cli_error(_("/dev/snapshot: hibernation is disabled on the kernel "
                                        "command line (nohibernate or hibernate=no); remove it "
                                        "and reboot"));
                        break;
                case DMO_HIB_NOT_BUILT:
                        dmo_cli_error(_("this kernel was built without hibernation support "
                                        "(CONFIG_HIBERNATION)"));
                        break;
                default:
                        dmo_cli_error(_("/dev/snapshot: the kernel refused hibernation (secret "
                                        "memory or CXL memory in use, or a security module)"));
                        break;
                }
        } else if (r == -EBUSY)
                dmo_cli_error(_("/dev/snapshot is busy: another hibernation is in progress"));
        else if (r < 0)
                dmo_cli_error(_("/dev/snapshot: %s"), strerror(-r));
        return r;
}

bool dmo_cli_kernel_refuses_hibernation(const struct dmo_cli_common *c)
{
        if (c->simulated)
                return false;
        if (access(DMO_SNAPSHOT_DEV_PATH, F_OK) < 0)
                return true;
        switch (dmo_hibernation_disabled_reason("/", NULL, 0)) {
        case DMO_HIB_LOCKDOWN:
        case DMO_HIB_DISABLED:
        case DMO_HIB_NOT_BUILT:
                return true;
        default:
                return false;
        }
}
