/* pace: how hard the writer's compressor works, from how the writes keep up.
 *
 * Compressing harder pays only while the disk is the slower of the two.
 * When the I/O thread finds nothing queued (the disk waits for data), the
 * compressor goes faster; when the writer finds every buffer still being
 * written (the data waits for the disk), it compresses harder. The speed
 * doubles or halves per decision, between 1 and a ceiling. For LZ4 it is
 * the acceleration. Measured on the non-zero pages of tests/codec-testdata.h's
 * mix, LZ4 alone: acceleration 8 is 1.5x (natively) to 2.1x (qemu-x86_64)
 * as fast as 1 and stores 3% more bytes; make bench's whole image (the
 * simulated kernel's stream, through the writer) came out 8% larger.
 *
 * Contract: a plain value, no allocation; used by one thread (the
 * writer's).
 */
#ifndef DMO_IMAGE_PACE_H
#define DMO_IMAGE_PACE_H

#include <stdbool.h>

struct dmo_pace {
        unsigned speed; /* 1..max */
        unsigned max;
};

/* Starts at speed 1 (compress as hard as the level says); max >= 1. */
void dmo_pace_init(struct dmo_pace *p, unsigned max);

/* After a buffer was handed to the I/O thread: disk_idle, the I/O thread had
 * nothing queued or in hand when it came; waited, the writer then had to
 * wait for a free buffer. Returns the speed from now on. */
unsigned dmo_pace_update(struct dmo_pace *p, bool disk_idle, bool waited);

#endif
