#include "codec/hash.h"

#include <xxhash.h>

#include "util/thread.h"

uint64_t dmo_hash64_simd(const void *data, size_t len)
{
        return XXH3_64bits(data, len);
}

/* The same function from xxhash's header, built for plain 64-bit integer
 * code and kept apart from the library's symbols. */
#define XXH_INLINE_ALL
#define XXH_VECTOR XXH_SCALAR
#include <xxhash.h>

uint64_t dmo_hash64_scalar(const void *data, size_t len)
{
        return XXH3_64bits(data, len); /* the inline, scalar one from here on */
}

static double time_hash(dmo_hash_fn fn, const uint8_t *buf, size_t len)
{
        volatile uint64_t sink = 0;
        uint64_t t0 = dmo_thread_cpu_ns();
        for (int i = 0; i < 4; i++)
                sink += fn(buf, len);
        (void)sink;
        return (double)(dmo_thread_cpu_ns() - t0);
}

dmo_hash_fn dmo_hash_pick(const uint8_t *scratch, size_t len)
{
        if (len > 64 * 1024)
                len = 64 * 1024;
        /* Warm both up, then take the better of two rounds each. */
        time_hash(dmo_hash64_simd, scratch, len);
        time_hash(dmo_hash64_scalar, scratch, len);
        double simd = time_hash(dmo_hash64_simd, scratch, len);
        double scalar = time_hash(dmo_hash64_scalar, scratch, len);
        double s2 = time_hash(dmo_hash64_simd, scratch, len);
        double c2 = time_hash(dmo_hash64_scalar, scratch, len);
        simd = s2 < simd ? s2 : simd;
        scalar = c2 < scalar ? c2 : scalar;
        return scalar < simd * 0.8 ? dmo_hash64_scalar : dmo_hash64_simd;
}
