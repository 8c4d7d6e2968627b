/* nbd_client: an NBD export made a local block device, /dev/nbdN, through
 * the kernel's NBD client, so that the image code cannot tell it from a
 * disk.
 *
 * How: Debian's nbd-client tool (package nbd-client) in its netlink mode,
 * the default since nbd-client 3.17. In netlink mode nbd-client negotiates
 * with the server, hands the socket to the kernel and exits: from then on
 * the kernel alone carries the requests. That is what a hibernation needs.
 * In the older ioctl mode (-nonetlink) an nbd-client process stays in
 * NBD_DO_IT for as long as the device is connected; the freezer would stop
 * it with every other process, and an image written after the freeze
 * would depend on a frozen process. dormouse therefore never passes
 * -nonetlink, -persist (a reconnecting daemon, ioctl mode only) or the TLS
 * options (their proxy is a user-space process too).
 *
 * What the kernel needs besides: the nbd module (loaded with modprobe when
 * no nbd device exists yet), and a NIC whose driver comes back with the
 * link up from the freeze and thaw around the snapshot (the kernel
 * quiesces devices for the snapshot and thaws them before the image is
 * handed to dormouse; virtio-net does, a driver that renegotiates the link
 * takes a few seconds, which the timeout below covers). A DHCP client is a
 * process and is frozen with the rest, so no renewal happens mid-write;
 * an address it gave a kernel lifetime to (systemd-networkd does) goes
 * when the lease ends, so the lease must outlast the writing (minutes).
 * Requests the server does not answer fail after io_timeout_s
 * (nbd-client -timeout) instead of hanging the hibernation: the engine
 * then thaws and says why.
 *
 * The kernel's hibernation writes only to an active swap area: a link
 * made with swap set enables the device as swap (swapon(8) without a
 * priority: the kernel puts it below the areas already active) after
 * connecting, and disables it (swapoff(8)) before
 * disconnecting. The export must hold a swap area (mkswap once).
 *
 * Contract:
 * - Runs programs only through env->run (injectable: unit tests use stub
 *   scripts); the default runner forks and executes, with a deadline.
 * - Reads <sys_root>/block/nbdN/{pid,size} to find a free device and to
 *   check a connection; writes nothing itself. No global state; never
 *   prints (the programs' own stderr is left to them, their stdout goes to
 *   stderr).
 * - Allocates only in dmo_nbd_connect(); disconnecting does not allocate,
 *   but runs programs: only where the system goes on (never after the
 *   snapshot while frozen).
 * - dmo_nbd_link_free() never disconnects: after a successful hibernation
 *   the device must stay as it is.
 */
#ifndef DMO_KERNEL_NBD_CLIENT_H
#define DMO_KERNEL_NBD_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

struct dmo_nbd_url;
struct dmo_nbd_link;

/* Runs argv (argv[0] a path, or a name looked up in PATH) and waits at
 * most timeout_ms for it. Returns its exit status (0 to 255), 128 + signal
 * when killed by one, -ETIMEDOUT after killing it at the deadline, or a
 * negative errno when it could not be started (-ENOENT: no such program). */
typedef int (*dmo_nbd_run_fn)(void *ctx, char *const argv[], unsigned timeout_ms);

/* The default runner: posix_spawnp, the child's stdout onto stderr. */
int dmo_nbd_run_program(void *ctx, char *const argv[], unsigned timeout_ms);

struct dmo_nbd_env {
        const char *client;           /* "nbd-client", or a path */
        const char *modprobe;         /* "modprobe"; NULL: never loads the module */
        const char *swapon, *swapoff; /* "swapon", "swapoff" */
        const char *dev_root;         /* "/dev" */
        const char *sys_root;         /* "/sys" */
        unsigned io_timeout_s;        /* nbd-client -timeout; 0: nbd-client's default */
        unsigned run_timeout_ms;      /* each program's deadline */
        bool swap;                    /* enable the device as swap after connecting */
        dmo_nbd_run_fn run;           /* NULL: dmo_nbd_run_program */
        void *run_ctx;
};

/* The values a real system uses (above); swap on. */
void dmo_nbd_env_default(struct dmo_nbd_env *env);

/* The first free nbdN (no pid file, size 0) under <sys_root>/block, in
 * index order; -ENODEV when there is no nbd device at all, -EBUSY when
 * every one is in use. */
int dmo_nbd_find_free(const struct dmo_nbd_env *env, unsigned *index);

/* Finds a free device (loading the module first if there is none),
 * connects it to url's export and checks that it has a size; with
 * env->swap, enables it as swap. The link keeps a copy of *env whose
 * strings it borrows: they must outlive it. *status gets the failing
 * program's exit status (or -1). Errors: -ENODEV (no nbd support),
 * -EBUSY (every device in use), -ECONNREFUSED (nbd-client failed: no
 * server, no such export, no network), -ETIMEDOUT (a program ran past its
 * deadline), the runner's errno when nbd-client could not be started
 * (-ENOENT: not installed), -EIO (nbd-client said yes but the device has
 * no size), -ENOEXEC (swapon failed: the export holds no swap area); on
 * every error nothing stays connected. */
int dmo_nbd_connect(const struct dmo_nbd_env *env, const struct dmo_nbd_url *url,
                    struct dmo_nbd_link **out, int *status);

/* dmo_nbd_connect, tried again every retry_ms while nbd-client fails
 * (-ECONNREFUSED: the network or the server is not up yet) or runs past
 * its deadline, until timeout_ms have passed; each try may take what is
 * left. The last try's error and status then, unless the bound cut that
 * try short (-ETIMEDOUT with less than its own deadline): an earlier try's
 * answer says more. Other errors at once. */
int dmo_nbd_connect_wait(const struct dmo_nbd_env *env, const struct dmo_nbd_url *url,
                         unsigned timeout_ms, unsigned retry_ms, struct dmo_nbd_link **out,
                         int *status);

/* "/dev/nbdN" (under env->dev_root). */
const char *dmo_nbd_link_device(const struct dmo_nbd_link *l);

/* swapoff (if the link enabled swap), then nbd-client -d. Both are tried;
 * the first error is returned (-EIO: a program failed). Idempotent. */
int dmo_nbd_disconnect(struct dmo_nbd_link *l);

void dmo_nbd_link_free(struct dmo_nbd_link *l);

#endif
