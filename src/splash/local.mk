# src/splash: the splash, in rooms (each room's main header states its contract)
#   theme/   the theme file, its images, the checker
#   paint/   painter, text shaping, the backdrop
#   output/  where frames go (kms, fbdev, png, text), the DRM device choice, keys, the VT
#   top      the session (what the CLI calls), scene, the renderer thread, the preview
noinst_LIBRARIES += src/splash/libdmo-splash.a
src_splash_libdmo_splash_a_SOURCES =

DMO_SPLASH_THEME_SOURCES = src/splash/theme/theme.c src/splash/theme/theme.h \
	src/splash/theme/theme-private.h src/splash/theme/pngload.c src/splash/theme/pngload.h \
	src/splash/theme/theme_check.c src/splash/theme/theme_check.h \
	src/splash/theme/builtin.c src/splash/theme/builtin.h \
	src/splash/theme/plymouth.c src/splash/theme/plymouth.h \
	src/splash/theme/bmpload.c src/splash/theme/bmpload.h
DMO_SPLASH_PAINT_SOURCES = src/splash/paint/painter.c src/splash/paint/painter.h \
	src/splash/paint/text.c src/splash/paint/text.h \
	src/splash/paint/backdrop.c src/splash/paint/backdrop.h
DMO_SPLASH_OUTPUT_SOURCES = src/splash/output/output.c src/splash/output/output.h \
	src/splash/output/output_kms.c src/splash/output/output_fbdev.c \
	src/splash/output/output_png.c src/splash/output/output_png.h \
	src/splash/output/output_text.c \
	src/splash/output/drm_select.c src/splash/output/drm_select.h \
	src/splash/output/scanout.c src/splash/output/scanout.h \
	src/splash/output/keys.c src/splash/output/keys.h \
	src/splash/output/console.c src/splash/output/console.h
DMO_SPLASH_TOP_SOURCES = src/splash/scene.h src/splash/renderer.c src/splash/renderer.h \
	src/splash/session.c src/splash/session.h src/splash/preview.c src/splash/preview.h
src_splash_libdmo_splash_a_SOURCES += $(DMO_SPLASH_THEME_SOURCES) $(DMO_SPLASH_PAINT_SOURCES) \
	$(DMO_SPLASH_OUTPUT_SOURCES) $(DMO_SPLASH_TOP_SOURCES)

# Tests link the module's library and what it needs, like the program.
DMO_SPLASH_TEST_LIBS = tests/libdmotest.a src/splash/libdmo-splash.a $(DMO_PROGRESS_DEPS) $(DMO_LIBS)

check_PROGRAMS += tests/splash-keys-decoder.test
TESTS += tests/splash-keys-decoder.test
tests_splash_keys_decoder_test_SOURCES = tests/splash-keys-decoder.c
tests_splash_keys_decoder_test_LDADD = $(DMO_SPLASH_TEST_LIBS)
check_PROGRAMS += tests/splash-text-output.test
TESTS += tests/splash-text-output.test
tests_splash_text_output_test_SOURCES = tests/splash-text-output.c
tests_splash_text_output_test_LDADD = $(DMO_SPLASH_TEST_LIBS) -lutil
check_PROGRAMS += tests/splash-kms-scanout.test
TESTS += tests/splash-kms-scanout.test
tests_splash_kms_scanout_test_SOURCES = tests/splash-kms-scanout.c
tests_splash_kms_scanout_test_LDADD = $(DMO_SPLASH_TEST_LIBS)
check_PROGRAMS += tests/splash-kms-select.test
TESTS += tests/splash-kms-select.test
tests_splash_kms_select_test_SOURCES = tests/splash-kms-select.c
tests_splash_kms_select_test_LDADD = $(DMO_SPLASH_TEST_LIBS)
EXTRA_DIST += tests/fixtures/drm/README.txt tests/fixtures/drm/bochs-vm-mode-set.txt \
	tests/fixtures/drm/laptop-panel-external-4k.txt tests/fixtures/drm/disconnected-connector.txt \
	tests/fixtures/drm/more-connectors-than-crtcs.txt tests/fixtures/drm/non-desktop-vr.txt

# A small driver for looking at themes until `dormouse preview` is wired.
noinst_PROGRAMS += tests/splash-preview-tool
tests_splash_preview_tool_SOURCES = tests/splash-preview-tool.c
tests_splash_preview_tool_LDADD = $(DMO_SPLASH_TEST_LIBS)
check_PROGRAMS += tests/splash-renderer-thread.test
TESTS += tests/splash-renderer-thread.test
tests_splash_renderer_thread_test_SOURCES = tests/splash-renderer-thread.c
tests_splash_renderer_thread_test_LDADD = $(DMO_SPLASH_TEST_LIBS)
check_PROGRAMS += tests/splash-text.test
TESTS += tests/splash-text.test
tests_splash_text_test_SOURCES = tests/splash-text.c
tests_splash_text_test_LDADD = $(DMO_SPLASH_TEST_LIBS)
check_PROGRAMS += tests/splash-painter.test
TESTS += tests/splash-painter.test
tests_splash_painter_test_SOURCES = tests/splash-painter.c
tests_splash_painter_test_LDADD = $(DMO_SPLASH_TEST_LIBS)
check_PROGRAMS += tests/splash-plymouth.test
TESTS += tests/splash-plymouth.test
tests_splash_plymouth_test_SOURCES = tests/splash-plymouth.c tests/diag-testutil.h
tests_splash_plymouth_test_LDADD = $(DMO_SPLASH_TEST_LIBS)
# Its previews, for people to look at (tests/splash-plymouth.c), are
# removed by clean-local (Makefile.am).
check_PROGRAMS += tests/splash-kms-nodevice.test
TESTS += tests/splash-kms-nodevice.test
tests_splash_kms_nodevice_test_SOURCES = tests/splash-kms-nodevice.c
tests_splash_kms_nodevice_test_LDADD = $(DMO_SPLASH_TEST_LIBS)
check_PROGRAMS += tests/splash-theme.test
TESTS += tests/splash-theme.test
tests_splash_theme_test_SOURCES = tests/splash-theme.c tests/diag-testutil.h
tests_splash_theme_test_LDADD = $(DMO_SPLASH_TEST_LIBS)
noinst_PROGRAMS += tests/bench-splash
tests_bench_splash_SOURCES = tests/bench-splash.c
tests_bench_splash_LDADD = $(DMO_SPLASH_TEST_LIBS)
check_PROGRAMS += tests/splash-console.test
TESTS += tests/splash-console.test
tests_splash_console_test_SOURCES = tests/splash-console.c
tests_splash_console_test_LDADD = $(DMO_SPLASH_TEST_LIBS) -lutil
check_PROGRAMS += tests/splash-session.test
TESTS += tests/splash-session.test
tests_splash_session_test_SOURCES = tests/splash-session.c
tests_splash_session_test_LDADD = $(DMO_SPLASH_TEST_LIBS)
