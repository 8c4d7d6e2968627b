#include "kernel/sim_pages.h"

#include <errno.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/le.h"

/* Header page layout (little-endian). */
enum {
        HDR_MAGIC = 0,
        HDR_LAYOUT = 8,
        HDR_PAGE_SIZE = 12,
        HDR_PAGES = 16,
        HDR_SEED = 24,
        HDR_SYSNAME = 32,
        HDR_RELEASE = HDR_SYSNAME + 65,
        HDR_VERSION = HDR_RELEASE + 65,
        HDR_MACHINE = HDR_VERSION + 65,
        HDR_ID_PAGE_SIZE = HDR_MACHINE + 65,
        HDR_CHECKSUM = HDR_ID_PAGE_SIZE + 4,
        HDR_END = HDR_CHECKSUM + 8,
};
static const char hdr_magic[8] = {'D', 'M', 'O', 'S', 'I', 'M', 'K', '1'};
static const uint32_t hdr_layout = 1;

static inline uint64_t mix64(uint64_t x)
{
        x ^= x >> 30;
        x *= 0xbf58476d1ce4e5b9ull;
        x ^= x >> 27;
        x *= 0x94d049bb133111ebull;
        x ^= x >> 31;
        return x;
}

static inline uint64_t page_hash(uint64_t seed, uint64_t index)
{
        return mix64(seed ^ mix64(index + 0x9e3779b97f4a7c15ull));
}

/* wyrand: one multiply per 64 random bits. */
static inline uint64_t rnd(uint64_t *s)
{
        *s += 0xa0761d6478bd642full;
        __uint128_t t = (__uint128_t)*s * (*s ^ 0xe7037ed1a0b428dbull);
        return (uint64_t)(t >> 64) ^ (uint64_t)t;
}

bool dmo_sim_page_size_ok(size_t page_size)
{
        return page_size >= 1024 && page_size <= 65536 && page_size % 64 == 0;
}

/* Shares per 100, close to what a lightly used desktop's image holds. */
static enum dmo_sim_page_kind kind_of_hash(uint64_t h)
{
        unsigned r = (unsigned)(h % 100);
        if (r < 35)
                return DMO_SIM_PAGE_ZERO;
        if (r < 50)
                return DMO_SIM_PAGE_TEXT;
        if (r < 62)
                return DMO_SIM_PAGE_CODE;
        if (r < 75)
                return DMO_SIM_PAGE_POINTERS;
        if (r < 90)
                return DMO_SIM_PAGE_RANDOM;
        return DMO_SIM_PAGE_COPY;
}

enum dmo_sim_page_kind dmo_sim_page_kind(uint64_t seed, uint64_t index)
{
        if (index == 0)
                return DMO_SIM_PAGE_HEADER;
        return kind_of_hash(page_hash(seed, index));
}

/* Words padded to 8 bytes so each is one unaligned 8-byte store; the
 * length is kept beside it (no strlen in the loop). */
struct word {
        char text[8];
        uint8_t len;
};
#define W(s)                                                                                       \
        {                                                                                          \
                s, sizeof(s) - 1                                                                   \
        }
static const struct word words[64] = {
    W("the "),    W("of "),     W("and "),   W("to "),     W("in "),     W("is "),     W("that "),
    W("for "),    W("it "),     W("with "),  W("as "),     W("was "),    W("on "),     W("be "),
    W("at "),     W("by "),     W("this "),  W("from "),   W("or "),     W("have "),   W("an "),
    W("they "),   W("which "),  W("one "),   W("you "),    W("were "),   W("all "),    W("her "),
    W("would "),  W("there "),  W("their "), W("will "),   W("when "),   W("who "),    W("make "),
    W("can "),    W("time "),   W("if "),    W("out "),    W("file "),   W("page "),   W("error "),
    W("kernel "), W("memory "), W("swap "),  W("disk "),   W("user "),   W("system "), W("value "),
    W("return "), W("static "), W("const "), W("struct "), W("buffer "), W("size "),   W("data "),
    W("read "),   W("write "),  W("open "),  W("close "),  W(". "),      W(", "),      W("\n"),
    W("\n\t"),
};
#undef W

static void fill_text(uint64_t s, uint8_t *p, size_t n)
{
        size_t pos = 0;
        while (pos + 8 * 10 <= n) {
                uint64_t r = rnd(&s);
                for (int k = 0; k < 10; k++) {
                        const struct word *w = &words[r & 63];
                        r >>= 6;
                        memcpy(p + pos, w->text, 8);
                        pos += w->len;
                }
        }
        memset(p + pos, ' ', n - pos);
}

/* x86-64-like instruction templates: bytes, length, and which bits are
 * operands (filled from the random stream). */
struct insn {
        uint64_t bytes, operand_mask;
        uint8_t len;
};
static const struct insn insns[16] = {
    {0x55, 0, 1},                         /* push %rbp */
    {0xe58948, 0, 3},                     /* mov %rsp,%rbp */
    {0xec8348, 0xf8000000ull, 4},         /* sub $imm8,%rsp */
    {0x7d89, 0xf80000ull, 3},             /* mov %edi,-imm8(%rbp) */
    {0xe8, 0x0000ffffff00ull, 5},         /* call rel32 */
    {0xc3, 0, 1},                         /* ret */
    {0x00441f0f, 0, 5},                   /* nopl 0x0(%rax,%rax,1) */
    {0xc031, 0, 2},                       /* xor %eax,%eax */
    {0x058b48, 0x000000ffff000000ull, 7}, /* mov rip+disp32,%rax */
    {0x74, 0x7f00ull, 2},                 /* je rel8 */
    {0xc08548, 0, 3},                     /* test %rax,%rax */
    {0x458b, 0xf80000ull, 3},             /* mov -imm8(%rbp),%eax */
    {0x5d, 0, 1},                         /* pop %rbp */
    {0x3d8d48, 0x000000ffff000000ull, 7}, /* lea rip+disp32,%rdi */
    {0xeb, 0x7f00ull, 2},                 /* jmp rel8 */
    {0xc7894c, 0, 3},                     /* mov %r8,%rdi */
};

static void fill_code(uint64_t s, uint8_t *p, size_t n)
{
        size_t pos = 0;
        while (pos + 16 <= n) {
                /* One random word drives two instructions. */
                uint64_t r = rnd(&s);
                const struct insn *a = &insns[r & 15];
                const struct insn *b = &insns[(r >> 60) & 15];
                uint64_t va = a->bytes | ((r >> 4) & a->operand_mask);
                uint64_t vb = b->bytes | (((r >> 28) | (r << 36)) & b->operand_mask);
                memcpy(p + pos, &va, 8);
                pos += a->len;
                memcpy(p + pos, &vb, 8);
                pos += b->len;
        }
        memset(p + pos, 0xcc, n - pos); /* int3 padding, as linkers do */
}

/* Page-table-like arrays: present entries with common high bits and flags,
 * mostly ascending frames, some holes. */
static void fill_pointers(uint64_t s, uint8_t *p, size_t n)
{
        uint64_t r0 = rnd(&s);
        uint64_t high = (r0 & 1) ? 0xffff888000000000ull : 0x00007f0000000000ull;
        uint64_t frame = (r0 >> 8) & 0xfffffull;
        uint64_t flags = (r0 & 1) ? 0x63 : 0;
        for (size_t pos = 0; pos + 8 <= n; pos += 8) {
                uint64_t r = rnd(&s);
                /* Branch-free: a hole in a quarter of the slots. */
                uint64_t present = 0 - (uint64_t)((r & 3) != 0);
                frame += present & (1 + ((r >> 2) & 1));
                if (((r >> 3) & 31) == 0)
                        frame = (r >> 8) & 0xfffffull;
                uint64_t v = present & (high | (frame << 12) | flags);
                memcpy(p + pos, &v, 8);
        }
}

static void fill_random(uint64_t s, uint8_t *p, size_t n)
{
        for (size_t pos = 0; pos + 8 <= n; pos += 8) {
                uint64_t v = rnd(&s);
                memcpy(p + pos, &v, 8);
        }
}

/* A copy refers to one of the 32 data pages before it; chains resolve to
 * the original, which is never itself a copy (page 1 as a copy is zero). */
static uint64_t copy_source(uint64_t seed, uint64_t index, uint64_t h)
{
        for (;;) {
                if (index <= 1)
                        return 0;
                uint64_t window = index - 1 < 32 ? index - 1 : 32;
                index -= 1 + (h >> 40) % window;
                h = page_hash(seed, index);
                if (kind_of_hash(h) != DMO_SIM_PAGE_COPY)
                        return index;
        }
}

void dmo_sim_page_fill(uint64_t seed, uint64_t index, void *buf, size_t page_size)
{
        uint8_t *p = buf;
        uint64_t h = page_hash(seed, index);
        enum dmo_sim_page_kind k = index == 0 ? DMO_SIM_PAGE_ZERO : kind_of_hash(h);
        if (k == DMO_SIM_PAGE_COPY) {
                index = copy_source(seed, index, h);
                h = page_hash(seed, index);
                k = index == 0 ? DMO_SIM_PAGE_ZERO : kind_of_hash(h);
        }
        switch (k) {
        case DMO_SIM_PAGE_TEXT:
                fill_text(h, p, page_size);
                break;
        case DMO_SIM_PAGE_CODE:
                fill_code(h, p, page_size);
                break;
        case DMO_SIM_PAGE_POINTERS:
                fill_pointers(h, p, page_size);
                break;
        case DMO_SIM_PAGE_RANDOM:
                fill_random(h, p, page_size);
                break;
        default:
                memset(p, 0, page_size);
                break;
        }
}

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
        uint64_t h = 0xcbf29ce484222325ull;
        for (size_t i = 0; i < n; i++) {
                h ^= p[i];
                h *= 0x100000001b3ull;
        }
        return h;
}

static void put_str(uint8_t *p, const char *s)
{
        size_t n = strnlen(s, 64);
        memcpy(p, s, n);
}

static void get_str(char *dst, const uint8_t *p)
{
        memcpy(dst, p, 64);
        dst[64] = '\0';
}

int dmo_sim_header_encode(const struct dmo_sim_header *h, void *page, size_t page_size)
{
        if (!dmo_sim_page_size_ok(page_size) || h->page_size != page_size || h->pages < 1)
                return -EINVAL;
        uint8_t *p = page;
        memset(p, 0, page_size);
        memcpy(p + HDR_MAGIC, hdr_magic, sizeof(hdr_magic));
        dmo_put_le32(p + HDR_LAYOUT, hdr_layout);
        dmo_put_le32(p + HDR_PAGE_SIZE, h->page_size);
        dmo_put_le64(p + HDR_PAGES, h->pages);
        dmo_put_le64(p + HDR_SEED, h->seed);
        put_str(p + HDR_SYSNAME, h->id.sysname);
        put_str(p + HDR_RELEASE, h->id.release);
        put_str(p + HDR_VERSION, h->id.version);
        put_str(p + HDR_MACHINE, h->id.machine);
        dmo_put_le32(p + HDR_ID_PAGE_SIZE, h->id.page_size);
        dmo_put_le64(p + HDR_CHECKSUM, fnv1a(p, HDR_CHECKSUM));
        return 0;
}

int dmo_sim_header_decode(const void *page, size_t page_size, struct dmo_sim_header *out)
{
        const uint8_t *p = page;
        if (!p || page_size < HDR_END)
                return -EINVAL;
        if (memcmp(p + HDR_MAGIC, hdr_magic, sizeof(hdr_magic)) != 0 ||
            dmo_get_le32(p + HDR_LAYOUT) != hdr_layout ||
            dmo_get_le64(p + HDR_CHECKSUM) != fnv1a(p, HDR_CHECKSUM))
                return -EINVAL;
        struct dmo_sim_header h;
        memset(&h, 0, sizeof(h));
        h.page_size = dmo_get_le32(p + HDR_PAGE_SIZE);
        h.pages = dmo_get_le64(p + HDR_PAGES);
        h.seed = dmo_get_le64(p + HDR_SEED);
        get_str(h.id.sysname, p + HDR_SYSNAME);
        get_str(h.id.release, p + HDR_RELEASE);
        get_str(h.id.version, p + HDR_VERSION);
        get_str(h.id.machine, p + HDR_MACHINE);
        h.id.page_size = dmo_get_le32(p + HDR_ID_PAGE_SIZE);
        if (h.page_size != page_size || h.pages < 1)
                return -EINVAL;
        *out = h;
        return 0;
}
