# cli: argument and config parsing, the commands, messages at the edge.
bin_PROGRAMS += dormouse
dormouse_SOURCES = src/cli/main.c
