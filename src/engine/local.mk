# src/engine: sources and tests of this module
noinst_LIBRARIES += src/engine/libdmo-engine.a
src_engine_libdmo_engine_a_SOURCES =
