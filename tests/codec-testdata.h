/* codec-testdata: page contents that look like a hibernation image (zero
 * pages, text, machine code, random data), from a seeded generator so every
 * run sees the same bytes. Shared by the codec tests and the benchmark. */
#ifndef DMO_CODEC_TESTDATA_H
#define DMO_CODEC_TESTDATA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum dmo_td_kind {
        DMO_TD_ZERO,
        DMO_TD_TEXT,
        DMO_TD_CODE,
        DMO_TD_RANDOM,
        DMO_TD_LAST_BYTE, /* zero except the very last byte: defeats a lazy zero test */
        DMO_TD_KINDS,
};

static inline uint64_t dmo_td_next(uint64_t *s)
{
        uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
}

static inline void dmo_td_text(uint8_t *p, size_t len, uint64_t *s)
{
        static const char *const words[] = {
            "the",
            "memory",
            "page",
            "kernel",
            "of",
            "and",
            "swap",
            "image",
            "resume",
            "process",
            "to",
            "a",
            "file",
            "system",
            "desktop",
            "window",
            "font",
            "user",
            "config",
            "value",
            "error",
            "return",
            "function",
            "buffer",
            "length",
            "in",
            "is",
            "for",
            "/usr/lib/x86_64-linux-gnu/",
            "org.freedesktop.",
            "LANG=en_US.UTF-8",
            "\n",
            ", ",
            ". ",
            "0x7f3a",
            "=",
            "\"",
            "<div>",
        };
        const size_t nwords = sizeof(words) / sizeof(words[0]);
        size_t off = 0;
        while (off < len) {
                const char *w = words[dmo_td_next(s) % nwords];
                size_t wl = strlen(w);
                if (wl > len - off)
                        wl = len - off;
                memcpy(p + off, w, wl);
                off += wl;
                if (off < len)
                        p[off++] = ' ';
        }
}

/* x86-ish: common opcodes, small displacements, the odd pointer. */
static inline void dmo_td_code(uint8_t *p, size_t len, uint64_t *s)
{
        static const uint8_t ops[] = {0x48, 0x89, 0x8b, 0xe8, 0xc3, 0x55, 0x5d, 0x31,
                                      0xc0, 0x83, 0xec, 0x0f, 0x1f, 0x44, 0x74, 0x75,
                                      0x85, 0xff, 0x4c, 0x8d, 0xeb, 0x00, 0x41, 0x57};
        size_t off = 0;
        while (off < len) {
                uint64_t r = dmo_td_next(s);
                if ((r & 15) == 0 && len - off >= 8) {
                        uint64_t ptr = 0x00007f0000000000ull | ((r >> 8) & 0xfffffff8ull);
                        memcpy(p + off, &ptr, 8);
                        off += 8;
                } else {
                        p[off++] = ops[(r >> 4) % sizeof(ops)];
                        if (off < len && (r & 0x300) == 0)
                                p[off++] = (uint8_t)(r >> 16) & 0x3f;
                }
        }
}

static inline void dmo_td_random(uint8_t *p, size_t len, uint64_t *s)
{
        size_t off = 0;
        while (off < len) {
                uint64_t r = dmo_td_next(s);
                size_t n = len - off < 8 ? len - off : 8;
                memcpy(p + off, &r, n);
                off += n;
        }
}

static inline void dmo_td_fill(uint8_t *p, size_t len, enum dmo_td_kind kind, uint64_t *s)
{
        switch (kind) {
        case DMO_TD_ZERO:
                memset(p, 0, len);
                break;
        case DMO_TD_TEXT:
                dmo_td_text(p, len, s);
                break;
        case DMO_TD_CODE:
                dmo_td_code(p, len, s);
                break;
        case DMO_TD_RANDOM:
                dmo_td_random(p, len, s);
                break;
        case DMO_TD_LAST_BYTE:
        default:
                memset(p, 0, len);
                p[len - 1] = 1;
                break;
        }
}

/* The benchmark's mix: 35% zero, 25% text, 25% code, 15% random, in runs
 * of 1..16 pages of one kind, as memory tends to come. */
static inline enum dmo_td_kind dmo_td_mix_kind(uint64_t *s)
{
        unsigned r = (unsigned)(dmo_td_next(s) % 100);
        return r < 35 ? DMO_TD_ZERO : r < 60 ? DMO_TD_TEXT : r < 85 ? DMO_TD_CODE : DMO_TD_RANDOM;
}

static inline void dmo_td_fill_mix(uint8_t *p, size_t npages, size_t page_size, uint64_t seed)
{
        uint64_t s = seed;
        size_t i = 0;
        while (i < npages) {
                enum dmo_td_kind k = dmo_td_mix_kind(&s);
                size_t run = 1 + dmo_td_next(&s) % 16;
                for (size_t j = 0; j < run && i < npages; j++, i++)
                        dmo_td_fill(p + i * page_size, page_size, k, &s);
        }
}

#endif
