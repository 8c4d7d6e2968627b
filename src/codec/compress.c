/* The three compressors. Contexts are sized once for the largest chunk so
 * that compress/decompress never allocate: LZ4 works in a caller-provided
 * state, zstd in static contexts (ZSTD_initStatic*), which fail instead of
 * growing when a frame would need more memory. */
#include "codec/compress.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

struct dmo_compressor_ctx {
        int level;
        void *lz4_state;
        ZSTD_CCtx *cctx; /* lives inside cws */
        ZSTD_DCtx *dctx; /* lives inside dws */
        void *cws;
        void *dws;
};

static void ctx_free(struct dmo_compressor_ctx *ctx)
{
        if (!ctx)
                return;
        free(ctx->lz4_state);
        free(ctx->cws);
        free(ctx->dws);
        free(ctx);
}

/* none */

static size_t none_bound(size_t src_len)
{
        return src_len;
}

static int none_ctx_new(int level, size_t max_src, bool encode, bool decode,
                        struct dmo_compressor_ctx **out)
{
        *out = calloc(1, sizeof(**out));
        return *out ? 0 : -ENOMEM;
}

static size_t none_compress(struct dmo_compressor_ctx *ctx, const void *src, size_t src_len,
                            void *dst, size_t dst_cap, unsigned speed)
{
        (void)speed;
        if (src_len > dst_cap)
                return 0;
        memcpy(dst, src, src_len);
        return src_len;
}

static int none_decompress(struct dmo_compressor_ctx *ctx, const void *src, size_t src_len,
                           void *dst, size_t dst_len)
{
        if (src_len != dst_len)
                return -EBADMSG;
        memcpy(dst, src, src_len);
        return 0;
}

/* lz4: level is the acceleration factor (1 = LZ4's default, higher = faster). */

static size_t lz4_bound(size_t src_len)
{
        return src_len > LZ4_MAX_INPUT_SIZE ? 0 : (size_t)LZ4_COMPRESSBOUND(src_len);
}

/* The acceleration factors LZ4 has (above this it silently clamps). */
static const int lz4_level_max = 65537;

static int lz4_ctx_new(int level, size_t max_src, bool encode, bool decode,
                       struct dmo_compressor_ctx **out)
{
        /* Decompression needs no level: only an encoder checks it. */
        if ((encode && dmo_compress_level_check(DMO_COMPRESS_LZ4, level) < 0) ||
            max_src > LZ4_MAX_INPUT_SIZE)
                return -EINVAL;
        struct dmo_compressor_ctx *ctx = calloc(1, sizeof(*ctx));
        if (!ctx)
                return -ENOMEM;
        ctx->level = level ? level : 1;
        if (encode) {
                /* LZ4's state wants pointer alignment; malloc gives more. */
                ctx->lz4_state = malloc((size_t)LZ4_sizeofState());
                if (!ctx->lz4_state) {
                        ctx_free(ctx);
                        return -ENOMEM;
                }
        }
        *out = ctx;
        return 0;
}

static size_t lz4_compress(struct dmo_compressor_ctx *ctx, const void *src, size_t src_len,
                           void *dst, size_t dst_cap, unsigned speed)
{
        if (dst_cap > INT_MAX)
                dst_cap = INT_MAX;
        if (speed > (unsigned)lz4_level_max)
                speed = (unsigned)lz4_level_max;
        int accel = (int)speed > ctx->level ? (int)speed : ctx->level;
        int n =
            LZ4_compress_fast_extState(ctx->lz4_state, src, dst, (int)src_len, (int)dst_cap, accel);
        return n > 0 ? (size_t)n : 0;
}

static int lz4_decompress(struct dmo_compressor_ctx *ctx, const void *src, size_t src_len,
                          void *dst, size_t dst_len)
{
        if (src_len > INT_MAX || dst_len > INT_MAX)
                return -EBADMSG;
        int n = LZ4_decompress_safe(src, dst, (int)src_len, (int)dst_len);
        return n >= 0 && (size_t)n == dst_len ? 0 : -EBADMSG;
}

/* zstd: level 0 means level 1 (fast), not zstd's own default of 3. */

static size_t zstd_bound(size_t src_len)
{
        return ZSTD_compressBound(src_len);
}

/* ZSTD_compressCCtx picks parameters from the level and the input size; the
 * workspace has to fit the largest of those for any size up to max_src. */
static size_t zstd_cctx_size(int level, size_t max_src)
{
        size_t need = 0;
        for (size_t s = 1024;; s *= 2) {
                size_t src = s < max_src ? s : max_src;
                size_t n = ZSTD_estimateCCtxSize_usingCParams(ZSTD_getCParams(level, src, 0));
                if (n > need)
                        need = n;
                if (src == max_src)
                        break;
        }
        return need;
}

static int zstd_ctx_new(int level, size_t max_src, bool encode, bool decode,
                        struct dmo_compressor_ctx **out)
{
        /* Decompression needs no level: only an encoder checks it. */
        if ((encode && dmo_compress_level_check(DMO_COMPRESS_ZSTD, level) < 0) || max_src == 0)
                return -EINVAL;
        if (level == 0)
                level = 1;
        struct dmo_compressor_ctx *ctx = calloc(1, sizeof(*ctx));
        if (!ctx)
                return -ENOMEM;
        ctx->level = level;
        if (encode) {
                size_t n = zstd_cctx_size(level, max_src);
                ctx->cws = aligned_alloc(64, (n + 63) & ~(size_t)63);
                ctx->cctx = ctx->cws ? ZSTD_initStaticCCtx(ctx->cws, n) : NULL;
                if (!ctx->cctx)
                        goto fail;
        }
        if (decode) {
                size_t n = ZSTD_estimateDCtxSize();
                ctx->dws = aligned_alloc(64, (n + 63) & ~(size_t)63);
                ctx->dctx = ctx->dws ? ZSTD_initStaticDCtx(ctx->dws, n) : NULL;
                if (!ctx->dctx)
                        goto fail;
        }
        *out = ctx;
        return 0;
fail:
        ctx_free(ctx);
        return -ENOMEM;
}

static size_t zstd_compress(struct dmo_compressor_ctx *ctx, const void *src, size_t src_len,
                            void *dst, size_t dst_cap, unsigned speed)
{
        (void)speed;
        size_t n = ZSTD_compressCCtx(ctx->cctx, dst, dst_cap, src, src_len, ctx->level);
        return ZSTD_isError(n) ? 0 : n;
}

static int zstd_decompress(struct dmo_compressor_ctx *ctx, const void *src, size_t src_len,
                           void *dst, size_t dst_len)
{
        size_t n = ZSTD_decompressDCtx(ctx->dctx, dst, dst_len, src, src_len);
        return !ZSTD_isError(n) && n == dst_len ? 0 : -EBADMSG;
}

static const struct dmo_compressor_ops ops_table[] = {
    {DMO_COMPRESS_NONE, "none", none_bound, none_ctx_new, ctx_free, none_compress, none_decompress},
    {DMO_COMPRESS_LZ4, "lz4", lz4_bound, lz4_ctx_new, ctx_free, lz4_compress, lz4_decompress},
    {DMO_COMPRESS_ZSTD, "zstd", zstd_bound, zstd_ctx_new, ctx_free, zstd_compress, zstd_decompress},
};

const struct dmo_compressor_ops *dmo_compressor_ops_get(enum dmo_compress algo)
{
        for (size_t i = 0; i < sizeof(ops_table) / sizeof(ops_table[0]); i++)
                if (ops_table[i].algo == algo)
                        return &ops_table[i];
        return NULL;
}

int dmo_compress_level_check(enum dmo_compress algo, int level)
{
        switch (algo) {
        case DMO_COMPRESS_NONE:
                return 0; /* the level is ignored */
        case DMO_COMPRESS_LZ4:
                return level >= 0 && level <= lz4_level_max ? 0 : -EINVAL;
        case DMO_COMPRESS_ZSTD:
                return level >= ZSTD_minCLevel() && level <= ZSTD_maxCLevel() ? 0 : -EINVAL;
        }
        return -EINVAL;
}

const char *dmo_compress_name(enum dmo_compress algo)
{
        const struct dmo_compressor_ops *ops = dmo_compressor_ops_get(algo);
        return ops ? ops->name : NULL;
}

int dmo_compress_parse(const char *name, enum dmo_compress *out)
{
        if (!name)
                return -EINVAL;
        for (size_t i = 0; i < sizeof(ops_table) / sizeof(ops_table[0]); i++)
                if (strcmp(ops_table[i].name, name) == 0) {
                        *out = ops_table[i].algo;
                        return 0;
                }
        return -EINVAL;
}
