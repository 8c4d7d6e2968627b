#!/bin/sh
# "make install DESTDIR=..." lays out what a distribution packages: the
# program, themes, fonts, catalogs, the example configuration (installed as
# /etc/dormouse.conf only when there is none), the systemd drop-in, the
# initramfs-tools and dracut files with real paths substituted, and shell
# scripts that parse. TAP output.
set -u

builddir=${DMO_BUILDDIR:-$(pwd)}
MAKE=${MAKE:-make}

. "${DMO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/tap.sh"

dest=$(mktemp -d "${TMPDIR:-/tmp}/data-install.XXXXXX") || exit 99
trap 'rm -rf "$dest"' EXIT INT TERM

# The installation directories as this build sees them.
vars=$(cd "$builddir" && $MAKE -s --no-print-directory -f Makefile -f - dmo-print-dirs <<'MK'
dmo-print-dirs:
	@echo "bindir='$(bindir)' sysconfdir='$(sysconfdir)' pkgdatadir='$(pkgdatadir)'"
	@echo "localedir='$(localedir)' docdir='$(docdir)' pkglibexecdir='$(pkglibexecdir)'"
	@echo "systemdsystemunitdir='$(systemdsystemunitdir)' initramfstoolsdir='$(initramfstoolsdir)'"
	@echo "dracutmodulesdir='$(dracutmodulesdir)' mandir='$(mandir)' bashcompletiondir='$(bashcompletiondir)'"
	@echo "prefix='$(prefix)' datadir='$(datadir)' pkglibdir='$(pkglibdir)'"
MK
)
eval "$vars"

# The installation is checked with both halves where the system reads them,
# as configure's defaults put them. A build configured with other
# directories (distcheck puts them under its prefix) is installed with the
# system's directories given on the make command line instead.
layout=""
case "$initramfstoolsdir" in
/usr/share/initramfs-tools | /etc/initramfs-tools) ;;
*)
	systemdsystemunitdir=/usr/lib/systemd/system
	initramfstoolsdir=/usr/share/initramfs-tools
	dracutmodulesdir=/usr/lib/dracut/modules.d
	layout="systemdsystemunitdir=$systemdsystemunitdir initramfstoolsdir=$initramfstoolsdir"
	layout="$layout dracutmodulesdir=$dracutmodulesdir"
	;;
esac
check "the build names its installation directories" test -n "${pkgdatadir:-}" -a -n "${initramfstoolsdir:-}"

if (cd "$builddir" && $MAKE -s install DESTDIR="$dest" $layout) >"$dest.log" 2>&1; then
	ok "make install DESTDIR=... succeeds"
else
	not_ok "make install DESTDIR=... succeeds"
	tail -n 20 "$dest.log" | sed 's/^/# /'
fi
summary=$(cat "$dest.log")
rm -f "$dest.log"

root="$dest"
for f in "$bindir/dormouse" \
	"$pkgdatadir/themes/default/theme.conf" "$pkgdatadir/themes/default/logo.png" \
	"$pkgdatadir/themes/nocturne/theme.conf" "$pkgdatadir/themes/nocturne/throbber-11@2x.png" \
	"$pkgdatadir/themes/minimal/theme.conf" \
	"$pkgdatadir/fonts/DejaVuSans.ttf" "$pkgdatadir/fonts/DejaVuSans-Bold.ttf" \
	"$pkgdatadir/fonts/NotoSansArabic-Regular.ttf" \
	"$localedir/de/LC_MESSAGES/dormouse.mo" "$localedir/fr/LC_MESSAGES/dormouse.mo" \
	"$localedir/es/LC_MESSAGES/dormouse.mo" "$localedir/ar/LC_MESSAGES/dormouse.mo" \
	"$pkglibdir/locale/dormouse/LC_MESSAGES/SYS_LC_MESSAGES" \
	"$sysconfdir/dormouse.conf" "$docdir/dormouse.conf" "$docdir/config.md" \
	"$docdir/integration.md" \
	"$systemdsystemunitdir/systemd-hibernate.service.d/dormouse.conf" \
	"$systemdsystemunitdir/systemd-hybrid-sleep.service.d/dormouse.conf" \
	"$systemdsystemunitdir/systemd-suspend-then-hibernate.service.d/dormouse.conf" \
	"$pkglibexecdir/dormouse-sleep-hooks" \
	"$initramfstoolsdir/hooks/dormouse" "$initramfstoolsdir/scripts/local-premount/dormouse" \
	"$dracutmodulesdir/90dormouse/module-setup.sh" \
	"$dracutmodulesdir/90dormouse/dormouse-resume.sh" \
	"$mandir/man8/dormouse.8" "$mandir/man5/dormouse.conf.5" "$mandir/man7/dormouse-themes.7" \
	"$bashcompletiondir/dormouse"; do
	check "installed: $f" test -s "$root$f"
done

# The fonts' copies cut down for the initramfs (fonts/README.md), unless
# configured with --disable-font-subsets.
if [ -f "$builddir/fonts/initramfs.stamp" ]; then
	for f in DejaVuSans.ttf DejaVuSans-Bold.ttf NotoSansArabic-Regular.ttf; do
		check "installed, cut down for the initramfs: $f" \
			sh -c 'test -s "$1" && test "$(wc -c <"$1")" -lt "$(wc -c <"$2")"' sh \
			"$root$pkgdatadir/initramfs-fonts/$f" "$root$pkgdatadir/fonts/$f"
	done
fi

check "the initramfs-tools hook copies the messages locale from where it is installed" \
	grep -q "^MSGLOCALE=$pkglibdir/locale/dormouse/LC_MESSAGES/SYS_LC_MESSAGES\$" \
	"$root$initramfstoolsdir/hooks/dormouse"
check "the dracut module copies the messages locale from where it is installed" \
	grep -q "f=$pkglibdir/locale/dormouse/LC_MESSAGES/SYS_LC_MESSAGES\$" \
	"$root$dracutmodulesdir/90dormouse/module-setup.sh"

for f in "$pkglibexecdir/dormouse-sleep-hooks" "$initramfstoolsdir/hooks/dormouse" \
	"$initramfstoolsdir/scripts/local-premount/dormouse" \
	"$dracutmodulesdir/90dormouse/dormouse-resume.sh"; do
	check "executable: $f" test -x "$root$f"
	check "sh -n: $f" sh -n "$root$f"
done
check "bash -n: $dracutmodulesdir/90dormouse/module-setup.sh" \
	bash -n "$root$dracutmodulesdir/90dormouse/module-setup.sh"

# No template placeholder survives, and the real paths are in.
left=$(grep -rl '@[a-z]*dir@' "$root" 2>/dev/null)
check "no @dir@ placeholder left in installed files${left:+ ($left)}" test -z "$left"
dropin_path="$systemdsystemunitdir/systemd-hibernate.service.d/dormouse.conf"
dropin="$root$dropin_path"
for unit in hibernate:hibernate hybrid-sleep:hybrid-sleep suspend-then-hibernate:suspend-then-hibernate; do
	name=systemd-${unit%%:*}.service
	command=${unit#*:}
	unit_dropin="$root$systemdsystemunitdir/$name.d/dormouse.conf"
	check "$name's drop-in clears ExecStart before setting its own" \
		sh -c 'grep -n "^ExecStart=" "$1" | head -n 1 | grep -q "^[0-9]*:ExecStart=$"' sh "$unit_dropin"
	check "$name's drop-in runs $bindir/dormouse $command" \
		grep -qx "ExecStart=$bindir/dormouse $command" "$unit_dropin"
	if command -v systemd-analyze >/dev/null 2>&1 && [ -r "/lib/systemd/system/$name" ]; then
		unitdir="$dest/unit-check"
		rm -rf "$unitdir"
		mkdir -p "$unitdir/$name.d"
		cp "/lib/systemd/system/$name" "$unitdir/"
		# Point ExecStart at a binary that exists here, so verify checks syntax.
		sed -e "s|$bindir/dormouse|/bin/true|; s|$pkglibexecdir/dormouse-sleep-hooks|/bin/true|" \
			"$unit_dropin" >"$unitdir/$name.d/dormouse.conf"
		if out=$(SYSTEMD_UNIT_PATH="$unitdir:" systemd-analyze verify --man=no \
			"$unitdir/$name" 2>&1) && ! printf '%s' "$out" | grep -qi 'unknown\|invalid\|ignoring'; then
			ok "systemd-analyze verify accepts $name with the drop-in"
		else
			not_ok "systemd-analyze verify accepts $name with the drop-in"
			printf '%s\n' "$out" | sed 's/^/# /'
		fi
	fi
done
hook="$root$initramfstoolsdir/hooks/dormouse"
check "the initramfs hook copies $bindir/dormouse" grep -q "^DORMOUSE=$bindir/dormouse\$" "$hook"

# One configuration file: the one "make install" wrote is the one the
# program reads and the one the initramfs hooks copy (to the same path).
conf="$sysconfdir/dormouse.conf"
check "the program reads $conf" grep -q -a -F "$conf" "$root$bindir/dormouse"
check "the initramfs-tools hook copies $conf" grep -q "^CONF=$conf\$" "$hook"
check "the dracut module copies $conf" \
	grep -q "inst_simple $conf\$" "$root$dracutmodulesdir/90dormouse/module-setup.sh"
check "dormouse.conf(5) documents $conf" grep -q -F "$conf" "$root$mandir/man5/dormouse.conf.5"

# Both halves where the system reads them: the summary says so, and says
# nothing about an inactive half.
check "make install ends with what is active" \
	sh -c 'printf "%s" "$1" | grep -q "hibernate (systemd): *$2/systemd-hibernate.service.d/dormouse.conf: active"' \
	sh "$summary" "$systemdsystemunitdir"
check "make install has no warning when both halves are active" \
	sh -c '! printf "%s" "$1" | grep -q WARNING' sh "$summary"

# An administrator's /etc/dormouse.conf survives a reinstall.
echo "theme = nocturne # mine" >"$root$sysconfdir/dormouse.conf"
(cd "$builddir" && $MAKE -s install-data DESTDIR="$dest" $layout) >/dev/null 2>&1
check "make install keeps an existing $sysconfdir/dormouse.conf" \
	grep -q "# mine" "$root$sysconfdir/dormouse.conf"

# The example configuration parses without a note (every key is known).
if [ -x "$builddir/dormouse" ]; then
	sed -e 's/^#\([a-z][a-z ]* = \)/\1/' "$root$docdir/dormouse.conf" >"$dest/all-keys.conf"
	out=$("$builddir/dormouse" hibernate --config "$dest/all-keys.conf" --kernel sim \
		--splash none --resume-device /nonexistent 2>&1)
	if printf '%s' "$out" | grep -q 'all-keys.conf:'; then
		not_ok "every key of the example configuration is understood"
		printf '%s\n' "$out" | sed 's/^/# /'
	else
		ok "every key of the example configuration is understood"
	fi
	# ...and the check above would see a key the program does not know.
	echo "no such key = 1" >>"$dest/all-keys.conf"
	out=$("$builddir/dormouse" hibernate --config "$dest/all-keys.conf" --kernel sim \
		--splash none --resume-device /nonexistent 2>&1)
	check "an unknown key in the configuration is reported" \
		sh -c 'printf "%s" "$1" | grep -q "all-keys.conf:[0-9]*:.*no such key"' sh "$out"
fi

# The initramfs pieces where neither initramfs-tools nor dracut reads them
# (what --prefix=/usr/local used to do; named outright, since under a
# --prefix=/usr build, a package's, $datadir/initramfs-tools is the
# directory initramfs-tools reads): the drop-in must not be active, and the
# end of "make install" says so loudly.
dest2=$dest/elsewhere
out=$(cd "$builddir" && $MAKE -s install DESTDIR="$dest2" systemdsystemunitdir="$systemdsystemunitdir" \
	initramfstoolsdir=/usr/local/share/initramfs-tools dracutmodulesdir=/usr/local/lib/dracut/modules.d 2>&1)
check "no resume half read by the system: the drop-in is not installed in $systemdsystemunitdir" \
	test ! -e "$dest2$dropin_path" -a -s "$dest2$pkgdatadir/systemd/systemd-hibernate.service.d/dormouse.conf"
check "no resume half read by the system: make install warns loudly" \
	sh -c 'printf "%s" "$1" | grep -q "WARNING: no initramfs would resume" &&
		printf "%s" "$1" | grep -q "initramfs-tools): /usr/local/share/initramfs-tools: NOT ACTIVE"' sh "$out"
(cd "$builddir" && $MAKE -s uninstall DESTDIR="$dest2" systemdsystemunitdir="$systemdsystemunitdir" \
	initramfstoolsdir=/usr/local/share/initramfs-tools dracutmodulesdir=/usr/local/lib/dracut/modules.d) >/dev/null 2>&1
check "uninstall takes the parked drop-in away" \
	test ! -e "$dest2$pkgdatadir/systemd/systemd-hibernate.service.d/dormouse.conf"
rm -rf "$dest2"

# Installing into a system that has neither initramfs-tools nor dracut
# (DMO_CHECK_ROOT stands for the running system's /): parked as well; with
# initramfs-tools there, active.
fake=$dest/fake-root
mkdir -p "$fake"
out=$(cd "$builddir" && DMO_CHECK_ROOT="$fake" $MAKE -s install DESTDIR="$dest2" $layout 2>&1)
check "a system without initramfs-tools or dracut: the drop-in is parked, with a warning" \
	sh -c 'test ! -e "$1" && printf "%s" "$2" | grep -q "initramfs-tools is not installed" &&
		printf "%s" "$2" | grep -q WARNING' sh "$dest2$dropin_path" "$out"
mkdir -p "$fake/usr/share/initramfs-tools"
touch "$fake/usr/share/initramfs-tools/hook-functions"
out=$(cd "$builddir" && DMO_CHECK_ROOT="$fake" $MAKE -s install DESTDIR="$dest2" $layout 2>&1)
check "a system with initramfs-tools: the drop-in is active, the parked one gone" \
	test -s "$dest2$dropin_path" -a ! -e "$dest2$pkgdatadir/systemd/systemd-hibernate.service.d/dormouse.conf"
rm -rf "$dest2" "$fake"

# configure: --prefix=/usr puts the configuration in /etc (not /usr/etc),
# unless --sysconfdir says otherwise.
# conf_case PREFIX EXPECTED [ARGS...]: configure --prefix=PREFIX ARGS puts
# the configuration in EXPECTED.
conf_case()
{
	p=$1 want=$2
	shift 2
	mkdir -p "$dest/conf-build"
	got=$(cd "$dest/conf-build" && "$DMO_SRCDIR/configure" -q --cache-file="$dest/config.cache" \
		--prefix="$p" "$@" >/dev/null 2>&1 &&
		sed -n 's/^sysconfdir = //p' Makefile | sed "s|\${prefix}|$p|")
	rm -rf "$dest/conf-build"
	check "configure --prefix=$p $*: the configuration is $want/dormouse.conf (got $got)" \
		test "$got" = "$want"
}
if [ -n "${DMO_SRCDIR:-}" ] && [ ! -e "$DMO_SRCDIR/config.status" ]; then
	conf_case /usr /etc
	conf_case /usr /opt/etc --sysconfdir=/opt/etc
	# Whatever the prefix, the initramfs pieces go where the tools read them.
	mkdir -p "$dest/conf-build"
	got=$(cd "$dest/conf-build" && "$DMO_SRCDIR/configure" -q --cache-file="$dest/config.cache" \
		--prefix=/opt/dm >/dev/null 2>&1 &&
		sed -n -e 's/^initramfstoolsdir = //p' -e 's/^systemdsystemunitdir = //p' Makefile | tr '\n' ' ')
	rm -rf "$dest/conf-build"
	check "configure --prefix=/opt/dm: initramfs-tools and systemd directories are the system's ($got)" \
		sh -c 'case "$1" in "/usr/share/initramfs-tools /lib/systemd/system " | \
			"/usr/share/initramfs-tools /usr/lib/systemd/system ") ;; *) exit 1 ;; esac' sh "$got"
	rm -f "$dest/config.cache"
fi

# Uninstall removes everything but the administrator's changed file.
(cd "$builddir" && $MAKE -s uninstall DESTDIR="$dest" $layout) >/dev/null 2>&1
left=$(cd "$dest" && find . -type f ! -path './unit-check/*' ! -name all-keys.conf | sort | tr '\n' ' ')
check "make uninstall leaves only the changed $sysconfdir/dormouse.conf${left:+ ($left)}" \
	test "$left" = ".$sysconfdir/dormouse.conf "

echo "1..$n"
[ "$failed" -eq 0 ]
