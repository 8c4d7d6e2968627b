/* One chunk at a time: zero-page elision, compression with a stored-raw
 * fallback, and the two checksums. */
#include "codec/chunk.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <xxhash.h>

#include "crypto/crypto.h"
#include "util/thread.h"

uint64_t dmo_hash64(const void *data, size_t len)
{
        return XXH3_64bits(data, len);
}

static inline uint64_t load64(const uint8_t *p)
{
        uint64_t v;
        memcpy(&v, p, sizeof(v)); /* the caller's pages need not be aligned */
        return v;
}

/* Most non-zero pages differ from zero in their first bytes, so test a
 * cache line at a time and leave at the first non-zero one. page_size is a
 * multiple of 64 (checked in dmo_codec_new). */
static bool page_is_zero(const uint8_t *p, size_t len)
{
        for (size_t off = 0; off < len; off += 64) {
                const uint8_t *q = p + off;
                uint64_t acc = load64(q) | load64(q + 8) | load64(q + 16) | load64(q + 24) |
                               load64(q + 32) | load64(q + 40) | load64(q + 48) | load64(q + 56);
                if (acc)
                        return false;
        }
        return true;
}

/* Random data (encrypted files, compressed media, key material) does not
 * compress, and finding that out costs a full pass of the compressor.
 * Trials on samples spread evenly over the chunk decide for the whole of it:
 * only if none of them shrinks by an eighth is the chunk stored as it is, so
 * a chunk that mixes random and compressible pages is still compressed.
 * Eight samples, not three: with three, a chunk of half random pages went
 * raw one time in eight, compressible half and all (make bench, the codec at
 * LZ4 acceleration 2: the mostly-incompressible mix at 1.02 of the kernel's
 * own LZ4 image, 0.98 with eight; the sim kernel's stream lost 1.1% to the
 * trial, nothing with eight). A compressible chunk stops at its first
 * compressible sample; only a random one pays all eight (an eighth of a
 * chunk through LZ4, which is fast on data it cannot match). */
static const size_t trial_bytes = 4096;
static const size_t trial_samples = 8;

static bool looks_incompressible(const struct dmo_chunk_coder *k, const uint8_t *src, size_t len,
                                 uint8_t *scratch)
{
        if (len < trial_samples * trial_bytes)
                return false;
        const size_t want = trial_bytes - trial_bytes / 8;
        const size_t span = len - trial_bytes;
        for (size_t i = 0; i < trial_samples; i++) {
                const size_t at = span / (trial_samples - 1) * i;
                if (k->ops->compress(k->ctx, src + at, trial_bytes, scratch, want, 0) != 0)
                        return false;
        }
        return true;
}

static void meter_add(atomic_uint_fast64_t *counter, uint64_t v)
{
        atomic_fetch_add_explicit(counter, v, memory_order_relaxed);
}

int dmo_chunk_encode(const struct dmo_chunk_coder *k, struct dmo_chunk *ch)
{
        const size_t ps = k->page_size;
        const uint32_t n = ch->npages;

        if (n == 0 || n > k->chunk_pages || (k->encrypted && !k->key))
                return -EINVAL;

        uint64_t zero_map = 0;
        size_t nz = 0;
        for (uint32_t i = 0; i < n; i++) {
                if (page_is_zero(ch->pages + i * ps, ps))
                        zero_map |= UINT64_C(1) << i;
                else
                        nz++;
        }
        const size_t nz_bytes = nz * ps;
        /* Stored as they are: no compressor, or the writer's pace says the
         * disk waits for the compressor even at its fastest. */
        const bool store = k->ops->algo == DMO_COMPRESS_NONE || k->speed == DMO_CODEC_SPEED_STORE;

        /* The compressor wants its input contiguous: gather the non-zero
         * pages unless there are no holes. Stored pages are gathered
         * straight into the payload. */
        const uint8_t *src = ch->pages;
        if (zero_map && nz) {
                uint8_t *dst = store ? ch->payload : k->gather;
                size_t j = 0;
                for (uint32_t i = 0; i < n; i++)
                        if (!(zero_map & (UINT64_C(1) << i)))
                                memcpy(dst + j++ * ps, ch->pages + i * ps, ps);
                src = dst;
        }

        size_t len = 0;
        uint32_t flags = 0;
        struct dmo_chunk_meter *meter = k->encrypted ? k->meter : NULL;
        if (nz && !store && !looks_incompressible(k, src, nz_bytes, ch->payload)) {
                const uint64_t t0 = meter ? dmo_thread_cpu_ns() : 0;
                /* A capacity one byte short of the input makes the compressor
                 * give up as soon as compression stops paying. */
                len = k->ops->compress(k->ctx, src, nz_bytes, ch->payload, nz_bytes - 1, k->speed);
                if (len)
                        flags = DMO_CHUNK_COMPRESSED;
                if (meter) {
                        meter_add(&meter->compress_ns, dmo_thread_cpu_ns() - t0);
                        meter_add(&meter->compress_in, nz_bytes);
                        meter_add(&meter->compress_out, len ? len : nz_bytes);
                }
        }
        ch->stored = ch->payload;
        if (!flags) {
                if (src == ch->pages && k->in_place && !k->encrypted)
                        ch->stored = ch->pages;
                else if (src != ch->payload)
                        memcpy(ch->payload, src, nz_bytes);
                len = nz_bytes;
        }

        ch->zero_map = zero_map;
        ch->flags = flags;
        ch->error = 0;
        if (k->encrypted) {
                const struct dmo_crypto_chunk_ad ad = {
                    .index = ch->seq,
                    .npages = n,
                    .zero_map = zero_map,
                    .flags = flags,
                    .plain_len = (uint32_t)len,
                };
                const uint64_t t0 = meter ? dmo_thread_cpu_ns() : 0;
                dmo_crypto_chunk_seal(k->key, &ad, ch->payload);
                if (meter) {
                        meter_add(&meter->seal_ns, dmo_thread_cpu_ns() - t0);
                        meter_add(&meter->seal_bytes, len);
                }
                ch->payload_len = (uint32_t)len + DMO_CRYPTO_TAG_LEN;
                ch->payload_hash = k->hash(ch->payload, ch->payload_len);
                ch->pages_hash = 0;
                return 0;
        }
        ch->payload_len = (uint32_t)len;
        ch->payload_hash = k->hash(ch->stored, len);
        /* Stored as it is, without holes: the payload is the pages. */
        ch->pages_hash = !flags && !zero_map ? ch->payload_hash : k->hash(ch->pages, n * ps);
        ch->error = 0;
        return 0;
}

int dmo_chunk_check_stored(const struct dmo_chunk_coder *k, const struct dmo_chunk *ch,
                           const uint8_t *payload)
{
        const size_t ps = k->page_size;
        if (k->encrypted || ch->npages == 0 || ch->npages > k->chunk_pages || ch->flags ||
            ch->zero_map || ch->payload_len != (size_t)ch->npages * ps)
                return -EBADMSG;
        /* The encoder stores one checksum twice for such a chunk. */
        if (ch->pages_hash != ch->payload_hash ||
            k->hash(payload, ch->payload_len) != ch->payload_hash)
                return -EBADMSG;
        return 0;
}

static int decode(const struct dmo_chunk_coder *k, struct dmo_chunk *ch)
{
        const size_t ps = k->page_size;
        const uint32_t n = ch->npages;

        if (n == 0 || n > k->chunk_pages)
                return -EBADMSG;
        if (n < 64 && (ch->zero_map >> n))
                return -EBADMSG;
        if (ch->flags & ~DMO_CHUNK_COMPRESSED)
                return -EBADMSG;
        if (ch->payload_len > k->capacity)
                return -EBADMSG;
        if (k->in_place && !k->encrypted && ch->zero_map == 0 &&
            !(ch->flags & DMO_CHUNK_COMPRESSED)) {
                /* Stored as it is: the verified payload is the pages. */
                int r = dmo_chunk_check_stored(k, ch, ch->payload);
                if (r == 0)
                        ch->restored = ch->payload;
                return r;
        }

        const size_t nz = n - (size_t)__builtin_popcountll(ch->zero_map);
        const size_t nz_bytes = nz * ps;

        /* Never hand unverified bytes to a decompressor. */
        if (k->hash(ch->payload, ch->payload_len) != ch->payload_hash)
                return -EBADMSG;
        uint32_t len = ch->payload_len;
        if (k->encrypted) {
                /* Authenticated and decrypted before anything reads it. */
                if (!k->key || len < DMO_CRYPTO_TAG_LEN)
                        return -EBADMSG;
                len -= DMO_CRYPTO_TAG_LEN;
                const struct dmo_crypto_chunk_ad ad = {
                    .index = ch->seq,
                    .npages = n,
                    .zero_map = ch->zero_map,
                    .flags = ch->flags,
                    .plain_len = len,
                };
                if (dmo_crypto_chunk_open(k->key, &ad, ch->payload) < 0)
                        return -EBADMSG;
        }

        ch->restored = ch->pages;
        const uint8_t *src;
        if (ch->flags & DMO_CHUNK_COMPRESSED) {
                if (nz == 0 || k->ops->algo == DMO_COMPRESS_NONE)
                        return -EBADMSG;
                if (k->ops->decompress(k->ctx, ch->payload, len, ch->pages, nz_bytes) < 0)
                        return -EBADMSG;
                src = ch->pages;
        } else {
                if (len != nz_bytes)
                        return -EBADMSG;
                src = ch->payload;
        }

        /* Spread the packed non-zero pages to their places, last first, so
         * that the in-place case never overwrites a page not yet moved. */
        size_t j = nz;
        for (uint32_t i = n; i-- > 0;) {
                uint8_t *dst = ch->pages + i * ps;
                if (ch->zero_map & (UINT64_C(1) << i)) {
                        memset(dst, 0, ps);
                } else {
                        const uint8_t *from = src + --j * ps;
                        if (from != dst)
                                memcpy(dst, from, ps);
                }
        }

        /* Encrypted: the tag already vouched for these bytes. */
        if (!k->encrypted && k->hash(ch->pages, n * ps) != ch->pages_hash)
                return -EBADMSG;
        return 0;
}

int dmo_chunk_decode(const struct dmo_chunk_coder *k, struct dmo_chunk *ch)
{
        ch->error = decode(k, ch);
        return ch->error;
}
