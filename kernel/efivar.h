/* efivar: EFI variables as strings, through efivarfs, the way systemd
 * stores its own (efi_get_variable_string, efi_set_variable_string): the
 * file NAME-VENDORGUID holds a 32-bit attribute word and the value in
 * UTF-16LE with a terminating NUL character.
 *
 * The efivarfs directory is a parameter (DMO_EFIVARS_DIR on a running
 * system, a directory of the tests' own otherwise). efivarfs marks most
 * variable files immutable; writing and deleting clear that flag first, as
 * systemd does (ignored where the file system has no such flag).
 *
 * Contract: no allocation survives; no logging; negative errno values.
 */
#ifndef DMO_KERNEL_EFIVAR_H
#define DMO_KERNEL_EFIVAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DMO_EFIVARS_DIR "/sys/firmware/efi/efivars"
/* systemd's vendor GUID, under which it keeps HibernateLocation. */
#define DMO_EFI_SYSTEMD_VENDOR "8cf2644b-4b0b-428f-9387-6d876050dc67"

/* Reads variable `name` of `vendor` into buf as UTF-8. -ENOENT when it is
 * not set, -EINVAL when it is not a UTF-16 string, -ENOBUFS when buf is too
 * small. */
int dmo_efivar_read_string(const char *dir, const char *name, const char *vendor, char *buf,
                           size_t len);

/* The string in the bytes of a variable file (the attribute word, then
 * UTF-16LE up to a NUL character or the end), as UTF-8. */
int dmo_efivar_decode_string(const uint8_t *raw, size_t n, char *buf, size_t len);

/* Sets it (non-volatile, boot and runtime access) to a UTF-8 string of
 * characters of the Basic Multilingual Plane; -EINVAL otherwise. */
int dmo_efivar_write_string(const char *dir, const char *name, const char *vendor,
                            const char *value);

/* Removes it; 0 also when it was not set. */
int dmo_efivar_delete(const char *dir, const char *name, const char *vendor);

#endif
