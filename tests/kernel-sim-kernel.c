/* The simulated kernel keeps the real kernel's rules: preconditions and the
 * unfreeze trap, swap allocation inside a real mkswap area, ENOSPC, a
 * resume that checks every page bit for bit, and the target opened with
 * direct I/O when asked. */
#include "tests/testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel/blockdev.h"
#include "kernel/faults.h"
#include "kernel/sim_kernel.h"
#include "kernel/sim_pages.h"

enum { PS = 4096 };

static struct dmo_snapshot *sim(uint64_t size, uint64_t seed, const struct dmo_fault_plan *f,
                                enum dmo_snapshot_mode mode)
{
        struct dmo_sim_params p = {.size_bytes = size, .seed = seed, .faults = f, .page_size = PS};
        struct dmo_snapshot *s = NULL;
        if (dmo_sim_kernel_new(&p, mode, &s) < 0)
                return NULL;
        return s;
}

static const char *mkswap_file(const char *name, const char *size, char *buf, size_t len)
{
        snprintf(buf, len, "%s/%s", dmo_test_tmpdir(), name);
        if (dmo_test_sh("rm -f '%s' && truncate -s %s '%s' && mkswap -q -p %d '%s' >/dev/null", buf,
                        size, buf, PS, buf) != 0)
                return NULL;
        return buf;
}

static void test_hibernate_preconditions_match_the_kernel(void)
{
        struct dmo_snapshot *s = sim(64 * PS, 1, NULL, DMO_SNAPSHOT_HIBERNATE);
        REQUIRE(s);
        uint64_t mem = 0;
        CHECK_INT(s->ops->memory_bytes(s, &mem), ==, 0);
        CHECK_INT(mem, ==, 64 * PS);
        uint8_t page[PS];
        int in_suspend = -1;
        uint64_t bytes;
        CHECK_INT(s->ops->read_image(s, page, PS), ==, -ENODATA);
        CHECK_INT(s->ops->get_image_size(s, &bytes), ==, -ENODATA);
        CHECK_INT(s->ops->create_image(s, &in_suspend), ==, -EPERM); /* not frozen */
        CHECK_INT(s->ops->atomic_restore(s), ==, -EPERM);
        CHECK_INT(s->ops->write_image(s, page, PS), ==, -EBADF);
        CHECK_INT(s->ops->alloc_swap_page(s, &bytes), ==, -ENODEV);
        CHECK_INT(s->ops->freeze(s), ==, 0);
        CHECK_INT(s->ops->create_image(s, &in_suspend), ==, 0);
        CHECK_INT(in_suspend, ==, 1);
        CHECK_INT(s->ops->create_image(s, &in_suspend), ==, -EPERM); /* already ready */
        CHECK_INT(s->ops->get_image_size(s, &bytes), ==, 0);
        CHECK_INT(bytes, ==, 64 * PS);

        /* The trap: unfreeze while an image is ready does nothing. */
        CHECK_INT(s->ops->unfreeze(s), ==, 0);
        CHECK(dmo_sim_kernel_frozen(s));
        CHECK_INT(s->ops->free_image(s), ==, 0);
        CHECK_INT(s->ops->unfreeze(s), ==, 0);
        CHECK(!dmo_sim_kernel_frozen(s));
        CHECK_INT(s->ops->read_image(s, page, PS), ==, -ENODATA);

        /* Going down needs a frozen system, like the kernel's S2RAM. */
        CHECK_INT(s->ops->shutdown(s, DMO_SHUTDOWN_SUSPEND), ==, -EPERM);
        CHECK_INT(s->ops->shutdown(s, DMO_SHUTDOWN_POWEROFF), ==, -EPERM);
        CHECK_INT(s->ops->freeze(s), ==, 0);
        CHECK_INT(s->ops->shutdown(s, DMO_SHUTDOWN_SUSPEND), ==, DMO_SHUTDOWN_WOKE);
        CHECK(!dmo_sim_kernel_powered_off(s));
        CHECK_INT(s->ops->shutdown(s, DMO_SHUTDOWN_POWEROFF), ==, DMO_SHUTDOWN_DONE);
        CHECK(dmo_sim_kernel_powered_off(s));
        CHECK_INT(s->ops->freeze(s), ==, -ESHUTDOWN);
        dmo_snapshot_free(s);
}

static void test_read_stream_is_header_then_pages_then_end(void)
{
        struct dmo_fault_plan *plan = NULL;
        REQUIRE(dmo_fault_plan_parse("short-read", &plan) == 0);
        struct dmo_snapshot *s = sim(20 * PS, 77, plan, DMO_SNAPSHOT_HIBERNATE);
        REQUIRE(s);
        int in_suspend;
        REQUIRE(s->ops->freeze(s) == 0 && s->ops->create_image(s, &in_suspend) == 0);
        static uint8_t got[20 * PS], want[PS];
        size_t total = 0;
        unsigned calls = 0;
        for (;;) {
                ssize_t n = s->ops->read_image(s, got + total, PS);
                REQUIRE(n >= 0);
                if (n == 0)
                        break;
                CHECK(n < PS); /* the plan makes every read short */
                total += (size_t)n;
                calls++;
                REQUIRE(total <= sizeof(got));
        }
        CHECK_INT(total, ==, sizeof(got));
        CHECK(calls > 20);
        CHECK_INT(dmo_sim_kernel_pages_moved(s), ==, 20);
        struct dmo_sim_header h;
        CHECK_INT(dmo_sim_header_decode(got, PS, &h), ==, 0);
        CHECK_INT(h.pages, ==, 20);
        CHECK_INT(h.seed, ==, 77);
        for (uint64_t i = 1; i < 20; i++) {
                dmo_sim_page_fill(77, i, want, PS);
                CHECK(memcmp(got + i * PS, want, PS) == 0);
        }
        CHECK_INT(s->ops->read_image(s, got, PS), ==, 0);
        CHECK(dmo_sim_kernel_faults(s) == plan);
        dmo_snapshot_free(s);
        dmo_fault_plan_free(plan);
}

static uint8_t *take_image(uint64_t pages, uint64_t seed, const char *release);

/* Batches behave like readv()/writev() on /dev/snapshot: as many pages as
 * asked for in one call, a partial page where the batch ends, and the
 * stream is the same as page by page. */
static void test_batched_transfers_match_page_by_page(void)
{
        enum { N = 50 };
        uint8_t *one = take_image(N, 99, NULL);
        REQUIRE(one);
        struct dmo_snapshot *s = sim(N * PS, 99, NULL, DMO_SNAPSHOT_HIBERNATE);
        REQUIRE(s);
        int in_suspend;
        REQUIRE(s->ops->freeze(s) == 0 && s->ops->create_image(s, &in_suspend) == 0);
        static uint8_t got[N * PS];
        CHECK_INT(s->ops->read_image(s, got, 8 * PS), ==, 8 * PS);
        CHECK_INT(s->ops->read_image(s, got + 8 * PS, 2 * PS + 100), ==, 2 * PS + 100);
        size_t total = 10 * PS + 100;
        while (total < sizeof(got)) {
                ssize_t n = s->ops->read_image(s, got + total, 7 * PS);
                REQUIRE(n > 0);
                total += (size_t)n;
        }
        CHECK_INT(s->ops->read_image(s, got, 4 * PS), ==, 0);
        CHECK(memcmp(got, one, sizeof(got)) == 0);
        dmo_snapshot_free(s);

        struct dmo_snapshot *r = sim(N * PS, 99, NULL, DMO_SNAPSHOT_RESUME);
        REQUIRE(r);
        CHECK_INT(r->ops->write_image(r, one, 3 * PS + 10), ==, 3 * PS + 10);
        CHECK_INT(r->ops->write_image(r, one + 3 * PS + 10, (N - 3) * PS - 10), ==,
                  (N - 3) * PS - 10);
        CHECK_INT(r->ops->write_image(r, one, 2 * PS), ==, -EFBIG);
        REQUIRE(r->ops->freeze(r) == 0);
        CHECK_INT(r->ops->atomic_restore(r), ==, 0);
        dmo_snapshot_free(r);
        free(one);
}

static void test_pref_image_size_shrinks_down_to_half(void)
{
        struct dmo_snapshot *s = sim(100 * PS, 1, NULL, DMO_SNAPSHOT_HIBERNATE);
        REQUIRE(s);
        int in_suspend;
        uint64_t bytes;
        REQUIRE(s->ops->freeze(s) == 0);
        CHECK_INT(dmo_sim_kernel_max_pages(s), ==, 100);
        CHECK_INT(s->ops->pref_image_size(s, 70 * PS), ==, 0);
        REQUIRE(s->ops->create_image(s, &in_suspend) == 0);
        CHECK(s->ops->get_image_size(s, &bytes) == 0 && bytes == 70 * PS);
        REQUIRE(s->ops->free_image(s) == 0);
        CHECK_INT(s->ops->pref_image_size(s, 0), ==, 0);
        REQUIRE(s->ops->create_image(s, &in_suspend) == 0);
        CHECK(s->ops->get_image_size(s, &bytes) == 0 && bytes == 50 * PS);
        REQUIRE(s->ops->free_image(s) == 0);
        CHECK_INT(s->ops->pref_image_size(s, 1000 * PS), ==, 0);
        REQUIRE(s->ops->create_image(s, &in_suspend) == 0);
        CHECK(s->ops->get_image_size(s, &bytes) == 0 && bytes == 100 * PS);
        CHECK_INT(bytes / PS, <=, dmo_sim_kernel_max_pages(s));
        dmo_snapshot_free(s);
}

static void test_allocation_stays_inside_a_mkswap_area(void)
{
        char path[512];
        REQUIRE(mkswap_file("swap64m", "64M", path, sizeof(path)));
        struct dmo_snapshot *s = sim(64 * PS, 5, NULL, DMO_SNAPSHOT_HIBERNATE);
        REQUIRE(s);
        struct dmo_swap_target t = {.path = path, .dev = 0, .header_page = 0};
        REQUIRE(s->ops->set_swap_area(s, &t) == 0);
        const uint64_t slots = 64 * 1024 * 1024 / PS - 1;
        uint64_t avail;
        CHECK(s->ops->avail_swap(s, &avail) == 0 && avail == slots * PS);

        static uint8_t seen[64 * 1024 * 1024 / PS];
        memset(seen, 0, sizeof(seen));
        uint64_t off, prev = 0, jumps = 0, n = 0;
        int r;
        while ((r = s->ops->alloc_swap_page(s, &off)) == 0) {
                uint64_t slot = off / PS;
                if (off % PS || slot == 0 || slot > slots || seen[slot]) {
                        CHECK(!"bad slot");
                        printf("# offset %" PRIu64 "\n", off);
                        break;
                }
                seen[slot] = 1;
                if (n > 0 && slot != prev + 1) {
                        jumps++;
                        CHECK(slot != prev + 2); /* never the adjacent cluster's neighbour */
                }
                prev = slot;
                n++;
        }
        CHECK_INT(r, ==, -ENOSPC);
        CHECK_INT(n, ==, slots);
        CHECK(jumps >= slots / 256 - 1); /* a new, non-adjacent cluster every 256 */
        CHECK(s->ops->avail_swap(s, &avail) == 0 && avail == 0);
        /* Swap is held: the area cannot be changed. */
        CHECK_INT(s->ops->set_swap_area(s, &t), ==, -EPERM);
        CHECK_INT(s->ops->free_swap_pages(s), ==, 0);
        CHECK_INT(s->ops->alloc_swap_page(s, &off), ==, 0);
        dmo_snapshot_free(s);
}

static void test_allocation_honours_header_offset_and_planned_enospc(void)
{
        char path[512];
        /* A "swap file" whose header sits at page 16 of the device. */
        snprintf(path, sizeof(path), "%s/offset-swap", dmo_test_tmpdir());
        REQUIRE(dmo_test_sh("rm -f '%s' && truncate -s 4M '%s.part' && mkswap -q '%s.part' "
                            ">/dev/null && truncate -s 64K '%s' && cat '%s.part' >> '%s'",
                            path, path, path, path, path, path) == 0);
        struct dmo_fault_plan *plan = NULL;
        REQUIRE(dmo_fault_plan_parse("enospc@300", &plan) == 0);
        struct dmo_snapshot *s = sim(64 * PS, 9, plan, DMO_SNAPSHOT_HIBERNATE);
        REQUIRE(s);
        struct dmo_swap_target t = {.path = path, .header_page = 0};
        CHECK_INT(s->ops->set_swap_area(s, &t), ==, -ENODEV); /* no header at page 0 */
        t.header_page = 16;
        REQUIRE(s->ops->set_swap_area(s, &t) == 0);
        uint64_t off;
        int n = 0;
        while (s->ops->alloc_swap_page(s, &off) == 0) {
                CHECK(off >= 17 * PS && off < 16 * PS + 4 * 1024 * 1024 && off % PS == 0);
                n++;
        }
        CHECK_INT(n, ==, 300);
        CHECK_INT(s->ops->alloc_swap_page(s, &off), ==, -ENOSPC);
        CHECK_INT(s->ops->free_swap_pages(s), ==, 0);
        n = 0;
        while (s->ops->alloc_swap_page(s, &off) == 0)
                n++;
        CHECK_INT(n, ==, 300);
        dmo_snapshot_free(s);
        dmo_fault_plan_free(plan);
}

static void test_set_swap_area_refuses_what_is_not_swap(void)
{
        char path[512];
        struct dmo_snapshot *s = sim(64 * PS, 1, NULL, DMO_SNAPSHOT_HIBERNATE);
        REQUIRE(s);
        snprintf(path, sizeof(path), "%s/not-swap", dmo_test_tmpdir());
        REQUIRE(dmo_test_sh("truncate -s 1M '%s'", path) == 0);
        struct dmo_swap_target t = {.path = path};
        CHECK_INT(s->ops->set_swap_area(s, &t), ==, -ENODEV);
        /* 64K pages are not this (4K) kernel's swap. */
        snprintf(path, sizeof(path), "%s/swap-64k", dmo_test_tmpdir());
        REQUIRE(dmo_test_sh("truncate -s 8M '%s' && mkswap -q -p 65536 '%s' >/dev/null", path,
                            path) == 0);
        CHECK_INT(s->ops->set_swap_area(s, &t), ==, -ENODEV);
        /* A swap area carrying our signature is still selectable. */
        REQUIRE(mkswap_file("signed", "4M", path, sizeof(path)));
        REQUIRE(dmo_test_sh("printf 'ULSUSPEND\\000' | dd of='%s' bs=1 seek=4086 conv=notrunc "
                            "status=none",
                            path) == 0);
        CHECK_INT(s->ops->set_swap_area(s, &t), ==, 0);
        /* A header claiming more pages than the file has. */
        REQUIRE(mkswap_file("cut", "4M", path, sizeof(path)));
        REQUIRE(dmo_test_sh("truncate -s 2M '%s'", path) == 0);
        CHECK_INT(s->ops->set_swap_area(s, &t), ==, -ENODEV);
        t.path = NULL;
        CHECK_INT(s->ops->set_swap_area(s, &t), ==, -EINVAL);
        dmo_snapshot_free(s);
}

/* Reads a whole image out of a hibernate-mode sim. */
static uint8_t *take_image(uint64_t pages, uint64_t seed, const char *release)
{
        struct dmo_sim_params p = {
            .size_bytes = pages * PS, .seed = seed, .page_size = PS, .release_override = release};
        struct dmo_snapshot *s = NULL;
        if (dmo_sim_kernel_new(&p, DMO_SNAPSHOT_HIBERNATE, &s) < 0)
                return NULL;
        uint8_t *img = malloc(pages * PS);
        int in_suspend;
        if (!img || s->ops->freeze(s) < 0 || s->ops->create_image(s, &in_suspend) < 0) {
                free(img);
                dmo_snapshot_free(s);
                return NULL;
        }
        for (uint64_t i = 0; i < pages; i++)
                if (s->ops->read_image(s, img + i * PS, PS) != PS) {
                        free(img);
                        img = NULL;
                        break;
                }
        dmo_snapshot_free(s);
        return img;
}

static int give_back(struct dmo_snapshot *r, const uint8_t *img, uint64_t pages)
{
        for (uint64_t i = 0; i < pages; i++) {
                ssize_t n = r->ops->write_image(r, img + i * PS, PS);
                if (n != PS)
                        return n < 0 ? (int)n : -EIO;
        }
        return 0;
}

static void test_resume_verifies_every_page(void)
{
        const uint64_t pages = 300;
        uint8_t *img = take_image(pages, 1234, NULL);
        REQUIRE(img);

        /* Bit-exact: 0, and restore needs the freeze first. */
        struct dmo_snapshot *r = sim(pages * PS, 1234, NULL, DMO_SNAPSHOT_RESUME);
        REQUIRE(r);
        CHECK_INT(give_back(r, img, pages), ==, 0);
        CHECK_INT(r->ops->write_image(r, img, PS), ==, -EFBIG);
        CHECK_INT(r->ops->atomic_restore(r), ==, -EPERM);
        CHECK_INT(r->ops->freeze(r), ==, 0);
        CHECK_INT(r->ops->atomic_restore(r), ==, 0);
        uint64_t pg;
        uint32_t off;
        CHECK_INT(dmo_sim_kernel_first_mismatch(r, &pg, &off), ==, -ENOENT);
        /* Loaded image pins the freeze too, until it is freed. */
        CHECK_INT(r->ops->unfreeze(r), ==, 0);
        CHECK(dmo_sim_kernel_frozen(r));
        CHECK_INT(r->ops->free_image(r), ==, 0);
        CHECK_INT(r->ops->unfreeze(r), ==, 0);
        CHECK(!dmo_sim_kernel_frozen(r));
        dmo_snapshot_free(r);

        /* One flipped byte: -EILSEQ naming the page and byte; written in odd
         * pieces to check partial writes are reassembled. */
        img[123 * PS + 777] ^= 0x01;
        img[200 * PS + 5] ^= 0x80;
        r = sim(pages * PS, 1234, NULL, DMO_SNAPSHOT_RESUME);
        REQUIRE(r);
        size_t done = 0, total = pages * PS;
        while (done < total) {
                size_t want = total - done < 1000 ? total - done : 1000;
                ssize_t n = r->ops->write_image(r, img + done, want);
                REQUIRE(n > 0);
                done += (size_t)n;
        }
        REQUIRE(r->ops->freeze(r) == 0);
        CHECK_INT(r->ops->atomic_restore(r), ==, -EILSEQ);
        CHECK_INT(dmo_sim_kernel_first_mismatch(r, &pg, &off), ==, 0);
        CHECK_INT(pg, ==, 123);
        CHECK_INT(off, ==, 777);
        dmo_snapshot_free(r);
        img[123 * PS + 777] ^= 0x01;
        img[200 * PS + 5] ^= 0x80;

        /* Missing pages. */
        r = sim(pages * PS, 1234, NULL, DMO_SNAPSHOT_RESUME);
        REQUIRE(r);
        CHECK_INT(give_back(r, img, pages - 1), ==, 0);
        REQUIRE(r->ops->freeze(r) == 0);
        CHECK_INT(r->ops->atomic_restore(r), ==, -ENODATA);
        dmo_snapshot_free(r);

        /* Nothing at all. */
        r = sim(pages * PS, 1234, NULL, DMO_SNAPSHOT_RESUME);
        REQUIRE(r);
        REQUIRE(r->ops->freeze(r) == 0);
        CHECK_INT(r->ops->atomic_restore(r), ==, -ENODATA);
        int in_suspend;
        CHECK_INT(r->ops->create_image(r, &in_suspend), ==, -EPERM);
        CHECK_INT(r->ops->read_image(r, img, PS), ==, -EBADF);
        dmo_snapshot_free(r);
        free(img);
}

static void test_resume_refuses_a_foreign_page_zero(void)
{
        const uint64_t pages = 10;
        uint8_t *img = take_image(pages, 55, NULL);
        REQUIRE(img);
        uint8_t page0[PS];
        memcpy(page0, img, PS);

        /* Not a sim header at all. */
        struct dmo_snapshot *r = sim(pages * PS, 55, NULL, DMO_SNAPSHOT_RESUME);
        REQUIRE(r);
        CHECK_INT(r->ops->write_image(r, img + PS, PS), ==, -EINVAL);
        CHECK_INT(r->ops->write_image(r, page0, PS), ==, PS); /* the real one still goes in */
        dmo_snapshot_free(r);

        /* Another seed (the resume was given the wrong --sim-seed). */
        r = sim(pages * PS, 56, NULL, DMO_SNAPSHOT_RESUME);
        REQUIRE(r);
        CHECK_INT(r->ops->write_image(r, page0, PS), ==, -EINVAL);
        dmo_snapshot_free(r);

        /* Made by another kernel. */
        free(img);
        img = take_image(pages, 55, "0.0.0-other");
        REQUIRE(img);
        r = sim(pages * PS, 55, NULL, DMO_SNAPSHOT_RESUME);
        REQUIRE(r);
        CHECK_INT(r->ops->write_image(r, img, PS), ==, -EINVAL);
        struct dmo_kernel_identity id;
        CHECK_INT(r->ops->identity(r, &id), ==, 0);
        CHECK(strcmp(id.release, "0.0.0-other") != 0);
        CHECK_INT(id.page_size, ==, PS);
        dmo_snapshot_free(r);
        free(img);
}

static void test_crash_checkpoint_kills_like_a_power_cut(void)
{
        struct dmo_fault_plan *plan = NULL;
        REQUIRE(dmo_fault_plan_parse("crash@header-written", &plan) == 0);
        struct dmo_snapshot *s = sim(8 * PS, 1, plan, DMO_SNAPSHOT_HIBERNATE);
        REQUIRE(s);
        fflush(stdout);
        pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
                dmo_snapshot_checkpoint(s, DMO_CP_DATA_WRITTEN);
                dmo_snapshot_checkpoint(s, DMO_CP_HEADER_WRITTEN);
                _exit(0);
        }
        int status = 0;
        REQUIRE(waitpid(pid, &status, 0) == pid);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        /* Without the plan the same calls are harmless. */
        dmo_snapshot_checkpoint(s, DMO_CP_DATA_WRITTEN);
        dmo_snapshot_free(s);
        dmo_fault_plan_free(plan);
}

/* The whole kernel side of a cycle, without the engine: pages out of a
 * hibernating sim into slots of a mkswap'd file, back from those slots
 * into a resuming sim, restored bit-exact; with short writes on the way. */
static void test_pages_survive_a_trip_through_swap_slots(void)
{
        char path[512];
        REQUIRE(mkswap_file("trip", "8M", path, sizeof(path)));
        struct dmo_fault_plan *plan = NULL;
        REQUIRE(dmo_fault_plan_parse("short-write", &plan) == 0);
        const uint64_t pages = 1000;
        struct dmo_snapshot *h = sim(pages * PS, 31337, plan, DMO_SNAPSHOT_HIBERNATE);
        REQUIRE(h);
        struct dmo_swap_target t = {.path = path};
        REQUIRE(h->ops->set_swap_area(h, &t) == 0);
        struct dmo_blockdev *d = NULL;
        REQUIRE(dmo_blockdev_open(path, true, dmo_sim_kernel_faults(h), &d) == 0);
        int in_suspend;
        REQUIRE(h->ops->freeze(h) == 0 && h->ops->create_image(h, &in_suspend) == 0);
        static uint64_t where[1000];
        static uint8_t page[PS];
        uint64_t n = 0;
        ssize_t got;
        while ((got = h->ops->read_image(h, page, PS)) == PS) {
                REQUIRE(n < pages);
                REQUIRE(h->ops->alloc_swap_page(h, &where[n]) == 0);
                REQUIRE(dmo_blockdev_pwrite(d, page, PS, where[n]) == 0);
                n++;
        }
        CHECK_INT(got, ==, 0);
        CHECK_INT(n, ==, pages);
        CHECK_INT(dmo_blockdev_sync(d), ==, 0);
        dmo_snapshot_free(h);

        struct dmo_snapshot *r = sim(pages * PS, 31337, NULL, DMO_SNAPSHOT_RESUME);
        REQUIRE(r);
        for (uint64_t i = 0; i < n; i++) {
                REQUIRE(dmo_blockdev_pread(d, page, PS, where[i]) == 0);
                REQUIRE(r->ops->write_image(r, page, PS) == PS);
        }
        REQUIRE(r->ops->freeze(r) == 0);
        CHECK_INT(r->ops->atomic_restore(r), ==, 0);
        dmo_snapshot_free(r);
        dmo_blockdev_free(d);
        dmo_fault_plan_free(plan);
}

/* direct_io: the target opened as a block device is, around the page
 * cache, where the file system allows O_DIRECT; buffered otherwise, and
 * without it. */
static void test_direct_io_opens_the_target_around_the_page_cache(void)
{
        char path[512];
        REQUIRE(mkswap_file("swap-direct", "1M", path, sizeof(path)));
        int fd = open(path, O_RDONLY | O_DIRECT);
        const bool fs_direct = fd >= 0;
        if (fd >= 0)
                close(fd);
        struct dmo_swap_target t = {.path = path};
        for (int direct = 0; direct < 2; direct++) {
                struct dmo_sim_params p = {
                    .size_bytes = 64 * PS, .seed = 1, .page_size = PS, .direct_io = direct};
                struct dmo_snapshot *s = NULL;
                REQUIRE(dmo_sim_kernel_new(&p, DMO_SNAPSHOT_HIBERNATE, &s) == 0);
                struct dmo_blockdev *d = NULL;
                REQUIRE(s->ops->open_target(s, &t, &d) == 0);
                CHECK(dmo_blockdev_direct(d) == (direct && fs_direct));
                /* An aligned page goes through either way. */
                uint8_t *page = aligned_alloc(PS, PS);
                REQUIRE(page);
                CHECK_INT(dmo_blockdev_pread(d, page, PS, PS), ==, 0);
                CHECK_INT(dmo_blockdev_pwrite(d, page, PS, PS), ==, 0);
                free(page);
                dmo_blockdev_free(d);
                dmo_snapshot_free(s);
        }
}

static void test_bad_parameters_are_refused(void)
{
        struct dmo_snapshot *s = NULL;
        struct dmo_sim_params p = {.size_bytes = PS, .seed = 1};
        CHECK_INT(dmo_sim_kernel_new(&p, DMO_SNAPSHOT_HIBERNATE, &s), ==, -EINVAL);
        p.size_bytes = 64 * PS;
        p.page_size = 3000;
        CHECK_INT(dmo_sim_kernel_new(&p, DMO_SNAPSHOT_HIBERNATE, &s), ==, -EINVAL);
        p.page_size = 0;
        CHECK_INT(dmo_sim_kernel_new(&p, (enum dmo_snapshot_mode)9, &s), ==, -EINVAL);
        CHECK_INT(dmo_sim_kernel_new(NULL, DMO_SNAPSHOT_HIBERNATE, &s), ==, -EINVAL);
        CHECK(s == NULL);
}

DMO_TEST_MAIN(
    T(test_hibernate_preconditions_match_the_kernel),
    T(test_read_stream_is_header_then_pages_then_end), T(test_batched_transfers_match_page_by_page),
    T(test_pref_image_size_shrinks_down_to_half), T(test_allocation_stays_inside_a_mkswap_area),
    T(test_allocation_honours_header_offset_and_planned_enospc),
    T(test_set_swap_area_refuses_what_is_not_swap), T(test_resume_verifies_every_page),
    T(test_resume_refuses_a_foreign_page_zero), T(test_crash_checkpoint_kills_like_a_power_cut),
    T(test_pages_survive_a_trip_through_swap_slots),
    T(test_direct_io_opens_the_target_around_the_page_cache), T(test_bad_parameters_are_refused))
