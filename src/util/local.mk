# util: gettext binding, scope cleanup, byte-order helpers, the number parser,
# the string tables, the filter for untrusted text, the terminal reopener and
# DORMOUSE_DEBUG_TIMING's marks, the process's own memory size and the
# nanosecond clock,
# shared by every module.
noinst_LIBRARIES += src/util/libdmo-util.a
src_util_libdmo_util_a_SOURCES = src/util/i18n.c src/util/i18n.h src/util/cleanup.h src/util/le.h \
	src/util/parse.c src/util/parse.h src/util/strtable.h \
	src/util/printable.c src/util/printable.h src/util/tty.c src/util/tty.h \
	src/util/thread.c src/util/thread.h \
	src/util/timing.c src/util/timing.h \
	src/util/self_memory.c src/util/self_memory.h \
	src/util/small_file.c src/util/small_file.h \
	src/util/clock.h

check_PROGRAMS += tests/util-printable.test
TESTS += tests/util-printable.test
tests_util_printable_test_SOURCES = tests/util-printable.c
tests_util_printable_test_LDADD = tests/libdmotest.a src/util/libdmo-util.a

check_PROGRAMS += tests/util-parse.test
TESTS += tests/util-parse.test
tests_util_parse_test_SOURCES = tests/util-parse.c
tests_util_parse_test_LDADD = tests/libdmotest.a src/util/libdmo-util.a

check_PROGRAMS += tests/util-strtable.test
TESTS += tests/util-strtable.test
tests_util_strtable_test_SOURCES = tests/util-strtable.c
tests_util_strtable_test_LDADD = tests/libdmotest.a

check_PROGRAMS += tests/util-tty.test
TESTS += tests/util-tty.test
tests_util_tty_test_SOURCES = tests/util-tty.c
tests_util_tty_test_LDADD = tests/libdmotest.a src/util/libdmo-util.a -lutil

check_PROGRAMS += tests/util-self-memory.test
TESTS += tests/util-self-memory.test
tests_util_self_memory_test_SOURCES = tests/util-self-memory.c
tests_util_self_memory_test_LDADD = tests/libdmotest.a src/util/libdmo-util.a

check_PROGRAMS += tests/util-thread.test
TESTS += tests/util-thread.test
tests_util_thread_test_SOURCES = tests/util-thread.c
tests_util_thread_test_LDADD = tests/libdmotest.a src/util/libdmo-util.a

check_PROGRAMS += tests/util-i18n.test
TESTS += tests/util-i18n.test
tests_util_i18n_test_SOURCES = tests/util-i18n.c
tests_util_i18n_test_LDADD = tests/libdmotest.a src/util/libdmo-util.a
EXTRA_tests_util_i18n_test_DEPENDENCIES = data/locale/dormouse/LC_MESSAGES/SYS_LC_MESSAGES
