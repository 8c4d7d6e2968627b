# src/splash: sources and tests of this module
noinst_LIBRARIES += src/splash/libdmo-splash.a
src_splash_libdmo_splash_a_SOURCES =

# outputs room: text/kms/fbdev outputs, the renderer thread, tty keys
src_splash_libdmo_splash_a_SOURCES += src/splash/keys.c src/splash/keys.h
check_PROGRAMS += tests/splash-keys-decoder.test
TESTS += tests/splash-keys-decoder.test
tests_splash_keys_decoder_test_SOURCES = tests/splash-keys-decoder.c src/splash/keys.c
tests_splash_keys_decoder_test_LDADD = tests/libdmotest.a src/util/libdmo-util.a $(DMO_LIBS)
