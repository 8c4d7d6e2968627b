/* self_memory: how much memory this process holds.
 *
 * The engine adds it to the image size it asks the kernel for: the image
 * holds dormouse itself as well as the system it saves.
 *
 * Contract: reads /proc/self/statm, nothing else; never allocates on the
 * heap, never logs.
 */
#ifndef DMO_UTIL_SELF_MEMORY_H
#define DMO_UTIL_SELF_MEMORY_H

#include <stdint.h>

/* The process's resident bytes now (all of them, once mlockall has locked
 * every mapping). A negative errno when /proc is not there or says
 * something else. */
int dmo_self_resident_bytes(uint64_t *bytes);

#endif
