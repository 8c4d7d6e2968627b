#!/bin/sh
# /init of the VM test initramfs (tests/vm/run.py packs it with busybox, the
# kernel modules, the workload and dormouse).
#
# It plays the scenario named by vmtest= on the kernel command line and talks
# to the host only through lines starting with "VMTEST:" on the serial
# console. Whatever happens it ends with a power-off, so QEMU exits: PID 1
# must never return (that panics, and with panic=-1 -no-reboot QEMU exits too,
# but the host then reports a crash instead of a result).
#
# The rootfs is the initramfs itself (RAM), so everything in it, /tmp
# included, is part of the hibernation image.

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu
# dormouse reports where its time goes (first frame, data phase) on stderr
export DORMOUSE_DEBUG_TIMING=1

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /tmp /run
mount -t tmpfs tmpfs /tmp

say() { echo "VMTEST: $*"; }

finish() {
	say "POWEROFF"
	sync
	poweroff -f
	# poweroff -f does not return; if it ever did, keep PID 1 alive.
	while :; do sleep 10; done
}

arg() {
	# value of NAME= on the kernel command line, or $2
	for w in $(cat /proc/cmdline); do
		case "$w" in "$1="*) echo "${w#*=}"; return ;; esac
	done
	echo "$2"
}

has_word() {
	for w in $(cat /proc/cmdline); do [ "$w" = "$1" ] && return 0; done
	return 1
}

load_modules() {
	# vmskipmod=NAME: leave that module out (loaded later by the scenario)
	skip=$(arg vmskipmod "")
	while read -r m; do
		[ -n "$m" ] || continue
		[ -n "$skip" ] && [ "${m%%.ko*}" = "$skip" ] && continue
		# NAME.PARAM=VALUE on the command line: modprobe hands those to a
		# module, insmod does not (drm.edid_firmware= for the 4k scenario)
		name=${m%%.ko*}
		params=
		for w in $(cat /proc/cmdline); do
			case "$w" in "$name".*=*) params="$params ${w#"$name".}" ;; esac
		done
		insmod "/lib/modules/$m" $params || say "MODULE failed $m"
	done < /modules.order
	# vmnodisk=1: a guest with no disk (nbd: the image goes to the network)
	[ "$(arg vmnodisk 0)" = 1 ] && return 0
	# The disk appears asynchronously after virtio_blk loads.
	i=0
	while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -b /dev/vda ] || say "NO /dev/vda"
}

# vmnet=1: QEMU's user-mode network (the nbd scenarios): eth0 at slirp's
# 10.0.2.15, the NBD server behind its guestfwd at 10.0.2.100.
net_up() {
	[ "$(arg vmnet 0)" = 1 ] || return 0
	i=0
	while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	ip link set lo up
	ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 &&
		ip route add default via 10.0.2.2 || say "NET failed"
	say "NET eth0 $(ip -4 addr show dev eth0 2>&1 | grep -o 'inet [0-9./]*')"
}

# The ten bytes at the end of page 0: SWAPSPACE2 for a plain swap area, the
# kernel's S1SUSPEND, or whatever dormouse writes while an image is stored.
signature() {
	dd if=/dev/vda bs=1 skip=4086 count=10 2>/dev/null | tr -c 'A-Za-z0-9' '.'
}

start_workload() {
	# Both paths save the whole system: the preferred image size is half of
	# RAM (the kernel caps it near there anyway), so that neither frees
	# memory before its snapshot. At the default 2/5 this workload sits
	# near the line, and which path crossed it (the kernel's own with two
	# CPUs, dormouse's before it added its own size) decided the race.
	# vmimagesize=default keeps the kernel's.
	isz=$(arg vmimagesize half)
	if [ "$isz" = half ]; then
		isz=$(($(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo) * 512))
	fi
	[ "$isz" = default ] || echo "$isz" > /sys/power/image_size || say "IMAGESIZE failed"
	# vmnodisk=1: no local swap at all (the image goes to the network)
	if [ "$(arg vmnodisk 0)" != 1 ]; then
		mkswap /dev/vda > /dev/null || say "MKSWAP failed"
		swapon /dev/vda || say "SWAPON failed"
	fi
	DMO_WORKLOAD_MIB=$(arg vmmib 150) /bin/workload &
	WPID=$!
	i=0
	while [ ! -s /tmp/token ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	say "TOKEN $(cat /tmp/token 2>/dev/null)"
	# vmcache=MIB: that much page cache beside the workload's anonymous
	# memory (the memory-pressure scenario): the swap disk's second half
	# read through the page cache, where neither the image nor swapped-out
	# pages go first and nothing reads it back but the kernel's reclaim.
	cache=$(arg vmcache 0)
	if [ "$cache" != 0 ]; then
		dd if=/dev/vda of=/dev/null bs=1M skip=512 count="$cache" 2>/dev/null || say "CACHE short"
		say "MEMUSED $(awk '/^MemTotal:/ {t = $2} /^MemFree:/ {f = $2} /^Cached:/ {c = $2}
			END {printf "%d %% of %d kB, %d kB cached", (t - f) * 100 / t, t, c}' /proc/meminfo)"
	fi
	# let the counter run a little so the host sees it before and after
	sleep 1
	memstat before
}

# What reclaim did around the snapshot: the counters are part of the image,
# so the restored system's minus these are the hibernation's own.
memstat() {
	say "MEMSTAT $1 image_size $(cat /sys/power/image_size) $(grep -E '^(MemFree|Mlocked|Cached):' /proc/meminfo | tr -s ' \n' ' ')$(grep -E '^(pgscan_kswapd|pgscan_direct|pgsteal_kswapd|pgsteal_direct|pswpout|allocstall_dma32|pgfree|kswapd_low_wmark_hit_quickly|kswapd_high_wmark_hit_quickly) ' /proc/vmstat | tr '\n' ' ')"
}

check_workload() {
	memstat after
	rm -f /tmp/workload.verdict
	kill -USR1 "$WPID" 2>/dev/null || touch /tmp/workload.check
	i=0
	while [ ! -s /tmp/workload.verdict ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s /tmp/workload.verdict ] || say "WORKLOAD no verdict (pid $WPID)"
}

after_swap_checks() {
	[ "$(arg vmnodisk 0)" = 1 ] && return 0
	say "SIG $(signature)"
	say "BLKID $(blkid -p /dev/vda 2>&1)"
	# After an abort the area is still the active swap: take it off first,
	# so that swapon really reads the signature on the disk.
	grep -q '^/dev/vda ' /proc/swaps && swapoff /dev/vda
	if swapon /dev/vda; then
		say "SWAPON ok"
		# the size the kernel took the area to have, against the
		# device's own (short-write: the device shrank under it)
		say "SWAPAREA $(awk '$1 == "/dev/vda" {print $3}' /proc/swaps) kB as swap," \
			"device $(($(cat /sys/block/vda/size) / 2)) kB"
		swapoff /dev/vda
	else
		say "SWAPON failed"
	fi
}

dormouse_hibernate() {
	delay=$(arg vmdelay 0)
	# --no-initramfs-check: this initramfs is run.py's own (this script),
	# built without dormouse's hook, so there is no record of it for
	# hibernate to check; dm-resume below passes the device itself.
	# vmresume=nbd://10.0.2.100/swap: the resume device on the network
	set -- hibernate --resume-device "$(arg vmresume /dev/vda)" --no-initramfs-check \
		--splash=$(arg vmsplash kms) --shutdown platform
	[ "$delay" != 0 ] && set -- "$@" --debug-step-delay "$delay"
	# vmextra=--compress,none,--threads,2: more options, commas for spaces
	extra=$(arg vmextra "")
	[ -n "$extra" ] && set -- "$@" $(echo "$extra" | tr ',' ' ')
	# vmkey=PASS: an encrypted image, its passphrase in a private key file
	key=$(arg vmkey "")
	if [ -n "$key" ]; then
		(umask 077 && echo "$key" >/run/dmo.key)
		say "KEYFILE $(stat -c %a /run/dmo.key)"
		set -- "$@" --encrypt passphrase --key-file /run/dmo.key
	fi
	# vmtpm=1: encrypt = tpm, the TPM readied first as its owner would
	# (enroll-tpm: the counter made on the first boot, found on later ones)
	if [ "$(arg vmtpm 0)" = 1 ]; then
		dormouse enroll-tpm >/tmp/enroll.out 2>&1
		say "ENROLL rc=$?"
		while read -r l; do say "ENROLL said: $l"; done </tmp/enroll.out
		set -- "$@" --encrypt tpm
	fi
	# vmswapfirst=MIB: swapped-out pages on the swap area when the
	# hibernation starts. MIB of a tmpfs of its own filled and removed
	# again: the pressure pushes the workload's pages out to the swap area,
	# where they stay until it reads them (its checksum, after the resume).
	hog=$(arg vmswapfirst 0)
	if [ "$hog" != 0 ]; then
		mkdir -p /hog && mount -t tmpfs -o size=$((hog + 64))m hog /hog
		dd if=/dev/zero of=/hog/fill bs=1M count="$hog" 2>/dev/null || say "HOG short"
		rm -f /hog/fill
		umount /hog
		say "SWAPUSED $(awk '/^SwapTotal:/ {t = $2} /^SwapFree:/ {f = $2} END {print t - f}' /proc/meminfo) kB"
	fi
	stdin=$(arg vmstdin /dev/tty1)
	say "DORMOUSE hibernate start: dormouse $* <$stdin"
	# Keys typed on the VM's keyboard (QEMU sendkey) reach the foreground
	# VT, not the serial console: dormouse reads them from its stdin tty.
	dormouse "$@" < "$stdin"
	rc=$?
	# rc 0: we are in the restored system; 5: aborted and thawed.
	say "DORMOUSE hibernate rc=$rc token=$(cat /tmp/token 2>/dev/null)"
	check_workload
	# Aborted (5), refused or failed: nothing hibernated, the swap area
	# must be plain, usable swap again.
	[ $rc != 0 ] && after_swap_checks
}

dormouse_resume() {
	[ "$(arg vmnodisk 0)" = 1 ] || say "SIG $(signature)"
	# vmpcrextend=N: PCR N of the TPM changed before the resume, as a new
	# boot loader or firmware changes it
	pcr=$(arg vmpcrextend "")
	if [ -n "$pcr" ]; then
		TPM2TOOLS_TCTI=device:/dev/tpmrm0 tpm2_pcrextend "$pcr:sha256=$(printf '%064d' 1)"
		say "PCREXTEND $pcr rc=$?"
	fi
	delay=$(arg vmdelay 0)
	set -- resume --resume-device "$(arg vmresume /dev/vda)" --splash=$(arg vmsplash kms)
	[ "$delay" != 0 ] && set -- "$@" --debug-step-delay "$delay"
	# vmkey=PASS: the passphrase of an encrypted image from a key file,
	# nothing typed (the soak's encrypted cycles)
	key=$(arg vmkey "")
	if [ -n "$key" ]; then
		(umask 077 && echo "$key" >/run/dmo.key)
		set -- "$@" --key-file /run/dmo.key
	fi
	say "DORMOUSE resume start: dormouse $*"
	dormouse "$@"
	rc=$?
	# Only reached when nothing was restored.
	say "DORMOUSE resume rc=$rc"
	after_swap_checks
}

# vmtest=dm-soak (issue 27): the workload starts once, then every cycle
# hibernates it with the cycle's mode (vmsoakmodes=, a comma list taken in
# turn: COMPRESSION or COMPRESSION+passphrase) and powers off; the host
# boots the guest again with vmtest=dm-resume, which restores this loop.
# The restored system checks the workload, the swap area (its signature,
# then swapoff and swapon: plain, usable swap) and the kernel's file table,
# and hibernates again. vmcycles= cycles, then it powers off.
soak() {
	cycles=$(arg vmcycles 5)
	modes=$(arg vmsoakmodes lz4)
	nmodes=$(echo "$modes" | tr ',' '\n' | wc -l)
	key=$(arg vmsoakkey soak-passphrase)
	(umask 077 && echo "$key" >/run/dmo.key)
	start_workload
	# Not i: check_workload and start_workload count with it.
	cycle=1
	while [ "$cycle" -le "$cycles" ]; do
		m=$(echo "$modes" | tr ',' '\n' | sed -n "$(((cycle - 1) % nmodes + 1))p")
		set -- hibernate --resume-device /dev/vda --no-initramfs-check --splash=kms \
			--shutdown platform --compress "${m%%+*}"
		[ "${m#*+}" = passphrase ] && set -- "$@" --encrypt passphrase --key-file /run/dmo.key
		say "SOAK cycle $cycle start mode=$m: dormouse $*"
		# DORMOUSE_DEBUG_TIMING: the memory line at the end of the data
		# phase (peak resident), on the serial console before the power-off.
		DORMOUSE_DEBUG_TIMING=1 dormouse "$@" </dev/tty1
		rc=$?
		say "SOAK cycle $cycle rc=$rc token=$(cat /tmp/token 2>/dev/null)"
		[ "$rc" = 0 ] || break
		check_workload
		sig=$(signature)
		swapoff /dev/vda && swapon /dev/vda && usable=yes || usable=no
		say "SOAK cycle $cycle restored sig=$sig swapon=$usable files=$(cut -f1 /proc/sys/fs/file-nr)"
		cycle=$((cycle + 1))
	done
	say "SOAK done cycles=$((cycle - 1))"
}

# dormouse hybrid-sleep or suspend-then-hibernate (vmsleep=): the image
# written then a suspend to RAM, or a suspend that the RTC alarm ends in a
# hibernation (vmdelaysec= is HibernateDelaySec=). There is no systemd here:
# no sleep hooks, no sleep.conf (systemd's defaults).
dormouse_sleep() {
	mode=$1
	set -- "$mode" --sleep-hooks none
	delay=$(arg vmdelaysec "")
	[ -n "$delay" ] && set -- "$@" --hibernate-delay "$delay"
	# --no-initramfs-check: as for dm-hibernate, this initramfs has no record.
	set -- "$@" -- --resume-device /dev/vda --no-initramfs-check --splash=$(arg vmsplash kms)
	say "DORMOUSE $mode start: dormouse $*"
	dormouse "$@" </dev/tty1
	rc=$?
	# rc 0: woken (the image discarded), or restored from the image.
	say "DORMOUSE $mode rc=$rc token=$(cat /tmp/token 2>/dev/null)"
	check_workload
	say "SIG $(signature)"
}

# No resume device named anywhere (vmtest=dm-hibernate-auto, dm-resume-auto,
# efivar-check; OVMF with persistent variables): dormouse writes and reads
# systemd's HibernateLocation. efivarfs is mounted as systemd mounts it,
# and /dev/disk/by-uuid made from blkid as udev would (no udev here).
efi_setup() {
	if [ -d /sys/firmware/efi/efivars ]; then
		mount -t efivarfs efivarfs /sys/firmware/efi/efivars || say "EFIVARFS mount failed"
	else
		say "EFI no (not booted through EFI)"
	fi
	uuid=$(blkid -p -s UUID -o value /dev/vda 2>/dev/null)
	if [ -n "$uuid" ]; then
		mkdir -p /dev/disk/by-uuid && ln -sf ../../vda "/dev/disk/by-uuid/$uuid"
	fi
	say "EFIVAR $(ls /sys/firmware/efi/efivars/HibernateLocation-* 2>/dev/null | wc -l)"
}

# Debian's plymouthd shows its splash (the theme in /etc/plymouth/plymouthd.conf,
# a two-step one), then lets go of the screen for dormouse, as the initramfs
# script does (data/initramfs-tools/scripts/local-premount/dormouse). No udev
# here: plymouth.ignore-udev on the command line makes it open card0 itself.
plymouth_resume() {
	say "SIG $(signature)"
	mkdir -p /run/plymouth /var/log /dev/pts
	mount -t devpts devpts /dev/pts 2>/dev/null
	# No --attach-to-session: the console (the serial line) stays the test's.
	plymouthd --mode=boot --pid-file=/run/plymouth/pid ||
		say "PLYMOUTHD failed"
	plymouth show-splash
	i=0
	while ! plymouth --ping && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	say "PLYMOUTH started"
	# Long enough for the host to see Plymouth's picture settle.
	sleep 3
	plymouth deactivate
	say "DORMOUSE resume start: dormouse resume --theme plymouth"
	dormouse resume --resume-device /dev/vda --splash=kms --theme plymouth
	rc=$?
	# Only reached when nothing was restored: Plymouth gets the screen back.
	say "DORMOUSE resume rc=$rc"
	plymouth reactivate
	say "PLYMOUTH reactivated"
	sleep 3
	plymouth quit
	say "PLYMOUTH quit"
}

kernel_hibernate() {
	echo shutdown > /sys/power/disk
	say "HIBERNATE start"
	echo disk > /sys/power/state
	rc=$?
	# Either the write failed, or this runs in the restored system.
	say "RESUMED rc=$rc token=$(cat /tmp/token 2>/dev/null)"
	check_workload
}

kernel_resume() {
	say "SIG $(signature)"
	dev=$(cat /sys/block/vda/dev)
	say "RESUME try $dev"
	# Writing the device number runs software_resume() at once; it only
	# returns when there is nothing (valid) to resume.
	echo "$dev" > /sys/power/resume
	say "RESUME failed rc=$?"
}

# vmspeed=MIB: what the limits of tests/vm/run.py's phase table are made of,
# measured before anything else runs: the swap disk's raw write and read
# speed (O_DIRECT, MIB MiB at its start, which mkswap and the image overwrite
# later) and the kernel's copy speed (MIB MiB of tmpfs read back). Busybox's
# dd prints no speed: /proc/uptime times it (10 ms steps).
uptime_s() { cut -d' ' -f1 /proc/uptime; }
timed_dd() {
	what=$1
	shift
	t0=$(uptime_s)
	dd "$@" 2>/dev/null || { say "SPEED $what failed"; return; }
	t1=$(uptime_s)
	say "SPEED $what $((mib * 1048576)) bytes $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s"
}
measure_speed() {
	mib=$(arg vmspeed 0)
	[ "$mib" != 0 ] || return 0
	timed_dd disk-write if=/dev/zero of=/dev/vda bs=1M count="$mib" oflag=direct conv=fsync
	timed_dd disk-read if=/dev/vda of=/dev/null bs=1M count="$mib" iflag=direct
	dd if=/dev/zero of=/tmp/speed bs=1M count="$mib" 2>/dev/null
	timed_dd memcpy if=/tmp/speed of=/dev/null bs=1M
	rm -f /tmp/speed
}

# vmdrm=1: the display card's driver and each connector's status and
# preferred mode (the GPU scenarios: virtio-gpu, two heads, 4K)
drm_report() {
	[ "$(arg vmdrm 0)" = 1 ] || return 0
	i=0
	while [ ! -e /dev/dri/card0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	drv=$(readlink /sys/class/drm/card0/device/driver 2>/dev/null)
	# a virtio card: the PCI function's driver is virtio-pci, the GPU's
	# is on its virtio device
	for v in /sys/class/drm/card0/device/virtio*/driver; do
		[ -e "$v" ] && drv=$(readlink "$v")
	done
	heads=
	for c in /sys/class/drm/card0-*; do
		[ -e "$c/status" ] || continue
		heads="$heads ${c##*/card0-}=$(cat "$c/status"):$(head -n 1 "$c/modes" 2>/dev/null)"
	done
	say "DRM driver=${drv##*/} connectors:$heads"
}

mode=$(arg vmtest probe)
say "INIT mode=$mode kernel=$(uname -r)"
load_modules
drm_report
measure_speed

case "$mode" in
probe)
	say "PROBE state=$(cat /sys/power/state) disk=$(cat /sys/power/disk)"
	say "PROBE devices $(ls /dev/dri/card0 /dev/fb0 /dev/snapshot /dev/vda /dev/input/event* 2>&1 | tr '\n' ' ')"
	say "PROBE lockdown=$(cat /sys/kernel/security/lockdown 2>/dev/null)"
	say "PROBE ok"
	;;
kb-hibernate)
	start_workload
	kernel_hibernate
	;;
kb-resume)
	kernel_resume
	;;
dm-hibernate)
	net_up
	start_workload
	dormouse_hibernate
	;;
dm-resume)
	net_up
	dormouse_resume
	;;
dm-soak)
	soak
	;;
dm-hibernate-auto)
	start_workload
	efi_setup
	say "DORMOUSE hibernate start: dormouse hibernate (no resume device named)"
	dormouse hibernate --splash=kms --shutdown platform --no-initramfs-check </dev/tty1
	rc=$?
	say "DORMOUSE hibernate rc=$rc token=$(cat /tmp/token 2>/dev/null)"
	check_workload
	;;
dm-resume-auto)
	efi_setup
	say "DORMOUSE resume start: dormouse resume (no resume device named)"
	dormouse resume --splash=kms
	say "DORMOUSE resume rc=$?"
	after_swap_checks
	;;
efivar-check)
	efi_setup
	;;
dm-hybrid-sleep)
	start_workload
	dormouse_sleep hybrid-sleep
	;;
dm-suspend-then-hibernate)
	start_workload
	dormouse_sleep suspend-then-hibernate
	;;
plymouth-resume)
	plymouth_resume
	;;
fbdev-splash)
	# The framebuffer output; the console is switched to graphics mode by
	# dormouse, so fbcon does not draw over the splash.
	mkswap /dev/vda >/dev/null
	say "FBDEV start"
	dormouse hibernate --kernel sim --sim-size 64M --resume-device /dev/vda --splash fbdev \
		--debug-step-delay 30 </dev/tty1 >/dev/null
	say "FBDEV rc=$?"
	;;
handover)
	# UEFI firmware: the screen starts as efifb's /dev/fb0, and bochs-drm
	# (left out above) takes the hardware over while the resume splash is
	# up, as a distribution's GPU driver does in the initramfs. dormouse
	# runs the simulated kernel: its splash, nothing restored for real.
	mkswap /dev/vda >/dev/null
	dormouse hibernate --kernel sim --sim-size 64M --resume-device /dev/vda --splash none \
		>/dev/null 2>&1
	say "HANDOVER devices $(ls /dev/fb0 /dev/dri/card0 2>&1 | tr '\n' ' ')"
	bochs=$(grep '^bochs\.ko' /modules.order)
	(
		sleep "$(arg vmhandover 8)"
		say "HANDOVER loading bochs"
		insmod "/lib/modules/$bochs" || say "MODULE failed $bochs"
		say "HANDOVER loaded $(ls /dev/fb0 /dev/dri/card0 2>&1 | tr '\n' ' ')"
	) &
	say "HANDOVER start"
	dormouse resume --kernel sim --resume-device /dev/vda --debug-step-delay 150 \
		</dev/tty1 2>/tmp/handover.err >/dev/null
	say "HANDOVER rc=$?"
	while read -r l; do say "HANDOVER said: $l"; done </tmp/handover.err
	wait
	;;
io-levers)
	# What writing the image costs the CPU: O_DIRECT writes of 192 MiB in
	# requests of several sizes, one or more in flight, with and without
	# busy threads standing in for the codec (one per CPU).
	cpus=$(nproc)
	for req in 256 1024 4096; do
		for writers in 1 2 4; do
			for burners in 0 "$cpus"; do
				iobench /dev/vda 192 "$req" "$writers" "$burners" "r${req}w${writers}b${burners}" |
					while read -r l; do say "$l"; done
			done
		done
	done
	# The engine's own writes, outside a hibernation (the simulated kernel).
	mkswap /dev/vda >/dev/null
	DORMOUSE_DEBUG_TIMING=1 dormouse hibernate --kernel sim --sim-size 256M --resume-device /dev/vda \
		--splash none 2>&1 >/dev/null | grep 'data phase' | while read -r l; do say "IOBENCH sim: $l"; done
	say "IOLEVERS done"
	;;
first-frame)
	# The screen is the bochs card's; each program shows one frame. dormouse
	# runs the simulated kernel here: its splash comes up, nothing hibernates.
	# kmsfirst-dyn is the same program through the dynamic loader; the
	# loadprobes only reach main (static, libc+libdrm, dormouse's libraries).
	mkswap /dev/vda >/dev/null
	# The dynamic loader's own count (cycles of the guest's TSC; dmesg names its MHz).
	st=$(LD_DEBUG=statistics dormouse --version 2>&1 >/dev/null |
		grep -E 'total startup|number of rel|load objects' | tr -s ' \t' ' ' | tr '\n' ';')
	say "LDSTAT dormouse $st"
	for i in $(seq "$(arg vmffruns 5)"); do
		for p in static drm dormouse; do
			"loadprobe-$p" "$p"
			sleep 0.3
		done
		kmsfirst /dev/dri/card0
		sleep 1
		kmsfirst-dyn /dev/dri/card0
		sleep 1
		dormouse hibernate --kernel sim --sim-size 16M --resume-device /dev/vda --splash kms >/dev/null
		sleep 1
	done
	say "FIRSTFRAME done"
	;;
ff-instr)
	# Instructions from execve to each frame on the screen, the dynamic
	# loader included: callgrind writes a part after every return from the
	# libdrm call that puts a frame up (kmsfirst: its one SetCrtc; dormouse:
	# the backdrop's SetCrtc, then the complete frame's flip or SetCrtc).
	# Each part's total is its own stretch; the host adds them up.
	mkswap /dev/vda >/dev/null
	for p in kmsfirst kmsfirst-dyn dormouse; do
		set -- "$p" /dev/dri/card0
		[ "$p" = dormouse ] && set -- dormouse hibernate --kernel sim --sim-size 16M \
			--resume-device /dev/vda --splash kms
		valgrind --tool=callgrind --callgrind-out-file="/tmp/cg-$p" \
			--dump-after=drmModeSetCrtc --dump-after=drmModePageFlip \
			"$@" >/dev/null 2>"/tmp/vg-$p.err"
		rc=$?
		parts=""
		n=1
		while [ -f "/tmp/cg-$p.$n" ]; do
			# N:CALL, CALL the libdrm function after which the part ended
			parts="$parts $(sed -n 's/^totals: *//p' "/tmp/cg-$p.$n"):$(sed -n \
				's/^desc: Trigger: --dump-after=drmMode//p' "/tmp/cg-$p.$n")"
			n=$((n + 1))
		done
		say "IR $p rc=$rc parts:$parts"
		[ "$p" = dormouse ] && grep -E 'timing: first' "/tmp/vg-$p.err"
		[ "$rc" = 0 ] || tail -n 5 "/tmp/vg-$p.err"
		rm -f /tmp/cg-"$p"*
	done
	say "FFINSTR done"
	;;
*)
	say "UNKNOWN mode $mode"
	;;
esac
finish
