/* iobench: what writing the image costs the guest's CPU, for the VM's
 * io-levers scenario. It writes MIB MiB of random bytes to DEVICE with
 * O_DIRECT in REQ_KIB requests from WRITERS threads (so as many requests are
 * in flight), while BURNERS threads spin on arithmetic as the codec's
 * workers would. It prints the wall time, the write throughput, the writers'
 * CPU time (user and system, summed over the threads) and how much work the
 * burners got done per second against a run of the burners alone: the share
 * of the CPU the writes left to compression.
 *
 * Usage: iobench DEVICE MIB REQ_KIB WRITERS BURNERS LABEL
 *
 * Static, no dependencies beyond libc: it runs in the test initramfs. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 8

struct shared {
        int fd;
        size_t req;
        uint64_t nreq;
        atomic_uint_fast64_t next;   /* next request index to write */
        atomic_bool writing_done;    /* the burners stop when this is set */
        atomic_uint_fast64_t burned; /* burner iterations, in thousands */
        int error;
        double user_s, sys_s; /* writers' CPU, summed */
        pthread_mutex_t lock;
};

static double now_s(void)
{
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double tv_s(struct timeval tv)
{
        return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void *writer(void *arg)
{
        struct shared *s = arg;
        uint8_t *buf = aligned_alloc(4096, s->req);
        if (!buf) {
                s->error = ENOMEM;
                return NULL;
        }
        uint64_t x = (uint64_t)(uintptr_t)buf | 1;
        for (size_t i = 0; i < s->req / 8; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                memcpy(buf + i * 8, &x, 8);
        }
        for (;;) {
                uint64_t i = atomic_fetch_add(&s->next, 1);
                if (i >= s->nreq)
                        break;
                size_t done = 0;
                while (done < s->req) {
                        ssize_t n =
                            pwrite(s->fd, buf + done, s->req - done, (off_t)(i * s->req + done));
                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n <= 0) {
                                s->error = n < 0 ? errno : EIO;
                                goto out;
                        }
                        done += (size_t)n;
                }
        }
out:;
        struct rusage ru;
        getrusage(RUSAGE_THREAD, &ru);
        pthread_mutex_lock(&s->lock);
        s->user_s += tv_s(ru.ru_utime);
        s->sys_s += tv_s(ru.ru_stime);
        pthread_mutex_unlock(&s->lock);
        free(buf);
        return NULL;
}

static void *burner(void *arg)
{
        struct shared *s = arg;
        uint64_t x = 88172645463325252ull;
        while (!atomic_load_explicit(&s->writing_done, memory_order_relaxed)) {
                for (int i = 0; i < 1000; i++) {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                }
                atomic_fetch_add_explicit(&s->burned, 1, memory_order_relaxed);
        }
        return (void *)(uintptr_t)(x & 1);
}

/* Burner work per second with nothing else running, for BURNERS threads. */
static double burn_alone(struct shared *s, unsigned burners, double seconds)
{
        pthread_t t[MAX_THREADS];
        atomic_store(&s->writing_done, false);
        atomic_store(&s->burned, 0);
        for (unsigned i = 0; i < burners; i++)
                pthread_create(&t[i], NULL, burner, s);
        double t0 = now_s();
        usleep((useconds_t)(seconds * 1e6));
        atomic_store(&s->writing_done, true);
        double dt = now_s() - t0;
        for (unsigned i = 0; i < burners; i++)
                pthread_join(t[i], NULL);
        return (double)atomic_load(&s->burned) / dt;
}

int main(int argc, char **argv)
{
        if (argc != 7) {
                fprintf(stderr, "usage: iobench DEVICE MIB REQ_KIB WRITERS BURNERS LABEL\n");
                return 2;
        }
        const uint64_t mib = strtoull(argv[2], NULL, 10);
        const size_t req = (size_t)strtoul(argv[3], NULL, 10) * 1024;
        const unsigned writers = (unsigned)atoi(argv[4]);
        const unsigned burners = (unsigned)atoi(argv[5]);
        if (!mib || !req || req % 4096 || !writers || writers > MAX_THREADS ||
            burners > MAX_THREADS || (mib << 20) % req) {
                fprintf(stderr, "iobench: bad arguments\n");
                return 2;
        }
        struct shared s = {.req = req, .nreq = (mib << 20) / req};
        pthread_mutex_init(&s.lock, NULL);
        s.fd = open(argv[1], O_WRONLY | O_DIRECT | O_CLOEXEC);
        if (s.fd < 0) {
                fprintf(stderr, "iobench: %s: %s\n", argv[1], strerror(errno));
                return 1;
        }
        if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
                fprintf(stderr, "iobench: mlockall: %s\n", strerror(errno));

        double alone = burners ? burn_alone(&s, burners, 0.5) : 0;

        pthread_t wt[MAX_THREADS], bt[MAX_THREADS];
        atomic_store(&s.writing_done, false);
        atomic_store(&s.burned, 0);
        for (unsigned i = 0; i < burners; i++)
                pthread_create(&bt[i], NULL, burner, &s);
        double t0 = now_s();
        for (unsigned i = 0; i < writers; i++)
                pthread_create(&wt[i], NULL, writer, &s);
        for (unsigned i = 0; i < writers; i++)
                pthread_join(wt[i], NULL);
        double wall = now_s() - t0;
        atomic_store(&s.writing_done, true);
        for (unsigned i = 0; i < burners; i++)
                pthread_join(bt[i], NULL);
        if (s.error) {
                fprintf(stderr, "iobench: write: %s\n", strerror(s.error));
                return 1;
        }
        double share = burners && alone > 0 ? (double)atomic_load(&s.burned) / wall / alone : 0;
        printf("IOBENCH %s: %llu MiB in %u KiB requests, %u in flight, %u burners: %.3f s, "
               "%.0f MB/s; writers' CPU user %.3f s system %.3f s (%.2f ms per MiB); "
               "CPU left to the burners %.0f%%\n",
               argv[6], (unsigned long long)mib, (unsigned)(req / 1024), writers, burners, wall,
               (double)(mib << 20) / 1e6 / wall, s.user_s, s.sys_s,
               (s.user_s + s.sys_s) * 1e3 / (double)mib, share * 100);
        close(s.fd);
        return 0;
}
