/* resume_check: before the freeze, whether the image about to be written
 * can come back at the next boot; a hibernation that cannot says so and
 * does not start. The question and its rules are engine/resumable.h's;
 * this is the CLI's side of it: the options into its parameters, its
 * verdict into a sentence that names what is wrong and what to do.
 *
 * With the real kernel everything is read from the running system. With
 * the simulated one, where resume devices are files, the swap area is
 * checked when --sim-proc gives a /proc and the initramfs when
 * --sim-state-dir gives a state directory; nothing is checked otherwise.
 * The initramfs is not checked when it is built another way
 * (--no-initramfs-check, "initramfs check = no").
 *
 * Contract: reads only (through engine/resumable.h, and the initramfs's
 * copy of dormouse.conf through cli/config.h), but for HibernateLocation,
 * which dmo_cli_prepare_resume writes; runs before the snapshot device is
 * opened; prints its refusals and notes (it is the CLI's edge); no global
 * state.
 */
#ifndef DMO_CLI_RESUME_CHECK_H
#define DMO_CLI_RESUME_CHECK_H

#include <stdbool.h>

#include "cli/cli.h"
#include "crypto/crypto.h"

struct dmo_cli_resume_check {
        const struct dmo_cli_common *c;
        const struct dmo_swap_target *target; /* resolved: where the image goes */
        enum dmo_encrypt_mode encrypt;
        const char *secret_key;    /* pubkey mode: the secret key here; NULL: the default */
        bool skip_initramfs;       /* --no-initramfs-check or "initramfs check = no" */
        const char *sim_state_dir; /* --sim-state-dir; the real kernel's is fixed */
        /* Nothing names a resume device and hibernate writes HibernateLocation
         * for the target: the resume reads it (before RESUME=). */
        bool via_efi_location;
};

/* 0 when the image can come back (or what could not be told was noted);
 * -EINVAL after saying why it could not. */
int dmo_cli_check_resumable(const struct dmo_cli_resume_check *rc);

/* Hibernate, before the snapshot device is even opened (its open already
 * tells the kernel's PM notifiers a hibernation is coming): the check
 * above, unless the kernel refuses any hibernation (lockdown; opening the
 * device says so first); then, via_efi_location, HibernateLocation is
 * written while everything can still stop (a hibernation that fails or is
 * cancelled leaves a stale one, which the resume and
 * systemd-hibernate-clear both know to ignore and remove). 0 or -EINVAL /
 * the write's error, said. */
int dmo_cli_prepare_resume(const struct dmo_cli_resume_check *rc);

#endif
