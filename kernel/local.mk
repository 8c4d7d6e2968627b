# kernel: sources and tests of this module
