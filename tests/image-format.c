/* Tests of src/image/format: header, signature block, extent map and chunk
 * header layouts, their bounds and version rules. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "image/format.h"
#include "util/le.h"
#include "tests/testlib.h"
#include "util/cleanup.h"

#define PS 4096u

/* Recomputes the header checksum the way the spec defines it (field read as
 * zero), so tests can build headers with chosen bad fields that still pass
 * the checksum and reach the field checks. */
static void reseal_header(uint8_t *page)
{
        uint32_t len = dmo_get_le32(page + 12);
        memset(page + 16, 0, 8);
        dmo_put_le64(page + 16, XXH3_64bits(page, len));
}

static void reseal_chunk(uint8_t *h)
{
        dmo_put_le64(h + 48, XXH3_64bits(h, 48));
}

static void reseal_map(uint8_t *page, uint32_t ps)
{
        memset(page + 24, 0, 8);
        dmo_put_le64(page + 24, XXH3_64bits(page, ps));
}

static struct dmo_image_header sample_header(void)
{
        struct dmo_image_header h = {
            .flags = DMO_IMAGE_F_PLATFORM,
            .page_size = PS,
            .image_pages = 1000,
            .compress = DMO_COMPRESS_ZSTD,
            .level = 3,
            .chunk_pages = 32,
            .chunk_count = 32, /* ceil(1000 / 32) */
            .stream_len = 32 * DMO_CHUNK_HEADER_LEN + 500 * PS,
            .map_offset = 100 * PS,
            .map_pages = 1,
            .extent_count = 7,
            .map_hash = 0x1234567890abcdefull,
            .start_ns = 1700000000000000000ull,
            .end_ns = 1700000001000000000ull,
            .write_ns = 999,
            .raw_bytes = 1000ull * PS,
            .stored_bytes = 600ull * PS,
            .zero_pages = 400,
        };
        strcpy(h.identity.sysname, "Linux");
        strcpy(h.identity.release, "6.1.0-57-amd64");
        strcpy(h.identity.version, "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3");
        strcpy(h.identity.machine, "x86_64");
        return h;
}

static void test_header_round_trip_keeps_every_field(void)
{
        uint8_t page[PS];
        struct dmo_image_header h = sample_header(), d;
        REQUIRE(dmo_image_header_encode(page, PS, &h) == 0);
        enum dmo_image_fault f;
        CHECK_INT(dmo_image_header_decode(page, PS, &d, &f), ==, 0);
        CHECK_INT(f, ==, DMO_FAULT_NONE);
        CHECK_INT(d.major, ==, DMO_IMAGE_MAJOR);
        CHECK_INT(d.minor, ==, DMO_IMAGE_MINOR);
        CHECK_INT(d.header_len, ==, DMO_IMAGE_HEADER_LEN);
        CHECK_INT(d.flags, ==, h.flags);
        CHECK_INT(d.page_size, ==, PS);
        CHECK_INT(d.image_pages, ==, h.image_pages);
        CHECK_INT(d.compress, ==, h.compress);
        CHECK_INT(d.level, ==, h.level);
        CHECK_INT(d.chunk_pages, ==, h.chunk_pages);
        CHECK_INT(d.chunk_count, ==, h.chunk_count);
        CHECK_INT(d.stream_len, ==, h.stream_len);
        CHECK_INT(d.map_offset, ==, h.map_offset);
        CHECK_INT(d.map_pages, ==, h.map_pages);
        CHECK_INT(d.extent_count, ==, h.extent_count);
        CHECK(d.map_hash == h.map_hash);
        CHECK(d.start_ns == h.start_ns);
        CHECK(d.end_ns == h.end_ns);
        CHECK_INT(d.write_ns, ==, h.write_ns);
        CHECK_INT(d.raw_bytes, ==, h.raw_bytes);
        CHECK_INT(d.stored_bytes, ==, h.stored_bytes);
        CHECK_INT(d.zero_pages, ==, h.zero_pages);
        CHECK(strcmp(d.identity.sysname, h.identity.sysname) == 0);
        CHECK(strcmp(d.identity.release, h.identity.release) == 0);
        CHECK(strcmp(d.identity.version, h.identity.version) == 0);
        CHECK(strcmp(d.identity.machine, h.identity.machine) == 0);
        CHECK_INT(d.crypto.cipher, ==, 0);
}

static void test_header_negative_level_round_trips(void)
{
        uint8_t page[PS];
        struct dmo_image_header h = sample_header(), d;
        h.level = -5;
        REQUIRE(dmo_image_header_encode(page, PS, &h) == 0);
        REQUIRE(dmo_image_header_decode(page, PS, &d, NULL) == 0);
        CHECK_INT(d.level, ==, -5);
}

static void test_header_every_bit_flip_is_refused(void)
{
        uint8_t page[PS], bad[PS];
        struct dmo_image_header h = sample_header(), d;
        REQUIRE(dmo_image_header_encode(page, PS, &h) == 0);
        int accepted = 0;
        for (size_t bit = 0; bit < DMO_IMAGE_HEADER_LEN * 8; bit++) {
                memcpy(bad, page, PS);
                bad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
                if (dmo_image_header_decode(bad, PS, &d, NULL) == 0)
                        accepted++;
        }
        CHECK_INT(accepted, ==, 0);
}

/* Each mutation makes one field invalid; encode must refuse it and a
 * resealed page carrying it must decode to -EBADMSG. */
static void test_header_field_bounds_are_enforced(void)
{
        static const struct {
                const char *what;
                size_t off;
                int width;
                uint64_t value;
        } bad[] = {
            {"page size 2048", 28, 4, 2048},
            {"page size not a power of two", 28, 4, 12288},
            {"page size 128k", 28, 4, 131072},
            {"zero image pages", 32, 8, 0},
            {"image pages beyond limit", 32, 8, DMO_IMAGE_MAX_PAGES + 1},
            {"unknown compression", 40, 4, 3},
            {"level too high", 44, 4, 256},
            {"zero chunk pages", 48, 4, 0},
            {"chunk pages above 64", 48, 4, 65},
            {"chunk count off by one", 56, 8, 33},
            {"stream shorter than chunk headers", 64, 8, 31 * DMO_CHUNK_HEADER_LEN},
            {"stream longer than raw pages", 64, 8, 32 * DMO_CHUNK_HEADER_LEN + 1001 * PS},
            {"zero extents", 88, 8, 0},
            {"more extents than stream pages", 88, 8, 502},
            {"map page count mismatch", 80, 4, 2},
            {"unaligned map offset", 72, 8, 100 * PS + 1},
            {"raw bytes mismatch", 128, 8, 1},
            {"zero pages above image pages", 144, 8, 1001},
            {"cipher without the encrypted flag", 512, 4, 1},
            {"unknown kdf", 512 + 4, 4, 3},
            {"wrapped key in a plain image", 512 + 80, 4, 48},
            {"wrapped bytes in a plain image", 512 + 88, 4, 1},
            {"a MAC in a plain image", 512 + 168, 4, 1},
        };
        struct dmo_image_header h = sample_header(), d;
        uint8_t good[PS], page[PS];
        REQUIRE(dmo_image_header_encode(good, PS, &h) == 0);
        for (size_t i = 0; i < DMO_ARRAY_SIZE(bad); i++) {
                memcpy(page, good, PS);
                if (bad[i].width == 4)
                        dmo_put_le32(page + bad[i].off, (uint32_t)bad[i].value);
                else
                        dmo_put_le64(page + bad[i].off, bad[i].value);
                reseal_header(page);
                enum dmo_image_fault f = DMO_FAULT_NONE;
                int r = dmo_image_header_decode(page, PS, &d, &f);
                if (r != -EBADMSG || f != DMO_FAULT_HEADER_FIELDS)
                        printf("# accepted or misreported: %s (%d, %s)\n", bad[i].what, r,
                               dmo_image_fault_id(f));
                CHECK_INT(r, ==, -EBADMSG);
                CHECK_INT(f, ==, DMO_FAULT_HEADER_FIELDS);
        }

        /* The same bounds hold on the encode side. */
        struct dmo_image_header e = h;
        e.chunk_pages = 65;
        CHECK_INT(dmo_image_header_encode(page, PS, &e), ==, -EINVAL);
        e = h;
        e.compress = 9;
        CHECK_INT(dmo_image_header_encode(page, PS, &e), ==, -EINVAL);
        e = h;
        memset(e.identity.release, 'x', sizeof(e.identity.release));
        CHECK_INT(dmo_image_header_encode(page, PS, &e), ==, -EINVAL);
        CHECK_INT(dmo_image_header_encode(page, 8192, &h), ==, -EINVAL);
}

static void test_header_identity_without_nul_is_refused(void)
{
        struct dmo_image_header h = sample_header(), d;
        uint8_t page[PS];
        REQUIRE(dmo_image_header_encode(page, PS, &h) == 0);
        memset(page + 225, 'A', 65); /* release, no terminator */
        reseal_header(page);
        enum dmo_image_fault f;
        CHECK_INT(dmo_image_header_decode(page, PS, &d, &f), ==, -EBADMSG);
        CHECK_INT(f, ==, DMO_FAULT_HEADER_FIELDS);
}

static void test_header_newer_minor_is_accepted(void)
{
        struct dmo_image_header h = sample_header(), d;
        uint8_t page[PS];
        REQUIRE(dmo_image_header_encode(page, PS, &h) == 0);
        dmo_put_le16(page + 10, 9);
        dmo_put_le32(page + 12, 2048); /* a newer minor adds fields */
        memset(page + 1024, 0x5a, 1024);
        reseal_header(page);
        CHECK_INT(dmo_image_header_decode(page, PS, &d, NULL), ==, 0);
        CHECK_INT(d.minor, ==, 9);
        CHECK_INT(d.header_len, ==, 2048);

        /* A newer minor with a compatible flag this reader does not know. */
        dmo_put_le32(page + 24, 0x80000000u);
        reseal_header(page);
        CHECK_INT(dmo_image_header_decode(page, PS, &d, NULL), ==, 0);
}

static void test_header_newer_major_is_refused_as_unsupported(void)
{
        struct dmo_image_header h = sample_header(), d;
        uint8_t page[PS];
        REQUIRE(dmo_image_header_encode(page, PS, &h) == 0);
        dmo_put_le16(page + 8, DMO_IMAGE_MAJOR + 1);
        reseal_header(page);
        enum dmo_image_fault f;
        CHECK_INT(dmo_image_header_decode(page, PS, &d, &f), ==, -EPROTONOSUPPORT);
        CHECK_INT(f, ==, DMO_FAULT_VERSION);

        dmo_put_le16(page + 8, 0);
        reseal_header(page);
        CHECK_INT(dmo_image_header_decode(page, PS, &d, &f), ==, -EBADMSG);

        /* Without resealing, a changed version is plain corruption. */
        REQUIRE(dmo_image_header_encode(page, PS, &h) == 0);
        dmo_put_le16(page + 8, DMO_IMAGE_MAJOR + 1);
        CHECK_INT(dmo_image_header_decode(page, PS, &d, &f), ==, -EBADMSG);
        CHECK_INT(f, ==, DMO_FAULT_HEADER_CHECKSUM);
}

static struct dmo_image_header encrypted_header(void)
{
        struct dmo_image_header h = sample_header();
        h.flags |= DMO_IMAGE_F_ENCRYPTED;
        h.crypto.cipher = DMO_CHUNK_CIPHER_XCHACHA20POLY1305;
        h.crypto.env.mode = DMO_ENCRYPT_PASSPHRASE;
        h.crypto.env.opslimit = 3;
        h.crypto.env.memlimit = 64u << 20;
        memset(h.crypto.env.salt, 7, sizeof(h.crypto.env.salt));
        memset(h.crypto.env.nonce, 8, sizeof(h.crypto.env.nonce));
        memset(h.crypto.env.image_nonce, 9, sizeof(h.crypto.env.image_nonce));
        h.crypto.env.wrapped_len = DMO_CRYPTO_KEY_LEN + DMO_CRYPTO_TAG_LEN;
        memset(h.crypto.env.wrapped, 10, h.crypto.env.wrapped_len);
        memset(h.crypto.mac, 11, sizeof(h.crypto.mac));
        return h;
}

static void test_header_encryption_section_round_trips(void)
{
        struct dmo_image_header h = encrypted_header(), d;
        uint8_t page[PS];
        enum dmo_image_fault f;

        REQUIRE(dmo_image_header_encode(page, PS, &h) == 0);
        CHECK_INT(dmo_image_header_decode(page, PS, &d, &f), ==, 0);
        CHECK_INT(d.crypto.cipher, ==, DMO_CHUNK_CIPHER_XCHACHA20POLY1305);
        CHECK_INT(d.crypto.env.mode, ==, DMO_ENCRYPT_PASSPHRASE);
        CHECK(memcmp(&d.crypto.env, &h.crypto.env, sizeof(d.crypto.env)) == 0);
        CHECK(memcmp(d.crypto.mac, h.crypto.mac, sizeof(d.crypto.mac)) == 0);
        CHECK_INT(d.minor, ==, DMO_IMAGE_MINOR);

        /* AES-256-GCM is a known cipher whether or not this CPU runs it;
         * anything else is refused. */
        h.crypto.cipher = DMO_CHUNK_CIPHER_AES256GCM;
        REQUIRE(dmo_image_header_encode(page, PS, &h) == 0);
        CHECK_INT(dmo_image_header_decode(page, PS, &d, &f), ==, 0);
        CHECK_INT(d.crypto.cipher, ==, DMO_CHUNK_CIPHER_AES256GCM);
        h.crypto.cipher = 3;
        CHECK_INT(dmo_image_header_encode(page, PS, &h), ==, -EINVAL);
}

static struct dmo_image_header tpm_header(void)
{
        struct dmo_image_header h = encrypted_header();
        h.flags |= DMO_IMAGE_F_TPM;
        h.crypto.env.mode = DMO_ENCRYPT_PUBKEY; /* the recovery wrapping */
        h.crypto.env.opslimit = 0;
        h.crypto.env.memlimit = 0;
        h.crypto.env.wrapped_len = DMO_CRYPTO_WRAPPED_MAX;
        memset(h.crypto.env.wrapped, 10, h.crypto.env.wrapped_len);
        h.tpm.pcrs = (1u << 7) | (1u << 0);
        h.tpm.flags = DMO_IMAGE_TPM_PIN;
        h.tpm.nv_index = 0x01d0c0de;
        h.tpm.counter = 41;
        h.tpm.blob_len = 300;
        memset(h.tpm.blob, 0x77, h.tpm.blob_len);
        return h;
}

static void test_header_tpm_section_round_trips_in_a_longer_header(void)
{
        struct dmo_image_header h = tpm_header(), d;
        uint8_t page[PS];
        REQUIRE(dmo_image_header_encode(page, PS, &h) == 0);
        CHECK_INT(dmo_get_le32(page + 12), ==, DMO_IMAGE_TPM_OFFSET + DMO_IMAGE_TPM_LEN);
        CHECK_INT(dmo_image_header_decode(page, PS, &d, NULL), ==, 0);
        CHECK(memcmp(&d.tpm, &h.tpm, sizeof(d.tpm)) == 0);
        CHECK_INT(d.header_len, ==, DMO_IMAGE_TPM_OFFSET + DMO_IMAGE_TPM_LEN);

        /* The checksum covers the section: a flipped counter is corruption. */
        page[DMO_IMAGE_TPM_OFFSET + 16] ^= 1;
        enum dmo_image_fault f;
        CHECK_INT(dmo_image_header_decode(page, PS, &d, &f), ==, -EBADMSG);
        CHECK_INT(f, ==, DMO_FAULT_HEADER_CHECKSUM);

        /* A header too short for the section it announces. */
        REQUIRE(dmo_image_header_encode(page, PS, &h) == 0);
        dmo_put_le32(page + 12, 1024);
        reseal_header(page);
        CHECK_INT(dmo_image_header_decode(page, PS, &d, &f), ==, -EBADMSG);
        CHECK_INT(f, ==, DMO_FAULT_HEADER_FIELDS);

        /* Without the TPM, the header is as long as in 1.1. */
        struct dmo_image_header e = encrypted_header();
        REQUIRE(dmo_image_header_encode(page, PS, &e) == 0);
        CHECK_INT(dmo_get_le32(page + 12), ==, DMO_IMAGE_HEADER_LEN);
}

static void test_header_tpm_section_fields_are_checked(void)
{
        struct dmo_image_header h;
        uint8_t page[PS];
        h = tpm_header();
        h.flags &= ~DMO_IMAGE_F_ENCRYPTED; /* a sealed key for a plain image */
        CHECK_INT(dmo_image_header_encode(page, PS, &h), ==, -EINVAL);
        h = tpm_header();
        h.tpm.pcrs = 1u << 24;
        CHECK_INT(dmo_image_header_encode(page, PS, &h), ==, -EINVAL);
        h = tpm_header();
        h.tpm.flags = 2;
        CHECK_INT(dmo_image_header_encode(page, PS, &h), ==, -EINVAL);
        h = tpm_header();
        h.tpm.nv_index = 0x81000001u; /* a persistent object, not an NV index */
        CHECK_INT(dmo_image_header_encode(page, PS, &h), ==, -EINVAL);
        h = tpm_header();
        h.tpm.nv_index = 0; /* a counter value without a counter */
        CHECK_INT(dmo_image_header_encode(page, PS, &h), ==, -EINVAL);
        h = tpm_header();
        h.tpm.blob_len = 0;
        memset(h.tpm.blob, 0, sizeof(h.tpm.blob));
        CHECK_INT(dmo_image_header_encode(page, PS, &h), ==, -EINVAL);
        h = tpm_header();
        h.tpm.blob_len = DMO_IMAGE_TPM_BLOB_MAX + 1;
        CHECK_INT(dmo_image_header_encode(page, PS, &h), ==, -EINVAL);
        h = tpm_header();
        h.tpm.blob[h.tpm.blob_len] = 1; /* one encoding per image */
        CHECK_INT(dmo_image_header_encode(page, PS, &h), ==, -EINVAL);
        h = encrypted_header();
        h.tpm.counter = 5; /* TPM fields without the flag */
        CHECK_INT(dmo_image_header_encode(page, PS, &h), ==, -EINVAL);

        /* Bytes past 1024 without the flag are a newer minor's business. */
        h = encrypted_header();
        REQUIRE(dmo_image_header_encode(page, PS, &h) == 0);
        dmo_put_le32(page + 12, 2048);
        memset(page + 1024, 0x5a, 1024);
        reseal_header(page);
        struct dmo_image_header d;
        CHECK_INT(dmo_image_header_decode(page, PS, &d, NULL), ==, 0);
        CHECK_INT(d.tpm.blob_len, ==, 0);
}

static void test_header_mac_covers_the_tpm_section(void)
{
        struct dmo_image_header h = tpm_header();
        struct dmo_crypto_key *k = NULL;
        const struct dmo_extent ext[1] = {{.offset = 100 * PS, .pages = 600}};
        uint8_t sec[DMO_IMAGE_CRYPTO_LEN];
        h.extent_count = 1;
        REQUIRE(dmo_crypto_key_new(&k) == 0);
        dmo_image_crypto_section(&h.crypto, sec);
        REQUIRE(dmo_crypto_key_bind(k, h.crypto.cipher, sec, sizeof(sec)) == 0);
        REQUIRE(dmo_image_header_mac(k, &h, ext, 1) == 0);
        CHECK_INT(dmo_image_header_mac_verify(k, &h, ext, 1), ==, 0);
        h.tpm.counter--; /* an older counter value, written with a new checksum */
        CHECK_INT(dmo_image_header_mac_verify(k, &h, ext, 1), ==, -EBADMSG);
        h.tpm.counter++;
        h.tpm.pcrs = 1u << 7; /* fewer PCRs */
        CHECK_INT(dmo_image_header_mac_verify(k, &h, ext, 1), ==, -EBADMSG);
        dmo_crypto_key_free(k);
}

static void test_header_half_encrypted_is_refused(void)
{
        struct dmo_image_header h = encrypted_header(), d;
        uint8_t page[PS];
        enum dmo_image_fault f;

        /* A cipher without the flag, or the flag without a sound envelope,
         * is neither a plain nor an encrypted image. */
        h.flags &= ~DMO_IMAGE_F_ENCRYPTED;
        CHECK_INT(dmo_image_header_encode(page, PS, &h), ==, -EINVAL);
        h = encrypted_header();
        REQUIRE(dmo_image_header_encode(page, PS, &h) == 0);
        uint32_t flags = dmo_get_le32(page + 24) & ~DMO_IMAGE_F_ENCRYPTED;
        dmo_put_le32(page + 24, flags);
        reseal_header(page);
        CHECK_INT(dmo_image_header_decode(page, PS, &d, &f), ==, -EBADMSG);
        CHECK_INT(f, ==, DMO_FAULT_HEADER_FIELDS);
        h.crypto.env.opslimit = 0;
        CHECK_INT(dmo_image_header_encode(page, PS, &h), ==, -EINVAL);

        /* Any incompatible flag this reader does not know. */
        h = sample_header();
        h.flags |= 0x8000;
        REQUIRE(dmo_image_header_encode(page, PS, &h) == 0);
        CHECK_INT(dmo_image_header_decode(page, PS, &d, &f), ==, -EPROTONOSUPPORT);
        CHECK_INT(f, ==, DMO_FAULT_ENCRYPTED);
}

static void test_header_bad_magic_or_length_is_corruption(void)
{
        struct dmo_image_header h = sample_header(), d;
        uint8_t page[PS];
        enum dmo_image_fault f;
        REQUIRE(dmo_image_header_encode(page, PS, &h) == 0);
        page[0] ^= 1;
        CHECK_INT(dmo_image_header_decode(page, PS, &d, &f), ==, -EBADMSG);
        CHECK_INT(f, ==, DMO_FAULT_HEADER_MAGIC);

        REQUIRE(dmo_image_header_encode(page, PS, &h) == 0);
        dmo_put_le32(page + 12, PS + 1);
        CHECK_INT(dmo_image_header_decode(page, PS, &d, &f), ==, -EBADMSG);
        dmo_put_le32(page + 12, 512);
        reseal_header(page);
        CHECK_INT(dmo_image_header_decode(page, PS, &d, &f), ==, -EBADMSG);
        CHECK_INT(f, ==, DMO_FAULT_HEADER_FIELDS);

        /* The header must agree with the page size the signature gave. */
        uint8_t big[8192];
        h.page_size = 8192;
        h.raw_bytes = h.image_pages * 8192;
        h.map_offset = 100 * 8192;
        REQUIRE(dmo_image_header_encode(big, 8192, &h) == 0);
        CHECK_INT(dmo_image_header_decode(big, 8192, &d, &f), ==, 0);
        memcpy(page, big, PS);
        CHECK_INT(dmo_image_header_decode(page, PS, &d, &f), ==, -EBADMSG);
}

/* ---- signature block ---- */

static int make_swap(const char *path, uint32_t ps, const char *extra)
{
        return dmo_test_sh("rm -f '%s' && truncate -s 8M '%s' && mkswap -q -p %u %s '%s' "
                           ">/dev/null 2>&1",
                           path, path, ps, extra, path);
}

static int read_page(const char *path, uint8_t *page, uint32_t ps)
{
        int fd = open(path, O_RDONLY);
        if (fd < 0)
                return -errno;
        ssize_t n = pread(fd, page, ps, 0);
        close(fd);
        return n == (ssize_t)ps ? 0 : -EIO;
}

static int write_page(const char *path, const uint8_t *page, uint32_t ps)
{
        int fd = open(path, O_WRONLY);
        if (fd < 0)
                return -errno;
        ssize_t n = pwrite(fd, page, ps, 0);
        close(fd);
        return n == (ssize_t)ps ? 0 : -EIO;
}

static struct dmo_sig sample_sig(uint32_t ps)
{
        return (struct dmo_sig){
            .major = DMO_IMAGE_MAJOR,
            .page_size = ps,
            .header_offset = 1234ull * ps,
            .header_len = ps,
            .header_hash = 0xfeedfacecafebeefull,
        };
}

static void test_sig_install_makes_blkid_see_swsuspend_and_remove_gives_swap_back(void)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/swap.img", dmo_test_tmpdir());
        REQUIRE(make_swap(path, PS, "-L dmolabel -U 3a8f8bde-1c79-4a9b-9d8e-0123456789ab") == 0);
        CHECK(dmo_test_sh("test \"$(blkid -p -o value -s TYPE '%s')\" = swap", path) == 0);

        uint8_t page[PS], orig[PS];
        REQUIRE(read_page(path, page, PS) == 0);
        memcpy(orig, page, PS);
        struct dmo_sig s = sample_sig(PS), p;
        CHECK_INT(dmo_sig_parse(page, PS, &p), ==, -ENOENT);
        REQUIRE(dmo_sig_install(page, PS, &s) == 0);
        REQUIRE(write_page(path, page, PS) == 0);

        CHECK(dmo_test_sh("test \"$(blkid -p -o value -s TYPE '%s')\" = swsuspend", path) == 0);
        CHECK_INT(dmo_sig_parse(page, PS, &p), ==, 0);
        CHECK_INT(p.major, ==, DMO_IMAGE_MAJOR);
        CHECK_INT(p.page_size, ==, PS);
        CHECK_INT(p.header_offset, ==, s.header_offset);
        CHECK_INT(p.header_len, ==, PS);
        CHECK(p.header_hash == s.header_hash);
        CHECK(memcmp(p.orig_magic, "SWAPSPACE2", 10) == 0);

        int changed = 0;
        REQUIRE(dmo_sig_remove(page, PS, &changed) == 0);
        CHECK_INT(changed, ==, 1);
        CHECK(memcmp(page, orig, PS) == 0);
        REQUIRE(write_page(path, page, PS) == 0);
        CHECK(dmo_test_sh("test \"$(blkid -p -o value -s TYPE '%s')\" = swap", path) == 0);
        CHECK(dmo_test_sh("test \"$(blkid -p -o value -s LABEL '%s')\" = dmolabel", path) == 0);
        CHECK(dmo_test_sh("test \"$(blkid -p -o value -s UUID '%s')\" = "
                          "3a8f8bde-1c79-4a9b-9d8e-0123456789ab",
                          path) == 0);
        CHECK_INT(dmo_sig_parse(page, PS, &p), ==, -ENOENT);

        /* Removing again is a no-op. */
        REQUIRE(dmo_sig_remove(page, PS, &changed) == 0);
        CHECK_INT(changed, ==, 0);
        CHECK(memcmp(page, orig, PS) == 0);
}

static void test_sig_works_with_large_page_sizes(void)
{
        static const uint32_t sizes[] = {8192, 16384, 65536};
        for (size_t i = 0; i < DMO_ARRAY_SIZE(sizes); i++) {
                uint32_t ps = sizes[i];
                char path[512];
                snprintf(path, sizeof(path), "%s/swap%u.img", dmo_test_tmpdir(), ps);
                REQUIRE(make_swap(path, ps, "") == 0);
                uint8_t *page = malloc(ps), *orig = malloc(ps);
                REQUIRE(page && orig);
                REQUIRE(read_page(path, page, ps) == 0);
                memcpy(orig, page, ps);
                struct dmo_sig s = sample_sig(ps), p;
                CHECK_INT(dmo_sig_install(page, ps, &s), ==, 0);
                REQUIRE(write_page(path, page, ps) == 0);
                CHECK(dmo_test_sh("test \"$(blkid -p -o value -s TYPE '%s')\" = swsuspend", path) ==
                      0);
                CHECK_INT(dmo_sig_parse(page, ps, &p), ==, 0);
                CHECK_INT(dmo_sig_remove(page, ps, NULL), ==, 0);
                CHECK(memcmp(page, orig, ps) == 0);
                free(page);
                free(orig);
        }
}

static void fake_swap_page(uint8_t *page, uint32_t ps)
{
        memset(page, 0, ps);
        dmo_put_le32(page + 1024, 1);
        dmo_put_le32(page + 1028, 2047);
        memcpy(page + ps - 10, "SWAPSPACE2", 10);
}

static void test_sig_parse_tells_plain_swap_foreign_and_not_swap_apart(void)
{
        uint8_t page[PS];
        struct dmo_sig s = sample_sig(PS), p;

        memset(page, 0, PS);
        CHECK_INT(dmo_sig_parse(page, PS, &p), ==, -ENODEV);
        CHECK_INT(dmo_sig_install(page, PS, &s), ==, -ENODEV);
        CHECK_INT(dmo_sig_remove(page, PS, NULL), ==, -ENODEV);

        fake_swap_page(page, PS);
        CHECK_INT(dmo_sig_parse(page, PS, &p), ==, -ENOENT);
        dmo_put_le32(page + 1024, 2); /* unknown swap version */
        CHECK_INT(dmo_sig_parse(page, PS, &p), ==, -ENODEV);
        CHECK_INT(dmo_sig_install(page, PS, &s), ==, -ENODEV);

        /* The kernel's own image: not ours to read or to remove. */
        fake_swap_page(page, PS);
        memcpy(page + PS - 10, "S1SUSPEND", 10);
        uint8_t copy[PS];
        memcpy(copy, page, PS);
        CHECK_INT(dmo_sig_parse(page, PS, &p), ==, -ENODEV);
        CHECK_INT(dmo_sig_install(page, PS, &s), ==, -ENODEV);
        CHECK_INT(dmo_sig_remove(page, PS, NULL), ==, -ENODEV);
        CHECK(memcmp(copy, page, PS) == 0);

        /* suspend-utils' image (ULSUSPEND without our block): same. */
        memcpy(page + PS - 10, "ULSUSPEND", 10);
        CHECK_INT(dmo_sig_parse(page, PS, &p), ==, -ENODEV);
        CHECK_INT(dmo_sig_remove(page, PS, NULL), ==, -ENODEV);

        CHECK_INT(dmo_sig_parse(page, 3000, &p), ==, -EINVAL);
}

static void test_sig_corrupt_block_is_badmsg_and_still_removable(void)
{
        uint8_t page[PS], good[PS], orig[PS];
        struct dmo_sig s = sample_sig(PS), p;
        fake_swap_page(page, PS);
        memcpy(orig, page, PS);
        REQUIRE(dmo_sig_install(page, PS, &s) == 0);
        memcpy(good, page, PS);

        /* Every bit of the block except the magic (which makes it foreign). */
        int wrong = 0;
        for (unsigned bit = 64; bit < DMO_SIG_BLOCK_SIZE * 8; bit++) {
                memcpy(page, good, PS);
                page[PS - DMO_SIG_BLOCK_FROM_END + bit / 8] ^= (uint8_t)(1u << (bit % 8));
                if (dmo_sig_parse(page, PS, &p) != -EBADMSG)
                        wrong++;
        }
        CHECK_INT(wrong, ==, 0);

        memcpy(page, good, PS);
        page[PS - DMO_SIG_BLOCK_FROM_END + 20] ^= 0x40;
        CHECK_INT(dmo_sig_remove(page, PS, NULL), ==, 0);
        CHECK(memcmp(page, orig, PS) == 0);
}

static void test_sig_newer_major_is_unsupported(void)
{
        uint8_t page[PS];
        struct dmo_sig s = sample_sig(PS), p;
        fake_swap_page(page, PS);
        REQUIRE(dmo_sig_install(page, PS, &s) == 0);
        uint8_t *b = page + PS - DMO_SIG_BLOCK_FROM_END;
        dmo_put_le16(b + 8, DMO_IMAGE_MAJOR + 1);
        dmo_put_le64(b + 56, XXH3_64bits(b, 56));
        CHECK_INT(dmo_sig_parse(page, PS, &p), ==, -EPROTONOSUPPORT);
        dmo_put_le16(b + 10, 77); /* a newer minor alone is fine */
        dmo_put_le16(b + 8, DMO_IMAGE_MAJOR);
        dmo_put_le64(b + 56, XXH3_64bits(b, 56));
        CHECK_INT(dmo_sig_parse(page, PS, &p), ==, 0);
        CHECK_INT(p.minor, ==, 77);
}

static void test_sig_install_twice_keeps_original_magic(void)
{
        uint8_t page[PS], orig[PS];
        struct dmo_sig s = sample_sig(PS), p;
        fake_swap_page(page, PS);
        memcpy(orig, page, PS);
        REQUIRE(dmo_sig_install(page, PS, &s) == 0);
        s.header_offset = 99 * PS;
        REQUIRE(dmo_sig_install(page, PS, &s) == 0);
        REQUIRE(dmo_sig_parse(page, PS, &p) == 0);
        CHECK_INT(p.header_offset, ==, 99 * PS);
        CHECK(memcmp(p.orig_magic, "SWAPSPACE2", 10) == 0);
        REQUIRE(dmo_sig_remove(page, PS, NULL) == 0);
        CHECK(memcmp(page, orig, PS) == 0);
}

static void test_sig_install_refuses_bad_arguments_and_full_badpage_list(void)
{
        uint8_t page[PS];
        struct dmo_sig s = sample_sig(PS);
        fake_swap_page(page, PS);
        s.header_offset = 5;
        CHECK_INT(dmo_sig_install(page, PS, &s), ==, -EINVAL);
        s = sample_sig(PS);
        s.page_size = 8192;
        CHECK_INT(dmo_sig_install(page, PS, &s), ==, -EINVAL);
        s = sample_sig(PS);
        dmo_put_le32(page + 1032, 620); /* 1536 + 2480 > 4096 - 128 */
        CHECK_INT(dmo_sig_install(page, PS, &s), ==, -ENOSPC);
        dmo_put_le32(page + 1032, 10);
        CHECK_INT(dmo_sig_install(page, PS, &s), ==, 0);
}

/* ---- extent map ---- */

struct memdev {
        uint8_t *buf;
        size_t size;
        int reads;
};

static int mem_read(void *ctx, void *buf, size_t len, uint64_t off)
{
        struct memdev *m = ctx;
        m->reads++;
        if (off > m->size || len > m->size - off)
                return -EIO;
        memcpy(buf, m->buf + off, len);
        return 0;
}

/* Writes a map for ext[0..n) at the given page numbers of the device and
 * fills the header fields that describe it. */
static void put_map(struct memdev *m, struct dmo_image_header *h, const struct dmo_extent *ext,
                    uint32_t n, const uint64_t *map_at, uint32_t ps)
{
        uint32_t per = dmo_map_entries_per_page(ps);
        uint32_t pages = (uint32_t)dmo_map_pages_for(n, ps);
        XXH3_state_t st;
        XXH3_64bits_reset(&st);
        uint64_t total = 0;
        for (uint32_t i = 0; i < n; i++)
                total += ext[i].pages;
        for (uint32_t i = 0; i < pages; i++) {
                uint32_t cnt = n - i * per < per ? n - i * per : per;
                uint64_t next = i + 1 < pages ? map_at[i + 1] * ps : 0;
                uint8_t *pg = m->buf + map_at[i] * ps;
                dmo_map_page_encode(pg, ps, i, next, ext + (size_t)i * per, cnt);
                XXH3_64bits_update(&st, pg, ps);
        }
        *h = sample_header();
        h->page_size = ps;
        h->image_pages = total * 4;
        h->raw_bytes = h->image_pages * ps;
        h->zero_pages = 0;
        h->chunk_pages = 64;
        h->chunk_count = (h->image_pages + 63) / 64;
        h->stream_len = (total - 1) * ps + 17;
        h->extent_count = n;
        h->map_pages = pages;
        h->map_offset = map_at[0] * ps;
        h->map_hash = XXH3_64bits_digest(&st);
}

struct map_fixture {
        struct memdev dev;
        struct dmo_image_header h;
        struct dmo_map_bounds b;
        struct dmo_extent ext[600];
        uint64_t map_at[4];
        uint32_t n;
};

/* 600 one-page extents at odd pages 11, 13, ..., map pages at 2000..2002,
 * swap header at page 0, image header at page 5. */
static void map_fixture(struct map_fixture *f)
{
        free(f->dev.buf);
        memset(f, 0, sizeof(*f));
        f->dev.size = 4096ull * PS;
        f->dev.buf = calloc(1, f->dev.size);
        f->n = 600;
        for (uint32_t i = 0; i < f->n; i++)
                f->ext[i] = (struct dmo_extent){(11 + 2ull * i) * PS, 1};
        f->map_at[0] = 2000;
        f->map_at[1] = 2001;
        f->map_at[2] = 2002;
        put_map(&f->dev, &f->h, f->ext, f->n, f->map_at, PS);
        f->b = (struct dmo_map_bounds){
            .device_size = f->dev.size, .swap_header_offset = 0, .header_offset = 5 * PS};
}

static int load(struct map_fixture *f)
{
        uint8_t pg[PS];
        struct dmo_extent *ext = calloc(f->h.extent_count + 1, sizeof(*ext));
        struct dmo_extent *scratch = calloc(dmo_map_scratch_len(&f->h), sizeof(*scratch));
        int r = dmo_extent_map_load(&f->h, &f->b, mem_read, &f->dev, pg, ext, scratch);
        if (r == 0)
                for (uint32_t i = 0; i < f->n && i < f->h.extent_count; i++)
                        if (ext[i].offset != f->ext[i].offset || ext[i].pages != f->ext[i].pages)
                                r = -999;
        free(ext);
        free(scratch);
        return r;
}

static void test_map_spanning_three_pages_loads(void)
{
        struct map_fixture f = {0};
        map_fixture(&f);
        CHECK_INT(f.h.map_pages, ==, 3);
        CHECK_INT(load(&f), ==, 0);
        CHECK_INT(f.dev.reads, ==, 3);
        free(f.dev.buf);
}

/* Rewrites the map after a test changed extents, keeping the stream the
 * header describes, so only the extent under test is wrong. */
static void rebuild(struct map_fixture *f)
{
        struct dmo_image_header keep = f->h;
        memset(f->dev.buf, 0, f->dev.size);
        put_map(&f->dev, &f->h, f->ext, f->n, f->map_at, PS);
        f->h.image_pages = keep.image_pages;
        f->h.raw_bytes = keep.raw_bytes;
        f->h.chunk_count = keep.chunk_count;
        f->h.stream_len = keep.stream_len;
}

static void test_map_refuses_bad_extents(void)
{
        struct map_fixture f = {0};
        map_fixture(&f);

        f.ext[10].offset = f.dev.size; /* past the end */
        rebuild(&f);
        CHECK_INT(load(&f), ==, -EBADMSG);
        map_fixture(&f);
        f.ext[10].offset = f.dev.size - PS;
        f.ext[10].pages = 2; /* runs past the end */
        rebuild(&f);
        CHECK_INT(load(&f), ==, -EBADMSG);
        map_fixture(&f);
        f.ext[10].pages = UINT64_MAX; /* length overflow */
        rebuild(&f);
        CHECK_INT(load(&f), ==, -EBADMSG);
        map_fixture(&f);
        f.ext[10].offset = 0xffffffffffff0000ull; /* offset overflow */
        rebuild(&f);
        CHECK_INT(load(&f), ==, -EBADMSG);
        map_fixture(&f);
        f.ext[10].pages = 0; /* zero length */
        f.ext[11].pages = 2;
        rebuild(&f);
        CHECK_INT(load(&f), ==, -EBADMSG);
        map_fixture(&f);
        f.ext[10].offset += 1; /* unaligned */
        rebuild(&f);
        CHECK_INT(load(&f), ==, -EBADMSG);
        map_fixture(&f);
        f.ext[10].offset = f.ext[300].offset; /* two extents on one page */
        rebuild(&f);
        CHECK_INT(load(&f), ==, -EBADMSG);
        map_fixture(&f);
        f.ext[10].pages = 2; /* overlaps the next extent */
        f.ext[11].offset = (11 + 2ull * 10 + 1) * PS;
        f.ext[599].pages = 0;
        f.n = 599;
        rebuild(&f);
        CHECK_INT(load(&f), ==, -EBADMSG);
        map_fixture(&f);
        f.ext[3].offset = 0; /* the swap header page */
        rebuild(&f);
        CHECK_INT(load(&f), ==, -EBADMSG);
        map_fixture(&f);
        f.ext[3].offset = 5 * PS; /* the image header page */
        rebuild(&f);
        CHECK_INT(load(&f), ==, -EBADMSG);
        map_fixture(&f);
        f.ext[3].offset = 2001 * PS; /* a map page */
        rebuild(&f);
        CHECK_INT(load(&f), ==, -EBADMSG);
        map_fixture(&f);
        f.b.header_offset = 2000 * PS; /* a map page on the image header */
        CHECK_INT(load(&f), ==, -EBADMSG);
        free(f.dev.buf);
}

static void test_map_refuses_inconsistent_totals_and_chains(void)
{
        struct map_fixture f = {0};
        uint8_t *pg;

        map_fixture(&f);
        f.h.stream_len += PS; /* sum of lengths != stream pages */
        f.h.image_pages += 4096;
        f.h.raw_bytes = f.h.image_pages * PS;
        f.h.chunk_count = (f.h.image_pages + 63) / 64;
        CHECK_INT(load(&f), ==, -EBADMSG);

        map_fixture(&f);
        f.h.map_hash ^= 1;
        CHECK_INT(load(&f), ==, -EBADMSG);

        /* A loop: page 1 points back to page 0 (index check stops it). */
        map_fixture(&f);
        pg = f.dev.buf + 2001 * PS;
        dmo_put_le64(pg + 16, 2000 * PS);
        reseal_map(pg, PS);
        CHECK_INT(load(&f), ==, -EBADMSG);
        CHECK(f.dev.reads <= 3);

        /* A self loop whose index would match is still bounded by map_pages. */
        map_fixture(&f);
        pg = f.dev.buf + 2002 * PS;
        dmo_put_le64(pg + 16, 2002 * PS);
        reseal_map(pg, PS);
        CHECK_INT(load(&f), ==, -EBADMSG);
        CHECK(f.dev.reads <= 3);

        /* The last page claims a successor. */
        map_fixture(&f);
        pg = f.dev.buf + 2002 * PS;
        dmo_put_le64(pg + 16, 3000 * PS);
        reseal_map(pg, PS);
        CHECK_INT(load(&f), ==, -EBADMSG);

        /* A middle page ends the chain early. */
        map_fixture(&f);
        pg = f.dev.buf + 2000 * PS;
        dmo_put_le64(pg + 16, 0);
        reseal_map(pg, PS);
        CHECK_INT(load(&f), ==, -EBADMSG);

        /* Next pointer off the device or unaligned. */
        map_fixture(&f);
        pg = f.dev.buf + 2000 * PS;
        dmo_put_le64(pg + 16, f.dev.size);
        reseal_map(pg, PS);
        CHECK_INT(load(&f), ==, -EBADMSG);
        dmo_put_le64(pg + 16, 2001 * PS + 8);
        reseal_map(pg, PS);
        CHECK_INT(load(&f), ==, -EBADMSG);

        /* Count above the page's capacity, zero, or above the header's total. */
        map_fixture(&f);
        pg = f.dev.buf + 2000 * PS;
        dmo_put_le32(pg + 12, dmo_map_entries_per_page(PS) + 1);
        reseal_map(pg, PS);
        CHECK_INT(load(&f), ==, -EBADMSG);
        dmo_put_le32(pg + 12, 0);
        reseal_map(pg, PS);
        CHECK_INT(load(&f), ==, -EBADMSG);
        map_fixture(&f);
        pg = f.dev.buf + 2002 * PS; /* 92 entries here; 600 in all */
        dmo_put_le32(pg + 12, 200);
        reseal_map(pg, PS);
        CHECK_INT(load(&f), ==, -EBADMSG);

        /* Corrupt page without resealing. */
        map_fixture(&f);
        f.dev.buf[2001 * PS + 700] ^= 4;
        CHECK_INT(load(&f), ==, -EBADMSG);

        /* A read error is passed through, not reported as corruption. */
        map_fixture(&f);
        f.dev.size = 2001 * PS;
        f.b.device_size = 4096ull * PS;
        CHECK_INT(load(&f), ==, -EIO);
        free(f.dev.buf);
}

static void test_map_page_round_trip(void)
{
        uint8_t pg[PS];
        struct dmo_extent e[3] = {{PS, 1}, {10 * PS, 7}, {100 * PS, 1u << 20}}, d[300];
        uint32_t n;
        uint64_t next;
        REQUIRE(dmo_map_page_encode(pg, PS, 4, 77 * PS, e, 3) == 0);
        CHECK_INT(dmo_map_page_decode(pg, PS, 4, d, 300, &n, &next), ==, 0);
        CHECK_INT(n, ==, 3);
        CHECK_INT(next, ==, 77 * PS);
        CHECK_INT(d[2].pages, ==, 1u << 20);
        CHECK_INT(dmo_map_page_decode(pg, PS, 5, d, 300, &n, &next), ==, -EBADMSG);
        CHECK_INT(dmo_map_page_decode(pg, PS, 4, d, 2, &n, &next), ==, -EBADMSG);
        CHECK_INT(dmo_map_page_encode(pg, PS, 0, 0, e, 0), ==, -EINVAL);
        CHECK_INT(dmo_map_entries_per_page(PS), ==, 254);
        CHECK_INT(dmo_map_pages_for(254, PS), ==, 1);
        CHECK_INT(dmo_map_pages_for(255, PS), ==, 2);
}

/* ---- chunk headers ---- */

static void test_chunk_header_round_trip_and_bit_flips(void)
{
        struct dmo_chunk c = {.seq = 41,
                              .npages = 64,
                              .zero_map = 0x8000000000000001ull,
                              .flags = DMO_CHUNK_COMPRESSED,
                              .payload_len = 5000,
                              .payload_hash = 0x1111,
                              .pages_hash = 0x2222},
                         d;
        uint8_t h[DMO_CHUNK_HEADER_LEN], bad[DMO_CHUNK_HEADER_LEN];
        dmo_chunk_header_encode(h, &c);
        REQUIRE(dmo_chunk_header_decode(h, PS, 64, DMO_COMPRESS_LZ4, false, &d) == 0);
        CHECK_INT(d.seq, ==, 41);
        CHECK_INT(d.npages, ==, 64);
        CHECK(d.zero_map == c.zero_map);
        CHECK_INT(d.flags, ==, DMO_CHUNK_COMPRESSED);
        CHECK_INT(d.payload_len, ==, 5000);
        CHECK(d.payload_hash == 0x1111 && d.pages_hash == 0x2222);

        int accepted = 0;
        for (unsigned bit = 0; bit < DMO_CHUNK_HEADER_LEN * 8; bit++) {
                memcpy(bad, h, sizeof(h));
                bad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
                if (dmo_chunk_header_decode(bad, PS, 64, DMO_COMPRESS_LZ4, false, &d) == 0)
                        accepted++;
        }
        CHECK_INT(accepted, ==, 0);
}

static void test_chunk_header_refuses_inconsistent_fields(void)
{
        struct dmo_chunk c = {.npages = 4, .payload_len = 4 * PS}, d;
        uint8_t h[DMO_CHUNK_HEADER_LEN];

        dmo_chunk_header_encode(h, &c);
        CHECK_INT(dmo_chunk_header_decode(h, PS, 4, DMO_COMPRESS_NONE, false, &d), ==, 0);
        CHECK_INT(dmo_chunk_header_decode(h, PS, 3, DMO_COMPRESS_NONE, false, &d), ==, -EBADMSG);

        c.zero_map = 0x10; /* bit beyond npages */
        dmo_chunk_header_encode(h, &c);
        CHECK_INT(dmo_chunk_header_decode(h, PS, 4, DMO_COMPRESS_NONE, false, &d), ==, -EBADMSG);

        c.zero_map = 0x3; /* two zero pages: raw payload must be 2 pages */
        dmo_chunk_header_encode(h, &c);
        CHECK_INT(dmo_chunk_header_decode(h, PS, 4, DMO_COMPRESS_NONE, false, &d), ==, -EBADMSG);
        c.payload_len = 2 * PS;
        dmo_chunk_header_encode(h, &c);
        CHECK_INT(dmo_chunk_header_decode(h, PS, 4, DMO_COMPRESS_NONE, false, &d), ==, 0);

        c.flags = DMO_CHUNK_COMPRESSED; /* compressed chunk in an uncompressed image */
        c.payload_len = 100;
        dmo_chunk_header_encode(h, &c);
        CHECK_INT(dmo_chunk_header_decode(h, PS, 4, DMO_COMPRESS_NONE, false, &d), ==, -EBADMSG);
        CHECK_INT(dmo_chunk_header_decode(h, PS, 4, DMO_COMPRESS_ZSTD, false, &d), ==, 0);
        c.payload_len = 2 * PS; /* compression that does not pay is stored raw */
        dmo_chunk_header_encode(h, &c);
        CHECK_INT(dmo_chunk_header_decode(h, PS, 4, DMO_COMPRESS_ZSTD, false, &d), ==, -EBADMSG);
        c.zero_map = 0xf; /* all zero: nothing to compress */
        c.payload_len = 1;
        dmo_chunk_header_encode(h, &c);
        CHECK_INT(dmo_chunk_header_decode(h, PS, 4, DMO_COMPRESS_ZSTD, false, &d), ==, -EBADMSG);

        c = (struct dmo_chunk){.npages = 1, .payload_len = PS, .flags = 0x2};
        dmo_chunk_header_encode(h, &c);
        CHECK_INT(dmo_chunk_header_decode(h, PS, 4, DMO_COMPRESS_ZSTD, false, &d), ==, -EBADMSG);

        c = (struct dmo_chunk){.npages = 0, .payload_len = 0};
        dmo_chunk_header_encode(h, &c);
        CHECK_INT(dmo_chunk_header_decode(h, PS, 4, DMO_COMPRESS_ZSTD, false, &d), ==, -EBADMSG);

        /* A corrupt length is caught by the header's own checksum. */
        c = (struct dmo_chunk){.npages = 1, .payload_len = PS};
        dmo_chunk_header_encode(h, &c);
        dmo_put_le32(h + 28, 0x7fffffff);
        CHECK_INT(dmo_chunk_header_decode(h, PS, 4, DMO_COMPRESS_ZSTD, false, &d), ==, -EBADMSG);
        reseal_chunk(h);
        CHECK_INT(dmo_chunk_header_decode(h, PS, 4, DMO_COMPRESS_ZSTD, false, &d), ==, -EBADMSG);
}

static void test_fault_ids_are_stable(void)
{
        CHECK(strcmp(dmo_image_fault_id(DMO_FAULT_EXTENT_MAP), "extent-map") == 0);
        CHECK(strcmp(dmo_image_fault_id(DMO_FAULT_COUNT), "unknown") == 0);
        for (int i = 0; i < DMO_FAULT_COUNT; i++)
                CHECK(dmo_image_fault_id((enum dmo_image_fault)i) != NULL);
}

DMO_TEST_MAIN(
    T(test_header_round_trip_keeps_every_field), T(test_header_negative_level_round_trips),
    T(test_header_every_bit_flip_is_refused), T(test_header_field_bounds_are_enforced),
    T(test_header_identity_without_nul_is_refused), T(test_header_newer_minor_is_accepted),
    T(test_header_newer_major_is_refused_as_unsupported),
    T(test_header_encryption_section_round_trips), T(test_header_half_encrypted_is_refused),
    T(test_header_tpm_section_round_trips_in_a_longer_header),
    T(test_header_tpm_section_fields_are_checked), T(test_header_mac_covers_the_tpm_section),
    T(test_header_bad_magic_or_length_is_corruption),
    T(test_sig_install_makes_blkid_see_swsuspend_and_remove_gives_swap_back),
    T(test_sig_works_with_large_page_sizes),
    T(test_sig_parse_tells_plain_swap_foreign_and_not_swap_apart),
    T(test_sig_corrupt_block_is_badmsg_and_still_removable), T(test_sig_newer_major_is_unsupported),
    T(test_sig_install_twice_keeps_original_magic),
    T(test_sig_install_refuses_bad_arguments_and_full_badpage_list),
    T(test_map_spanning_three_pages_loads), T(test_map_refuses_bad_extents),
    T(test_map_refuses_inconsistent_totals_and_chains), T(test_map_page_round_trip),
    T(test_chunk_header_round_trip_and_bit_flips), T(test_chunk_header_refuses_inconsistent_fields),
    T(test_fault_ids_are_stable))
