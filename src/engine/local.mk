# engine: the hibernate and resume sequences.
noinst_LIBRARIES += src/engine/libdmo-engine.a
src_engine_libdmo_engine_a_SOURCES = src/engine/engine.c src/engine/engine.h

noinst_PROGRAMS += tests/bench-hibernate
tests_bench_hibernate_SOURCES = tests/bench-hibernate.c
tests_bench_hibernate_LDADD = $(DMO_LIBS_ALL) $(DMO_LIBS)
