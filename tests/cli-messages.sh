#!/bin/sh
# Every message a person reads on the terminal, in every language of
# po/LINGUAS and English: a battery of bad input (unknown values, sizes out
# of range, missing devices, a file that is not a swap area, an unknown
# config key, a damaged image, a full swap area, I/O errors, a device that
# shrank under the image, a missing
# theme, a device that never appears) and a few good runs, all on the simulated kernel. Each must end
# with its documented exit status, print something when it fails, never
# print "(null)" or the same line twice, and speak the language asked for.
# TAP output.
set -u

srcdir=${DMO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${DMO_BUILDDIR:-$(pwd)}
. "$srcdir/tests/tap.sh"

require_dormouse
require_mkswap
languages="en $(sed -e 's/#.*//' "$srcdir/po/LINGUAS" | tr -s ' \t' '\n\n' | grep -v '^$')"
scratch cli-messages

swap="$tmp/swap"
plain="$tmp/plain"
sim="--kernel sim --sim-size 4M --sim-seed 7 --splash none"

fresh_swap() {
	rm -f "$swap"
	truncate -s 16M "$swap" && chmod 600 "$swap" && "$mkswap" "$swap" >/dev/null 2>&1
}

# The damaged image: a page of its chunk stream overwritten with zeros.
damage() {
	at=$("$prog" info --json "$swap" | sed -n 's/.*"extents":\[{"offset":\([0-9]*\).*/\1/p')
	[ -n "$at" ] && dd if=/dev/zero of="$swap" bs=4096 seek=$((at / 4096 + 1)) count=1 \
		conv=notrunc 2>/dev/null
}

truncate -s 16M "$plain" && chmod 600 "$plain"
printf 'compress = lz4\nbogus key = 1\n' >"$tmp/unknown-key.conf"
printf 'compress = lz5\n' >"$tmp/bad-value.conf"
printf 'resume timeout = 200\n' >"$tmp/short-wait.conf"

# expected status | what to set up first | what the output must name (the
# same in every language: an option, a file:line, a range) | the arguments
cases=$(cat <<LIST
2|fresh|--compress|hibernate $sim --compress bogus --resume-device $swap
2|fresh|--splash|hibernate $sim --splash bogus --resume-device $swap
2|fresh|--encrypt|hibernate $sim --encrypt bogus --resume-device $swap
2|fresh|8K|hibernate --kernel sim --sim-size 1 --resume-device $swap
2|fresh|64G|hibernate --kernel sim --sim-size 100G --resume-device $swap
0|fresh|bad-value.conf:1|hibernate $sim --config $tmp/bad-value.conf --resume-device $swap
2|fresh||hibernate $sim --resume-device $tmp/nonexistent
2|fresh|mkswap|hibernate $sim --resume-device $plain
2|fresh|mkswap|resume $sim --resume-device $plain
1|fresh||resume $sim --config $tmp/short-wait.conf --resume-device $tmp/nonexistent
6|fresh||hibernate $sim --resume-device $swap --sim-fault enospc@10
6|fresh||hibernate $sim --resume-device $swap --sim-fault eio-write@5
6|fresh|mkswap|hibernate $sim --resume-device $swap --sim-fault shrink@1050624
0|fresh|unknown-key.conf:2|hibernate $sim --config $tmp/unknown-key.conf --resume-device $swap
0|image||info $swap
3|damaged||resume $sim --resume-device $swap
7|image|--noresume|resume $sim --resume-device $swap --sim-fault shrink@1050624
1|fresh||info $swap
1|fresh||resume $sim --resume-device $swap
0|image||resume $sim --resume-device $swap
2|fresh||info $tmp/nonexistent
1|fresh||info $plain
6|fresh|theme.conf|theme check $tmp/nonexistent
2|fresh||theme bogus
2|fresh|--bogus|keygen --bogus
2|fresh||preview --size 0x0 --output $tmp/x.png
2|fresh||bogus
LIST
)

# Runs one case in one language; its output goes to $out.
run_case() {
	lang=$1 setup=$2 args=$3 out=$4
	fresh_swap
	case $setup in
	image | damaged)
		"$prog" hibernate $sim --resume-device "$swap" >/dev/null 2>&1
		[ "$setup" = damaged ] && damage
		;;
	esac
	# shellcheck disable=SC2086 # the arguments are split on purpose
	env -u LC_ALL -u LC_MESSAGES -u DORMOUSE_LOCALEDIR LANG=C.UTF-8 LANGUAGE="$lang" \
		"$prog" $args </dev/null >"$out" 2>&1
}

while IFS='|' read -r want setup needle args; do
	run_case en "$setup" "$args" "$tmp/en.out"
	en_rc=$?
	for lang in $languages; do
		if [ "$lang" = en ]; then
			cp "$tmp/en.out" "$tmp/out"
			rc=$en_rc
		else
			run_case "$lang" "$setup" "$args" "$tmp/out"
			rc=$?
		fi
		what="$lang: dormouse $(echo "$args" | sed "s|$tmp/||g")"
		problems=""
		[ "$rc" = "$want" ] || problems="$problems exit $rc, not $want;"
		if [ "$rc" != 0 ] && [ "$rc" != 1 ] && [ ! -s "$tmp/out" ]; then
			problems="$problems nothing said;"
		fi
		grep -q '(null)' "$tmp/out" && problems="$problems (null) printed;"
		if [ -n "$needle" ] && ! grep -q -e "$needle" "$tmp/out"; then
			problems="$problems does not name $needle;"
		fi
		dup=$(grep -v '^[[:space:]]*$' "$tmp/out" | sort | uniq -d | head -n 1)
		[ -n "$dup" ] && problems="$problems printed twice: $dup;"
		# A catalog's language speaks it: what English says in words differs.
		if [ "$lang" != en ] && [ -s "$tmp/en.out" ] && grep -q '[a-z][a-z][a-z]' "$tmp/en.out" &&
			cmp -s "$tmp/out" "$tmp/en.out"; then
			problems="$problems not translated;"
		fi
		if [ -z "$problems" ]; then
			ok "$what: exit $rc"
		else
			not_ok "$what:$problems"
			sed 's/^/# /' "$tmp/out" | head -n 8
		fi
	done
done <<CASES
$cases
CASES
echo "1..$n"
[ "$failed" -eq 0 ]
