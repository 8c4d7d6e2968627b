/* network: the resume device when it is an NBD export (nbd://HOST[:PORT]/
 * EXPORT, kernel/nbd_url.h). The URL is read here and refused in words that
 * name the key it came from; the export is connected through
 * kernel/nbd_client.h before anything else happens (hibernate: before the
 * freeze; resume: before the image is looked for), and from then on the
 * image code sees /dev/nbdN as it sees a disk.
 *
 * Policy kept here:
 * - An image on the network is encrypted unless the person said otherwise:
 *   hibernate with encrypt = none refuses, before connecting, unless
 *   "network plain = yes" is set, and then warns.
 * - Hibernate connects once; resume waits for the network and the server
 *   within "resume timeout" (default DMO_CLI_NETWORK_WAIT_MS), then says
 *   why and lets the boot go on: the image stays on the server.
 * - Hibernate enables the device as swap (the kernel writes an image only
 *   to an active swap area); resume never does (swapon rewrites a
 *   hibernation signature).
 * - The simulated kernel (--kernel sim) never touches the real nbd-client:
 *   it runs the stand-ins of DORMOUSE_DEBUG_NBD_ROOT (nbd-client, modprobe,
 *   swapon and swapoff there, dev/ and sys/ beside them), and refuses
 *   nbd:// without it.
 *
 * Contract: the edge; prints its errors and notes (dmo_cli_error/note), and
 * leaves the failure's sentence in why. Owns the link it makes until
 * dmo_cli_network_release().
 */
#ifndef DMO_CLI_NETWORK_H
#define DMO_CLI_NETWORK_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/cmdline.h"
#include "kernel/nbd_client.h"
#include "kernel/nbd_url.h"

struct dmo_cli_common;
struct dmo_nbd_link;

#define DMO_CLI_NETWORK_WAIT_MS 30000

struct dmo_cli_network {
        /* in */
        bool hibernate; /* connect for writing an image (swap on, encryption policy) */
        bool plain;     /* hibernate: the image would not be encrypted */
        /* resume: read the URL now, connect later (dmo_cli_network_connect),
         * once the splash can show whom it waits for */
        bool defer;
        /* out */
        bool pending;                  /* deferred: read, not connected yet */
        struct dmo_nbd_link *link;     /* NULL: the device is not a network one */
        char url[DMO_RESUME_SPEC_MAX]; /* as given */
        char server[300];              /* HOST[:PORT], for people */
        char export_name[256];
        char stand_ins[6][512]; /* --kernel sim: the programs' and roots' paths the link borrows */
        struct dmo_nbd_url parsed;
        struct dmo_nbd_env env; /* its strings: static, or stand_ins */
};

/* spec came from key (a phrase naming it: "--resume-device", "\"resume
 * device\" in /etc/dormouse.conf", "dormouse.resume= on the kernel command
 * line"). Connects (unless n->defer: then n->pending) and puts /dev/nbdN
 * into path. 0; -EINVAL (a bad URL, refused policy: said); -ENODATA when
 * resuming and the export could not be reached (said: no image, the boot
 * goes on); -EIO when hibernating and it could not be reached (said). */
int dmo_cli_network_attach(const struct dmo_cli_common *c, const char *spec, const char *key,
                           struct dmo_cli_network *n, char *path, size_t path_len, char *why,
                           size_t why_len);
/* The deferred connection of a pending network: as above. */
int dmo_cli_network_connect(const struct dmo_cli_common *c, struct dmo_cli_network *n, char *path,
                            size_t path_len, char *why, size_t why_len);

/* Disconnects (when asked: wherever the system goes on) and frees the
 * link. A failed disconnect is said as a note. Safe on a network with no
 * link. */
void dmo_cli_network_release(struct dmo_cli_network *n, bool disconnect);

#endif
