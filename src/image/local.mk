# src/image: sources and tests of this module
noinst_LIBRARIES += src/image/libdmo-image.a
src_image_libdmo_image_a_SOURCES =
