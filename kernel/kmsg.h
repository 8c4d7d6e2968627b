/* kmsg: sentences into the kernel's log buffer (/dev/kmsg), for the times
 * when nothing else would keep them: in the initramfs no journald runs, and
 * what is only printed on the screen is gone by the time the person can
 * look. journald imports the kernel's buffer at the next start, so a line
 * written here shows in `journalctl -b` (and `journalctl -b -t dormouse`).
 *
 * Each record the kernel keeps is at most about 1 KiB (LOG_LINE_MAX: 1024
 * less a 32-byte prefix); a longer one would be cut. A sentence longer than
 * DMO_KMSG_LINE_MAX is split at spaces into several records, each with the
 * prefix, none longer than that. Control characters (newlines included)
 * become spaces: one sentence stays one record or a run of records, never
 * a forged line of its own.
 *
 * Contract: writes only the path it is given (the real /dev/kmsg, or a
 * test's file, appended to and made if missing); no allocation, no global state,
 * never prints. The caller decides whether to write at all (the real
 * kernel's boot, or a test's override).
 */
#ifndef DMO_KERNEL_KMSG_H
#define DMO_KERNEL_KMSG_H

#include <stddef.h>

#define DMO_KMSG_PATH "/dev/kmsg"
/* The longest record written, prefix and level included. */
#define DMO_KMSG_LINE_MAX 960

/* syslog levels, as the kernel reads them from "<N>" */
enum dmo_kmsg_level {
        DMO_KMSG_ERR = 3,
        DMO_KMSG_WARNING = 4,
        DMO_KMSG_NOTICE = 5,
};

/* Writes "<level>prefix: text" to path as one or more records. prefix is
 * short (an identifier such as "dormouse"). 0, or the negative errno of the
 * first open or write that failed. */
int dmo_kmsg_write(const char *path, enum dmo_kmsg_level level, const char *prefix,
                   const char *text);

/* The same record split into buf for the tests and the writer: fills buf
 * with the first record for text (without the newline) and returns how
 * many bytes of text it took (0 at the end of text). buf holds
 * DMO_KMSG_LINE_MAX + 1 bytes. */
size_t dmo_kmsg_format(char *buf, enum dmo_kmsg_level level, const char *prefix, const char *text);

#endif
