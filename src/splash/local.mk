# src/splash: sources and tests of this module
noinst_LIBRARIES += src/splash/libdmo-splash.a
src_splash_libdmo_splash_a_SOURCES =
