/* The engine in-process, behind a recording snapshot: a table of ops that
 * logs every kernel call and hook, can fail any call, and checks at every
 * thaw that no valid image is on disk. It wraps the simulated kernel, so
 * the kernel's rules and the bit-exact restore check still hold.
 *
 * What it pins down: the order of kernel calls on success; that every
 * failure and every abort unwinds to a thawed system and a plain swap area;
 * that a machine still up after the signature (woke from RAM, failed power
 * off) never thaws with the image on disk, and goes down into the image
 * when the signature will not come off; that signals are ignored from the
 * signature to the shutdown; and that a resume which cannot take the image
 * off its device says so instead of pretending the swap area is plain. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <unistd.h>

#include "crypto/crypto.h"
#include "engine/critical.h"
#include "engine/engine.h"
#include "image/reader.h"
#include "image/sigdev.h"
#include "kernel/blockdev.h"
#include "kernel/faults.h"
#include "kernel/sim_kernel.h"
#include "progress/progress.h"
#include "testlib.h"
#include "image-testutil.h"

enum { SIM_PAGES = 512, SWAP_PAGES = 2048 };

struct recorder {
        struct dmo_snapshot base;
        struct dmo_snapshot *inner;
        struct dmo_progress *progress;
        char log[4096];
        const char *last;
        /* Fail the fail_nth call (1-based) of fail_op with fail_err. */
        const char *fail_op;
        unsigned fail_nth, calls;
        int fail_err;
        /* Abort (as Esc would) when this hook runs. */
        const char *abort_at;
        /* Observations. */
        bool thawed_with_image; /* an unfreeze found a valid signature on disk */
        bool signals_ignored_at_shutdown;
        struct dmo_blockdev *dev; /* the engine's, from open_target */
        uint64_t writes_at_shutdown;
        const char *swap_path;
        uint32_t ps;
        /* From the second avail_swap call on (after the snapshot), say
         * this much is free. */
        bool avail_later_set;
        uint64_t avail_later;
        unsigned avail_calls;
        uint64_t prefs[4]; /* what pref_image_size was given, in order */
        unsigned nprefs;
};

static struct recorder *rec_of(struct dmo_snapshot *s)
{
        return (struct recorder *)s;
}

/* Logs a call once per run of the same call (pages move in many calls). */
static void note(struct recorder *r, const char *what)
{
        if (r->last && strcmp(r->last, what) == 0)
                return;
        r->last = what;
        size_t len = strlen(r->log);
        snprintf(r->log + len, sizeof(r->log) - len, "%s%s", len ? " " : "", what);
}

static int injected(struct recorder *r, const char *op)
{
        if (!r->fail_op || strcmp(r->fail_op, op) != 0)
                return 0;
        return ++r->calls == r->fail_nth ? r->fail_err : 0;
}

static bool image_on_disk(struct recorder *r)
{
        struct dmo_blockdev *d;
        if (dmo_blockdev_open(r->swap_path, false, NULL, &d) < 0)
                return false;
        struct dmo_sig sig;
        bool present = dmo_sig_read(d, 0, r->ps, &sig) == 0;
        dmo_blockdev_free(d);
        return present;
}

#define WRAP(name, params, args)                                                                   \
        static int rec_##name params                                                               \
        {                                                                                          \
                struct recorder *r = rec_of(s);                                                    \
                note(r, #name);                                                                    \
                int e = injected(r, #name);                                                        \
                if (e)                                                                             \
                        return e;                                                                  \
                return r->inner->ops->name args;                                                   \
        }

WRAP(set_swap_area, (struct dmo_snapshot * s, const struct dmo_swap_target *t), (r->inner, t))
WRAP(freeze, (struct dmo_snapshot * s), (r->inner))
static int rec_pref_image_size(struct dmo_snapshot *s, uint64_t b)
{
        struct recorder *r = rec_of(s);
        note(r, "pref_image_size");
        int e = injected(r, "pref_image_size");
        if (e)
                return e;
        if (r->nprefs < sizeof(r->prefs) / sizeof(r->prefs[0]))
                r->prefs[r->nprefs++] = b;
        return r->inner->ops->pref_image_size(r->inner, b);
}
WRAP(get_pref_image_size, (struct dmo_snapshot * s, uint64_t *b), (r->inner, b))
WRAP(create_image, (struct dmo_snapshot * s, int *in_suspend), (r->inner, in_suspend))
WRAP(get_image_size, (struct dmo_snapshot * s, uint64_t *b), (r->inner, b))
WRAP(alloc_swap_page, (struct dmo_snapshot * s, uint64_t *off), (r->inner, off))
WRAP(free_swap_pages, (struct dmo_snapshot * s), (r->inner))
static int rec_avail_swap(struct dmo_snapshot *s, uint64_t *b)
{
        struct recorder *r = rec_of(s);
        note(r, "avail_swap");
        int e = injected(r, "avail_swap");
        if (e)
                return e;
        if (++r->avail_calls > 1 && r->avail_later_set) {
                *b = r->avail_later;
                return 0;
        }
        return r->inner->ops->avail_swap(r->inner, b);
}
WRAP(atomic_restore, (struct dmo_snapshot * s), (r->inner))
WRAP(free_image, (struct dmo_snapshot * s), (r->inner))
WRAP(platform_support, (struct dmo_snapshot * s, bool on), (r->inner, on))
WRAP(identity, (struct dmo_snapshot * s, struct dmo_kernel_identity *id), (r->inner, id))
WRAP(memory_bytes, (struct dmo_snapshot * s, uint64_t *b), (r->inner, b))
WRAP(max_image_bytes, (struct dmo_snapshot * s, uint64_t *b), (r->inner, b))
WRAP(free_memory_bytes, (struct dmo_snapshot * s, uint64_t *b), (r->inner, b))
WRAP(check_boot_stage,
     (struct dmo_snapshot * s, const struct dmo_swap_target *t, enum dmo_live_reason *why),
     (r->inner, t, why))

static int rec_unfreeze(struct dmo_snapshot *s)
{
        struct recorder *r = rec_of(s);
        note(r, "unfreeze");
        if (r->base.mode == DMO_SNAPSHOT_HIBERNATE && image_on_disk(r))
                r->thawed_with_image = true;
        return r->inner->ops->unfreeze(r->inner);
}

static ssize_t rec_read_image(struct dmo_snapshot *s, void *buf, size_t len)
{
        struct recorder *r = rec_of(s);
        note(r, "read_image");
        int e = injected(r, "read_image");
        return e ? e : r->inner->ops->read_image(r->inner, buf, len);
}

static ssize_t rec_write_image(struct dmo_snapshot *s, const void *buf, size_t len)
{
        struct recorder *r = rec_of(s);
        note(r, "write_image");
        int e = injected(r, "write_image");
        return e ? e : r->inner->ops->write_image(r->inner, buf, len);
}

static int rec_shutdown(struct dmo_snapshot *s, enum dmo_shutdown mode)
{
        struct recorder *r = rec_of(s);
        static const char *const names[] = {
            [DMO_SHUTDOWN_PLATFORM] = "shutdown(platform)",
            [DMO_SHUTDOWN_POWEROFF] = "shutdown(poweroff)",
            [DMO_SHUTDOWN_REBOOT] = "shutdown(reboot)",
            [DMO_SHUTDOWN_SUSPEND] = "shutdown(suspend)",
        };
        note(r, names[mode]);
        struct sigaction now;
        sigaction(SIGTERM, NULL, &now);
        r->signals_ignored_at_shutdown = now.sa_handler == SIG_IGN;
        if (r->dev && !r->writes_at_shutdown)
                r->writes_at_shutdown = dmo_blockdev_writes(r->dev);
        int e = injected(r, "shutdown");
        return e ? e : r->inner->ops->shutdown(r->inner, mode);
}

static int rec_open_target(struct dmo_snapshot *s, const struct dmo_swap_target *t,
                           struct dmo_blockdev **out)
{
        struct recorder *r = rec_of(s);
        note(r, "open_target");
        int e = injected(r, "open_target");
        if (e)
                return e;
        int rc = r->inner->ops->open_target(r->inner, t, out);
        if (rc == 0)
                r->dev = *out;
        return rc;
}

static void rec_checkpoint(struct dmo_snapshot *s, enum dmo_checkpoint cp)
{
        dmo_snapshot_checkpoint(rec_of(s)->inner, cp);
}

static void rec_free(struct dmo_snapshot *s)
{
}

static const struct dmo_snapshot_ops rec_ops = {
    .set_swap_area = rec_set_swap_area,
    .freeze = rec_freeze,
    .unfreeze = rec_unfreeze,
    .pref_image_size = rec_pref_image_size,
    .get_pref_image_size = rec_get_pref_image_size,
    .create_image = rec_create_image,
    .get_image_size = rec_get_image_size,
    .read_image = rec_read_image,
    .write_image = rec_write_image,
    .alloc_swap_page = rec_alloc_swap_page,
    .free_swap_pages = rec_free_swap_pages,
    .avail_swap = rec_avail_swap,
    .atomic_restore = rec_atomic_restore,
    .free_image = rec_free_image,
    .platform_support = rec_platform_support,
    .shutdown = rec_shutdown,
    .open_target = rec_open_target,
    .memory_bytes = rec_memory_bytes,
    .max_image_bytes = rec_max_image_bytes,
    .free_memory_bytes = rec_free_memory_bytes,
    .check_boot_stage = rec_check_boot_stage,
    .identity = rec_identity,
    .checkpoint = rec_checkpoint,
    .free = rec_free,
};

static void hook(void *ctx, const char *name)
{
        struct recorder *r = ctx;
        note(r, name);
        if (r->abort_at && strcmp(r->abort_at, name) == 0)
                dmo_progress_request_abort(r->progress);
}

static void h_before_freeze(void *c)
{
        hook(c, "[before_freeze]");
}
static void h_after_freeze(void *c)
{
        hook(c, "[after_freeze]");
}
static void h_before_snapshot(void *c)
{
        hook(c, "[before_snapshot]");
}
static void h_devices_thawed(void *c)
{
        hook(c, "[devices_thawed]");
}
static void h_stats_ready(void *c, const struct dmo_engine_stats *st)
{
        (void)st;
        hook(c, "[stats_ready]");
}
static void h_image_found(void *c)
{
        hook(c, "[image_found]");
}
static void h_before_restore(void *c)
{
        hook(c, "[before_restore]");
}

static const char *swap_path(void)
{
        static char path[512];
        snprintf(path, sizeof(path), "%s/swap", dmo_test_tmpdir());
        return path;
}

/* A recorder around a fresh simulated machine of SIM_PAGES pages. */
static int recorder_init(struct recorder *r, enum dmo_snapshot_mode mode, const char *faults,
                         struct dmo_fault_plan **plan)
{
        memset(r, 0, sizeof(*r));
        r->ps = (uint32_t)sysconf(_SC_PAGESIZE);
        r->swap_path = swap_path();
        *plan = NULL;
        if (faults && dmo_fault_plan_parse(faults, plan) < 0)
                return -EINVAL;
        struct dmo_sim_params sp = {
            .size_bytes = (uint64_t)SIM_PAGES * r->ps, .seed = 7, .faults = *plan};
        int e = dmo_sim_kernel_new(&sp, mode, &r->inner);
        if (e < 0)
                return e;
        r->base.ops = &rec_ops;
        r->base.mode = mode;
        return dmo_progress_new(
            mode == DMO_SNAPSHOT_HIBERNATE ? DMO_MODE_HIBERNATE : DMO_MODE_RESUME, &r->progress);
}

static void recorder_release(struct recorder *r, struct dmo_fault_plan *plan)
{
        dmo_snapshot_free(r->inner);
        dmo_progress_free(r->progress);
        dmo_fault_plan_free(plan);
}

static int hibernate_sized(struct recorder *r, enum dmo_shutdown mode, int64_t image_size,
                           struct dmo_hibernate_result *res)
{
        struct dmo_hibernate_config hc = {
            .target = {.path = r->swap_path},
            .compress = DMO_COMPRESS_LZ4,
            .threads = 1,
            .image_size = image_size,
            .shutdown = mode,
            .progress = r->progress,
            .hooks =
                {
                    .ctx = r,
                    .before_freeze = h_before_freeze,
                    .after_freeze = h_after_freeze,
                    .before_snapshot = h_before_snapshot,
                    .devices_thawed = h_devices_thawed,
                    .stats_ready = h_stats_ready,
                },
        };
        return dmo_engine_hibernate(&r->base, &hc, res);
}

static int hibernate(struct recorder *r, enum dmo_shutdown mode, struct dmo_hibernate_result *res)
{
        return hibernate_sized(r, mode, (int64_t)SIM_PAGES * r->ps, res);
}

/* The same, the image sealed with a passphrase (the cheapest KDF costs). */
static int hibernate_encrypted(struct recorder *r, struct dmo_hibernate_result *res)
{
        static const struct dmo_kdf_costs cheap = {DMO_KDF_OPSLIMIT_MIN, DMO_KDF_MEMLIMIT_MIN};
        struct dmo_crypto_key *key = NULL;
        struct dmo_crypto_envelope env;
        if (dmo_crypto_init() < 0 || dmo_crypto_key_new(&key) < 0 ||
            dmo_crypto_wrap_passphrase(key, "pass", 4, &cheap, &env) < 0) {
                dmo_crypto_key_free(key);
                return -EINVAL;
        }
        struct dmo_hibernate_config hc = {
            .target = {.path = r->swap_path},
            .compress = DMO_COMPRESS_LZ4,
            .threads = 1,
            .image_size = (int64_t)SIM_PAGES * r->ps,
            .shutdown = DMO_SHUTDOWN_PLATFORM,
            .progress = r->progress,
            .key = key,
            .envelope = &env,
        };
        int e = dmo_engine_hibernate(&r->base, &hc, res);
        dmo_crypto_key_free(key);
        return e;
}

static int resume(struct recorder *r, bool noresume, struct dmo_resume_result *res)
{
        struct dmo_resume_config rc = {
            .target = {.path = r->swap_path},
            .threads = 1,
            .noresume = noresume,
            .progress = r->progress,
            .hooks =
                {
                    .ctx = r,
                    .image_found = h_image_found,
                    .stats_ready = h_stats_ready,
                    .before_restore = h_before_restore,
                },
        };
        return dmo_engine_resume(&r->base, &rc, res);
}

/* 0: a sound image is on the swap area; -ENOENT: plain swap; else damaged. */
static int probe_swap(void)
{
        struct dmo_blockdev *d;
        uint32_t ps = (uint32_t)sysconf(_SC_PAGESIZE);
        if (dmo_blockdev_open(swap_path(), false, NULL, &d) < 0)
                return -EIO;
        struct dmo_image_info info;
        int r = dmo_image_probe(d, 0, ps, &info);
        dmo_blockdev_free(d);
        return r;
}

static bool fresh_swap(void)
{
        return tu_make_swap(swap_path(), SWAP_PAGES, (uint32_t)sysconf(_SC_PAGESIZE)) == 0;
}

/* A sealed image of the simulated machine on the swap area. */
static bool hibernated_image(void)
{
        struct recorder r;
        struct dmo_fault_plan *plan;
        struct dmo_hibernate_result res;
        if (!fresh_swap() || recorder_init(&r, DMO_SNAPSHOT_HIBERNATE, NULL, &plan) < 0)
                return false;
        hibernate(&r, DMO_SHUTDOWN_PLATFORM, &res);
        recorder_release(&r, plan);
        return res.outcome == DMO_HIBERNATE_POWERED_OFF && probe_swap() == 0;
}

static void hibernate_calls_the_kernel_in_order(void)
{
        struct recorder r;
        struct dmo_fault_plan *plan;
        struct dmo_hibernate_result res;
        REQUIRE(fresh_swap());
        REQUIRE(recorder_init(&r, DMO_SNAPSHOT_HIBERNATE, NULL, &plan) == 0);
        CHECK_INT(hibernate(&r, DMO_SHUTDOWN_PLATFORM, &res), ==, 0);
        CHECK_INT(res.outcome, ==, DMO_HIBERNATE_POWERED_OFF);
        CHECK_INT(res.shutdown_used, ==, DMO_SHUTDOWN_PLATFORM);
        CHECK(!res.went_down_into_image);
        printf("# %s\n", r.log);
        /* Up to the data phase the order is fixed; then reads and slot
         * allocations interleave as the writer needs them; the signature
         * (not a kernel call) comes after the last figures, then the end. */
        static const char prefix[] =
            "open_target identity set_swap_area avail_swap get_pref_image_size [before_freeze] "
            "freeze "
            "[after_freeze] max_image_bytes pref_image_size [before_snapshot] create_image "
            "[devices_thawed] get_image_size avail_swap read_image alloc_swap_page read_image";
        static const char suffix[] = "alloc_swap_page [stats_ready] shutdown(platform)";
        size_t len = strlen(r.log);
        CHECK(strncmp(r.log, prefix, strlen(prefix)) == 0);
        CHECK(len > strlen(suffix) && strcmp(r.log + len - strlen(suffix), suffix) == 0);
        CHECK(!strstr(r.log, "unfreeze"));
        CHECK(dmo_sim_kernel_powered_off(r.inner));
        CHECK_INT(probe_swap(), ==, 0);
        recorder_release(&r, plan);
}

/* Every kernel call that can fail, failing on its first call. */
static void every_failing_kernel_call_leaves_a_thawed_system_and_plain_swap(void)
{
        static const char *const ops[] = {
            "open_target",    "identity",        "set_swap_area",   "avail_swap",
            "freeze",         "max_image_bytes", "pref_image_size", "create_image",
            "get_image_size", "read_image",      "alloc_swap_page",
        };
        for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
                struct recorder r;
                struct dmo_fault_plan *plan;
                struct dmo_hibernate_result res;
                REQUIRE(fresh_swap());
                REQUIRE(recorder_init(&r, DMO_SNAPSHOT_HIBERNATE, NULL, &plan) == 0);
                r.fail_op = ops[i];
                r.fail_nth = 1;
                r.fail_err = -EIO;
                int rc = hibernate(&r, DMO_SHUTDOWN_PLATFORM, &res);
                printf("# %s fails: %s\n", ops[i], r.log);
                CHECK_INT(rc, ==, -EIO);
                CHECK_INT(res.outcome, ==, DMO_HIBERNATE_FAILED);
                CHECK_INT(res.error, ==, -EIO);
                CHECK(!dmo_sim_kernel_frozen(r.inner));
                CHECK(!dmo_sim_kernel_powered_off(r.inner));
                CHECK(!r.thawed_with_image);
                CHECK_INT(probe_swap(), ==, -ENOENT);
                /* Past the freeze, the way back ends with a thaw and the
                 * helper threads started again. */
                if (strstr(r.log, " freeze") && strcmp(ops[i], "freeze") != 0)
                        CHECK(strstr(r.log, "unfreeze [after_freeze]") != NULL);
                /* An image the kernel made is let go of before the thaw. */
                if (strstr(r.log, "[devices_thawed] ") && strcmp(ops[i], "create_image") != 0)
                        CHECK(strstr(r.log, "free_image [before_freeze] unfreeze") != NULL);
                /* Once the device is open (and the page size known), the
                 * area is read back and found plain. */
                if (i > 1)
                        CHECK(res.signature_cleared);
                recorder_release(&r, plan);
        }
}

/* Esc at every point before the signature. */
static void abort_at_every_hook_unwinds(void)
{
        static const char *const hooks[] = {"[before_freeze]", "[after_freeze]",
                                            "[before_snapshot]", "[devices_thawed]",
                                            "[stats_ready]"};
        for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
                struct recorder r;
                struct dmo_fault_plan *plan;
                struct dmo_hibernate_result res;
                REQUIRE(fresh_swap());
                REQUIRE(recorder_init(&r, DMO_SNAPSHOT_HIBERNATE, NULL, &plan) == 0);
                r.abort_at = hooks[i];
                CHECK_INT(hibernate(&r, DMO_SHUTDOWN_PLATFORM, &res), ==, 0);
                printf("# abort at %s: %s\n", hooks[i], r.log);
                CHECK_INT(res.outcome, ==, DMO_HIBERNATE_ABORTED);
                CHECK(!dmo_sim_kernel_frozen(r.inner));
                CHECK(!r.thawed_with_image);
                CHECK(!strstr(r.log, "shutdown("));
                CHECK_INT(probe_swap(), ==, -ENOENT);
                recorder_release(&r, plan);
        }
}

static void waking_from_ram_removes_the_image_before_the_thaw(void)
{
        struct recorder r;
        struct dmo_fault_plan *plan;
        struct dmo_hibernate_result res;
        REQUIRE(fresh_swap());
        REQUIRE(recorder_init(&r, DMO_SNAPSHOT_HIBERNATE, NULL, &plan) == 0);
        CHECK_INT(hibernate(&r, DMO_SHUTDOWN_SUSPEND, &res), ==, 0);
        printf("# %s\n", r.log);
        CHECK_INT(res.outcome, ==, DMO_HIBERNATE_RESUMED);
        CHECK(strstr(r.log, "shutdown(suspend) free_swap_pages free_image [before_freeze] "
                            "unfreeze [after_freeze]") != NULL);
        CHECK(!r.thawed_with_image);
        CHECK(!dmo_sim_kernel_frozen(r.inner));
        CHECK_INT(probe_swap(), ==, -ENOENT);
        recorder_release(&r, plan);
}

/* How many writes reach the device up to the shutdown, so a plan can make
 * every write after the signature fail. */
static uint64_t writes_before_shutdown(enum dmo_shutdown mode)
{
        struct recorder r;
        struct dmo_fault_plan *plan;
        struct dmo_hibernate_result res;
        if (!fresh_swap() || recorder_init(&r, DMO_SNAPSHOT_HIBERNATE, NULL, &plan) < 0)
                return 0;
        hibernate(&r, mode, &res);
        uint64_t n = r.writes_at_shutdown;
        recorder_release(&r, plan);
        return n;
}

static void woken_machine_whose_signature_will_not_come_off_reboots_into_the_image(void)
{
        uint64_t n = writes_before_shutdown(DMO_SHUTDOWN_SUSPEND);
        REQUIRE(n > 0);
        char faults[64];
        snprintf(faults, sizeof(faults), "readonly@%llu", (unsigned long long)n + 1);
        struct recorder r;
        struct dmo_fault_plan *plan;
        struct dmo_hibernate_result res;
        REQUIRE(fresh_swap());
        REQUIRE(recorder_init(&r, DMO_SNAPSHOT_HIBERNATE, faults, &plan) == 0);
        CHECK_INT(hibernate(&r, DMO_SHUTDOWN_SUSPEND, &res), ==, 0);
        printf("# %s\n", r.log);
        CHECK_INT(res.outcome, ==, DMO_HIBERNATE_POWERED_OFF);
        CHECK(res.went_down_into_image);
        CHECK_INT(res.shutdown_used, ==, DMO_SHUTDOWN_REBOOT);
        CHECK_INT(res.sig_error, ==, -EROFS);
        CHECK(!strstr(r.log, "unfreeze"));
        CHECK(dmo_sim_kernel_powered_off(r.inner));
        /* The image still matches the (simulated) disks: it stays, whole. */
        CHECK_INT(probe_swap(), ==, 0);
        recorder_release(&r, plan);
}

static void failed_power_off_removes_the_image_then_thaws_and_fails(void)
{
        struct recorder r;
        struct dmo_fault_plan *plan;
        struct dmo_hibernate_result res;
        REQUIRE(fresh_swap());
        REQUIRE(recorder_init(&r, DMO_SNAPSHOT_HIBERNATE, "shutdown-fails", &plan) == 0);
        CHECK_INT(hibernate(&r, DMO_SHUTDOWN_POWEROFF, &res), ==, -EIO);
        printf("# %s\n", r.log);
        CHECK_INT(res.outcome, ==, DMO_HIBERNATE_FAILED);
        CHECK_INT(res.step, ==, DMO_STEP_POWER_OFF);
        CHECK(res.signature_cleared);
        CHECK(!r.thawed_with_image);
        CHECK(!dmo_sim_kernel_frozen(r.inner));
        CHECK_INT(probe_swap(), ==, -ENOENT);
        recorder_release(&r, plan);
}

static void failed_power_off_and_stuck_signature_go_down_into_the_image(void)
{
        uint64_t n = writes_before_shutdown(DMO_SHUTDOWN_POWEROFF);
        REQUIRE(n > 0);
        char faults[64];
        snprintf(faults, sizeof(faults), "shutdown-fails,readonly@%llu", (unsigned long long)n + 1);
        struct recorder r;
        struct dmo_fault_plan *plan;
        struct dmo_hibernate_result res;
        REQUIRE(fresh_swap());
        REQUIRE(recorder_init(&r, DMO_SNAPSHOT_HIBERNATE, faults, &plan) == 0);
        CHECK_INT(hibernate(&r, DMO_SHUTDOWN_POWEROFF, &res), ==, 0);
        printf("# %s\n", r.log);
        CHECK_INT(res.outcome, ==, DMO_HIBERNATE_POWERED_OFF);
        CHECK(res.went_down_into_image);
        CHECK(strstr(r.log, "shutdown(poweroff) shutdown(reboot)") != NULL);
        CHECK(!strstr(r.log, "unfreeze"));
        CHECK_INT(probe_swap(), ==, 0);
        recorder_release(&r, plan);
}

/* The signature write itself fails (its one write is the last before the
 * shutdown): whatever reached the disk comes off, then the system thaws. */
static void failed_signature_write_thaws_with_plain_swap(void)
{
        uint64_t n = writes_before_shutdown(DMO_SHUTDOWN_PLATFORM);
        REQUIRE(n > 0);
        static const char *const plans[] = {"eio-write", "readonly"};
        for (size_t i = 0; i < 2; i++) {
                char faults[64];
                snprintf(faults, sizeof(faults), "%s@%llu", plans[i], (unsigned long long)n);
                struct recorder r;
                struct dmo_fault_plan *plan;
                struct dmo_hibernate_result res;
                REQUIRE(fresh_swap());
                REQUIRE(recorder_init(&r, DMO_SNAPSHOT_HIBERNATE, faults, &plan) == 0);
                CHECK_INT(hibernate(&r, DMO_SHUTDOWN_PLATFORM, &res), <, 0);
                printf("# %s: %s\n", faults, r.log);
                CHECK_INT(res.outcome, ==, DMO_HIBERNATE_FAILED);
                CHECK_INT(res.step, ==, DMO_STEP_SIGNATURE);
                CHECK(!strstr(r.log, "shutdown("));
                CHECK(!r.thawed_with_image);
                CHECK(!dmo_sim_kernel_frozen(r.inner));
                CHECK_INT(probe_swap(), ==, -ENOENT);
                recorder_release(&r, plan);
        }
}

static void signals_are_ignored_from_the_signature_to_the_shutdown(void)
{
        struct sigaction mine = {.sa_handler = SIG_DFL}, after;
        sigemptyset(&mine.sa_mask);
        sigaction(SIGTERM, &mine, NULL);
        struct recorder r;
        struct dmo_fault_plan *plan;
        struct dmo_hibernate_result res;
        REQUIRE(fresh_swap());
        REQUIRE(recorder_init(&r, DMO_SNAPSHOT_HIBERNATE, NULL, &plan) == 0);
        hibernate(&r, DMO_SHUTDOWN_PLATFORM, &res);
        CHECK(r.signals_ignored_at_shutdown);
        sigaction(SIGTERM, NULL, &after);
        CHECK(after.sa_handler == SIG_DFL); /* the window closed again */
        recorder_release(&r, plan);
}

static void critical_window_ignores_and_restores_every_signal(void)
{
        const int *sigs = dmo_critical_signals();
        /* Defaults first: a test started as a background job inherits
         * SIGINT and SIGQUIT ignored, which the window must not hide. */
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        sigemptyset(&dfl.sa_mask);
        for (int i = 0; i < DMO_CRITICAL_SIGNALS; i++)
                sigaction(sigs[i], &dfl, NULL);
        struct dmo_critical c = {0};
        dmo_critical_enter(&c);
        for (int i = 0; i < DMO_CRITICAL_SIGNALS; i++) {
                struct sigaction now;
                sigaction(sigs[i], NULL, &now);
                CHECK(now.sa_handler == SIG_IGN);
        }
        CHECK_INT(raise(SIGTERM), ==, 0); /* would end the test otherwise */
        CHECK_INT(raise(SIGHUP), ==, 0);
        dmo_critical_leave(&c);
        dmo_critical_leave(&c); /* closing twice is harmless */
        for (int i = 0; i < DMO_CRITICAL_SIGNALS; i++) {
                struct sigaction now;
                sigaction(sigs[i], NULL, &now);
                CHECK(now.sa_handler == SIG_DFL);
        }
}

static void resume_calls_the_kernel_in_order(void)
{
        REQUIRE(hibernated_image());
        struct recorder r;
        struct dmo_fault_plan *plan;
        struct dmo_resume_result res;
        REQUIRE(recorder_init(&r, DMO_SNAPSHOT_RESUME, NULL, &plan) == 0);
        CHECK_INT(resume(&r, false, &res), ==, 0);
        printf("# %s\n", r.log);
        CHECK_INT(res.outcome, ==, DMO_RESUME_RESTORED);
        /* The image was saved in platform mode: restored through it too. */
        CHECK(
            strcmp(
                r.log,
                "identity open_target check_boot_stage [image_found] write_image "
                "[stats_ready] [before_restore] platform_support freeze atomic_restore free_image "
                "unfreeze") == 0);
        CHECK_INT(probe_swap(), ==, -ENOENT);
        recorder_release(&r, plan);
}

static void resume_that_cannot_remove_the_image_keeps_it_and_says_so(void)
{
        REQUIRE(hibernated_image());
        struct recorder r;
        struct dmo_fault_plan *plan;
        struct dmo_resume_result res;
        REQUIRE(recorder_init(&r, DMO_SNAPSHOT_RESUME, "readonly@1", &plan) == 0);
        CHECK_INT(resume(&r, false, &res), ==, -EROFS);
        printf("# %s\n", r.log);
        CHECK_INT(res.outcome, ==, DMO_RESUME_KEPT);
        CHECK_INT(res.step, ==, DMO_STEP_SIGNATURE);
        CHECK(!res.signature_cleared);
        CHECK(!strstr(r.log, "atomic_restore")); /* never restored without removing it */
        CHECK(!dmo_sim_kernel_frozen(r.inner));
        CHECK_INT(probe_swap(), ==, 0);
        recorder_release(&r, plan);

        /* noresume on the same read-only device: still there, still said. */
        REQUIRE(recorder_init(&r, DMO_SNAPSHOT_RESUME, "readonly@1", &plan) == 0);
        resume(&r, true, &res);
        CHECK_INT(res.outcome, ==, DMO_RESUME_KEPT);
        CHECK_INT(probe_swap(), ==, 0);
        recorder_release(&r, plan);

        /* Writable again: the same image restores bit for bit. */
        REQUIRE(recorder_init(&r, DMO_SNAPSHOT_RESUME, NULL, &plan) == 0);
        CHECK_INT(resume(&r, false, &res), ==, 0);
        CHECK_INT(res.outcome, ==, DMO_RESUME_RESTORED);
        recorder_release(&r, plan);
}

static void failed_restore_puts_plain_swap_back(void)
{
        REQUIRE(hibernated_image());
        struct recorder r;
        struct dmo_fault_plan *plan;
        struct dmo_resume_result res;
        REQUIRE(recorder_init(&r, DMO_SNAPSHOT_RESUME, NULL, &plan) == 0);
        r.fail_op = "atomic_restore";
        r.fail_nth = 1;
        r.fail_err = -EBUSY;
        CHECK_INT(resume(&r, false, &res), ==, -EBUSY);
        CHECK_INT(res.outcome, ==, DMO_RESUME_FAILED);
        CHECK_INT(res.step, ==, DMO_STEP_RESTORE);
        CHECK(strstr(r.log, "atomic_restore free_image unfreeze") != NULL);
        CHECK(!dmo_sim_kernel_frozen(r.inner));
        CHECK(res.signature_cleared);
        CHECK_INT(probe_swap(), ==, -ENOENT);
        recorder_release(&r, plan);
}

/* The kernel's preference as the simulated kernel holds it now. */
static uint64_t sim_pref(struct recorder *r)
{
        uint64_t b = 0;
        CHECK_INT(r->inner->ops->get_pref_image_size(r->inner, &b), ==, 0);
        return b;
}

/* Unset, the image size asked for is the kernel's preference plus what
 * dormouse itself holds (the image saves it too), and the kernel's own
 * preference is back once the system goes on. */
static void unset_image_size_asks_for_the_kernels_preference_plus_dormouse(void)
{
        struct recorder r;
        struct dmo_fault_plan *plan;
        struct dmo_hibernate_result res;
        REQUIRE(fresh_swap());
        REQUIRE(recorder_init(&r, DMO_SNAPSHOT_HIBERNATE, NULL, &plan) == 0);
        const uint64_t kernel = 100ull * r.ps;
        REQUIRE(r.inner->ops->pref_image_size(r.inner, kernel) == 0);
        r.abort_at = "[stats_ready]";
        CHECK_INT(hibernate_sized(&r, DMO_SHUTDOWN_PLATFORM, -1, &res), ==, 0);
        CHECK_INT(res.outcome, ==, DMO_HIBERNATE_ABORTED);
        REQUIRE(r.nprefs == 2);
        uint64_t own = r.prefs[0] - kernel;
        CHECK(r.prefs[0] > kernel);
        /* this test program: more than a page, less than a GiB */
        CHECK(own >= r.ps && own < (1ull << 30));
        CHECK_INT(res.image_size_asked, ==, r.prefs[0]);
        CHECK_INT(r.prefs[1], ==, kernel);
        CHECK_INT(sim_pref(&r), ==, kernel);
        recorder_release(&r, plan);
}

/* "As small as possible" is the kernel's to keep: nothing is asked. */
static void kernels_smallest_image_preference_is_left_alone(void)
{
        struct recorder r;
        struct dmo_fault_plan *plan;
        struct dmo_hibernate_result res;
        REQUIRE(fresh_swap());
        REQUIRE(recorder_init(&r, DMO_SNAPSHOT_HIBERNATE, NULL, &plan) == 0);
        REQUIRE(r.inner->ops->pref_image_size(r.inner, 0) == 0);
        CHECK_INT(hibernate_sized(&r, DMO_SHUTDOWN_PLATFORM, -1, &res), ==, 0);
        CHECK_INT(res.outcome, ==, DMO_HIBERNATE_POWERED_OFF);
        CHECK_INT(r.nprefs, ==, 0);
        CHECK(!strstr(r.log, " pref_image_size"));
        recorder_release(&r, plan);
}

/* A preference larger than the swap area holds uncompressed is lowered to
 * what it holds, less the reserve for the header and map. */
static void image_size_asked_fits_the_swap_area_uncompressed(void)
{
        struct recorder r;
        struct dmo_fault_plan *plan;
        struct dmo_hibernate_result res;
        REQUIRE(fresh_swap());
        REQUIRE(recorder_init(&r, DMO_SNAPSHOT_HIBERNATE, NULL, &plan) == 0);
        REQUIRE(r.inner->ops->pref_image_size(r.inner, 4ull * SWAP_PAGES * r.ps) == 0);
        r.abort_at = "[before_snapshot]";
        CHECK_INT(hibernate_sized(&r, DMO_SHUTDOWN_PLATFORM, -1, &res), ==, 0);
        REQUIRE(r.nprefs >= 1);
        uint64_t avail = res.swap_free_bytes;
        CHECK(avail > 0 && avail < (uint64_t)SWAP_PAGES * r.ps);
        CHECK_INT(r.prefs[0], ==, avail - (2ull * r.ps + avail / 128));
        CHECK_INT(sim_pref(&r), ==, 4ull * SWAP_PAGES * r.ps);
        recorder_release(&r, plan);
}

/* Where the kernel's preference cannot be read, its default (2/5 of
 * memory) stands in for it, and the hibernation goes on. */
static void unreadable_preference_counts_as_the_kernels_default(void)
{
        struct recorder r;
        struct dmo_fault_plan *plan;
        struct dmo_hibernate_result res;
        REQUIRE(fresh_swap());
        REQUIRE(recorder_init(&r, DMO_SNAPSHOT_HIBERNATE, NULL, &plan) == 0);
        r.fail_op = "get_pref_image_size";
        r.fail_nth = 1;
        r.fail_err = -ENOENT;
        CHECK_INT(hibernate_sized(&r, DMO_SHUTDOWN_PLATFORM, -1, &res), ==, 0);
        CHECK_INT(res.outcome, ==, DMO_HIBERNATE_POWERED_OFF);
        REQUIRE(r.nprefs == 1);
        const uint64_t dflt = (uint64_t)SIM_PAGES * r.ps / 5 * 2;
        CHECK(r.prefs[0] > dflt && r.prefs[0] - dflt < (1ull << 30));
        recorder_release(&r, plan);
}

/* After the snapshot the engine asks again what the swap area has free:
 * the writer may store chunks uncompressed only when the whole image fits
 * that way, with its chunk headers, tags, map and reserve (an encrypted
 * image too: whether storing pays there is the codec's measurement, see
 * codec-pool). A failing question keeps compression on and the hibernation
 * goes on. */
static void storing_uncompressed_needs_room_for_the_whole_image(void)
{
        static const struct {
                const char *what;
                /* 0: as the area is; 1: exactly the image; 2: the question
                 * fails; 3: as the area is, the image encrypted */
                int later;
                bool allowed;
        } cases[] = {
            {"a swap area four times the image", 0, true},
            {"room for the pages alone", 1, false},
            {"free space unknown", 2, false},
            {"encrypted, with the same room", 3, true},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct recorder r;
                struct dmo_fault_plan *plan;
                struct dmo_hibernate_result res;
                REQUIRE(fresh_swap());
                REQUIRE(recorder_init(&r, DMO_SNAPSHOT_HIBERNATE, NULL, &plan) == 0);
                if (cases[i].later == 1) {
                        r.avail_later_set = true;
                        r.avail_later = (uint64_t)SIM_PAGES * r.ps;
                } else if (cases[i].later == 2) {
                        r.fail_op = "avail_swap";
                        r.fail_nth = 2;
                        r.fail_err = -EIO;
                }
                if (cases[i].later == 3)
                        CHECK_INT(hibernate_encrypted(&r, &res), ==, 0);
                else
                        CHECK_INT(hibernate(&r, DMO_SHUTDOWN_PLATFORM, &res), ==, 0);
                printf("# %s: store %s\n", cases[i].what,
                       res.store_allowed ? "allowed" : "not allowed");
                CHECK_INT(res.outcome, ==, DMO_HIBERNATE_POWERED_OFF);
                CHECK(res.store_allowed == cases[i].allowed);
                CHECK_INT(probe_swap(), ==, 0);
                recorder_release(&r, plan);
        }
}

DMO_TEST_MAIN(T(hibernate_calls_the_kernel_in_order),
              T(every_failing_kernel_call_leaves_a_thawed_system_and_plain_swap),
              T(abort_at_every_hook_unwinds), T(waking_from_ram_removes_the_image_before_the_thaw),
              T(woken_machine_whose_signature_will_not_come_off_reboots_into_the_image),
              T(failed_power_off_removes_the_image_then_thaws_and_fails),
              T(failed_power_off_and_stuck_signature_go_down_into_the_image),
              T(failed_signature_write_thaws_with_plain_swap),
              T(signals_are_ignored_from_the_signature_to_the_shutdown),
              T(critical_window_ignores_and_restores_every_signal),
              T(resume_calls_the_kernel_in_order),
              T(resume_that_cannot_remove_the_image_keeps_it_and_says_so),
              T(failed_restore_puts_plain_swap_back),
              T(unset_image_size_asks_for_the_kernels_preference_plus_dormouse),
              T(kernels_smallest_image_preference_is_left_alone),
              T(image_size_asked_fits_the_swap_area_uncompressed),
              T(storing_uncompressed_needs_room_for_the_whole_image),
              T(unreadable_preference_counts_as_the_kernels_default))
