/* nbd_client with stand-in programs: stub nbd-client, modprobe, swapon
 * and swapoff scripts that log their arguments and play the kernel's part
 * in a fake /sys (a connected device gets a pid and a size). What is run,
 * in which order, which device is picked, and what each failure leaves. */
#include "tests/testlib.h"

#include <errno.h>
#include <time.h>

#include "kernel/nbd_client.h"
#include "kernel/nbd_url.h"

struct rig {
        char root[300], sys[400], dev[400], log[400];
        char client[400], modprobe[400], swapon[400], swapoff[400];
        struct dmo_nbd_env env;
};

/* Every stub appends "NAME ARGS" to the log; the stub nbd-client connects
 * (pid and size files) unless ROOT/fail, ROOT/hang or ROOT/nosize say
 * otherwise, and -d disconnects. */
static void rig_init(struct rig *g, const char *name)
{
        snprintf(g->root, sizeof(g->root), "%s/%s", dmo_test_tmpdir(), name);
        snprintf(g->sys, sizeof(g->sys), "%s/sys", g->root);
        snprintf(g->dev, sizeof(g->dev), "%s/dev", g->root);
        snprintf(g->log, sizeof(g->log), "%s/log", g->root);
        snprintf(g->client, sizeof(g->client), "%s/nbd-client", g->root);
        snprintf(g->modprobe, sizeof(g->modprobe), "%s/modprobe", g->root);
        snprintf(g->swapon, sizeof(g->swapon), "%s/swapon", g->root);
        snprintf(g->swapoff, sizeof(g->swapoff), "%s/swapoff", g->root);
        dmo_test_sh("rm -rf '%s' && mkdir -p '%s/block' '%s' && : > '%s'", g->root, g->sys, g->dev,
                    g->log);
        dmo_test_sh(
            "cat > '%s' <<'EOF'\n"
            "#!/bin/sh\n"
            "R='%s'\n"
            "echo \"client $*\" >> \"$R/log\"\n"
            "if [ \"$1\" = -d ]; then n=${2##*/nbd}; rm -f \"$R/sys/block/nbd$n/pid\";"
            " echo 0 > \"$R/sys/block/nbd$n/size\"; exit 0; fi\n"
            "[ -e \"$R/fail\" ] && { echo 'Error: Socket failed: Connection refused' >&2;"
            " exit 1; }\n"
            "if [ -e \"$R/fail-times\" ]; then n=$(cat \"$R/fail-times\");"
            " if [ \"$n\" -gt 0 ]; then echo $((n - 1)) > \"$R/fail-times\"; exit 1; fi; fi\n"
            "[ -e \"$R/hang\" ] && exec sleep 60\n"
            "n=${3##*/nbd}\n"
            "echo $$ > \"$R/sys/block/nbd$n/pid\"\n"
            "[ -e \"$R/nosize\" ] || echo 2097152 > \"$R/sys/block/nbd$n/size\"\n"
            "echo \"Connected $3\"\n"
            "EOF\n"
            "chmod +x '%s'",
            g->client, g->root, g->client);
        dmo_test_sh("printf '#!/bin/sh\\necho \"modprobe $*\" >> \"%s\"\\n"
                    "mkdir -p \"%s/block/nbd0\" \"%s/block/nbd1\"\\n' > '%s' && chmod +x '%s'",
                    g->log, g->sys, g->sys, g->modprobe, g->modprobe);
        dmo_test_sh("printf '#!/bin/sh\\necho \"swapon $*\" >> \"%s\"\\n"
                    "[ -e \"%s/noswap\" ] && exit 255\\nexit 0\\n' > '%s' && chmod +x '%s'",
                    g->log, g->root, g->swapon, g->swapon);
        dmo_test_sh("printf '#!/bin/sh\\necho \"swapoff $*\" >> \"%s\"\\n' > '%s' && chmod +x '%s'",
                    g->log, g->swapoff, g->swapoff);
        dmo_nbd_env_default(&g->env);
        g->env.client = g->client;
        g->env.modprobe = g->modprobe;
        g->env.swapon = g->swapon;
        g->env.swapoff = g->swapoff;
        g->env.dev_root = g->dev;
        g->env.sys_root = g->sys;
        g->env.run_timeout_ms = 30000;
}

static void rig_device(struct rig *g, unsigned i, bool pid, unsigned size)
{
        dmo_test_sh("mkdir -p '%s/block/nbd%u' && echo %u > '%s/block/nbd%u/size'", g->sys, i, size,
                    g->sys, i);
        if (pid)
                dmo_test_sh("echo 1 > '%s/block/nbd%u/pid'", g->sys, i);
}

static const char *rig_log(struct rig *g, char *buf, size_t len)
{
        return dmo_test_read_file(g->log, buf, len);
}

static struct dmo_nbd_url url(const char *spec)
{
        struct dmo_nbd_url u;
        if (dmo_nbd_url_parse(spec, &u, NULL) < 0)
                memset(&u, 0, sizeof(u));
        return u;
}

static void test_connects_the_first_free_device_and_enables_swap(void)
{
        struct rig g;
        char log[4096], want[2048];
        rig_init(&g, "first-free");
        rig_device(&g, 0, true, 0);     /* connected by someone */
        rig_device(&g, 1, false, 4096); /* sized: in use */
        rig_device(&g, 10, false, 0);
        rig_device(&g, 2, false, 0);
        dmo_test_sh("mkdir -p '%s/block/nbd2p1' '%s/block/sda'", g.sys, g.sys);
        struct dmo_nbd_url u = url("nbd://server.lab:10810/swap-pc12");
        struct dmo_nbd_link *l = NULL;
        int status = 0;
        REQUIRE(dmo_nbd_connect(&g.env, &u, &l, &status) == 0);
        REQUIRE(l);
        snprintf(want, sizeof(want), "%s/nbd2", g.dev);
        CHECK(strcmp(dmo_nbd_link_device(l), want) == 0);
        snprintf(want, sizeof(want),
                 "client server.lab 10810 %s/nbd2 -N swap-pc12 -timeout 30\n"
                 "swapon %s/nbd2\n",
                 g.dev, g.dev);
        CHECK(strcmp(rig_log(&g, log, sizeof(log)), want) == 0);
        if (strcmp(log, want) != 0)
                printf("# log:\n%s# want:\n%s", log, want);
        CHECK_INT(status, ==, -1);

        /* Disconnecting: swap off first, then the device; once. */
        dmo_test_sh(": > '%s'", g.log);
        CHECK_INT(dmo_nbd_disconnect(l), ==, 0);
        CHECK_INT(dmo_nbd_disconnect(l), ==, 0);
        snprintf(want, sizeof(want), "swapoff %s/nbd2\nclient -d %s/nbd2\n", g.dev, g.dev);
        CHECK(strcmp(rig_log(&g, log, sizeof(log)), want) == 0);
        dmo_nbd_link_free(l);
        unsigned i = 99;
        CHECK_INT(dmo_nbd_find_free(&g.env, &i), ==, 0);
        CHECK_INT(i, ==, 2);
}

static void test_default_export_and_ipv6_are_passed_as_nbd_client_wants(void)
{
        struct rig g;
        char log[4096], want[2048];
        rig_init(&g, "v6");
        rig_device(&g, 0, false, 0);
        g.env.swap = false;
        g.env.io_timeout_s = 0;
        struct dmo_nbd_url u = url("nbd://[2001:db8::7]");
        struct dmo_nbd_link *l = NULL;
        int status;
        REQUIRE(dmo_nbd_connect(&g.env, &u, &l, &status) == 0);
        snprintf(want, sizeof(want), "client 2001:db8::7 10809 %s/nbd0\n", g.dev);
        CHECK(strcmp(rig_log(&g, log, sizeof(log)), want) == 0);
        dmo_test_sh(": > '%s'", g.log);
        CHECK_INT(dmo_nbd_disconnect(l), ==, 0);
        snprintf(want, sizeof(want), "client -d %s/nbd0\n", g.dev);
        CHECK(strcmp(rig_log(&g, log, sizeof(log)), want) == 0); /* no swapoff */
        dmo_nbd_link_free(l);
}

static void test_the_module_is_loaded_when_there_is_no_device(void)
{
        struct rig g;
        char log[4096];
        rig_init(&g, "modprobe");
        struct dmo_nbd_url u = url("nbd://s/x");
        struct dmo_nbd_link *l = NULL;
        int status;
        REQUIRE(dmo_nbd_connect(&g.env, &u, &l, &status) == 0);
        CHECK_STR_CONTAINS(rig_log(&g, log, sizeof(log)), "modprobe nbd\nclient s 10809 ");
        CHECK_STR_CONTAINS(dmo_nbd_link_device(l), "/dev/nbd0");
        dmo_nbd_link_free(l);

        rig_init(&g, "no-modprobe");
        g.env.modprobe = NULL;
        CHECK_INT(dmo_nbd_connect(&g.env, &u, &l, &status), ==, -ENODEV);
        CHECK(l == NULL);
        CHECK(strcmp(rig_log(&g, log, sizeof(log)), "") == 0);
        dmo_test_sh("rm -rf '%s/block'", g.sys);
        CHECK_INT(dmo_nbd_connect(&g.env, &u, &l, &status), ==, -ENODEV);

        rig_init(&g, "all-busy");
        rig_device(&g, 0, true, 0);
        rig_device(&g, 1, true, 8);
        CHECK_INT(dmo_nbd_connect(&g.env, &u, &l, &status), ==, -EBUSY);
        CHECK(strcmp(rig_log(&g, log, sizeof(log)), "") == 0); /* modprobe not needed */
}

static void test_failures_leave_nothing_connected(void)
{
        struct rig g;
        char log[4096], want[2048];
        struct dmo_nbd_url u = url("nbd://s/x");
        struct dmo_nbd_link *l = (struct dmo_nbd_link *)&g; /* must be reset */
        int status = 0;

        rig_init(&g, "refused");
        rig_device(&g, 0, false, 0);
        dmo_test_sh("touch '%s/fail'", g.root);
        CHECK_INT(dmo_nbd_connect(&g.env, &u, &l, &status), ==, -ECONNREFUSED);
        CHECK(l == NULL);
        CHECK_INT(status, ==, 1);
        snprintf(want, sizeof(want), "client s 10809 %s/nbd0 -N x -timeout 30\n", g.dev);
        CHECK(strcmp(rig_log(&g, log, sizeof(log)), want) == 0);

        rig_init(&g, "nosize");
        rig_device(&g, 0, false, 0);
        dmo_test_sh("touch '%s/nosize'", g.root);
        CHECK_INT(dmo_nbd_connect(&g.env, &u, &l, &status), ==, -EIO);
        snprintf(want, sizeof(want), "client s 10809 %s/nbd0 -N x -timeout 30\nclient -d %s/nbd0\n",
                 g.dev, g.dev);
        CHECK(strcmp(rig_log(&g, log, sizeof(log)), want) == 0);

        rig_init(&g, "noswap");
        rig_device(&g, 0, false, 0);
        dmo_test_sh("touch '%s/noswap'", g.root);
        CHECK_INT(dmo_nbd_connect(&g.env, &u, &l, &status), ==, -ENOEXEC);
        CHECK_INT(status, ==, 255);
        snprintf(want, sizeof(want),
                 "client s 10809 %s/nbd0 -N x -timeout 30\nswapon %s/nbd0\nclient -d %s/nbd0\n",
                 g.dev, g.dev, g.dev);
        CHECK(strcmp(rig_log(&g, log, sizeof(log)), want) == 0);
        unsigned i;
        CHECK_INT(dmo_nbd_find_free(&g.env, &i), ==, 0); /* free again */

        rig_init(&g, "missing-client");
        rig_device(&g, 0, false, 0);
        g.env.client = "/nonexistent/nbd-client";
        CHECK_INT(dmo_nbd_connect(&g.env, &u, &l, &status), ==, -ENOENT);
        CHECK_INT(status, ==, -ENOENT);
        CHECK(l == NULL);
}

static void test_a_client_that_hangs_is_killed_at_its_deadline(void)
{
        struct rig g;
        rig_init(&g, "hang");
        rig_device(&g, 0, false, 0);
        dmo_test_sh("touch '%s/hang'", g.root);
        g.env.run_timeout_ms = 200;
        struct dmo_nbd_url u = url("nbd://s/x");
        struct dmo_nbd_link *l = NULL;
        int status;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK_INT(dmo_nbd_connect(&g.env, &u, &l, &status), ==, -ETIMEDOUT);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        CHECK(ms >= 195);  /* waited for the deadline */
        CHECK(ms < 30000); /* and not for the program (60 s) */
        CHECK(l == NULL);
        CHECK_INT(status, ==, -ETIMEDOUT);
}

static void test_a_server_not_up_yet_is_waited_for_within_a_bound(void)
{
        struct rig g;
        char log[4096];
        rig_init(&g, "wait");
        rig_device(&g, 0, false, 0);
        g.env.swap = false;
        dmo_test_sh("echo 2 > '%s/fail-times'", g.root);
        struct dmo_nbd_url u = url("nbd://s/x");
        struct dmo_nbd_link *l = NULL;
        int status;
        /* The bound is for a server that never comes, not a speed test. */
        REQUIRE(dmo_nbd_connect_wait(&g.env, &u, 60000, 10, &l, &status) == 0);
        const char *t = rig_log(&g, log, sizeof(log));
        int tries = 0;
        for (const char *p = t; (p = strstr(p, "client s ")); p++)
                tries++;
        CHECK_INT(tries, ==, 3);
        CHECK_INT(dmo_nbd_disconnect(l), ==, 0);
        dmo_nbd_link_free(l);

        /* Never there: the last error after the bound, nothing connected. */
        dmo_test_sh("touch '%s/fail'", g.root);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK_INT(dmo_nbd_connect_wait(&g.env, &u, 300, 10, &l, &status), ==, -ECONNREFUSED);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        CHECK(ms >= 280);
        CHECK(ms < 30000);
        CHECK(l == NULL);
        CHECK_INT(status, ==, 1);

        /* A server that never answers: -ETIMEDOUT, each try within the
         * bound, the whole within it too. */
        dmo_test_sh("rm -f '%s/fail' && touch '%s/hang'", g.root, g.root);
        g.env.run_timeout_ms = 100;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK_INT(dmo_nbd_connect_wait(&g.env, &u, 250, 10, &l, &status), ==, -ETIMEDOUT);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        CHECK(ms >= 240);
        CHECK(ms < 30000);
        CHECK(l == NULL);
        g.env.run_timeout_ms = 30000;

        /* Not a network failure: no second try. */
        rig_init(&g, "wait-busy");
        rig_device(&g, 0, true, 0);
        CHECK_INT(dmo_nbd_connect_wait(&g.env, &u, 60000, 10, &l, &status), ==, -EBUSY);
}

static void test_the_default_runner_reports_how_a_program_ended(void)
{
        char *ok[] = {"sh", "-c", "exit 0", NULL};
        char *three[] = {"sh", "-c", "exit 3", NULL};
        char *killed[] = {"sh", "-c", "kill -9 $$", NULL};
        char *missing[] = {"/nonexistent/program", NULL};
        CHECK_INT(dmo_nbd_run_program(NULL, ok, 30000), ==, 0);
        CHECK_INT(dmo_nbd_run_program(NULL, three, 30000), ==, 3);
        CHECK_INT(dmo_nbd_run_program(NULL, killed, 30000), ==, 128 + 9);
        CHECK_INT(dmo_nbd_run_program(NULL, missing, 30000), ==, -ENOENT);
}

DMO_TEST_MAIN(T(test_connects_the_first_free_device_and_enables_swap),
              T(test_default_export_and_ipv6_are_passed_as_nbd_client_wants),
              T(test_the_module_is_loaded_when_there_is_no_device),
              T(test_failures_leave_nothing_connected),
              T(test_a_client_that_hangs_is_killed_at_its_deadline),
              T(test_a_server_not_up_yet_is_waited_for_within_a_bound),
              T(test_the_default_runner_reports_how_a_program_ended))
