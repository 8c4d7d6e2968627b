/* Encrypted hibernation through the dormouse program on the simulated
 * kernel: both modes round trip (a wrong key file first, which leaves the
 * image on disk untouched, then the right one, every page verified by the
 * simulated kernel); the swap area holds no plain memory with encryption
 * on, and does with it off; key files others may read are refused. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/sim_pages.h"
#include "tests/testlib.h"

#define run(...)      dmo_test_run_program(__VA_ARGS__)
#define output()      dmo_test_program_output()
#define show_output() dmo_test_show_program_output()

#define PS 4096u

static const char *tmp(const char *name)
{
        static char path[8][512];
        static int next;
        char *p = path[next++ % 8];
        snprintf(p, 512, "%s/%s", dmo_test_tmpdir(), name);
        return p;
}

static const char *make_swap(const char *name, const char *size)
{
        const char *p = tmp(name);
        if (dmo_test_sh("rm -f '%s' && truncate -s %s '%s' && mkswap -q '%s' >/dev/null 2>&1 && "
                        "chmod 600 '%s'",
                        p, size, p, p, p) != 0)
                return NULL;
        return p;
}

static const char *key_file(const char *name, const char *pass, mode_t mode)
{
        const char *p = tmp(name);
        if (dmo_test_sh("printf '%%s\\n' '%s' > '%s' && chmod %o '%s'", pass, p, (unsigned)mode,
                        p) != 0)
                return NULL;
        return p;
}

/* The image is there and sound, as `dormouse info` sees it without a key. */
static void check_intact(const char *swap, const char *mode)
{
        int rc = run("info '%s'", swap);
        if (rc != 0)
                show_output();
        CHECK_INT(rc, ==, 0);
        CHECK_STR_CONTAINS(output(), "dormouse hibernation image");
        CHECK_STR_CONTAINS(output(), mode);
        rc = run("info --json '%s'", swap);
        CHECK_INT(rc, ==, 0);
        CHECK_STR_CONTAINS(output(), "\"encrypted\":true");
}

static void passphrase_mode_round_trip_wrong_key_first(void)
{
        const char *swap = make_swap("pass.swap", "32M");
        const char *good = key_file("good", "correct horse battery", 0600);
        const char *bad = key_file("bad", "correct horse batterie", 0600);
        REQUIRE(swap && good && bad);
        int rc = run("hibernate --kernel sim --sim-size 8M --sim-seed 3 --resume-device '%s' "
                     "--splash none --encrypt passphrase --key-file '%s'",
                     swap, good);
        if (rc != 0)
                show_output();
        REQUIRE(rc == 0);
        check_intact(swap, "passphrase");

        rc = run("resume --kernel sim --sim-seed 3 --resume-device '%s' --splash none "
                 "--key-file '%s'",
                 swap, bad);
        CHECK_INT(rc, ==, 8);
        CHECK_STR_CONTAINS(output(), "not accepted");
        check_intact(swap, "passphrase");

        /* No key at all (no terminal, no key file): still locked, intact. */
        rc = run("resume --kernel sim --sim-seed 3 --resume-device '%s' --splash none", swap);
        CHECK_INT(rc, ==, 8);
        check_intact(swap, "passphrase");

        rc = run("resume --kernel sim --sim-seed 3 --resume-device '%s' --splash none "
                 "--key-file '%s'",
                 swap, good);
        if (rc != 0)
                show_output();
        CHECK_INT(rc, ==, 0);
        CHECK_STR_CONTAINS(output(), "bit-exact");
        CHECK_INT(run("info '%s'", swap), ==, 1); /* gone */
}

static void pubkey_mode_round_trip_wrong_key_first(void)
{
        const char *swap = make_swap("pk.swap", "32M");
        const char *good = key_file("skgood", "secret key words", 0600);
        const char *bad = key_file("skbad", "secret key word", 0600);
        const char *pub = tmp("k.pub"), *sec = tmp("k.sec");
        REQUIRE(swap && good && bad);
        int rc = run("keygen --public-key '%s' --secret-key '%s' --key-file '%s'", pub, sec, good);
        if (rc != 0)
                show_output();
        REQUIRE(rc == 0);
        struct stat st;
        REQUIRE(stat(sec, &st) == 0);
        CHECK_INT(st.st_mode & 0777, ==, 0600);
        /* Never over an existing key. */
        CHECK(run("keygen --public-key '%s' --secret-key '%s' --key-file '%s'", pub, sec, good) !=
              0);
        CHECK_STR_CONTAINS(output(), "exists");

        /* No passphrase at hibernation: nothing to type, no key file. */
        rc = run("hibernate --kernel sim --sim-size 8M --sim-seed 4 --resume-device '%s' "
                 "--splash none --encrypt pubkey --public-key '%s'",
                 swap, pub);
        if (rc != 0)
                show_output();
        REQUIRE(rc == 0);
        check_intact(swap, "public key");

        rc = run("resume --kernel sim --sim-seed 4 --resume-device '%s' --splash none "
                 "--secret-key '%s' --key-file '%s'",
                 swap, sec, bad);
        CHECK_INT(rc, ==, 8);
        check_intact(swap, "public key");

        rc = run("resume --kernel sim --sim-seed 4 --resume-device '%s' --splash none "
                 "--secret-key '%s' --key-file '%s'",
                 swap, sec, good);
        if (rc != 0)
                show_output();
        CHECK_INT(rc, ==, 0);
        CHECK_STR_CONTAINS(output(), "bit-exact");
}

static void key_file_readable_by_others_is_refused(void)
{
        const char *swap = make_swap("perm.swap", "16M");
        const char *open_file = key_file("open", "anyone can read me", 0644);
        REQUIRE(swap && open_file);
        int rc = run("hibernate --kernel sim --sim-size 2M --resume-device '%s' --splash none "
                     "--encrypt passphrase --key-file '%s'",
                     swap, open_file);
        CHECK(rc != 0);
        CHECK_STR_CONTAINS(output(), "chmod 600");
        /* Nothing was hibernated. */
        CHECK_INT(run("info '%s'", swap), ==, 1);
}

/* Reads the whole swap file. */
static uint8_t *slurp(const char *path, size_t *len)
{
        int fd = open(path, O_RDONLY);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0)
                return NULL;
        uint8_t *buf = malloc((size_t)st.st_size);
        size_t got = 0;
        while (buf && got < (size_t)st.st_size) {
                ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
                if (n <= 0)
                        break;
                got += (size_t)n;
        }
        close(fd);
        *len = got;
        return buf;
}

/* How many of the simulated memory's text pages (a 128-byte window from
 * the middle of each of the first 40) appear in the swap area's bytes. */
static int text_pages_found(const char *swap, uint64_t seed, int *sampled)
{
        size_t len;
        uint8_t *area = slurp(swap, &len);
        uint8_t page[PS];
        int found = 0;
        *sampled = 0;
        if (!area)
                return -1;
        for (uint64_t i = 1; i < 2048 && *sampled < 40; i++) {
                if (dmo_sim_page_kind(seed, i) != DMO_SIM_PAGE_TEXT)
                        continue;
                dmo_sim_page_fill(seed, i, page, PS);
                (*sampled)++;
                if (memmem(area, len, page + PS / 2, 128))
                        found++;
        }
        free(area);
        return found;
}

/* Whether the scratch directory's file system zeroes ranges in place. */
static bool zero_range_works(void)
{
        const char *p = tmp("zr");
        int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
        bool ok = fd >= 0 && ftruncate(fd, 1 << 16) == 0 &&
                  fallocate(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 0, 4096) == 0;
        if (fd >= 0)
                close(fd);
        return ok;
}

static void swap_area_holds_no_plain_text_with_encryption_on(void)
{
        const char *swap = make_swap("plain.swap", "32M");
        const char *good = key_file("plainkey", "hunter2 hunter2", 0600);
        REQUIRE(swap && good);
        int sampled = 0;

        /* Off: the memory is there to read (that is what the docs warn of). */
        REQUIRE(run("hibernate --kernel sim --sim-size 8M --sim-seed 6 --compress none "
                    "--resume-device '%s' --splash none",
                    swap) == 0);
        int found = text_pages_found(swap, 6, &sampled);
        printf("# encryption off: %d of %d text pages found in the swap area\n", found, sampled);
        CHECK_INT(sampled, ==, 40);
        CHECK_INT(found, >=, 36);
        REQUIRE(run("resume --kernel sim --sim-seed 6 --resume-device '%s' --splash none", swap) ==
                0);
        /* After the resume the image's slots are discarded (zeroed ranges
         * in a file), where the file system can. */
        if (zero_range_works()) {
                found = text_pages_found(swap, 6, &sampled);
                printf("# after the resume: %d of %d text pages found\n", found, sampled);
                CHECK_INT(found, ==, 0);
                CHECK_INT(run("info '%s'", swap), ==, 1); /* a plain swap area */
        }

        /* On, stored raw and compressed: none of it. */
        static const char *const algos[] = {"none", "lz4"};
        for (int a = 0; a < 2; a++) {
                REQUIRE(dmo_test_sh("dd if=/dev/zero of='%s' bs=1M count=32 status=none "
                                    "conv=notrunc && mkswap -q '%s' >/dev/null 2>&1",
                                    swap, swap) == 0);
                int rc = run("hibernate --kernel sim --sim-size 8M --sim-seed 6 --compress %s "
                             "--resume-device '%s' --splash none --encrypt passphrase "
                             "--key-file '%s'",
                             algos[a], swap, good);
                if (rc != 0)
                        show_output();
                REQUIRE(rc == 0);
                found = text_pages_found(swap, 6, &sampled);
                printf("# encryption on (%s): %d of %d text pages found\n", algos[a], found,
                       sampled);
                CHECK_INT(sampled, ==, 40);
                CHECK_INT(found, ==, 0);
                CHECK_INT(run("resume --kernel sim --sim-seed 6 --resume-device '%s' --splash none "
                              "--key-file '%s'",
                              swap, good),
                          ==, 0);
        }
}

/* A person at the terminal: the program runs on a pseudo-terminal with the
 * text splash (whose dialogs are drawn as prompts on it); each step waits
 * for a prompt to appear (counting from where the last step matched), then
 * types its keys. Returns the exit status; -2 if a prompt never came. */
struct step {
        const char *await;
        const char *keys;
};

/* Milliseconds on the monotonic clock: the conversation's bounds are
 * deadlines, not counts of polls (a poll returns at once while the program
 * streams its progress, so a count would run out in a fraction of it). */
static int64_t now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int converse(const char *const argv[], const struct step *steps, size_t n)
{
        int master;
        pid_t pid = forkpty(&master, NULL, NULL, NULL);
        if (pid < 0)
                return -1;
        if (pid == 0) {
                execv(dmo_test_program(), (char *const *)argv);
                _exit(127);
        }
        static char seen[1 << 16];
        size_t have = 0, from = 0;
        seen[0] = '\0';
        int ret = 0;
        for (size_t i = 0; i < n && ret == 0; i++) {
                bool found = false;
                /* A bound so that a missing prompt fails instead of hanging. */
                for (int64_t end = now_ms() + 30000; now_ms() < end && !found;) {
                        struct pollfd pf = {master, POLLIN, 0};
                        if (poll(&pf, 1, 10) > 0) {
                                ssize_t r = read(master, seen + have, sizeof(seen) - 1 - have);
                                if (r > 0)
                                        have += (size_t)r;
                                seen[have] = '\0';
                        }
                        char *at = strstr(seen + from, steps[i].await);
                        if (at) {
                                from = (size_t)(at - seen) + strlen(steps[i].await);
                                found = true;
                        }
                        if (have > sizeof(seen) - 4096) /* keep the tail */
                                have = from = 0;
                }
                if (!found) {
                        printf("# no \"%s\" on the terminal (step %zu); it showed:\n",
                               steps[i].await, i);
                        for (char *l = strtok(seen + (have > 600 ? have - 600 : 0), "\r\n"); l;
                             l = strtok(NULL, "\r\n"))
                                printf("#   %s\n", l);
                        ret = -2;
                        break;
                }
                struct timespec ts = {0, 100 * 1000 * 1000}; /* the dialog takes keys */
                nanosleep(&ts, NULL);
                if (write(master, steps[i].keys, strlen(steps[i].keys)) < 0)
                        ret = -1;
        }
        int status = 0;
        bool exited = false;
        for (int64_t end = now_ms() + 30000; now_ms() < end && !exited;) {
                char drain[1024];
                struct pollfd pf = {master, POLLIN, 0};
                if (poll(&pf, 1, 10) > 0)
                        (void)!read(master, drain, sizeof(drain));
                exited = waitpid(pid, &status, WNOHANG) == pid;
        }
        if (!exited) {
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
                ret = ret ? ret : -3;
        }
        close(master);
        if (ret)
                return ret;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Hibernate asks twice (a mismatch asks again); resume asks on the resume
 * screen, offers the choice after three wrong passphrases, never discards
 * on the default answer, and restores with the right one. */
static void passphrase_asked_on_the_splash_with_retries(void)
{
        const char *swap = make_swap("ask.swap", "32M");
        const char *conf = tmp("ask.conf");
        REQUIRE(swap);
        REQUIRE(dmo_test_sh("printf 'kdf ops = 1\\nkdf memory = 1M\\n' > '%s'", conf) == 0);
        const char *const hib[] = {"dormouse",   "hibernate", "--config",        conf,
                                   "--kernel",   "sim",       "--sim-size",      "2M",
                                   "--sim-seed", "8",         "--resume-device", swap,
                                   "--splash",   "text",      "--encrypt",       "passphrase",
                                   NULL};
        const struct step hib_steps[] = {
            {"Passphrase for the hibernation image:", "sesame\r"},
            {"Repeat the passphrase:", "sesam\r"}, /* a typo: asked again */
            {"Passphrase for the hibernation image:", "sesame\r"},
            {"Repeat the passphrase:", "sesame\r"},
        };
        CHECK_INT(converse(hib, hib_steps, 4), ==, 0);
        check_intact(swap, "passphrase");

        const char *const res[] = {
            "dormouse", "resume",          "--config", conf,       "--kernel", "sim", "--sim-seed",
            "8",        "--resume-device", swap,       "--splash", "text",     NULL};
        const struct step res_steps[] = {
            {"Passphrase to resume:", "one\r"},
            {"Not accepted (1 of 3). Passphrase to resume:", "two\r"},
            {"Not accepted (2 of 3). Passphrase to resume:", "three\r"},
            {"Try again?", "n"},
            /* Enter takes the default, which keeps the image. */
            {"Continue booting without resuming?", "\r"},
            /* Esc in the passphrase dialog brings the choice at once; Esc
             * there is no answer either, and asks for the passphrase again. */
            {"Passphrase to resume:", "\x1b"},
            {"Try again?", "\x1b"},
            {"Passphrase to resume:", "sesame\r"},
        };
        CHECK_INT(converse(res, res_steps, 8), ==, 0);
        CHECK_INT(run("info '%s'", swap), ==, 1);

        /* Again, and this time the person chooses to boot without it. */
        REQUIRE(converse(hib, hib_steps + 2, 2) == 0);
        const struct step give_up[] = {
            {"Passphrase to resume:", "a\r"},
            {"Not accepted (1 of 3). Passphrase to resume:", "b\r"},
            {"Not accepted (2 of 3). Passphrase to resume:", "c\r"},
            {"Try again?", "n"},
            {"Continue booting without resuming?", "y"},
        };
        CHECK_INT(converse(res, give_up, 5), ==, 1);
        CHECK_INT(run("info '%s'", swap), ==, 1); /* discarded: a plain swap area */
}

DMO_TEST_MAIN(T(passphrase_mode_round_trip_wrong_key_first),
              T(pubkey_mode_round_trip_wrong_key_first), T(key_file_readable_by_others_is_refused),
              T(swap_area_holds_no_plain_text_with_encryption_on),
              T(passphrase_asked_on_the_splash_with_retries))
