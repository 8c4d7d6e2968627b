# tests: the shared test library; each module adds its own test programs.
noinst_LIBRARIES += tests/libdmotest.a
tests_libdmotest_a_SOURCES = tests/testlib.c tests/testlib.h
DMO_TEST_LIBS = tests/libdmotest.a $(DMO_LIBS_ALL) $(DMO_LIBS)

# fuzz targets: each parser of untrusted input, run by the deterministic
# driver in make check (libFuzzer: make fuzz).
check_PROGRAMS += tests/fuzz-cmdline.test
TESTS += tests/fuzz-cmdline.test
tests_fuzz_cmdline_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-cmdline.c
tests_fuzz_cmdline_test_LDADD = kernel/libdmo-kernel.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-swap-header.test
TESTS += tests/fuzz-swap-header.test
tests_fuzz_swap_header_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-swap-header.c
tests_fuzz_swap_header_test_LDADD = kernel/libdmo-kernel.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-codec-decode.test
TESTS += tests/fuzz-codec-decode.test
tests_fuzz_codec_decode_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-codec-decode.c
tests_fuzz_codec_decode_test_LDADD = src/codec/libdmo-codec.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-image-chunk.test
TESTS += tests/fuzz-image-chunk.test
tests_fuzz_image_chunk_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-image-chunk.c
tests_fuzz_image_chunk_test_LDADD = src/image/libdmo-image.a src/codec/libdmo-codec.a kernel/libdmo-kernel.a src/progress/libdmo-progress.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-image-extents.test
TESTS += tests/fuzz-image-extents.test
tests_fuzz_image_extents_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-image-extents.c
tests_fuzz_image_extents_test_LDADD = src/image/libdmo-image.a src/codec/libdmo-codec.a kernel/libdmo-kernel.a src/progress/libdmo-progress.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-image-header.test
TESTS += tests/fuzz-image-header.test
tests_fuzz_image_header_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-image-header.c
tests_fuzz_image_header_test_LDADD = src/image/libdmo-image.a src/codec/libdmo-codec.a kernel/libdmo-kernel.a src/progress/libdmo-progress.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-resume.test
TESTS += tests/fuzz-resume.test
tests_fuzz_resume_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-resume.c
tests_fuzz_resume_test_LDADD = src/image/libdmo-image.a src/codec/libdmo-codec.a kernel/libdmo-kernel.a src/progress/libdmo-progress.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-keys.test
TESTS += tests/fuzz-keys.test
tests_fuzz_keys_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-keys.c
tests_fuzz_keys_test_LDADD = src/splash/libdmo-splash.a src/progress/libdmo-progress.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-png.test
TESTS += tests/fuzz-png.test
tests_fuzz_png_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-png.c
tests_fuzz_png_test_LDADD = src/splash/libdmo-splash.a src/progress/libdmo-progress.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-theme.test
TESTS += tests/fuzz-theme.test
tests_fuzz_theme_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-theme.c
tests_fuzz_theme_test_LDADD = src/splash/libdmo-splash.a src/progress/libdmo-progress.a src/util/libdmo-util.a $(DMO_LIBS)

# Coverage-guided fuzzing with clang's libFuzzer, FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = config cmdline swap-header codec-decode image-chunk image-extents image-header keys png theme
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
	  $(top_srcdir)/tests/fuzz/libfuzzer.sh "$(top_srcdir)" "$(abs_top_builddir)" $$t $(FUZZ_SECONDS); \
	done
.PHONY: fuzz

bench: tests/bench-hibernate$(EXEEXT)
	./tests/bench-hibernate --size $${BENCH_SIZE:-1G} --dir $${BENCH_DIR:-.}
.PHONY: bench

# The QEMU tests: a real Debian kernel hibernated and resumed by dormouse
# (tests/vm/run.py; screenshots under tests/vm/out/).
check-vm: dormouse$(EXEEXT)
	python3 $(top_srcdir)/tests/vm/run.py --dormouse $(abs_top_builddir)/dormouse
.PHONY: check-vm
