# src/codec: sources and tests of this module
noinst_LIBRARIES += src/codec/libdmo-codec.a
src_codec_libdmo_codec_a_SOURCES = src/codec/codec.h src/codec/codec.c \
	src/codec/chunk.h src/codec/chunk.c src/codec/compress.h src/codec/compress.c \
	src/codec/hash.h src/codec/hash.c

DMO_CODEC_TEST_LIBS = tests/libdmotest.a src/codec/libdmo-codec.a src/crypto/libdmo-crypto.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/codec-roundtrip.test tests/codec-pool.test tests/codec-corrupt.test
TESTS += tests/codec-roundtrip.test tests/codec-pool.test tests/codec-corrupt.test
tests_codec_roundtrip_test_SOURCES = tests/codec-roundtrip.c tests/codec-testdata.h
tests_codec_roundtrip_test_LDADD = $(DMO_CODEC_TEST_LIBS)
tests_codec_pool_test_SOURCES = tests/codec-pool.c tests/codec-testdata.h tests/codec-testutil.h
tests_codec_pool_test_LDADD = $(DMO_CODEC_TEST_LIBS)
tests_codec_corrupt_test_SOURCES = tests/codec-corrupt.c tests/codec-testdata.h
tests_codec_corrupt_test_LDADD = $(DMO_CODEC_TEST_LIBS)

noinst_PROGRAMS += tests/bench-codec
tests_bench_codec_SOURCES = tests/bench-codec.c tests/codec-testdata.h
tests_bench_codec_LDADD = src/codec/libdmo-codec.a src/crypto/libdmo-crypto.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/codec-hash.test
TESTS += tests/codec-hash.test
tests_codec_hash_test_SOURCES = tests/codec-hash.c
tests_codec_hash_test_LDADD = $(DMO_CODEC_TEST_LIBS)

# The levels an image header accepts are the ones the encoder produces.
check_PROGRAMS += tests/codec-levels.test
TESTS += tests/codec-levels.test
tests_codec_levels_test_SOURCES = tests/codec-levels.c
tests_codec_levels_test_LDADD = tests/libdmotest.a $(DMO_IMAGE_DEPS) $(DMO_LIBS)
