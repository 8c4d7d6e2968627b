/* hash: xxh3-64, the checksum of every chunk, in two implementations that
 * give identical results: libxxhash's SIMD one and a scalar one. Which is
 * faster depends on the CPU: on real x86 hardware SIMD wins by about 2.5x;
 * under binary translation (QEMU's TCG, where the VM tests run) SIMD is
 * emulated and the scalar code is about 4x faster. dmo_hash_pick() times
 * both on this CPU, once, when a codec is made.
 *
 * Contract: pure functions, no state, no allocation.
 */
#ifndef DMO_CODEC_HASH_H
#define DMO_CODEC_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t (*dmo_hash_fn)(const void *data, size_t len);

uint64_t dmo_hash64_simd(const void *data, size_t len);
uint64_t dmo_hash64_scalar(const void *data, size_t len);

/* The faster of the two here; `scratch` is at least 64 KiB of any bytes. */
dmo_hash_fn dmo_hash_pick(const uint8_t *scratch, size_t len);

#endif
