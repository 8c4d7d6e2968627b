/* codec pool: chunks come out in submission order whatever order the
 * workers finish in, with any number of threads (and inline); the slot
 * life cycle's edges (-EAGAIN, -ENODATA, -EINVAL) hold; freeing with chunks
 * in flight neither hangs nor leaks. */
#include <errno.h>

#include "codec/codec.h"
#include "crypto/crypto.h"
#include "tests/codec-testdata.h"
#include "tests/codec-testutil.h"
#include "tests/testlib.h"

#define PS 4096u

static struct dmo_codec *pool(enum dmo_codec_dir dir, enum dmo_compress algo, unsigned cp,
                              unsigned threads, unsigned slots, bool inl)
{
        struct dmo_codec_params p = {
            .dir = dir,
            .algo = algo,
            .page_size = PS,
            .chunk_pages = cp,
            .threads = threads,
            .slots = slots,
            .inline_work = inl,
        };
        struct dmo_codec *c = NULL;
        int r = dmo_codec_new(&p, &c);
        CHECK_INT(r, ==, 0);
        return r == 0 ? c : NULL;
}

/* Chunk i: random pages when i is even (slow), all zero when odd (instant),
 * so later chunks finish before earlier ones. The last chunk is partial. */
static uint32_t chunk_npages(unsigned i, unsigned nchunks, unsigned cp)
{
        return i == nchunks - 1 ? cp / 2 + 1 : cp;
}

static void chunk_fill(uint8_t *p, unsigned i, uint32_t npages)
{
        uint64_t s = 1000 + i;
        for (uint32_t j = 0; j < npages; j++)
                dmo_td_fill(p + j * PS, PS,
                            (i & 1)   ? DMO_TD_ZERO
                            : (j & 1) ? DMO_TD_RANDOM
                                      : DMO_TD_TEXT,
                            &s);
}

struct stored {
        struct dmo_chunk meta;
        uint8_t *payload;
};

/* Encodes nchunks through the pool in the engine's pattern (fill every free
 * slot, then collect), checks order and checksums, and keeps the results. */
static bool encode_stream(struct dmo_codec *c, unsigned nchunks, unsigned cp, struct stored *out)
{
        uint8_t *expect = malloc(cp * PS);
        unsigned submitted = 0, collected = 0;
        bool ok = true;

        while (collected < nchunks && ok) {
                struct dmo_chunk *ch;
                while (submitted < nchunks && dmo_codec_acquire(c, &ch) == 0) {
                        ch->npages = chunk_npages(submitted, nchunks, cp);
                        chunk_fill(ch->pages, submitted, ch->npages);
                        if (dmo_codec_submit(c, ch) != 0)
                                ok = false;
                        CHECK_INT(ch->seq, ==, submitted);
                        submitted++;
                }
                int r = dmo_codec_collect(c, &ch, true);
                CHECK_INT(r, ==, 0);
                if (r != 0)
                        break;
                CHECK_INT(ch->seq, ==, collected);
                uint32_t n = chunk_npages(collected, nchunks, cp);
                CHECK_INT(ch->npages, ==, n);
                chunk_fill(expect, collected, n);
                if (ch->pages_hash != dmo_hash64(expect, n * PS) ||
                    ch->payload_hash != dmo_hash64(ch->stored, ch->payload_len)) {
                        printf("# chunk %u: wrong checksum\n", collected);
                        ok = false;
                }
                if (out) {
                        out[collected].meta = *ch;
                        out[collected].payload = malloc(ch->payload_len + 1);
                        memcpy(out[collected].payload, ch->stored, ch->payload_len);
                }
                dmo_codec_release(c, ch);
                collected++;
        }
        CHECK_INT(dmo_codec_collect(c, &(struct dmo_chunk *){NULL}, true), ==, -ENODATA);
        free(expect);
        return ok && collected == nchunks;
}

static bool decode_stream(struct dmo_codec *c, unsigned nchunks, unsigned cp,
                          const struct stored *in)
{
        uint8_t *expect = malloc(cp * PS);
        unsigned submitted = 0, collected = 0;
        bool ok = true;

        while (collected < nchunks && ok) {
                struct dmo_chunk *ch;
                while (submitted < nchunks && dmo_codec_acquire(c, &ch) == 0) {
                        dmo_test_chunk_for_decode(ch, &in[submitted].meta, in[submitted].payload);
                        ok = ok && dmo_codec_submit(c, ch) == 0;
                        submitted++;
                }
                /* Poll first, then wait: both paths must give the same order. */
                int r;
                while ((r = dmo_codec_collect(c, &ch, false)) == -EAGAIN)
                        ;
                CHECK_INT(r, ==, 0);
                if (r != 0)
                        break;
                CHECK_INT(ch->seq, ==, collected);
                CHECK_INT(ch->error, ==, 0);
                uint32_t n = chunk_npages(collected, nchunks, cp);
                chunk_fill(expect, collected, n);
                if (ch->npages != n || memcmp(ch->restored, expect, n * PS) != 0) {
                        printf("# chunk %u: pages differ after decode\n", collected);
                        ok = false;
                }
                dmo_codec_release(c, ch);
                collected++;
        }
        free(expect);
        return ok && collected == nchunks;
}

static void round_trip_pool(enum dmo_compress algo, unsigned threads, unsigned slots, bool inl)
{
        const unsigned cp = 32, nchunks = 101;
        struct stored *st = calloc(nchunks, sizeof(*st));
        struct dmo_codec *e = pool(DMO_CODEC_ENCODE, algo, cp, threads, slots, inl);
        struct dmo_codec *d = pool(DMO_CODEC_DECODE, algo, cp, threads, slots, inl);
        if (e && d) {
                bool ok = encode_stream(e, nchunks, cp, st);
                CHECK(ok);
                if (ok)
                        CHECK(decode_stream(d, nchunks, cp, st));
        }
        /* odd chunks are all zero: nothing stored for them */
        CHECK_INT(st[1].meta.payload_len, ==, 0);
        CHECK_INT(st[1].meta.zero_map, ==, UINT32_MAX);
        dmo_codec_free(e);
        dmo_codec_free(d);
        for (unsigned i = 0; i < nchunks; i++)
                free(st[i].payload);
        free(st);
}

static void test_order_is_kept_with_many_threads_and_out_of_order_completion(void)
{
        round_trip_pool(DMO_COMPRESS_LZ4, 8, 32, false);
        round_trip_pool(DMO_COMPRESS_ZSTD, 4, 0, false);
        round_trip_pool(DMO_COMPRESS_NONE, 3, 5, false);
}

static void test_one_thread_and_inline_mode_work(void)
{
        round_trip_pool(DMO_COMPRESS_LZ4, 1, 0, false);
        round_trip_pool(DMO_COMPRESS_ZSTD, 1, 1, false);
        round_trip_pool(DMO_COMPRESS_LZ4, 0, 3, true);
        round_trip_pool(DMO_COMPRESS_ZSTD, 0, 0, true);
}

static void test_default_threads_and_slots_work(void)
{
        round_trip_pool(DMO_COMPRESS_LZ4, 0, 0, false);
}

/* A chunk that does not compress stays where it is when it goes through
 * the pool, with workers or inline: encoded, its bytes are stored from its
 * pages (no copy into payload), with the checksum of those bytes; decoded,
 * its pages are the verified payload (no copy into pages), and the two
 * checksums must still agree. encode_one (the caller's buffers, no release
 * to wait for) keeps its bytes in payload. */
static void test_raw_chunk_stays_in_place_through_the_pool(void)
{
        for (unsigned mode = 0; mode < 2; mode++) {
                struct dmo_codec *c = pool(DMO_CODEC_ENCODE, DMO_COMPRESS_LZ4, 8, 1, 2, mode == 1);
                REQUIRE(c);
                struct dmo_chunk *ch;
                REQUIRE(dmo_codec_acquire(c, &ch) == 0);
                uint64_t s = 77;
                ch->npages = 8;
                for (unsigned j = 0; j < 8; j++)
                        dmo_td_fill(ch->pages + j * PS, PS, DMO_TD_RANDOM, &s);
                uint8_t *copy = malloc(8 * PS);
                REQUIRE(copy);
                memcpy(copy, ch->pages, 8 * PS);
                memset(ch->payload, 0xa5, 8 * PS);
                REQUIRE(dmo_codec_submit(c, ch) == 0);
                REQUIRE(dmo_codec_collect(c, &ch, true) == 0);
                CHECK_INT(ch->flags, ==, 0);
                CHECK_INT(ch->zero_map, ==, 0);
                CHECK_INT(ch->payload_len, ==, 8 * PS);
                CHECK(ch->stored == ch->pages);
                CHECK(ch->payload[0] == 0xa5 && ch->payload[8 * PS - 1] == 0xa5); /* not copied */
                CHECK(ch->payload_hash == dmo_hash64(copy, 8 * PS));
                CHECK(ch->pages_hash == ch->payload_hash);

                /* The stored bytes decode back to the pages. */
                struct dmo_codec *d = pool(DMO_CODEC_DECODE, DMO_COMPRESS_LZ4, 8, 1, 2, false);
                REQUIRE(d);
                struct dmo_chunk *dc;
                REQUIRE(dmo_codec_acquire(d, &dc) == 0);
                dmo_test_chunk_for_decode(dc, ch, ch->stored);
                dmo_codec_release(c, ch);
                REQUIRE(dmo_codec_submit(d, dc) == 0);
                REQUIRE(dmo_codec_collect(d, &dc, true) == 0);
                CHECK_INT(dc->error, ==, 0);
                CHECK(dc->restored == dc->payload); /* no copy into pages */
                CHECK(memcmp(dc->restored, copy, 8 * PS) == 0);
                /* A raw chunk whose two checksums disagree is refused: the
                 * pages' checksum is still checked, on the same bytes. */
                dc->pages_hash ^= 1;
                dmo_codec_release(d, dc);
                REQUIRE(dmo_codec_acquire(d, &dc) == 0);
                dc->npages = 8;
                dc->zero_map = 0;
                dc->flags = 0;
                dc->payload_len = 8 * PS;
                dc->payload_hash = dmo_hash64(copy, 8 * PS);
                dc->pages_hash = dc->payload_hash ^ 1;
                memcpy(dc->payload, copy, 8 * PS);
                REQUIRE(dmo_codec_submit(d, dc) == 0);
                REQUIRE(dmo_codec_collect(d, &dc, true) == 0);
                CHECK_INT(dc->error, ==, -EBADMSG);
                dmo_codec_release(d, dc);
                dmo_codec_free(d);

                /* encode_one: the bytes are in payload. */
                struct dmo_chunk one = {.npages = 8,
                                        .pages = malloc(8 * PS),
                                        .payload = malloc(dmo_codec_payload_capacity(c))};
                REQUIRE(one.pages && one.payload);
                memcpy(one.pages, copy, 8 * PS);
                REQUIRE(dmo_codec_encode_one(c, &one) == 0);
                CHECK_INT(one.flags, ==, 0);
                CHECK(one.stored == one.payload);
                CHECK(memcmp(one.payload, copy, 8 * PS) == 0);
                free(one.pages);
                free(one.payload);
                free(copy);
                dmo_codec_free(c);
        }
}

static void test_acquire_fails_with_eagain_when_every_slot_is_out(void)
{
        struct dmo_codec *c = pool(DMO_CODEC_ENCODE, DMO_COMPRESS_LZ4, 4, 2, 3, false);
        REQUIRE(c);
        struct dmo_chunk *ch[4] = {0};
        CHECK_INT(dmo_codec_acquire(c, &ch[0]), ==, 0);
        CHECK_INT(dmo_codec_acquire(c, &ch[1]), ==, 0);
        CHECK_INT(dmo_codec_acquire(c, &ch[2]), ==, 0);
        CHECK_INT(dmo_codec_acquire(c, &ch[3]), ==, -EAGAIN);
        CHECK(ch[0] != ch[1] && ch[1] != ch[2] && ch[0] != ch[2]);

        /* Submitted and done-but-uncollected chunks still hold their slot. */
        for (int i = 0; i < 3; i++) {
                ch[i]->npages = 4;
                memset(ch[i]->pages, i, 4 * PS);
                CHECK_INT(dmo_codec_submit(c, ch[i]), ==, 0);
        }
        struct dmo_chunk *got;
        CHECK_INT(dmo_codec_collect(c, &got, true), ==, 0);
        CHECK(got == ch[0]);
        CHECK_INT(dmo_codec_acquire(c, &ch[3]), ==, -EAGAIN);
        dmo_codec_release(c, got);
        CHECK_INT(dmo_codec_acquire(c, &ch[3]), ==, 0);
        CHECK(ch[3] == ch[0]);
        /* An acquired chunk may go back without being submitted. */
        dmo_codec_release(c, ch[3]);
        CHECK_INT(dmo_codec_acquire(c, &ch[3]), ==, 0);
        dmo_codec_release(c, ch[3]);
        dmo_codec_free(c);
}

static void test_collect_returns_enodata_when_nothing_is_in_flight(void)
{
        struct dmo_codec *c = pool(DMO_CODEC_ENCODE, DMO_COMPRESS_ZSTD, 4, 2, 0, false);
        REQUIRE(c);
        struct dmo_chunk *ch, *got;
        CHECK_INT(dmo_codec_collect(c, &got, true), ==, -ENODATA);
        CHECK_INT(dmo_codec_collect(c, &got, false), ==, -ENODATA);
        /* acquired but not submitted is not in flight */
        REQUIRE(dmo_codec_acquire(c, &ch) == 0);
        CHECK_INT(dmo_codec_collect(c, &got, true), ==, -ENODATA);
        ch->npages = 1;
        memset(ch->pages, 'x', PS);
        CHECK_INT(dmo_codec_submit(c, ch), ==, 0);
        CHECK_INT(dmo_codec_collect(c, &got, true), ==, 0);
        CHECK(got == ch);
        CHECK(got->flags & DMO_CHUNK_COMPRESSED);
        CHECK_INT(dmo_codec_collect(c, &got, false), ==, -ENODATA);
        dmo_codec_release(c, ch);
        dmo_codec_free(c);
}

static void test_submit_rejects_bad_chunks(void)
{
        struct dmo_codec *c = pool(DMO_CODEC_ENCODE, DMO_COMPRESS_LZ4, 8, 1, 2, false);
        REQUIRE(c);
        struct dmo_chunk *ch, *got;
        REQUIRE(dmo_codec_acquire(c, &ch) == 0);
        ch->npages = 0;
        CHECK_INT(dmo_codec_submit(c, ch), ==, -EINVAL);
        ch->npages = 9;
        CHECK_INT(dmo_codec_submit(c, ch), ==, -EINVAL);
        ch->npages = 8;
        memset(ch->pages, 0, 8 * PS);
        CHECK_INT(dmo_codec_submit(c, ch), ==, 0);
        CHECK_INT(dmo_codec_submit(c, ch), ==, -EINVAL); /* twice */
        struct dmo_chunk foreign = {.npages = 1};
        CHECK_INT(dmo_codec_submit(c, &foreign), ==, -EINVAL);
        CHECK_INT(dmo_codec_collect(c, &got, true), ==, 0);
        CHECK_INT(got->seq, ==, 0); /* the rejected submits took no sequence number */
        CHECK_INT(got->zero_map, ==, 0xff);
        CHECK_INT(got->payload_len, ==, 0);
        dmo_codec_release(c, got);
        dmo_codec_free(c);
}

static void test_free_with_chunks_in_flight_does_not_hang_or_leak(void)
{
        static const unsigned threads[] = {1, 2, 7};
        for (unsigned t = 0; t < 3; t++) {
                struct dmo_codec *c =
                    pool(DMO_CODEC_ENCODE, DMO_COMPRESS_ZSTD, 64, threads[t], 24, false);
                REQUIRE(c);
                struct dmo_chunk *ch;
                unsigned i = 0;
                while (dmo_codec_acquire(c, &ch) == 0) {
                        ch->npages = 64;
                        chunk_fill(ch->pages, 2 * i, 64);
                        if (i++ % 5 != 4) /* leave some acquired, unsubmitted */
                                CHECK_INT(dmo_codec_submit(c, ch), ==, 0);
                }
                struct dmo_chunk *got;
                CHECK_INT(dmo_codec_collect(c, &got, true), ==, 0); /* one collected, kept */
                dmo_codec_free(c);
        }
        /* decode side, with hostile chunks in the queue */
        struct dmo_codec *d = pool(DMO_CODEC_DECODE, DMO_COMPRESS_LZ4, 16, 3, 8, false);
        REQUIRE(d);
        struct dmo_chunk *ch;
        while (dmo_codec_acquire(d, &ch) == 0) {
                ch->npages = 16;
                ch->flags = DMO_CHUNK_COMPRESSED;
                ch->payload_len = 100;
                memset(ch->payload, 7, 100);
                ch->payload_hash = dmo_hash64(ch->payload, 100);
                CHECK_INT(dmo_codec_submit(d, ch), ==, 0);
        }
        dmo_codec_free(d);
        dmo_codec_free(NULL);
}

/* Storing pays when sealing the bytes compression would save costs less
 * than compressing them; too little measured is a no. */
static void test_store_pays_only_when_sealing_the_saved_bytes_is_cheaper(void)
{
        const uint64_t mib = 1u << 20;
        struct dmo_codec_costs m = {.compress_ns = 4000000,
                                    .compress_in = 8 * mib,
                                    .compress_out = 4 * mib,
                                    .seal_ns = 2000000,
                                    .seal_bytes = 4 * mib};
        /* seal: 0.48 ns/B x 4 MiB saved = 2 ms < compress 4 ms */
        CHECK(dmo_codec_costs_store_pays(&m));
        m.seal_ns = 9000000; /* 2.1 ns/B x 4 MiB = 9 ms > 4 ms (emulated AES) */
        CHECK(!dmo_codec_costs_store_pays(&m));
        m.seal_ns = 2000000;
        m.compress_out = m.compress_in; /* compression saved nothing: storing is free */
        CHECK(dmo_codec_costs_store_pays(&m));
        m.compress_out = 4 * mib;
        m.seal_bytes = mib - 1; /* not measured enough */
        CHECK(!dmo_codec_costs_store_pays(&m));
        m.seal_bytes = 4 * mib;
        m.compress_in = mib - 1;
        CHECK(!dmo_codec_costs_store_pays(&m));
        m.compress_in = 8 * mib;
        m.compress_out = 9 * mib; /* garbage in */
        CHECK(!dmo_codec_costs_store_pays(&m));
        /* Products beyond 64 bits: an hour of work over a terabyte. */
        m = (struct dmo_codec_costs){.compress_ns = 3600ull * 1000000000,
                                     .compress_in = 1ull << 40,
                                     .compress_out = 1ull << 39,
                                     .seal_ns = 1800ull * 1000000000,
                                     .seal_bytes = 1ull << 40};
        CHECK(dmo_codec_costs_store_pays(&m)); /* 900 s of sealing saved bytes < 3600 s */
}

/* An encrypted encoder asked to measure what compressing and sealing cost
 * on this CPU does so on every worker and in inline mode; one not asked
 * reads no clock and knows nothing; a plain one measures nothing and
 * storing always pays for it (nothing is sealed). */
static void test_encrypted_encoders_measure_their_costs(void)
{
        struct dmo_crypto_key *key = NULL;
        static const uint8_t section[] = "codec-pool test image";
        REQUIRE(dmo_crypto_key_new(&key) == 0);
        REQUIRE(dmo_crypto_key_bind(key, dmo_crypto_cipher_preferred(), section, sizeof(section)) ==
                0);
        for (int run = 0; run < 3; run++) {
                const bool inl = run == 1, measure = run < 2;
                struct dmo_codec_params p = {.dir = DMO_CODEC_ENCODE,
                                             .algo = DMO_COMPRESS_LZ4,
                                             .page_size = PS,
                                             .chunk_pages = 16,
                                             .threads = 2,
                                             .inline_work = inl,
                                             .encrypted = true,
                                             .measure_costs = measure};
                struct dmo_codec *c = NULL;
                REQUIRE(dmo_codec_new(&p, &c) == 0);
                REQUIRE(dmo_codec_set_key(c, key) == 0);
                uint64_t s = 7;
                for (unsigned i = 0; i < 48; i++) { /* 3 MiB: text, code, random */
                        struct dmo_chunk *ch;
                        REQUIRE(dmo_codec_acquire(c, &ch) == 0);
                        ch->npages = 16;
                        for (unsigned j = 0; j < 16; j++)
                                dmo_td_fill(ch->pages + j * PS, PS,
                                            j % 3 == 0   ? DMO_TD_TEXT
                                            : j % 3 == 1 ? DMO_TD_CODE
                                                         : DMO_TD_RANDOM,
                                            &s);
                        REQUIRE(dmo_codec_submit(c, ch) == 0);
                        REQUIRE(dmo_codec_collect(c, &ch, true) == 0);
                        dmo_codec_release(c, ch);
                }
                struct dmo_codec_costs m;
                dmo_codec_costs(c, &m);
                if (!measure) {
                        CHECK(m.compress_in == 0 && m.compress_ns == 0 && m.seal_bytes == 0);
                        CHECK(!dmo_codec_store_pays(c));
                        dmo_codec_free(c);
                        continue;
                }
                printf("# %s: compress %llu -> %llu B in %llu ns, seal %llu B in %llu ns: storing "
                       "%s\n",
                       inl ? "inline" : "2 workers", (unsigned long long)m.compress_in,
                       (unsigned long long)m.compress_out, (unsigned long long)m.compress_ns,
                       (unsigned long long)m.seal_bytes, (unsigned long long)m.seal_ns,
                       dmo_codec_store_pays(c) ? "pays" : "does not pay");
                CHECK(m.compress_in >= 2u << 20); /* random pages may skip the compressor */
                CHECK(m.compress_out > 0 && m.compress_out < m.compress_in);
                CHECK(m.compress_ns > 0 && m.seal_ns > 0);
                CHECK(m.seal_bytes >= m.compress_out);
                CHECK(dmo_codec_store_pays(c) == dmo_codec_costs_store_pays(&m));
                dmo_codec_free(c);
        }
        struct dmo_codec *plain = pool(DMO_CODEC_ENCODE, DMO_COMPRESS_LZ4, 16, 2, 0, false);
        REQUIRE(plain);
        struct dmo_chunk *ch;
        REQUIRE(dmo_codec_acquire(plain, &ch) == 0);
        ch->npages = 16;
        uint64_t s = 9;
        for (unsigned j = 0; j < 16; j++)
                dmo_td_fill(ch->pages + j * PS, PS, DMO_TD_TEXT, &s);
        REQUIRE(dmo_codec_submit(plain, ch) == 0);
        REQUIRE(dmo_codec_collect(plain, &ch, true) == 0);
        dmo_codec_release(plain, ch);
        struct dmo_codec_costs m;
        dmo_codec_costs(plain, &m);
        CHECK(m.compress_in == 0 && m.seal_bytes == 0);
        CHECK(dmo_codec_store_pays(plain));
        dmo_codec_free(plain);
        dmo_crypto_key_free(key);
}

DMO_TEST_MAIN(T(test_order_is_kept_with_many_threads_and_out_of_order_completion),
              T(test_one_thread_and_inline_mode_work), T(test_default_threads_and_slots_work),
              T(test_raw_chunk_stays_in_place_through_the_pool),
              T(test_acquire_fails_with_eagain_when_every_slot_is_out),
              T(test_collect_returns_enodata_when_nothing_is_in_flight),
              T(test_submit_rejects_bad_chunks),
              T(test_free_with_chunks_in_flight_does_not_hang_or_leak),
              T(test_store_pays_only_when_sealing_the_saved_bytes_is_cheaper),
              T(test_encrypted_encoders_measure_their_costs))
