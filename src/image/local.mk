# src/image: the on-disk format (signature, header, extent map, chunk
# headers), the image writer and reader, and the info describer.
noinst_LIBRARIES += src/image/libdmo-image.a
src_image_libdmo_image_a_SOURCES = src/image/format.c src/image/format.h src/image/le.h

check_PROGRAMS += tests/image-format.test
TESTS += tests/image-format.test
tests_image_format_test_SOURCES = tests/image-format.c
tests_image_format_test_LDADD = tests/libdmotest.a src/image/libdmo-image.a src/util/libdmo-util.a $(DMO_LIBS)
