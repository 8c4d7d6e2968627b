# cli: argument and config parsing, the commands, messages at the edge.
bin_PROGRAMS += dormouse
dormouse_SOURCES = src/cli/main.c
noinst_LIBRARIES += src/cli/libdmo-cli.a
src_cli_libdmo_cli_a_SOURCES = src/cli/config.c src/cli/config.h

check_PROGRAMS += tests/cli-config.test
TESTS += tests/cli-config.test
tests_cli_config_test_SOURCES = tests/cli-config.c
tests_cli_config_test_LDADD = tests/libdmotest.a src/cli/libdmo-cli.a src/codec/libdmo-codec.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-config.test
TESTS += tests/fuzz-config.test
tests_fuzz_config_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-config.c
tests_fuzz_config_test_LDADD = src/cli/libdmo-cli.a src/codec/libdmo-codec.a src/util/libdmo-util.a $(DMO_LIBS)
