#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/i18n.h"

static void usage(FILE *f)
{
        fprintf(f, "%s",
                _("Usage: dormouse COMMAND [OPTIONS]\n"
                  "Hibernate (suspend to disk) from user space, with a themed progress splash.\n\n"
                  "Commands:\n"
                  "  hibernate     save memory to swap and power off\n"
                  "  resume        restore a hibernated system (from the initramfs)\n"
                  "  info DEVICE   describe the hibernation image on a swap area\n"
                  "  preview       render a theme to PNG\n"
                  "  theme check DIR   lint a theme\n\n"
                  "\"dormouse COMMAND --help\" describes a command's options.\n"));
}

int main(int argc, char **argv)
{
        dmo_i18n_init();
        if (argc < 2) {
                usage(stderr);
                return DMO_EXIT_USAGE;
        }
        const char *cmd = argv[1];
        if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
                usage(stdout);
                return DMO_EXIT_OK;
        }
        if (strcmp(cmd, "--version") == 0) {
                printf("dormouse %s\n", PACKAGE_VERSION);
                return DMO_EXIT_OK;
        }
        static const struct {
                const char *name;
                int (*run)(int argc, char **argv);
        } commands[] = {
            {"hibernate", dmo_cmd_hibernate}, {"resume", dmo_cmd_resume}, {"info", dmo_cmd_info},
            {"preview", dmo_cmd_preview},     {"theme", dmo_cmd_theme},
        };
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
                if (strcmp(cmd, commands[i].name) == 0)
                        return commands[i].run(argc - 1, argv + 1);
        dmo_cli_error(_("unknown command \"%s\"; try \"dormouse --help\""), cmd);
        return DMO_EXIT_USAGE;
}
