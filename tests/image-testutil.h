/* Helpers shared by the image tests: a deterministic page generator, fake
 * swap-slot allocators and a "hibernate this many pages" driver. */
#ifndef DMO_TESTS_IMAGE_TESTUTIL_H
#define DMO_TESTS_IMAGE_TESTUTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image/reader.h"
#include "image/sigdev.h"
#include "image/writer.h"
#include "kernel/blockdev.h"
#include "tests/testlib.h"

static inline uint64_t tu_mix(uint64_t x)
{
        x += 0x9e3779b97f4a7c15ull;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        return x ^ (x >> 31);
}

/* Page i of a synthetic image: a mix of zero pages, text, random bytes and
 * sparse pages, like real memory. */
static inline void tu_page(uint64_t seed, uint64_t i, uint8_t *p, uint32_t ps)
{
        uint64_t k = tu_mix(seed * 1000003u + i);
        memset(p, 0, ps);
        switch (k % 4) {
        case 0:
                break;
        case 1:
                for (uint32_t o = 0; o + 64 <= ps; o += 64)
                        snprintf((char *)p + o, 64, "page %llu line %u hello",
                                 (unsigned long long)(i % 100000), (o / 64) % 1000);
                break;
        case 2:
                for (uint32_t o = 0; o + 8 <= ps; o += 8) {
                        uint64_t v = tu_mix(k + o);
                        memcpy(p + o, &v, 8);
                }
                break;
        default:
                for (int j = 0; j < 16; j++)
                        p[tu_mix(k + (uint64_t)j) % ps] = (uint8_t)(j + 1);
                break;
        }
}

enum tu_layout {
        TU_CONTIGUOUS, /* slots 1, 2, 3, ...: one extent */
        TU_PAIRS,      /* two adjacent slots, then a gap */
        TU_SHUFFLED,   /* a random permutation: about one extent per page */
};

struct tu_alloc {
        uint64_t *slots;
        size_t n;
        size_t next;
        uint32_t ps;
};

static inline void tu_alloc_init(struct tu_alloc *a, enum tu_layout layout, uint64_t dev_pages,
                                 uint32_t ps, uint64_t seed)
{
        a->slots = calloc(dev_pages, sizeof(*a->slots));
        a->n = 0;
        a->next = 0;
        a->ps = ps;
        for (uint64_t pg = 1; pg < dev_pages; pg++) {
                if (layout == TU_PAIRS && pg % 3 == 0)
                        continue;
                a->slots[a->n++] = pg * ps;
        }
        if (layout == TU_SHUFFLED)
                for (size_t i = a->n; i > 1; i--) {
                        size_t j = tu_mix(seed + i) % i;
                        uint64_t t = a->slots[i - 1];
                        a->slots[i - 1] = a->slots[j];
                        a->slots[j] = t;
                }
}

static inline int tu_alloc_page(void *ctx, uint64_t *off)
{
        struct tu_alloc *a = ctx;
        if (a->next == a->n)
                return -ENOSPC;
        *off = a->slots[a->next++];
        return 0;
}

/* A fresh swap area of dev_pages pages at path. */
static inline int tu_make_swap(const char *path, uint64_t dev_pages, uint32_t ps)
{
        return dmo_test_sh("rm -f '%s' && truncate -s %llu '%s' && mkswap -q -p %u '%s' "
                           ">/dev/null 2>&1",
                           path, (unsigned long long)(dev_pages * ps), path, ps, path);
}

/* Writes npages synthetic pages as an image and its signature. */
static inline int tu_hibernate(struct dmo_blockdev *dev, struct tu_alloc *a, uint64_t seed,
                               uint64_t npages, const struct dmo_image_writer_params *wp,
                               struct dmo_image_result *res)
{
        struct dmo_image_writer *w;
        int r = dmo_image_writer_new(wp, dev, tu_alloc_page, a, NULL, &w);
        if (r < 0)
                return r;
        /* Commits vary between one page and the whole room offered, so
         * chunks are filled in uneven steps as well as at once. */
        for (uint64_t i = 0; i < npages && r == 0;) {
                void *pages;
                size_t room;
                r = dmo_image_writer_page_buffers(w, &pages, &room);
                if (r < 0)
                        break;
                size_t k = (i % 3 == 0) ? room : 1 + (size_t)(i % room);
                if (k > npages - i)
                        k = (size_t)(npages - i);
                for (size_t j = 0; j < k; j++)
                        tu_page(seed, i + j, (uint8_t *)pages + j * wp->page_size, wp->page_size);
                r = dmo_image_writer_commit_pages(w, k);
                i += k;
        }
        struct dmo_image_meta meta = {.start_ns = 1, .platform_mode = true};
        strcpy(meta.identity.sysname, "Linux");
        strcpy(meta.identity.release, "6.1.0-test");
        strcpy(meta.identity.version, "#1 SMP \"quoted\"");
        strcpy(meta.identity.machine, "x86_64");
        if (r == 0)
                r = dmo_image_writer_finish(w, &meta, res);
        dmo_image_writer_free(w);
        if (r == 0)
                r = dmo_sig_write(dev, 0, wp->page_size, &res->sig);
        return r;
}

/* Reads the image back and compares every page. Returns 0 when all npages
 * came back identical and the reader ended cleanly; the reader's error if
 * it reported one; 1 if a wrong page was delivered without an error; 2 if
 * the reader ended without an error but with the wrong page count. */
/* tu_resume, also saying how many chunks came straight from the read-ahead
 * buffers (in_place may be NULL). */
static inline int tu_resume_counted(struct dmo_blockdev *dev, uint64_t seed, uint64_t npages,
                                    uint32_t ps, unsigned threads, int *probe_result,
                                    uint64_t *in_place)
{
        struct dmo_image_info info;
        int r = dmo_image_probe(dev, 0, ps, &info);
        if (probe_result)
                *probe_result = r;
        if (r < 0)
                return r;
        struct dmo_image_reader *rd;
        r = dmo_image_reader_new(&info, dev, threads, NULL, &rd);
        if (r < 0)
                return r;
        uint8_t *want = malloc(ps);
        uint64_t i = 0;
        int ret = 0;
        while (ret == 0) {
                const void *pages;
                size_t n;
                r = dmo_image_reader_next_pages(rd, &pages, &n);
                if (r <= 0) {
                        ret = r < 0 ? r : (i == npages ? 0 : 2);
                        break;
                }
                for (size_t j = 0; j < n; j++, i++) {
                        tu_page(seed, i, want, ps);
                        if (i >= npages || memcmp((const uint8_t *)pages + j * ps, want, ps) != 0) {
                                ret = 1;
                                break;
                        }
                }
        }
        free(want);
        if (in_place)
                *in_place = dmo_image_reader_chunks_in_place(rd);
        dmo_image_reader_free(rd);
        return ret;
}

static inline int tu_resume(struct dmo_blockdev *dev, uint64_t seed, uint64_t npages, uint32_t ps,
                            unsigned threads, int *probe_result)
{
        return tu_resume_counted(dev, seed, npages, ps, threads, probe_result, NULL);
}

#endif
