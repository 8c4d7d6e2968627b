/* Fuzz target: chunk headers as read from the stream, checked against an
 * image geometry taken from the input. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "image/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const uint32_t sizes[] = {4096, 8192, 16384, 65536};
        if (size < 2 + DMO_CHUNK_HEADER_LEN)
                return 0;
        const uint32_t ps = sizes[data[0] % 4];
        const uint32_t chunk_pages = 1 + data[1] % 70; /* also out of range */
        const uint32_t compress = (data[1] >> 6) % 3;
        uint8_t in[DMO_CHUNK_HEADER_LEN];
        memcpy(in, data + 2, sizeof(in));

        struct dmo_chunk c;
        memset(&c, 0, sizeof(c));
        if (dmo_chunk_header_decode(in, ps, chunk_pages, compress, false, &c) == 0) {
                const uint64_t nz = c.npages - (uint32_t)__builtin_popcountll(c.zero_map);
                if (c.npages == 0 || c.npages > chunk_pages || chunk_pages > DMO_CHUNK_MAX_PAGES ||
                    c.payload_len > nz * ps)
                        __builtin_trap();
                uint8_t out[DMO_CHUNK_HEADER_LEN];
                dmo_chunk_header_encode(out, &c);
                if (memcmp(out, in, sizeof(in)) != 0)
                        __builtin_trap(); /* decoding is exact: no ignored bits */
        }
        return 0;
}
