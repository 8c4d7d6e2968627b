/* efi_location: where the image goes when nothing names a resume device,
 * the way systemd 255 and later do it: hibernation picks the active swap
 * area (the highest priority, then the most free space), and on a machine
 * booted through EFI writes systemd's HibernateLocation variable
 * (cli/hibernate_location.h) before the freeze; the resume in the
 * initramfs reads it, and removes it once it has found a dormouse image
 * there, as systemd-hibernate-resume removes it before it resumes.
 *
 * The variable lives in the efivarfs of the running system; with the
 * simulated kernel only in the directory --efivars names (never the
 * machine's own), and the active swap areas only in --sim-proc's swaps.
 *
 * Contract: the CLI's edge; prints what it refuses; no global state.
 */
#ifndef DMO_CLI_EFI_LOCATION_H
#define DMO_CLI_EFI_LOCATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"

/* The efivarfs directory to use: --efivars, else the system's where
 * efivarfs is mounted; NULL when there is none (not booted through EFI;
 * the simulated kernel without --efivars). */
const char *dmo_cli_efivars_dir(const struct dmo_cli_common *c);

/* Hibernate: the active swap area to write to, into path (a partition's
 * node or a swap file's path). -ENOENT when there is none. */
int dmo_cli_active_swap_pick(const struct dmo_cli_common *c, char *path, size_t len);

/* Hibernate: HibernateLocation for the target, before the freeze. Says why
 * and returns a negative errno when it cannot be written. */
int dmo_cli_efi_location_write(const struct dmo_cli_common *c, const struct dmo_swap_target *t);

/* Resume: the device ("UUID=...") and page HibernateLocation names. 0,
 * -ENOENT when it is not set (or there is no efivarfs); -EINVAL when it is
 * unreadable or another installation's (said as a note: the boot goes on). */
int dmo_cli_efi_location_read(const struct dmo_cli_common *c, char *spec, size_t len,
                              uint64_t *offset);

/* Removes it; a failure is a note. */
void dmo_cli_efi_location_clear(const struct dmo_cli_common *c);

#endif
