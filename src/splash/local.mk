# src/splash: sources and tests of this module
noinst_LIBRARIES += src/splash/libdmo-splash.a
src_splash_libdmo_splash_a_SOURCES =

# outputs room: text/kms/fbdev outputs, the renderer thread, tty keys
src_splash_libdmo_splash_a_SOURCES += src/splash/keys.c src/splash/keys.h src/splash/output_text.c \
	src/splash/drm_select.c src/splash/drm_select.h src/splash/renderer.c src/splash/renderer.h \
	src/splash/output.c src/splash/output_kms.c src/splash/output_fbdev.c \
	src/splash/backdrop.c src/splash/backdrop.h
check_PROGRAMS += tests/splash-keys-decoder.test
TESTS += tests/splash-keys-decoder.test
tests_splash_keys_decoder_test_SOURCES = tests/splash-keys-decoder.c src/splash/keys.c
tests_splash_keys_decoder_test_LDADD = tests/libdmotest.a src/util/libdmo-util.a $(DMO_LIBS)
check_PROGRAMS += tests/splash-text-output.test
TESTS += tests/splash-text-output.test
tests_splash_text_output_test_SOURCES = tests/splash-text-output.c src/splash/output_text.c
tests_splash_text_output_test_LDADD = tests/libdmotest.a src/progress/libdmo-progress.a \
	src/util/libdmo-util.a $(DMO_LIBS) -lutil
check_PROGRAMS += tests/splash-kms-select.test
TESTS += tests/splash-kms-select.test
tests_splash_kms_select_test_SOURCES = tests/splash-kms-select.c src/splash/drm_select.c
tests_splash_kms_select_test_LDADD = tests/libdmotest.a src/util/libdmo-util.a $(DMO_LIBS)
EXTRA_DIST += tests/fixtures/drm/README.txt tests/fixtures/drm/bochs-vm-mode-set.txt \
	tests/fixtures/drm/laptop-panel-external-4k.txt tests/fixtures/drm/disconnected-connector.txt \
	tests/fixtures/drm/more-connectors-than-crtcs.txt tests/fixtures/drm/non-desktop-vr.txt

# painter room: themes, fonts, text shaping, the painter, png output, preview, theme check
DMO_PAINTER_SOURCES = src/splash/theme.c src/splash/theme.h src/splash/theme-private.h \
	src/splash/pngload.c src/splash/pngload.h src/splash/text.c src/splash/text.h \
	src/splash/painter.c src/splash/painter.h src/splash/output_png.c src/splash/output_png.h \
	src/splash/preview.c src/splash/preview.h src/splash/theme_check.c src/splash/theme_check.h
src_splash_libdmo_splash_a_SOURCES += $(DMO_PAINTER_SOURCES)
# The painter room's tests link this copy, so another room's half-finished
# file in libdmo-splash.a does not break them.
noinst_LIBRARIES += tests/libdmo-painter.a
tests_libdmo_painter_a_SOURCES = $(DMO_PAINTER_SOURCES)
DMO_PAINTER_TEST_LIBS = tests/libdmotest.a tests/libdmo-painter.a src/progress/libdmo-progress.a \
	src/util/libdmo-util.a $(DMO_LIBS)
# A small driver for looking at themes until `dormouse preview` is wired.
noinst_PROGRAMS += tests/splash-preview-tool
tests_splash_preview_tool_SOURCES = tests/splash-preview-tool.c
tests_splash_preview_tool_LDADD = $(DMO_PAINTER_TEST_LIBS)
check_PROGRAMS += tests/splash-renderer-thread.test
TESTS += tests/splash-renderer-thread.test
tests_splash_renderer_thread_test_SOURCES = tests/splash-renderer-thread.c src/splash/renderer.c \
	src/splash/keys.c
tests_splash_renderer_thread_test_LDADD = tests/libdmotest.a src/progress/libdmo-progress.a \
	src/util/libdmo-util.a $(DMO_LIBS)
check_PROGRAMS += tests/splash-text.test
TESTS += tests/splash-text.test
tests_splash_text_test_SOURCES = tests/splash-text.c
tests_splash_text_test_LDADD = $(DMO_PAINTER_TEST_LIBS)
check_PROGRAMS += tests/splash-painter.test
TESTS += tests/splash-painter.test
tests_splash_painter_test_SOURCES = tests/splash-painter.c src/splash/backdrop.c
tests_splash_painter_test_LDADD = $(DMO_PAINTER_TEST_LIBS)
check_PROGRAMS += tests/splash-kms-nodevice.test
TESTS += tests/splash-kms-nodevice.test
tests_splash_kms_nodevice_test_SOURCES = tests/splash-kms-nodevice.c src/splash/output.c \
	src/splash/output_kms.c src/splash/output_fbdev.c src/splash/output_text.c src/splash/drm_select.c \
	src/splash/backdrop.c
tests_splash_kms_nodevice_test_LDADD = $(DMO_PAINTER_TEST_LIBS)
check_PROGRAMS += tests/splash-theme.test
TESTS += tests/splash-theme.test
tests_splash_theme_test_SOURCES = tests/splash-theme.c
tests_splash_theme_test_LDADD = $(DMO_PAINTER_TEST_LIBS)
noinst_PROGRAMS += tests/bench-splash
tests_bench_splash_SOURCES = tests/bench-splash.c src/splash/backdrop.c
tests_bench_splash_LDADD = $(DMO_PAINTER_TEST_LIBS)
