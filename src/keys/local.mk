# src/keys: where an image's key comes from (key files, passphrases, key pairs).
noinst_LIBRARIES += src/keys/libdmo-keys.a
src_keys_libdmo_keys_a_SOURCES = src/keys/keys.h src/keys/keys.c
