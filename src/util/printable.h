/* printable: makes text from untrusted sources (an image's kernel identity,
 * a device's label) safe to show on a terminal or the splash.
 *
 * Contract: works in place, never allocates, never grows the string. Control
 * characters (C0, DEL, C1 encoded as UTF-8) and bytes that are not part of a
 * valid, shortest-form UTF-8 sequence (including surrogates and code points
 * above U+10FFFF) become '?', one per byte (the length never changes). Valid printable UTF-8 is
 * kept as is, so a translated or non-ASCII kernel version still reads right. An escape sequence
 * therefore never reaches the terminal: ESC is a control character.
 */
#ifndef DMO_UTIL_PRINTABLE_H
#define DMO_UTIL_PRINTABLE_H

#include <stdbool.h>
#include <stddef.h>

/* Filters s (NUL-terminated) in place; returns s. NULL is returned as is. */
char *dmo_sanitize_printable(char *s);

/* The same for the first len bytes of a buffer that may hold NULs (each NUL
 * becomes '?'); returns the number of bytes replaced. */
size_t dmo_sanitize_printable_buf(char *s, size_t len);

/* True when s (NUL-terminated) would be left unchanged. */
bool dmo_is_printable(const char *s);

#endif
