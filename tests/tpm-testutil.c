/* swtpm for tests: see tpm-testutil.h. */
#include "tests/tpm-testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_tctildr.h>

#include "tests/testlib.h"

bool dmo_test_swtpm_available(const char **why)
{
        if (dmo_test_sh("command -v swtpm >/dev/null 2>&1") != 0) {
                *why = "swtpm is not installed (Debian: apt-get install swtpm)";
                return false;
        }
        return true;
}

/* Whether something accepts connections on the Unix socket at path. */
static bool accepting(const char *path)
{
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
        if (fd >= 0)
                close(fd);
        return ok;
}

int dmo_test_swtpm_start(struct dmo_test_swtpm *t)
{
        static unsigned serial;
        memset(t, 0, sizeof(*t));
        snprintf(t->dir, sizeof(t->dir), "%s/swtpm-%u", dmo_test_tmpdir(), serial++);
        if (mkdir(t->dir, 0700) < 0) {
                printf("# swtpm: %s: %s\n", t->dir, strerror(errno));
                return -1;
        }
        /* The swtpm TCTI finds the control socket at PATH.ctrl. A Unix
         * socket's path has 107 bytes at most: under a long $TMPDIR the
         * sockets go to a directory of their own in /tmp, removed by stop. */
        char state[600], server[600], control[600], sock[560], ctrl[580], log[600];
        struct sockaddr_un sa;
        snprintf(sock, sizeof(sock), "%s/tpm", t->dir);
        if (strlen(sock) + sizeof(".ctrl") > sizeof(sa.sun_path)) {
                snprintf(t->sock_dir, sizeof(t->sock_dir), "/tmp/dmo-swtpm-XXXXXX");
                if (!mkdtemp(t->sock_dir)) {
                        printf("# swtpm: mkdtemp: %s\n", strerror(errno));
                        return -1;
                }
                snprintf(sock, sizeof(sock), "%s/tpm", t->sock_dir);
        }
        snprintf(ctrl, sizeof(ctrl), "%s.ctrl", sock);
        snprintf(state, sizeof(state), "dir=%s", t->dir);
        snprintf(server, sizeof(server), "type=unixio,path=%s", sock);
        snprintf(control, sizeof(control), "type=unixio,path=%s", ctrl);
        snprintf(log, sizeof(log), "file=%s/log", t->dir);
        fflush(NULL);
        t->pid = fork();
        if (t->pid == 0) {
                execlp("swtpm", "swtpm", "socket", "--tpm2", "--tpmstate", state, "--server",
                       server, "--ctrl", control, "--log", log, "--flags",
                       "not-need-init,startup-clear", (char *)NULL);
                _exit(127);
        }
        if (t->pid < 0) {
                printf("# swtpm: fork: %s\n", strerror(errno));
                return -1;
        }
        snprintf(t->tcti, sizeof(t->tcti), "swtpm:path=%s", sock);
        /* Ready once both sockets take connections (swtpm binds, then
         * listens: a socket file alone is not enough). */
        if (!DMO_TEST_WAIT_UNTIL(accepting(sock) && accepting(ctrl), 20000)) {
                printf("# swtpm did not come up in %s within 20 s\n", t->dir);
                dmo_test_swtpm_stop(t);
                return -1;
        }
        return 0;
}

void dmo_test_swtpm_stop(struct dmo_test_swtpm *t)
{
        if (t->pid > 0) {
                kill(t->pid, SIGTERM);
                waitpid(t->pid, NULL, 0);
        }
        t->pid = 0;
        if (t->sock_dir[0]) {
                char path[600];
                snprintf(path, sizeof(path), "%s/tpm", t->sock_dir);
                unlink(path);
                snprintf(path, sizeof(path), "%s/tpm.ctrl", t->sock_dir);
                unlink(path);
                rmdir(t->sock_dir);
                t->sock_dir[0] = '\0';
        }
}

void dmo_test_swtpm_absent_tcti(char *buf, size_t len)
{
        /* A socket path where nothing listens: connecting there fails. */
        snprintf(buf, len, "swtpm:path=%s/no-tpm-here", dmo_test_tmpdir());
}

int dmo_test_swtpm_extend_pcr(const struct dmo_test_swtpm *t, unsigned pcr)
{
        TSS2_TCTI_CONTEXT *tcti = NULL;
        ESYS_CONTEXT *esys = NULL;
        TPML_DIGEST_VALUES v = {.count = 1};
        v.digests[0].hashAlg = TPM2_ALG_SHA256;
        memset(v.digests[0].digest.sha256, 0x5a, sizeof(v.digests[0].digest.sha256));
        TSS2_RC rc = Tss2_TctiLdr_Initialize(t->tcti, &tcti);
        if (rc == TSS2_RC_SUCCESS)
                rc = Esys_Initialize(&esys, tcti, NULL);
        if (rc == TSS2_RC_SUCCESS)
                rc = Esys_PCR_Extend(esys, ESYS_TR_PCR0 + pcr, ESYS_TR_PASSWORD, ESYS_TR_NONE,
                                     ESYS_TR_NONE, &v);
        if (esys)
                Esys_Finalize(&esys);
        if (tcti)
                Tss2_TctiLdr_Finalize(&tcti);
        if (rc != TSS2_RC_SUCCESS)
                printf("# extending PCR %u: TPM error 0x%x\n", pcr, (unsigned)rc);
        return rc == TSS2_RC_SUCCESS ? 0 : -1;
}
