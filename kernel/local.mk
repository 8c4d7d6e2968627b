# kernel: sources and tests of this module
noinst_LIBRARIES += kernel/libdmo-kernel.a
kernel_libdmo_kernel_a_SOURCES = kernel/snapshot.h \
	kernel/snapshot_dev.c kernel/snapshot_dev.h \
	kernel/faults.c kernel/faults.h \
	kernel/blockdev.c kernel/blockdev.h \
	kernel/swap_area.c kernel/swap_area.h \
	kernel/btrfs_map.c kernel/btrfs_map.h \
	kernel/sim_pages.c kernel/sim_pages.h \
	kernel/sim_kernel.c kernel/sim_kernel.h \
	kernel/cmdline.c kernel/cmdline.h \
	kernel/boot_stage.c kernel/boot_stage.h \
	kernel/zoneinfo.c kernel/zoneinfo.h \
	kernel/reclaim_quiet.c kernel/reclaim_quiet.h \
	kernel/power_supply.c kernel/power_supply.h \
	kernel/suspend.c kernel/suspend.h \
	kernel/efivar.c kernel/efivar.h \
	kernel/kmsg.c kernel/kmsg.h \
	kernel/initramfs_record.c kernel/initramfs_record.h \
	kernel/nbd_url.c kernel/nbd_url.h \
	kernel/nbd_client.c kernel/nbd_client.h

DMO_KERNEL_TEST_LDADD = tests/libdmotest.a kernel/libdmo-kernel.a src/util/libdmo-util.a $(DMO_LIBS)

check_PROGRAMS += tests/kernel-faults.test tests/kernel-blockdev.test
TESTS += tests/kernel-faults.test tests/kernel-blockdev.test
tests_kernel_faults_test_SOURCES = tests/kernel-faults.c
tests_kernel_faults_test_LDADD = $(DMO_KERNEL_TEST_LDADD)
tests_kernel_blockdev_test_SOURCES = tests/kernel-blockdev.c
tests_kernel_blockdev_test_LDADD = $(DMO_KERNEL_TEST_LDADD)

check_PROGRAMS += tests/kernel-swap-area.test
TESTS += tests/kernel-swap-area.test
tests_kernel_swap_area_test_SOURCES = tests/kernel-swap-area.c
tests_kernel_swap_area_test_LDADD = $(DMO_KERNEL_TEST_LDADD)

check_PROGRAMS += tests/kernel-sim-pages.test
TESTS += tests/kernel-sim-pages.test
tests_kernel_sim_pages_test_SOURCES = tests/kernel-sim-pages.c
tests_kernel_sim_pages_test_LDADD = $(DMO_KERNEL_TEST_LDADD)

check_PROGRAMS += tests/kernel-sim-kernel.test
TESTS += tests/kernel-sim-kernel.test
tests_kernel_sim_kernel_test_SOURCES = tests/kernel-sim-kernel.c
tests_kernel_sim_kernel_test_LDADD = $(DMO_KERNEL_TEST_LDADD)

check_PROGRAMS += tests/kernel-snapshot-dev.test
TESTS += tests/kernel-snapshot-dev.test
tests_kernel_snapshot_dev_test_SOURCES = tests/kernel-snapshot-dev.c
tests_kernel_snapshot_dev_test_LDADD = $(DMO_KERNEL_TEST_LDADD)

check_PROGRAMS += tests/kernel-cmdline.test
TESTS += tests/kernel-cmdline.test
tests_kernel_cmdline_test_SOURCES = tests/kernel-cmdline.c
tests_kernel_cmdline_test_LDADD = $(DMO_KERNEL_TEST_LDADD)

check_PROGRAMS += tests/kernel-zoneinfo.test
TESTS += tests/kernel-zoneinfo.test
tests_kernel_zoneinfo_test_SOURCES = tests/kernel-zoneinfo.c
tests_kernel_zoneinfo_test_LDADD = $(DMO_KERNEL_TEST_LDADD)

check_PROGRAMS += tests/kernel-reclaim-quiet.test
TESTS += tests/kernel-reclaim-quiet.test
tests_kernel_reclaim_quiet_test_SOURCES = tests/kernel-reclaim-quiet.c
tests_kernel_reclaim_quiet_test_LDADD = $(DMO_KERNEL_TEST_LDADD)

check_PROGRAMS += tests/kernel-kmsg.test
TESTS += tests/kernel-kmsg.test
tests_kernel_kmsg_test_SOURCES = tests/kernel-kmsg.c
tests_kernel_kmsg_test_LDADD = $(DMO_KERNEL_TEST_LDADD)

check_PROGRAMS += tests/kernel-initramfs-record.test
TESTS += tests/kernel-initramfs-record.test
tests_kernel_initramfs_record_test_SOURCES = tests/kernel-initramfs-record.c
tests_kernel_initramfs_record_test_LDADD = $(DMO_KERNEL_TEST_LDADD)

check_PROGRAMS += tests/kernel-btrfs-map.test
TESTS += tests/kernel-btrfs-map.test
tests_kernel_btrfs_map_test_SOURCES = tests/kernel-btrfs-map.c
tests_kernel_btrfs_map_test_LDADD = $(DMO_KERNEL_TEST_LDADD)

check_PROGRAMS += tests/kernel-nbd-url.test
TESTS += tests/kernel-nbd-url.test
tests_kernel_nbd_url_test_SOURCES = tests/kernel-nbd-url.c
tests_kernel_nbd_url_test_LDADD = $(DMO_KERNEL_TEST_LDADD)

check_PROGRAMS += tests/kernel-nbd-client.test
TESTS += tests/kernel-nbd-client.test
tests_kernel_nbd_client_test_SOURCES = tests/kernel-nbd-client.c
tests_kernel_nbd_client_test_LDADD = $(DMO_KERNEL_TEST_LDADD)
