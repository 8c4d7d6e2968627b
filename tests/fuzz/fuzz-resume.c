/* Fuzz target: the resume path as a whole, on an image file's bytes.
 *
 * The input is a whole swap area (the seeds are small swap files that
 * `dormouse hibernate --kernel sim` wrote an image to). It is put in a memfd
 * and read the way `dormouse resume` reads a device: dmo_image_probe() on
 * the swap header page, then, for an image it calls sound, the streaming
 * reader to the last page, then the signature taken off through sigdev.
 * Checks: the reader's answers are the documented ones; an image that
 * streams to the end delivered exactly image_pages pages; after
 * dmo_sig_clear() no image is found any more. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "image/reader.h"
#include "image/sigdev.h"
#include "kernel/blockdev.h"
#include "tests/fuzz/memfile.h"

#define PS 4096u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An input is a 64 KiB swap area and two threads: a twentieth of the
 * deterministic driver's iterations (see driver.c). */
extern const unsigned dmo_fuzz_input_cost;
const unsigned dmo_fuzz_input_cost = 20;

static void stream_to_the_end(const struct dmo_image_info *info, struct dmo_blockdev *dev)
{
        struct dmo_image_reader *r;
        if (dmo_image_reader_new(info, dev, 1, NULL, &r) < 0)
                return;
        uint64_t pages = 0;
        int rc;
        for (;;) {
                const void *p;
                size_t n;
                rc = dmo_image_reader_next_pages(r, &p, &n);
                if (rc != 1)
                        break;
                if (n == 0 || pages + n > info->header.image_pages)
                        __builtin_trap(); /* more pages than the header promised */
                /* touch the first and last byte handed out */
                volatile uint8_t x = ((const uint8_t *)p)[0];
                x = ((const uint8_t *)p)[n * info->page_size - 1];
                (void)x;
                pages += n;
        }
        if (rc == 0 && pages != info->header.image_pages)
                __builtin_trap(); /* "consistent" yet pages missing */
        if (rc > 1)
                __builtin_trap();
        /* after an error it keeps returning it */
        if (rc < 0) {
                const void *p;
                size_t n;
                if (dmo_image_reader_next_pages(r, &p, &n) != rc)
                        __builtin_trap();
        }
        dmo_image_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char path[64];
        int fd = dmo_fuzz_memfile("dmo-fuzz-resume", data, size, path);
        struct dmo_blockdev *dev;
        if (dmo_blockdev_open(path, true, NULL, &dev) < 0)
                abort();

        struct dmo_image_info info;
        int r = dmo_image_probe(dev, 0, PS, &info);
        if (r == 0) {
                if (!info.has_sig || !info.has_header || !info.map_ok)
                        __builtin_trap();
                stream_to_the_end(&info, dev);
        } else if (r != -ENOENT && r != -ENODEV && r != -EBADMSG && r != -EPROTONOSUPPORT &&
                   r != -ENXIO && r != -EIO && r != -EINVAL) {
                fprintf(stderr, "probe: unexpected %d\n", r);
                __builtin_trap();
        }

        /* The refusal path: the signature comes off, and then no image is
         * found, whatever was there. */
        struct dmo_sig sig;
        (void)dmo_sig_read(dev, 0, PS, &sig);
        if (dmo_sig_clear(dev, 0, PS) == 0) {
                if (dmo_sig_read(dev, 0, PS, &sig) == 0)
                        __builtin_trap();
                if (dmo_image_probe(dev, 0, PS, &info) == 0)
                        __builtin_trap();
        }
        dmo_blockdev_free(dev);
        close(fd);
        return 0;
}
