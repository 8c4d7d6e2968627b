/* small_file: the text of a small file (a sysfs or procfs attribute) into
 * the caller's buffer.
 *
 * Contract: one open() and one read(), no allocation, so it may run after
 * the snapshot (where fopen's buffer would allocate); at most len - 1
 * bytes are read and the text is NUL-terminated. Returns the number of
 * bytes read, or a negative errno.
 */
#ifndef DMO_UTIL_SMALL_FILE_H
#define DMO_UTIL_SMALL_FILE_H

#include <stddef.h>
#include <sys/types.h>

ssize_t dmo_read_small_file(const char *path, char *buf, size_t len);

#endif
