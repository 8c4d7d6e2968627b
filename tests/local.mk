# tests: the shared test library; each module adds its own test programs.
noinst_LIBRARIES += libdmotest.a
libdmotest_a_SOURCES = tests/testlib.c tests/testlib.h
DMO_TEST_LIBS = libdmotest.a libdormouse.a $(DMO_LIBS)
