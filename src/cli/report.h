/* report: the engine's results in words, at the edge: what a hibernation
 * or a resume ended with, what it was doing when it stopped, the image it
 * wrote, its timing profile; and what the sleep modes (src/sleep) report.
 *
 * Contract: prints and formats only; decides nothing but the command's
 * result from the engine's outcome.
 */
#ifndef DMO_CLI_REPORT_H
#define DMO_CLI_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"
#include "sleep/sleep.h"

const char *dmo_cli_step_text(int step);
/* How the machine went down after a hibernation, for the last line. */
const char *dmo_cli_went_down_text(enum dmo_shutdown how, bool simulated);

/* Resume's outcome in words: prints what a person should know, writes a
 * refusal into msg (for the splash; the caller prints it) and returns the
 * command's result. An image skipped without a refusal (discarded by
 * noresume, another tool's) is said at once and its sentence also left in
 * note (both "" otherwise), for the journal. swap_state says whether the
 * swap area is usable again after a refusal. */
int dmo_cli_resume_describe(const struct dmo_resume_config *rc, const struct dmo_resume_result *res,
                            char *msg, size_t len, char *note, size_t note_len);
void dmo_cli_resume_swap_state(const struct dmo_resume_result *res);
/* The kernel releases an image names, fit to show: at most 64 bytes each,
 * control characters replaced (no escape sequence from the image reaches a
 * terminal or the splash). */
void dmo_cli_printable_releases(const char *image_release, const char *running_release,
                                char made_by[65], char running[65]);

/* In the initramfs no journald runs: what was only on the screen is lost
 * to `journalctl -b`. The kernel's log buffer keeps it until journald
 * imports it: msg (an error), else note (a warning), is written to kmsg
 * (--kmsg), else the real kernel's /dev/kmsg; the simulated kernel writes
 * nowhere unless told. Call it once the engine returned without the jump
 * into the saved system. */
void dmo_cli_resume_tell_journal(const char *kmsg, bool simulated, const char *msg,
                                 const char *note);

/* The image a hibernation wrote: size, ratio, where the time went. */
void dmo_cli_print_stats(const struct dmo_engine_stats *stats);

/* Engine hook: prints the data phase's profile, if it was taken. */
void dmo_cli_print_profile(void *ctx, const struct dmo_engine_stats *stats);

/* DORMOUSE_DEBUG_TIMING: dormouse's own private writable memory, in all-zero
 * pages (left out of the image) and the others, with the mappings holding
 * most of the latter (util/self_memory.h). Called on the engine's thread
 * just before the snapshot is taken, with the splash stopped: it opens
 * /proc and writes stderr, so never after. */
void dmo_cli_print_own_memory(void);

/* A hibernation's failure in one sentence, for the splash and stderr, into
 * buf; "" when the engine did not fail. */
void dmo_cli_hibernate_failure(const struct dmo_hibernate_result *res, const char *dev, char *buf,
                               size_t len);
/* Says what a hibernation ended with (failure: the sentence above) and
 * returns the command's result: 0, -ECANCELED, -EINVAL (the device is no
 * swap area) or -EIO. */
int dmo_cli_hibernate_report(const struct dmo_hibernate_result *res, const char *dev,
                             bool simulated, const char *failure);

/* systemd's sleep.conf: its first problem as a note, "FILE:LINE: what";
 * nothing when there was none. */
void dmo_cli_sleep_conf_problem(const struct dmo_sleep_conf_problem *p);
/* The sleep modes' report function (struct dmo_sleep_params): ctx is the
 * params themselves. Errors and notes as dmo_cli_error/dmo_cli_note, the
 * steps of the sleep as "dormouse: ..." lines, all on stderr. */
void dmo_cli_sleep_report(void *ctx, const struct dmo_sleep_event *e);

#endif
