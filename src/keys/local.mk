# src/keys: where an image's key comes from (key files, passphrases, key pairs).
noinst_LIBRARIES += src/keys/libdmo-keys.a
src_keys_libdmo_keys_a_SOURCES = src/keys/keys.h src/keys/internal.h src/keys/keys.c \
	src/keys/unlock.c src/keys/pcrs.c
if HAVE_TPM
src_keys_libdmo_keys_a_SOURCES += src/keys/tpm.h src/keys/tpm.c src/keys/keys_tpm.h \
	src/keys/keys_tpm.c src/keys/tss2_dl.h src/keys/tss2_dl.c

# The TPM against a software TPM (swtpm) started per test: sealing, the
# refusals (PCR changed, wrong PIN, another TPM, no TPM), the counter.
check_PROGRAMS += tests/keys-tpm.test
TESTS += tests/keys-tpm.test
tests_keys_tpm_test_SOURCES = tests/keys-tpm.c tests/tpm-testutil.c tests/tpm-testutil.h
tests_keys_tpm_test_LDADD = tests/libdmotest.a src/keys/libdmo-keys.a $(DMO_CRYPTO_DEPS) $(DMO_LIBS) \
	$(TSS2_LIBS)

# encrypt = tpm through the program on the simulated kernel, with swtpm.
check_PROGRAMS += tests/engine-tpm.test
TESTS += tests/engine-tpm.test
tests_engine_tpm_test_SOURCES = tests/engine-tpm.c tests/tpm-testutil.c tests/tpm-testutil.h
tests_engine_tpm_test_LDADD = tests/libdmotest.a $(DMO_LIBS) $(TSS2_LIBS)
else
EXTRA_DIST += src/keys/tpm.h src/keys/tpm.c src/keys/keys_tpm.h src/keys/keys_tpm.c \
	src/keys/tss2_dl.h src/keys/tss2_dl.c tests/keys-tpm.c tests/engine-tpm.c tests/tpm-testutil.c \
	tests/tpm-testutil.h
endif
tests/engine-tpm.log: dormouse$(EXEEXT)
