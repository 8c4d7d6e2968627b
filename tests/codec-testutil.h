/* codec-testutil: what the codec tests do with an encoded chunk. */
#ifndef DMO_TESTS_CODEC_TESTUTIL_H
#define DMO_TESTS_CODEC_TESTUTIL_H

#include <string.h>

#include "codec/codec.h"

/* Readies decode slot d for what an encoder made: the header fields of meta
 * (as the image's chunk header carries them) and its stored bytes. */
static inline void dmo_test_chunk_for_decode(struct dmo_chunk *d, const struct dmo_chunk *meta,
                                             const uint8_t *stored)
{
        d->npages = meta->npages;
        d->zero_map = meta->zero_map;
        d->flags = meta->flags;
        d->payload_len = meta->payload_len;
        d->payload_hash = meta->payload_hash;
        d->pages_hash = meta->pages_hash;
        memcpy(d->payload, stored, meta->payload_len);
}

#endif
