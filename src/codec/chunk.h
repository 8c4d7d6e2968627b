/* chunk: encoding and decoding of one chunk on the calling thread, with one
 * compressor context and one gather buffer. The pool in codec.c runs these
 * on its workers; encode_one/decode_one run them directly.
 *
 * Contract: never allocates, never blocks, never prints; decode never reads
 * or writes outside payload[0..capacity) and pages[0..chunk_pages*page_size),
 * whatever the chunk fields say.
 */
#ifndef DMO_CODEC_CHUNK_H
#define DMO_CODEC_CHUNK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/codec.h"
#include "codec/compress.h"
#include "codec/hash.h"

/* What encoding encrypted chunks cost this CPU, summed over every coder
 * that shares it: thread CPU time compressing, with the bytes in and out
 * (out = in when compression gave up), and sealing, with the bytes sealed.
 * CPU time, not wall time: a worker preempted on a machine with fewer
 * cores than threads would count the wait as cost. */
struct dmo_chunk_meter {
        atomic_uint_fast64_t compress_ns, compress_in, compress_out;
        atomic_uint_fast64_t seal_ns, seal_bytes;
};

struct dmo_chunk_coder {
        const struct dmo_compressor_ops *ops;
        struct dmo_compressor_ctx *ctx;
        uint8_t *gather; /* chunk_pages * page_size bytes, encode only */
        size_t page_size;
        unsigned chunk_pages;
        uint32_t capacity;
        dmo_hash_fn hash; /* xxh3-64, the faster implementation on this CPU */
        bool encrypted;
        const struct dmo_crypto_key *key; /* encrypted: seal/open with it */
        /* A chunk stored as it is stays where it is: encode leaves its
         * bytes in pages (stored points there) instead of copying them into
         * payload; decode leaves them in payload (restored points there).
         * For pooled chunks, whose buffers live until they are released. */
        bool in_place;
        /* Encode: the main pass compresses at least this fast (see
         * dmo_codec_set_speed; 0: the level's own). The trials that tell
         * random data keep the level's own: a faster trial would call
         * compressible data random and store it raw. */
        unsigned speed;
        /* Encode, encrypted: where the costs go (dmo_codec_costs); NULL:
         * not measured. */
        struct dmo_chunk_meter *meter;
};

/* 0, or -EINVAL when npages is out of range (or encrypted without a key). */
int dmo_chunk_encode(const struct dmo_chunk_coder *k, struct dmo_chunk *ch);

/* Sets and returns ch->error: 0, or -EBADMSG. */
int dmo_chunk_decode(const struct dmo_chunk_coder *k, struct dmo_chunk *ch);

/* 0 when ch (its header fields) is a chunk stored as it is (not
 * compressed, no zero page, not encrypted) and the payload_len bytes at
 * payload match both its checksums: they are then its pages. -EBADMSG
 * otherwise. Reads payload only; writes nothing. */
int dmo_chunk_check_stored(const struct dmo_chunk_coder *k, const struct dmo_chunk *ch,
                           const uint8_t *payload);

#endif
