/* Before the freeze: will this image come back? (resumable.h) */
#include "engine/resumable.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "kernel/cmdline.h"
#include "kernel/nbd_url.h"
#include "kernel/swap_area.h"

static enum dmo_resumable_verdict active_area(const struct dmo_resumable_params *p,
                                              struct dmo_resumable *out)
{
        struct dmo_swap_active_result a;
        if (!p->proc_swaps)
                return DMO_RESUMABLE_YES;
        dmo_swap_active_at(p->proc_swaps, p->target, p->files, &a);
        switch (a.where) {
        case DMO_SWAP_ACTIVE_HERE:
        case DMO_SWAP_ACTIVE_UNKNOWN:
                return DMO_RESUMABLE_YES; /* it is, or the kernel will tell */
        case DMO_SWAP_ACTIVE_MOVED:
                memcpy(out->moved_path, a.moved_path, sizeof(out->moved_path));
                out->moved_first = a.moved_first;
                return DMO_RESUMABLE_STALE_SWAP_FILE;
        case DMO_SWAP_ACTIVE_NONE:
                break;
        }
        return p->target->header_page > 0 ? DMO_RESUMABLE_NO_AREA_AT_PAGE
                                          : DMO_RESUMABLE_NOT_ACTIVE;
}

static void running_release(const struct dmo_resumable_params *p, char release[65])
{
        struct utsname u;
        if (p->release)
                snprintf(release, 65, "%s", p->release);
        else if (uname(&u) == 0)
                snprintf(release, 65, "%s", u.release);
        else
                release[0] = '\0';
}

static void read_cmdline(const char *path, struct dmo_cmdline *cl)
{
        char line[DMO_CMDLINE_MAX];
        memset(cl, 0, sizeof(*cl));
        FILE *f = fopen(path, "re");
        if (!f)
                return; /* the target's resolution said so already */
        size_t n = fread(line, 1, sizeof(line) - 1, f);
        fclose(f);
        line[n] = '\0';
        dmo_cmdline_parse(line, cl);
}

/* What the initramfs holds. */
struct initramfs {
        struct dmo_initramfs_record rec;
        char device[DMO_RESUME_SPEC_MAX]; /* its copy of dormouse.conf: "resume device" */
        int64_t offset;                   /* and "resume offset" */
};

static enum dmo_resumable_verdict load_record(const struct dmo_resumable_params *p,
                                              struct initramfs *in, struct dmo_resumable *out)
{
        int r = dmo_initramfs_record_path(p->state_dir, out->release, "", out->record_path,
                                          sizeof(out->record_path));
        if (r == 0)
                r = dmo_initramfs_record_load(p->state_dir, out->release, &in->rec);
        out->error = r;
        if (r == -ENOENT)
                return DMO_RESUMABLE_NO_RECORD;
        if (r == -EPROTONOSUPPORT)
                return DMO_RESUMABLE_RECORD_TOO_NEW;
        return r < 0 ? DMO_RESUMABLE_RECORD_UNREADABLE : DMO_RESUMABLE_YES;
}

/* The initramfs's copy of dormouse.conf, checked against its record. */
static enum dmo_resumable_verdict load_copy(const struct dmo_resumable_params *p,
                                            struct initramfs *in, struct dmo_resumable *out)
{
        uint8_t sum[DMO_CRYPTO_SHA256_LEN];
        in->device[0] = '\0';
        in->offset = -1;
        if (!in->rec.has_config) {
                /* no dormouse.conf then: is there one now? */
                out->copy_outdated = dmo_crypto_sha256_file(p->config_path, sum) != -ENOENT;
                return DMO_RESUMABLE_YES;
        }
        out->copy_outdated = !(dmo_crypto_sha256_file(p->config_path, sum) == 0 &&
                               memcmp(sum, in->rec.config_sha256, sizeof(sum)) == 0);
        int r = dmo_initramfs_record_path(p->state_dir, out->release, ".conf", out->copy_path,
                                          sizeof(out->copy_path));
        if (r == 0)
                r = dmo_crypto_sha256_file(out->copy_path, sum);
        if (r == 0 && memcmp(sum, in->rec.config_sha256, sizeof(sum)) != 0)
                r = -EBADMSG;
        if (r == 0)
                r = p->read_config(p->ctx, out->copy_path, in->device, &in->offset);
        out->error = r;
        return r < 0 ? DMO_RESUMABLE_COPY_UNREADABLE : DMO_RESUMABLE_YES;
}

/* Whether two nbd:// URLs name one export (the host's case aside). */
static bool same_export(const char *a, const char *b)
{
        struct dmo_nbd_url ua, ub;
        if (!a || dmo_nbd_url_parse(a, &ua, NULL) < 0 || dmo_nbd_url_parse(b, &ub, NULL) < 0)
                return false;
        return strcasecmp(ua.host, ub.host) == 0 && ua.port == ub.port &&
               strcmp(ua.export_name, ub.export_name) == 0;
}

static enum dmo_resumable_verdict resume_side(const struct dmo_resumable_params *p,
                                              const struct initramfs *in,
                                              const struct dmo_cmdline *cl,
                                              struct dmo_resumable *out)
{
        const struct dmo_swap_target *t = p->target;
        dmo_initramfs_resume_place(in->device, in->offset, cl, &in->rec, &out->place);
        /* HibernateLocation names the target itself; the initramfs only
         * has to read it, and prefers it to initramfs-tools' RESUME=. Its
         * record says whether it reads it: a dormouse before that, or an
         * initramfs built on a boot without EFI (no efivarfs in it), would
         * boot afresh. */
        if (p->via_efi_location && !in->device[0] && !cl->resume[0])
                return in->rec.reads_efi_location ? DMO_RESUMABLE_YES
                                                  : DMO_RESUMABLE_NO_EFI_LOCATION;
        if (!out->place.spec[0])
                return DMO_RESUMABLE_NOWHERE;
        if (t->network || dmo_nbd_url_is(out->place.spec)) {
                if (!same_export(t->network, out->place.spec))
                        return DMO_RESUMABLE_ANOTHER_DEVICE;
                if (out->place.offset != t->header_page)
                        return DMO_RESUMABLE_ANOTHER_OFFSET;
                return in->rec.has_nbd_client ? DMO_RESUMABLE_YES : DMO_RESUMABLE_NO_NBD_CLIENT;
        }
        char path[512];
        struct stat st;
        int r = dmo_resume_device_resolve(out->place.spec, "/dev", "/sys", path, sizeof(path));
        if (r == 0 && stat(path, &st) < 0)
                r = -errno;
        out->error = r;
        if (r < 0)
                return DMO_RESUMABLE_NOT_A_DEVICE;
        if (S_ISREG(st.st_mode) && !p->files)
                return DMO_RESUMABLE_A_FILE;
        if (!dmo_swap_target_is(t, &st, p->files))
                return DMO_RESUMABLE_ANOTHER_DEVICE;
        if (out->place.offset != t->header_page)
                return DMO_RESUMABLE_ANOTHER_OFFSET;
        return DMO_RESUMABLE_YES;
}

/* Public-key mode, and the TPM modes' recovery: the initramfs must hold
 * the secret key that opens what is sealed to the public one. */
static enum dmo_resumable_verdict secret_key(const struct dmo_resumable_params *p,
                                             const struct initramfs *in)
{
        if (p->encrypt != DMO_ENCRYPT_PUBKEY && p->encrypt != DMO_ENCRYPT_TPM &&
            p->encrypt != DMO_ENCRYPT_TPM_PIN)
                return DMO_RESUMABLE_YES;
        if (!in->rec.has_secret_key)
                return DMO_RESUMABLE_NO_SECRET_KEY;
        uint8_t sum[DMO_CRYPTO_SHA256_LEN];
        if (dmo_crypto_sha256_file(p->secret_key, sum) < 0)
                return DMO_RESUMABLE_YES; /* not here to compare: the person keeps it elsewhere */
        if (memcmp(sum, in->rec.secret_key_sha256, sizeof(sum)) != 0)
                return DMO_RESUMABLE_ANOTHER_SECRET_KEY;
        return DMO_RESUMABLE_YES;
}

static enum dmo_resumable_verdict initramfs(const struct dmo_resumable_params *p,
                                            struct dmo_resumable *out)
{
        struct initramfs in = {0};
        if (!p->state_dir)
                return DMO_RESUMABLE_YES;
        running_release(p, out->release);
        enum dmo_resumable_verdict v = load_record(p, &in, out);
        if (v == DMO_RESUMABLE_YES)
                v = load_copy(p, &in, out);
        if (v != DMO_RESUMABLE_YES)
                return v;
        struct dmo_cmdline cl;
        read_cmdline(p->cmdline, &cl);
        v = resume_side(p, &in, &cl, out);
        if (v == DMO_RESUMABLE_YES)
                v = secret_key(p, &in);
        out->noresume = cl.noresume || cl.nohibernate;
        return v;
}

int dmo_resumable_check(const struct dmo_resumable_params *p, struct dmo_resumable *out)
{
        *out = (struct dmo_resumable){0};
        out->verdict = active_area(p, out);
        if (out->verdict == DMO_RESUMABLE_YES)
                out->verdict = initramfs(p, out);
        return 0;
}
