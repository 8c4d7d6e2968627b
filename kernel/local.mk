# kernel: sources and tests of this module
noinst_LIBRARIES += kernel/libdmo-kernel.a
kernel_libdmo_kernel_a_SOURCES =
