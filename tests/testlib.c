#include "tests/testlib.h"

#include <stdarg.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

struct dmo_test_state dmo_test_state_;

static char tmpdir_path[256];

static void remove_tmpdir(void)
{
        char cmd[300];
        if (tmpdir_path[0] && !getenv("DMO_TEST_KEEP")) {
                snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir_path);
                if (system(cmd) != 0)
                        fprintf(stderr, "testlib: could not remove %s\n", tmpdir_path);
        }
}

int dmo_test_run(const struct dmo_test_case *cases, size_t n)
{
        const char *only = getenv("DMO_TEST_ONLY");
        setvbuf(stdout, NULL, _IOLBF, 0);
        printf("1..%zu\n", n);
        for (size_t i = 0; i < n; i++) {
                if (only && !strstr(cases[i].name, only)) {
                        printf("ok %zu - %s # SKIP not selected\n", i + 1, cases[i].name);
                        continue;
                }
                dmo_test_state_.current = (int)i + 1;
                dmo_test_state_.current_failed = false;
                cases[i].fn();
                if (dmo_test_state_.current_failed)
                        dmo_test_state_.failures++;
                printf("%s %zu - %s\n", dmo_test_state_.current_failed ? "not ok" : "ok", i + 1,
                       cases[i].name);
                fflush(stdout);
        }
        return dmo_test_state_.failures ? 1 : 0;
}

const char *dmo_test_srcpath(const char *rel, char *buf, size_t len)
{
        const char *top = getenv("DMO_SRCDIR");
        if (!top)
                top = DMO_SRCDIR;
        snprintf(buf, len, "%s/%s", top, rel);
        return buf;
}

const char *dmo_test_tmpdir(void)
{
        if (!tmpdir_path[0]) {
                const char *base = getenv("TMPDIR");
                snprintf(tmpdir_path, sizeof(tmpdir_path), "%s/dmo-test-XXXXXX",
                         base ? base : "/tmp");
                if (!mkdtemp(tmpdir_path)) {
                        perror("mkdtemp");
                        exit(99);
                }
                atexit(remove_tmpdir);
        }
        return tmpdir_path;
}

int dmo_test_sh(const char *fmt, ...)
{
        char cmd[4096];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(cmd, sizeof(cmd), fmt, ap);
        va_end(ap);
        fflush(stdout);
        int rc = system(cmd);
        if (rc == -1)
                return -1;
        return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
}

/* The program's last output: test state, like dmo_test_state_. */
static char program_path[1024];
static char program_out_path[1024];
static char program_out[16384];

const char *dmo_test_program(void)
{
        if (!program_path[0]) {
                const char *b = getenv("DMO_BUILDDIR");
                snprintf(program_path, sizeof(program_path), "%s/dormouse", b ? b : ".");
        }
        return program_path;
}

int dmo_test_run_program(const char *fmt, ...)
{
        char args[2048];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(args, sizeof(args), fmt, ap);
        va_end(ap);
        snprintf(program_out_path, sizeof(program_out_path), "%s/last-output.txt",
                 dmo_test_tmpdir());
        int rc = dmo_test_sh("'%s' %s </dev/null >'%s' 2>&1", dmo_test_program(), args,
                             program_out_path);
        if (getenv("DMO_TEST_VERBOSE"))
                dmo_test_sh("sed 's/^/#   /' '%s'", program_out_path);
        return rc;
}

const char *dmo_test_read_file(const char *path, char *buf, size_t len)
{
        FILE *f = fopen(path, "re");
        size_t n = f ? fread(buf, 1, len - 1, f) : 0;
        if (f)
                fclose(f);
        buf[n] = '\0';
        return buf;
}

const char *dmo_test_program_output(void)
{
        return dmo_test_read_file(program_out_path, program_out, sizeof(program_out));
}

void dmo_test_show_program_output(void)
{
        dmo_test_sh("sed 's/^/#   /' '%s' | tail -20", program_out_path);
}

static int64_t monotonic_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct dmo_test_deadline dmo_test_deadline_in(int timeout_ms)
{
        return (struct dmo_test_deadline){monotonic_ns() + (int64_t)timeout_ms * 1000000};
}

bool dmo_test_deadline_passed(struct dmo_test_deadline d)
{
        return monotonic_ns() >= d.end_ns;
}

int dmo_test_deadline_left_ms(struct dmo_test_deadline d)
{
        int64_t left = d.end_ns - monotonic_ns();
        return left <= 0 ? 0 : (int)((left + 999999) / 1000000);
}

void dmo_test_nap_ms(struct dmo_test_deadline d, int ms)
{
        int left = dmo_test_deadline_left_ms(d);
        int nap = ms < left ? ms : left;
        struct timespec ts = {nap / 1000, (long)(nap % 1000) * 1000000L};
        while (nap > 0 && nanosleep(&ts, &ts) != 0)
                ;
}
