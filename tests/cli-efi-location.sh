#!/bin/sh
# systemd's HibernateLocation, end to end on the simulated kernel: with no
# resume device named anywhere, hibernate picks the active swap area (from
# a stand-in /proc/swaps) and writes the EFI variable (into a stand-in
# efivarfs) as systemd-sleep would; resume finds the device through it;
# another installation's variable, or none, changes nothing. TAP output.
set -u

srcdir=${DMO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${DMO_BUILDDIR:-$(pwd)}
. "$srcdir/tests/tap.sh"

require_dormouse
require_mkswap
if ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 is not installed"
	exit 0
fi
scratch cli-efi
export LANG=C LANGUAGE=

swap="$tmp/swap"
uuid=0b5e9c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b
var="$tmp/efivars/HibernateLocation-8cf2644b-4b0b-428f-9387-6d876050dc67"
mkdir -p "$tmp/proc" "$tmp/efivars"
truncate -s 16M "$swap" && chmod 600 "$swap" && "$mkswap" -U "$uuid" "$swap" >/dev/null 2>&1
printf 'Filename\tType\tSize\tUsed\tPriority\n%s\tfile\t16380\t0\t-2\n' "$swap" >"$tmp/proc/swaps"
printf 'BOOT_IMAGE=/vmlinuz root=/dev/vda2 ro quiet\n' >"$tmp/cmdline"
printf 'resume timeout = 200\n' >"$tmp/dormouse.conf"
common="--kernel sim --sim-size 4M --splash none --config $tmp/dormouse.conf --cmdline $tmp/cmdline"
# The variable's text: efivarfs's attribute word, then UTF-16LE.
var_text() { python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); print(d[4:].decode("utf-16-le").rstrip("\0"))' "$1"; }
put_var() { python3 -c 'import sys,struct; open(sys.argv[1],"wb").write(struct.pack("<I",7)+sys.argv[2].encode("utf-16-le")+b"\0\0")' "$1" "$2"; }
# dormouse resume with nothing named but the stand-in efivarfs: $rc, $tmp/err.
resume_efi() {
	"$prog" resume $common --efivars "$tmp/efivars" 2>"$tmp/err"
	rc=$?
}
os_id=$(sed -n 's/^ID=//p' /etc/os-release 2>/dev/null | tr -d '"')

"$prog" hibernate $common --sim-proc "$tmp/proc" --efivars "$tmp/efivars" 2>"$tmp/err"
rc=$?
check "nothing named, EFI: hibernate picks the active swap area and succeeds" test "$rc" = 0
check "it says where the image goes and that HibernateLocation tells the next boot" \
	grep -q "no resume device is named: the image goes to $swap (page 0), and the EFI variable HibernateLocation tells" "$tmp/err"
check "the image is on the swap area" "$prog" info "$swap"
text=$(var_text "$var" 2>/dev/null)
check "HibernateLocation holds systemd's JSON: the swap area's UUID, page 0 ($text)" \
	sh -c 'printf "%s" "$1" | grep -q "^{\"uuid\":\"$2\",\"offset\":0,\"kernelVersion\":\""' sh "$text" "$uuid"
check "and this installation's os-release ID" \
	sh -c 'printf "%s" "$1" | grep -q "\"osReleaseId\":\"$2\""' sh "$text" "$os_id"

resume_efi
check "resume with nothing named looks where HibernateLocation says (UUID=$uuid)" \
	grep -q "resume device UUID=$uuid not found (waited for it)" "$tmp/err"
check "and, the device not there, the boot goes on (exit 1)" test "$rc" = 1
check "the variable stays while its image was not found" test -e "$var"

# Another installation's variable is left alone.
put_var "$var" "{\"uuid\":\"$uuid\",\"offset\":0,\"osReleaseId\":\"not-$os_id\"}"
resume_efi
check "another installation's HibernateLocation: said, and not used" \
	grep -q "names an image of another installation (not-$os_id" "$tmp/err"
check "then nothing names a device (exit 2)" test "$rc" = 2
check "and its variable stays" test -e "$var"

# Garbage in the variable: said, nothing else happens.
put_var "$var" "{\"uuid\":\"$uuid\",\"offset\":-3}"
resume_efi
check "a malformed HibernateLocation: said as unreadable" grep -q "HibernateLocation in .* cannot be read" "$tmp/err"

# Not booted through EFI (no efivarfs): nothing is picked; the old sentence.
"$prog" hibernate $common --sim-proc "$tmp/proc" 2>"$tmp/err"
rc=$?
check "no efivarfs: hibernate refuses (exit 2), nothing named" \
	sh -c "test $rc = 2 && grep -q 'no resume device: give --resume-device' \"$tmp/err\""
# A named device: no variable is written.
rm -f "$var"
"$mkswap" -U "$uuid" "$swap" >/dev/null 2>&1
"$prog" hibernate $common --sim-proc "$tmp/proc" --efivars "$tmp/efivars" --resume-device "$swap" 2>"$tmp/err"
check "a named device: hibernated, and no HibernateLocation written" \
	sh -c '"$2" info "$3" >/dev/null && test ! -e "$1"' sh "$var" "$prog" "$swap"

# The initramfs must read the variable: its record says whether it does.
# One written by a dormouse that did not (no such line), or built on a
# boot without EFI, would boot afresh: refused before the freeze.
"$mkswap" -U "$uuid" "$swap" >/dev/null 2>&1
rm -f "$var"
release=6.12.0-test
mkdir -p "$tmp/state/initramfs"
cp "$tmp/dormouse.conf" "$tmp/state/initramfs/$release.conf"
sum=$(sha256sum <"$tmp/dormouse.conf" | cut -d ' ' -f 1)
put_record() {
	printf 'record = 1\nkernel = %s\nbuilder = initramfs-tools\nconfig-sha256 = %s\nresume =\n%b' \
		"$release" "$sum" "$1" >"$tmp/state/initramfs/$release"
}
hibernate_recorded() {
	"$prog" hibernate $common --sim-proc "$tmp/proc" --efivars "$tmp/efivars" \
		--sim-kernel-release "$release" --sim-state-dir "$tmp/state" 2>"$tmp/err"
	rc=$?
}
put_record ""
hibernate_recorded
check "an initramfs of an older dormouse (no reads-hibernate-location): refused (exit 2)" \
	test "$rc" = 2
check "naming the kernel, HibernateLocation and the way out" \
	grep -q "initramfs of kernel $release would not read systemd's HibernateLocation.*run update-initramfs -u (or dracut -f), or put resume=$swap" "$tmp/err"
check "nothing written: no variable, the area still plain swap" \
	sh -c 'test ! -e "$1" && test "$(blkid -p -o value -s TYPE "$2")" = swap' sh "$var" "$swap"
put_record "reads-hibernate-location = no\n"
hibernate_recorded
check "an initramfs built on a boot without EFI: refused the same way" \
	sh -c 'test "$1" = 2 && grep -q "would not read systemd.s HibernateLocation" "$2"' sh "$rc" "$tmp/err"
put_record "reads-hibernate-location = yes\n"
hibernate_recorded
check "an initramfs that reads it: hibernated" test "$rc" = 0

echo "1..$n"
exit $((failed > 0))
