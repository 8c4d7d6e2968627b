# sleep: systemd-sleep's modes that end in a hibernation (suspend-then-hibernate,
# hybrid sleep): sleep.conf as systemd reads it, the timing, the sequence.
noinst_LIBRARIES += src/sleep/libdmo-sleep.a
src_sleep_libdmo_sleep_a_SOURCES = src/sleep/sleep_conf.c src/sleep/sleep_conf.h \
	src/sleep/sth_plan.c src/sleep/sth_plan.h \
	src/sleep/sleep.c src/sleep/sleep.h

DMO_SLEEP_TEST_LDADD = tests/libdmotest.a $(DMO_SLEEP_DEPS) $(DMO_LIBS)

# suspend-then-hibernate's rules: sleep.conf, the power supplies, the plan.
check_PROGRAMS += tests/sleep-plan.test
TESTS += tests/sleep-plan.test
tests_sleep_plan_test_SOURCES = tests/sleep-plan.c
tests_sleep_plan_test_LDADD = $(DMO_SLEEP_TEST_LDADD)

# The sequences: hooks, suspends and the hibernation child, in their order,
# with a stand-in /sys/power and hibernation.
check_PROGRAMS += tests/sleep-sequence.test
TESTS += tests/sleep-sequence.test
tests_sleep_sequence_test_SOURCES = tests/sleep-sequence.c
tests_sleep_sequence_test_LDADD = $(DMO_SLEEP_TEST_LDADD)
