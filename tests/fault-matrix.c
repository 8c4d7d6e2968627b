/* fault-matrix: every fault class against the three things that must never
 * happen, counted over many trials and printed as one table:
 *
 *   stale    a valid image left on disk while the system runs (it would be
 *            restored over file systems changed since), or left after a
 *            restore (it would be restored twice);
 *   wrong    a restore whose memory differs from what was saved (the
 *            simulated kernel compares every page);
 *   unusable a swap area left neither plain swap nor holding an image that
 *            a boot stopped for.
 *
 * Each trial is a hibernation and the boot after it, each in a child
 * process: a power loss (crash@, or SIGKILL at a page of the data phase) is
 * the child dying with the machine off; any other death of the process
 * (a signal) leaves a running system, as closing /dev/snapshot thaws it.
 * Encrypted images add two rows: a wrong passphrase (the image must stay
 * whole for the next boot), then the right one; and a chunk forged with its
 * checksums recomputed (refused, swap plain again).
 * The TPM's outcomes, as the key module hands them to the engine, add three
 * rows: the TPM refusing to unseal (or absent) with no recovery key (the
 * image must stay whole), the counter no longer matching (refused, swap
 * plain again), and the counter failing once the image is authenticated
 * (kept whole). tests/engine-tpm.test runs the same through a real
 * software TPM.
 * The last line reads "fault-matrix: N trials, S stale, W wrong, U unusable".
 * DMO_TEST_SMALL=1 (the sanitizer pass) runs fewer flips and truncations. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xxhash.h>

#include "crypto/crypto.h"
#include "engine/engine.h"
#include "image/reader.h"
#include "kernel/blockdev.h"
#include "kernel/faults.h"
#include "kernel/sim_kernel.h"
#include "progress/progress.h"
#include "testlib.h"
#include "util/le.h"
#include "image-testutil.h"

enum { SIM_BYTES = 4u << 20, SWAP_PAGES = 2048, SEED = 11 };

/* What the machine is after the hibernation step. */
enum machine { MACHINE_OFF, MACHINE_RUNNING };

/* A signal sent to the engine's own process at one moment of the cycle. */
enum moment {
        AT_NONE,
        AT_BEFORE_FREEZE,   /* hibernate, before anything is written */
        AT_DATA_PAGE,       /* hibernate, at page kill_page of the data phase */
        AT_AFTER_SIGNATURE, /* hibernate, signature on disk, before the shutdown */
        AT_RESUME_LOAD,     /* resume, the image is being loaded */
        AT_BEFORE_RESTORE,  /* resume, signature off, before the jump */
};

struct trial {
        const char *hib_faults;
        const char *res_faults;
        enum dmo_shutdown shutdown;
        enum moment moment;
        int sig;            /* what is sent at the moment */
        uint64_t kill_page; /* AT_DATA_PAGE */
        bool power_loss;    /* the signal stands for power loss, not a kill */
        bool shrink;        /* AT_DATA_PAGE: cut the device to half instead of a signal */
        bool skip_hibernate;
        const char *resume_release; /* the resume's kernel, NULL: the same */
        uint64_t resume_seed;       /* 0: SEED */
        const char *hib_pass;       /* encrypt with this passphrase */
        const char *res_pass;       /* the passphrase typed at resume; NULL: none */
        int tpm_unlock;             /* the TPM's unseal fails so, no recovery key */
        int tpm_consume;            /* the TPM's counter answers so */
};

/* Argon2id at its cheapest: the matrix runs thousands of trials. */
static const struct dmo_kdf_costs cheap_kdf = {DMO_KDF_OPSLIMIT_MIN, DMO_KDF_MEMLIMIT_MIN};

struct row {
        const char *name;
        unsigned trials, restored, refused, stale, wrong, unusable;
};

static char swap_path[512];
static uint32_t page_size;
/* Shared with the hibernation child: set once the engine returned with the
 * machine down, so a signal that lands after that (the simulated machine
 * keeps running the process) is not taken for a kill of a running system. */
static volatile int *went_down;

struct watch {
        struct dmo_progress *progress;
        uint64_t page;
        int sig;
        bool shrink;
};

/* Sends the signal once the data phase reaches the page. */
static void *watcher(void *arg)
{
        struct watch *w = arg;
        for (;;) {
                struct dmo_progress_snapshot s;
                dmo_progress_sample(w->progress, &s);
                /* Only inside the data phase: a signal sampled late, after
                 * the (simulated) power off, would strike a machine that is
                 * already down. */
                if (s.phase > DMO_PHASE_WRITE)
                        return NULL;
                if (s.phase == DMO_PHASE_WRITE && s.pages_done >= w->page) {
                        struct stat st;
                        if (!w->shrink)
                                kill(getpid(), w->sig);
                        else if (stat(swap_path, &st) == 0)
                                (void)truncate(swap_path, st.st_size / 2);
                        return NULL;
                }
                usleep(100);
        }
}

struct hooks_ctx {
        const struct trial *t;
};

static void at(const struct trial *t, enum moment m)
{
        if (t->moment == m)
                kill(getpid(), t->sig);
}

static void h_before_freeze(void *c)
{
        at(((struct hooks_ctx *)c)->t, AT_BEFORE_FREEZE);
}

static enum dmo_shutdown h_choose(void *c, enum dmo_shutdown planned)
{
        at(((struct hooks_ctx *)c)->t, AT_AFTER_SIGNATURE);
        return planned;
}

static void h_image_found(void *c)
{
        at(((struct hooks_ctx *)c)->t, AT_RESUME_LOAD);
}

static void h_before_restore(void *c)
{
        at(((struct hooks_ctx *)c)->t, AT_BEFORE_RESTORE);
}

/* Child: one hibernation. Exit 0: machine off; 1: running. */
static int hibernate_child(const struct trial *t)
{
        struct dmo_fault_plan *plan = NULL;
        if (t->hib_faults && dmo_fault_plan_parse(t->hib_faults, &plan) < 0)
                return 9;
        struct dmo_sim_params sp = {.size_bytes = SIM_BYTES, .seed = SEED, .faults = plan};
        struct dmo_snapshot *snap;
        struct dmo_progress *progress;
        if (dmo_sim_kernel_new(&sp, DMO_SNAPSHOT_HIBERNATE, &snap) < 0 ||
            dmo_progress_new(DMO_MODE_HIBERNATE, &progress) < 0)
                return 9;
        struct hooks_ctx hc = {t};
        struct dmo_hibernate_config cfg = {
            .target = {.path = swap_path},
            .compress = DMO_COMPRESS_LZ4,
            .threads = 2,
            .image_size = -1,
            .shutdown = t->shutdown,
            .progress = progress,
            .hooks = {.ctx = &hc, .before_freeze = h_before_freeze, .choose_shutdown = h_choose},
        };
        struct dmo_crypto_key *key = NULL;
        struct dmo_crypto_envelope env;
        if (t->hib_pass) {
                if (dmo_crypto_init() < 0 || dmo_crypto_key_new(&key) < 0 ||
                    dmo_crypto_wrap_passphrase(key, t->hib_pass, strlen(t->hib_pass), &cheap_kdf,
                                               &env) < 0)
                        return 9;
                cfg.key = key;
                cfg.envelope = &env;
        }
        pthread_t th;
        struct watch w = {progress, t->kill_page, t->sig, t->shrink};
        if (t->moment == AT_DATA_PAGE)
                pthread_create(&th, NULL, watcher, &w);
        struct dmo_hibernate_result res;
        dmo_engine_hibernate(snap, &cfg, &res);
        if (t->moment == AT_DATA_PAGE)
                pthread_join(th, NULL);
        if (res.outcome == DMO_HIBERNATE_POWERED_OFF)
                *went_down = 1;
        return res.outcome == DMO_HIBERNATE_POWERED_OFF ? 0 : 1;
}

/* The person at the resume screen: types t->res_pass once. */
static int unlock_with(void *ctx, const struct dmo_image_info *info, struct dmo_crypto_key **key)
{
        const struct trial *t = ctx;
        if (t->tpm_unlock)
                return t->tpm_unlock;
        if (!t->res_pass)
                return -ENOKEY;
        return dmo_crypto_unwrap_passphrase(&info->header.crypto.env, t->res_pass,
                                            strlen(t->res_pass), key);
}

/* The TPM's counter once the image is authenticated. */
static int consume_with(void *ctx, const struct dmo_image_info *info)
{
        const struct trial *t = ctx;
        (void)info;
        return t->tpm_consume;
}

/* Child: one boot's resume. Exit: the outcome (enum dmo_resume_outcome). */
static int resume_child(const struct trial *t)
{
        struct dmo_fault_plan *plan = NULL;
        if (t->res_faults && dmo_fault_plan_parse(t->res_faults, &plan) < 0)
                return 99;
        struct dmo_sim_params sp = {.size_bytes = SIM_BYTES,
                                    .seed = t->resume_seed ? t->resume_seed : SEED,
                                    .faults = plan,
                                    .release_override = t->resume_release};
        struct dmo_snapshot *snap;
        struct dmo_progress *progress;
        if (dmo_sim_kernel_new(&sp, DMO_SNAPSHOT_RESUME, &snap) < 0 ||
            dmo_progress_new(DMO_MODE_RESUME, &progress) < 0)
                return 99;
        struct hooks_ctx hc = {t};
        struct dmo_resume_config cfg = {
            .target = {.path = swap_path},
            .threads = 2,
            .progress = progress,
            .hooks = {.ctx = &hc, .image_found = h_image_found, .before_restore = h_before_restore},
            .unlock = unlock_with,
            .consume = consume_with,
            .unlock_ctx = (void *)t,
        };
        struct dmo_resume_result res;
        dmo_engine_resume(snap, &cfg, &res);
        return res.outcome;
}

/* Runs fn in a child; *died_by gets the signal that ended it (0: exited). */
static int in_child(int (*fn)(const struct trial *), const struct trial *t, int *died_by)
{
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0)
                _exit(fn(t));
        int status = 0;
        waitpid(pid, &status, 0);
        *died_by = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* 0: a sound image; -ENOENT: plain swap; else a damaged or missing area. */
static int probe(void)
{
        struct dmo_blockdev *d;
        if (dmo_blockdev_open(swap_path, false, NULL, &d) < 0)
                return -EIO;
        struct dmo_image_info info;
        int r = dmo_image_probe(d, 0, page_size, &info);
        dmo_blockdev_free(d);
        return r;
}

static bool fresh_swap(void)
{
        return tu_make_swap(swap_path, SWAP_PAGES, page_size) == 0;
}

/* The system runs on: only plain swap is right. */
static void count_running(struct row *row, int probe_result)
{
        if (probe_result == 0)
                row->stale++;
        else if (probe_result != -ENOENT)
                row->unusable++;
        else
                row->refused++;
}

/* One hibernation (unless skipped) and the boots after it, counted. */
static void run_trial(struct row *row, const struct trial *t)
{
        row->trials++;
        int died_by = 0;
        if (!t->skip_hibernate) {
                *went_down = 0;
                int rc = in_child(hibernate_child, t, &died_by);
                enum machine m = MACHINE_RUNNING;
                if (*went_down)
                        m = MACHINE_OFF;
                else if (died_by) /* power loss keeps it off; a kill lets the kernel thaw */
                        m = t->power_loss ? MACHINE_OFF : MACHINE_RUNNING;
                else if (rc == 0)
                        m = MACHINE_OFF;
                if (m == MACHINE_RUNNING) {
                        count_running(row, probe());
                        return;
                }
        }
        /* Boots until one goes on: power lost during a resume means
         * another boot, without the fault this time. */
        struct trial boot_trial = *t;
        for (int boot = 0; boot < 3; boot++) {
                int outcome = in_child(resume_child, &boot_trial, &died_by);
                int p = probe();
                if (died_by && t->power_loss) {
                        boot_trial.res_faults = NULL;
                        boot_trial.moment = AT_NONE;
                        continue;
                }
                if (died_by) {
                        /* The resume process died and the boot went on. */
                        count_running(row, p);
                        return;
                }
                switch (outcome) {
                case DMO_RESUME_RESTORED:
                        if (p == 0)
                                row->stale++; /* it would be restored twice */
                        else if (p != -ENOENT)
                                row->unusable++;
                        else
                                row->restored++;
                        return;
                case DMO_RESUME_MISMATCH:
                        row->wrong++;
                        return;
                case DMO_RESUME_KEPT:
                case DMO_RESUME_OTHER_KERNEL:
                case DMO_RESUME_LOCKED:
                        /* The boot stops (another kernel's image: the
                         * machine restarts into it; a locked one: it asks
                         * again); the image must be
                         * whole. */
                        if (p != 0)
                                row->unusable++;
                        else
                                row->refused++;
                        return;
                default: /* no image, refused, failed, discarded: the boot goes on */
                        count_running(row, p);
                        return;
                }
        }
        row->unusable++; /* never settled */
}

static uint64_t xorshift(uint64_t *s)
{
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        return *s;
}

/* The sealed image every corruption starts from, kept in memory. */
struct pristine {
        uint8_t *bytes;
        size_t len;
};

static bool pristine_load(struct pristine *p)
{
        int fd = open(swap_path, O_RDONLY);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0)
                return false;
        p->len = (size_t)st.st_size;
        p->bytes = malloc(p->len);
        bool ok = p->bytes && pread(fd, p->bytes, p->len, 0) == (ssize_t)p->len;
        close(fd);
        return ok;
}

static bool pristine_write(const struct pristine *p, size_t len)
{
        int fd = open(swap_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0)
                return false;
        bool ok = pwrite(fd, p->bytes, len, 0) == (ssize_t)len;
        close(fd);
        return ok;
}

static bool page_has_data(const uint8_t *page)
{
        for (uint32_t i = 0; i < page_size; i++)
                if (page[i])
                        return true;
        return false;
}

/* A byte flipped in a page that holds data. */
static bool flip_byte(const struct pristine *p, uint64_t *rng)
{
        for (int tries = 0; tries < 10000; tries++) {
                uint64_t off = xorshift(rng) % p->len;
                if (!page_has_data(p->bytes + off / page_size * page_size))
                        continue;
                uint8_t saved = p->bytes[off];
                p->bytes[off] ^= (uint8_t)(1u << (xorshift(rng) % 8));
                bool ok = pristine_write(p, p->len);
                p->bytes[off] = saved;
                return ok;
        }
        return false;
}

/* The device cut short somewhere after its header page. */
static bool truncate_image(const struct pristine *p, uint64_t *rng)
{
        size_t at = page_size + (size_t)(xorshift(rng) % (p->len - page_size));
        return pristine_write(p, at);
}

/* The stream's byte pos as a device offset, along the image's extents. */
static uint64_t stream_at(const struct dmo_image_info *info, uint64_t pos)
{
        for (unsigned e = 0; e < info->n_extents; e++) {
                uint64_t len = info->extents[e].pages * page_size;
                if (pos < len)
                        return info->extents[e].offset + pos;
                pos -= len;
        }
        return UINT64_MAX;
}

static void stream_io(const struct dmo_image_info *info, uint8_t *dev, uint64_t pos, uint8_t *buf,
                      size_t len, bool write)
{
        for (size_t i = 0; i < len; i++) {
                uint64_t off = stream_at(info, pos + i);
                if (write)
                        dev[off] = buf[i];
                else
                        buf[i] = dev[off];
        }
}

/* Chunk `which` (mod the count) of the encrypted image gets a payload byte
 * flipped, its payload hash and header checksum recomputed; written out. */
static bool forge_chunk(const struct pristine *p, unsigned which, uint64_t *rng)
{
        struct dmo_image_info info;
        struct dmo_blockdev *d;
        if (!pristine_write(p, p->len) || dmo_blockdev_open(swap_path, false, NULL, &d) < 0)
                return false;
        int r = dmo_image_probe(d, 0, page_size, &info);
        dmo_blockdev_free(d);
        if (r < 0 || info.n_extents != info.header.extent_count)
                return false;
        uint8_t *copy = malloc(p->len);
        memcpy(copy, p->bytes, p->len);
        uint64_t pos = 0, target = which % info.header.chunk_count;
        uint8_t hdr[DMO_CHUNK_HEADER_LEN];
        for (uint64_t c = 0;; c++) {
                stream_io(&info, copy, pos, hdr, sizeof(hdr), false);
                uint32_t len = dmo_get_le32(hdr + 28);
                if (c < target) {
                        pos += sizeof(hdr) + len;
                        continue;
                }
                uint8_t *payload = malloc(len);
                stream_io(&info, copy, pos + sizeof(hdr), payload, len, false);
                payload[xorshift(rng) % len] ^= (uint8_t)(1u << (xorshift(rng) % 8));
                dmo_put_le64(hdr + 32, XXH3_64bits(payload, len));
                dmo_put_le64(hdr + 48, XXH3_64bits(hdr, 48));
                stream_io(&info, copy, pos, hdr, sizeof(hdr), true);
                stream_io(&info, copy, pos + sizeof(hdr), payload, len, true);
                free(payload);
                break;
        }
        struct pristine forged = {copy, p->len};
        bool ok = pristine_write(&forged, p->len);
        free(copy);
        return ok;
}

static void print_row(const struct row *r)
{
        printf("# %-34s %6u %9u %8u %6u %6u %9u\n", r->name, r->trials, r->restored, r->refused,
               r->stale, r->wrong, r->unusable);
}

static struct row totals = {.name = "total"};

static void add(struct row *r)
{
        print_row(r);
        totals.trials += r->trials;
        totals.restored += r->restored;
        totals.refused += r->refused;
        totals.stale += r->stale;
        totals.wrong += r->wrong;
        totals.unusable += r->unusable;
}

static void matrix(void)
{
        page_size = (uint32_t)sysconf(_SC_PAGESIZE);
        went_down = mmap(NULL, sizeof(*went_down), PROT_READ | PROT_WRITE,
                         MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        REQUIRE(went_down != MAP_FAILED);
        snprintf(swap_path, sizeof(swap_path), "%s/swap", dmo_test_tmpdir());
        bool small = getenv("DMO_TEST_SMALL") != NULL;
        const uint64_t sim_pages = SIM_BYTES / page_size;
        uint64_t rng = 0x9e3779b97f4a7c15ull;

        printf("# %-34s %6s %9s %8s %6s %6s %9s\n", "case", "trials", "restored", "refused",
               "stale", "wrong", "unusable");

        /* Power lost at every phase boundary. */
        static const char *const hib_cps[] = {
            "opened",       "frozen",         "image-created",    "data-half-written",
            "data-written", "header-written", "signature-written"};
        struct row r = {.name = "power loss at a hibernate boundary"};
        for (size_t i = 0; i < sizeof(hib_cps) / sizeof(hib_cps[0]); i++) {
                char f[64];
                snprintf(f, sizeof(f), "crash@%s", hib_cps[i]);
                REQUIRE(fresh_swap());
                run_trial(&r, &(struct trial){.hib_faults = f, .power_loss = true});
        }
        add(&r);
        struct row rr = {.name = "power loss at a resume boundary"};
        static const char *const res_cps[] = {"resume-loaded", "signature-removed"};
        for (size_t i = 0; i < 2; i++) {
                char f[64];
                snprintf(f, sizeof(f), "crash@%s", res_cps[i]);
                REQUIRE(fresh_swap());
                run_trial(&rr, &(struct trial){.res_faults = f, .power_loss = true});
        }
        add(&rr);

        /* Killed (SIGKILL, as power loss) at random pages of the write. */
        struct row rk = {.name = "power loss at a random page"};
        for (int i = 0; i < 100; i++) {
                REQUIRE(fresh_swap());
                run_trial(&rk, &(struct trial){.moment = AT_DATA_PAGE,
                                               .sig = SIGKILL,
                                               .kill_page = xorshift(&rng) % sim_pages,
                                               .power_loss = true});
        }
        add(&rk);

        /* SIGTERM, SIGHUP, SIGQUIT in every window. */
        static const int sigs[] = {SIGTERM, SIGHUP, SIGQUIT};
        static const enum moment moments[] = {AT_BEFORE_FREEZE, AT_DATA_PAGE, AT_AFTER_SIGNATURE,
                                              AT_RESUME_LOAD, AT_BEFORE_RESTORE};
        struct row rs = {.name = "SIGTERM/SIGHUP/SIGQUIT in each window"};
        for (size_t s = 0; s < 3; s++)
                for (size_t m = 0; m < 5; m++) {
                        REQUIRE(fresh_swap());
                        run_trial(&rs, &(struct trial){.moment = moments[m],
                                                       .sig = sigs[s],
                                                       .kill_page = sim_pages / 2});
                }
        add(&rs);

        /* Full swap, I/O errors, a failing fsync; a device that shrank (shrink@):
         * at hibernate under a write the kernel cuts short at its new end, at
         * resume under the image. */
        struct row re = {.name = "ENOSPC, EIO, fsync failing"};
        static const char *const hib_io[] = {"enospc@50",   "enospc@300",  "eio-write@2",
                                             "eio-write@5", "eio-sync@1",  "eio-sync@2",
                                             "eio-sync@3",  "short-write", "shrink@1050624"};
        for (size_t i = 0; i < sizeof(hib_io) / sizeof(hib_io[0]); i++) {
                REQUIRE(fresh_swap());
                run_trial(&re, &(struct trial){.hib_faults = hib_io[i]});
        }
        static const char *const res_io[] = {"eio-read@1", "eio-read@3", "eio-read@6", "eio-sync@1",
                                             "shrink@1050624"};
        for (size_t i = 0; i < sizeof(res_io) / sizeof(res_io[0]); i++) {
                REQUIRE(fresh_swap());
                run_trial(&re, &(struct trial){.res_faults = res_io[i]});
        }
        add(&re);

        /* The signature's removal failing where it is removed. */
        struct row rg = {.name = "signature removal failing"};
        REQUIRE(fresh_swap());
        run_trial(&rg, &(struct trial){.hib_faults = "readonly@1"}); /* the stale-image clear */
        for (unsigned n = 1; n < 12; n++) { /* after the data, at every later write */
                char f[64];
                snprintf(f, sizeof(f), "shutdown-fails,readonly@%u", n);
                REQUIRE(fresh_swap());
                run_trial(&rg, &(struct trial){.hib_faults = f});
                snprintf(f, sizeof(f), "readonly@%u", n);
                REQUIRE(fresh_swap());
                run_trial(&rg, &(struct trial){.hib_faults = f, .shutdown = DMO_SHUTDOWN_SUSPEND});
        }
        REQUIRE(fresh_swap());
        run_trial(&rg, &(struct trial){.res_faults = "readonly@1"}); /* read-only at resume */
        add(&rg);

        /* The device shrinking under the write. */
        struct row rw = {.name = "device shrinking mid-write"};
        for (int i = 1; i <= 4; i++) {
                REQUIRE(fresh_swap());
                run_trial(&rw, &(struct trial){.moment = AT_DATA_PAGE,
                                               .shrink = true,
                                               .kill_page = sim_pages * (uint64_t)i / 5});
        }
        add(&rw);

        struct row rd = {.name = "wrong kernel, other machine"};
        REQUIRE(fresh_swap());
        run_trial(&rd, &(struct trial){.resume_release = "0.0-other"});
        run_trial(&rd, &(struct trial){.skip_hibernate = true}); /* then the right kernel */
        REQUIRE(fresh_swap());
        run_trial(&rd, &(struct trial){.resume_seed = SEED + 1});
        add(&rd);

        /* Encrypted: a wrong passphrase leaves the image whole, the right
         * one restores it; no passphrase at all leaves it whole too. */
        struct row rp = {.name = "wrong passphrase, then the right one"};
        for (int i = 0; i < 3; i++) {
                REQUIRE(fresh_swap());
                run_trial(&rp, &(struct trial){.hib_pass = "right", .res_pass = "wrong"});
                if (i == 0)
                        run_trial(&rp, &(struct trial){.skip_hibernate = true});
                run_trial(&rp, &(struct trial){.skip_hibernate = true, .res_pass = "right"});
        }
        add(&rp);

        /* TPM: unsealing refused or no TPM, and no recovery key: the image
         * stays whole for the boot that has one; then it restores. */
        struct row ru = {.name = "TPM refuses or is absent, no recovery"};
        REQUIRE(fresh_swap());
        run_trial(&ru, &(struct trial){.hib_pass = "right", .tpm_unlock = -EKEYREJECTED});
        run_trial(&ru, &(struct trial){.skip_hibernate = true, .tpm_unlock = -ENOKEY});
        run_trial(&ru, &(struct trial){.skip_hibernate = true, .res_pass = "right"});
        CHECK_INT(ru.restored, ==, 1);
        add(&ru);

        /* TPM: the counter has moved on (restored once, an older copy):
         * refused, swap plain again, nothing restored. */
        struct row rm = {.name = "TPM counter mismatch"};
        REQUIRE(fresh_swap());
        run_trial(
            &rm, &(struct trial){.hib_pass = "right", .res_pass = "right", .tpm_consume = -ESTALE});
        CHECK_INT(rm.refused, ==, 1);
        add(&rm);

        /* TPM: the counter cannot be incremented (the TPM went away): the
         * image is kept whole, nothing restored. */
        struct row ri = {.name = "TPM counter fails at resume"};
        REQUIRE(fresh_swap());
        run_trial(
            &ri, &(struct trial){.hib_pass = "right", .res_pass = "right", .tpm_consume = -ENODEV});
        run_trial(&ri, &(struct trial){.skip_hibernate = true, .res_pass = "right"});
        CHECK_INT(ri.restored, ==, 1);
        add(&ri);

        /* Encrypted: a chunk's payload changed by someone who recomputed
         * its payload hash and header checksum, but cannot make its tag. */
        REQUIRE(fresh_swap());
        int died_e = 0;
        REQUIRE(in_child(hibernate_child, &(struct trial){.hib_pass = "right"}, &died_e) == 0 &&
                probe() == 0);
        struct pristine enc;
        REQUIRE(pristine_load(&enc));
        struct row rc = {.name = "forged chunk, checksums recomputed"};
        for (unsigned i = 0; i < (small ? 5u : 20u); i++) {
                REQUIRE(forge_chunk(&enc, i, &rng));
                run_trial(&rc, &(struct trial){.skip_hibernate = true, .res_pass = "right"});
        }
        CHECK_INT(rc.refused, ==, rc.trials);
        add(&rc);
        free(enc.bytes);

        /* Byte flips and truncations of a real image. */
        REQUIRE(fresh_swap());
        int died = 0;
        REQUIRE(in_child(hibernate_child, &(struct trial){0}, &died) == 0 && probe() == 0);
        struct pristine pristine;
        REQUIRE(pristine_load(&pristine));
        struct row rf = {.name = "byte flips in an image"};
        unsigned flips = small ? 150 : 1000, cuts = small ? 20 : 100;
        for (unsigned i = 0; i < flips; i++) {
                REQUIRE(flip_byte(&pristine, &rng));
                run_trial(&rf, &(struct trial){.skip_hibernate = true});
        }
        add(&rf);
        struct row rt = {.name = "truncations of an image"};
        for (unsigned i = 0; i < cuts; i++) {
                REQUIRE(truncate_image(&pristine, &rng));
                run_trial(&rt, &(struct trial){.skip_hibernate = true});
        }
        add(&rt);
        free(pristine.bytes);

        print_row(&totals);
        CHECK_INT(totals.stale, ==, 0);
        CHECK_INT(totals.wrong, ==, 0);
        CHECK_INT(totals.unusable, ==, 0);
}

int main(void)
{
        static const struct dmo_test_case cases[] = {
            {"no stale image, wrong restore or unusable swap under any fault", matrix}};
        int rc = dmo_test_run(cases, 1);
        printf("fault-matrix: %u trials, %u stale, %u wrong, %u unusable\n", totals.trials,
               totals.stale, totals.wrong, totals.unusable);
        return rc;
}
