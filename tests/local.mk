# tests: the shared test library; each module adds its own test programs.
noinst_LIBRARIES += tests/libdmotest.a
tests_libdmotest_a_SOURCES = tests/testlib.c tests/testlib.h
DMO_TEST_LIBS = tests/libdmotest.a $(DMO_LIBS_ALL) $(DMO_LIBS)
