/* Fuzz target: swap header pages and /proc/swaps text, the two swap-area
 * parsers that read bytes we did not write. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/swap_area.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct dmo_swap_info info;
        /* Exact-size copy so reads past the input are caught by ASan. */
        uint8_t *buf = malloc(size ? size : 1);
        if (!buf)
                return 0;
        memcpy(buf, data, size);
        if (dmo_swap_header_parse(buf, size, &info) == 0 && info.magic != DMO_SWAP_MAGIC_NONE) {
                if (info.page_size < DMO_SWAP_PAGE_MIN || info.page_size > size)
                        abort();
                if (strlen(info.label) > DMO_SWAP_LABEL_MAX)
                        abort();
        }
        /* Small inputs also go through the /proc/swaps parser. */
        if (size < 8192) {
                char path[] = "/tmp/fuzz-swaps-XXXXXX";
                int fd = mkstemp(path);
                if (fd >= 0) {
                        if (write(fd, buf, size) == (ssize_t)size) {
                                struct dmo_swap_entry e[4];
                                size_t n = 0;
                                if (dmo_proc_swaps_parse(path, e, 4, &n) == 0) {
                                        size_t pick;
                                        dmo_proc_swaps_pick(e, n < 4 ? n : 4, &pick);
                                }
                        }
                        close(fd);
                        unlink(path);
                }
        }
        free(buf);
        return 0;
}
