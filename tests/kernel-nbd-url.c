/* nbd://HOST[:PORT]/EXPORT: what is accepted and how it is read, what is
 * refused and why, which specs are network ones at all, how the server is
 * named to a person. */
#include "tests/testlib.h"

#include <errno.h>

#include "kernel/nbd_url.h"

static void test_good_urls_are_read_as_written(void)
{
        static const struct {
                const char *spec, *host, *export_name;
                bool ipv6;
                unsigned port;
        } t[] = {
            {"nbd://server.lab/swap-pc12", "server.lab", "swap-pc12", false, 10809},
            {"nbd://192.0.2.7:10810/swap", "192.0.2.7", "swap", false, 10810},
            {"nbd://[2001:db8::7]/swap", "2001:db8::7", "swap", true, 10809},
            {"nbd://[::1]:1/x", "::1", "x", true, 1},
            {"nbd://server.lab", "server.lab", "", false, 10809},
            {"nbd://server.lab/", "server.lab", "", false, 10809},
            {"nbd://s:65535/a/b/c", "s", "a/b/c", false, 65535},
            {"nbd://s/%2Fsrv%2fswap%3F%23", "s", "/srv/swap?#", false, 10809},
            {"NBD://Server-1.Lab./x", "Server-1.Lab.", "x", false, 10809},
            {"nbd+tcp://10.0.2.100/swap", "10.0.2.100", "swap", false, 10809},
            {"nbd://s:0080/x", "s", "x", false, 80},
            {"nbd://a-b.c-d.e1/x", "a-b.c-d.e1", "x", false, 10809},
        };
        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                struct dmo_nbd_url u;
                enum dmo_nbd_url_error why = DMO_NBD_URL_NOT_NBD;
                CHECK(dmo_nbd_url_is(t[i].spec));
                int r = dmo_nbd_url_parse(t[i].spec, &u, &why);
                bool ok = r == 0 && why == DMO_NBD_URL_OK && strcmp(u.host, t[i].host) == 0 &&
                          strcmp(u.export_name, t[i].export_name) == 0 && u.ipv6 == t[i].ipv6 &&
                          u.port == t[i].port;
                if (!ok)
                        printf("# %s: r=%d why=%d host=\"%s\" export=\"%s\" port=%u\n", t[i].spec,
                               r, (int)why, u.host, u.export_name, (unsigned)u.port);
                CHECK(ok);
        }
}

static void test_hostile_urls_are_refused_with_their_reason(void)
{
        char long_label[100], long_export[300], long_host[300];
        snprintf(long_label, sizeof(long_label), "nbd://%0*d.lab/x", 64, 0);
        memset(long_export, 'e', sizeof(long_export));
        memcpy(long_export, "nbd://s/", 8);
        long_export[8 + DMO_NBD_EXPORT_MAX + 1] = '\0';
        memset(long_host, 'a', sizeof(long_host));
        memcpy(long_host, "nbd://", 6);
        for (size_t i = 6 + 60; i < 6 + 260; i += 61)
                long_host[i] = '.';
        long_host[6 + 260] = '\0';
        static const struct {
                const char *spec;
                enum dmo_nbd_url_error why;
        } t[] = {
            {"/dev/nbd0", DMO_NBD_URL_NOT_NBD},
            {"nbd:/x", DMO_NBD_URL_NOT_NBD},
            {"nbdx://s/x", DMO_NBD_URL_NOT_NBD},
            {"nbds://s/x", DMO_NBD_URL_TLS},
            {"nbds+unix:///x?socket=/s", DMO_NBD_URL_TLS},
            {"nbd+unix:///x?socket=/run/nbd", DMO_NBD_URL_UNIX},
            {"nbd:///x", DMO_NBD_URL_NO_HOST},
            {"nbd://", DMO_NBD_URL_NO_HOST},
            {"nbd://:10809/x", DMO_NBD_URL_NO_HOST},
            {"nbd://user@s/x", DMO_NBD_URL_USERINFO},
            {"nbd://2001:db8::7/x", DMO_NBD_URL_BAD_HOST},
            {"nbd://[2001:db8::7/x", DMO_NBD_URL_BAD_HOST},
            {"nbd://[2001:db8::7]x/x", DMO_NBD_URL_BAD_HOST},
            {"nbd://[]/x", DMO_NBD_URL_BAD_HOST},
            {"nbd://[fe80::1%25eth0]/x", DMO_NBD_URL_BAD_HOST},
            {"nbd://[192.0.2.1]/x", DMO_NBD_URL_BAD_HOST},
            {"nbd://256.1.1.1/x", DMO_NBD_URL_BAD_HOST},
            {"nbd://10.1/x", DMO_NBD_URL_BAD_HOST},
            {"nbd://-s/x", DMO_NBD_URL_BAD_HOST},
            {"nbd://s-/x", DMO_NBD_URL_BAD_HOST},
            {"nbd://a..b/x", DMO_NBD_URL_BAD_HOST},
            {"nbd://a_b/x", DMO_NBD_URL_BAD_HOST},
            {"nbd://s;reboot/x", DMO_NBD_URL_BAD_HOST},
            {"nbd://s\n/x", DMO_NBD_URL_BAD_HOST},
            {"nbd://s:/x", DMO_NBD_URL_BAD_PORT},
            {"nbd://s:0/x", DMO_NBD_URL_BAD_PORT},
            {"nbd://s:65536/x", DMO_NBD_URL_BAD_PORT},
            {"nbd://s:123456/x", DMO_NBD_URL_BAD_PORT},
            {"nbd://s:010809/x", DMO_NBD_URL_BAD_PORT},
            {"nbd://s:-1/x", DMO_NBD_URL_BAD_PORT},
            {"nbd://s:1:2/x", DMO_NBD_URL_BAD_HOST},
            {"nbd://s:http/x", DMO_NBD_URL_BAD_PORT},
            {"nbd://s/a b", DMO_NBD_URL_BAD_EXPORT},
            {"nbd://s/a%20b", DMO_NBD_URL_BAD_EXPORT},
            {"nbd://s/a%00b", DMO_NBD_URL_BAD_EXPORT},
            {"nbd://s/a%0", DMO_NBD_URL_BAD_EXPORT},
            {"nbd://s/a%g0", DMO_NBD_URL_BAD_EXPORT},
            {"nbd://s/a\"b", DMO_NBD_URL_BAD_EXPORT},
            {"nbd://s/a'b", DMO_NBD_URL_BAD_EXPORT},
            {"nbd://s/a\\b", DMO_NBD_URL_BAD_EXPORT},
            {"nbd://s/a\tb", DMO_NBD_URL_BAD_EXPORT},
            {"nbd://s/\xc3\xa9", DMO_NBD_URL_BAD_EXPORT},
            {"nbd://s/x?tls=on", DMO_NBD_URL_QUERY},
            {"nbd://s?x", DMO_NBD_URL_QUERY},
            {"nbd://s/x#frag", DMO_NBD_URL_QUERY},
        };
        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                struct dmo_nbd_url u;
                enum dmo_nbd_url_error why = DMO_NBD_URL_OK;
                int r = dmo_nbd_url_parse(t[i].spec, &u, &why);
                if (r != -EINVAL || why != t[i].why)
                        printf("# %zu \"%s\": r=%d why=%d, want %d\n", i, t[i].spec, r, (int)why,
                               (int)t[i].why);
                CHECK_INT(r, ==, -EINVAL);
                CHECK_INT(why, ==, t[i].why);
                CHECK(u.host[0] == '\0' && u.port == 0); /* nothing half filled */
        }
        struct dmo_nbd_url u;
        enum dmo_nbd_url_error why;
        CHECK_INT(dmo_nbd_url_parse(long_label, &u, &why), ==, -EINVAL);
        CHECK_INT(why, ==, DMO_NBD_URL_BAD_HOST);
        CHECK_INT(dmo_nbd_url_parse(long_host, &u, &why), ==, -EINVAL);
        CHECK_INT(why, ==, DMO_NBD_URL_BAD_HOST);
        CHECK_INT(dmo_nbd_url_parse(long_export, &u, &why), ==, -EINVAL);
        CHECK_INT(why, ==, DMO_NBD_URL_LONG_EXPORT);
        long_export[8 + DMO_NBD_EXPORT_MAX] = '\0'; /* exactly the most */
        CHECK_INT(dmo_nbd_url_parse(long_export, &u, &why), ==, 0);
        CHECK_INT(strlen(u.export_name), ==, DMO_NBD_EXPORT_MAX);
        CHECK_INT(dmo_nbd_url_parse(NULL, &u, &why), ==, -EINVAL);
        CHECK_INT(why, ==, DMO_NBD_URL_NOT_NBD);
}

static void test_only_network_specs_are_network_ones(void)
{
        /* Kernel names and paths that merely start with "nbd" stay local. */
        CHECK(!dmo_nbd_url_is("nbd0"));
        CHECK(!dmo_nbd_url_is("/dev/nbd0"));
        CHECK(!dmo_nbd_url_is("nbd0p1"));
        CHECK(!dmo_nbd_url_is("UUID=nbd://x"));
        CHECK(!dmo_nbd_url_is(""));
        CHECK(!dmo_nbd_url_is(NULL));
        CHECK(dmo_nbd_url_is("nbds://s/x"));
        CHECK(dmo_nbd_url_is("nbd+unix:///x"));
}

static void test_the_server_is_named_as_a_person_writes_it(void)
{
        struct dmo_nbd_url u;
        char buf[300];
        REQUIRE(dmo_nbd_url_parse("nbd://server.lab/x", &u, NULL) == 0);
        dmo_nbd_url_server(&u, buf, sizeof(buf));
        CHECK(strcmp(buf, "server.lab") == 0);
        REQUIRE(dmo_nbd_url_parse("nbd://[2001:db8::7]:2000/x", &u, NULL) == 0);
        dmo_nbd_url_server(&u, buf, sizeof(buf));
        CHECK(strcmp(buf, "[2001:db8::7]:2000") == 0);
        dmo_nbd_url_server(&u, buf, 5);
        CHECK(strcmp(buf, "[200") == 0);
}

DMO_TEST_MAIN(T(test_good_urls_are_read_as_written),
              T(test_hostile_urls_are_refused_with_their_reason),
              T(test_only_network_specs_are_network_ones),
              T(test_the_server_is_named_as_a_person_writes_it))
