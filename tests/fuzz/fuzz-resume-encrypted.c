/* Fuzz target: the resume path of an encrypted image, on a whole swap
 * area's bytes (the seeds are 64 KiB swap files that `dormouse hibernate
 * --kernel sim --sim-seed 1 --encrypt ...` wrote to, with the cheapest
 * Argon2id costs and the passphrase "fuzz"; the public-key seed was sealed
 * to the key pair whose secret-key file is below).
 *
 * The input goes through probe, the envelope (unwrapped with the known
 * passphrase, or the secret key opened with it), the reader with the key
 * set (header and extent-list MAC), and the stream to the last page.
 * Checks: the documented answers only; no page is ever delivered without a
 * key; and the point of authenticated encryption: every page that comes
 * out, error or not, is the page the simulated kernel wrote. No mutation
 * of an encrypted image changes memory without being refused. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crypto/crypto.h"
#include "image/reader.h"
#include "image/sigdev.h"
#include "kernel/blockdev.h"
#include "kernel/sim_pages.h"
#include "tests/fuzz/memfile.h"

#define PS       4096u
#define SIM_SEED 1u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A whole image, Argon2id and two threads per input. */
extern const unsigned dmo_fuzz_input_cost;
const unsigned dmo_fuzz_input_cost = 40;

static const char pass[] = "fuzz";

/* `dormouse keygen` output for the public-key seed (passphrase "fuzz",
 * kdf ops 1, kdf memory 8K). */
static const uint8_t secret_file[DMO_CRYPTO_SECRET_FILE_LEN] = {
    0x44, 0x4d, 0x4f, 0x53, 0x4b, 0x45, 0x59, 0x31, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x6b, 0xda, 0x88, 0x97, 0x19, 0xac, 0xf2, 0xed,
    0xeb, 0xbe, 0x16, 0x41, 0x8f, 0x28, 0x2d, 0x6c, 0xfc, 0x01, 0xb8, 0x73, 0xdf, 0xca, 0xdf, 0xc6,
    0x28, 0x50, 0xdf, 0x2c, 0xbf, 0x0c, 0x67, 0x1b, 0x8a, 0x27, 0xc1, 0xe8, 0xf5, 0xa4, 0x0f, 0x0e,
    0x48, 0xaf, 0xde, 0x65, 0x10, 0x9d, 0x4a, 0xf7, 0x8f, 0x03, 0xf0, 0xfc, 0xca, 0xab, 0x9f, 0xbf,
    0xa4, 0x21, 0x13, 0xad, 0x02, 0x3c, 0xf9, 0xb6, 0xbd, 0x79, 0x09, 0x1e, 0x4f, 0x1b, 0x8d, 0x08,
    0xce, 0xb2, 0x64, 0xce, 0x80, 0xf8, 0x64, 0x2d, 0xda, 0x4c, 0xb7, 0x1e, 0x1d, 0xe8, 0x2c, 0x85,
    0xff, 0x3a, 0xf9, 0x2e, 0x5f, 0x9a, 0x2c, 0x36, 0x7f, 0x84, 0x1b, 0xbd, 0x1e, 0xd2, 0xee, 0x7c,
    0x92, 0xb4, 0x25, 0x20, 0x57, 0x80, 0x38, 0x65, 0x28, 0xe6, 0x79, 0xe7, 0xca, 0x8b, 0x99, 0x0d};

/* Costs a mutated header may ask for are bounded here, not by libsodium:
 * the fuzzer must not spend gigabytes on one input. */
static int unlock(const struct dmo_crypto_envelope *env, struct dmo_crypto_key **key)
{
        if (env->mode == DMO_ENCRYPT_PASSPHRASE) {
                if (env->opslimit > 2 || env->memlimit > (64u << 10))
                        return -E2BIG;
                return dmo_crypto_unwrap_passphrase(env, pass, sizeof(pass) - 1, key);
        }
        struct dmo_crypto_keypair *kp;
        int r =
            dmo_crypto_secret_open(secret_file, sizeof(secret_file), pass, sizeof(pass) - 1, &kp);
        if (r < 0)
                __builtin_trap(); /* the embedded key file is ours */
        r = dmo_crypto_unwrap_keypair(env, kp, key);
        dmo_crypto_keypair_free(kp);
        return r;
}

/* Page i of the image as the simulated kernel made it. */
static void check_page(uint64_t i, const uint8_t *p, uint64_t image_pages)
{
        static uint8_t want[PS];
        if (i == 0) {
                struct dmo_sim_header h;
                if (dmo_sim_header_decode(p, PS, &h) < 0 || h.seed != SIM_SEED ||
                    h.pages != image_pages)
                        __builtin_trap(); /* an altered page 0 came out */
                return;
        }
        dmo_sim_page_fill(SIM_SEED, i, want, PS);
        if (memcmp(p, want, PS) != 0)
                __builtin_trap(); /* an altered page came out */
}

static void stream(const struct dmo_image_info *info, struct dmo_blockdev *dev)
{
        struct dmo_image_reader *r;
        struct dmo_crypto_key *key = NULL;
        if (dmo_image_reader_new(info, dev, 2, NULL, &r) < 0)
                return;
        const void *p;
        size_t n;
        if (dmo_image_reader_next_pages(r, &p, &n) != -ENOKEY)
                __builtin_trap(); /* pages without a key */
        int rc = unlock(&info->header.crypto.env, &key);
        if (rc == 0)
                rc = dmo_image_reader_set_key(r, key);
        uint64_t pages = 0;
        while (rc == 0) {
                rc = dmo_image_reader_next_pages(r, &p, &n);
                if (rc != 1)
                        break;
                if (n == 0 || pages + n > info->header.image_pages)
                        __builtin_trap();
                for (size_t j = 0; j < n; j++)
                        check_page(pages + j, (const uint8_t *)p + j * PS,
                                   info->header.image_pages);
                pages += n;
                rc = 0;
        }
        if (rc == 0 && pages != info->header.image_pages)
                __builtin_trap();
        if (rc > 0 || (rc < 0 && rc != -EBADMSG && rc != -EKEYREJECTED && rc != -E2BIG &&
                       rc != -EINVAL && rc != -ENOMEM && rc != -EIO && rc != -ENXIO)) {
                fprintf(stderr, "unexpected %d\n", rc);
                __builtin_trap();
        }
        dmo_image_reader_free(r);
        dmo_crypto_key_free(key);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char path[64];
        if (dmo_crypto_init() < 0)
                abort();
        int fd = dmo_fuzz_memfile("dmo-fuzz-resume-enc", data, size, path);
        struct dmo_blockdev *dev;
        if (dmo_blockdev_open(path, true, NULL, &dev) < 0)
                abort();
        struct dmo_image_info info;
        int r = dmo_image_probe(dev, 0, PS, &info);
        if (r == 0) {
                if (!info.has_sig || !info.has_header || !info.map_ok)
                        __builtin_trap();
                if ((info.header.flags & DMO_IMAGE_F_ENCRYPTED) &&
                    dmo_crypto_envelope_check(&info.header.crypto.env) < 0)
                        __builtin_trap(); /* probe let a bad envelope through */
                if (info.header.flags & DMO_IMAGE_F_ENCRYPTED)
                        stream(&info, dev);
        } else if (r != -ENOENT && r != -ENODEV && r != -EBADMSG && r != -EPROTONOSUPPORT &&
                   r != -ENXIO && r != -EIO && r != -EINVAL) {
                fprintf(stderr, "probe: unexpected %d\n", r);
                __builtin_trap();
        }
        dmo_blockdev_free(dev);
        close(fd);
        return 0;
}
