# src/splash: sources and tests of this module
noinst_LIBRARIES += src/splash/libdmo-splash.a
src_splash_libdmo_splash_a_SOURCES =

# outputs room: text/kms/fbdev outputs, the renderer thread, tty keys
src_splash_libdmo_splash_a_SOURCES += src/splash/keys.c src/splash/keys.h src/splash/output_text.c
check_PROGRAMS += tests/splash-keys-decoder.test
TESTS += tests/splash-keys-decoder.test
tests_splash_keys_decoder_test_SOURCES = tests/splash-keys-decoder.c src/splash/keys.c
tests_splash_keys_decoder_test_LDADD = tests/libdmotest.a src/util/libdmo-util.a $(DMO_LIBS)
check_PROGRAMS += tests/splash-text-output.test
TESTS += tests/splash-text-output.test
tests_splash_text_output_test_SOURCES = tests/splash-text-output.c src/splash/output_text.c
tests_splash_text_output_test_LDADD = tests/libdmotest.a src/progress/libdmo-progress.a \
	src/util/libdmo-util.a $(DMO_LIBS) -lutil
