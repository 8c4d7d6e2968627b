/* dormouse enroll-tpm: ready the TPM for "encrypt = tpm": its counter for
 * rollback protection made once, the recovery key checked. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/keys.h"
#include "util/i18n.h"

static void usage(FILE *f)
{
        fprintf(f,
                _("Usage: dormouse enroll-tpm [OPTIONS]\n"
                  "Ready the TPM 2.0 for \"encrypt = tpm\": make its counter (\"tpm counter\", an "
                  "NV\nindex), which every image records so that none is restored twice, and "
                  "check the\nrecovery key (the public key of \"dormouse keygen\").\n\n"
                  "  --tpm-device TCTI  the TPM (tpm2-tss TCTI; default its own choice)\n"
                  "  --public-key FILE  the recovery key; default %s\n"
                  "  --config FILE      default %s (tpm counter, tpm device, public key)\n"),
                dmo_keys_default_public_key, DMO_SYSCONFDIR "/dormouse.conf");
}

struct enroll_cmd {
        struct dmo_cli_common c;
        struct dmo_keys_opts k;
        bool help;
};

static int parse(struct enroll_cmd *e, int argc, char **argv)
{
        enum { O_DEVICE = 1, O_PUBLIC, O_CONFIG, O_HELP };
        static const struct option opts[] = {
            {"tpm-device", required_argument, NULL, O_DEVICE},
            {"public-key", required_argument, NULL, O_PUBLIC},
            {"config", required_argument, NULL, O_CONFIG},
            {"help", no_argument, NULL, O_HELP},
            {0},
        };
        int opt;
        optind = 1;
        while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                if (opt == O_DEVICE) {
                        e->k.tpm_device = optarg;
                } else if (opt == O_PUBLIC) {
                        e->k.public_key = optarg;
                } else if (opt == O_CONFIG) {
                        e->c.config_path = optarg;
                        e->c.config_path_given = true;
                } else if (opt == O_HELP) {
                        usage(stdout);
                        e->help = true;
                        return 0;
                } else {
                        usage(stderr);
                        return -EINVAL;
                }
        }
        if (optind < argc) {
                dmo_cli_error(_("enroll-tpm: unexpected argument \"%s\""), argv[optind]);
                return -EINVAL;
        }
        int r = dmo_cli_common_finish(&e->c);
        if (r == 0)
                dmo_cli_keyopts_from_config(&e->k, &e->c.config);
        return r;
}

static int run(struct enroll_cmd *e)
{
        struct dmo_cli_keys ui;
        bool created = false;
        uint64_t value = 0;
        dmo_cli_keys_init(&ui, NULL, NULL, NULL);
        int r = dmo_keys_tpm_enroll(&e->k, &ui.ui, &created, &value);
        if (r < 0)
                return -EIO;
        const char *pk = e->k.public_key ? e->k.public_key : dmo_keys_default_public_key;
        if (!e->k.tpm_counter)
                fprintf(stderr,
                        _("dormouse: the TPM answers and the recovery key is %s; \"tpm counter = "
                          "no\": images are not protected against being restored twice\n"),
                        pk);
        else
                fprintf(stderr,
                        created ? _("dormouse: made the TPM counter at NV index 0x%08llx (now "
                                    "%llu); the recovery key is %s. Set \"encrypt = tpm\" to use "
                                    "them.\n")
                                : _("dormouse: the TPM counter at NV index 0x%08llx is there "
                                    "(now %llu); the recovery key is %s. Set \"encrypt = tpm\" to "
                                    "use them.\n"),
                        (unsigned long long)e->k.tpm_counter, (unsigned long long)value, pk);
        return 0;
}

int dmo_cmd_enroll_tpm(int argc, char **argv)
{
        struct enroll_cmd e = {0};
        dmo_cli_common_init(&e.c);
        int r = parse(&e, argc, argv);
        if (r == 0 && !e.help)
                r = run(&e);
        dmo_cli_common_release(&e.c);
        return dmo_cli_exit_status(DMO_CMD_ENROLL_TPM, r);
}
