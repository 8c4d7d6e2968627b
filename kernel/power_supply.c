/* The power supply class read the way systemd's battery-util.c reads it. */
#include "kernel/power_supply.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/parse.h"
#include "util/small_file.h"

/* The first line of DIR/NAME/FILE without its newline; false when absent
 * or empty. */
static bool read_attr(const char *dir, const char *name, const char *file, char *buf, size_t len)
{
        char path[4096];
        if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, name, file) >= sizeof(path))
                return false;
        if (dmo_read_small_file(path, buf, len) <= 0)
                return false;
        buf[strcspn(buf, "\n")] = '\0';
        return buf[0] != '\0';
}

static void add_supply(const char *dir, const char *name, struct dmo_power_state *s,
                       bool *any_online, bool *any_offline)
{
        char type[64], buf[64];
        if (!read_attr(dir, name, "type", type, sizeof(type)))
                return;
        if (strcmp(type, "Battery") == 0) {
                /* A peripheral's battery (a mouse, a headset) says so. */
                if (read_attr(dir, name, "scope", buf, sizeof(buf)) && strcmp(buf, "Device") == 0)
                        return;
                s->batteries++;
                if (read_attr(dir, name, "status", buf, sizeof(buf)) &&
                    strcmp(buf, "Discharging") == 0)
                        s->discharging++;
                unsigned pct;
                if (read_attr(dir, name, "capacity", buf, sizeof(buf)) &&
                    dmo_parse_unsigned(buf, 0, 100, &pct) == 0 && (int)pct > s->fullest_percent)
                        s->fullest_percent = (int)pct;
                return;
        }
        if (!read_attr(dir, name, "online", buf, sizeof(buf)))
                return;
        if (strcmp(buf, "0") == 0)
                *any_offline = true;
        else
                *any_online = true;
}

int dmo_power_state_read(const char *sysfs_root, struct dmo_power_state *out)
{
        char dir[4096];
        *out = (struct dmo_power_state){.fullest_percent = -1, .on_ac = true};
        if ((size_t)snprintf(dir, sizeof(dir), "%s/class/power_supply", sysfs_root) >= sizeof(dir))
                return -ENAMETOOLONG;
        DIR *d = opendir(dir);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        bool any_online = false, any_offline = false;
        struct dirent *e;
        while ((e = readdir(d)))
                if (e->d_name[0] != '.')
                        add_supply(dir, e->d_name, out, &any_online, &any_offline);
        closedir(d);
        /* systemd: a machine with no mains or USB supply at all counts as on
         * AC unless it runs on a battery that discharges. */
        if (any_online)
                out->on_ac = true;
        else if (any_offline)
                out->on_ac = false;
        else
                out->on_ac = out->batteries == 0 || out->discharging == 0;
        return 0;
}

bool dmo_power_state_battery_low(const struct dmo_power_state *s)
{
        /* One battery above the line is charge enough (a second battery
         * takes over when the first runs out). */
        return !s->on_ac && s->batteries > 0 && s->fullest_percent >= 0 &&
               s->fullest_percent <= DMO_BATTERY_LOW_PERCENT;
}

bool dmo_power_state_charge_known(const struct dmo_power_state *s)
{
        return s->batteries > 0 && s->fullest_percent >= 0;
}
