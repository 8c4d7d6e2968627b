#!/bin/sh
# The initramfs side, run for real: the initramfs-tools premount script and
# the dracut hook in a busybox chroot with a stand-in dormouse that records
# how it was called and exits with a chosen status; the initramfs-tools
# hook against stand-ins for hook-functions. TAP output. Needs root (chroot)
# and a static busybox; skipped without them.
set -u

srcdir=${DMO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}

. "${DMO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/tap.sh"

busybox=$(command -v busybox 2>/dev/null || true)
chroot=$(command -v chroot 2>/dev/null || true)
if [ "$(id -u)" != 0 ] || [ -z "$busybox" ] || [ -z "$chroot" ]; then
	echo "1..0 # SKIP needs root, chroot and a static busybox (busybox-static)"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/data-initramfs.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

# --- a tiny initramfs ----------------------------------------------------------
root="$tmp/root"
mkdir -p "$root/bin" "$root/scripts" "$root/conf/conf.d" "$root/etc" "$root/proc" "$root/tmp" \
	"$root/lib" "$root/dev"
mknod -m 666 "$root/dev/null" c 1 3 || exit 99
cp "$busybox" "$root/bin/busybox"
# Only a static busybox runs alone in the chroot.
if ! "$chroot" "$root" /bin/busybox --install -s /bin 2>/dev/null; then
	echo "1..0 # SKIP $busybox does not run in an empty chroot (install busybox-static)"
	exit 0
fi
# The scripts restart the machine for an image of another kernel: busybox's
# reboot -f would restart this one. Every way down is replaced by a fake
# that only says it was called.
for cmd in reboot poweroff halt; do
	rm -f "$root/bin/$cmd"
	printf '#!/bin/sh\necho "%s $*" >>/tmp/log\nexit 1\n' "$cmd" >"$root/bin/$cmd"
	chmod +x "$root/bin/$cmd"
done
cat >"$root/scripts/functions" <<'SH'
log_warning_msg() { echo "W: $*" >>/tmp/log; }
log_begin_msg() { echo "B: $*" >>/tmp/log; }
log_end_msg() { :; }
panic() { echo "PANIC: $*" >>/tmp/log; exit 1; }
configure_networking() { echo "configure_networking IP=${IP:-}" >>/tmp/log; : >/tmp/net-up; }
SH
cat >"$root/lib/dracut-lib.sh" <<'SH'
warn() { echo "W: $*" >>/tmp/log; }
getargbool() { return 1; }
emergency_shell() { echo "EMERGENCY: $*" >>/tmp/log; exit 1; }
SH
cat >"$root/dormouse.fake" <<'SH'
#!/bin/sh
{
	echo "args:$*"
	echo "LANG=${LANG:-} LANGUAGE=${LANGUAGE:-}"
	echo "THEMES=${DORMOUSE_THEMES_DIR:-} FONTS=${DORMOUSE_FONTS_DIR:-}"
	if [ -e /tmp/net-up ]; then echo "network=up"; else echo "network=down"; fi
} >/tmp/calls
exit "$(cat /tmp/rc)"
SH
chmod +x "$root/dormouse.fake"
cat >"$root/plymouth.fake" <<'SH'
#!/bin/sh
echo "plymouth $*" >>/tmp/plymouth
exit 0
SH
chmod +x "$root/plymouth.fake"
cp "$srcdir/data/initramfs-tools/scripts/local-premount/dormouse" "$root/premount"
cp "$srcdir/data/dracut/90dormouse/dormouse-resume.sh" "$root/dracut-hook"
printf "DORMOUSE_LANGUAGE='de'\nDORMOUSE_THEMES_DIR='/usr/share/dormouse/themes'\nDORMOUSE_FONTS_DIR='/usr/share/dormouse/fonts'\n" \
	>"$root/conf/conf.d/dormouse"

# run RC CMDLINE [VAR=VALUE...]: the premount script with dormouse exiting RC.
run()
{
	rc=$1 cmdline=$2
	shift 2
	rm -f "$root/tmp/calls" "$root/tmp/log" "$root/tmp/plymouth" "$root/tmp/net-up"
	echo "$rc" >"$root/tmp/rc"
	echo "$cmdline" >"$root/proc/cmdline"
	cp "$root/dormouse.fake" "$root/bin/dormouse"
	env -i PATH=/bin DORMOUSE_REFUSED_PAUSE=0 "$@" "$chroot" "$root" /bin/sh /premount
}
calls() { cat "$root/tmp/calls" 2>/dev/null; }
logged() { grep -q "$1" "$root/tmp/log" 2>/dev/null; }

run 1 "root=/dev/vda1 resume=/dev/vdb"
check "premount: no image (1) lets the boot go on" test $? = 0
check "premount: dormouse resume ran without options (it reads resume= itself)" \
	test "$(calls | sed -n 's/^args://p')" = "resume"
check "premount: LANG is C.UTF-8 and LANGUAGE the system's (de)" \
	sh -c 'calls() { cat "$1/tmp/calls"; }; calls "$1" | grep -qx "LANG=C.UTF-8 LANGUAGE=de"' sh "$root"
check "premount: the theme and font directories are passed on" \
	sh -c 'grep -qx "THEMES=/usr/share/dormouse/themes FONTS=/usr/share/dormouse/fonts" "$1/tmp/calls"' sh "$root"
check "premount: no image is quiet" test ! -s "$root/tmp/log"

run 3 "root=/dev/vda1 resume=/dev/vdb"
check "premount: a refused image (3) lets the boot go on" test $? = 0
check "premount: a refused image is reported" logged "not restored"

run 7 "root=/dev/vda1 resume=/dev/vdb"
check "premount: an image that could not be removed (7) stops the boot" test $? != 0
check "premount: the stop drops to a shell (panic) and says why" logged "PANIC: dormouse: the hibernation image is still"

run 9 "root=/dev/vda1 resume=/dev/vdb"
check "premount: another kernel's image (9) stops the boot" test $? != 0
check "premount: another kernel's image restarts the machine" logged "^reboot -f"
check "premount: and says why before" logged "made by another kernel and is kept"
check "premount: a failed restart drops to a shell" logged "PANIC: dormouse: the hibernation image was made by another kernel"

run 139 "root=/dev/vda1 resume=/dev/vdb"
check "premount: a killed resume (139) stops the boot" test $? != 0
check "premount: it was tried again with text progress only" \
	test "$(calls | sed -n 's/^args://p')" = "resume --splash text"
check "premount: a resume killed twice drops to a shell" logged "PANIC: dormouse: 'dormouse resume' was killed twice"

run 2 "root=/dev/vda1"
check "premount: a configuration error (2) lets the boot go on" test $? = 0
check "premount: a configuration error is reported with its status" logged "status 2"

# init exports conf.d/resume's RESUME (resume= overriding it) as $resume
run 1 "root=/dev/vda1 quiet" resume=UUID=0a1b2c3d
check "premount: RESUME from conf.d/resume is passed when resume= is absent" \
	test "$(calls | sed -n 's/^args://p')" = "resume --resume-device UUID=0a1b2c3d"
# init empties $resume under noresume: the conf file still names the device
echo "RESUME=UUID=0a1b2c3d" >"$root/conf/conf.d/resume"
run 1 "root=/dev/vda1 noresume"
check "premount: noresume with RESUME only in conf.d/resume: it is passed, to discard the image" \
	test "$(calls | sed -n 's/^args://p')" = "resume --resume-device UUID=0a1b2c3d"
rm -f "$root/conf/conf.d/resume"

run 1 "root=/dev/vda1 resume=/dev/vdb" resume=UUID=0a1b2c3d
check "premount: resume= on the command line wins over conf.d/resume" \
	test "$(calls | sed -n 's/^args://p')" = "resume"

# systemd's HibernateLocation in efivarfs names the very area the image went
# to: it wins over conf.d/resume (dormouse resume reads it itself).
mkdir -p "$root/sys/firmware/efi/efivars"
: >"$root/sys/firmware/efi/efivars/HibernateLocation-8cf2644b-4b0b-428f-9387-6d876050dc67"
run 1 "root=/dev/vda1 quiet" resume=UUID=0a1b2c3d
check "premount: HibernateLocation set: conf.d/resume's RESUME is not passed" \
	test "$(calls | sed -n 's/^args://p')" = "resume"
rm -rf "$root/sys/firmware"

echo "Resume_Device = /dev/vdc" >"$root/etc/dormouse.conf"
run 1 "root=/dev/vda1" resume=UUID=0a1b2c3d
check "premount: \"resume device\" in dormouse.conf wins over conf.d/resume" \
	test "$(calls | sed -n 's/^args://p')" = "resume"
rm -f "$root/etc/dormouse.conf"
# A resume device on the network: the network comes up first (initramfs-
# tools' configure_networking), and dormouse resume reads the device itself.
# (rm first: busybox 1.37's --install made bin/nbd-client a link to
# /bin/busybox, which a write would follow out of the chroot)
rm -f "$root/bin/nbd-client"
printf '#!/bin/sh\nexit 0\n' >"$root/bin/nbd-client"
chmod +x "$root/bin/nbd-client"
run 1 "root=/dev/vda1 ip=dhcp dormouse.resume=nbd://server.lab/swap" resume=UUID=0a1b2c3d IP=dhcp
ran=$?
check "premount: nbd:// on the command line: the network is brought up before dormouse runs" \
	sh -c 'grep -qx "network=up" "$1/tmp/calls" && grep -qx "configure_networking IP=dhcp" "$1/tmp/log"' sh "$root"
check "premount: it says whom the network is for" logged "^B: dormouse: bringing the network up to reach server.lab$"
check "premount: dormouse.resume= wins over conf.d/resume's RESUME (nothing passed)" \
	test "$(calls | sed -n 's/^args://p')" = "resume"
check "premount: no image on the server lets the boot go on" test "$ran" = 0
printf '# lab\n RESUME-device : "nbd://[2001:db8::7]:2000/swap-pc12"   # the server\n' >"$root/etc/dormouse.conf"
run 1 "root=/dev/vda1 ip=::::pc12:eth0:dhcp"
check "premount: nbd:// in dormouse.conf (any spelling of the key, quoted, a comment): the network first" \
	sh -c 'grep -qx "network=up" "$1/tmp/calls"' sh "$root"
check "premount: the server named with its port" logged "reach \\[2001:db8::7\\]:2000$"
echo "resume device = /dev/vdc" >"$root/etc/dormouse.conf"
run 1 "root=/dev/vda1 dormouse.resume=nbd://server.lab/swap"
check "premount: dormouse.conf's local device wins: no network" \
	sh -c 'grep -qx "network=down" "$1/tmp/calls" && ! grep -q configure_networking "$1/tmp/log" 2>/dev/null' sh "$root"
rm -f "$root/etc/dormouse.conf"
run 1 "root=/dev/vda1 resume=/dev/vdb"
check "premount: a local resume device brings no network up" \
	sh -c 'grep -qx "network=down" "$1/tmp/calls" && ! grep -q configure_networking "$1/tmp/log" 2>/dev/null' sh "$root"
rm -f "$root/bin/nbd-client"
run 1 "root=/dev/vda1 dormouse.resume=nbd://server.lab/swap"
check "premount: no nbd-client in the initramfs: said, with the way out" \
	logged "this initramfs has no nbd-client; install nbd-client and run update-initramfs -u"
check "premount: and dormouse still runs (it says the server cannot be reached; the boot goes on)" \
	sh -c 'grep -qx "network=down" "$1/tmp/calls"' sh "$root"
# busybox's own nbd-client applet (Debian 13's busybox has one; it has no
# netlink mode) linked the way initramfs-tools links applets: not nbd-client.
ln "$root/bin/busybox" "$root/bin/nbd-client"
run 1 "root=/dev/vda1 dormouse.resume=nbd://server.lab/swap"
check "premount: busybox's nbd-client applet (a hard link) is not taken for nbd-client" \
	logged "this initramfs has no nbd-client; install nbd-client and run update-initramfs -u"
rm -f "$root/bin/nbd-client"
ln -s /bin/busybox "$root/bin/nbd-client"
run 1 "root=/dev/vda1 dormouse.resume=nbd://server.lab/swap"
check "premount: nor a symbolic link to busybox" \
	logged "this initramfs has no nbd-client; install nbd-client and run update-initramfs -u"
rm -f "$root/bin/nbd-client"

# The hook records where it put the configuration (the path the binary
# reads, $sysconfdir/dormouse.conf); the script looks there.
cp "$root/conf/conf.d/dormouse" "$tmp/conf.d.saved"
echo "DORMOUSE_CONF='/usr/local/etc/dormouse.conf'" >>"$root/conf/conf.d/dormouse"
mkdir -p "$root/usr/local/etc"
echo "resume-device: /dev/vdc" >"$root/usr/local/etc/dormouse.conf"
run 1 "root=/dev/vda1" resume=UUID=0a1b2c3d
check "premount: \"resume device\" in the file named by DORMOUSE_CONF wins over conf.d/resume" \
	test "$(calls | sed -n 's/^args://p')" = "resume"
cp "$tmp/conf.d.saved" "$root/conf/conf.d/dormouse"
rm -rf "$root/usr/local"
# Without busybox (Debian's BUSYBOX=auto and no busybox package) there is
# no grep: the script reads dormouse.conf and /proc/mounts with the shell.
mv "$root/bin/grep" "$root/bin/grep.away"
printf '# resume device = /dev/vdd\ncompress = lz4\n' >"$root/etc/dormouse.conf"
run 1 "root=/dev/vda1" resume=UUID=0a1b2c3d >"$tmp/out" 2>&1
check "premount: no grep: a commented-out \"resume device\" leaves conf.d/resume's RESUME" \
	test "$(calls | sed -n 's/^args://p')" = "resume --resume-device UUID=0a1b2c3d"
check "premount: no grep: and says nothing of a missing tool" sh -c '! grep -q "not found" "$1"' sh "$tmp/out"
printf '  RESUME_device\t: /dev/vdc\n' >"$root/etc/dormouse.conf"
run 1 "root=/dev/vda1" resume=UUID=0a1b2c3d
check "premount: no grep: \"resume device\" in dormouse.conf still wins over conf.d/resume" \
	test "$(calls | sed -n 's/^args://p')" = "resume"
mv "$root/bin/grep.away" "$root/bin/grep"
rm -f "$root/etc/dormouse.conf"

run 1 "root=/dev/vda1 resume=/dev/vdb noresume"
check "premount: with noresume dormouse still runs (and discards the image)" \
	test "$(calls | sed -n 's/^args://p')" = "resume"

run 1 "root=/dev/vda1 resume=/dev/vdb" LANGUAGE=fr LANG=fr_FR.UTF-8
check "premount: LANGUAGE and LANG from the boot command line are kept" \
	sh -c 'grep -qx "LANG=fr_FR.UTF-8 LANGUAGE=fr" "$1/tmp/calls"' sh "$root"

cp "$root/plymouth.fake" "$root/bin/plymouth"
plymouth_calls() { tr '\n' ' ' <"$root/tmp/plymouth"; }
run 1 "root=/dev/vda1 resume=/dev/vdb"
check "premount: no image: plymouth lets go of the display and takes it back for the boot" \
	test "$(plymouth_calls)" = "plymouth --ping plymouth deactivate plymouth reactivate "
run 3 "root=/dev/vda1 resume=/dev/vdb"
check "premount: image refused: plymouth lets go of the display and takes it back for the boot" \
	test "$(plymouth_calls)" = "plymouth --ping plymouth deactivate plymouth reactivate "
run 2 "root=/dev/vda1 resume=/dev/vdb"
check "premount: configuration error: plymouth quits" \
	test "$(plymouth_calls)" = "plymouth --ping plymouth deactivate plymouth quit "
rm -f "$root/bin/plymouth"

rm -f "$root/tmp/calls"
out=$(env -i PATH=/bin "$chroot" "$root" /bin/sh /premount prereqs)
check "premount: \"prereqs\" answers without running dormouse" test -z "$out" -a ! -e "$root/tmp/calls"

rm -f "$root/bin/dormouse" "$root/tmp/calls"
env -i PATH=/bin "$chroot" "$root" /bin/sh /premount
check "premount: without dormouse in the initramfs it does nothing" test $? = 0 -a ! -e "$root/tmp/calls"

# --- the dracut hook: sourced, so it must return, not exit ---------------------
dracut_run()
{
	rm -f "$root/tmp/calls" "$root/tmp/log"
	echo "$1" >"$root/tmp/rc"
	cp "$root/dormouse.fake" "$root/bin/dormouse"
	env -i PATH=/bin DORMOUSE_REFUSED_PAUSE=0 "$chroot" "$root" /bin/sh -c \
		'. /lib/dracut-lib.sh; . /dracut-hook; echo after-hook'
}
out=$(dracut_run 3)
check "dracut: a refused image is reported" logged "not restored"
check "dracut: the hook returns to dracut afterwards" test "$out" = "after-hook"
out=$(dracut_run 7)
check "dracut: an image that could not be removed (7) stops in an emergency shell" \
	logged "EMERGENCY: -n dormouse dormouse: the hibernation image is still"
check "dracut: the stop does not return to the boot" test "$out" != "after-hook"
out=$(dracut_run 9)
check "dracut: another kernel's image (9) restarts the machine" logged "^reboot -f"
check "dracut: a failed restart stops in an emergency shell" \
	logged "EMERGENCY: -n dormouse dormouse: the hibernation image was made by another kernel"
check "dracut: another kernel's image does not return to the boot" test "$out" != "after-hook"
out=$(dracut_run 139)
check "dracut: a resume killed twice stops in an emergency shell" \
	logged "EMERGENCY: -n dormouse dormouse: 'dormouse resume' was killed twice"
check "dracut: it was tried again with text progress only" \
	test "$(calls | sed -n 's/^args://p')" = "resume --splash text"
out=$(dracut_run 1)
check "dracut: no image is quiet and returns" test "$out" = "after-hook" -a ! -s "$root/tmp/log"
cp "$root/plymouth.fake" "$root/bin/plymouth"
rm -f "$root/tmp/plymouth"
dracut_run 1 >/dev/null
check "dracut: no image: plymouth lets go of the display and takes it back" \
	test "$(plymouth_calls)" = "plymouth --ping plymouth deactivate plymouth reactivate "
rm -f "$root/tmp/plymouth"
dracut_run 3 >/dev/null
check "dracut: image refused: plymouth lets go of the display and takes it back" \
	test "$(plymouth_calls)" = "plymouth --ping plymouth deactivate plymouth reactivate "
rm -f "$root/bin/plymouth"

# --- dormouse-sleep-hooks (systemd side), in the same chroot ----------------------
mkdir -p "$root/etc/systemd/system-sleep" "$root/usr/lib/systemd/system-sleep"
cp "$srcdir/data/systemd/dormouse-sleep-hooks.in" "$root/sleep-hooks"
for h in usr/lib/systemd/system-sleep/20-vendor usr/lib/systemd/system-sleep/10-both \
	etc/systemd/system-sleep/10-both usr/lib/systemd/system-sleep/30-fails \
	usr/lib/systemd/system-sleep/40-after; do
	printf '#!/bin/sh\necho "%s $1 $2 $SYSTEMD_SLEEP_ACTION" >>/tmp/hooks\n' "$h" >"$root/$h"
	chmod +x "$root/$h"
done
printf '#!/bin/sh\nexit 1\n' >"$root/usr/lib/systemd/system-sleep/30-fails"
ln -s /dev/null "$root/etc/systemd/system-sleep/20-vendor"
rm -f "$root/tmp/hooks"
env -i PATH=/bin "$chroot" "$root" /bin/sh /sleep-hooks pre hibernate 2>"$tmp/hooks.err"
check "sleep hooks: succeed even when a hook fails" test $? = 0
check "sleep hooks: by name, /etc overrides, /dev/null masks, with the arguments" \
	test "$(tr '\n' '|' <"$root/tmp/hooks")" = \
	"etc/systemd/system-sleep/10-both pre hibernate hibernate|usr/lib/systemd/system-sleep/40-after pre hibernate hibernate|"
check "sleep hooks: a failing hook is reported" grep -q "30-fails pre hibernate failed" "$tmp/hooks.err"
env -i PATH=/bin "$chroot" "$root" /bin/sh /sleep-hooks pre hibernate 2>"$tmp/hooks.err"
check "sleep hooks: pre says nothing of how dormouse ended" sh -c '! grep -q "did not sleep" "$1"' sh "$tmp/hooks.err"
env -i PATH=/bin EXIT_CODE=exited EXIT_STATUS=5 "$chroot" "$root" /bin/sh /sleep-hooks post hibernate \
	2>"$tmp/hooks.err"
check "sleep hooks: post reports a cancelled hibernate (status 5) in the unit's journal" \
	grep -q "the hibernate was cancelled (dormouse exit status 5)" "$tmp/hooks.err"
env -i PATH=/bin EXIT_CODE=exited EXIT_STATUS=6 "$chroot" "$root" /bin/sh /sleep-hooks post hibernate \
	2>"$tmp/hooks.err"
check "sleep hooks: post reports a failed hibernate" \
	grep -q "the hibernate failed (dormouse exited with status 6)" "$tmp/hooks.err"
env -i PATH=/bin EXIT_CODE=exited EXIT_STATUS=0 "$chroot" "$root" /bin/sh /sleep-hooks post hibernate \
	2>"$tmp/hooks.err"
check "sleep hooks: post after a resume says nothing more" sh -c '! grep -q "did not sleep" "$1"' sh "$tmp/hooks.err"
env -i PATH=/bin "$chroot" "$root" /bin/sh /sleep-hooks sideways hibernate 2>/dev/null
check "sleep hooks: refuse anything but pre or post" test $? = 2

# user.slice, as systemd-sleep 256 and later: frozen before the pre hooks,
# thawed after the post hooks; a stand-in systemctl of a given version
# records its calls among the hooks' lines.
printf '#!/bin/sh
if [ "$1" = --version ]; then echo "systemd $(cat /tmp/systemd-version) (x)"; exit 0; fi
echo "systemctl $*" >>/tmp/hooks
' \
	>"$root/bin/systemctl"
chmod +x "$root/bin/systemctl"
mkdir -p "$root/run"
echo 257 >"$root/tmp/systemd-version"
rm -f "$root/tmp/hooks" "$root/run/dormouse/froze-user-slice"
env -i PATH=/bin "$chroot" "$root" /bin/sh /sleep-hooks pre hibernate 2>"$tmp/hooks.err"
env -i PATH=/bin EXIT_CODE=exited EXIT_STATUS=0 "$chroot" "$root" /bin/sh /sleep-hooks post hibernate \
	2>>"$tmp/hooks.err"
check "sleep hooks: systemd 257: user.slice frozen before the pre hooks, thawed after the post hooks" \
	test "$(tr '\n' '|' <"$root/tmp/hooks")" = \
	"systemctl freeze user.slice|etc/systemd/system-sleep/10-both pre hibernate hibernate|usr/lib/systemd/system-sleep/40-after pre hibernate hibernate|etc/systemd/system-sleep/10-both post hibernate hibernate|usr/lib/systemd/system-sleep/40-after post hibernate hibernate|systemctl thaw user.slice|"
check "sleep hooks: the freeze is in the unit's journal" grep -q "froze unit 'user.slice'" "$tmp/hooks.err"
rm -f "$root/tmp/hooks"
env -i PATH=/bin SYSTEMD_SLEEP_FREEZE_USER_SESSIONS=false "$chroot" "$root" /bin/sh /sleep-hooks pre hibernate \
	2>"$tmp/hooks.err"
env -i PATH=/bin SYSTEMD_SLEEP_FREEZE_USER_SESSIONS=false "$chroot" "$root" /bin/sh /sleep-hooks post hibernate \
	2>>"$tmp/hooks.err"
check "sleep hooks: SYSTEMD_SLEEP_FREEZE_USER_SESSIONS=false freezes nothing" \
	sh -c '! grep -q systemctl "$1"' sh "$root/tmp/hooks"
check "sleep hooks: and says the sessions remain unfrozen" grep -q "remain unfrozen" "$tmp/hooks.err"
# suspend-then-hibernate: the unit freezes once, dormouse runs the hooks
# around each step with the step in SYSTEMD_SLEEP_ACTION, the unit thaws.
rm -f "$root/tmp/hooks"
{
	env -i PATH=/bin "$chroot" "$root" /bin/sh /sleep-hooks freeze suspend-then-hibernate &&
		env -i PATH=/bin SYSTEMD_SLEEP_ACTION=suspend "$chroot" "$root" /bin/sh /sleep-hooks hooks pre suspend-then-hibernate &&
		env -i PATH=/bin SYSTEMD_SLEEP_ACTION=suspend "$chroot" "$root" /bin/sh /sleep-hooks hooks post suspend-then-hibernate &&
		env -i PATH=/bin SYSTEMD_SLEEP_ACTION=hibernate "$chroot" "$root" /bin/sh /sleep-hooks hooks pre suspend-then-hibernate &&
		env -i PATH=/bin EXIT_CODE=exited EXIT_STATUS=5 "$chroot" "$root" /bin/sh /sleep-hooks thaw suspend-then-hibernate
} 2>"$tmp/hooks.err"
check "sleep hooks: freeze, hooks per step, thaw: in systemd-sleep's order, the step in SYSTEMD_SLEEP_ACTION" \
	test "$(tr '\n' '|' <"$root/tmp/hooks")" = \
	"systemctl freeze user.slice|etc/systemd/system-sleep/10-both pre suspend-then-hibernate suspend|usr/lib/systemd/system-sleep/40-after pre suspend-then-hibernate suspend|etc/systemd/system-sleep/10-both post suspend-then-hibernate suspend|usr/lib/systemd/system-sleep/40-after post suspend-then-hibernate suspend|etc/systemd/system-sleep/10-both pre suspend-then-hibernate hibernate|usr/lib/systemd/system-sleep/40-after pre suspend-then-hibernate hibernate|systemctl thaw user.slice|"
check "sleep hooks: thaw says how the unit ended" \
	grep -q "the suspend-then-hibernate was cancelled (dormouse exit status 5)" "$tmp/hooks.err"
env -i PATH=/bin "$chroot" "$root" /bin/sh /sleep-hooks hooks sideways hibernate 2>/dev/null
check "sleep hooks: hooks takes only pre or post" test $? = 2
echo 255 >"$root/tmp/systemd-version"
rm -f "$root/tmp/hooks"
env -i PATH=/bin "$chroot" "$root" /bin/sh /sleep-hooks pre hibernate 2>/dev/null
env -i PATH=/bin "$chroot" "$root" /bin/sh /sleep-hooks post hibernate 2>/dev/null
check "sleep hooks: systemd 255 (its systemd-sleep freezes nothing): nothing frozen" \
	sh -c '! grep -q systemctl "$1"' sh "$root/tmp/hooks"
rm -f "$root/bin/systemctl"

# --- the initramfs-tools hook against stand-ins for hook-functions -------------
host="$tmp/host"
mkdir -p "$host/bin" "$host/etc" "$host/share/dormouse/themes/default" \
	"$host/share/dormouse/themes/nocturne" "$host/share/dormouse/fonts" "$host/share/dormouse/initramfs-fonts" \
	"$host/share/locale/de/LC_MESSAGES" "$host/lib/dormouse/locale/dormouse/LC_MESSAGES" "$host/dest"
printf '#!/bin/sh\n' >"$host/bin/dormouse"
chmod +x "$host/bin/dormouse"
touch "$host/share/dormouse/themes/default/theme.conf" "$host/share/dormouse/themes/nocturne/theme.conf" \
	"$host/share/dormouse/themes/nocturne/moon.png" "$host/share/dormouse/fonts/DejaVuSans.ttf" \
	"$host/share/dormouse/fonts/LICENSE.DejaVu" "$host/share/dormouse/initramfs-fonts/DejaVuSans.ttf" \
	"$host/share/locale/de/LC_MESSAGES/dormouse.mo" \
	"$host/lib/dormouse/locale/dormouse/LC_MESSAGES/SYS_LC_MESSAGES"
cat >"$host/hook-functions" <<'SH'
copy_exec() { echo "copy_exec $*" >>"$LOG"; }
copy_file() { echo "copy_file $*" >>"$LOG"; }
manual_add_modules() { echo "manual_add_modules $*" >>"$LOG"; }
auto_add_modules() { echo "auto_add_modules $*" >>"$LOG"; }
copy_modules_dir() { echo "copy_modules_dir $*" >>"$LOG"; }
SH
sed -e "s|@bindir[@]|$host/bin|g" -e "s|@sysconfdir[@]|$host/etc|g" \
	-e "s|@pkgdatadir[@]|$host/share/dormouse|g" -e "s|@localedir[@]|$host/share/locale|g" \
	-e "s|@pkglibdir[@]|$host/lib/dormouse|g" -e "s|@localstatedir[@]|$host/var|g" \
	-e "s|^\. /usr/share/initramfs-tools/hook-functions|. $host/hook-functions|" \
	"$srcdir/data/initramfs-tools/hooks/dormouse.in" >"$host/hook"
hook()
{
	rm -rf "$host/log" "$host/dest"
	mkdir -p "$host/dest"
	env LOG="$host/log" DESTDIR="$host/dest" MODULES="${1:-most}" DORMOUSE_SYSFS="$host/sys" \
		DORMOUSE_CMDLINE="$host/cmdline" sh "$host/hook" 2>"$host/err"
}
has() { grep -q -- "$1" "$host/log"; }

# A machine's sysfs as the hooks see it: card0 on bochs-drm (module
# "bochs"), card1 on i915, their connectors (whose device is the card, with
# no driver), and a render node.
sys=$host/sys
fake_card() # fake_card CARD PCI-ADDRESS DRIVER MODULE
{
	dev=$sys/devices/pci0000:00/$2
	mkdir -p "$dev/drm/$1/$1-Virtual-1" "$sys/bus/pci/drivers/$3" "$sys/module/$4" "$sys/class/drm"
	ln -s "$sys/module/$4" "$sys/bus/pci/drivers/$3/module"
	ln -s "$sys/bus/pci/drivers/$3" "$dev/driver"
	ln -s "$dev" "$dev/drm/$1/device"
	ln -s "$dev/drm/$1" "$dev/drm/$1/$1-Virtual-1/device"
	ln -s "$dev/drm/$1" "$sys/class/drm/$1"
	ln -s "$dev/drm/$1/$1-Virtual-1" "$sys/class/drm/$1-Virtual-1"
}
fake_card card0 0000:00:02.0 bochs-drm bochs
fake_card card1 0000:00:03.0 i915 i915
mkdir -p "$sys/class/drm/renderD128"
drm_modules() { sed -n 's/^manual_add_modules //p' "$host/log" | sort | tr '\n' ' '; }

printf 'theme = "nocturne"   # the night one\n' >"$host/etc/dormouse.conf"
hook most
check "hook: succeeds" test $? = 0
check "hook: copies the binary with its libraries" has "^copy_exec $host/bin/dormouse /bin/dormouse$"
check "hook: copies the configuration to the path the binary reads" \
	has "^copy_file config $host/etc/dormouse.conf $host/etc/dormouse.conf$"
check "hook: copies the default theme" has "themes/default/theme.conf"
check "hook: copies the configured theme (quoted, with a comment)" has "themes/nocturne/moon.png"
check "hook: copies the fonts' copies cut down for the initramfs, where the full ones are" \
	has "^copy_file data $host/share/dormouse/initramfs-fonts/DejaVuSans.ttf $host/share/dormouse/fonts/DejaVuSans.ttf$"
check "hook: not the full fonts that have a cut-down copy" \
	sh -c '! grep -q "^copy_file data $1/share/dormouse/fonts/DejaVuSans.ttf" "$1/log"' sh "$host"
check "hook: what has no cut-down copy itself (the licence)" \
	has "^copy_file data $host/share/dormouse/fonts/LICENSE.DejaVu $host/share/dormouse/fonts/LICENSE.DejaVu$"
if [ -r /etc/os-release ]; then
	check "hook: copies os-release (HibernateLocation names its installation by it)" \
		has "^copy_file config /etc/os-release /usr/lib/os-release$"
fi
check "hook: a machine not booted through EFI gets no efivarfs" \
	sh -c '! grep -q "^manual_add_modules efivarfs$" "$1"' sh "$host/log"
mkdir -p "$sys/firmware/efi"
hook list
check "hook: booted through EFI: efivarfs goes in, whatever MODULES says (HibernateLocation)" \
	has "^manual_add_modules efivarfs$"
rm -rf "$sys/firmware"
hook most
check "hook: copies the catalogs" has "de/LC_MESSAGES/dormouse.mo"
check "hook: copies the messages locale that makes LANGUAGE count under C.UTF-8" \
	has "^copy_file data $host/lib/dormouse/locale/dormouse/LC_MESSAGES/SYS_LC_MESSAGES "
check "hook: MODULES=most does not take the whole DRM tree" sh -c '! grep -q copy_modules_dir "$1"' sh "$host/log"
check "hook: records the data directories for the boot script" \
	grep -q "^DORMOUSE_THEMES_DIR='$host/share/dormouse/themes'$" "$host/dest/conf/conf.d/dormouse"
check "hook: records where the configuration is for the boot script" \
	grep -q "^DORMOUSE_CONF='$host/etc/dormouse.conf'$" "$host/dest/conf/conf.d/dormouse"

check "hook: MODULES=most adds the machine's DRM drivers and simpledrm ($(drm_modules))" \
	test "$(drm_modules)" = "bochs i915 simpledrm "

hook dep
check "hook: MODULES=dep adds the machine's DRM drivers and simpledrm ($(drm_modules))" \
	test "$(drm_modules)" = "bochs i915 simpledrm "
check "hook: MODULES=dep does not take the whole DRM tree" sh -c '! grep -q copy_modules_dir "$1"' sh "$host/log"

# Built where no card can be seen (a chroot without /sys): MODULES=most takes
# the whole tree, so the splash still has its driver; MODULES=dep cannot.
mv "$sys/class/drm" "$sys/class/drm.away"
hook most
check "hook: no card to be seen (chroot): MODULES=most takes the whole DRM tree" \
	has "^copy_modules_dir kernel/drivers/gpu/drm"
check "hook: and says why" grep -q "no DRM card" "$host/err"
hook dep
check "hook: no card to be seen: MODULES=dep still takes only simpledrm" \
	sh -c '! grep -q copy_modules_dir "$1" && test "$(sed -n "s/^manual_add_modules //p" "$1")" = simpledrm' sh "$host/log"
mv "$sys/class/drm.away" "$sys/class/drm"

hook list
check "hook: MODULES=list adds no driver" sh -c '! grep -q "modules" "$1"' sh "$host/log"
hook netboot
check "hook: MODULES=netboot adds no driver" sh -c '! grep -q "modules" "$1"' sh "$host/log"

printf 'splash = text\ntheme = nocturne\n' >"$host/etc/dormouse.conf"
hook most
check "hook: splash = text copies no theme, font or driver" \
	sh -c '! grep -q -e themes/ -e fonts/ -e _modules "$1"' sh "$host/log"

printf 'theme = nosuch\n' >"$host/etc/dormouse.conf"
hook most
check "hook: an unknown theme is reported and the default is used" \
	sh -c 'grep -q "nosuch" "$1/err" && grep -q themes/default "$1/log"' sh "$host"

# A Plymouth theme setting: the .plymouth file and its ImageDir's images (read
# under DORMOUSE_PLYMOUTH_ROOT, put at their own paths), and for "plymouth"
# the files that name the default.
proot=$host/proot
mkdir -p "$proot/etc/plymouth" "$proot/usr/share/plymouth/themes/bgrt" \
	"$proot/usr/share/plymouth/themes/spinner"
printf '[Plymouth Theme]\nModuleName=two-step\n[two-step]\nImageDir=/usr/share/plymouth/themes/spinner\n' \
	>"$proot/usr/share/plymouth/themes/bgrt/bgrt.plymouth"
touch "$proot/usr/share/plymouth/themes/spinner/throbber-0001.png" \
	"$proot/usr/share/plymouth/themes/spinner/lock.png"
printf '[Daemon]\n#Theme=emerald\nTheme=bgrt\n' >"$proot/etc/plymouth/plymouthd.conf"
plymouth_hook() { DORMOUSE_PLYMOUTH_ROOT=$proot hook most; }
printf 'theme = plymouth\n' >"$host/etc/dormouse.conf"
plymouth_hook
check "hook: theme = plymouth copies the file that names the default" \
	has "^copy_file config $proot/etc/plymouth/plymouthd.conf /etc/plymouth/plymouthd.conf$"
check "hook: theme = plymouth copies the default theme's .plymouth file" \
	has "^copy_file data $proot/usr/share/plymouth/themes/bgrt/bgrt.plymouth /usr/share/plymouth/themes/bgrt/bgrt.plymouth$"
check "hook: theme = plymouth copies the images of the theme's ImageDir" \
	has "^copy_file data $proot/usr/share/plymouth/themes/spinner/throbber-0001.png /usr/share/plymouth/themes/spinner/throbber-0001.png$"
printf 'theme = "plymouth:nosuch"\n' >"$host/etc/dormouse.conf"
plymouth_hook
check "hook: a missing Plymouth theme is reported and the default is used" \
	sh -c 'grep -q "nosuch" "$1/err" && grep -q themes/default "$1/log"' sh "$host"

# The record of what the initramfs holds, for "dormouse hibernate": written
# for the kernel mkinitramfs builds for ($version), beside the initramfs.
state=$host/state/initramfs
record_hook() # record_hook [VAR=VALUE...]: the hook building for 6.12.0-test
{
	rm -rf "$host/state"
	env version=6.12.0-test DORMOUSE_STATE_DIR="$host/state" "$@" sh -c '
		rm -rf "$0/log" "$0/dest" && mkdir -p "$0/dest" &&
		env LOG="$0/log" DESTDIR="$0/dest" MODULES=most DORMOUSE_SYSFS="$0/sys" \
		DORMOUSE_CMDLINE="$0/cmdline" sh "$0/hook"' "$host" 2>"$host/err"
}
record_value() { sed -n "s/^$1 = //p" "$state/6.12.0-test"; }
printf 'resume device = /dev/vda2\nresume offset = 0\n' >"$host/etc/dormouse.conf"
record_hook RESUME=UUID=1234-abcd
check "hook: records what the initramfs of the kernel it builds for holds" \
	test "$(record_value record) $(record_value kernel) $(record_value builder)" = "1 6.12.0-test initramfs-tools"
check "hook: records the digest of the dormouse.conf it copied" \
	test "$(record_value config-sha256)" = "$(sha256sum <"$host/etc/dormouse.conf" | cut -d ' ' -f 1)"
check "hook: keeps the copy of dormouse.conf beside the record" \
	cmp -s "$host/etc/dormouse.conf" "$state/6.12.0-test.conf"
check "hook: records initramfs-tools' RESUME" test "$(record_value resume)" = "UUID=1234-abcd"
check "hook: records no secret key outside pubkey mode" test "$(record_value secret-key-sha256)" = none
check "hook: leaves no temporary file" test "$(ls "$state")" = "$(printf '6.12.0-test\n6.12.0-test.conf')"
check "hook: not booted through EFI, records that its resume does not read HibernateLocation" \
	test "$(record_value reads-hibernate-location)" = no
mkdir -p "$sys/firmware/efi"
record_hook RESUME=UUID=1234-abcd
check "hook: booted through EFI, records that its resume reads HibernateLocation" \
	test "$(record_value reads-hibernate-location)" = yes
rm -rf "$sys/firmware"
record_hook RESUME=none
check "hook: RESUME=none records no resume device" test -z "$(record_value resume)"
# initramfs-tools' resume hook ran first (PREREQ) and chose a device itself.
rm -rf "$host/state"
env version=6.12.0-test DORMOUSE_STATE_DIR="$host/state" RESUME=auto sh -c '
	rm -rf "$0/log" "$0/dest" && mkdir -p "$0/dest/conf/conf.d" &&
	echo "RESUME=/dev/mapper/vg-swap" >"$0/dest/conf/conf.d/zz-resume-auto" &&
	env LOG="$0/log" DESTDIR="$0/dest" MODULES=most DORMOUSE_SYSFS="$0/sys" sh "$0/hook"' "$host" 2>"$host/err"
check "hook: records the resume device initramfs-tools chose itself (RESUME=auto)" \
	test "$(record_value resume)" = "/dev/mapper/vg-swap"
check "hook: runs after initramfs-tools' resume hook" test "$(sh "$host/hook" prereqs)" = resume
printf 'encrypt = pubkey\nsecret key = %s/etc/secret.key\n' "$host" >"$host/etc/dormouse.conf"
echo "a secret key" >"$host/etc/secret.key"
record_hook
check "hook: pubkey mode records the digest of the secret key it copied" \
	test "$(record_value secret-key-sha256)" = "$(sha256sum <"$host/etc/secret.key" | cut -d ' ' -f 1)"
mv "$host/etc/dormouse.conf" "$host/etc/dormouse.conf.away"
record_hook
check "hook: without a dormouse.conf records none and keeps no copy" \
	sh -c 'test "$(sed -n "s/^config-sha256 = //p" "$1/6.12.0-test")" = none && test ! -e "$1/6.12.0-test.conf"' sh "$state"
mv "$host/etc/dormouse.conf.away" "$host/etc/dormouse.conf"
rm -rf "$host/state" && mkdir -p "$host/state" && touch "$host/state/initramfs"
env version=6.12.0-test DORMOUSE_STATE_DIR="$host/state" sh -c '
	rm -rf "$0/log" "$0/dest" && mkdir -p "$0/dest" &&
	env LOG="$0/log" DESTDIR="$0/dest" MODULES=most DORMOUSE_SYSFS="$0/sys" sh "$0/hook"' "$host" 2>"$host/err"
check "hook: a record it cannot write does not fail the initramfs" test $? = 0
check "hook: and it says so, naming the way out" grep -q "no-initramfs-check" "$host/err"

# A resume device on the network: nbd-client (read under DORMOUSE_NBD_ROOT,
# put at /sbin/nbd-client), the nbd module, the network drivers; recorded.
nbd_root=$host/nbdroot
mkdir -p "$nbd_root/usr/sbin"
printf '#!/bin/sh\n' >"$nbd_root/usr/sbin/nbd-client" && chmod +x "$nbd_root/usr/sbin/nbd-client"
printf 'resume device = "nbd://server.lab/swap"\n' >"$host/etc/dormouse.conf"
record_hook DORMOUSE_NBD_ROOT="$nbd_root"
check "hook: nbd:// in dormouse.conf: copies nbd-client to /sbin" \
	has "^copy_exec $nbd_root/usr/sbin/nbd-client /sbin/nbd-client$"
check "hook: and the nbd module and the network drivers" \
	sh -c 'grep -qx "manual_add_modules nbd" "$1" && grep -qx "auto_add_modules net" "$1"' sh "$host/log"
check "hook: records that the initramfs has nbd-client" test "$(record_value nbd-client)" = yes
printf 'theme = nocturne\n' >"$host/etc/dormouse.conf"
printf 'BOOT_IMAGE=/vmlinuz root=/dev/nfs ip=dhcp dormouse.resume=nbd://10.0.2.100/swap\n' >"$host/cmdline"
record_hook DORMOUSE_NBD_ROOT="$nbd_root"
check "hook: dormouse.resume=nbd:// on the kernel command line: nbd-client too" \
	sh -c 'grep -q "^copy_exec .*nbd-client /sbin/nbd-client$" "$1" && grep -qx "manual_add_modules nbd" "$1"' sh "$host/log"
rm -f "$host/cmdline"
record_hook DORMOUSE_NBD_ROOT="$nbd_root"
check "hook: a local resume device: no nbd-client, no nbd module" \
	sh -c '! grep -q -e nbd -e "auto_add_modules net" "$1"' sh "$host/log"
check "hook: records that the initramfs has no nbd-client" test "$(record_value nbd-client)" = no
printf 'resume device = nbd://server.lab/swap\n' >"$host/etc/dormouse.conf"
record_hook DORMOUSE_NBD_ROOT="$host/nonexistent"
check "hook: nbd:// without nbd-client installed: warns, with the way out" \
	grep -q "nbd-client is not installed: this initramfs cannot resume from it (apt install nbd-client" "$host/err"
check "hook: and records it has none" test "$(record_value nbd-client)" = no
printf 'theme = nocturne\n' >"$host/etc/dormouse.conf"

# --- the dracut module's module-setup.sh against stand-ins for dracut ------
sed -e "s|@bindir[@]|$host/bin|g" -e "s|@sysconfdir[@]|$host/etc|g" \
	-e "s|@pkgdatadir[@]|$host/share/dormouse|g" -e "s|@localedir[@]|$host/share/locale|g" \
	-e "s|@pkglibdir[@]|$host/lib/dormouse|g" -e "s|@localstatedir[@]|$host/var|g" \
	"$srcdir/data/dracut/90dormouse/module-setup.sh.in" >"$host/module-setup.sh"
dracut_setup() # dracut_setup FUNCTION: runs it, the calls go to $host/log, its output to $host/out
{
	rm -f "$host/log"
	mkdir -p "$host/initdir"
	env LOG="$host/log" DORMOUSE_SYSFS="$host/sys" initdir="$host/initdir" moddir=/moddir \
		kernel="${kernel:-}" DORMOUSE_STATE_DIR="${DORMOUSE_STATE_DIR:-$host/nostate}" \
		DORMOUSE_CMDLINE="$host/cmdline" DORMOUSE_NBD_ROOT="${DORMOUSE_NBD_ROOT:-}" bash -c '
		instmods() { echo "instmods hostonly=${hostonly-unset} $*" >>"$LOG"; }
		inst_simple() { echo "inst_simple $*" >>"$LOG"; }
		inst_binary() { echo "inst_binary $*" >>"$LOG"; }
		inst_multiple() { :; }
		inst_hook() { echo "inst_hook $*" >>"$LOG"; }
		dwarn() { echo "dwarn $*" >>"$LOG"; }
		hostonly=yes
		. "$1"; "$2"' bash "$host/module-setup.sh" "$1" >"$host/out" 2>"$host/err"
}
printf 'theme = nocturne\n' >"$host/etc/dormouse.conf"
dracut_setup installkernel
check "dracut: installkernel adds the machine's DRM drivers and simpledrm, also when hostonly" \
	test "$(tr '\n' '|' <"$host/log")" = "instmods hostonly= bochs|instmods hostonly= i915|instmods hostonly= simpledrm|"
dracut_setup install
check "dracut: install copies the configuration to the path the binary reads" \
	grep -qx "inst_simple $host/etc/dormouse.conf" "$host/log"
check "dracut: install copies the configured theme" grep -q "themes/nocturne/moon.png" "$host/log"
check "dracut: install copies the fonts' copies cut down for the initramfs, where the full ones are" \
	grep -qx "inst_simple $host/share/dormouse/initramfs-fonts/DejaVuSans.ttf $host/share/dormouse/fonts/DejaVuSans.ttf" "$host/log"
check "dracut: and what has no cut-down copy itself (the licence)" \
	grep -qx "inst_simple $host/share/dormouse/fonts/LICENSE.DejaVu" "$host/log"
check "dracut: not the full fonts that have a cut-down copy" \
	sh -c '! grep -q "^inst_simple $1/share/dormouse/fonts/DejaVuSans.ttf" "$1/log"' sh "$host"
check "dracut: install copies the messages locale that makes LANGUAGE count under C.UTF-8" \
	grep -qx "inst_simple $host/lib/dormouse/locale/dormouse/LC_MESSAGES/SYS_LC_MESSAGES" "$host/log"
check "dracut: install adds the pre-mount hook" grep -q "^inst_hook pre-mount 10 /moddir/dormouse-resume.sh" "$host/log"
rm -rf "$host/state"
printf 'resume device = /dev/vda2\n' >"$host/etc/dormouse.conf"
kernel=6.12.0-test DORMOUSE_STATE_DIR="$host/state" dracut_setup install
check "dracut: install records what the initramfs of the kernel holds" \
	test "$(record_value kernel) $(record_value builder) $(record_value config-sha256)" = \
	"6.12.0-test dracut $(sha256sum <"$host/etc/dormouse.conf" | cut -d ' ' -f 1)"
check "dracut: keeps the copy of dormouse.conf beside the record" \
	cmp -s "$host/etc/dormouse.conf" "$state/6.12.0-test.conf"
check "dracut: not booted through EFI, records that its resume does not read HibernateLocation" \
	test "$(record_value reads-hibernate-location)" = no
mkdir -p "$host/sys/firmware/efi"
kernel=6.12.0-test DORMOUSE_STATE_DIR="$host/state" dracut_setup install
check "dracut: booted through EFI, records that its resume reads HibernateLocation" \
	test "$(record_value reads-hibernate-location)" = yes
dracut_setup installkernel
check "dracut: booted through EFI, installkernel adds efivarfs (HibernateLocation)" \
	grep -qx "instmods hostonly= efivarfs" "$host/log"
rm -rf "$host/sys/firmware"
printf 'theme = plymouth:bgrt\n' >"$host/etc/dormouse.conf"
DORMOUSE_PLYMOUTH_ROOT=$proot dracut_setup install
check "dracut: theme = plymouth:NAME copies the .plymouth file and its ImageDir's images" \
	sh -c 'grep -qx "inst_simple $2/usr/share/plymouth/themes/bgrt/bgrt.plymouth /usr/share/plymouth/themes/bgrt/bgrt.plymouth" "$1" &&
		grep -qx "inst_simple $2/usr/share/plymouth/themes/spinner/lock.png /usr/share/plymouth/themes/spinner/lock.png" "$1"' \
	sh "$host/log" "$proot"
printf 'splash = text\n' >"$host/etc/dormouse.conf"
dracut_setup installkernel
check "dracut: splash = text adds no DRM driver" test ! -s "$host/log"

# A resume device on the network: the network module, nbd and nbd-client.
printf 'splash = text\nresume device = nbd://server.lab/swap\n' >"$host/etc/dormouse.conf"
dracut_setup depends
check "dracut: nbd:// in dormouse.conf: depends on the network module" grep -qx network "$host/out"
dracut_setup installkernel
check "dracut: nbd:// adds the nbd module, also when hostonly" grep -qx "instmods hostonly= nbd" "$host/log"
rm -rf "$host/state"
kernel=6.12.0-test DORMOUSE_STATE_DIR="$host/state" DORMOUSE_NBD_ROOT="$nbd_root" dracut_setup install
check "dracut: nbd:// installs nbd-client at /sbin" \
	grep -qx "inst_binary $nbd_root/usr/sbin/nbd-client /sbin/nbd-client" "$host/log"
check "dracut: and records it" test "$(record_value nbd-client)" = yes
kernel=6.12.0-test DORMOUSE_STATE_DIR="$host/state" DORMOUSE_NBD_ROOT="$host/nonexistent" dracut_setup install
check "dracut: nbd:// without nbd-client: warns with the way out, records none" \
	sh -c 'grep -q "^dwarn dormouse: the resume device is on the network (nbd://), but nbd-client is not installed" "$1/log" &&
		test "$(sed -n "s/^nbd-client = //p" "$2/6.12.0-test")" = no' sh "$host" "$state"
printf 'splash = text\n' >"$host/etc/dormouse.conf"
printf 'root=/dev/vda1 ip=dhcp rd.neednet=1 dormouse.resume=nbd://10.0.2.100/swap\n' >"$host/cmdline"
dracut_setup installkernel
check "dracut: dormouse.resume=nbd:// on the kernel command line: the nbd module too" \
	grep -qx "instmods hostonly= nbd" "$host/log"
rm -f "$host/cmdline"
dracut_setup installkernel
check "dracut: a local resume device: no nbd module" sh -c '! grep -qs nbd "$1"' sh "$host/log"
dracut_setup depends
check "dracut: a local resume device: no network module" sh -c '! grep -qx network "$1"' sh "$host/out"

rm -f "$host/bin/dormouse"
hook most
check "hook: without the binary (package removed) it copies nothing" test ! -s "$host/log"

echo "1..$n"
[ "$failed" -eq 0 ]
