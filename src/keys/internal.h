/* keys/internal.h: what keys.c, unlock.c and keys_tpm.c share; not for
 * other modules. */
#ifndef DMO_KEYS_INTERNAL_H
#define DMO_KEYS_INTERNAL_H

#include "keys/keys.h"
#ifdef HAVE_TPM
#include "keys/keys_tpm.h"
#endif

/* f said through ui (nothing when ui has no fail). */
void dmo_keys_fail(const struct dmo_keys_ui *ui, struct dmo_keys_failure f);
/* ui's ask and yes_no; -ENOTTY when it has none. */
int dmo_keys_ask(const struct dmo_keys_ui *ui, enum dmo_keys_question q, unsigned wrong,
                 unsigned attempts, char *buf, size_t cap);
int dmo_keys_yes_no(const struct dmo_keys_ui *ui, enum dmo_keys_question q, bool default_yes);
/* Reads up to cap bytes of an open file with read(2): no stdio buffer
 * keeps a copy. *len: bytes read; -EFBIG when the file holds more. */
int dmo_keys_read_all(int fd, char *buf, size_t cap, size_t *len);

#endif
