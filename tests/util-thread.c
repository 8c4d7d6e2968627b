/* util/thread: a started thread runs on the stack size asked for, and names
 * itself as /proc shows it. */
#include "util/thread.h"

#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/testlib.h"

struct seen {
        char comm[32];
        size_t stack;
};

static void *named_main(void *arg)
{
        struct seen *s = arg;
        dmo_thread_set_name("dmo-test-named");
        char path[64];
        snprintf(path, sizeof(path), "/proc/self/task/%ld/comm", (long)syscall(SYS_gettid));
        FILE *f = fopen(path, "re");
        if (f) {
                if (!fgets(s->comm, sizeof(s->comm), f))
                        s->comm[0] = '\0';
                fclose(f);
        }
        pthread_attr_t attr;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
                pthread_attr_getstacksize(&attr, &s->stack);
                pthread_attr_destroy(&attr);
        }
        return NULL;
}

static void a_thread_names_itself_and_gets_its_stack(void)
{
        struct seen s = {{0}, 0};
        pthread_t t;
        REQUIRE(dmo_thread_start(&t, named_main, &s, DMO_THREAD_STACK_WORKER, 0) == 0);
        REQUIRE(pthread_join(t, NULL) == 0);
        CHECK(strcmp(s.comm, "dmo-test-named\n") == 0);
        CHECK_INT(s.stack, >=, DMO_THREAD_STACK_WORKER);
        CHECK_INT(s.stack, <, 2 * DMO_THREAD_STACK_WORKER);
}

DMO_TEST_MAIN(T(a_thread_names_itself_and_gets_its_stack))
