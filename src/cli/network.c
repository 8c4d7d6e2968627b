/* The resume device as an NBD export (network.h). */
#include "cli/network.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kernel/nbd_client.h"
#include "kernel/nbd_url.h"
#include "util/i18n.h"

static const char example[] = "nbd://server.lab/swap-pc12";

static int say(char *why, size_t len, int r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int say(char *why, size_t len, int r, const char *fmt, ...)
{
        char text[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(text, sizeof(text), fmt, ap);
        va_end(ap);
        dmo_cli_error("%s", text);
        if (why && len)
                snprintf(why, len, "%s", text);
        return r;
}

static const char *url_problem(enum dmo_nbd_url_error e)
{
        switch (e) {
        case DMO_NBD_URL_TLS:
                return _("TLS (nbds://) is not supported: the kernel's NBD client carries plain "
                         "TCP; encrypt the image instead (\"encrypt\")");
        case DMO_NBD_URL_UNIX:
                return _("a Unix socket (nbd+unix://) cannot carry a resume device: the server "
                         "must be on another machine");
        case DMO_NBD_URL_NO_HOST:
                return _("the server is missing");
        case DMO_NBD_URL_BAD_HOST:
                return _("the server is not a host name, an IPv4 address or an IPv6 address in "
                         "brackets ([2001:db8::7])");
        case DMO_NBD_URL_USERINFO:
                return _("a user name (user@) is not part of an NBD address");
        case DMO_NBD_URL_BAD_PORT:
                return _("the port is not a number from 1 to 65535");
        case DMO_NBD_URL_BAD_EXPORT:
                return _("the export name has a space, a quote, a backslash, a control character "
                         "or a bad percent-escape");
        case DMO_NBD_URL_LONG_EXPORT:
                return _("the export name is longer than 255 bytes");
        case DMO_NBD_URL_QUERY:
                return _("queries (?...) and fragments (#...) are not supported");
        case DMO_NBD_URL_NOT_NBD:
        case DMO_NBD_URL_OK:
                break;
        }
        return _("it does not start with nbd://");
}

/* The stand-ins of DORMOUSE_DEBUG_NBD_ROOT for the simulated kernel. */
static int sim_env(struct dmo_nbd_env *env, char paths[6][512])
{
        const char *root = getenv("DORMOUSE_DEBUG_NBD_ROOT");
        if (!root || !*root)
                return -ENOENT;
        static const char *const names[6] = {"nbd-client", "modprobe", "swapon",
                                             "swapoff",    "dev",      "sys"};
        for (int i = 0; i < 6; i++)
                snprintf(paths[i], 512, "%s/%s", root, names[i]);
        env->client = paths[0];
        env->modprobe = paths[1];
        env->swapon = paths[2];
        env->swapoff = paths[3];
        env->dev_root = paths[4];
        env->sys_root = paths[5];
        return 0;
}

static int connect_failed(const struct dmo_nbd_url *u, struct dmo_cli_network *n, int r, int status,
                          char *why, size_t why_len)
{
        /* Resume: no image to be had; the boot goes on. */
        int ret = n->hibernate ? -EIO : -ENODATA;
        const char *after = n->hibernate ? _("nothing was hibernated")
                                         : _("booting without resuming; the image, if any, stays "
                                             "on the server for the next boot");
        switch (r) {
        case -ENODEV:
                return say(why, why_len, ret,
                           _("cannot reach %s: this kernel has no NBD client (the nbd module): "
                             "install a kernel with it, or put the module in the initramfs; %s"),
                           n->url, after);
        case -EBUSY:
                return say(why, why_len, ret,
                           _("cannot reach %s: every /dev/nbd device is in use; disconnect one "
                             "(nbd-client -d /dev/nbdN) or load nbd with more (nbds_max=); %s"),
                           n->url, after);
        case -ENOENT:
                return say(why, why_len, ret,
                           _("cannot reach %s: nbd-client is not installed (apt install "
                             "nbd-client; for the initramfs, then update-initramfs -u); %s"),
                           n->url, after);
        case -ETIMEDOUT:
                return say(why, why_len, ret,
                           _("no answer from the NBD server %s in time (export \"%s\"): check the "
                             "network and that the server runs; %s"),
                           n->server, n->export_name, after);
        case -EIO:
                return say(why, why_len, ret,
                           _("the export \"%s\" of %s connected with no size: check the "
                             "server's export; %s"),
                           n->export_name, n->server, after);
        case -ENOEXEC:
                return say(why, why_len, ret,
                           _("the export \"%s\" of %s could not be enabled as swap (swapon "
                             "status %d): it must hold a swap area. Make one once: nbd-client %s "
                             "%u /dev/nbd0 -N \"%s\" && mkswap /dev/nbd0 && nbd-client -d "
                             "/dev/nbd0; %s"),
                           n->export_name, n->server, status, u->host, (unsigned)u->port,
                           n->export_name, after);
        case -ECONNREFUSED:
                return say(why, why_len, ret,
                           _("cannot connect to the export \"%s\" of the NBD server %s "
                             "(nbd-client status %d): check the network, that the server runs "
                             "and that it exports that name; %s"),
                           n->export_name, n->server, status, after);
        default:
                return say(why, why_len, ret, _("cannot reach %s: %s; %s"), n->url, strerror(-r),
                           after);
        }
}

int dmo_cli_network_attach(const struct dmo_cli_common *c, const char *spec, const char *key,
                           struct dmo_cli_network *n, char *path, size_t path_len, char *why,
                           size_t why_len)
{
        struct dmo_nbd_url u;
        enum dmo_nbd_url_error e;
        n->link = NULL;
        snprintf(n->url, sizeof(n->url), "%s", spec);
        if (dmo_nbd_url_parse(spec, &u, &e) < 0)
                return say(why, why_len, -EINVAL,
                           _("%s: \"%s\" is not a network device dormouse can use: %s. Write "
                             "nbd://HOST[:PORT]/EXPORT, for example %s"),
                           key, spec, url_problem(e), example);
        dmo_nbd_url_server(&u, n->server, sizeof(n->server));
        snprintf(n->export_name, sizeof(n->export_name), "%s", u.export_name);

        if (n->hibernate && n->plain) {
                if (!c->config.network_plain)
                        return say(why, why_len, -EINVAL,
                                   _("the image would go over the network to %s unencrypted "
                                     "(encrypt = none): the network and the server would see "
                                     "this machine's memory, passwords and keys included. Set "
                                     "\"encrypt = pubkey\" (or tpm, passphrase) in %s, or "
                                     "\"network plain = yes\" to accept a plain image on the "
                                     "network"),
                                   n->server, c->config_path);
                dmo_cli_note(_("the image goes over the network to %s unencrypted (\"network "
                               "plain = yes\"): the network and the server see this machine's "
                               "memory"),
                             n->server);
        }

        n->parsed = u;
        dmo_nbd_env_default(&n->env);
        if (c->simulated && sim_env(&n->env, n->stand_ins) < 0)
                return say(why, why_len, -EINVAL,
                           _("%s: the simulated kernel reaches an NBD export only through "
                             "stand-ins (DORMOUSE_DEBUG_NBD_ROOT)"),
                           key);
        if (n->defer) {
                n->pending = true;
                return 0;
        }
        return dmo_cli_network_connect(c, n, path, path_len, why, why_len);
}

int dmo_cli_network_connect(const struct dmo_cli_common *c, struct dmo_cli_network *n, char *path,
                            size_t path_len, char *why, size_t why_len)
{
        const struct dmo_nbd_url u = n->parsed;
        struct dmo_nbd_env env = n->env;
        n->pending = false;
        env.swap = n->hibernate;
        int status = -1, r;
        if (n->hibernate) {
                r = dmo_nbd_connect(&env, &u, &n->link, &status);
        } else {
                int timeout = c->config.resume_timeout_ms >= 0 ? c->config.resume_timeout_ms
                                                               : DMO_CLI_NETWORK_WAIT_MS;
                r = dmo_nbd_connect_wait(&env, &u, (unsigned)timeout, 500, &n->link, &status);
        }
        if (r < 0)
                return connect_failed(&u, n, r, status, why, why_len);
        snprintf(path, path_len, "%s", dmo_nbd_link_device(n->link));
        return 0;
}

void dmo_cli_network_release(struct dmo_cli_network *n, bool disconnect)
{
        if (!n->link)
                return;
        if (disconnect && dmo_nbd_disconnect(n->link) < 0)
                dmo_cli_note(_("%s could not be disconnected cleanly from %s; run swapoff %s and "
                               "nbd-client -d %s"),
                             dmo_nbd_link_device(n->link), n->server, dmo_nbd_link_device(n->link),
                             dmo_nbd_link_device(n->link));
        dmo_nbd_link_free(n->link);
        n->link = NULL;
}
