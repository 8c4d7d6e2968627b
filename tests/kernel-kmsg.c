/* The kernel's log buffer from user space: a sentence becomes records of
 * at most DMO_KMSG_LINE_MAX bytes, split at spaces, each with the level and
 * the identifier, with no control character left to forge a line. Written
 * to a file standing in for /dev/kmsg (never the real one). */
#include "tests/testlib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel/kmsg.h"

static const char *kmsg_file(void)
{
        static char path[512];
        snprintf(path, sizeof(path), "%s/kmsg", dmo_test_tmpdir());
        remove(path);
        return path;
}

static void a_short_sentence_is_one_record_with_level_and_name(void)
{
        const char *path = kmsg_file();
        char buf[4096];
        CHECK_INT(dmo_kmsg_write(path, DMO_KMSG_ERR, "dormouse", "/dev/vda2: the image is damaged"),
                  ==, 0);
        CHECK(strcmp(dmo_test_read_file(path, buf, sizeof(buf)),
                     "<3>dormouse: /dev/vda2: the image is damaged\n") == 0);
        /* appended, not overwritten */
        CHECK_INT(dmo_kmsg_write(path, DMO_KMSG_WARNING, "dormouse", "second"), ==, 0);
        CHECK(strcmp(dmo_test_read_file(path, buf, sizeof(buf)),
                     "<3>dormouse: /dev/vda2: the image is damaged\n<4>dormouse: second\n") == 0);
}

static void control_characters_cannot_forge_a_record(void)
{
        const char *path = kmsg_file();
        char buf[4096];
        CHECK_INT(dmo_kmsg_write(path, DMO_KMSG_ERR, "dormouse",
                                 "kernel 6.1\n<0>fake: panic\x1b[2J end\n"),
                  ==, 0);
        dmo_test_read_file(path, buf, sizeof(buf));
        CHECK(strcmp(buf, "<3>dormouse: kernel 6.1 <0>fake: panic [2J end\n") == 0);
        if (strcmp(buf, "<3>dormouse: kernel 6.1 <0>fake: panic [2J end\n") != 0)
                printf("# got: %s", buf);
}

static void a_long_sentence_is_split_at_spaces_into_short_records(void)
{
        const char *path = kmsg_file();
        static char text[3000], buf[8192];
        size_t n = 0;
        while (n + 10 < sizeof(text) - 1) {
                memcpy(text + n, "abcdefghi ", 10);
                n += 10;
        }
        text[n] = '\0';
        CHECK_INT(dmo_kmsg_write(path, DMO_KMSG_WARNING, "dormouse", text), ==, 0);
        dmo_test_read_file(path, buf, sizeof(buf));
        unsigned records = 0;
        size_t words = 0;
        for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
                records++;
                CHECK(strlen(line) + 1 <= DMO_KMSG_LINE_MAX);
                CHECK(strncmp(line, "<4>dormouse: abcdefghi", 22) == 0);
                /* whole words only */
                const char *body = line + strlen("<4>dormouse: ");
                for (const char *w = body; *w; w += strcspn(w, " "), w += strspn(w, " ")) {
                        CHECK(strncmp(w, "abcdefghi", 9) == 0 && (w[9] == ' ' || !w[9]));
                        words++;
                }
        }
        CHECK_INT(records, ==, 4);
        CHECK_INT(words, ==, n / 10);
}

static void one_word_longer_than_a_record_is_cut_not_lost(void)
{
        static char text[2100], rec[DMO_KMSG_LINE_MAX + 1];
        memset(text, 'x', sizeof(text) - 1);
        text[sizeof(text) - 1] = '\0';
        size_t total = 0, used;
        unsigned records = 0;
        while ((used = dmo_kmsg_format(rec, DMO_KMSG_ERR, "dormouse", text + total)) > 0) {
                CHECK(strlen(rec) <= DMO_KMSG_LINE_MAX);
                total += used;
                records++;
                REQUIRE(records < 10);
        }
        CHECK_INT(total, ==, sizeof(text) - 1);
        CHECK_INT(records, ==, 3);
}

static void nothing_to_say_writes_nothing(void)
{
        const char *path = kmsg_file();
        char buf[64];
        CHECK_INT(dmo_kmsg_write(path, DMO_KMSG_ERR, "dormouse", "  \n "), ==, 0);
        CHECK(strcmp(dmo_test_read_file(path, buf, sizeof(buf)), "") == 0);
}

static void an_unwritable_path_is_an_error(void)
{
        CHECK_INT(dmo_kmsg_write("/nonexistent/kmsg", DMO_KMSG_ERR, "dormouse", "x"), ==, -ENOENT);
}

DMO_TEST_MAIN(T(a_short_sentence_is_one_record_with_level_and_name),
              T(control_characters_cannot_forge_a_record),
              T(a_long_sentence_is_split_at_spaces_into_short_records),
              T(one_word_longer_than_a_record_is_cut_not_lost), T(nothing_to_say_writes_nothing),
              T(an_unwritable_path_is_an_error))
