/* util/self_memory: the resident size grows by what the process touches;
 * zero pages are told apart from written ones. */
#include "util/self_memory.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/testlib.h"

static void touched_memory_counts_as_resident(void)
{
        const size_t len = 16u << 20;
        uint64_t before = 0, after = 0;
        REQUIRE(dmo_self_resident_bytes(&before) == 0);
        CHECK(before > 0);
        unsigned char *p =
            mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        REQUIRE(p != MAP_FAILED);
        memset(p, 0x5a, len);
        REQUIRE(dmo_self_resident_bytes(&after) == 0);
        CHECK_INT(after, >=, before + len);
        munmap(p, len);
        uint64_t unmapped = 0;
        REQUIRE(dmo_self_resident_bytes(&unmapped) == 0);
        CHECK_INT(unmapped, <, after);
}

/* The mapping of len bytes in the top list; NULL if none is that size. */
static const struct dmo_self_mapping_pages *top_of_size(const struct dmo_self_private_pages *p,
                                                        uint64_t len)
{
        for (unsigned i = 0; i < p->ntop; i++)
                if (p->top[i].bytes == len)
                        return &p->top[i];
        return NULL;
}

static void zero_pages_are_told_apart_from_written_ones(void)
{
        const size_t pages = 1024, ps = (size_t)sysconf(_SC_PAGESIZE), len = pages * ps;
        struct dmo_self_private_pages before, after;
        REQUIRE(dmo_self_private_pages(&before) == 0);
        CHECK_INT(before.page_size, ==, ps);
        CHECK(before.mappings > 0);
        /* An odd size, so that no other mapping of the process has it,
         * between two inaccessible pages, so that the kernel merges it with
         * no neighbour. */
        unsigned char *guard =
            mmap(NULL, len + 5 * ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        REQUIRE(guard != MAP_FAILED);
        unsigned char *p = guard + ps;
        REQUIRE(mprotect(p, len + 3 * ps, PROT_READ | PROT_WRITE) == 0);
        /* Every page resident; a quarter written, one byte at the end of
         * each page of another quarter (set and cleared again: zero). */
        memset(p, 0, len + 3 * ps);
        memset(p, 0x5a, len / 4);
        for (size_t i = pages / 4; i < pages / 2; i++)
                p[(i + 1) * ps - 1] = 1;
        for (size_t i = pages / 4; i < pages / 2; i++)
                p[(i + 1) * ps - 1] = 0;
        p[len + 2 * ps] = 7;
        REQUIRE(dmo_self_private_pages(&after) == 0);
        const struct dmo_self_mapping_pages *m = top_of_size(&after, len + 3 * ps);
        REQUIRE(m != NULL);
        CHECK_INT(m->resident, ==, pages + 3);
        CHECK_INT(m->nonzero, ==, pages / 4 + 1);
        CHECK(strcmp(m->name, "anon") == 0);
        CHECK_INT(after.resident, >=, before.resident + pages + 3);
        CHECK_INT(after.nonzero, >=, before.nonzero + pages / 4 + 1);
        munmap(guard, len + 5 * ps);
}

static void shared_mappings_are_counted_not_scanned(void)
{
        const size_t ps = (size_t)sysconf(_SC_PAGESIZE), len = 64 * ps;
        struct dmo_self_private_pages before, after;
        REQUIRE(dmo_self_private_pages(&before) == 0);
        unsigned char *p =
            mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        REQUIRE(p != MAP_FAILED);
        memset(p, 0x5a, len);
        REQUIRE(dmo_self_private_pages(&after) == 0);
        CHECK_INT(after.shared_resident, ==, before.shared_resident + 64);
        CHECK_INT(after.nonzero, <, before.nonzero + 64);
        munmap(p, len);
}

DMO_TEST_MAIN(T(touched_memory_counts_as_resident), T(zero_pages_are_told_apart_from_written_ones),
              T(shared_mappings_are_counted_not_scanned))
