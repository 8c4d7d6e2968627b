/* util/self_memory: the resident size grows by what the process touches. */
#include "util/self_memory.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

DMO_TEST_MAIN(T(touched_memory_counts_as_resident))
