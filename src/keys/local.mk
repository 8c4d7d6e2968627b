# src/keys: where an image's key comes from (key files, passphrases, key pairs).
noinst_LIBRARIES += src/keys/libdmo-keys.a
src_keys_libdmo_keys_a_SOURCES = src/keys/keys.h src/keys/keys.c
if HAVE_TPM
src_keys_libdmo_keys_a_SOURCES += src/keys/tpm.h src/keys/tpm.c

# The TPM against a software TPM (swtpm) started per test: sealing, the
# refusals (PCR changed, wrong PIN, another TPM, no TPM), the counter.
check_PROGRAMS += tests/keys-tpm.test
TESTS += tests/keys-tpm.test
tests_keys_tpm_test_SOURCES = tests/keys-tpm.c tests/tpm-testutil.c tests/tpm-testutil.h
tests_keys_tpm_test_LDADD = tests/libdmotest.a src/keys/libdmo-keys.a $(DMO_CRYPTO_DEPS) $(DMO_LIBS)
else
EXTRA_DIST += src/keys/tpm.h src/keys/tpm.c tests/keys-tpm.c tests/tpm-testutil.c \
	tests/tpm-testutil.h
endif
