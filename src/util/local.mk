# util: gettext binding, scope cleanup and byte-order helpers shared by every module.
noinst_LIBRARIES += src/util/libdmo-util.a
src_util_libdmo_util_a_SOURCES = src/util/i18n.c src/util/i18n.h src/util/cleanup.h src/util/le.h
