/* workload: the process whose memory must survive a hibernation in the VM.
 *
 * It fills DMO_WORKLOAD_MIB (default 150) MiB with seeded pseudo-random data,
 * prints the checksum, writes a random token to /tmp/token (tmpfs) and then
 * prints a counter every 0.5 s. On SIGUSR1, or when the marker file
 * /tmp/workload.check appears, it checksums its memory again, rereads the
 * token and prints one verdict line for the host:
 *   VMTEST: WORKLOAD ok checksum=<hex> counter=<n> token=<hex>
 * or "VMTEST: WORKLOAD BAD ..." when the memory or the token changed.
 *
 * Built by tests/vm/run.py with `gcc -static`; it runs only inside the VM.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char token_path[] = "/tmp/token";
static const char check_path[] = "/tmp/workload.check";
static const char verdict_path[] = "/tmp/workload.verdict";
static const uint64_t seed = 0x646f726d6f757365ULL; /* "dormouse" */

/* Set by the signal handler; a signal handler can only touch this. */
static volatile sig_atomic_t check_requested;

static void on_usr1(int sig)
{
        (void)sig;
        check_requested = 1;
}

/* xorshift64: a few shifts per word, because under TCG every guest
 * instruction costs several host ones and the fill runs on every boot. */
static uint64_t next_word(uint64_t *state)
{
        uint64_t x = *state;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return *state = x;
}

/* Rotate-and-add: order-dependent, so swapped or duplicated pages change it. */
static inline uint64_t mix(uint64_t h, uint64_t w)
{
        return ((h << 7) | (h >> 57)) + w;
}

static uint64_t checksum(const uint64_t *words, size_t n)
{
        uint64_t h = 0;
        for (size_t i = 0; i < n; i++)
                h = mix(h, words[i]);
        return h;
}

static int read_token(char *buf, size_t len)
{
        int fd = open(token_path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t n = read(fd, buf, len - 1);
        int err = n < 0 ? -errno : 0;
        close(fd);
        if (err)
                return err;
        buf[n] = '\0';
        buf[strcspn(buf, "\r\n")] = '\0';
        return 0;
}

static int make_token(char *buf, size_t len)
{
        unsigned char raw[8];
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t n = read(fd, raw, sizeof raw);
        close(fd);
        if (n != (ssize_t)sizeof raw)
                return -EIO;
        for (size_t i = 0; i < sizeof raw && 2 * i + 2 < len; i++)
                snprintf(buf + 2 * i, 3, "%02x", raw[i]);
        fd = open(token_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return -errno;
        size_t tl = strlen(buf);
        int err = write(fd, buf, tl) == (ssize_t)tl ? 0 : -EIO;
        if (write(fd, "\n", 1) != 1)
                err = -EIO;
        close(fd);
        return err;
}

int main(void)
{
        size_t mib = 150;
        const char *env = getenv("DMO_WORKLOAD_MIB");
        if (env && atoi(env) > 0)
                mib = (size_t)atoi(env);
        size_t n = mib * 1024 * 1024 / sizeof(uint64_t);

        setvbuf(stdout, NULL, _IOLBF, 0);
        uint64_t *words = malloc(n * sizeof *words);
        if (!words) {
                printf("VMTEST: WORKLOAD BAD cannot allocate %zu MiB\n", mib);
                return 1;
        }
        uint64_t state = seed, sum = 0;
        for (size_t i = 0; i < n; i++) {
                words[i] = next_word(&state);
                sum = mix(sum, words[i]);
        }

        char token[32] = "";
        int err = make_token(token, sizeof token);
        if (err) {
                printf("VMTEST: WORKLOAD BAD cannot write %s: %s\n", token_path, strerror(-err));
                return 1;
        }

        struct sigaction sa = {.sa_handler = on_usr1};
        sigemptyset(&sa.sa_mask);
        sigaction(SIGUSR1, &sa, NULL);

        printf("VMTEST: WORKLOAD start pid=%d mib=%zu checksum=%016llx token=%s\n", (int)getpid(),
               mib, (unsigned long long)sum, token);

        const struct timespec half = {.tv_sec = 0, .tv_nsec = 500 * 1000 * 1000};
        for (unsigned long counter = 1;; counter++) {
                printf("TICK %lu\n", counter);
                nanosleep(&half, NULL);
                if (!check_requested && access(check_path, F_OK) != 0)
                        continue;
                check_requested = 0;
                unlink(check_path);
                uint64_t now = checksum(words, n);
                char tok_now[32] = "";
                int terr = read_token(tok_now, sizeof tok_now);
                int ok = now == sum && terr == 0 && strcmp(tok_now, token) == 0;
                char verdict[256];
                snprintf(verdict, sizeof verdict,
                         "VMTEST: WORKLOAD %s checksum=%016llx expected=%016llx counter=%lu "
                         "token=%s file_token=%s\n",
                         ok ? "ok" : "BAD", (unsigned long long)now, (unsigned long long)sum,
                         counter, token, terr ? strerror(-terr) : tok_now);
                fputs(verdict, stdout);
                /* The init script waits for this file instead of guessing how
                 * long a checksum takes under emulation. */
                int fd = open(verdict_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                if (fd >= 0) {
                        if (write(fd, verdict, strlen(verdict)) < 0)
                                perror(verdict_path);
                        close(fd);
                }
        }
}
