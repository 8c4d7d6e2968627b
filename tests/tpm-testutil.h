/* A software TPM (swtpm) for one test: its own state directory and Unix
 * sockets in the test's scratch directory (no TCP port to race for),
 * waited for with a deadline until both take connections. */
#ifndef DMO_TPM_TESTUTIL_H
#define DMO_TPM_TESTUTIL_H

#include <stdbool.h>
#include <sys/types.h>

struct dmo_test_swtpm {
        pid_t pid;
        char tcti[600]; /* "swtpm:path=DIR/tpm" */
        char dir[512];
        char sock_dir[32]; /* the sockets' own directory, when $TMPDIR is long */
};

/* Whether swtpm is installed; the reason in why when it is not. */
bool dmo_test_swtpm_available(const char **why);
/* Starts one in a fresh directory under the test's scratch directory.
 * 0 or -1 (said in the TAP log). */
int dmo_test_swtpm_start(struct dmo_test_swtpm *t);
/* Stops it (SIGTERM, reaped). Its state directory stays. */
void dmo_test_swtpm_stop(struct dmo_test_swtpm *t);
/* A TCTI string for a port where nothing listens: a TPM that is absent. */
void dmo_test_swtpm_absent_tcti(char *buf, size_t len);
/* Extends PCR pcr (SHA-256 bank) with a fixed digest, as a changed boot
 * chain would. 0 or -1. */
int dmo_test_swtpm_extend_pcr(const struct dmo_test_swtpm *t, unsigned pcr);

#endif
