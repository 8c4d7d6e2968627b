/* Corruption: random byte flips in every part of a written image must be
 * caught before the restore step. Each trial corrupts a fresh copy of one
 * pristine image and runs `dormouse resume` on the simulated kernel, which
 * compares every restored page with the original: exit 0 can only mean the
 * flip hit padding and the restore was still bit-exact; exit 3 is a refusal,
 * after which the area must be a plain swap area again. Anything else (4: a
 * wrong restore, a crash) fails. */
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/testlib.h"

#define PAGE 4096

static char bin[1024], pristine[512], victim[512];

static int dormouse(const char *args, const char *path)
{
        return dmo_test_sh("'%s' %s --resume-device '%s' --splash none >/dev/null 2>&1", bin, args,
                           path);
}

static uint64_t json_u64(const char *json, const char *key)
{
        char pat[64];
        snprintf(pat, sizeof(pat), "\"%s\":", key);
        const char *p = strstr(json, pat);
        return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

struct layout {
        uint64_t header_offset, map_offset, stream_pages[4096];
        size_t n_stream;
};

static int read_layout(struct layout *l)
{
        char cmd[2048], json[8192];
        snprintf(cmd, sizeof(cmd), "'%s' info --json '%s'", bin, pristine);
        FILE *p = popen(cmd, "r");
        if (!p)
                return -1;
        size_t n = fread(json, 1, sizeof(json) - 1, p);
        pclose(p);
        json[n] = '\0';
        const char *sig = strstr(json, "\"signature\"");
        const char *hdr = strstr(json, "\"header\"");
        if (!sig || !hdr)
                return -1;
        l->header_offset = json_u64(sig, "header_offset");
        l->map_offset = json_u64(hdr, "map_offset");

        /* Stream pages: every page the image wrote besides the swap header,
         * the map and the header (the area was all zeros after mkswap). */
        int fd = open(pristine, O_RDONLY);
        if (fd < 0)
                return -1;
        uint8_t page[PAGE];
        l->n_stream = 0;
        for (uint64_t off = PAGE; pread(fd, page, PAGE, (off_t)off) == PAGE; off += PAGE) {
                if (off == l->header_offset || off == l->map_offset)
                        continue;
                bool used = false;
                for (size_t i = 0; i < PAGE && !used; i++)
                        used = page[i] != 0;
                if (used && l->n_stream < sizeof(l->stream_pages) / sizeof(l->stream_pages[0]))
                        l->stream_pages[l->n_stream++] = off;
        }
        close(fd);
        return l->header_offset && l->map_offset && l->n_stream ? 0 : -1;
}

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        return rng_state;
}

static int flip_and_resume(uint64_t off, int *rc)
{
        if (dmo_test_sh("cp '%s' '%s'", pristine, victim) != 0)
                return -1;
        int fd = open(victim, O_RDWR);
        if (fd < 0)
                return -1;
        uint8_t b;
        if (pread(fd, &b, 1, (off_t)off) != 1)
                return close(fd), -1;
        b ^= (uint8_t)(1u << (rnd() % 8)) | (uint8_t)(rnd() % 2 ? 0x10 : 0);
        if (pwrite(fd, &b, 1, (off_t)off) != 1)
                return close(fd), -1;
        close(fd);
        *rc = dormouse("resume --kernel sim --sim-seed 11", victim);
        return 0;
}

static bool is_plain_swap(const char *path)
{
        return dmo_test_sh("test \"$(blkid -p -o value -s TYPE '%s')\" = swap", path) == 0;
}

/* Runs `trials` flips at offsets from `pick`; returns how many were refused. */
static uint64_t pick_sigblock(const struct layout *l);

static unsigned campaign(const char *what, unsigned trials, uint64_t (*pick)(const struct layout *),
                         const struct layout *l, unsigned *bad)
{
        unsigned refused = 0;
        for (unsigned t = 0; t < trials; t++) {
                uint64_t off = pick(l);
                int rc = -1;
                if (flip_and_resume(off, &rc) < 0) {
                        (*bad)++;
                        continue;
                }
                if (rc == 3) {
                        refused++;
                        if (!is_plain_swap(victim)) {
                                printf("# %s: byte %" PRIu64 ": refused but swap not restored\n",
                                       what, off);
                                (*bad)++;
                        }
                } else if (rc == 1 && pick == pick_sigblock && off < PAGE - 128 + 8) {
                        /* our magic itself: the block reads as another
                         * tool's, which resume must leave alone */
                } else if (rc != 0) {
                        printf("# %s: byte %" PRIu64 ": resume exit %d\n", what, off, rc);
                        (*bad)++;
                }
        }
        printf("# %s: %u of %u flips refused, the rest restored bit-exact\n", what, refused,
               trials);
        return refused;
}

static uint64_t pick_sigblock(const struct layout *l)
{
        (void)l;
        return PAGE - 128 + rnd() % 64; /* our signature block */
}

static uint64_t pick_header(const struct layout *l)
{
        return l->header_offset + rnd() % 1024; /* the checksummed part */
}

static uint64_t pick_map(const struct layout *l)
{
        return l->map_offset + rnd() % 64; /* map page header and the first extents */
}

static uint64_t pick_stream(const struct layout *l)
{
        /* not the last stream page, whose tail may be padding */
        size_t i = (size_t)(rnd() % (l->n_stream > 1 ? l->n_stream - 1 : 1));
        return l->stream_pages[i] + rnd() % PAGE;
}

static void two_hundred_flips_are_all_caught_before_restore(void)
{
        const char *b = getenv("DMO_BUILDDIR");
        snprintf(bin, sizeof(bin), "%s/dormouse", b ? b : ".");
        snprintf(pristine, sizeof(pristine), "%s/pristine.swap", dmo_test_tmpdir());
        snprintf(victim, sizeof(victim), "%s/victim.swap", dmo_test_tmpdir());
        REQUIRE(dmo_test_sh("truncate -s 8M '%s' && mkswap -q '%s' >/dev/null", pristine,
                            pristine) == 0);
        REQUIRE(dormouse("hibernate --kernel sim --sim-size 3M --sim-seed 11", pristine) == 0);
        struct layout l;
        REQUIRE(read_layout(&l) == 0);
        printf("# image: header at %" PRIu64 ", map at %" PRIu64 ", %zu stream pages\n",
               l.header_offset, l.map_offset, l.n_stream);

        unsigned bad = 0;
        unsigned sig = campaign("signature block", 30, pick_sigblock, &l, &bad);
        unsigned hdr = campaign("image header", 50, pick_header, &l, &bad);
        unsigned map = campaign("extent map", 40, pick_map, &l, &bad);
        unsigned data = campaign("chunk stream", 100, pick_stream, &l, &bad);
        CHECK_INT(bad, ==, 0);
        /* every byte of these is covered by a checksum */
        CHECK_INT(hdr, ==, 50);
        CHECK_INT(map, ==, 40);
        CHECK_INT(data, ==, 100);
        CHECK(sig >= 20); /* some bytes of the block may be reserved */
        /* A damaged chunk is said in words, not as strerror's "Bad message". */
        char out[1100];
        snprintf(out, sizeof(out), "%s/resume.out", dmo_test_tmpdir());
        REQUIRE(dmo_test_sh("cp '%s' '%s' && printf '\\377' | dd of='%s' bs=1 seek=%" PRIu64
                            " conv=notrunc status=none",
                            pristine, victim, victim, l.stream_pages[0] + 100) == 0);
        dmo_test_sh("LC_ALL=C LANGUAGE= '%s' resume --kernel sim --sim-seed 11 --resume-device "
                    "'%s' --splash none >'%s' 2>&1",
                    bin, victim, out);
        CHECK(dmo_test_sh("grep -q 'the image is damaged (a checksum did not match' '%s'", out) ==
              0);
        CHECK(dmo_test_sh("! grep -q 'Bad message' '%s'", out) == 0);
        /* and the pristine image itself still restores */
        CHECK_INT(dormouse("resume --kernel sim --sim-seed 11", pristine), ==, 0);
}

DMO_TEST_MAIN(T(two_hundred_flips_are_all_caught_before_restore))
