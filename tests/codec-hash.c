#include "codec/hash.h"

#include <xxhash.h>

#include "tests/testlib.h"

/* The scalar and SIMD xxh3 are one function: images written with one are
 * read with the other, so they must agree on every length and alignment. */
static void scalar_and_simd_xxh3_agree(void)
{
        static uint8_t buf[70000];
        uint64_t x = 0x9e3779b97f4a7c15ull;
        for (size_t i = 0; i < sizeof(buf); i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                buf[i] = (uint8_t)x;
        }
        static const size_t lens[] = {0,   1,   3,    16,   17,    128,  129,
                                      240, 241, 1024, 4096, 65536, 69990};
        for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
                for (size_t off = 0; off < 3; off++) {
                        uint64_t a = dmo_hash64_simd(buf + off, lens[i]);
                        CHECK(a == dmo_hash64_scalar(buf + off, lens[i]));
                        CHECK(a == XXH3_64bits(buf + off, lens[i]));
                }
}

static void pick_returns_one_of_the_two(void)
{
        static uint8_t buf[65536];
        dmo_hash_fn f = dmo_hash_pick(buf, sizeof(buf));
        CHECK(f == dmo_hash64_simd || f == dmo_hash64_scalar);
}

DMO_TEST_MAIN(T(scalar_and_simd_xxh3_agree), T(pick_returns_one_of_the_two))
