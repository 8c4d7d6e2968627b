# cli: argument and config parsing, the commands, messages at the edge.
bin_PROGRAMS += dormouse
dormouse_SOURCES = src/cli/main.c
noinst_LIBRARIES += src/cli/libdmo-cli.a
src_cli_libdmo_cli_a_SOURCES = src/cli/config.c src/cli/config_keys.c src/cli/config_crypto.c \
	src/cli/config.h \
	src/cli/cli.h src/cli/common.c src/cli/exit.c src/cli/kernel.c src/cli/target.c \
	src/cli/steps.c src/cli/resume_report.c src/cli/resume_check.c src/cli/resume_check.h \
	src/cli/display.c src/cli/display.h \
	src/cli/keys.c src/cli/keys_ask.c src/cli/keys_tpm.c src/cli/keys.h src/cli/cmd_keygen.c src/cli/cmd_enroll_tpm.c \
	src/cli/report.h src/cli/hibernate_report.c src/cli/resume_ui.c \
	src/cli/cmd_hibernate.c src/cli/cmd_resume.c src/cli/cmd_info.c src/cli/cmd_splash.c \
	src/cli/cmd_sleep.c src/cli/sleep_report.c \
	src/cli/hibernate_location.c src/cli/hibernate_location.h \
	src/cli/efi_location.c src/cli/efi_location.h \
	src/cli/network.c src/cli/network.h

check_PROGRAMS += tests/cli-config.test
TESTS += tests/cli-config.test
tests_cli_config_test_SOURCES = tests/cli-config.c
tests_cli_config_test_LDADD = tests/libdmotest.a src/cli/libdmo-cli.a src/keys/libdmo-keys.a src/splash/libdmo-splash.a \
	src/codec/libdmo-codec.a src/crypto/libdmo-crypto.a src/progress/libdmo-progress.a \
	src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-config.test
TESTS += tests/fuzz-config.test
tests_fuzz_config_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-config.c
tests_fuzz_config_test_LDADD = src/cli/libdmo-cli.a src/keys/libdmo-keys.a src/splash/libdmo-splash.a src/codec/libdmo-codec.a \
	src/crypto/libdmo-crypto.a src/progress/libdmo-progress.a src/util/libdmo-util.a $(DMO_LIBS)

# The program end to end on the simulated kernel.
check_PROGRAMS += tests/engine-roundtrip.test
TESTS += tests/engine-roundtrip.test
tests_engine_roundtrip_test_SOURCES = tests/engine-roundtrip.c
tests_engine_roundtrip_test_LDADD = tests/libdmotest.a -lutil
tests/engine-roundtrip.log: dormouse$(EXEEXT)

check_PROGRAMS += tests/engine-corruption.test
TESTS += tests/engine-corruption.test
tests_engine_corruption_test_SOURCES = tests/engine-corruption.c
tests_engine_corruption_test_LDADD = tests/libdmotest.a
tests/engine-corruption.log: dormouse$(EXEEXT)

check_PROGRAMS += tests/cli-exit.test
TESTS += tests/cli-exit.test
tests_cli_exit_test_SOURCES = tests/cli-exit.c
tests_cli_exit_test_LDADD = tests/libdmotest.a src/cli/libdmo-cli.a src/keys/libdmo-keys.a src/splash/libdmo-splash.a \
	src/progress/libdmo-progress.a src/util/libdmo-util.a $(DMO_LIBS)

# Bad input on the command line, through the program.
check_PROGRAMS += tests/cli-options.test
TESTS += tests/cli-options.test
tests_cli_options_test_SOURCES = tests/cli-options.c
tests_cli_options_test_LDADD = tests/libdmotest.a
tests/cli-options.log: dormouse$(EXEEXT)

# Encrypted round trips through the program, and no plain memory on disk.
check_PROGRAMS += tests/engine-encryption.test
TESTS += tests/engine-encryption.test
tests_engine_encryption_test_SOURCES = tests/engine-encryption.c
tests_engine_encryption_test_LDADD = tests/libdmotest.a kernel/libdmo-kernel.a src/util/libdmo-util.a $(DMO_LIBS) -lutil
tests/engine-encryption.log: dormouse$(EXEEXT)

# The two sleep modes end to end on the simulated kernel.
TESTS += tests/cli-sleep.sh
EXTRA_DIST += tests/cli-sleep.sh
tests/cli-sleep.log: dormouse$(EXEEXT)

# What dormouse's own memory costs in the image: the frame and the stream
# buffers are zero at the snapshot (DORMOUSE_DEBUG_TIMING's line).
TESTS += tests/cli-own-memory.sh
EXTRA_DIST += tests/cli-own-memory.sh
tests/cli-own-memory.log: dormouse$(EXEEXT)

# systemd's HibernateLocation: the EFI variable and its JSON.
check_PROGRAMS += tests/cli-hibernate-location.test
TESTS += tests/cli-hibernate-location.test
tests_cli_hibernate_location_test_SOURCES = tests/cli-hibernate-location.c
tests_cli_hibernate_location_test_LDADD = tests/libdmotest.a src/cli/libdmo-cli.a src/keys/libdmo-keys.a \
	kernel/libdmo-kernel.a src/util/libdmo-util.a $(DMO_LIBS)
check_PROGRAMS += tests/fuzz-hibernate-location.test
TESTS += tests/fuzz-hibernate-location.test
tests_fuzz_hibernate_location_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-hibernate-location.c
tests_fuzz_hibernate_location_test_LDADD = src/cli/libdmo-cli.a src/keys/libdmo-keys.a kernel/libdmo-kernel.a \
	src/util/libdmo-util.a $(DMO_LIBS)

# What a resume skips or refuses, in the journal too (--kmsg).
check_PROGRAMS += tests/cli-resume-journal.test
TESTS += tests/cli-resume-journal.test
tests_cli_resume_journal_test_SOURCES = tests/cli-resume-journal.c
tests_cli_resume_journal_test_LDADD = tests/libdmotest.a
tests/cli-resume-journal.log: dormouse$(EXEEXT)

# What would make the resume impossible refuses before the freeze.
check_PROGRAMS += tests/cli-hibernate-resumable.test
TESTS += tests/cli-hibernate-resumable.test
tests_cli_hibernate_resumable_test_SOURCES = tests/cli-hibernate-resumable.c
tests_cli_hibernate_resumable_test_LDADD = tests/libdmotest.a
tests/cli-hibernate-resumable.log: dormouse$(EXEEXT)

# HibernateLocation end to end on the simulated kernel.
TESTS += tests/cli-efi-location.sh
EXTRA_DIST += tests/cli-efi-location.sh
tests/cli-efi-location.log: dormouse$(EXEEXT)

# A resume device on the network (nbd://) through stand-in programs.
TESTS += tests/cli-network.sh
EXTRA_DIST += tests/cli-network.sh
tests/cli-network.log: dormouse$(EXEEXT)
