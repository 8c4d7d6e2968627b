/* fuzz-codec-decode: dmo_codec_decode_one with hostile chunk fields.
 *
 * The input's first 24 bytes set the chunk fields (algorithm, npages,
 * zero_map, flags, payload_len, and whether the checksums are forged to
 * match); byte 24 the geometry (4 KiB pages with 1, 16 or 64 pages a chunk,
 * or the small 256-byte pages, 8 a chunk, of the first seeds), byte 25 the
 * level the near-valid chunk is encoded at and byte 26..29 the level the
 * decoder is told (decoders must ignore it); the rest is the payload. With
 * forged checksums the input reaches the decompressors, so they see hostile
 * streams too. Decode must return 0 or -EBADMSG and stay inside its buffers;
 * a chunk that decodes must hash to pages_hash. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec.h"

#define HDR 30u

/* byte 24: bits 0-1 chunk pages, bits 2-3 page size (0: the small pages) */
static const unsigned chunk_pages[] = {8, 1, 16, 64};
static const unsigned page_sizes[] = {256, 4096, 4096, 4096};
/* byte 25: encoder levels, per algorithm (none ignores it) */
static const int lz4_levels[] = {0, 1, 2, 9, 200, 65537};
static const int zstd_levels[] = {0, 1, -1, -7, 3, 6, 9, 12};

static uint32_t rd32(const uint8_t *p)
{
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < HDR)
                return 0;
        const enum dmo_compress algo = (enum dmo_compress)(data[0] % 3);
        const uint8_t mode = data[1];
        const unsigned cp = chunk_pages[data[24] & 3], ps = page_sizes[(data[24] >> 2) & 3];
        const int enc_level = algo == DMO_COMPRESS_LZ4    ? lz4_levels[data[25] % 6]
                              : algo == DMO_COMPRESS_ZSTD ? zstd_levels[data[25] % 8]
                                                          : (int8_t)data[25];
        struct dmo_codec_params p = {.dir = DMO_CODEC_DECODE,
                                     .algo = algo,
                                     .level = (int)rd32(data + 26),
                                     .page_size = ps,
                                     .chunk_pages = cp,
                                     .inline_work = true,
                                     .slots = 1};
        struct dmo_codec *c;
        if (dmo_codec_new(&p, &c) != 0)
                abort(); /* whatever level the header says, a decoder is made */
        const uint32_t cap = dmo_codec_payload_capacity(c);

        /* Exactly-sized heap buffers, so ASan sees any overrun. */
        uint8_t *pages = malloc(cp * ps);
        uint8_t *payload = malloc(cap);
        const uint8_t *body = data + HDR;
        size_t body_len = size - HDR;
        if (body_len > cap)
                body_len = cap;
        memcpy(payload, body, body_len);
        memset(payload + body_len, 0, cap - body_len);

        if (mode & 32) {
                /* Near-valid chunk: encode the body as pages, then damage one
                 * payload byte, so the decompressors meet almost-right streams. */
                struct dmo_codec_params ep = p;
                ep.dir = DMO_CODEC_ENCODE;
                ep.level = enc_level;
                struct dmo_codec *e;
                if (dmo_codec_new(&ep, &e) != 0)
                        abort();
                struct dmo_chunk enc = {
                    .npages = 1 + data[2] % cp, .pages = pages, .payload = payload};
                uint8_t *orig = calloc(cp, ps);
                memcpy(orig, body, body_len < cp * ps ? body_len : cp * ps);
                memcpy(pages, orig, cp * ps);
                if (dmo_codec_encode_one(e, &enc) != 0)
                        abort();
                dmo_codec_free(e);
                if (enc.payload_len)
                        payload[rd32(data + 18) % enc.payload_len] ^= data[22];
                enc.payload_hash = dmo_hash64(payload, enc.payload_len);
                if (mode & 64)
                        enc.zero_map ^= UINT64_C(1) << (data[23] % cp);
                int r = dmo_codec_decode_one(c, &enc);
                if ((r != 0 && r != -EBADMSG) || r != enc.error)
                        abort();
                if (data[22] == 0 && !(mode & 64) && r != 0)
                        abort(); /* undamaged: must round-trip */
                if (r == 0 && memcmp(pages, orig, enc.npages * ps) != 0)
                        abort(); /* passed both checksums yet wrong */
                free(orig);
        }

        struct dmo_chunk ch = {
            .npages = (mode & 1) ? rd32(data + 2) : 1 + data[2] % cp,
            .zero_map = (uint64_t)rd32(data + 6) | (uint64_t)rd32(data + 10) << 32,
            .flags = (mode & 2) ? rd32(data + 14) : (data[14] & DMO_CHUNK_COMPRESSED),
            .payload_len = (mode & 4) ? rd32(data + 18) : (uint32_t)body_len,
            .pages = pages,
            .payload = payload,
        };
        if (!(mode & 8))
                ch.zero_map &= (UINT64_C(1) << (ch.npages % 64)) - 1;
        ch.payload_hash = (mode & 16) || ch.payload_len > cap ? (uint64_t)rd32(data + 2) * 31
                                                              : dmo_hash64(payload, ch.payload_len);
        ch.pages_hash = rd32(data + 6);

        int r = dmo_codec_decode_one(c, &ch);
        if ((r != 0 && r != -EBADMSG) || r != ch.error)
                abort();
        if (r == 0 && dmo_hash64(pages, (size_t)ch.npages * ps) != ch.pages_hash)
                abort();

        /* Once more, through the pool's path. */
        struct dmo_chunk *pc;
        if (dmo_codec_acquire(c, &pc) != 0)
                abort();
        uint8_t *pp = pc->pages, *pl = pc->payload;
        *pc = ch;
        pc->pages = pp;
        pc->payload = pl;
        memcpy(pl, payload, cap);
        if (dmo_codec_submit(c, pc) != 0 || dmo_codec_collect(c, &pc, true) != 0)
                abort();
        if (pc->error != r)
                abort();
        dmo_codec_release(c, pc);

        free(pages);
        free(payload);
        dmo_codec_free(c);
        return 0;
}
