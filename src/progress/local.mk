# progress: the progress model between the engine and the renderers.
noinst_LIBRARIES += src/progress/libdmo-progress.a
src_progress_libdmo_progress_a_SOURCES = src/progress/progress.c src/progress/progress.h \
	src/progress/rate.c src/progress/rate.h

check_PROGRAMS += tests/progress-model.test
TESTS += tests/progress-model.test
tests_progress_model_test_SOURCES = tests/progress-model.c
tests_progress_model_test_LDADD = tests/libdmotest.a src/progress/libdmo-progress.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/progress-abort-race.test
TESTS += tests/progress-abort-race.test
tests_progress_abort_race_test_SOURCES = tests/progress-abort-race.c
tests_progress_abort_race_test_LDADD = tests/libdmotest.a src/progress/libdmo-progress.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/progress-rate.test
TESTS += tests/progress-rate.test
tests_progress_rate_test_SOURCES = tests/progress-rate.c
tests_progress_rate_test_LDADD = tests/libdmotest.a src/progress/libdmo-progress.a $(DMO_LIBS) -lm
