#!/bin/sh
# A resume device on the network (nbd://), end to end on the simulated
# kernel, with stand-ins for nbd-client, modprobe, swapon and swapoff
# (DORMOUSE_DEBUG_NBD_ROOT): the stand-in nbd-client "connects" dev/nbdN to
# a file playing the server's export. What is connected, when it is let
# go, the plain-image policy, a server gone at resume (the boot goes on,
# the image stays for the next boot), and hostile addresses refused with
# the key they came from. TAP output.
set -u

srcdir=${DMO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${DMO_BUILDDIR:-$(pwd)}
. "$srcdir/tests/tap.sh"

require_dormouse
require_mkswap
scratch cli-network
export LANG=C LANGUAGE=

R="$tmp/nbd"
mkdir -p "$R/dev" "$R/sys/block/nbd0" "$R/sys/block/nbd1" "$tmp/exports"
echo 0 >"$R/sys/block/nbd0/size"
echo 0 >"$R/sys/block/nbd1/size"
# nbd-client HOST PORT DEV [-N EXPORT] [-timeout S] | nbd-client -d DEV
cat >"$R/nbd-client" <<STUB
#!/bin/sh
echo "client \$*" >>"$R/log"
if [ "\$1" = -d ]; then
	n=\${2##*/nbd}; rm -f "\$2" "$R/sys/block/nbd\$n/pid"; echo 0 >"$R/sys/block/nbd\$n/size"; exit 0
fi
# await: the server answers once the text splash has named it (a bound, not a pause)
if [ -e "$R/await" ]; then
	i=0
	while ! grep -q 'Connecting to server.lab' "\$(cat "$R/await")" && [ \$i -lt 300 ]; do
		sleep 0.1; i=\$((i + 1))
	done
fi
n=\${3##*/nbd}; export=""
[ "\$4" = -N ] && export=\$5
[ "\$1" = server.lab ] && [ -f "$tmp/exports/\$export" ] || {
	echo "Error: Connection refused" >&2; exit 1; }
ln -sf "$tmp/exports/\$export" "\$3"
echo \$\$ >"$R/sys/block/nbd\$n/pid"
echo 32768 >"$R/sys/block/nbd\$n/size"
STUB
printf '#!/bin/sh\necho "swapon $*" >>"%s/log"\n[ -e "%s/noswap" ] && exit 255\nexit 0\n' "$R" "$R" >"$R/swapon"
printf '#!/bin/sh\necho "swapoff $*" >>"%s/log"\n' "$R" >"$R/swapoff"
printf '#!/bin/sh\necho "modprobe $*" >>"%s/log"\n' "$R" >"$R/modprobe"
chmod +x "$R/nbd-client" "$R/swapon" "$R/swapoff" "$R/modprobe"
export DORMOUSE_DEBUG_NBD_ROOT="$R"

export_file="$tmp/exports/swap"
truncate -s 16M "$export_file" && chmod 600 "$export_file" && "$mkswap" "$export_file" >/dev/null 2>&1
printf 'BOOT_IMAGE=/vmlinuz root=/dev/vda2 ro quiet ip=dhcp\n' >"$tmp/cmdline"
conf="$tmp/dormouse.conf"
printf 'resume device = nbd://server.lab/swap\nresume timeout = 2000\n' >"$conf"
common="--kernel sim --sim-size 4M --splash none --config $conf --cmdline $tmp/cmdline"
: >"$R/log"
# A new boot: the stand-in kernel forgets its connections.
reboot() {
	rm -f "$R"/sys/block/nbd*/pid "$R"/dev/nbd*
	for s in "$R"/sys/block/nbd*/size; do echo 0 >"$s"; done
	: >"$R/log"
}
run() {
	"$@" 2>"$tmp/err"
	rc=$?
}

run "$prog" hibernate $common
check "encrypt = none to the network: hibernate refuses (exit 2)" test "$rc" = 2
check "it says why and what to set" \
	grep -q 'the image would go over the network to server.lab unencrypted (encrypt = none).*"network plain = yes"' "$tmp/err"
check "and nothing was connected" test ! -s "$R/log"

printf 'network plain = yes\n' >>"$conf"
run "$prog" hibernate $common
check "with network plain = yes: hibernated (exit 0)" test "$rc" = 0
check "with a warning that the image is plain on the network" \
	grep -q 'note: the image goes over the network to server.lab unencrypted' "$tmp/err"
check "the export was connected on the first free device, then enabled as swap" \
	test "$(cat "$R/log")" = "client server.lab 10809 $R/dev/nbd0 -N swap -timeout 30
swapon $R/dev/nbd0"
check "the image is on the server's export" sh -c '"$1" info "$2" >/dev/null' sh "$prog" "$export_file"

# The server gone at boot: the boot goes on within the bound, image kept.
reboot
mv "$export_file" "$export_file.away"
run "$prog" resume $common
check "server gone at resume: no image, the boot goes on (exit 1)" test "$rc" = 1
check "it says the server could not be reached and that the image stays there" \
	grep -q 'cannot connect to the export "swap" of the NBD server server.lab .*stays on the server' "$tmp/err"
check "it tried again within the bound (resume timeout)" \
	test "$(grep -c '^client server.lab' "$R/log")" -ge 1
mv "$export_file.away" "$export_file"
check "the image is still on the export" sh -c '"$1" info "$2" >/dev/null' sh "$prog" "$export_file"

# The next boot: dormouse.resume= on the kernel command line names it.
reboot
printf 'resume timeout = 30000\n' >"$tmp/boot.conf"
printf 'root=/dev/vda2 ip=dhcp resume=/dev/vda3 dormouse.resume=nbd://server.lab/swap\n' >"$tmp/boot.cmdline"
run "$prog" resume --kernel sim --sim-size 4M --splash none --config "$tmp/boot.conf" \
	--cmdline "$tmp/boot.cmdline"
check "resume over the network: restored, every page (exit 0)" test "$rc" = 0
check "connected without swap, then let go" \
	test "$(cat "$R/log")" = "client server.lab 10809 $R/dev/nbd0 -N swap -timeout 30
client -d $R/dev/nbd0"
"$prog" info "$export_file" >/dev/null 2>&1
rc=$?
check "the image is gone from the export after the restore" test "$rc" = 1

# The splash names the server while it waits: the stand-in server answers
# only once the text splash has said so. The export then holds no image.
reboot
printf 'resume device = nbd://server.lab/swap\nresume timeout = 60000\n' >"$tmp/wait.conf"
echo "$tmp/out" >"$R/await"
"$prog" resume --kernel sim --sim-size 4M --splash text --config "$tmp/wait.conf" \
	--cmdline "$tmp/cmdline" >"$tmp/out" 2>&1
rc=$?
rm -f "$R/await"
check "the splash says whom it is connecting to while it waits" \
	grep -qx '\[  0%\] Connecting to server.lab...' "$tmp/out"
check "then the export is reached, with no image on it (exit 1)" test "$rc" = 1

# Encrypted, nothing more to say: no network plain needed.
reboot
printf 'resume device = nbd://server.lab/swap\nresume timeout = 30000\n' >"$tmp/enc.conf"
printf 'correct horse battery staple\n' >"$tmp/key" && chmod 600 "$tmp/key"
enc="--kernel sim --sim-size 4M --splash none --config $tmp/enc.conf --cmdline $tmp/cmdline"
run "$prog" hibernate $enc --encrypt passphrase --key-file "$tmp/key"
check "an encrypted image goes to the network without network plain (exit 0)" test "$rc" = 0
check "and without a warning" sh -c '! grep -q unencrypted "$1"' sh "$tmp/err"
reboot
run "$prog" resume $enc --key-file "$tmp/key"
check "and comes back from it (exit 0)" test "$rc" = 0

# A hibernation that fails: the export is let go again.
reboot
run "$prog" hibernate $common --sim-fault eio-write@3
check "a failed hibernation (exit 6)" test "$rc" = 6
check "swap off and disconnected afterwards" \
	sh -c 'tail -n 2 "$1" | tr "\n" "|" | grep -q "^swapoff $2/dev/nbd0|client -d $2/dev/nbd0|$"' sh "$R/log" "$R"

# An export with no swap area: refused, disconnected.
reboot
touch "$R/noswap"
run "$prog" hibernate $common
check "an export swapon refuses: nothing hibernated (exit 6)" test "$rc" = 6
check "it says to make a swap area once, with the commands" \
	grep -q 'must hold a swap area. Make one once: nbd-client server.lab 10809 /dev/nbd0 -N "swap" && mkswap' "$tmp/err"
check "and nothing stays connected" test "$(tail -n 1 "$R/log")" = "client -d $R/dev/nbd0"
rm -f "$R/noswap"

# Every device busy.
reboot
echo 1 >"$R/sys/block/nbd0/pid"; echo 1 >"$R/sys/block/nbd1/pid"
run "$prog" hibernate $common
check "every nbd device busy: said (exit 6)" \
	sh -c "test $rc = 6 && grep -q 'every /dev/nbd device is in use' \"$tmp/err\""
reboot

# Hostile addresses: refused before anything runs, naming the key.
run "$prog" hibernate $common --resume-device 'nbd://user@server.lab/swap'
check "a user name in --resume-device: refused (exit 2), naming the option" \
	sh -c "test $rc = 2 && grep -q -- '--resume-device: \"nbd://user@server.lab/swap\" is not a network device dormouse can use: a user name' \"$tmp/err\""
check "and what to write" grep -q 'Write nbd://HOST\[:PORT\]/EXPORT, for example nbd://server.lab/swap-pc12' "$tmp/err"
printf 'resume device = nbd://2001:db8::7/swap\nnetwork plain = yes\n' >"$tmp/bad.conf"
run "$prog" hibernate --kernel sim --sim-size 4M --splash none --config "$tmp/bad.conf" --cmdline "$tmp/cmdline"
check "an IPv6 address without brackets in the config: refused, naming the key and the file" \
	grep -q "\"resume device\" in $tmp/bad.conf: .*IPv6 address in brackets" "$tmp/err"
printf 'root=/dev/vda2 dormouse.resume=nbds://server.lab/swap\n' >"$tmp/tls.cmdline"
run "$prog" resume --kernel sim --sim-size 4M --splash none --config "$tmp/boot.conf" --cmdline "$tmp/tls.cmdline"
check "TLS on the kernel command line: refused (exit 2), naming dormouse.resume=" \
	sh -c "test $rc = 2 && grep -q 'dormouse.resume= on the kernel command line: .*TLS (nbds://) is not supported' \"$tmp/err\""
check "nothing ran for any of them" test ! -s "$R/log"

# What the initramfs holds: an image it could not reach is refused before
# the freeze, and the export let go.
state="$tmp/state"
mkdir -p "$state/initramfs"
cp "$conf" "$state/initramfs/6.12.0-test.conf"
record() {
	printf 'record = 1\nkernel = 6.12.0-test\nbuilder = initramfs-tools\nconfig-sha256 = %s\nresume =\nnbd-client = %s\n' \
		"$(sha256sum <"$conf" | cut -d ' ' -f 1)" "$1" >"$state/initramfs/6.12.0-test"
}
record no
reboot
run "$prog" hibernate $common --sim-kernel-release 6.12.0-test --sim-state-dir "$state"
check "an initramfs without nbd-client: hibernate refuses before the freeze (exit 2)" test "$rc" = 2
check "it says to install nbd-client and rebuild the initramfs" \
	grep -q 'the image goes to the network (nbd://server.lab/swap), but the initramfs of kernel 6.12.0-test has no nbd-client to reach it' "$tmp/err"
check "and lets the export go" test "$(tail -n 1 "$R/log")" = "client -d $R/dev/nbd0"
record yes
reboot
run "$prog" hibernate $common --sim-kernel-release 6.12.0-test --sim-state-dir "$state"
check "an initramfs with nbd-client and the same export: hibernated (exit 0)" test "$rc" = 0

# nbd-client not installed: said, with the way out.
reboot
mv "$R/nbd-client" "$R/nbd-client.away"
run "$prog" hibernate $common
check "no nbd-client: nothing hibernated (exit 6), and it says to install it" \
	sh -c "test $rc = 6 && grep -q 'nbd-client is not installed (apt install nbd-client' \"$tmp/err\""
mv "$R/nbd-client.away" "$R/nbd-client"

# The simulated kernel never reaches for the real nbd-client.
run env -u DORMOUSE_DEBUG_NBD_ROOT "$prog" hibernate $common
check "no stand-ins: the simulated kernel refuses nbd:// (exit 2)" \
	sh -c "test $rc = 2 && grep -q 'only through stand-ins' \"$tmp/err\""

echo "1..$n"
exit $((failed > 0))
