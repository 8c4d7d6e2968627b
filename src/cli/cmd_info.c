#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "image/reader.h"
#include "kernel/blockdev.h"
#include "kernel/swap_area.h"
#include "util/i18n.h"

static const char *fault_text(enum dmo_image_fault f)
{
        switch (f) {
        case DMO_FAULT_NONE:
                return _("intact");
        case DMO_FAULT_NOT_SWAP:
                return _("not a swap area");
        case DMO_FAULT_FOREIGN:
                return _("carries another tool's hibernation image");
        case DMO_FAULT_SIGNATURE:
                return _("the dormouse signature block is damaged");
        case DMO_FAULT_HEADER_IO:
                return _("the image header cannot be read");
        case DMO_FAULT_HEADER_MAGIC:
                return _("there is no image header where the signature points");
        case DMO_FAULT_HEADER_CHECKSUM:
                return _("the image header's checksum does not match");
        case DMO_FAULT_HEADER_FIELDS:
                return _("the image header has impossible values");
        case DMO_FAULT_VERSION:
                return _("made by a newer dormouse");
        case DMO_FAULT_ENCRYPTED:
                return _("encrypted, or uses a feature this dormouse lacks");
        case DMO_FAULT_EXTENT_MAP:
                return _("the extent map is damaged");
        case DMO_FAULT_EXTENT_IO:
                return _("the extent map cannot be read");
        case DMO_FAULT_SWAP_IO:
                return _("the swap header cannot be read");
        case DMO_FAULT_TRUNCATED:
                return _("the device is shorter than the image (truncated)");
        case DMO_FAULT_COUNT:
                break;
        }
        return "?";
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
                       fault_text(info->fault));
                return;
        }
        char when[64] = "?";
        time_t t = (time_t)(h->end_ns / 1000000000ull);
        struct tm tm;
        if (localtime_r(&t, &tm))
                strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
        double raw = (double)h->raw_bytes / 1e6, stored = (double)h->stored_bytes / 1e6;
        printf(_("%s: dormouse hibernation image, format %u.%u\n"), path, h->major, h->minor);
        printf(_("  made by:      %s %s (%s) %s\n"), h->identity.sysname, h->identity.release,
               h->identity.machine, h->identity.version);
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
        printf(_("  encryption:   %s\n"), h->crypto.cipher ? _("yes") : _("none"));
}

int dmo_cmd_info(int argc, char **argv)
{
        enum { O_JSON = 1, O_OFFSET, O_HELP };
        static const struct option opts[] = {
            {"json", no_argument, NULL, O_JSON},
            {"resume-offset", required_argument, NULL, O_OFFSET},
            {"help", no_argument, NULL, O_HELP},
            {0},
        };
        bool json = false;
        uint64_t offset = 0;
        int opt;
        optind = 1;
        while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                char *end;
                switch (opt) {
                case O_JSON:
                        json = true;
                        break;
                case O_OFFSET:
                        offset = strtoull(optarg, &end, 0);
                        if (*end || optarg[0] == '-') {
                                dmo_cli_error(_("--resume-offset: a page number"));
                                return DMO_EXIT_USAGE;
                        }
                        break;
                case O_HELP:
                        printf("%s", _("Usage: dormouse info [--json] [--resume-offset PAGES] "
                                       "DEVICE|FILE\nDescribes the hibernation image on a swap "
                                       "area. Exit status: 0 image, 1 none, 3 damaged.\n"));
                        return DMO_EXIT_OK;
                default:
                        return DMO_EXIT_USAGE;
                }
        }
        if (optind != argc - 1) {
                dmo_cli_error(_("info: name one device or file"));
                return DMO_EXIT_USAGE;
        }
        const char *path = argv[optind];
        struct dmo_blockdev *dev;
        int r = dmo_blockdev_open(path, false, NULL, &dev);
        if (r < 0) {
                dmo_cli_error(_("%s: cannot open: %s"), path, strerror(-r));
                return DMO_EXIT_USAGE;
        }
        struct dmo_image_info info;
        memset(&info, 0, sizeof(info));
        long ps = sysconf(_SC_PAGESIZE);
        r = dmo_image_probe(dev, offset, (uint32_t)(ps > 0 ? ps : 4096), &info);
        dmo_blockdev_free(dev);
        if (json) {
                char buf[8192];
                if (dmo_image_info_to_json(&info, buf, sizeof(buf)) < 0)
                        return DMO_EXIT_FAILED;
                printf("%s\n", buf);
        } else {
                print_human(path, r, &info);
        }
        if (r == 0)
                return DMO_EXIT_OK;
        if (r == -ENOENT || r == -ENODEV)
                return DMO_EXIT_NO_IMAGE;
        return DMO_EXIT_REFUSED;
}
