/* dormouse: picks the command and hands it the rest of the arguments. */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/i18n.h"
#include "util/strtable.h"
#include "util/timing.h"

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
                  "  theme check DIR   lint a theme\n"
                  "  keygen        make the key pair for encrypt = pubkey\n"
                  "  suspend-then-hibernate  suspend, then hibernate (systemd's rules)\n"
                  "  hybrid-sleep  write the image, then suspend to RAM\n\n"
                  "\"dormouse COMMAND --help\" describes a command's options.\n"));
        fputs(
            _("  enroll-tpm    ready the TPM for encrypt = tpm (its counter, the recovery key)\n"),
            f);
}

static const char *const command_table[] = {
    [DMO_CMD_HIBERNATE] = "hibernate",
    [DMO_CMD_RESUME] = "resume",
    [DMO_CMD_INFO] = "info",
    [DMO_CMD_PREVIEW] = "preview",
    [DMO_CMD_THEME] = "theme",
    [DMO_CMD_KEYGEN] = "keygen",
    [DMO_CMD_SUSPEND_THEN_HIBERNATE] = "suspend-then-hibernate",
    [DMO_CMD_HYBRID_SLEEP] = "hybrid-sleep",
    [DMO_CMD_ENROLL_TPM] = "enroll-tpm",
};
DMO_DEFINE_STRING_TABLE_LOOKUP(static, command, enum dmo_cli_command)

static int (*const command_run[])(int argc, char **argv) = {
    [DMO_CMD_HIBERNATE] = dmo_cmd_hibernate,
    [DMO_CMD_RESUME] = dmo_cmd_resume,
    [DMO_CMD_INFO] = dmo_cmd_info,
    [DMO_CMD_PREVIEW] = dmo_cmd_preview,
    [DMO_CMD_THEME] = dmo_cmd_theme,
    [DMO_CMD_KEYGEN] = dmo_cmd_keygen,
    [DMO_CMD_SUSPEND_THEN_HIBERNATE] = dmo_cmd_suspend_then_hibernate,
    [DMO_CMD_HYBRID_SLEEP] = dmo_cmd_hybrid_sleep,
    [DMO_CMD_ENROLL_TPM] = dmo_cmd_enroll_tpm,
};

int main(int argc, char **argv)
{
        enum dmo_cli_command cmd;
        /* One malloc arena for every thread. glibc gives each thread that
         * allocates an arena of its own, a 64 MiB reservation; hibernate and
         * resume lock memory with mlockall, and the kernel counts every
         * locked reservation against RLIMIT_MEMLOCK and VmLck, resident or
         * not. Nothing here allocates in a hot loop across threads. */
        mallopt(M_ARENA_MAX, 1);
        dmo_timing_mark("main");
        dmo_i18n_init();
        if (argc < 2) {
                usage(stderr);
                return dmo_cli_exit_status(DMO_CMD_MAIN, -EINVAL);
        }
        const char *name = argv[1];
        if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
                usage(stdout);
                return dmo_cli_exit_status(DMO_CMD_MAIN, 0);
        }
        if (strcmp(name, "--version") == 0) {
                printf("dormouse %s\n", PACKAGE_VERSION);
                return dmo_cli_exit_status(DMO_CMD_MAIN, 0);
        }
        if (command_from_string(name, &cmd) < 0) {
                dmo_cli_error(_("unknown command \"%s\"; try \"dormouse --help\""), name);
                return dmo_cli_exit_status(DMO_CMD_MAIN, -EINVAL);
        }
        return command_run[cmd](argc - 1, argv + 1);
}
