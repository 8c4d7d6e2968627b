/* hibernate_location: systemd's HibernateLocation, the EFI variable that
 * tells the next boot where the image is when the kernel command line has
 * no resume= (systemd 255 and later: systemd-sleep writes it,
 * systemd-hibernate-resume-generator reads it, systemd-hibernate-clear
 * removes a stale one). dormouse writes and reads the same JSON, so that
 * systemd's tools and dormouse agree on where the image is:
 *
 *   {"uuid":"<file system UUID of the device>","offset":<page>,
 *    "kernelVersion":"...","osReleaseId":"...","osReleaseVersionId":"...",
 *    "osReleaseImageId":"...","osReleaseImageVersion":"..."}
 *
 * uuid and offset are required; the rest is what the writer's os-release
 * and uname said. Like systemd, a reader takes the location only when ID
 * and IMAGE_ID match its own os-release (another installation's image is
 * not ours), and accepts another kernel version (the image carries its
 * kernel).
 *
 * Contract: JSON through json-c; no allocation survives; no logging.
 */
#ifndef DMO_CLI_HIBERNATE_LOCATION_H
#define DMO_CLI_HIBERNATE_LOCATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DMO_HIBERNATE_LOCATION_VAR "HibernateLocation"

struct dmo_os_release {
        char id[64], version_id[64], image_id[64], image_version[64];
};

struct dmo_hibernate_location {
        char uuid[37];   /* lower case, with dashes */
        uint64_t offset; /* the swap header's page: 0 for a partition */
        char kernel_version[65];
        struct dmo_os_release os;
};

/* ID, VERSION_ID, IMAGE_ID and IMAGE_VERSION of an os-release file (empty
 * when absent). -ENOENT (or another errno) when it cannot be read. */
int dmo_os_release_read(const char *path, struct dmo_os_release *out);

/* The JSON systemd writes. -ENOBUFS when buf is too small. */
int dmo_hibernate_location_format(const struct dmo_hibernate_location *loc, char *buf, size_t len);

/* Parses it: -EINVAL when it is not JSON, not an object, or lacks a valid
 * uuid or offset. Unknown keys are ignored, as systemd ignores them. */
int dmo_hibernate_location_parse(const char *json, struct dmo_hibernate_location *out);

/* The location was written by this installation (systemd's test: the same
 * ID and IMAGE_ID). */
bool dmo_hibernate_location_is_ours(const struct dmo_hibernate_location *loc,
                                    const struct dmo_os_release *self);

/* A UUID in any case, with or without dashes, in the canonical form;
 * -EINVAL when it is not one. */
int dmo_uuid_normalize(const char *in, char out[37]);

#endif
