# src/progress: sources and tests of this module
noinst_LIBRARIES += src/progress/libdmo-progress.a
src_progress_libdmo_progress_a_SOURCES =
