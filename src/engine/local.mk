# engine: the hibernate and resume sequences.
noinst_LIBRARIES += src/engine/libdmo-engine.a
src_engine_libdmo_engine_a_SOURCES = src/engine/engine.c src/engine/engine.h \
	src/engine/critical.c src/engine/critical.h \
	src/engine/resumable.c src/engine/resumable.h

noinst_PROGRAMS += tests/bench-hibernate
tests_bench_hibernate_SOURCES = tests/bench-hibernate.c \
	tests/bench-kernel-image.c tests/bench-kernel-image.h
tests_bench_hibernate_CFLAGS = $(AM_CFLAGS) $(LZO_CFLAGS)
tests_bench_hibernate_LDADD = $(DMO_LIBS_ALL) $(DMO_LIBS) $(LZO_LIBS)

# The engine in-process behind a recording snapshot (order of kernel calls,
# every failure and abort path, the rules after the signature).
check_PROGRAMS += tests/engine-sequence.test
TESTS += tests/engine-sequence.test
tests_engine_sequence_test_SOURCES = tests/engine-sequence.c tests/image-testutil.h
tests_engine_sequence_test_LDADD = tests/libdmotest.a $(DMO_ENGINE_DEPS) $(DMO_LIBS)

# Before the freeze, whether the image can come back: every verdict, on a
# machine whose devices are files.
check_PROGRAMS += tests/engine-resumable.test
TESTS += tests/engine-resumable.test
tests_engine_resumable_test_SOURCES = tests/engine-resumable.c
tests_engine_resumable_test_LDADD = tests/libdmotest.a $(DMO_ENGINE_DEPS) $(DMO_LIBS)
