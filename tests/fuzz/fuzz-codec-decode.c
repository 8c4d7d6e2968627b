/* fuzz-codec-decode: dmo_codec_decode_one with hostile chunk fields.
 *
 * The input's first 24 bytes set the chunk fields (algorithm, npages,
 * zero_map, flags, payload_len, and whether the checksums are forged to
 * match); the rest is the payload. With forged checksums the input reaches
 * the decompressors, so they see hostile streams too. Decode must return 0 or
 * -EBADMSG and stay inside its buffers; a chunk that decodes must hash to
 * pages_hash. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec.h"

#define PS 256u
#define CP 8u

static uint32_t rd32(const uint8_t *p)
{
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < 24)
                return 0;
        const enum dmo_compress algo = (enum dmo_compress)(data[0] % 3);
        const uint8_t mode = data[1];
        struct dmo_codec_params p = {.dir = DMO_CODEC_DECODE,
                                     .algo = algo,
                                     .page_size = PS,
                                     .chunk_pages = CP,
                                     .inline_work = true,
                                     .slots = 1};
        struct dmo_codec *c;
        if (dmo_codec_new(&p, &c) != 0)
                abort();
        const uint32_t cap = dmo_codec_payload_capacity(c);

        /* Exactly-sized heap buffers, so ASan sees any overrun. */
        uint8_t *pages = malloc(CP * PS);
        uint8_t *payload = malloc(cap);
        const uint8_t *body = data + 24;
        size_t body_len = size - 24;
        if (body_len > cap)
                body_len = cap;
        memcpy(payload, body, body_len);
        memset(payload + body_len, 0, cap - body_len);

        if (mode & 32) {
                /* Near-valid chunk: encode the body as pages, then damage one
                 * payload byte, so the decompressors meet almost-right streams. */
                struct dmo_chunk enc = {
                    .npages = 1 + data[2] % CP, .pages = pages, .payload = payload};
                uint8_t *orig = calloc(CP, PS);
                memcpy(orig, body, body_len < CP * PS ? body_len : CP * PS);
                memcpy(pages, orig, CP * PS);
                if (dmo_codec_encode_one(c, &enc) != 0)
                        abort();
                if (enc.payload_len)
                        payload[rd32(data + 18) % enc.payload_len] ^= data[22];
                enc.payload_hash = dmo_hash64(payload, enc.payload_len);
                if (mode & 64)
                        enc.zero_map ^= UINT64_C(1) << (data[23] % CP);
                int r = dmo_codec_decode_one(c, &enc);
                if ((r != 0 && r != -EBADMSG) || r != enc.error)
                        abort();
                if (data[22] == 0 && !(mode & 64) && r != 0)
                        abort(); /* undamaged: must round-trip */
                if (r == 0 && memcmp(pages, orig, enc.npages * PS) != 0)
                        abort(); /* passed both checksums yet wrong */
                free(orig);
        }

        struct dmo_chunk ch = {
            .npages = (mode & 1) ? rd32(data + 2) : 1 + data[2] % CP,
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
        if (r == 0 && dmo_hash64(pages, (size_t)ch.npages * PS) != ch.pages_hash)
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
