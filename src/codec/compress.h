/* compress: the codec's internal table of compressors (none, lz4, zstd).
 *
 * Contract:
 * - A context is created (and every byte it will ever use allocated) by
 *   dmo_compressor_ctx_new(); compress/decompress never allocate, so they
 *   are usable after the freeze.
 * - One context is used by one thread at a time.
 * - Knows nothing of pages, chunks or threads; never prints.
 */
#ifndef DMO_CODEC_COMPRESS_H
#define DMO_CODEC_COMPRESS_H

#include <stddef.h>

#include "codec/codec.h"

struct dmo_compressor_ctx;

struct dmo_compressor_ops {
        enum dmo_compress algo;
        const char *name;
        /* Largest output for src_len bytes of input. */
        size_t (*bound)(size_t src_len);
        /* Sized for inputs of up to max_src bytes; -EINVAL for a level the
         * algorithm does not have. */
        int (*ctx_new)(int level, size_t max_src, bool encode, bool decode,
                       struct dmo_compressor_ctx **out);
        void (*ctx_free)(struct dmo_compressor_ctx *ctx);
        /* Compressed size, or 0 when the output would not fit in dst_cap.
         * speed: at least this fast (see dmo_codec_set_speed): LZ4's
         * acceleration is the larger of speed and the level; the others
         * ignore it; 0: the level's own. */
        size_t (*compress)(struct dmo_compressor_ctx *ctx, const void *src, size_t src_len,
                           void *dst, size_t dst_cap, unsigned speed);
        /* 0 when src decompresses to exactly dst_len bytes, else -EBADMSG. */
        int (*decompress)(struct dmo_compressor_ctx *ctx, const void *src, size_t src_len,
                          void *dst, size_t dst_len);
};

/* NULL for an unknown algorithm. */
const struct dmo_compressor_ops *dmo_compressor_ops_get(enum dmo_compress algo);

#endif
