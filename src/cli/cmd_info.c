/* dormouse info: what is on a swap area, for people and for scripts. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "keys/keys.h"
#include "image/reader.h"
#include "kernel/blockdev.h"
#include "kernel/swap_area.h"
#include "util/i18n.h"
#include "util/printable.h"
#include "util/strtable.h"

/* What is wrong with an image, completing "present but unusable: %s". */
static const char *const fault_text_table[DMO_FAULT_COUNT] = {
    [DMO_FAULT_NONE] = N_("intact"),
    [DMO_FAULT_NOT_SWAP] = N_("not a swap area"),
    [DMO_FAULT_FOREIGN] = N_("carries another tool's hibernation image"),
    [DMO_FAULT_SIGNATURE] = N_("the dormouse signature block is damaged"),
    [DMO_FAULT_HEADER_IO] = N_("the image header cannot be read"),
    [DMO_FAULT_HEADER_MAGIC] = N_("there is no image header where the signature points"),
    [DMO_FAULT_HEADER_CHECKSUM] = N_("the image header's checksum does not match"),
    [DMO_FAULT_HEADER_FIELDS] = N_("the image header has impossible values"),
    [DMO_FAULT_VERSION] = N_("made by a newer dormouse"),
    [DMO_FAULT_ENCRYPTED] = N_("encrypted, or uses a feature this dormouse lacks"),
    [DMO_FAULT_EXTENT_MAP] = N_("the extent map is damaged"),
    [DMO_FAULT_EXTENT_IO] = N_("the extent map cannot be read"),
    [DMO_FAULT_SWAP_IO] = N_("the swap header cannot be read"),
    [DMO_FAULT_TRUNCATED] = N_("the device is shorter than the image (truncated)"),
};
DMO_STRING_TABLE_TO_STRING(static, fault_text, enum dmo_image_fault, fault_text_table, "?")

/* The TPM modes: the PCRs, the PIN, the recovery, the counter. */
static void print_tpm(const struct dmo_image_header *h)
{
        char pcrs[64];
        dmo_keys_pcrs_format(h->tpm.pcrs, pcrs, sizeof(pcrs));
        printf(_("  encryption:   TPM (%s; image key sealed to PCRs %s%s; recovery: the public "
                 "key)\n"),
               dmo_crypto_cipher_name(h->crypto.cipher), pcrs[0] ? pcrs : _("none"),
               h->tpm.flags & DMO_IMAGE_TPM_PIN ? _(" and a PIN") : "");
        if (h->tpm.nv_index)
                printf(_("  rollback:     TPM counter 0x%08llx must still be %llu\n"),
                       (unsigned long long)h->tpm.nv_index, (unsigned long long)h->tpm.counter);
        else
                printf("%s", _("  rollback:     not protected (no TPM counter)\n"));
}

/* The mode and costs, which need no key; and plainly when there is none. */
static void print_encryption(const struct dmo_image_header *h)
{
        const struct dmo_crypto_envelope *e = &h->crypto.env;
        if (!(h->flags & DMO_IMAGE_F_ENCRYPTED))
                printf("%s", _("  encryption:   none (the memory is readable on the swap area)\n"));
        else if (e->mode == DMO_ENCRYPT_PASSPHRASE)
                printf(_("  encryption:   passphrase (%s; Argon2id, %llu passes, %llu KiB)\n"),
                       dmo_crypto_cipher_name(h->crypto.cipher), (unsigned long long)e->opslimit,
                       (unsigned long long)(e->memlimit >> 10));
        else if (!(h->flags & DMO_IMAGE_F_TPM))
                printf(_("  encryption:   public key (%s; image key sealed to an X25519 key)\n"),
                       dmo_crypto_cipher_name(h->crypto.cipher));
        else
                print_tpm(h);
}

static void print_human(const char *path, int r, const struct dmo_image_info *info)
{
        const struct dmo_image_header *h = &info->header;
        if (r == -ENOENT) {
                printf(_("%s: a plain swap area, no hibernation image\n"), path);
                return;
        }
        if (r == -ENODEV && info->fault == DMO_FAULT_NOT_SWAP) {
                printf(_("%s: not a swap area (no mkswap signature)\n"), path);
                return;
        }
        if (r < 0) {
                printf(_("%s: hibernation image present but unusable: %s\n"), path,
                       _(fault_text(info->fault)));
                return;
        }
        char when[64] = "?";
        time_t t = (time_t)(h->end_ns / 1000000000ull);
        struct tm tm;
        if (localtime_r(&t, &tm))
                strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
        double raw = (double)h->raw_bytes / 1e6, stored = (double)h->stored_bytes / 1e6;
        printf(_("%s: dormouse hibernation image, format %u.%u\n"), path, h->major, h->minor);
        /* The image's own words: no escape sequence reaches the terminal. */
        struct dmo_kernel_identity id = h->identity;
        dmo_sanitize_printable(id.sysname);
        dmo_sanitize_printable(id.release);
        dmo_sanitize_printable(id.machine);
        dmo_sanitize_printable(id.version);
        printf(_("  made by:      %s %s (%s) %s\n"), id.sysname, id.release, id.machine,
               id.version);
        printf(_("  written:      %s, in %.2f s\n"), when, (double)h->write_ns / 1e9);
        printf(_("  memory:       %llu pages of %u bytes (%.1f MB), %llu all-zero\n"),
               (unsigned long long)h->image_pages, h->page_size, raw,
               (unsigned long long)h->zero_pages);
        printf(_("  stored:       %.1f MB with %s (ratio %.2f), %llu chunks of up to %u pages\n"),
               stored, dmo_compress_name((enum dmo_compress)h->compress),
               stored > 0 ? raw / stored : 0.0, (unsigned long long)h->chunk_count, h->chunk_pages);
        printf(_("  layout:       header at byte %llu, %llu extents in %u map pages\n"),
               (unsigned long long)info->sig.header_offset, (unsigned long long)h->extent_count,
               h->map_pages);
        print_encryption(h);
}

struct info_cmd {
        bool json;
        bool help;
        uint64_t offset; /* --resume-offset */
        const char *path;
        struct dmo_image_info info;
        int probe; /* dmo_image_probe()'s result */
};

static int parse(struct info_cmd *n, int argc, char **argv)
{
        enum { O_JSON = 1, O_OFFSET, O_HELP };
        static const struct option opts[] = {
            {"json", no_argument, NULL, O_JSON},
            {"resume-offset", required_argument, NULL, O_OFFSET},
            {"help", no_argument, NULL, O_HELP},
            {0},
        };
        int opt;
        optind = 1;
        while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (opt) {
                case O_JSON:
                        n->json = true;
                        break;
                case O_OFFSET:
                        if (dmo_cli_parse_number("--resume-offset", optarg, 0, INT64_MAX / 65536,
                                                 &n->offset) < 0)
                                return -EINVAL;
                        break;
                case O_HELP:
                        printf("%s", _("Usage: dormouse info [--json] [--resume-offset PAGES] "
                                       "DEVICE|FILE\nDescribes the hibernation image on a swap "
                                       "area. Exit status: 0 image, 1 none, 3 damaged.\n"));
                        n->help = true;
                        return 0;
                default:
                        return -EINVAL;
                }
        }
        if (optind != argc - 1) {
                dmo_cli_error(_("info: name one device or file"));
                return -EINVAL;
        }
        n->path = argv[optind];
        return 0;
}

static int run(struct info_cmd *n)
{
        struct dmo_blockdev *dev;
        int r = dmo_blockdev_open(n->path, false, NULL, &dev);
        if (r < 0) {
                dmo_cli_error(_("%s: cannot open: %s"), n->path, strerror(-r));
                return -EINVAL;
        }
        long ps = sysconf(_SC_PAGESIZE);
        n->probe = dmo_image_probe(dev, n->offset, (uint32_t)(ps > 0 ? ps : 4096), &n->info);
        dmo_blockdev_free(dev);
        return 0;
}

static int report(const struct info_cmd *n)
{
        if (n->json) {
                char buf[8192];
                if (dmo_image_info_to_json(&n->info, buf, sizeof(buf)) < 0)
                        return -ENOBUFS;
                printf("%s\n", buf);
        } else {
                print_human(n->path, n->probe, &n->info);
        }
        if (n->probe == -ENOENT || n->probe == -ENODEV)
                return -ENODATA;
        return n->probe < 0 ? -EBADMSG : 0; /* damaged: the fault was described */
}

int dmo_cmd_info(int argc, char **argv)
{
        struct info_cmd n = {0};
        int r = parse(&n, argc, argv);
        if (r == 0 && !n.help)
                r = run(&n);
        if (r == 0 && !n.help)
                r = report(&n);
        return dmo_cli_exit_status(DMO_CMD_INFO, r);
}
