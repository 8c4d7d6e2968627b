# src/image: the on-disk format (signature, header, extent map, chunk
# headers), the image writer and reader, and the info describer.
noinst_LIBRARIES += src/image/libdmo-image.a
src_image_libdmo_image_a_SOURCES = src/image/format.c src/image/format.h \
	src/image/sigdev.c src/image/sigdev.h \
	src/image/writer.c src/image/writer.h src/image/pace.c src/image/pace.h \
	src/image/reader.c src/image/reader.h src/image/info.c

DMO_IMAGE_TEST_LIBS = tests/libdmotest.a $(DMO_IMAGE_DEPS) $(DMO_LIBS)

check_PROGRAMS += tests/image-format.test tests/image-roundtrip.test
TESTS += tests/image-format.test tests/image-roundtrip.test
tests_image_format_test_SOURCES = tests/image-format.c
tests_image_format_test_LDADD = tests/libdmotest.a $(DMO_IMAGE_DEPS) $(DMO_LIBS)
tests_image_roundtrip_test_SOURCES = tests/image-roundtrip.c tests/image-testutil.h
tests_image_roundtrip_test_LDADD = $(DMO_IMAGE_TEST_LIBS)

check_PROGRAMS += tests/image-corrupt.test
TESTS += tests/image-corrupt.test
tests_image_corrupt_test_SOURCES = tests/image-corrupt.c tests/image-testutil.h
tests_image_corrupt_test_LDADD = $(DMO_IMAGE_TEST_LIBS)

check_PROGRAMS += tests/image-pace.test
TESTS += tests/image-pace.test
tests_image_pace_test_SOURCES = tests/image-pace.c tests/codec-testdata.h tests/codec-testutil.h
tests_image_pace_test_LDADD = $(DMO_IMAGE_TEST_LIBS)

# Encrypted images against a forger who recomputes every checksum.
check_PROGRAMS += tests/image-encrypted.test
TESTS += tests/image-encrypted.test
tests_image_encrypted_test_SOURCES = tests/image-encrypted.c tests/image-testutil.h
tests_image_encrypted_test_LDADD = $(DMO_IMAGE_TEST_LIBS)
