#!/bin/sh
# Every shipped theme in every language of po/LINGUAS (and English): each
# scene, alone and with the passphrase and question dialogs, laid out at
# 800×600, 1280×800, 1920×1080 and 3840×2160 by "dormouse theme check",
# which measures the ink of every text against its box (no clipping), the
# boxes of texts, bar, logo, throbber and dialog against each other (no
# overlap) and the contrast of every text with what is under it. Run from
# the build tree, the program uses the catalogs "make" put there.
# TAP output.
set -u

srcdir=${DMO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${DMO_BUILDDIR:-$(pwd)}
. "$srcdir/tests/tap.sh"

prog="$builddir/dormouse"
if [ ! -x "$prog" ]; then
	echo "1..0 # SKIP the dormouse program is not built"
	exit 0
fi
languages="en $(sed -e 's/#.*//' "$srcdir/po/LINGUAS" | tr -s ' \t' '\n\n' | grep -v '^$')"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/splash-languages.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

for theme in "$srcdir"/themes/*/theme.conf; do
	dir=${theme%/theme.conf}
	name=${dir##*/}
	for lang in $languages; do
		env -u LC_ALL -u LC_MESSAGES -u DORMOUSE_LOCALEDIR LANG=C.UTF-8 LANGUAGE="$lang" \
			"$prog" theme check "$dir" >"$tmp/out" 2>&1
		rc=$?
		# One line per finding, each naming the theme file.
		found=$(grep -c 'theme.conf:' "$tmp/out")
		if [ "$rc" = 0 ] && [ "$found" = 0 ]; then
			ok "$name in $lang: every text fits, nothing overlaps, contrast is enough"
		else
			not_ok "$name in $lang: every text fits, nothing overlaps, contrast is enough (exit $rc, $found findings)"
			sed 's/^/# /' "$tmp/out" | head -n 20
		fi
	done
done

# The check must be able to fail: a title box too narrow for the words.
mkdir -p "$tmp/narrow"
cp "$srcdir/themes/default/theme.conf" "$tmp/narrow/theme.conf"
cp "$srcdir/themes/default/"*.png "$tmp/narrow/"
printf '\n[hibernate]\ntitle = %s\n' "A title far too long to fit in any box on any screen size at all, even shrunk to three quarters of its size, and then some more words" \
	>>"$tmp/narrow/theme.conf"
env -u LC_ALL LANG=C.UTF-8 LANGUAGE=en "$prog" theme check "$tmp/narrow" >"$tmp/out" 2>&1
found=$(grep -c 'theme.conf:.*does not fit' "$tmp/out")
check "a title that does not fit is found ($found findings)" test "$found" -gt 0

echo "1..$n"
[ "$failed" -eq 0 ]
