# util: gettext binding and scope cleanup helpers shared by every module.
libdormouse_a_SOURCES += src/util/i18n.c src/util/i18n.h src/util/cleanup.h
