# cli: argument and config parsing, the commands, messages at the edge.
bin_PROGRAMS += dormouse
dormouse_SOURCES = src/cli/main.c
noinst_LIBRARIES += src/cli/libdmo-cli.a
src_cli_libdmo_cli_a_SOURCES =
