/* An NBD export as /dev/nbdN through nbd-client's netlink mode
 * (nbd_client.h). */
#include "kernel/nbd_client.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernel/nbd_url.h"
#include "util/clock.h"
#include "util/parse.h"
#include "util/small_file.h"

static const unsigned poll_ms = 20;
static const unsigned default_io_timeout_s = 30;
static const unsigned default_run_timeout_ms = 60000;

struct dmo_nbd_link {
        struct dmo_nbd_env env;
        char device[512];
        bool swap_on;
        bool connected;
};

void dmo_nbd_env_default(struct dmo_nbd_env *env)
{
        *env = (struct dmo_nbd_env){
            .client = "nbd-client",
            .modprobe = "modprobe",
            .swapon = "swapon",
            .swapoff = "swapoff",
            .dev_root = "/dev",
            .sys_root = "/sys",
            .io_timeout_s = default_io_timeout_s,
            .run_timeout_ms = default_run_timeout_ms,
            .swap = true,
        };
}

static uint64_t now_ms(void)
{
        return dmo_clock_ns(CLOCK_MONOTONIC) / 1000000u;
}

int dmo_nbd_run_program(void *ctx, char *const argv[], unsigned timeout_ms)
{
        (void)ctx;
        /* posix_spawn, not fork: the resume's splash thread may be running
         * (only async-signal-safe calls are allowed between fork and exec
         * in a threaded process), and exec's failure comes back as such. */
        posix_spawn_file_actions_t fa;
        int r = posix_spawn_file_actions_init(&fa);
        if (r != 0)
                return -r;
        r = posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
        pid_t pid;
        fflush(NULL);
        if (r == 0)
                r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        if (r != 0)
                return -r;
        uint64_t deadline = now_ms() + timeout_ms;
        int status;
        for (;;) {
                pid_t w = waitpid(pid, &status, WNOHANG);
                if (w == pid)
                        break;
                if (w < 0 && errno != EINTR)
                        return -errno;
                if (now_ms() >= deadline) {
                        kill(pid, SIGKILL);
                        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                                ;
                        return -ETIMEDOUT;
                }
                struct timespec nap = {0, (long)poll_ms * 1000000L};
                nanosleep(&nap, NULL);
        }
        if (WIFSIGNALED(status))
                return 128 + WTERMSIG(status);
        return WEXITSTATUS(status);
}

static int run(const struct dmo_nbd_env *env, char *const argv[])
{
        dmo_nbd_run_fn fn = env->run ? env->run : dmo_nbd_run_program;
        return fn(env->run_ctx, argv, env->run_timeout_ms);
}

/* A small decimal number from a sysfs file; -ENOENT when it is absent. */
static int read_u64(const char *path, uint64_t *v)
{
        char buf[32];
        ssize_t n = dmo_read_small_file(path, buf, sizeof(buf));
        if (n < 0)
                return (int)n;
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
                buf[--n] = '\0';
        return dmo_parse_u64(buf, v) == 0 ? 0 : -EIO;
}

static int block_attr(const struct dmo_nbd_env *env, unsigned index, const char *attr, uint64_t *v)
{
        char path[600];
        int n = snprintf(path, sizeof(path), "%s/block/nbd%u/%s", env->sys_root, index, attr);
        if (n < 0 || (size_t)n >= sizeof(path))
                return -ENAMETOOLONG;
        return read_u64(path, v);
}

static bool in_use(const struct dmo_nbd_env *env, unsigned index)
{
        uint64_t v;
        if (block_attr(env, index, "pid", &v) != -ENOENT)
                return true;
        return block_attr(env, index, "size", &v) == 0 && v != 0;
}

/* "nbd12" → 12; false for nbd12p1 and anything else. */
static bool nbd_index(const char *name, unsigned *index)
{
        if (strncmp(name, "nbd", 3) != 0 || !name[3])
                return false;
        unsigned v = 0;
        for (const char *p = name + 3; *p; p++) {
                if (*p < '0' || *p > '9' || v > 100000)
                        return false;
                v = v * 10 + (unsigned)(*p - '0');
        }
        *index = v;
        return true;
}

int dmo_nbd_find_free(const struct dmo_nbd_env *env, unsigned *index)
{
        char path[520];
        snprintf(path, sizeof(path), "%s/block", env->sys_root);
        DIR *d = opendir(path);
        if (!d)
                return -ENODEV;
        bool any = false, found = false;
        unsigned best = 0, i;
        struct dirent *e;
        while ((e = readdir(d))) {
                if (!nbd_index(e->d_name, &i))
                        continue;
                any = true;
                if ((!found || i < best) && !in_use(env, i)) {
                        best = i;
                        found = true;
                }
        }
        closedir(d);
        if (!found)
                return any ? -EBUSY : -ENODEV;
        *index = best;
        return 0;
}

static int find_or_load(const struct dmo_nbd_env *env, unsigned *index, int *status)
{
        int r = dmo_nbd_find_free(env, index);
        if (r != -ENODEV || !env->modprobe)
                return r;
        char *argv[] = {(char *)env->modprobe, "nbd", NULL};
        int s = run(env, argv);
        if (s != 0) {
                *status = s;
                return s == -ETIMEDOUT ? -ETIMEDOUT : -ENODEV;
        }
        return dmo_nbd_find_free(env, index);
}

static int swap_on(struct dmo_nbd_link *l, int *status)
{
        char *argv[] = {(char *)l->env.swapon, l->device, NULL};
        int s = run(&l->env, argv);
        if (s != 0) {
                *status = s;
                return s == -ETIMEDOUT ? -ETIMEDOUT : -ENOEXEC;
        }
        l->swap_on = true;
        return 0;
}

int dmo_nbd_connect(const struct dmo_nbd_env *env, const struct dmo_nbd_url *url,
                    struct dmo_nbd_link **out, int *status)
{
        unsigned index;
        *out = NULL;
        *status = -1;
        int r = find_or_load(env, &index, status);
        if (r < 0)
                return r;
        struct dmo_nbd_link *l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        l->env = *env;
        int n = snprintf(l->device, sizeof(l->device), "%s/nbd%u", env->dev_root, index);
        if (n < 0 || (size_t)n >= sizeof(l->device)) {
                free(l);
                return -ENAMETOOLONG;
        }
        char port[8], timeout[16];
        snprintf(port, sizeof(port), "%u", (unsigned)url->port);
        snprintf(timeout, sizeof(timeout), "%u", env->io_timeout_s);
        char *argv[12];
        size_t a = 0;
        argv[a++] = (char *)env->client;
        argv[a++] = (char *)url->host;
        argv[a++] = port;
        argv[a++] = l->device;
        if (url->export_name[0]) {
                argv[a++] = "-N";
                argv[a++] = (char *)url->export_name;
        }
        if (env->io_timeout_s) {
                argv[a++] = "-timeout";
                argv[a++] = timeout;
        }
        argv[a] = NULL;
        int s = run(env, argv);
        if (s != 0) {
                *status = s;
                free(l);
                /* Not started at all (-ENOENT: not installed) says so. */
                return s < 0 ? s : -ECONNREFUSED;
        }
        l->connected = true;
        uint64_t size = 0;
        if (block_attr(env, index, "size", &size) < 0 || size == 0)
                r = -EIO;
        else if (env->swap)
                r = swap_on(l, status);
        if (r < 0) {
                dmo_nbd_disconnect(l);
                free(l);
                return r;
        }
        *out = l;
        return 0;
}

int dmo_nbd_connect_wait(const struct dmo_nbd_env *env, const struct dmo_nbd_url *url,
                         unsigned timeout_ms, unsigned retry_ms, struct dmo_nbd_link **out,
                         int *status)
{
        uint64_t deadline = now_ms() + timeout_ms;
        struct dmo_nbd_env e = *env;
        int last = 0, last_status = -1;
        for (;;) {
                uint64_t now = now_ms();
                uint64_t left = deadline > now ? deadline - now : 1;
                e.run_timeout_ms =
                    left < env->run_timeout_ms ? (unsigned)left : env->run_timeout_ms;
                int r = dmo_nbd_connect(&e, url, out, status);
                if (r != -ECONNREFUSED && r != -ETIMEDOUT)
                        return r;
                /* A try the bound cut short says less than an earlier answer. */
                bool cut = r == -ETIMEDOUT && e.run_timeout_ms < env->run_timeout_ms;
                if (!cut || !last) {
                        last = r;
                        last_status = *status;
                }
                if (now_ms() + retry_ms >= deadline)
                        break;
                struct timespec nap = {(time_t)(retry_ms / 1000),
                                       (long)(retry_ms % 1000) * 1000000L};
                nanosleep(&nap, NULL);
        }
        *status = last_status;
        return last;
}

const char *dmo_nbd_link_device(const struct dmo_nbd_link *l)
{
        return l->device;
}

int dmo_nbd_disconnect(struct dmo_nbd_link *l)
{
        int r = 0;
        if (!l)
                return 0;
        if (l->swap_on) {
                char *argv[] = {(char *)l->env.swapoff, l->device, NULL};
                if (run(&l->env, argv) != 0)
                        r = -EIO;
                l->swap_on = false;
        }
        if (l->connected) {
                char *argv[] = {(char *)l->env.client, "-d", l->device, NULL};
                if (run(&l->env, argv) != 0 && r == 0)
                        r = -EIO;
                l->connected = false;
        }
        return r;
}

void dmo_nbd_link_free(struct dmo_nbd_link *l)
{
        free(l);
}
