/* codec: the pipeline between memory pages and stored chunks.
 *
 * Encoding turns a run of up to DMO_CHUNK_MAX_PAGES pages into a chunk:
 * all-zero pages are elided (a bit in zero_map), the rest are concatenated
 * and compressed (LZ4, zstd, or stored raw when compression does not pay),
 * and two xxh3-64 checksums are taken: over the stored payload and over the
 * raw pages. Decoding verifies the payload checksum, decompresses, recreates
 * the zero pages and verifies the raw checksum.
 *
 * Encrypted images (params.encrypted, then dmo_codec_set_key()): after
 * compression the payload is sealed with the image key (the image's chunk
 * cipher, src/crypto), authenticated with the chunk's index (its seq), page count,
 * zero map, flags and length; payload_len then counts the tag and the
 * payload hash is of the stored (encrypted) bytes. No checksum of the plain
 * pages is kept (pages_hash is 0): the tag authenticates them, and a hash of
 * plain memory stored in clear would let anyone confirm a guess of it.
 * Decoding authenticates before anything is decompressed.
 *
 * Work runs on a pool of worker threads (one per online CPU by default) and
 * comes out in submission order.
 *
 * Contract:
 * - Every buffer and compression context is allocated in dmo_codec_new();
 *   no other call allocates, so the codec is usable after the freeze.
 * - acquire/submit/collect/release are called from one thread (the engine);
 *   only the workers run concurrently with it.
 * - Knows nothing of the kernel, the screen or the on-disk byte layout
 *   (the chunk header bytes are src/image's); does no I/O.
 */
#ifndef DMO_CODEC_H
#define DMO_CODEC_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DMO_CHUNK_MAX_PAGES 64

enum dmo_compress {
        DMO_COMPRESS_NONE = 0,
        DMO_COMPRESS_LZ4 = 1,
        DMO_COMPRESS_ZSTD = 2,
};

enum dmo_codec_dir {
        DMO_CODEC_ENCODE,
        DMO_CODEC_DECODE,
};

/* chunk->flags */
#define DMO_CHUNK_COMPRESSED 0x1u /* payload is compressed with the codec's algorithm */

struct dmo_codec_params {
        enum dmo_codec_dir dir;
        enum dmo_compress algo;
        int level;            /* 0: the algorithm's fast default; decode: ignored */
        unsigned page_size;   /* bytes per page, e.g. 4096 */
        unsigned chunk_pages; /* 1..DMO_CHUNK_MAX_PAGES */
        unsigned threads;     /* workers; 0: one per online CPU */
        unsigned slots;       /* chunks in flight; 0: 4 per worker */
        bool inline_work;     /* no worker threads: submit does the work on the
                               * caller's thread (tiny machines); threads is ignored */
        bool encrypted;       /* chunks are sealed/opened with the key given to
                               * dmo_codec_set_key() (required before the first submit) */
        bool measure_costs;   /* encode, encrypted: time compressing and sealing
                               * (dmo_codec_costs); two clock reads per step */
};

struct dmo_chunk {
        uint64_t seq;          /* submission order, from 0 (set by the codec) */
        uint32_t npages;       /* pages in this chunk, 1..chunk_pages */
        uint64_t zero_map;     /* bit i: page i is all zeros and not in the payload */
        uint32_t flags;        /* DMO_CHUNK_* */
        uint32_t payload_len;  /* bytes of payload */
        uint64_t payload_hash; /* xxh3-64 of payload[0..payload_len) */
        uint64_t pages_hash;   /* xxh3-64 of the npages * page_size raw bytes */
        uint8_t *pages;        /* chunk_pages * page_size bytes, owned by the codec */
        uint8_t *payload;      /* dmo_codec_payload_capacity() bytes, owned by the codec */
        /* After encode: the payload_len bytes to store. payload, except for
         * a chunk the codec's workers store as it is (not compressed, no
         * zero page, not encrypted): then pages, and payload was not
         * written, which saves copying every incompressible byte once. */
        const uint8_t *stored;
        /* After decode: the npages pages. pages, except for a chunk the
         * codec's workers find stored as it is (not compressed, no zero
         * page, not encrypted): then payload, verified, and pages was not
         * written (one copy and one checksum pass fewer). */
        const uint8_t *restored;
        int error; /* after decode: 0, or -EBADMSG (checksum, bad compressed data) */
};

struct dmo_codec;
struct dmo_crypto_key;

int dmo_codec_new(const struct dmo_codec_params *params, struct dmo_codec **out);
void dmo_codec_free(struct dmo_codec *c);

/* Largest payload a chunk can carry (worst-case compression bound, plus
 * the tag when encrypted). */
uint32_t dmo_codec_payload_capacity(const struct dmo_codec *c);

/* The image key of an encrypted codec, bound to its image; the codec does
 * not own it and it must outlive the codec's work. Only while nothing is in
 * flight. -EINVAL for a codec made without params.encrypted. */
int dmo_codec_set_key(struct dmo_codec *c, const struct dmo_crypto_key *key);

/* Takes a free chunk. Never blocks: -EAGAIN when every slot is in flight or
 * waiting to be collected (collect one first). Encode: fill pages and npages.
 * Decode: fill npages, zero_map, flags, payload_len, payload, payload_hash,
 * pages_hash exactly as stored. */
int dmo_codec_acquire(struct dmo_codec *c, struct dmo_chunk **chunk);

/* Hands a filled chunk to the workers. -ENOKEY: encrypted, and no key yet. */
int dmo_codec_submit(struct dmo_codec *c, struct dmo_chunk *chunk);

/* The next chunk in submission order. wait=false: -EAGAIN if it is not done
 * yet. -ENODATA when nothing is in flight. Encode: payload fields are set.
 * Decode: pages are set, or chunk->error says why not. */
int dmo_codec_collect(struct dmo_codec *c, struct dmo_chunk **chunk, bool wait);

/* Returns a collected chunk, or an acquired one never submitted, to the free pool. */
void dmo_codec_release(struct dmo_codec *c, struct dmo_chunk *chunk);

/* Single-chunk, same-thread helpers (tests, fuzzers, small images). They use
 * scratch space owned by the caller-provided codec and do not touch the pool;
 * they work in either direction whatever params.dir says. The caller provides
 * the chunk and its buffers: pages of chunk_pages * page_size bytes, payload
 * of dmo_codec_payload_capacity() bytes. encode_one: 0, or -EINVAL for npages
 * out of range. decode_one: sets and returns chunk->error. */
int dmo_codec_encode_one(struct dmo_codec *c, struct dmo_chunk *chunk);

/* Encode: chunks submitted from now on compress at least this fast; any
 * thread may call it. For LZ4 the speed is a floor for the acceleration
 * (the level's own when larger; 0 and 1 change nothing); other algorithms
 * ignore it. DMO_CODEC_SPEED_STORE stores the non-zero pages as they are,
 * with any algorithm (the checksums and encryption stay). Only the stored
 * size and the time change: every chunk decodes the same way. */
void dmo_codec_set_speed(struct dmo_codec *c, unsigned speed);
#define DMO_CODEC_SPEED_STORE UINT_MAX

/* What an encrypted encoder made with params.measure_costs measured on this
 * machine: thread CPU time compressing with the bytes in and out (out = in
 * where compression gave up), and sealing with the bytes sealed. All zero
 * otherwise. */
struct dmo_codec_costs {
        uint64_t compress_ns, compress_in, compress_out;
        uint64_t seal_ns, seal_bytes;
};
void dmo_codec_costs(struct dmo_codec *c, struct dmo_codec_costs *out);

/* Whether storing pages as they are costs the CPU less than compressing
 * them and sealing the result: sealing the bytes compression saves must
 * cost less than compressing them. False while either side has seen less
 * than 1 MiB. Measured (codec-pool's text, code and random pages, LZ4 at
 * level 0): with native AES-GCM sealing runs at 1.8 GB/s and LZ4 at 0.9, so
 * storing pays; under qemu-x86_64 -cpu max sealing runs at 14 MB/s and LZ4
 * at 230, so it does not. */
bool dmo_codec_costs_store_pays(const struct dmo_codec_costs *m);

/* DMO_CODEC_SPEED_STORE spares this codec CPU: always when nothing is
 * sealed, else as dmo_codec_costs_store_pays() says of what it measured.
 * Any thread; no allocation. */
bool dmo_codec_store_pays(struct dmo_codec *c);
int dmo_codec_decode_one(struct dmo_codec *c, struct dmo_chunk *chunk);

/* Decode, on the calling thread, of a chunk stored as it is (not
 * compressed, no zero page, not encrypted) whose payload lies outside the
 * codec's buffers (the reader's read-ahead, so that it is not copied): 0
 * when chunk's header fields say so and both checksums vouch for the
 * payload_len bytes at payload, which are then its pages; -EBADMSG
 * otherwise. Never touches the pool, reads nothing but payload. */
int dmo_codec_check_stored(struct dmo_codec *c, const struct dmo_chunk *chunk,
                           const uint8_t *payload);

/* 0 when an encoder of algo accepts level (the levels an image can be made
 * with), -EINVAL otherwise: lz4 0..65537 (acceleration; 0 = 1), zstd
 * ZSTD_minCLevel()..ZSTD_maxCLevel() (0 = 1), none any (ignored). Decoders
 * ignore the level: decompression needs none. */
int dmo_compress_level_check(enum dmo_compress algo, int level);

const char *dmo_compress_name(enum dmo_compress algo);
int dmo_compress_parse(const char *name, enum dmo_compress *out);

/* xxh3-64 as used for every checksum in dormouse. */
uint64_t dmo_hash64(const void *data, size_t len);

#endif
