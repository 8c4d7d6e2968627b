/* Fuzz target: the record an initramfs hook leaves (kernel/initramfs_record.h).
 * Whatever the bytes, the parser either refuses them or fills every string
 * within its buffer, NUL-terminated. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/initramfs_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct dmo_initramfs_record r;
        int e = dmo_initramfs_record_parse((const char *)data, size, &r);
        if (memchr(r.kernel, '\0', sizeof(r.kernel)) == NULL ||
            memchr(r.builder, '\0', sizeof(r.builder)) == NULL ||
            memchr(r.resume, '\0', sizeof(r.resume)) == NULL)
                abort();
        if (e == 0 && (r.version != DMO_INITRAMFS_RECORD_VERSION || !r.kernel[0]))
                abort();
        char path[128];
        if (e == 0)
                dmo_initramfs_record_path("/nonexistent", r.kernel, ".conf", path, sizeof(path));
        return 0;
}
