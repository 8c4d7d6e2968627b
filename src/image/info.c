/* info: the machine-readable face of struct dmo_image_info. Keys are
 * stable: add new ones, never rename or remove (scripts parse this). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "image/reader.h"

struct out {
        char *buf;
        size_t len;
        size_t pos;
        bool overflow;
};

__attribute__((format(printf, 2, 3))) static void put(struct out *o, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        size_t room = o->pos < o->len ? o->len - o->pos : 0;
        int n = vsnprintf(o->buf + (room ? o->pos : 0), room, fmt, ap);
        va_end(ap);
        if (n < 0 || (size_t)n >= room)
                o->overflow = true;
        o->pos += n > 0 ? (size_t)n : 0;
}

/* Kernel version strings are text from the image: escape everything JSON
 * cannot carry raw. */
static void put_str(struct out *o, const char *key, const char *s)
{
        put(o, "\"%s\":\"", key);
        for (; *s; s++) {
                unsigned char ch = (unsigned char)*s;
                if (ch == '"' || ch == '\\')
                        put(o, "\\%c", ch);
                else if (ch < 0x20 || ch >= 0x7f)
                        put(o, "\\u%04x", ch);
                else
                        put(o, "%c", ch);
        }
        put(o, "\"");
}

/* The codec's own name for the algorithm; "unknown" for a number it does
 * not know (a damaged or newer header). */
static const char *compress_id(uint32_t c)
{
        const char *name = c <= INT32_MAX ? dmo_compress_name((enum dmo_compress)c) : NULL;
        return name ? name : "unknown";
}

static void put_header(struct out *o, const struct dmo_image_header *h)
{
        put(o, ",\"header\":{\"major\":%u,\"minor\":%u", h->major, h->minor);
        put(o, ",\"platform_mode\":%s", (h->flags & DMO_IMAGE_F_PLATFORM) ? "true" : "false");
        put(o, ",\"encrypted\":%s", (h->flags & DMO_IMAGE_F_ENCRYPTED) ? "true" : "false");
        if (h->flags & DMO_IMAGE_F_ENCRYPTED) {
                /* A TPM image's envelope is the recovery key's (pubkey): the
                 * mode is what the person chose, the envelope says how it
                 * opens without the TPM. */
                enum dmo_encrypt_mode env = (enum dmo_encrypt_mode)h->crypto.env.mode;
                enum dmo_encrypt_mode mode = env;
                if (h->flags & DMO_IMAGE_F_TPM)
                        mode = h->tpm.flags & DMO_IMAGE_TPM_PIN ? DMO_ENCRYPT_TPM_PIN
                                                                : DMO_ENCRYPT_TPM;
                put(o, ",\"encryption\":{\"mode\":\"%s\",", dmo_encrypt_mode_name(mode));
                if (mode != env)
                        put(o, "\"recovery\":\"%s\",", dmo_encrypt_mode_name(env));
                put(o, "\"cipher\":\"%s\",\"kdf_ops\":%" PRIu64 ",\"kdf_memory\":%" PRIu64 "}",
                    h->crypto.cipher == DMO_CHUNK_CIPHER_AES256GCM ? "aes256gcm"
                                                                   : "xchacha20poly1305",
                    h->crypto.env.opslimit, h->crypto.env.memlimit);
        }
        if (h->flags & DMO_IMAGE_F_TPM) {
                put(o, ",\"tpm\":{\"pcrs\":[");
                for (unsigned i = 0, n = 0; i < 24; i++)
                        if (h->tpm.pcrs & (1u << i))
                                put(o, "%s%u", n++ ? "," : "", i);
                put(o, "],\"pin\":%s,\"counter_index\":%" PRIu32 ",\"counter\":%" PRIu64 "}",
                    h->tpm.flags & DMO_IMAGE_TPM_PIN ? "true" : "false", h->tpm.nv_index,
                    h->tpm.counter);
        }
        put(o, ",\"page_size\":%" PRIu32 ",\"image_pages\":%" PRIu64, h->page_size, h->image_pages);
        put(o, ",\"compression\":\"%s\",\"level\":%" PRId32, compress_id(h->compress), h->level);
        put(o, ",\"chunk_pages\":%" PRIu32 ",\"chunk_count\":%" PRIu64, h->chunk_pages,
            h->chunk_count);
        put(o, ",\"stream_bytes\":%" PRIu64 ",\"map_offset\":%" PRIu64, h->stream_len,
            h->map_offset);
        put(o, ",\"map_pages\":%" PRIu32 ",\"extent_count\":%" PRIu64, h->map_pages,
            h->extent_count);
        put(o, ",\"kernel\":{");
        put_str(o, "sysname", h->identity.sysname);
        put(o, ",");
        put_str(o, "release", h->identity.release);
        put(o, ",");
        put_str(o, "version", h->identity.version);
        put(o, ",");
        put_str(o, "machine", h->identity.machine);
        put(o, "}");
        put(o, ",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 ",\"write_ns\":%" PRIu64,
            h->start_ns, h->end_ns, h->write_ns);
        put(o, ",\"raw_bytes\":%" PRIu64 ",\"stored_bytes\":%" PRIu64 ",\"zero_pages\":%" PRIu64,
            h->raw_bytes, h->stored_bytes, h->zero_pages);
        put(o, "}");
}

int dmo_image_info_to_json(const struct dmo_image_info *info, char *buf, size_t len)
{
        if (!info || (!buf && len))
                return -EINVAL;
        struct out o = {.buf = buf, .len = len};
        const char *status = info->fault != DMO_FAULT_NONE ? "refused"
                             : info->map_ok                ? "image"
                                                           : "none";
        put(&o, "{\"status\":\"%s\",\"fault\":\"%s\"", status, dmo_image_fault_id(info->fault));
        put(&o,
            ",\"page_size\":%" PRIu32 ",\"device_size\":%" PRIu64
            ",\"swap_header_offset\":%" PRIu64,
            info->page_size, info->device_size, info->swap_header_offset);
        if (info->has_sig)
                put(&o,
                    ",\"signature\":{\"major\":%u,\"minor\":%u,\"header_offset\":%" PRIu64
                    ",\"header_hash\":\"%016" PRIx64 "\"}",
                    info->sig.major, info->sig.minor, info->sig.header_offset,
                    info->sig.header_hash);
        if (info->has_header)
                put_header(&o, &info->header);
        put(&o, ",\"map_verified\":%s", info->map_ok ? "true" : "false");
        put(&o, ",\"extents\":[");
        for (unsigned i = 0; i < info->n_extents; i++)
                put(&o, "%s{\"offset\":%llu,\"pages\":%llu}", i ? "," : "",
                    (unsigned long long)info->extents[i].offset,
                    (unsigned long long)info->extents[i].pages);
        put(&o, "]}");
        if (o.overflow || o.pos > INT32_MAX) {
                if (len)
                        buf[len - 1] = '\0';
                return -ENOSPC;
        }
        return (int)o.pos;
}
