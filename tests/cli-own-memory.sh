#!/bin/sh
# What dormouse itself puts in the image: the DORMOUSE_DEBUG_TIMING line
# printed just before the snapshot says how much of its private writable
# memory is not all zero (zero pages are left out of the image). The
# frame the splash keeps in memory (1920x1080: 7.9 MiB) and the writer's
# stream buffers (at least 1 MiB) must be zero then, so the figure stays
# below half a frame with the splash and below 1 MiB without. The figures
# are page counts, not times: a loaded machine gives the same. TAP output.
set -u

srcdir=${DMO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${DMO_BUILDDIR:-$(pwd)}
. "$srcdir/tests/tap.sh"

require_dormouse
require_mkswap
if [ ! -r /proc/self/pagemap ]; then
	echo "1..0 # SKIP /proc/self/pagemap cannot be read"
	exit 0
fi
# AddressSanitizer's allocator (red zones, quarantine, its own metadata)
# is not the one the figures are about.
if grep -q __asan_init "$prog"; then
	echo "1..0 # SKIP built with AddressSanitizer: its allocator would be measured"
	exit 0
fi
scratch cli-own-memory
echo "1..4"

swap="$tmp/swap"
truncate -s 64M "$swap" && chmod 600 "$swap" && "$mkswap" "$swap" >/dev/null 2>&1

# hibernate with --splash $1; prints the MiB not all zero at the snapshot.
nonzero_mib() {
	DORMOUSE_DEBUG_TIMING=1 "$prog" hibernate --kernel sim --sim-size 32M --sim-seed 3 \
		--resume-device "$swap" --splash "$1" --config /dev/null >/dev/null 2>"$tmp/err"
	echo "# exit $?: $(grep 'own memory at the snapshot' "$tmp/err")"
	sed -n 's/.*own memory at the snapshot: \([0-9.]*\) MiB not all zero.*/\1/p' "$tmp/err" \
		>"$tmp/mib"
}

# below MIB LIMIT: true when the figure was printed and is below LIMIT.
below() {
	[ -n "$1" ] && awk -v v="$1" -v lim="$2" 'BEGIN { exit !(v < lim) }'
}

nonzero_mib "png:$tmp/frames:1920x1080"
mib=$(cat "$tmp/mib")
check "the line is printed with the splash" test -n "$mib"
# A frame is 1920 * 1080 * 4 bytes, 7.91 MiB.
check "with the splash at 1920x1080, $mib MiB not zero: below half a frame (3.95 MiB)" \
	below "$mib" 3.95

nonzero_mib none
mib=$(cat "$tmp/mib")
check "the line is printed without a splash" test -n "$mib"
check "without a splash, $mib MiB not zero: below the writer's stream buffer (1 MiB)" \
	below "$mib" 1

exit $((failed > 0))
