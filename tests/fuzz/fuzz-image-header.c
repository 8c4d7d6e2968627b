/* Fuzz target: the swap header page's signature block and the image header
 * page, both read from an untrusted device at resume. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "image/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        /* First byte picks the page size; the rest is the page, zero padded. */
        static const uint32_t sizes[] = {4096, 8192, 16384, 65536};
        static uint8_t page[65536];
        if (size < 1)
                return 0;
        uint32_t ps = sizes[data[0] % 4];
        size_t n = size - 1 < ps ? size - 1 : ps;
        memset(page, 0, ps);
        memcpy(page, data + 1, n);

        struct dmo_sig sig;
        if (dmo_sig_parse(page, ps, &sig) == 0 && sig.page_size != ps)
                __builtin_trap();
        struct dmo_image_header h;
        enum dmo_image_fault f;
        if (dmo_image_header_decode(page, ps, &h, &f) == 0) {
                /* Whatever decodes must pass the checks it was decoded under
                 * and survive an encode/decode round trip. */
                if (dmo_image_header_check(&h) != 0)
                        __builtin_trap();
                static uint8_t again[65536];
                struct dmo_image_header h2;
                if (h.minor == DMO_IMAGE_MINOR && dmo_image_header_encode(again, ps, &h) == 0 &&
                    dmo_image_header_decode(again, ps, &h2, NULL) != 0)
                        __builtin_trap();
        }

        int changed;
        if (dmo_sig_remove(page, ps, &changed) == 0 && dmo_sig_parse(page, ps, &sig) == 0)
                __builtin_trap(); /* removal must leave no signature behind */
        return 0;
}
