# src/crypto: image keys, key wrapping, chunk AEAD and the header MAC (libsodium).
noinst_LIBRARIES += src/crypto/libdmo-crypto.a
src_crypto_libdmo_crypto_a_SOURCES = src/crypto/crypto.h src/crypto/crypto.c

check_PROGRAMS += tests/crypto-keys.test
TESTS += tests/crypto-keys.test
tests_crypto_keys_test_SOURCES = tests/crypto-keys.c
tests_crypto_keys_test_LDADD = tests/libdmotest.a src/crypto/libdmo-crypto.a $(DMO_LIBS)
