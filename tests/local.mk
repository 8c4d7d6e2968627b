# tests: the shared test library; each module adds its own test programs.
noinst_LIBRARIES += tests/libdmotest.a
tests_libdmotest_a_SOURCES = tests/testlib.c tests/testlib.h tests/testpty.c tests/testpty.h
DMO_TEST_LIBS = tests/libdmotest.a $(DMO_LIBS_ALL) $(DMO_LIBS)

# fuzz targets: each parser of untrusted input, run by the deterministic
# driver in make check (libFuzzer: make fuzz).
check_PROGRAMS += tests/fuzz-cmdline.test
TESTS += tests/fuzz-cmdline.test
tests_fuzz_cmdline_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-cmdline.c
tests_fuzz_cmdline_test_LDADD = kernel/libdmo-kernel.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-nbd-url.test
TESTS += tests/fuzz-nbd-url.test
tests_fuzz_nbd_url_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-nbd-url.c
tests_fuzz_nbd_url_test_LDADD = kernel/libdmo-kernel.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-initramfs-record.test
TESTS += tests/fuzz-initramfs-record.test
tests_fuzz_initramfs_record_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-initramfs-record.c
tests_fuzz_initramfs_record_test_LDADD = kernel/libdmo-kernel.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-swap-header.test
TESTS += tests/fuzz-swap-header.test
tests_fuzz_swap_header_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-swap-header.c
tests_fuzz_swap_header_test_LDADD = kernel/libdmo-kernel.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-codec-decode.test
TESTS += tests/fuzz-codec-decode.test
tests_fuzz_codec_decode_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-codec-decode.c
tests_fuzz_codec_decode_test_LDADD = src/codec/libdmo-codec.a src/crypto/libdmo-crypto.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-image-chunk.test
TESTS += tests/fuzz-image-chunk.test
tests_fuzz_image_chunk_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-image-chunk.c
tests_fuzz_image_chunk_test_LDADD = $(DMO_IMAGE_DEPS) $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-image-extents.test
TESTS += tests/fuzz-image-extents.test
tests_fuzz_image_extents_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-image-extents.c
tests_fuzz_image_extents_test_LDADD = $(DMO_IMAGE_DEPS) $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-image-header.test
TESTS += tests/fuzz-image-header.test
tests_fuzz_image_header_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-image-header.c
tests_fuzz_image_header_test_LDADD = $(DMO_IMAGE_DEPS) $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-resume.test
TESTS += tests/fuzz-resume.test
tests_fuzz_resume_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-resume.c tests/fuzz/memfile.h
tests_fuzz_resume_test_LDADD = $(DMO_IMAGE_DEPS) $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-resume-encrypted.test
TESTS += tests/fuzz-resume-encrypted.test
tests_fuzz_resume_encrypted_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-resume-encrypted.c tests/fuzz/memfile.h
tests_fuzz_resume_encrypted_test_LDADD = $(DMO_IMAGE_DEPS) $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-font.test
TESTS += tests/fuzz-font.test
tests_fuzz_font_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-font.c tests/fuzz/memfile.h
tests_fuzz_font_test_LDADD = src/splash/libdmo-splash.a src/progress/libdmo-progress.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-keys.test
TESTS += tests/fuzz-keys.test
tests_fuzz_keys_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-keys.c
tests_fuzz_keys_test_LDADD = src/splash/libdmo-splash.a src/progress/libdmo-progress.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-png.test
TESTS += tests/fuzz-png.test
tests_fuzz_png_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-png.c
tests_fuzz_png_test_LDADD = src/splash/libdmo-splash.a src/progress/libdmo-progress.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-theme.test
TESTS += tests/fuzz-theme.test
tests_fuzz_theme_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-theme.c
tests_fuzz_theme_test_LDADD = src/splash/libdmo-splash.a src/progress/libdmo-progress.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-plymouth.test
TESTS += tests/fuzz-plymouth.test
tests_fuzz_plymouth_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-plymouth.c
tests_fuzz_plymouth_test_LDADD = src/splash/libdmo-splash.a src/progress/libdmo-progress.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/fuzz-bmp.test
TESTS += tests/fuzz-bmp.test
tests_fuzz_bmp_test_SOURCES = tests/fuzz/driver.c tests/fuzz/fuzz-bmp.c
tests_fuzz_bmp_test_LDADD = src/splash/libdmo-splash.a src/progress/libdmo-progress.a src/util/libdmo-util.a $(DMO_LIBS)

# Coverage-guided fuzzing with clang's libFuzzer, in a build of its own:
#   configure CC=clang --enable-fuzzing && make fuzz [FUZZ_SECONDS=N] [FUZZ_TARGETS=...]
# Every module is compiled with coverage, ASan and UBSan (configure.ac); each
# target is the same fuzz-NAME.c as above with libFuzzer's main instead of the
# deterministic driver. tests/fuzz/run-libfuzzer runs one target on a working
# copy of its seed corpus and prints one ok/not ok line (tests/fuzz/README.md).
FUZZ_SECONDS = 60
FUZZ_TARGETS = config hibernate-location cmdline nbd-url initramfs-record swap-header codec-decode image-chunk image-extents image-header keys png theme plymouth bmp resume resume-encrypted font
DMO_FUZZ_BINS = tests/fuzz/fuzz-config tests/fuzz/fuzz-hibernate-location tests/fuzz/fuzz-cmdline tests/fuzz/fuzz-nbd-url tests/fuzz/fuzz-initramfs-record tests/fuzz/fuzz-swap-header tests/fuzz/fuzz-codec-decode tests/fuzz/fuzz-image-chunk tests/fuzz/fuzz-image-extents tests/fuzz/fuzz-image-header tests/fuzz/fuzz-keys tests/fuzz/fuzz-png tests/fuzz/fuzz-theme tests/fuzz/fuzz-plymouth tests/fuzz/fuzz-bmp tests/fuzz/fuzz-resume tests/fuzz/fuzz-resume-encrypted tests/fuzz/fuzz-font
EXTRA_PROGRAMS = $(DMO_FUZZ_BINS)
CLEANFILES += $(DMO_FUZZ_BINS)
tests_fuzz_fuzz_config_SOURCES = tests/fuzz/fuzz-config.c
tests_fuzz_fuzz_config_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

tests_fuzz_fuzz_hibernate_location_SOURCES = tests/fuzz/fuzz-hibernate-location.c
tests_fuzz_fuzz_hibernate_location_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

tests_fuzz_fuzz_cmdline_SOURCES = tests/fuzz/fuzz-cmdline.c
tests_fuzz_fuzz_cmdline_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

tests_fuzz_fuzz_nbd_url_SOURCES = tests/fuzz/fuzz-nbd-url.c
tests_fuzz_fuzz_nbd_url_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

tests_fuzz_fuzz_initramfs_record_SOURCES = tests/fuzz/fuzz-initramfs-record.c
tests_fuzz_fuzz_initramfs_record_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

tests_fuzz_fuzz_swap_header_SOURCES = tests/fuzz/fuzz-swap-header.c
tests_fuzz_fuzz_swap_header_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

tests_fuzz_fuzz_codec_decode_SOURCES = tests/fuzz/fuzz-codec-decode.c
tests_fuzz_fuzz_codec_decode_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

tests_fuzz_fuzz_image_chunk_SOURCES = tests/fuzz/fuzz-image-chunk.c
tests_fuzz_fuzz_image_chunk_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

tests_fuzz_fuzz_image_extents_SOURCES = tests/fuzz/fuzz-image-extents.c
tests_fuzz_fuzz_image_extents_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

tests_fuzz_fuzz_image_header_SOURCES = tests/fuzz/fuzz-image-header.c
tests_fuzz_fuzz_image_header_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

tests_fuzz_fuzz_keys_SOURCES = tests/fuzz/fuzz-keys.c
tests_fuzz_fuzz_keys_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

tests_fuzz_fuzz_png_SOURCES = tests/fuzz/fuzz-png.c
tests_fuzz_fuzz_png_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

tests_fuzz_fuzz_theme_SOURCES = tests/fuzz/fuzz-theme.c
tests_fuzz_fuzz_theme_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

tests_fuzz_fuzz_plymouth_SOURCES = tests/fuzz/fuzz-plymouth.c
tests_fuzz_fuzz_plymouth_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

tests_fuzz_fuzz_bmp_SOURCES = tests/fuzz/fuzz-bmp.c
tests_fuzz_fuzz_bmp_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

tests_fuzz_fuzz_resume_SOURCES = tests/fuzz/fuzz-resume.c
tests_fuzz_fuzz_resume_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

tests_fuzz_fuzz_resume_encrypted_SOURCES = tests/fuzz/fuzz-resume-encrypted.c
tests_fuzz_fuzz_resume_encrypted_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

tests_fuzz_fuzz_font_SOURCES = tests/fuzz/fuzz-font.c
tests_fuzz_fuzz_font_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer

fuzz-build: $(DMO_FUZZ_BINS)
fuzz:
if ENABLE_FUZZING
	@$(MAKE) $(AM_MAKEFLAGS) fuzz-build
	@fail=0; for t in $(FUZZ_TARGETS); do \
	  $(SHELL) $(top_srcdir)/tests/fuzz/run-libfuzzer "$(top_srcdir)" tests/fuzz/fuzz-$$t $(FUZZ_SECONDS) || fail=1; \
	done; exit $$fail
else
	@echo "make fuzz needs a libFuzzer build: configure CC=clang --enable-fuzzing (tests/fuzz/README.md)"; exit 1
endif
.PHONY: fuzz fuzz-build

bench: tests/bench-hibernate$(EXEEXT) dormouse$(EXEEXT)
	./tests/bench-hibernate --size $${BENCH_SIZE:-1G} --dir $${BENCH_DIR:-.} \
	  --dormouse $(abs_top_builddir)/dormouse$(EXEEXT)
# The same hibernate and resume at growing sizes: time per MiB stays flat
# when the engine is linear in the image size (doc/benchmarks.md).
bench-scaling: tests/bench-hibernate$(EXEEXT)
	./tests/bench-hibernate --sizes $${BENCH_SIZES:-256M,1G,4G} --dir $${BENCH_DIR:-.}
.PHONY: bench bench-scaling

# The QEMU tests: a real Debian kernel hibernated and resumed by dormouse
# (tests/vm/run.py; screenshots under tests/vm/out/): Debian 13's (trixie,
# 6.12) unless DMO_VM_SUITE says otherwise; check-vm-bookworm boots Debian
# 12's 6.1.
check-vm: dormouse$(EXEEXT)
	$(top_srcdir)/tools/install-deps --if-missing
	python3 $(top_srcdir)/tests/vm/run.py --dormouse $(abs_top_builddir)/dormouse
check-vm-bookworm: dormouse$(EXEEXT)
	$(top_srcdir)/tools/install-deps --if-missing
	python3 $(top_srcdir)/tests/vm/run.py --suite bookworm --dormouse $(abs_top_builddir)/dormouse
# check-vm-soak: issue 27's soak at its length, 100 hibernations of one
# guest in a row (check-vm runs 5); the figures go into doc/benchmarks.md.
check-vm-soak: dormouse$(EXEEXT)
	$(top_srcdir)/tools/install-deps --if-missing
	python3 $(top_srcdir)/tests/vm/run.py --dormouse $(abs_top_builddir)/dormouse --scenario soak \
		--soak-cycles $${SOAK_CYCLES:-100}
# check-vm-power-cut: issue 27's power cuts at their length, CUTS (30) across
# a hibernation's writes, the same across an encrypted one's, and CUTS / 2
# during a resume (check-vm draws 10 and 5, and no encrypted ones).
check-vm-power-cut: dormouse$(EXEEXT)
	$(top_srcdir)/tools/install-deps --if-missing
	python3 $(top_srcdir)/tests/vm/run.py --dormouse $(abs_top_builddir)/dormouse \
		--scenario power-cut --scenario power-cut-encrypted --scenario power-cut-resume \
		--power-cuts $${CUTS:-30}
# check-vm-memory-pressure: issue 27's workload at 85-95 % of RAM, the
# kernel's own path beside dormouse's.
check-vm-memory-pressure: dormouse$(EXEEXT)
	$(top_srcdir)/tools/install-deps --if-missing
	python3 $(top_srcdir)/tests/vm/run.py --dormouse $(abs_top_builddir)/dormouse \
		--scenario memory-pressure
# check-vm-gpus: issue 38's screens on virtio-gpu: one head, a 4K laptop
# panel (scale 2), two heads.
check-vm-gpus: dormouse$(EXEEXT)
	$(top_srcdir)/tools/install-deps --if-missing
	python3 $(top_srcdir)/tests/vm/run.py --dormouse $(abs_top_builddir)/dormouse \
		--scenario virtio-gpu --scenario 4k --scenario two-heads
# check-vm-speed: issue 39's figures, dormouse against the kernel's own
# path (LZO and LZ4) in paired rounds (ROUNDS, 2) with one and two vCPUs;
# check-vm runs one round trip of each path only.
check-vm-speed: dormouse$(EXEEXT)
	$(top_srcdir)/tools/install-deps --if-missing
	python3 $(top_srcdir)/tests/vm/run.py --dormouse $(abs_top_builddir)/dormouse \
		--scenario kernel-baseline --scenario kernel-lz4 --scenario dormouse-roundtrip \
		--scenario one-cpu --scenario two-cpus --rounds $${ROUNDS:-2}
# bench-first-frame: issue 39's first frame in instructions (callgrind in
# the guest), dormouse's KMS splash against the bare one-frame program,
# beside the first-frame scenario's times.
bench-first-frame: dormouse$(EXEEXT)
	$(top_srcdir)/tools/install-deps --if-missing
	python3 $(top_srcdir)/tests/vm/run.py --dormouse $(abs_top_builddir)/dormouse \
		--scenario first-frame --scenario first-frame-instructions
.PHONY: check-vm check-vm-bookworm check-vm-soak check-vm-power-cut check-vm-memory-pressure \
	check-vm-gpus check-vm-speed bench-first-frame
# Its phase table's parser, on serial logs captured from a run (no QEMU).
TESTS += tests/vm/phases-test.py
# The power cuts' write log (tests/vm/writelog.py), on logs made by the test.
TESTS += tests/vm/writelog-test.py

# The desktop scenarios (issue 8): a Debian 13 guest with systemd, logind and
# Weston (VM_DESKTOP_FLAGS='--suite bookworm': Debian 12), hibernated from
# the user's menu (tests/vm/desktop/run.py; needs root: mmdebstrap, chroot).
# The guest gets dormouse by apt install of the package tools/build-deb
# makes, in vm-desktop/deb/ here (VM_DESKTOP_FLAGS='--install make': make
# install of a build configured with --prefix=/usr --sysconfdir=/etc in
# vm-desktop/). check-vm-desktop-deb: the package installed, removed,
# purged and upgraded with apt inside the running guest (issue 36; about 17
# minutes under TCG, so not part of check-vm-desktop).
check-vm-desktop:
	$(top_srcdir)/tools/install-deps --if-missing
	python3 $(top_srcdir)/tests/vm/desktop/run.py --builddir $(abs_top_builddir)/vm-desktop $(VM_DESKTOP_FLAGS)
check-vm-desktop-deb:
	$(top_srcdir)/tools/install-deps --if-missing
	python3 $(top_srcdir)/tests/vm/desktop/run.py --builddir $(abs_top_builddir)/vm-desktop \
	  --scenario deb-install --scenario deb-remove --scenario deb-upgrade $(VM_DESKTOP_FLAGS)
# check-vm-entry-points: the other ways into a hibernation (issue 37):
# logind's power key (HandlePowerKey=hibernate, QEMU's ACPI power button),
# the lid (HandleLidSwitch=suspend-then-hibernate, a uinput lid switch:
# tests/vm/desktop/lid-switch.c; no battery: the timer, said in the
# journal), each beside its twin on the kernel's own path in the same run
# (power-key-kernel, lid-kernel: the figures side by side); the person's
# wake (QEMU's system_wakeup) during suspend-then-hibernate's suspend
# (sth-early-wake: no image written) and after hybrid sleep's image
# (hybrid-wake: the image taken off), each beside its twin on the kernel's
# path (sth-early-wake-kernel, hybrid-wake-kernel); each entry
# point with encrypt = pubkey, its swap area's signature and image header
# read and searched for the session's pages in clear; an image refused at
# resume with its reason in the next boot's journal (issue 34); and a dying
# battery (a battery in the guest's firmware, tests/vm/desktop/battery.asl):
# UPower's critical action, Debian's HybridSleep (and its twin on the
# kernel's own path, low-battery-kernel) and Hibernate
# (low-battery-hibernate, and low-battery-hibernate-kernel),
# suspend-then-hibernate's 5 % rule, and a battery that does not tell its
# charge (sth-no-charge: the timer, said in the journal). On the battery
# guest (UPower added, cached apart). The battery scenarios took 3 to 5
# minutes each here. sth-battery-kernel (systemd-sleep's own 5 % rule) and
# sth-no-charge-kernel are left out: in 2 of the first's 3 runs and 1 of
# the second's 2 systemd-sleep went back to the session after its alarm's
# wake instead of hibernating (tests/vm/README.md).
check-vm-entry-points:
	$(top_srcdir)/tools/install-deps --if-missing
	python3 $(top_srcdir)/tests/vm/desktop/run.py --builddir $(abs_top_builddir)/vm-desktop \
	  --scenario power-key --scenario power-key-kernel --scenario lid --scenario lid-kernel \
	  --scenario sth-early-wake --scenario sth-early-wake-kernel \
	  --scenario hybrid-wake --scenario hybrid-wake-kernel \
	  --scenario refused-resume --scenario encrypted-paths \
	  --scenario low-battery --scenario low-battery-kernel --scenario low-battery-hibernate \
	  --scenario low-battery-hibernate-kernel \
	  --scenario sth-battery --scenario sth-no-charge \
	  $(VM_DESKTOP_FLAGS)
# check-vm-layouts: the disk layouts Debian's installer makes (issue 34):
# swap on LVM, on LVM inside LUKS2 (the passphrase typed at cryptsetup's
# prompt on the console, or with Plymouth on in its password dialog), a
# swap file on btrfs; on a guest with lvm2, cryptsetup-initramfs,
# btrfs-progs and Plymouth (tests/vm/desktop/packages-layouts), cached
# apart, each layout set up once inside it and cached too.
check-vm-layouts:
	$(top_srcdir)/tools/install-deps --if-missing
	python3 $(top_srcdir)/tests/vm/desktop/run.py --builddir $(abs_top_builddir)/vm-desktop \
	  --scenario lvm --scenario luks-lvm-kernel --scenario luks-lvm --scenario btrfs-swapfile \
	  --scenario late-passphrase --scenario late-passphrase-dracut --scenario luks-lvm-plymouth \
	  $(VM_DESKTOP_FLAGS)
# check-vm-efi: a UEFI machine (OVMF) whose command line and initramfs name
# no resume device (issue 34): systemd's HibernateLocation tells the resume
# where the image is.
check-vm-efi:
	$(top_srcdir)/tools/install-deps --if-missing
	python3 $(top_srcdir)/tests/vm/desktop/run.py --builddir $(abs_top_builddir)/vm-desktop \
	  --scenario no-resume-arg $(VM_DESKTOP_FLAGS)
# check-vm-desktops: the desktops people run (issue 38), each on a guest of
# its own, cached apart: Xfce 4.20 on Xorg with LightDM, hibernated from the
# log-out dialog's command, GNOME 48 on Wayland with GDM, hibernated from
# the power button (power-button-action 'hibernate'), and KDE Plasma 6.3 on
# Wayland with SDDM, hibernated with the call its leave dialog's Hibernate
# makes (logind's Hibernate(true)), each through dormouse and on the
# kernel's own path. One run per guest: a run boots one guest; the next
# runs whatever the one before said.
check-vm-desktops:
	$(top_srcdir)/tools/install-deps --if-missing
	rc=0; \
	python3 $(top_srcdir)/tests/vm/desktop/run.py --builddir $(abs_top_builddir)/vm-desktop \
	  --scenario xfce --scenario xfce-kernel $(VM_DESKTOP_FLAGS) || rc=1; \
	python3 $(top_srcdir)/tests/vm/desktop/run.py --builddir $(abs_top_builddir)/vm-desktop \
	  --scenario gnome --scenario gnome-kernel $(VM_DESKTOP_FLAGS) || rc=1; \
	python3 $(top_srcdir)/tests/vm/desktop/run.py --builddir $(abs_top_builddir)/vm-desktop \
	  --scenario kde --scenario kde-kernel $(VM_DESKTOP_FLAGS) || rc=1; \
	exit $$rc
.PHONY: check-vm-desktop check-vm-desktop-deb check-vm-entry-points check-vm-layouts check-vm-desktops \
	check-vm-efi

# Every fault class against stale images, wrong restores and unusable swap.
check_PROGRAMS += tests/fault-matrix.test
TESTS += tests/fault-matrix.test
tests_fault_matrix_test_SOURCES = tests/fault-matrix.c tests/image-testutil.h
tests_fault_matrix_test_LDADD = tests/libdmotest.a $(DMO_ENGINE_DEPS) $(DMO_LIBS)

# The flake hunt: the whole suite RUNS times (default 20) on one build in
# build-tests/ (build-asan/, build-tsan/ with SUITE=sanitize or tsan) with
# every CPU kept busy; names every test that failed in any run. ONLY="tests/A.test
# tests/B.sh" hunts in those tests alone (the ones a change adds).
check-flaky:
	$(top_srcdir)/tests/run-suite --repeat $${RUNS:-20} --load $${SUITE:+--$$SUITE} \
	  $${ONLY:+--only "$$ONLY"}
.PHONY: check-flaky
