/* power_supply: what the machine runs on, from the kernel's power supply
 * class (/sys/class/power_supply): its system batteries, how full they are,
 * whether they discharge, and whether a mains or USB supply is online.
 * suspend-then-hibernate decides with it when to hibernate.
 *
 * The rules are systemd's (battery-util.c), so that dormouse hibernates
 * when systemd-sleep would: a battery is a supply of type "Battery" whose
 * scope is not "Device" (a mouse's battery does not count); the machine is
 * on AC when a supply of another type is online, or when it has no supply
 * at all; the battery is low when the machine is not on AC and every
 * system battery that tells its capacity is at DMO_BATTERY_LOW_PERCENT or
 * below.
 *
 * Contract: reads the files under the root it is given; no allocation
 * survives the call, no logging.
 */
#ifndef DMO_KERNEL_POWER_SUPPLY_H
#define DMO_KERNEL_POWER_SUPPLY_H

#include <stdbool.h>

/* systemd's BATTERY_LOW_CAPACITY_LEVEL. */
#define DMO_BATTERY_LOW_PERCENT 5

struct dmo_power_state {
        unsigned batteries;   /* system batteries found */
        unsigned discharging; /* of them, how many say "Discharging" */
        int fullest_percent;  /* the fullest battery's capacity; -1: none told */
        bool on_ac;           /* a non-battery supply is online, or there is no supply */
};

/* Reads SYSFS_ROOT/class/power_supply (sysfs_root is "/sys" on a running
 * system). A machine without that directory has no supply: on AC, no
 * battery. Returns 0, or a negative errno when the directory exists but
 * cannot be read. */
int dmo_power_state_read(const char *sysfs_root, struct dmo_power_state *out);

/* The battery is low: see the rule above. */
bool dmo_power_state_battery_low(const struct dmo_power_state *s);

/* A system battery tells its charge (a battery whose firmware reports no
 * capacity, or none at all, gives nothing to decide by: systemd's
 * fetch_batteries_capacity_by_name skips it, and so the timer decides). */
bool dmo_power_state_charge_known(const struct dmo_power_state *s);

#endif
