/* Encrypted images against a forger: someone with the disk but not the
 * key edits the chunk stream and recomputes every checksum the format has
 * (chunk header, payload hash, header checksum, map hash, the signature's
 * header hash). Flipped, reordered, dropped and replayed chunks, a chunk
 * from another image and a shortened stream must all be refused by the
 * reader, and no page that differs from the original may come out first. */
#include <errno.h>
#include <stdbool.h>
#include <unistd.h>

#include <xxhash.h>

#include "tests/image-testutil.h"
#include "util/le.h"

#define PS          4096u
#define DEV_PAGES   1024u
#define IMAGE_PAGES 300u
#define SEED        21u

static const char pass_a[] = "correct horse";
static const struct dmo_kdf_costs cheap = {DMO_KDF_OPSLIMIT_MIN, DMO_KDF_MEMLIMIT_MIN};

struct image {
        unsigned cipher; /* enum dmo_chunk_cipher; 0: the writer's choice */
        char path[512];
        struct dmo_blockdev *dev;
        struct dmo_image_result res;
        struct dmo_image_info info;
        uint8_t *stream; /* the whole chunk stream, as read */
        uint64_t len;
        uint64_t at; /* device offset of the stream (one extent) */
        /* where each chunk record starts in the stream, and its length */
        uint64_t rec_off[IMAGE_PAGES];
        uint32_t rec_len[IMAGE_PAGES];
        uint64_t n_rec;
};

/* One page per chunk: random pages are stored raw, so many records have
 * the same length and can stand in for each other. */
static int make_image(struct image *im, const char *name, const char *pass, uint64_t seed)
{
        snprintf(im->path, sizeof(im->path), "%s/%s", dmo_test_tmpdir(), name);
        if (tu_make_swap(im->path, DEV_PAGES, PS) != 0)
                return -1;
        int r = dmo_blockdev_open(im->path, true, NULL, &im->dev);
        if (r < 0)
                return r;
        struct dmo_crypto_key *key;
        struct dmo_crypto_envelope env;
        if (dmo_crypto_init() < 0 || dmo_crypto_key_new(&key) < 0)
                return -2;
        r = dmo_crypto_wrap_passphrase(key, pass, strlen(pass), &cheap, &env);
        struct tu_alloc a;
        tu_alloc_init(&a, TU_CONTIGUOUS, DEV_PAGES, PS, 0);
        const struct dmo_image_writer_params wp = {
            .algo = DMO_COMPRESS_LZ4,
            .threads = 2,
            .chunk_pages = 1,
            .page_size = PS,
            .expected_pages = IMAGE_PAGES,
            .key = key,
            .envelope = &env,
            .cipher = im->cipher,
        };
        if (r == 0)
                r = tu_hibernate(im->dev, &a, seed, IMAGE_PAGES, &wp, &im->res);
        free(a.slots);
        dmo_crypto_key_free(key);
        if (r == 0)
                r = dmo_image_probe(im->dev, 0, PS, &im->info);
        if (r < 0)
                return r;
        if (im->info.header.extent_count != 1)
                return -3;
        im->at = im->info.extents[0].offset;
        im->len = im->info.header.stream_len;
        im->stream = malloc(im->len);
        r = dmo_blockdev_pread(im->dev, im->stream, im->len, im->at);
        for (uint64_t off = 0; r == 0 && off < im->len; im->n_rec++) {
                uint32_t payload = dmo_get_le32(im->stream + off + 28);
                im->rec_off[im->n_rec] = off;
                im->rec_len[im->n_rec] = DMO_CHUNK_HEADER_LEN + payload;
                off += DMO_CHUNK_HEADER_LEN + payload;
        }
        return r;
}

static void free_image(struct image *im)
{
        dmo_blockdev_free(im->dev);
        free(im->stream);
}

/* The forger's tools: a record's checksums made right again. */
static void reseal_record(uint8_t *rec, uint64_t seq)
{
        uint32_t payload = dmo_get_le32(rec + 28);
        dmo_put_le64(rec + 8, seq);
        dmo_put_le64(rec + 32, XXH3_64bits(rec + DMO_CHUNK_HEADER_LEN, payload));
        dmo_put_le64(rec + 48, XXH3_64bits(rec, 48));
}

/* Writes a forged stream (same length) back. */
static void put_stream(struct image *im, const uint8_t *s)
{
        REQUIRE(dmo_blockdev_pwrite(im->dev, s, im->len, im->at) == 0);
}

/* Reads the image back with the passphrase. 0: every page as written;
 * otherwise the error the reader (or set_key) gave. A wrong page delivered
 * before any error is 1. */
static int resume_with(struct image *im, const char *pass)
{
        struct dmo_image_info info;
        int r = dmo_image_probe(im->dev, 0, PS, &info);
        if (r < 0)
                return r;
        struct dmo_crypto_key *key;
        r = dmo_crypto_unwrap_passphrase(&info.header.crypto.env, pass, strlen(pass), &key);
        if (r < 0)
                return r;
        struct dmo_image_reader *rd;
        r = dmo_image_reader_new(&info, im->dev, 2, NULL, &rd);
        if (r == 0)
                r = dmo_image_reader_set_key(rd, key);
        uint8_t want[PS];
        uint64_t i = 0;
        while (r == 0) {
                const void *pages;
                size_t n;
                int got = dmo_image_reader_next_pages(rd, &pages, &n);
                if (got <= 0) {
                        r = got < 0 ? got : (i == info.header.image_pages ? 0 : 2);
                        break;
                }
                for (size_t j = 0; j < n && r == 0; j++, i++) {
                        tu_page(SEED, i, want, PS);
                        if (memcmp((const uint8_t *)pages + j * PS, want, PS) != 0)
                                r = 1;
                }
                if (r)
                        break;
        }
        if (r == 0 && i != IMAGE_PAGES)
                r = 2;
        dmo_image_reader_free(rd);
        dmo_crypto_key_free(key);
        return r;
}

/* Two raw records of the same length, neither the first: i < j. */
static void same_length_pair(const struct image *im, uint64_t *i, uint64_t *j)
{
        for (uint64_t a = 1; a < im->n_rec; a++)
                for (uint64_t b = a + 1; b < im->n_rec; b++)
                        if (im->rec_len[a] == im->rec_len[b] && im->rec_len[a] > 1000) {
                                *i = a;
                                *j = b;
                                return;
                        }
        *i = *j = 0;
}

/* With each cipher this CPU has, and the writer's own choice: the fastest. */
static void test_intact_image_reads_back_and_wrong_passphrase_is_rejected(void)
{
        const unsigned ciphers[] = {0, DMO_CHUNK_CIPHER_XCHACHA20POLY1305,
                                    DMO_CHUNK_CIPHER_AES256GCM};
        for (size_t c = 0; c < sizeof(ciphers) / sizeof(ciphers[0]); c++) {
                if (ciphers[c] && !dmo_crypto_cipher_available(ciphers[c])) {
                        printf("# %s: not on this CPU, not tested\n",
                               dmo_crypto_cipher_name(ciphers[c]));
                        continue;
                }
                struct image im = {.cipher = ciphers[c]};
                REQUIRE(make_image(&im, "ok.swap", pass_a, SEED) == 0);
                CHECK_INT(im.info.header.crypto.cipher, ==,
                          ciphers[c] ? ciphers[c] : dmo_crypto_cipher_preferred());
                CHECK_INT(im.n_rec, ==, IMAGE_PAGES);
                CHECK(im.info.header.flags & DMO_IMAGE_F_ENCRYPTED);
                CHECK_INT(im.info.header.crypto.env.mode, ==, DMO_ENCRYPT_PASSPHRASE);
                CHECK_INT(resume_with(&im, "wrong horse"), ==, -EKEYREJECTED);
                CHECK_INT(resume_with(&im, pass_a), ==, 0);
                /* No key, no pages. */
                struct dmo_image_reader *rd;
                REQUIRE(dmo_image_reader_new(&im.info, im.dev, 1, NULL, &rd) == 0);
                const void *pages;
                size_t n;
                CHECK_INT(dmo_image_reader_next_pages(rd, &pages, &n), ==, -ENOKEY);
                dmo_image_reader_free(rd);
                free_image(&im);
        }
}

/* A header that names the other cipher than the one the chunks were sealed
 * with (its MAC recomputed by someone with the key, the worst case) opens
 * no chunk. */
static void test_cipher_swapped_in_the_header_opens_no_chunk(void)
{
        if (!dmo_crypto_cipher_available(DMO_CHUNK_CIPHER_AES256GCM)) {
                printf("# AES-256-GCM: not on this CPU, not tested\n");
                return;
        }
        struct image im = {.cipher = DMO_CHUNK_CIPHER_AES256GCM};
        REQUIRE(make_image(&im, "swapped.swap", pass_a, SEED) == 0);
        struct dmo_crypto_key *key;
        REQUIRE(dmo_crypto_unwrap_passphrase(&im.info.header.crypto.env, pass_a, strlen(pass_a),
                                             &key) == 0);
        uint8_t *rec = im.stream + im.rec_off[0];
        const struct dmo_crypto_chunk_ad ad = {
            .index = 0,
            .npages = dmo_get_le32(rec + 4),
            .zero_map = dmo_get_le64(rec + 16),
            .flags = dmo_get_le32(rec + 24),
            .plain_len = dmo_get_le32(rec + 28) - DMO_CRYPTO_TAG_LEN,
        };
        uint8_t sec[DMO_IMAGE_CRYPTO_LEN];
        uint8_t *copy = malloc(im.rec_len[0]);
        REQUIRE(copy);
        /* With the header as written, the chunk opens: the test's own
         * reading of the record is right. */
        dmo_image_crypto_section(&im.info.header.crypto, sec);
        REQUIRE(dmo_crypto_key_bind(key, DMO_CHUNK_CIPHER_AES256GCM, sec, sizeof(sec)) == 0);
        memcpy(copy, rec, im.rec_len[0]);
        CHECK_INT(dmo_crypto_chunk_open(key, &ad, copy + DMO_CHUNK_HEADER_LEN), ==, 0);
        struct dmo_image_crypto other = im.info.header.crypto;
        other.cipher = DMO_CHUNK_CIPHER_XCHACHA20POLY1305;
        dmo_image_crypto_section(&other, sec);
        REQUIRE(dmo_crypto_key_bind(key, other.cipher, sec, sizeof(sec)) == 0);
        memcpy(copy, rec, im.rec_len[0]);
        CHECK_INT(dmo_crypto_chunk_open(key, &ad, copy + DMO_CHUNK_HEADER_LEN), ==, -EBADMSG);
        free(copy);
        dmo_crypto_key_free(key);
        free_image(&im);
}

static void test_flipped_bit_with_checksums_recomputed_is_refused(void)
{
        struct image im = {0};
        REQUIRE(make_image(&im, "flip.swap", pass_a, SEED) == 0);
        uint8_t *s = malloc(im.len);
        for (uint64_t k = 0; k < 20; k++) {
                memcpy(s, im.stream, im.len);
                uint64_t c = (k * 37) % im.n_rec;
                uint8_t *rec = s + im.rec_off[c];
                uint32_t payload = im.rec_len[c] - DMO_CHUNK_HEADER_LEN;
                rec[DMO_CHUNK_HEADER_LEN + (k * 131) % payload] ^= (uint8_t)(1u << (k % 8));
                reseal_record(rec, c);
                put_stream(&im, s);
                int r = resume_with(&im, pass_a);
                CHECK_INT(r, ==, -EBADMSG);
        }
        /* The chunk header's authenticated fields: zero map and flags. */
        memcpy(s, im.stream, im.len);
        uint8_t *rec = s + im.rec_off[3];
        dmo_put_le64(rec + 16, dmo_get_le64(rec + 16) ^ 1);
        reseal_record(rec, 3);
        put_stream(&im, s);
        CHECK(resume_with(&im, pass_a) < 0);
        CHECK(resume_with(&im, pass_a) != 1);
        put_stream(&im, im.stream);
        CHECK_INT(resume_with(&im, pass_a), ==, 0);
        free(s);
        free_image(&im);
}

static void test_reordered_chunks_are_refused(void)
{
        struct image im = {0};
        REQUIRE(make_image(&im, "order.swap", pass_a, SEED) == 0);
        uint64_t i, j;
        same_length_pair(&im, &i, &j);
        REQUIRE(j > i);
        uint8_t *s = malloc(im.len);
        memcpy(s, im.stream, im.len);
        memcpy(s + im.rec_off[i], im.stream + im.rec_off[j], im.rec_len[j]);
        memcpy(s + im.rec_off[j], im.stream + im.rec_off[i], im.rec_len[i]);
        reseal_record(s + im.rec_off[i], i);
        reseal_record(s + im.rec_off[j], j);
        put_stream(&im, s);
        CHECK_INT(resume_with(&im, pass_a), ==, -EBADMSG);
        free(s);
        free_image(&im);
}

static void test_replayed_chunk_is_refused(void)
{
        struct image im = {0};
        REQUIRE(make_image(&im, "replay.swap", pass_a, SEED) == 0);
        uint64_t i, j;
        same_length_pair(&im, &i, &j);
        REQUIRE(j > i);
        uint8_t *s = malloc(im.len);
        memcpy(s, im.stream, im.len);
        /* Chunk i again where chunk j was, numbered j. */
        memcpy(s + im.rec_off[j], im.stream + im.rec_off[i], im.rec_len[i]);
        reseal_record(s + im.rec_off[j], j);
        put_stream(&im, s);
        CHECK_INT(resume_with(&im, pass_a), ==, -EBADMSG);
        free(s);
        free_image(&im);
}

static void test_chunk_from_another_image_is_refused(void)
{
        struct image a = {0}, b = {0};
        /* Same content, same passphrase: only the image key differs. */
        REQUIRE(make_image(&a, "a.swap", pass_a, SEED) == 0);
        REQUIRE(make_image(&b, "b.swap", pass_a, SEED) == 0);
        REQUIRE(a.n_rec == b.n_rec);
        uint64_t c = 0;
        for (uint64_t k = 1; k < a.n_rec && !c; k++)
                if (a.rec_len[k] == b.rec_len[k] && a.rec_off[k] == b.rec_off[k])
                        c = k;
        REQUIRE(c);
        uint8_t *s = malloc(a.len);
        memcpy(s, a.stream, a.len);
        memcpy(s + a.rec_off[c], b.stream + b.rec_off[c], b.rec_len[c]);
        reseal_record(s + a.rec_off[c], c);
        put_stream(&a, s);
        CHECK_INT(resume_with(&a, pass_a), ==, -EBADMSG);
        free(s);
        free_image(&a);
        free_image(&b);
}

/* Rewrites the header with new counts, the map trimmed to the stream, and
 * the signature bound to the new header: everything but the MAC, which
 * needs the key. */
static void forge_header(struct image *im, uint64_t chunks, uint64_t pages, uint64_t stream_len)
{
        struct dmo_image_header h = im->info.header;
        h.chunk_count = chunks;
        h.image_pages = pages;
        h.raw_bytes = pages * PS;
        h.stream_len = stream_len;
        h.zero_pages = 0;
        struct dmo_extent e = {im->at, (stream_len + PS - 1) / PS};
        uint8_t page[PS];
        REQUIRE(dmo_map_page_encode(page, PS, 0, 0, &e, 1) == 0);
        REQUIRE(dmo_blockdev_pwrite(im->dev, page, PS, h.map_offset) == 0);
        h.map_hash = XXH3_64bits(page, PS);
        REQUIRE(dmo_image_header_encode(page, PS, &h) == 0);
        REQUIRE(dmo_blockdev_pwrite(im->dev, page, PS, im->res.header_offset) == 0);
        struct dmo_sig sig = im->res.sig;
        sig.header_hash = dmo_image_header_hash(page, PS);
        REQUIRE(dmo_sig_write(im->dev, 0, PS, &sig) == 0);
}

static void test_dropped_chunk_and_truncated_stream_are_refused(void)
{
        struct image im = {0};
        REQUIRE(make_image(&im, "drop.swap", pass_a, SEED) == 0);
        uint8_t *s = calloc(1, im.len);
        /* Chunk 5 left out, the rest moved up and renumbered; the header
         * still promises the old length. */
        const uint64_t d = 5;
        uint64_t at = 0;
        for (uint64_t k = 0; k < im.n_rec; k++) {
                if (k == d)
                        continue;
                memcpy(s + at, im.stream + im.rec_off[k], im.rec_len[k]);
                reseal_record(s + at, k < d ? k : k - 1);
                at += im.rec_len[k];
        }
        put_stream(&im, s);
        CHECK_INT(resume_with(&im, pass_a), ==, -EBADMSG);

        /* ...and with the header's counts forged to match. */
        forge_header(&im, im.n_rec - 1, IMAGE_PAGES - 1, at);
        CHECK_INT(resume_with(&im, pass_a), ==, -EBADMSG);

        /* A stream cut after chunk 100, the header forged to say so. */
        put_stream(&im, im.stream);
        forge_header(&im, 100, 100, im.rec_off[100]);
        CHECK_INT(resume_with(&im, pass_a), ==, -EBADMSG);
        free(s);
        free_image(&im);
}

static uint64_t wait_prefetched(struct dmo_image_reader *rd, uint64_t want)
{
        uint64_t got = 0;
        (void)DMO_TEST_WAIT_UNTIL((got = dmo_image_reader_prefetched(rd)) >= want, 30000);
        return got;
}

/* While the key is asked for, the read-ahead reads as much of the stream as
 * it is allowed, no more; after the key, the pages come from that memory:
 * the test wipes the stream on disk once it is read, and every page still
 * comes back right. */
static void test_prefetch_reads_the_stream_while_the_key_is_asked_for(void)
{
        enum { BIG_PAGES = 2048, BIG_DEV = 2200 };
        char path[512];
        snprintf(path, sizeof(path), "%s/prefetch.swap", dmo_test_tmpdir());
        REQUIRE(tu_make_swap(path, BIG_DEV, PS) == 0);
        struct dmo_blockdev *dev;
        REQUIRE(dmo_blockdev_open(path, true, NULL, &dev) == 0);
        struct dmo_crypto_key *key;
        struct dmo_crypto_envelope env;
        REQUIRE(dmo_crypto_init() == 0 && dmo_crypto_key_new(&key) == 0);
        REQUIRE(dmo_crypto_wrap_passphrase(key, pass_a, strlen(pass_a), &cheap, &env) == 0);
        struct tu_alloc a;
        tu_alloc_init(&a, TU_CONTIGUOUS, BIG_DEV, PS, 0);
        const struct dmo_image_writer_params wp = {
            .algo = DMO_COMPRESS_NONE,
            .threads = 2,
            .page_size = PS,
            .expected_pages = BIG_PAGES,
            .key = key,
            .envelope = &env,
        };
        struct dmo_image_result res;
        REQUIRE(tu_hibernate(dev, &a, SEED, BIG_PAGES, &wp, &res) == 0);
        free(a.slots);
        dmo_crypto_key_free(key);

        struct dmo_image_info info;
        REQUIRE(dmo_image_probe(dev, 0, PS, &info) == 0);
        const uint64_t stream = info.header.stream_len;
        REQUIRE(stream > (6u << 20)); /* stored raw: 8 MiB less the zero pages */
        struct dmo_image_reader *rd;
        REQUIRE(dmo_image_reader_new(&info, dev, 2, NULL, &rd) == 0);
        /* Without a prefetch, only the usual buffers. */
        usleep(100000);
        CHECK_INT(dmo_image_reader_prefetched(rd), ==, 0);
        /* A budget of 2 MiB: exactly that. */
        dmo_image_reader_prefetch(rd, 2u << 20);
        CHECK_INT(wait_prefetched(rd, 2u << 20), ==, 2u << 20);
        usleep(100000);
        CHECK_INT(dmo_image_reader_prefetched(rd), ==, 2u << 20);
        /* The whole stream: all of it is read, less the usual buffers. */
        dmo_image_reader_prefetch(rd, stream);
        uint64_t got = wait_prefetched(rd, stream - 3 * (1u << 20));
        CHECK_INT(got, >=, stream - 3 * (1u << 20));

        /* The disk's copy of the stream goes away; the memory's stays. */
        uint8_t *zeros = calloc(1, stream);
        REQUIRE(zeros);
        REQUIRE(dmo_blockdev_pwrite(dev, zeros, stream, info.extents[0].offset) == 0);
        free(zeros);
        REQUIRE(dmo_crypto_unwrap_passphrase(&info.header.crypto.env, pass_a, strlen(pass_a),
                                             &key) == 0);
        REQUIRE(dmo_image_reader_set_key(rd, key) == 0);
        uint8_t want[PS];
        uint64_t i = 0;
        int r;
        const void *pages;
        size_t n;
        bool same = true;
        while ((r = dmo_image_reader_next_pages(rd, &pages, &n)) > 0)
                for (size_t j = 0; j < n; j++, i++) {
                        tu_page(SEED, i, want, PS);
                        same = same && memcmp((const uint8_t *)pages + j * PS, want, PS) == 0;
                }
        CHECK_INT(r, ==, 0);
        CHECK_INT(i, ==, BIG_PAGES);
        CHECK(same);
        dmo_image_reader_free(rd);
        dmo_crypto_key_free(key);
        dmo_blockdev_free(dev);
}

DMO_TEST_MAIN(T(test_intact_image_reads_back_and_wrong_passphrase_is_rejected),
              T(test_cipher_swapped_in_the_header_opens_no_chunk),
              T(test_flipped_bit_with_checksums_recomputed_is_refused),
              T(test_reordered_chunks_are_refused), T(test_replayed_chunk_is_refused),
              T(test_chunk_from_another_image_is_refused),
              T(test_dropped_chunk_and_truncated_stream_are_refused),
              T(test_prefetch_reads_the_stream_while_the_key_is_asked_for))
