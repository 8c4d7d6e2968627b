/* Before the freeze: will this image come back? The options into
 * engine/resumable.h's question, its verdict into words. (resume_check.h) */
#include "cli/resume_check.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/efi_location.h"
#include "engine/resumable.h"
#include "keys/keys.h"
#include "util/i18n.h"

static const char default_state_dir[] = DMO_LOCALSTATEDIR "/lib/dormouse";
static const char default_config[] = DMO_SYSCONFDIR "/dormouse.conf";

/* The initramfs's copy of dormouse.conf: its resume device and offset. */
static int read_copy(void *ctx, const char *path, char device[DMO_RESUME_SPEC_MAX], int64_t *offset)
{
        (void)ctx;
        struct dmo_config cfg;
        dmo_config_init(&cfg);
        int r = dmo_config_load(&cfg, path, NULL);
        if (r < 0)
                return r;
        snprintf(device, DMO_RESUME_SPEC_MAX, "%s", cfg.resume_device);
        *offset = cfg.resume_offset;
        return 0;
}

static const char *from_text(enum dmo_resume_from from, bool offset)
{
        switch (from) {
        case DMO_RESUME_FROM_CONFIG:
                return offset ? _("\"resume offset\" in the initramfs's copy of dormouse.conf")
                              : _("\"resume device\" in the initramfs's copy of dormouse.conf");
        case DMO_RESUME_FROM_CMDLINE:
                return offset ? _("resume_offset= on the kernel command line")
                              : _("resume= on the kernel command line");
        case DMO_RESUME_FROM_INITRAMFS_TOOLS:
                return _("RESUME= of initramfs-tools");
        case DMO_RESUME_FROM_NOWHERE:
                break;
        }
        return offset ? _("no resume offset is set") : NULL;
}

static const char *way_out(void)
{
        return _("If the initramfs is built another way, give --no-initramfs-check (or set "
                 "\"initramfs check = no\")");
}

/* The swap area's verdicts. */
static void say_area(const struct dmo_cli_resume_check *rc, const struct dmo_resumable *v)
{
        const struct dmo_swap_target *t = rc->target;
        const char *conf = rc->c->config_path;
        unsigned long long page = t->header_page, moved_first = v->moved_first;
        if (v->verdict == DMO_RESUMABLE_STALE_SWAP_FILE)
                dmo_cli_error(_("the image would be written at page %llu of %s, but the swap file "
                                "%s starts at page %llu now: the offset is stale (the file was "
                                "made again or moved since it was set). Set resume_offset=%llu on "
                                "the kernel command line (or \"resume offset = %llu\" in %s), "
                                "run update-initramfs -u, and hibernate again"),
                              page, t->path, v->moved_path, moved_first, moved_first, moved_first,
                              conf);
        else if (v->verdict == DMO_RESUMABLE_NO_AREA_AT_PAGE)
                dmo_cli_error(_("no active swap area starts at page %llu of %s (resume_offset): "
                                "the swap file that was there is off, or was made again "
                                "elsewhere. Enable it with swapon, set its offset (filefrag -v "
                                "FILE) as resume_offset= on the kernel command line or \"resume "
                                "offset\" in %s, run update-initramfs -u, and hibernate again"),
                              page, t->path, conf);
        else
                dmo_cli_error(_("%s is not an active swap area (it is not in /proc/swaps), and "
                                "the kernel writes an image only to one: enable it with swapon, "
                                "or point \"resume device\" in %s at one that is"),
                              t->path, conf);
}

/* What the initramfs holds: its record and its copy of dormouse.conf. */
static void say_record(const struct dmo_resumable_params *p, const struct dmo_resumable *v)
{
        const char *release = v->release;
        switch (v->verdict) {
        case DMO_RESUMABLE_NO_RECORD:
                dmo_cli_error(_("the initramfs of the running kernel %s has no dormouse in it "
                                "(there is no %s), so the next boot would not resume this "
                                "image: run update-initramfs -u (or dracut -f), and hibernate "
                                "again. %s"),
                              release, v->record_path, way_out());
                break;
        case DMO_RESUMABLE_RECORD_TOO_NEW:
                dmo_cli_error(_("%s was written by a newer dormouse than this one: run "
                                "update-initramfs -u (or dracut -f) to write it again, and "
                                "hibernate again"),
                              v->record_path);
                break;
        case DMO_RESUMABLE_RECORD_UNREADABLE:
                dmo_cli_error(_("cannot read what the initramfs of kernel %s holds from %s (%s): "
                                "run update-initramfs -u (or dracut -f) to write it again, and "
                                "hibernate again. %s"),
                              release, v->record_path[0] ? v->record_path : p->state_dir,
                              v->error == -EINVAL ? _("not a dormouse record, or another kernel's")
                                                  : strerror(-v->error),
                              way_out());
                break;
        default: /* DMO_RESUMABLE_COPY_UNREADABLE */
                dmo_cli_error(_("the copy of dormouse.conf the initramfs of kernel %s holds "
                                "cannot be read from %s (%s): run update-initramfs -u (or "
                                "dracut -f), and hibernate again"),
                              release, v->copy_path,
                              v->error == -EBADMSG ? _("it is not the one its record names")
                                                   : strerror(-v->error));
                break;
        }
}

/* Where the initramfs would look, and the key it holds. */
static void say_resume_side(const struct dmo_cli_resume_check *rc, const struct dmo_resumable *v)
{
        const struct dmo_swap_target *t = rc->target;
        const char *spec = v->place.spec, *from = from_text(v->place.spec_from, false);
        unsigned long long page = t->header_page;
        switch (v->verdict) {
        case DMO_RESUMABLE_NOWHERE:
                dmo_cli_error(_("the initramfs of kernel %s would not know where to look for the "
                                "image: its copy of dormouse.conf names no \"resume device\", the "
                                "kernel command line has no resume= and initramfs-tools no "
                                "RESUME=. Put resume=%s on the kernel command line (or "
                                "\"resume device = %s\" in %s), run update-initramfs -u, and "
                                "hibernate again"),
                              v->release, t->path, t->path, default_config);
                break;
        case DMO_RESUMABLE_NO_EFI_LOCATION:
                dmo_cli_error(_("nothing names a resume device, and the initramfs of kernel %s "
                                "would not read systemd's HibernateLocation, which would say "
                                "where the image is (it was built by an older dormouse, or on a "
                                "boot without EFI): run update-initramfs -u (or dracut -f), or "
                                "put resume=%s on the kernel command line, and hibernate again"),
                              v->release, t->path);
                break;
        case DMO_RESUMABLE_NOT_A_DEVICE:
                dmo_cli_error(_("the initramfs would look for the image on %s (%s), which is not "
                                "a device here (%s); the image goes to %s. Make them the same, "
                                "run update-initramfs -u, and hibernate again"),
                              spec, from, strerror(-v->error), t->path);
                break;
        case DMO_RESUMABLE_A_FILE:
                dmo_cli_error(_("the initramfs would look for the image in the file %s (%s), "
                                "which it cannot open: it runs before the file system holding it "
                                "is mounted. Name the partition and the offset instead "
                                "(resume=%s resume_offset=%llu on the kernel command line, or "
                                "\"resume device\" and \"resume offset\" in %s), run "
                                "update-initramfs -u, and hibernate again"),
                              spec, from, t->path, page, default_config);
                break;
        case DMO_RESUMABLE_ANOTHER_DEVICE:
                dmo_cli_error(_("the initramfs would look for the image on %s (%s), but it is "
                                "about to be written to %s: the next boot would not find it. "
                                "Make them the same, run update-initramfs -u, and hibernate "
                                "again"),
                              spec, from, t->network ? t->network : t->path);
                break;
        case DMO_RESUMABLE_ANOTHER_OFFSET:
                dmo_cli_error(_("the initramfs would look for the image at page %llu of %s (%s), "
                                "but the swap area starts at page %llu, where the image is about "
                                "to be written: the offset is stale (the swap file was made again "
                                "or moved). Set resume_offset=%llu on the kernel command line (or "
                                "\"resume offset = %llu\" in %s), run update-initramfs -u, and "
                                "hibernate again"),
                              (unsigned long long)v->place.offset, t->path,
                              from_text(v->place.offset_from, true), page, page, page,
                              default_config);
                break;
        case DMO_RESUMABLE_NO_NBD_CLIENT:
                dmo_cli_error(
                    _("the image goes to the network (%s), but the initramfs of kernel %s "
                      "has no nbd-client to reach it: install nbd-client (apt install "
                      "nbd-client), run update-initramfs -u, and hibernate again"),
                    t->network, v->release);
                break;
        case DMO_RESUMABLE_NO_SECRET_KEY:
                dmo_cli_error(_("the image would be encrypted to a public key, but the initramfs "
                                "of kernel %s holds no secret key to open it (its copy of "
                                "dormouse.conf does not say \"encrypt = pubkey\", or the key was "
                                "missing): run update-initramfs -u, and hibernate again"),
                              v->release);
                break;
        default: /* DMO_RESUMABLE_ANOTHER_SECRET_KEY */
                dmo_cli_error(_("the secret key the initramfs of kernel %s holds is not %s as it "
                                "is now (was dormouse keygen run since?), so it could not open "
                                "this image: run update-initramfs -u, and hibernate again"),
                              v->release,
                              rc->secret_key ? rc->secret_key : dmo_keys_default_secret_key);
                break;
        }
}

int dmo_cli_check_resumable(const struct dmo_cli_resume_check *rc)
{
        const struct dmo_cli_common *c = rc->c;
        char proc_swaps[600] = "/proc/swaps";
        if (c->simulated && c->sim_proc)
                snprintf(proc_swaps, sizeof(proc_swaps), "%s/swaps", c->sim_proc);
        const char *state_dir = c->simulated ? rc->sim_state_dir : default_state_dir;
        const struct dmo_resumable_params p = {
            .target = rc->target,
            .files = c->simulated,
            .proc_swaps = c->simulated && !c->sim_proc ? NULL : proc_swaps,
            .state_dir = rc->skip_initramfs ? NULL : state_dir,
            .release = c->simulated ? c->sim_release : NULL,
            .cmdline = c->cmdline_path ? c->cmdline_path : "/proc/cmdline",
            .config_path = c->config_path,
            .encrypt = rc->encrypt,
            .secret_key = rc->secret_key ? rc->secret_key : dmo_keys_default_secret_key,
            .via_efi_location = rc->via_efi_location,
            .read_config = read_copy,
        };
        struct dmo_resumable v;
        dmo_resumable_check(&p, &v);
        if (v.verdict == DMO_RESUMABLE_YES) {
                if (v.copy_outdated)
                        dmo_cli_note(_("the initramfs of kernel %s holds an older copy of %s; "
                                       "what it says about resuming is the same, so this image "
                                       "will come back. Run update-initramfs -u to bring it up "
                                       "to date"),
                                     v.release, c->config_path);
                if (v.noresume)
                        dmo_cli_note(_("this boot's kernel command line has noresume: a boot "
                                       "with it discards the image instead of resuming it"));
                return 0;
        }
        /* The verdicts come in groups (resumable.h): the swap area's, the
         * record's, then where the initramfs looks and the key it holds. */
        if (v.verdict <= DMO_RESUMABLE_NOT_ACTIVE)
                say_area(rc, &v);
        else if (v.verdict <= DMO_RESUMABLE_COPY_UNREADABLE)
                say_record(&p, &v);
        else
                say_resume_side(rc, &v);
        return -EINVAL;
}

int dmo_cli_prepare_resume(const struct dmo_cli_resume_check *rc)
{
        int r = dmo_cli_kernel_refuses_hibernation(rc->c) ? 0 : dmo_cli_check_resumable(rc);
        if (r == 0 && rc->via_efi_location)
                r = dmo_cli_efi_location_write(rc->c, rc->target);
        return r;
}
