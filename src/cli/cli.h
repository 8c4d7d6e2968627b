/* cli: the edge. Parses arguments and the config file, opens the kernel
 * (real or simulated), sets up the splash, runs the engine and turns its
 * results into exit codes and sentences a person can act on.
 *
 * Each command is parse → run → report. Inside the CLI every function
 * returns 0 or a negative errno, and one function, dmo_cli_exit_status()
 * (exit.c), turns how a command ended into its exit status:
 *   0                  done (also --help)
 *   -EINVAL            usage or configuration error (already said)      → 2
 *   -ENODATA           no image                                         → 1
 *   -ECANCELED         hibernation cancelled by the person              → 5
 *   -ENOTRECOVERABLE   simulated kernel: restored memory differs        → 4
 *   -EEXIST            resume: the image could not be removed, it is
 *                      still on disk (stop the boot)                    → 7
 *   -EKEYREJECTED, -ENOKEY  resume: encrypted, and no right key was
 *                      given: the image is on disk, untouched           → 8
 *   -EXDEV             resume: the image is another kernel's and is kept
 *                      (restart into that kernel)                       → 9
 *   any other errno    the command failed: hibernate 6, resume 3 (image
 *                      refused), info 3 (damaged image), preview/theme 6
 *
 * Exit codes (also in README.md and doc/cli.md):
 *   hibernate: 0 image written and powered off (or resumed afterwards),
 *              2 usage or configuration error, 5 cancelled by the person,
 *              6 failed: nothing hibernated, system running, swap area clean.
 *   resume:    0 restored (simulated kernel: verified bit-exact), 1 no image
 *              (normal boot; also after noresume discarded one), 2 usage or
 *              configuration error, 3 image refused: nothing restored, swap
 *              area usable again, 4 simulated kernel only: restored content
 *              did not match (a bug), 7 the image could not be removed
 *              (read-only device): still on disk, stop the boot,
 *              8 encrypted image not unlocked (wrong or no passphrase/key):
 *              left on disk untouched; resume again, or --noresume,
 *              9 the image was made by another kernel and is kept: restart
 *              and choose that kernel (or discard it with noresume).
 *   info:      0 an image is present, 1 no image, 2 usage, 3 damaged image.
 *   preview, theme check, keygen: 0 done and clean, 2 usage, 6 failed or
 *              errors.
 *   suspend-then-hibernate, hybrid-sleep: 0 slept and woke (or resumed
 *              from the image; or, for suspend-then-hibernate, woken by
 *              the person before it hibernated), 2 usage or configuration
 *              error, 5 the hibernation was cancelled (the system stays
 *              up), 6 failed: the hibernation failed (the machine was
 *              suspended instead, as systemd-sleep does) or nothing slept.
 *
 * Messages go to stderr as "dormouse: error: ..." (something failed) or
 * "dormouse: note: ..." (something worth knowing; the command goes on).
 */
#ifndef DMO_CLI_H
#define DMO_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/config.h"
#include "engine/engine.h"
#include "kernel/faults.h"
#include "kernel/snapshot.h"
#include "progress/progress.h"

enum dmo_cli_command {
        DMO_CMD_MAIN, /* no command, or an unknown one */
        DMO_CMD_HIBERNATE,
        DMO_CMD_RESUME,
        DMO_CMD_INFO,
        DMO_CMD_PREVIEW,
        DMO_CMD_THEME,
        DMO_CMD_KEYGEN,
        DMO_CMD_SUSPEND_THEN_HIBERNATE,
        DMO_CMD_HYBRID_SLEEP,
        DMO_CMD_ENROLL_TPM,
};

/* The one map from how a command ended (0 or a negative errno, see above)
 * to the documented exit status. */
int dmo_cli_exit_status(enum dmo_cli_command cmd, int r);

/* What every engine command shares: where the image goes, which kernel. */
struct dmo_cli_common {
        const char *config_path;
        bool config_path_given;
        const char *resume_device; /* --resume-device */
        int64_t resume_offset;     /* --resume-offset; < 0: not given */
        const char *cmdline_path;  /* --cmdline */
        bool simulated;            /* --kernel sim */
        uint64_t sim_size;         /* --sim-size */
        uint64_t sim_seed;         /* --sim-seed */
        const char *sim_faults;    /* --sim-fault */
        const char *sim_release;   /* --sim-kernel-release */
        const char *sim_proc;      /* --sim-proc: the simulated machine's /proc */
        const char *efivars_dir;   /* --efivars: efivarfs's stand-in (tests) */
        const char *splash;        /* --splash; NULL: from config or automatic */
        const char *theme;         /* --theme */
        unsigned threads;          /* --threads */
        unsigned step_delay_ms;    /* --debug-step-delay */
        struct dmo_config config;
        struct dmo_fault_plan *fault_plan; /* parsed --sim-fault, owned */
        /* hibernate: where the initramfs hooks' records are; the running
         * kernel's names initramfs-tools' RESUME, the device when nothing
         * else names one. NULL: not looked at. */
        const char *initramfs_state_dir;
};

/* Parses a common option; returns 1 if `opt` was one, 0 if not, -EINVAL on
 * a bad value (already reported). */
int dmo_cli_common_option(struct dmo_cli_common *c, int opt, const char *arg);
void dmo_cli_common_init(struct dmo_cli_common *c);
void dmo_cli_common_release(struct dmo_cli_common *c);

/* Loads the config file (reports notes), then fills in what the command line
 * did not say. Returns 0 or -EINVAL (already reported). */
int dmo_cli_common_finish(struct dmo_cli_common *c);

/* Opens the snapshot device the options ask for. Prints why not; -EINVAL
 * when the options were wrong (a bad --sim-fault plan). */
int dmo_cli_open_kernel(struct dmo_cli_common *c, enum dmo_snapshot_mode mode,
                        struct dmo_snapshot **out);
/* True when opening the real kernel's snapshot device would be refused
 * whatever else is right (no /dev/snapshot, lockdown, hibernation disabled
 * or not built): its sentence then comes first. Reads sysfs only; never
 * opens the device. False for the simulated kernel. */
bool dmo_cli_kernel_refuses_hibernation(const struct dmo_cli_common *c);

/* Print "dormouse: error: <message>" and "dormouse: note: <message>" to
 * stderr. */
void dmo_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dmo_cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* An option's number (dmo_parse_u64 rules) or size (dmo_parse_size) within
 * [min, max]; on bad input says which option, what was wrong and what to
 * give, and returns -EINVAL. */
int dmo_cli_parse_number(const char *option, const char *arg, uint64_t min, uint64_t max,
                         uint64_t *out);
int dmo_cli_parse_size(const char *option, const char *arg, uint64_t min, uint64_t max,
                       uint64_t *out);

/* Long options shared by hibernate and resume, for getopt_long tables. */
enum {
        OPT_CONFIG = 1000,
        OPT_RESUME_DEVICE,
        OPT_RESUME_OFFSET,
        OPT_CMDLINE,
        OPT_KERNEL,
        OPT_SIM_SIZE,
        OPT_SIM_SEED,
        OPT_SIM_FAULT,
        OPT_SIM_RELEASE,
        OPT_SIM_PROC,
        OPT_SPLASH,
        OPT_THEME,
        OPT_THREADS,
        OPT_STEP_DELAY,
        OPT_COMPRESS,
        OPT_COMPRESS_LEVEL,
        OPT_IMAGE_SIZE,
        OPT_SHUTDOWN,
        OPT_JSON,
        OPT_NORESUME,
        OPT_ENCRYPT,
        OPT_KEY_FILE,
        OPT_PUBLIC_KEY,
        OPT_SECRET_KEY,
        OPT_KMSG,
        OPT_NO_INITRAMFS_CHECK,
        OPT_SIM_STATE_DIR,
        OPT_EFIVARS,
        OPT_TPM_DEVICE,
        OPT_TPM_PCRS,
        OPT_HELP,
};

#define DMO_CLI_COMMON_LONG_OPTIONS                                                                \
        {"config", required_argument, NULL, OPT_CONFIG},                                           \
            {"resume-device", required_argument, NULL, OPT_RESUME_DEVICE},                         \
            {"resume-offset", required_argument, NULL, OPT_RESUME_OFFSET},                         \
            {"cmdline", required_argument, NULL, OPT_CMDLINE},                                     \
            {"kernel", required_argument, NULL, OPT_KERNEL},                                       \
            {"sim-size", required_argument, NULL, OPT_SIM_SIZE},                                   \
            {"sim-seed", required_argument, NULL, OPT_SIM_SEED},                                   \
            {"sim-fault", required_argument, NULL, OPT_SIM_FAULT},                                 \
            {"sim-kernel-release", required_argument, NULL, OPT_SIM_RELEASE},                      \
            {"sim-proc", required_argument, NULL, OPT_SIM_PROC},                                   \
            {"efivars", required_argument, NULL, OPT_EFIVARS},                                     \
            {"splash", required_argument, NULL, OPT_SPLASH},                                       \
            {"theme", required_argument, NULL, OPT_THEME},                                         \
            {"threads", required_argument, NULL, OPT_THREADS},                                     \
            {"debug-step-delay", required_argument, NULL, OPT_STEP_DELAY},                         \
        {                                                                                          \
                "help", no_argument, NULL, OPT_HELP                                                \
        }

int dmo_cmd_hibernate(int argc, char **argv);
int dmo_cmd_resume(int argc, char **argv);
int dmo_cmd_info(int argc, char **argv);
int dmo_cmd_preview(int argc, char **argv);
int dmo_cmd_theme(int argc, char **argv);
int dmo_cmd_keygen(int argc, char **argv);
int dmo_cmd_suspend_then_hibernate(int argc, char **argv);
int dmo_cmd_hybrid_sleep(int argc, char **argv);
int dmo_cmd_enroll_tpm(int argc, char **argv);

/* Resolves where the image lives: --resume-device, then the config's
 * "resume device", then resume= on the kernel command line, then (when
 * c->initramfs_state_dir is set: hibernating) initramfs-tools' RESUME as
 * recorded for the running kernel's initramfs. Fills the swap
 * target (path buffer owned by the caller). Returns 0, -ENODATA when it
 * waited and the device never came (no image: boot goes on), or -EINVAL
 * after saying what is missing. */
int dmo_cli_swap_target(const struct dmo_cli_common *c, bool wait, struct dmo_swap_target *t,
                        char *path_buf, size_t path_len, bool *noresume);
/* Where the target came from. With nothing named (no --resume-device, no
 * "resume device", no resume=), resume (wait) looks where systemd's EFI
 * variable HibernateLocation says, and hibernate picks the active swap
 * area as systemd does, on a machine booted through EFI only, where that
 * variable can tell the next boot (cli/efi_location.h). */
enum dmo_cli_target_source {
        DMO_TARGET_NAMED,
        DMO_TARGET_EFI_LOCATION, /* resume: from HibernateLocation */
        DMO_TARGET_ACTIVE_SWAP,  /* hibernate: picked; HibernateLocation must be written */
};

/* The same, also leaving the sentence it printed on failure in why (may be
 * NULL), for the journal, and where the target came from in source (may be
 * NULL). A network device (nbd://, cli/network.h) is connected through net,
 * whose inputs the caller sets and whose link it then owns (release it
 * with dmo_cli_network_release); with net NULL one is refused. */
struct dmo_cli_network;
int dmo_cli_swap_target_why(const struct dmo_cli_common *c, bool wait, struct dmo_swap_target *t,
                            char *path_buf, size_t path_len, bool *noresume, char *why,
                            size_t why_len, enum dmo_cli_target_source *source,
                            struct dmo_cli_network *net);
/* A network target read with net->defer (resume: pending, t->path ""):
 * connects it now and fills in the device. The same returns. */
int dmo_cli_swap_target_connect(const struct dmo_cli_common *c, struct dmo_swap_target *t,
                                char *path_buf, size_t path_len, struct dmo_cli_network *net,
                                char *why, size_t why_len);

/* DORMOUSE_DEBUG_TIMING is set: the engine profiles its data phases and the
 * CLI reports where the time went (the VM benchmarks read it). */
bool dmo_cli_profiling(void);
/* DORMOUSE_DEBUG_LOCK_MEMORY is set: mlockall with the simulated kernel too,
 * as with the real one (the benchmark measures the locked memory). */
bool dmo_cli_debug_lock_memory(void);

#endif
