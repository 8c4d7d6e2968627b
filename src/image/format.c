/* format: encoders and hardened decoders for the on-disk layouts. The
 * offsets below are the spec (doc/image-format.md); keep the two in step. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "image/format.h"
#include "kernel/swap_area.h"
#include "util/le.h"
#include "util/strtable.h"

static const char sig_magic[8] = {'D', 'O', 'R', 'M', 'O', 'U', 'S', 'E'};
static const char header_magic[8] = {'D', 'M', 'O', 'I', 'M', 'A', 'G', 'E'};
static const char map_magic[8] = {'D', 'M', 'O', 'E', 'X', 'T', 'N', 'T'};
static const char chunk_magic[4] = {'D', 'M', 'O', 'C'};

/* Signature block, at page_size - DMO_SIG_BLOCK_FROM_END. */
enum {
        S_MAGIC = 0,
        S_MAJOR = 8,
        S_MINOR = 10,
        S_PAGE_SIZE = 12,
        S_HEADER_OFFSET = 16,
        S_HEADER_LEN = 24,
        S_HEADER_HASH = 32,
        S_ORIG_MAGIC = 40,
        S_CSUM = 56,
};

/* Image header. */
enum {
        H_MAGIC = 0,
        H_MAJOR = 8,
        H_MINOR = 10,
        H_LEN = 12,
        H_CSUM = 16,
        H_FLAGS = 24,
        H_PAGE_SIZE = 28,
        H_IMAGE_PAGES = 32,
        H_COMPRESS = 40,
        H_LEVEL = 44,
        H_CHUNK_PAGES = 48,
        H_CHUNK_COUNT = 56,
        H_STREAM_LEN = 64,
        H_MAP_OFFSET = 72,
        H_MAP_PAGES = 80,
        H_EXTENT_COUNT = 88,
        H_MAP_HASH = 96,
        H_START_NS = 104,
        H_END_NS = 112,
        H_WRITE_NS = 120,
        H_RAW_BYTES = 128,
        H_STORED_BYTES = 136,
        H_ZERO_PAGES = 144,
        H_SYSNAME = 160,
        H_RELEASE = 225,
        H_VERSION = 290,
        H_MACHINE = 355,
        H_CRYPTO = 512,
        C_CIPHER = 0,
        C_KDF = 4,
        C_OPSLIMIT = 8,
        C_MEMLIMIT = 16,
        C_SALT = 24,
        C_WRAP_NONCE = 40,
        C_IMAGE_NONCE = 64,
        C_WRAPPED_LEN = 80,
        C_WRAPPED = 88,
        C_MAC = 168,
        H_FIXED_PREFIX = 24, /* magic, version, length, checksum: stable across majors */
        T_PCRS = 0,          /* the TPM section, at DMO_IMAGE_TPM_OFFSET */
        T_FLAGS = 4,
        T_NV_INDEX = 8,
        T_COUNTER = 16,
        T_BLOB_LEN = 24,
        T_BLOB = 32,
};

/* The header's length as written: the TPM section makes it longer. */
static uint32_t header_len_for(const struct dmo_image_header *h)
{
        return h->flags & DMO_IMAGE_F_TPM ? DMO_IMAGE_TPM_OFFSET + DMO_IMAGE_TPM_LEN
                                          : DMO_IMAGE_HEADER_LEN;
}

#define IDENT_LEN 65

/* Extent-map page. */
enum {
        M_MAGIC = 0,
        M_INDEX = 8,
        M_COUNT = 12,
        M_NEXT = 16,
        M_CSUM = 24,
};

/* Chunk header. */
enum {
        K_MAGIC = 0,
        K_NPAGES = 4,
        K_SEQ = 8,
        K_ZERO_MAP = 16,
        K_FLAGS = 24,
        K_PAYLOAD_LEN = 28,
        K_PAYLOAD_HASH = 32,
        K_PAGES_HASH = 40,
        K_CSUM = 48,
};

static const char *const fault_ids[DMO_FAULT_COUNT] = {
    [DMO_FAULT_NONE] = "none",
    [DMO_FAULT_NOT_SWAP] = "not-swap",
    [DMO_FAULT_FOREIGN] = "foreign-signature",
    [DMO_FAULT_SIGNATURE] = "signature",
    [DMO_FAULT_HEADER_IO] = "header-io",
    [DMO_FAULT_HEADER_MAGIC] = "header-magic",
    [DMO_FAULT_HEADER_CHECKSUM] = "header-checksum",
    [DMO_FAULT_HEADER_FIELDS] = "header-fields",
    [DMO_FAULT_VERSION] = "version",
    [DMO_FAULT_ENCRYPTED] = "encrypted",
    [DMO_FAULT_EXTENT_MAP] = "extent-map",
    [DMO_FAULT_EXTENT_IO] = "extent-io",
    [DMO_FAULT_SWAP_IO] = "swap-header-io",
    [DMO_FAULT_TRUNCATED] = "truncated",
};

DMO_STRING_TABLE_TO_STRING(, dmo_image_fault_id, enum dmo_image_fault, fault_ids, "unknown")

int dmo_image_check_page_size(uint32_t page_size)
{
        if (page_size < DMO_IMAGE_MIN_PAGE_SIZE || page_size > DMO_IMAGE_MAX_PAGE_SIZE)
                return -EINVAL;
        if (page_size & (page_size - 1))
                return -EINVAL;
        return 0;
}

/* xxh3-64 of buf[0..len) read as if the 8 bytes at skip were zero, so a
 * checksum can live inside the bytes it covers. */
static uint64_t hash_skipping(const uint8_t *buf, size_t len, size_t skip)
{
        static const uint8_t zeros[8];
        XXH3_state_t st;

        XXH3_64bits_reset(&st);
        XXH3_64bits_update(&st, buf, skip);
        XXH3_64bits_update(&st, zeros, sizeof(zeros));
        XXH3_64bits_update(&st, buf + skip + 8, len - skip - 8);
        return XXH3_64bits_digest(&st);
}

/* ---- signature block ---- */

/* What mkswap's header says (kernel/swap_area owns that layout): a usable
 * v1 swap area, or one that carries a userland hibernation signature
 * ("ULSUSPEND", suspend-utils' and ours: util-linux swapon rewrites it to a
 * swap signature, the kernel's own resume ignores it). */
static enum dmo_swap_magic swap_kind(const uint8_t *page, uint32_t page_size,
                                     struct dmo_swap_info *info)
{
        int r = dmo_swap_header_parse_page(page, page_size, info);
        if (r < 0)
                return DMO_SWAP_MAGIC_NONE;
        return info->magic;
}

static uint8_t *sig_block(uint8_t *page, uint32_t page_size)
{
        return page + page_size - DMO_SIG_BLOCK_FROM_END;
}

static const uint8_t *sig_block_c(const uint8_t *page, uint32_t page_size)
{
        return page + page_size - DMO_SIG_BLOCK_FROM_END;
}

static int sig_check_fields(const struct dmo_sig *s, uint32_t page_size)
{
        if (s->page_size != page_size)
                return -EINVAL;
        if (s->header_len != page_size)
                return -EINVAL;
        if (s->header_offset % page_size != 0)
                return -EINVAL;
        return 0;
}

int dmo_sig_parse(const uint8_t *page, uint32_t page_size, struct dmo_sig *out)
{
        if (dmo_image_check_page_size(page_size) < 0)
                return -EINVAL;

        struct dmo_swap_info info;
        enum dmo_swap_magic kind = swap_kind(page, page_size, &info);
        if (kind == DMO_SWAP_MAGIC_SWAPSPACE2)
                return -ENOENT;
        if (kind != DMO_SWAP_MAGIC_ULSUSPEND)
                return -ENODEV;

        const uint8_t *b = sig_block_c(page, page_size);
        if (memcmp(b + S_MAGIC, sig_magic, sizeof(sig_magic)) != 0)
                return -ENODEV; /* suspend-utils' own image, not ours */
        if (XXH3_64bits(b, S_CSUM) != dmo_get_le64(b + S_CSUM))
                return -EBADMSG;

        struct dmo_sig s = {
            .major = dmo_get_le16(b + S_MAJOR),
            .minor = dmo_get_le16(b + S_MINOR),
            .page_size = dmo_get_le32(b + S_PAGE_SIZE),
            .header_offset = dmo_get_le64(b + S_HEADER_OFFSET),
            .header_len = dmo_get_le32(b + S_HEADER_LEN),
            .header_hash = dmo_get_le64(b + S_HEADER_HASH),
        };
        memcpy(s.orig_magic, b + S_ORIG_MAGIC, DMO_SWAP_MAGIC_LEN);

        if (s.major == 0)
                return -EBADMSG;
        if (s.major > DMO_IMAGE_MAJOR)
                return -EPROTONOSUPPORT;
        if (sig_check_fields(&s, page_size) < 0)
                return -EBADMSG;
        if (memcmp(s.orig_magic, dmo_swap_magic_bytes(DMO_SWAP_MAGIC_SWAPSPACE2),
                   DMO_SWAP_MAGIC_LEN) != 0)
                return -EBADMSG;
        *out = s;
        return 0;
}

int dmo_sig_install(uint8_t *page, uint32_t page_size, const struct dmo_sig *sig)
{
        if (dmo_image_check_page_size(page_size) < 0 || sig_check_fields(sig, page_size) < 0)
                return -EINVAL;

        const char *orig = dmo_swap_magic_bytes(DMO_SWAP_MAGIC_SWAPSPACE2);
        struct dmo_swap_info info;
        enum dmo_swap_magic kind = swap_kind(page, page_size, &info);
        if (kind == DMO_SWAP_MAGIC_SWAPSPACE2) {
                /* The kernel reads mkswap's bad-page list: it must end
                 * before our block or we would corrupt it. */
                if (dmo_swap_badpages_end(&info) > page_size - DMO_SIG_BLOCK_FROM_END)
                        return -ENOSPC;
        } else if (kind != DMO_SWAP_MAGIC_ULSUSPEND ||
                   memcmp(sig_block(page, page_size), sig_magic, sizeof(sig_magic)) != 0) {
                /* Not swap, or another tool's image. Ours already (a retried
                 * hibernation) goes on: the magic saved is the one there
                 * before the first install, never "ULSUSPEND". */
                return -ENODEV;
        }

        uint8_t *b = sig_block(page, page_size);
        memset(b, 0, DMO_SIG_BLOCK_SIZE);
        memcpy(b + S_MAGIC, sig_magic, sizeof(sig_magic));
        dmo_put_le16(b + S_MAJOR, DMO_IMAGE_MAJOR);
        dmo_put_le16(b + S_MINOR, DMO_IMAGE_MINOR);
        dmo_put_le32(b + S_PAGE_SIZE, sig->page_size);
        dmo_put_le64(b + S_HEADER_OFFSET, sig->header_offset);
        dmo_put_le32(b + S_HEADER_LEN, sig->header_len);
        dmo_put_le64(b + S_HEADER_HASH, sig->header_hash);
        memcpy(b + S_ORIG_MAGIC, orig, DMO_SWAP_MAGIC_LEN);
        dmo_put_le64(b + S_CSUM, XXH3_64bits(b, S_CSUM));
        dmo_swap_set_magic(page, page_size, dmo_swap_magic_bytes(DMO_SWAP_MAGIC_ULSUSPEND));
        return 0;
}

int dmo_sig_remove(uint8_t *page, uint32_t page_size, int *changed)
{
        int dummy;
        if (!changed)
                changed = &dummy;
        *changed = 0;
        if (dmo_image_check_page_size(page_size) < 0)
                return -EINVAL;

        uint8_t *b = sig_block(page, page_size);
        bool ours = memcmp(b, sig_magic, sizeof(sig_magic)) == 0;
        struct dmo_swap_info info;
        enum dmo_swap_magic kind = swap_kind(page, page_size, &info);

        if (kind == DMO_SWAP_MAGIC_SWAPSPACE2) {
                if (ours) {
                        /* A stale block under a restored magic (swapon rewrote
                         * it): tidy it so nobody mistakes it for live data. */
                        memset(b, 0, DMO_SIG_BLOCK_SIZE);
                        *changed = 1;
                }
                return 0;
        }
        if (kind != DMO_SWAP_MAGIC_ULSUSPEND || !ours)
                return -ENODEV;

        /* Restore what was saved when the block is intact; a damaged block
         * still comes off, because SWAPSPACE2 is the only magic we install
         * over and a usable swap area matters more than the image. */
        struct dmo_sig s;
        const char *orig = dmo_swap_magic_bytes(DMO_SWAP_MAGIC_SWAPSPACE2);
        if (dmo_sig_parse(page, page_size, &s) == 0)
                orig = s.orig_magic;
        dmo_swap_set_magic(page, page_size, orig);
        memset(b, 0, DMO_SIG_BLOCK_SIZE);
        *changed = 1;
        return 0;
}

/* ---- image header ---- */

static bool ident_ok(const char *s)
{
        return memchr(s, '\0', IDENT_LEN) != NULL;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
        return a / b + (a % b != 0);
}

static bool all_zero(const void *p, size_t len)
{
        const uint8_t *b = p;
        for (size_t i = 0; i < len; i++)
                if (b[i])
                        return false;
        return true;
}

/* Encrypted: a known cipher and a well-formed envelope. Plain: the whole
 * section zero, so that no half-encrypted image can pass for a plain one. */
static int crypto_check(const struct dmo_image_header *h)
{
        const struct dmo_image_crypto *c = &h->crypto;
        const struct dmo_crypto_envelope *e = &c->env;
        if (!(h->flags & DMO_IMAGE_F_ENCRYPTED)) {
                bool zero =
                    c->cipher == DMO_CHUNK_CIPHER_NONE && e->mode == DMO_ENCRYPT_NONE &&
                    !e->opslimit && !e->memlimit && !e->wrapped_len &&
                    all_zero(e->salt, sizeof(e->salt)) && all_zero(e->nonce, sizeof(e->nonce)) &&
                    all_zero(e->image_nonce, sizeof(e->image_nonce)) &&
                    all_zero(e->wrapped, sizeof(e->wrapped)) && all_zero(c->mac, sizeof(c->mac));
                return zero ? 0 : -EINVAL;
        }
        /* Known ciphers only; whether this CPU runs it is the resume's
         * question, not the header's. */
        if (c->cipher != DMO_CHUNK_CIPHER_XCHACHA20POLY1305 &&
            c->cipher != DMO_CHUNK_CIPHER_AES256GCM)
                return -EINVAL;
        if (dmo_crypto_envelope_check(e) < 0)
                return -EINVAL;
        /* Bytes past the wrapped key are zero: one encoding per image. */
        return all_zero(e->wrapped + e->wrapped_len, sizeof(e->wrapped) - e->wrapped_len) ? 0
                                                                                          : -EINVAL;
}

/* TPM: a PCR list, known flags, a counter index in the NV range (or none),
 * a blob that fits and nothing after it. Without: all zero. */
static int tpm_check(const struct dmo_image_header *h)
{
        const struct dmo_image_tpm *t = &h->tpm;
        if (!(h->flags & DMO_IMAGE_F_TPM)) {
                bool zero = !t->pcrs && !t->flags && !t->nv_index && !t->counter && !t->blob_len &&
                            all_zero(t->blob, sizeof(t->blob));
                return zero ? 0 : -EINVAL;
        }
        if (!(h->flags & DMO_IMAGE_F_ENCRYPTED) || t->pcrs >> 24 || t->flags & ~DMO_IMAGE_TPM_PIN ||
            (t->nv_index && t->nv_index >> 24 != 0x01) || (!t->nv_index && t->counter) ||
            t->blob_len == 0 || t->blob_len > DMO_IMAGE_TPM_BLOB_MAX)
                return -EINVAL;
        return all_zero(t->blob + t->blob_len, sizeof(t->blob) - t->blob_len) ? 0 : -EINVAL;
}

static void tpm_encode(const struct dmo_image_tpm *t, uint8_t *out)
{
        uint32_t bl = t->blob_len > DMO_IMAGE_TPM_BLOB_MAX ? DMO_IMAGE_TPM_BLOB_MAX : t->blob_len;
        memset(out, 0, DMO_IMAGE_TPM_LEN);
        dmo_put_le32(out + T_PCRS, t->pcrs);
        dmo_put_le32(out + T_FLAGS, t->flags);
        dmo_put_le32(out + T_NV_INDEX, t->nv_index);
        dmo_put_le64(out + T_COUNTER, t->counter);
        dmo_put_le32(out + T_BLOB_LEN, t->blob_len);
        memcpy(out + T_BLOB, t->blob, bl);
}

static void tpm_decode(const uint8_t *in, struct dmo_image_tpm *t)
{
        t->pcrs = dmo_get_le32(in + T_PCRS);
        t->flags = dmo_get_le32(in + T_FLAGS);
        t->nv_index = dmo_get_le32(in + T_NV_INDEX);
        t->counter = dmo_get_le64(in + T_COUNTER);
        t->blob_len = dmo_get_le32(in + T_BLOB_LEN);
        memcpy(t->blob, in + T_BLOB, DMO_IMAGE_TPM_BLOB_MAX);
}

void dmo_image_crypto_section(const struct dmo_image_crypto *c, uint8_t out[DMO_IMAGE_CRYPTO_LEN])
{
        const struct dmo_crypto_envelope *e = &c->env;
        uint32_t wl =
            e->wrapped_len > DMO_CRYPTO_WRAPPED_MAX ? DMO_CRYPTO_WRAPPED_MAX : e->wrapped_len;
        memset(out, 0, DMO_IMAGE_CRYPTO_LEN);
        dmo_put_le32(out + C_CIPHER, c->cipher);
        dmo_put_le32(out + C_KDF, e->mode);
        dmo_put_le64(out + C_OPSLIMIT, e->opslimit);
        dmo_put_le64(out + C_MEMLIMIT, e->memlimit);
        memcpy(out + C_SALT, e->salt, DMO_CRYPTO_SALT_LEN);
        memcpy(out + C_WRAP_NONCE, e->nonce, DMO_CRYPTO_NONCE_LEN);
        memcpy(out + C_IMAGE_NONCE, e->image_nonce, DMO_CRYPTO_IMAGE_NONCE_LEN);
        dmo_put_le32(out + C_WRAPPED_LEN, e->wrapped_len);
        memcpy(out + C_WRAPPED, e->wrapped, wl);
}

static void crypto_decode(const uint8_t *in, struct dmo_image_crypto *c)
{
        struct dmo_crypto_envelope *e = &c->env;
        memset(c, 0, sizeof(*c));
        c->cipher = dmo_get_le32(in + C_CIPHER);
        e->mode = dmo_get_le32(in + C_KDF);
        e->opslimit = dmo_get_le64(in + C_OPSLIMIT);
        e->memlimit = dmo_get_le64(in + C_MEMLIMIT);
        memcpy(e->salt, in + C_SALT, DMO_CRYPTO_SALT_LEN);
        memcpy(e->nonce, in + C_WRAP_NONCE, DMO_CRYPTO_NONCE_LEN);
        memcpy(e->image_nonce, in + C_IMAGE_NONCE, DMO_CRYPTO_IMAGE_NONCE_LEN);
        e->wrapped_len = dmo_get_le32(in + C_WRAPPED_LEN);
        memcpy(e->wrapped, in + C_WRAPPED, DMO_CRYPTO_WRAPPED_MAX);
        memcpy(c->mac, in + C_MAC, DMO_CRYPTO_MAC_LEN);
}

int dmo_image_header_check(const struct dmo_image_header *h)
{
        if (dmo_image_check_page_size(h->page_size) < 0)
                return -EINVAL;
        const uint64_t ps = h->page_size;
        if (h->image_pages == 0 || h->image_pages > DMO_IMAGE_MAX_PAGES)
                return -EINVAL;
        if (h->compress > DMO_COMPRESS_ZSTD)
                return -EINVAL;
        /* Exactly the levels the writer can produce: its own range, and what
         * the encoder of that algorithm accepts. */
        if (h->level < DMO_IMAGE_LEVEL_MIN || h->level > DMO_IMAGE_LEVEL_MAX ||
            dmo_compress_level_check((enum dmo_compress)h->compress, h->level) < 0)
                return -EINVAL;
        if (h->chunk_pages == 0 || h->chunk_pages > DMO_CHUNK_MAX_PAGES)
                return -EINVAL;
        if (h->chunk_count != div_up(h->image_pages, h->chunk_pages))
                return -EINVAL;
        /* Every chunk carries a header; payloads never exceed the raw pages. */
        /* ...and, encrypted, every payload its tag. */
        const uint64_t per_chunk =
            DMO_CHUNK_HEADER_LEN + (h->flags & DMO_IMAGE_F_ENCRYPTED ? DMO_CRYPTO_TAG_LEN : 0);
        const uint64_t min_stream = h->chunk_count * per_chunk;
        if (h->stream_len < min_stream || h->stream_len > min_stream + h->image_pages * ps)
                return -EINVAL;
        const uint64_t stream_pages = div_up(h->stream_len, ps);
        if (h->extent_count == 0 || h->extent_count > stream_pages)
                return -EINVAL;
        if (h->map_pages != dmo_map_pages_for(h->extent_count, h->page_size))
                return -EINVAL;
        if (h->map_offset % ps != 0)
                return -EINVAL;
        if (h->raw_bytes != h->image_pages * ps)
                return -EINVAL;
        if (h->zero_pages > h->image_pages)
                return -EINVAL;
        if (!ident_ok(h->identity.sysname) || !ident_ok(h->identity.release) ||
            !ident_ok(h->identity.version) || !ident_ok(h->identity.machine))
                return -EINVAL;
        if (crypto_check(h) < 0)
                return -EINVAL;
        return tpm_check(h);
}

static void put_ident(uint8_t *dst, const char *s)
{
        size_t n = strnlen(s, IDENT_LEN - 1);
        memcpy(dst, s, n);
}

static void get_ident(char *dst, const uint8_t *src)
{
        memcpy(dst, src, IDENT_LEN);
}

/* Every field but the checksum, in header_len_for(h) bytes. */
static void header_encode_fields(uint8_t *page, const struct dmo_image_header *h)
{
        memset(page, 0, header_len_for(h));
        memcpy(page + H_MAGIC, header_magic, sizeof(header_magic));
        dmo_put_le16(page + H_MAJOR, h->major);
        dmo_put_le16(page + H_MINOR, h->minor);
        dmo_put_le32(page + H_LEN, header_len_for(h));
        dmo_put_le32(page + H_FLAGS, h->flags);
        dmo_put_le32(page + H_PAGE_SIZE, h->page_size);
        dmo_put_le64(page + H_IMAGE_PAGES, h->image_pages);
        dmo_put_le32(page + H_COMPRESS, h->compress);
        dmo_put_le32(page + H_LEVEL, (uint32_t)h->level);
        dmo_put_le32(page + H_CHUNK_PAGES, h->chunk_pages);
        dmo_put_le64(page + H_CHUNK_COUNT, h->chunk_count);
        dmo_put_le64(page + H_STREAM_LEN, h->stream_len);
        dmo_put_le64(page + H_MAP_OFFSET, h->map_offset);
        dmo_put_le32(page + H_MAP_PAGES, h->map_pages);
        dmo_put_le64(page + H_EXTENT_COUNT, h->extent_count);
        dmo_put_le64(page + H_MAP_HASH, h->map_hash);
        dmo_put_le64(page + H_START_NS, h->start_ns);
        dmo_put_le64(page + H_END_NS, h->end_ns);
        dmo_put_le64(page + H_WRITE_NS, h->write_ns);
        dmo_put_le64(page + H_RAW_BYTES, h->raw_bytes);
        dmo_put_le64(page + H_STORED_BYTES, h->stored_bytes);
        dmo_put_le64(page + H_ZERO_PAGES, h->zero_pages);
        put_ident(page + H_SYSNAME, h->identity.sysname);
        put_ident(page + H_RELEASE, h->identity.release);
        put_ident(page + H_VERSION, h->identity.version);
        put_ident(page + H_MACHINE, h->identity.machine);

        dmo_image_crypto_section(&h->crypto, page + H_CRYPTO);
        memcpy(page + H_CRYPTO + C_MAC, h->crypto.mac, DMO_CRYPTO_MAC_LEN);
        if (h->flags & DMO_IMAGE_F_TPM)
                tpm_encode(&h->tpm, page + DMO_IMAGE_TPM_OFFSET);
}

int dmo_image_header_encode(uint8_t *page, uint32_t page_size, const struct dmo_image_header *h)
{
        if (dmo_image_header_check(h) < 0 || h->page_size != page_size)
                return -EINVAL;
        struct dmo_image_header v = *h;
        v.major = DMO_IMAGE_MAJOR;
        v.minor = DMO_IMAGE_MINOR;
        memset(page, 0, page_size);
        header_encode_fields(page, &v);
        dmo_put_le64(page + H_CSUM, hash_skipping(page, header_len_for(&v), H_CSUM));
        return 0;
}

static int header_fail(enum dmo_image_fault *fault, enum dmo_image_fault f, int err)
{
        if (fault)
                *fault = f;
        return err;
}

int dmo_image_header_decode(const uint8_t *page, uint32_t page_size, struct dmo_image_header *out,
                            enum dmo_image_fault *fault)
{
        if (fault)
                *fault = DMO_FAULT_NONE;
        if (dmo_image_check_page_size(page_size) < 0)
                return -EINVAL;
        if (memcmp(page + H_MAGIC, header_magic, sizeof(header_magic)) != 0)
                return header_fail(fault, DMO_FAULT_HEADER_MAGIC, -EBADMSG);

        /* Checksum before version: the fixed prefix is the same in every
         * major, so a bit flip in the version reads as corruption, not as
         * "made by a newer dormouse". */
        const uint32_t len = dmo_get_le32(page + H_LEN);
        if (len < H_FIXED_PREFIX || len > page_size)
                return header_fail(fault, DMO_FAULT_HEADER_CHECKSUM, -EBADMSG);
        if (hash_skipping(page, len, H_CSUM) != dmo_get_le64(page + H_CSUM))
                return header_fail(fault, DMO_FAULT_HEADER_CHECKSUM, -EBADMSG);

        struct dmo_image_header h = {
            .major = dmo_get_le16(page + H_MAJOR),
            .minor = dmo_get_le16(page + H_MINOR),
            .header_len = len,
        };
        if (h.major == 0)
                return header_fail(fault, DMO_FAULT_VERSION, -EBADMSG);
        if (h.major > DMO_IMAGE_MAJOR)
                return header_fail(fault, DMO_FAULT_VERSION, -EPROTONOSUPPORT);
        if (len < DMO_IMAGE_HEADER_LEN)
                return header_fail(fault, DMO_FAULT_HEADER_FIELDS, -EBADMSG);

        h.flags = dmo_get_le32(page + H_FLAGS);
        h.page_size = dmo_get_le32(page + H_PAGE_SIZE);
        h.image_pages = dmo_get_le64(page + H_IMAGE_PAGES);
        h.compress = dmo_get_le32(page + H_COMPRESS);
        h.level = (int32_t)dmo_get_le32(page + H_LEVEL);
        h.chunk_pages = dmo_get_le32(page + H_CHUNK_PAGES);
        h.chunk_count = dmo_get_le64(page + H_CHUNK_COUNT);
        h.stream_len = dmo_get_le64(page + H_STREAM_LEN);
        h.map_offset = dmo_get_le64(page + H_MAP_OFFSET);
        h.map_pages = dmo_get_le32(page + H_MAP_PAGES);
        h.extent_count = dmo_get_le64(page + H_EXTENT_COUNT);
        h.map_hash = dmo_get_le64(page + H_MAP_HASH);
        h.start_ns = dmo_get_le64(page + H_START_NS);
        h.end_ns = dmo_get_le64(page + H_END_NS);
        h.write_ns = dmo_get_le64(page + H_WRITE_NS);
        h.raw_bytes = dmo_get_le64(page + H_RAW_BYTES);
        h.stored_bytes = dmo_get_le64(page + H_STORED_BYTES);
        h.zero_pages = dmo_get_le64(page + H_ZERO_PAGES);
        get_ident(h.identity.sysname, page + H_SYSNAME);
        get_ident(h.identity.release, page + H_RELEASE);
        get_ident(h.identity.version, page + H_VERSION);
        get_ident(h.identity.machine, page + H_MACHINE);
        h.identity.page_size = h.page_size;

        crypto_decode(page + H_CRYPTO, &h.crypto);
        /* The TPM section is read only where the flag says it is there: a
         * newer minor may put other fields past 1024 bytes. */
        if (h.flags & DMO_IMAGE_F_TPM) {
                if (len < DMO_IMAGE_TPM_OFFSET + DMO_IMAGE_TPM_LEN)
                        return header_fail(fault, DMO_FAULT_HEADER_FIELDS, -EBADMSG);
                tpm_decode(page + DMO_IMAGE_TPM_OFFSET, &h.tpm);
        }

        /* A feature this reader lacks is refused before its fields are
         * judged: they may mean something this version does not know. */
        if (h.flags & DMO_IMAGE_F_INCOMPAT_MASK & ~DMO_IMAGE_F_INCOMPAT_KNOWN)
                return header_fail(fault, DMO_FAULT_ENCRYPTED, -EPROTONOSUPPORT);
        if (h.page_size != page_size || dmo_image_header_check(&h) < 0)
                return header_fail(fault, DMO_FAULT_HEADER_FIELDS, -EBADMSG);
        *out = h;
        return 0;
}

/* ---- header MAC (encrypted images) ---- */

static int header_mac_feed(struct dmo_crypto_key *key, const struct dmo_image_header *h,
                           const struct dmo_extent *ext, uint64_t n_ext)
{
        uint8_t page[DMO_IMAGE_TPM_OFFSET + DMO_IMAGE_TPM_LEN];
        struct dmo_image_header canon = *h;
        if (!(h->flags & DMO_IMAGE_F_ENCRYPTED) || n_ext != h->extent_count)
                return -EINVAL;
        memset(canon.crypto.mac, 0, sizeof(canon.crypto.mac));
        if (!canon.major) { /* the writer's header: the version it writes */
                canon.major = DMO_IMAGE_MAJOR;
                canon.minor = DMO_IMAGE_MINOR;
        }
        /* Encoded into its first 1024 bytes, and the TPM section when
         * there is one: the checksum is read as zero, the rest of a page is
         * zero in this version anyway. */
        if (dmo_image_header_check(&canon) < 0)
                return -EINVAL;
        header_encode_fields(page, &canon);
        dmo_crypto_mac_begin(key);
        dmo_crypto_mac_update(key, page, header_len_for(&canon));
        for (uint64_t i = 0; i < n_ext; i++) {
                uint8_t e[16];
                dmo_put_le64(e, ext[i].offset);
                dmo_put_le64(e + 8, ext[i].pages);
                dmo_crypto_mac_update(key, e, sizeof(e));
        }
        return 0;
}

int dmo_image_header_mac(struct dmo_crypto_key *key, struct dmo_image_header *h,
                         const struct dmo_extent *ext, uint64_t n_ext)
{
        int r = header_mac_feed(key, h, ext, n_ext);
        if (r < 0)
                return r;
        dmo_crypto_mac_end(key, h->crypto.mac);
        return 0;
}

int dmo_image_header_mac_verify(struct dmo_crypto_key *key, const struct dmo_image_header *h,
                                const struct dmo_extent *ext, uint64_t n_ext)
{
        int r = header_mac_feed(key, h, ext, n_ext);
        if (r < 0)
                return -EBADMSG;
        return dmo_crypto_mac_verify(key, h->crypto.mac);
}

/* ---- extent map ---- */

uint32_t dmo_map_entries_per_page(uint32_t page_size)
{
        return (page_size - DMO_MAP_PAGE_HEADER_LEN) / DMO_MAP_ENTRY_LEN;
}

uint64_t dmo_map_pages_for(uint64_t extents, uint32_t page_size)
{
        return div_up(extents, dmo_map_entries_per_page(page_size));
}

int dmo_map_page_encode(uint8_t *page, uint32_t page_size, uint32_t index, uint64_t next,
                        const struct dmo_extent *entries, uint32_t count)
{
        if (dmo_image_check_page_size(page_size) < 0)
                return -EINVAL;
        if (count == 0 || count > dmo_map_entries_per_page(page_size))
                return -EINVAL;

        memset(page, 0, page_size);
        memcpy(page + M_MAGIC, map_magic, sizeof(map_magic));
        dmo_put_le32(page + M_INDEX, index);
        dmo_put_le32(page + M_COUNT, count);
        dmo_put_le64(page + M_NEXT, next);
        for (uint32_t i = 0; i < count; i++) {
                uint8_t *e = page + DMO_MAP_PAGE_HEADER_LEN + (size_t)i * DMO_MAP_ENTRY_LEN;
                dmo_put_le64(e, entries[i].offset);
                dmo_put_le64(e + 8, entries[i].pages);
        }
        dmo_put_le64(page + M_CSUM, hash_skipping(page, page_size, M_CSUM));
        return 0;
}

int dmo_map_page_decode(const uint8_t *page, uint32_t page_size, uint32_t index,
                        struct dmo_extent *out, uint32_t max, uint32_t *count, uint64_t *next)
{
        if (dmo_image_check_page_size(page_size) < 0)
                return -EINVAL;
        if (memcmp(page + M_MAGIC, map_magic, sizeof(map_magic)) != 0)
                return -EBADMSG;
        if (hash_skipping(page, page_size, M_CSUM) != dmo_get_le64(page + M_CSUM))
                return -EBADMSG;
        if (dmo_get_le32(page + M_INDEX) != index)
                return -EBADMSG;
        const uint32_t n = dmo_get_le32(page + M_COUNT);
        if (n == 0 || n > dmo_map_entries_per_page(page_size) || n > max)
                return -EBADMSG;
        for (uint32_t i = 0; i < n; i++) {
                const uint8_t *e = page + DMO_MAP_PAGE_HEADER_LEN + (size_t)i * DMO_MAP_ENTRY_LEN;
                out[i].offset = dmo_get_le64(e);
                out[i].pages = dmo_get_le64(e + 8);
        }
        *count = n;
        *next = dmo_get_le64(page + M_NEXT);
        return 0;
}

uint64_t dmo_map_scratch_len(const struct dmo_image_header *h)
{
        return h->extent_count + h->map_pages + 2;
}

static int extent_cmp(const void *a, const void *b)
{
        const struct dmo_extent *x = a, *y = b;
        return (x->offset > y->offset) - (x->offset < y->offset);
}

/* Inside [0, device_size) and page aligned; overflow-safe. */
static bool range_ok(const struct dmo_extent *e, uint64_t ps, uint64_t device_size)
{
        if (e->offset % ps != 0 || e->pages == 0)
                return false;
        if (e->pages > device_size / ps)
                return false;
        return e->offset <= device_size - e->pages * ps;
}

uint64_t dmo_image_header_hash(const uint8_t *page, uint32_t page_size)
{
        return XXH3_64bits(page, page_size);
}

void dmo_map_hash_begin(struct dmo_map_hasher *h)
{
        XXH3_64bits_reset(&h->state);
}

void dmo_map_hash_page(struct dmo_map_hasher *h, const uint8_t *page, uint32_t page_size)
{
        XXH3_64bits_update(&h->state, page, page_size);
}

uint64_t dmo_map_hash_end(const struct dmo_map_hasher *h)
{
        return XXH3_64bits_digest(&h->state);
}

int dmo_extent_map_load(const struct dmo_image_header *h, const struct dmo_map_bounds *b,
                        dmo_image_read_fn rd, void *rd_ctx, uint8_t *page_buf,
                        struct dmo_extent *ext, struct dmo_extent *scratch)
{
        if (dmo_image_header_check(h) < 0)
                return -EINVAL;
        const uint64_t ps = h->page_size;
        const struct dmo_extent swap_hdr = {b->swap_header_offset, 1};
        const struct dmo_extent img_hdr = {b->header_offset, 1};
        if (!range_ok(&swap_hdr, ps, b->device_size) || !range_ok(&img_hdr, ps, b->device_size))
                return -EBADMSG;

        struct dmo_map_hasher mh;
        dmo_map_hash_begin(&mh);
        uint64_t n = 0, off = h->map_offset;
        size_t m = 0;
        for (uint32_t i = 0; i < h->map_pages; i++) {
                const struct dmo_extent page = {off, 1};
                if (!range_ok(&page, ps, b->device_size))
                        return -EBADMSG;
                int r = rd(rd_ctx, page_buf, ps, off);
                if (r < 0)
                        return r;
                dmo_map_hash_page(&mh, page_buf, (uint32_t)ps);

                uint32_t count;
                uint64_t next;
                uint64_t room = h->extent_count - n;
                r = dmo_map_page_decode(page_buf, h->page_size, i, ext + n,
                                        room > UINT32_MAX ? UINT32_MAX : (uint32_t)room, &count,
                                        &next);
                if (r < 0)
                        return -EBADMSG;
                n += count;
                scratch[m++] = page;
                bool last = i + 1 == h->map_pages;
                if (last != (next == 0))
                        return -EBADMSG;
                off = next;
        }
        if (n != h->extent_count || dmo_map_hash_end(&mh) != h->map_hash)
                return -EBADMSG;

        uint64_t total = 0;
        for (uint64_t i = 0; i < n; i++) {
                if (!range_ok(&ext[i], ps, b->device_size))
                        return -EBADMSG;
                total += ext[i].pages; /* each <= device pages: cannot overflow */
                scratch[m++] = ext[i];
        }
        if (total != div_up(h->stream_len, ps))
                return -EBADMSG;

        /* Nothing on disk may be claimed twice: not two extents, not an
         * extent and a map page, not either of them and a header page. */
        scratch[m++] = swap_hdr;
        scratch[m++] = img_hdr;
        qsort(scratch, m, sizeof(*scratch), extent_cmp);
        for (size_t i = 0; i + 1 < m; i++)
                if (scratch[i].offset + scratch[i].pages * ps > scratch[i + 1].offset)
                        return -EBADMSG;
        return 0;
}

/* ---- chunk headers ---- */

void dmo_chunk_header_encode(uint8_t out[DMO_CHUNK_HEADER_LEN], const struct dmo_chunk *c)
{
        memcpy(out + K_MAGIC, chunk_magic, sizeof(chunk_magic));
        dmo_put_le32(out + K_NPAGES, c->npages);
        dmo_put_le64(out + K_SEQ, c->seq);
        dmo_put_le64(out + K_ZERO_MAP, c->zero_map);
        dmo_put_le32(out + K_FLAGS, c->flags);
        dmo_put_le32(out + K_PAYLOAD_LEN, c->payload_len);
        dmo_put_le64(out + K_PAYLOAD_HASH, c->payload_hash);
        dmo_put_le64(out + K_PAGES_HASH, c->pages_hash);
        dmo_put_le64(out + K_CSUM, XXH3_64bits(out, K_CSUM));
}

int dmo_chunk_header_decode(const uint8_t in[DMO_CHUNK_HEADER_LEN], uint32_t page_size,
                            uint32_t chunk_pages, uint32_t compress, bool encrypted,
                            struct dmo_chunk *c)
{
        if (memcmp(in + K_MAGIC, chunk_magic, sizeof(chunk_magic)) != 0)
                return -EBADMSG;
        if (XXH3_64bits(in, K_CSUM) != dmo_get_le64(in + K_CSUM))
                return -EBADMSG;

        const uint32_t npages = dmo_get_le32(in + K_NPAGES);
        const uint64_t zero_map = dmo_get_le64(in + K_ZERO_MAP);
        const uint32_t flags = dmo_get_le32(in + K_FLAGS);
        const uint32_t stored = dmo_get_le32(in + K_PAYLOAD_LEN);
        const uint64_t pages_hash = dmo_get_le64(in + K_PAGES_HASH);
        if (encrypted && (stored < DMO_CRYPTO_TAG_LEN || pages_hash != 0))
                return -EBADMSG;
        /* The payload's own bytes, without the tag of an encrypted image. */
        const uint32_t len = encrypted ? stored - DMO_CRYPTO_TAG_LEN : stored;
        if (npages == 0 || npages > chunk_pages || chunk_pages > DMO_CHUNK_MAX_PAGES)
                return -EBADMSG;
        if (npages < 64 && (zero_map >> npages) != 0)
                return -EBADMSG;
        if (flags & ~DMO_CHUNK_COMPRESSED)
                return -EBADMSG;

        const uint64_t nz_bytes =
            (uint64_t)(npages - (uint32_t)__builtin_popcountll(zero_map)) * page_size;
        if (flags & DMO_CHUNK_COMPRESSED) {
                /* The codec stores raw whenever compression does not pay. */
                if (compress == DMO_COMPRESS_NONE || len == 0 || len >= nz_bytes)
                        return -EBADMSG;
        } else if (len != nz_bytes) {
                return -EBADMSG;
        }

        c->npages = npages;
        c->seq = dmo_get_le64(in + K_SEQ);
        c->zero_map = zero_map;
        c->flags = flags;
        c->payload_len = stored;
        c->payload_hash = dmo_get_le64(in + K_PAYLOAD_HASH);
        c->pages_hash = pages_hash;
        return 0;
}
