#!/bin/sh
# install-layout.sh install DROPIN... | uninstall
#
# Run by "make install" (and "make uninstall") after everything else. It
# installs the systemd drop-ins (UNIT.service.d/dormouse.conf, one each for
# systemd-hibernate.service, systemd-hybrid-sleep.service and
# systemd-suspend-then-hibernate.service), and prints
# which halves of dormouse are active: hibernate (the drop-in, read by
# systemd) and resume (the initramfs-tools hook or the dracut module, read
# when the initramfs is built).
#
# The rule it keeps: hibernate is never active without resume. An image
# that no initramfs restores is worse than the kernel's own hibernation, so
# when neither initramfs-tools nor dracut can see dormouse's files the
# drop-ins go, inactive, to $pkgdatadir/systemd/ instead, and the summary
# says so loudly.
#
# Where the files are judged to be read: by their directories (the paths
# as installed, without DESTDIR: a package is unpacked at /). When
# installing into the running system (no DESTDIR), also whether
# initramfs-tools or dracut is there at all. DMO_CHECK_ROOT makes the tests
# do the second check against a directory of their own.
#
# Environment: DESTDIR MKDIR_P INSTALL_DATA sysconfdir pkgdatadir
# systemdsystemunitdir initramfstoolsdir dracutmodulesdir (each "no" when
# configured out) dracut_system_modulesdir.
set -u

action=${1:-}
[ $# -gt 0 ] && shift
# The drop-ins, each as UNIT.service.d/dormouse.conf under its directory.
dropin_names="systemd-hibernate.service.d/dormouse.conf systemd-hybrid-sleep.service.d/dormouse.conf systemd-suspend-then-hibernate.service.d/dormouse.conf"
: "${DESTDIR:=}" "${MKDIR_P:=mkdir -p}" "${INSTALL_DATA:=install -m 644}"
: "${dracut_system_modulesdir:=/usr/lib/dracut/modules.d}"
: "${sysconfdir:?}" "${pkgdatadir:?}" "${systemdsystemunitdir:?}" "${initramfstoolsdir:?}" \
	"${dracutmodulesdir:?}"

dropin_name=systemd-hibernate.service.d/dormouse.conf
parked_dir=$pkgdatadir/systemd

# norm DIR: without a trailing slash and without doubled slashes.
norm()
{
	printf '%s\n' "$1" | sed -e 's|//*|/|g' -e 's|\(.\)/$|\1|'
}

# in_list DIR LIST...: whether DIR is one of LIST.
in_list()
{
	d=$(norm "$1")
	shift
	for l in "$@"; do
		[ "$d" = "$(norm "$l")" ] && return 0
	done
	return 1
}

# Whether the system this is installed into has the tool, when that can be
# known (installing into the running system, or a test's own root).
host_check=no
if [ -n "${DMO_CHECK_ROOT:-}" ]; then
	host_check=yes
	root=$DMO_CHECK_ROOT
elif [ -z "$DESTDIR" ]; then
	host_check=yes
	root=
fi
has_initramfs_tools()
{
	[ "$host_check" = no ] || [ -e "$root/usr/share/initramfs-tools/hook-functions" ]
}
has_dracut()
{
	[ "$host_check" = no ] || [ -e "$root/usr/bin/dracut" ] || [ -e "$root/sbin/dracut" ] ||
		[ -e "$root/usr/sbin/dracut" ]
}

# The state of each half: a line for the summary, and whether it is active.
resume_active=no
it_line="not installed (--with-initramfs-tools-dir=no)"
if [ "$initramfstoolsdir" != no ]; then
	if ! in_list "$initramfstoolsdir" /usr/share/initramfs-tools /etc/initramfs-tools; then
		it_line="$initramfstoolsdir: NOT ACTIVE, initramfs-tools reads /usr/share/initramfs-tools and /etc/initramfs-tools only"
	elif ! has_initramfs_tools; then
		it_line="$initramfstoolsdir: not active, initramfs-tools is not installed"
	else
		it_line="$initramfstoolsdir: active once \"update-initramfs -u\" has run"
		resume_active=yes
	fi
fi
dr_line="not installed (--with-dracut-dir=no)"
if [ "$dracutmodulesdir" != no ]; then
	if ! in_list "$dracutmodulesdir" /usr/lib/dracut/modules.d "$dracut_system_modulesdir"; then
		dr_line="$dracutmodulesdir/90dormouse: NOT ACTIVE, dracut reads $dracut_system_modulesdir only"
	elif ! has_dracut; then
		dr_line="$dracutmodulesdir/90dormouse: not active, dracut is not installed"
	else
		dr_line="$dracutmodulesdir/90dormouse: active once \"dracut -f\" has run"
		resume_active=yes
	fi
fi

# Where the drop-in goes: systemd's directory when resume is active,
# else parked.
if [ "$systemdsystemunitdir" = no ]; then
	dropin_dir=
elif [ "$resume_active" = yes ]; then
	dropin_dir=$systemdsystemunitdir
else
	dropin_dir=$parked_dir
fi

case "$action" in
install)
	[ $# -gt 0 ] || {
		echo "usage: $0 install DROPIN..." >&2
		exit 2
	}
	for src in "$@"; do
		[ -n "$dropin_dir" ] || break
		unit_dir=${src%/*}
		name=${unit_dir##*/}/${src##*/}
		$MKDIR_P "$DESTDIR$dropin_dir/${name%/*}" &&
			$INSTALL_DATA "$src" "$DESTDIR$dropin_dir/$name" || exit 1
		# What an earlier install left in the other place goes.
		if [ "$dropin_dir" = "$parked_dir" ]; then
			rm -f "$DESTDIR$systemdsystemunitdir/$name"
		else
			rm -f "$DESTDIR$parked_dir/$name"
		fi
	done
	;;
uninstall)
	[ "$systemdsystemunitdir" = no ] && exit 0
	for name in $dropin_names; do
		rm -f "$DESTDIR$systemdsystemunitdir/$name" "$DESTDIR$parked_dir/$name"
	done
	exit 0
	;;
*)
	echo "usage: $0 install DROPIN... | uninstall" >&2
	exit 2
	;;
esac

if [ -z "$dropin_dir" ]; then
	hib_line="not installed (--with-systemdsystemunitdir=no): hibernation is the kernel's own"
elif [ "$dropin_dir" = "$parked_dir" ]; then
	hib_line="NOT ACTIVE, parked in $parked_dir/$dropin_name"
elif ! in_list "$systemdsystemunitdir" /etc/systemd/system /run/systemd/system \
	/usr/local/lib/systemd/system /usr/lib/systemd/system /lib/systemd/system; then
	hib_line="$dropin_dir/$dropin_name: NOT ACTIVE, systemd does not read $systemdsystemunitdir; hibernation is the kernel's own"
else
	hib_line="$dropin_dir/$dropin_name: active once \"systemctl daemon-reload\" has run (also hybrid-sleep and suspend-then-hibernate)"
fi

echo "dormouse is installed${DESTDIR:+ in $DESTDIR}:"
echo "  configuration:          $sysconfdir/dormouse.conf"
echo "  hibernate (systemd):    $hib_line"
echo "  resume (initramfs-tools): $it_line"
echo "  resume (dracut):        $dr_line"
if [ -n "$dropin_dir" ] && [ "$resume_active" = no ]; then
	cat <<EOF
dormouse: ************************************************************************
dormouse: WARNING: no initramfs would resume a dormouse image on this system.
dormouse: Neither the initramfs-tools hook nor the dracut module is installed
dormouse: where initramfs-tools or dracut reads it (or neither tool is installed).
dormouse: An image written now would never be restored, so the systemd drop-ins
dormouse: are NOT active: hibernation (also hybrid sleep and suspend-then-hibernate)
dormouse: stays the kernel's own.
dormouse: To make both halves active, configure with
dormouse:   --with-initramfs-tools-dir=/usr/share/initramfs-tools (Debian, Ubuntu) or
dormouse:   --with-dracut-dir=$dracut_system_modulesdir (Fedora, Arch, openSUSE)
dormouse: and run "make install" again.
dormouse: ************************************************************************
EOF
fi
exit 0
