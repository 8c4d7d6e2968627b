# util: gettext binding and scope cleanup helpers shared by every module.
noinst_LIBRARIES += src/util/libdmo-util.a
src_util_libdmo_util_a_SOURCES = src/util/i18n.c src/util/i18n.h src/util/cleanup.h
