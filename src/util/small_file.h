/* small_file: the text of a small file (a sysfs or procfs attribute) into
 * the caller's buffer, and a word written to one.
 *
 * Contract: one open() and one read() or write(), no allocation, so they
 * may run after the snapshot (where fopen's buffer would allocate).
 */
#ifndef DMO_UTIL_SMALL_FILE_H
#define DMO_UTIL_SMALL_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* At most len - 1 bytes are read and the text is NUL-terminated. Returns
 * the number of bytes read, or a negative errno. */
ssize_t dmo_read_small_file(const char *path, char *buf, size_t len);

/* Writes text in one write(), as a sysfs or procfs attribute wants it (the
 * file opened with O_TRUNC, as a shell's ">" does). 0, -EIO when the write
 * was short, or a negative errno. */
int dmo_write_small_file(const char *path, const char *text);

#endif
