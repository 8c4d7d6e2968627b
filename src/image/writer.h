/* writer: streams the kernel's image pages into swap as a dormouse image.
 *
 * Pages go into codec chunks; finished chunks are packed back to back into
 * the chunk stream, which is laid out in swap slots asked for one page at a
 * time through the caller's allocator (SNAPSHOT_ALLOC_SWAP_PAGE, or a fake
 * one in tests) and coalesced into extents. finish() writes the extent map
 * and the image header in further slots and fsyncs. The signature is not
 * written here: the engine writes it last, with dmo_sig_write().
 *
 * Contract:
 * - Owns its codec, a stream buffer of at least 1 MiB (writes are coalesced
 *   to that size wherever slots are contiguous), the extent array sized for
 *   the worst case of params->expected_pages, and one scratch page. All of
 *   it is allocated in dmo_image_writer_new(); no later call allocates, so
 *   the writer runs after the snapshot.
 * - May call the codec, the block device, the allocator callback and the
 *   progress model (dmo_progress_add_bytes for bytes stored, with each
 *   write's duration). Never prints, never touches the swap header page.
 * - LZ4 at level 0 adapts its acceleration (1 to 8) to the disk, and one
 *   step further stores chunks uncompressed if allow_store() said so: faster
 *   while the I/O thread waits for data, harder while the writer waits for
 *   the disk (image/pace.h). A level given is kept as it is.
 * - Single-threaded use (the codec's workers run underneath). After an
 *   error every call returns that error again; free() is always safe.
 */
#ifndef DMO_IMAGE_WRITER_H
#define DMO_IMAGE_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "codec/codec.h"
#include "image/format.h"
#include "kernel/snapshot.h"

struct dmo_blockdev;
struct dmo_progress;

struct dmo_image_writer_params {
        enum dmo_compress algo;
        int level;            /* 0: the algorithm's default */
        unsigned threads;     /* codec workers; 0: one per online CPU */
        unsigned chunk_pages; /* 1..DMO_CHUNK_MAX_PAGES; 0: DMO_CHUNK_MAX_PAGES */
        uint32_t page_size;
        uint64_t expected_pages; /* the image's page count; more pages are refused */
        /* Encryption: both or neither. The writer binds key to this image,
         * seals every chunk with it and authenticates the header and the
         * extent list (dmo_image_header_mac). The caller owns both and
         * keeps them until the writer is freed. */
        struct dmo_crypto_key *key;
        const struct dmo_crypto_envelope *envelope;
        /* Encrypted only, nullable: the TPM section (the key sealed by the
         * TPM, the counter), written into the header and covered by its
         * MAC. The caller's, kept until the writer is freed. */
        const struct dmo_image_tpm *tpm;
        /* enum dmo_chunk_cipher; 0: the fastest this CPU has
         * (dmo_crypto_cipher_preferred). */
        unsigned cipher;
};

/* What the engine knows about the run, recorded in the header. */
struct dmo_image_meta {
        struct dmo_kernel_identity identity;
        uint64_t start_ns; /* CLOCK_REALTIME at the start of the hibernation */
        uint64_t end_ns;   /* 0: now, when finish() writes the header */
        bool platform_mode;
};

struct dmo_image_result {
        struct dmo_sig sig; /* ready for dmo_sig_write() */
        uint64_t header_offset;
        uint64_t image_pages;
        uint64_t chunk_count;
        uint64_t extent_count;
        uint32_t map_pages;
        uint64_t stream_len;
        uint64_t raw_bytes;
        uint64_t stored_bytes; /* stream, map and header pages on disk */
        uint64_t zero_pages;
        uint64_t write_ns; /* from dmo_image_writer_new() to the end of finish() */
        uint64_t writes;   /* pwrite requests issued */
        uint64_t io_ns;    /* time spent in them */
        uint64_t wait_ns;  /* time the engine waited for the codec with every slot busy */
        /* The compressor's speed (image/pace.h) averaged over the stream
         * buffers written: 1 when it does not adapt (a level was given, or
         * not LZ4) or the disk kept the writer waiting. */
        double mean_speed;
        /* Chunks whose non-zero pages went to disk as they were: the
         * compressor gave up on them, or stored ones (allow_store). */
        uint64_t stored_chunks;
};

struct dmo_image_writer;

/* alloc_page returns one free swap slot (a page-aligned byte offset on dev)
 * or a negative errno (-ENOSPC: swap full). -EINVAL for bad params. */
int dmo_image_writer_new(const struct dmo_image_writer_params *p, struct dmo_blockdev *dev,
                         int (*alloc_page)(void *ctx, uint64_t *byte_offset), void *alloc_ctx,
                         struct dmo_progress *progress, struct dmo_image_writer **out);

/* Where the next image pages go: *n (>= 1) consecutive pages of page_size
 * bytes at *pages, the room left in the chunk being filled (never more than
 * the pages still expected). May first write out finished chunks: disk and
 * allocation errors surface here. -EOVERFLOW once expected_pages pages were
 * committed. */
int dmo_image_writer_page_buffers(struct dmo_image_writer *w, void **pages, size_t *n);

/* The first n pages of what page_buffers() returned are filled. */
int dmo_image_writer_commit_pages(struct dmo_image_writer *w, size_t n);

/* Whether the pace may go one step past LZ4's fastest and store chunks
 * uncompressed while the disk still waits for the compressor and the
 * compressor holds the pages back (the engine waited for a busy slot a
 * tenth of the time since the last step or more; otherwise the pace stays
 * at LZ4's fastest). True only for LZ4 at level 0 (the writer adapts its
 * speed) and room bytes of swap that hold pages pages stored uncompressed,
 * with their chunk headers, tags, map and header. For an encrypted image
 * the step is taken only while the codec measures sealing the bytes LZ4
 * saves as cheaper than LZ4 (dmo_codec_store_pays). Off at first; no
 * allocation, callable after the snapshot. */
bool dmo_image_writer_allow_store(struct dmo_image_writer *w, uint64_t pages, uint64_t room);

/* Flushes and drains everything, writes the extent map and the header,
 * fsyncs. res says where the header is (res->sig) and what was stored. */
int dmo_image_writer_finish(struct dmo_image_writer *w, const struct dmo_image_meta *meta,
                            struct dmo_image_result *res);

void dmo_image_writer_free(struct dmo_image_writer *w);

#endif
