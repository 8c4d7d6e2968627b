# src/codec: sources and tests of this module
noinst_LIBRARIES += src/codec/libdmo-codec.a
src_codec_libdmo_codec_a_SOURCES =
