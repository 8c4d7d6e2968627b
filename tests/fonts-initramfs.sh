#!/bin/sh
# The fonts of the initramfs (fonts/initramfs/, cut down by
# fonts/initramfs-subset.py) draw what the full fonts draw:
#   - for every catalog (po/*.po, and po/dormouse.pot for English), every
#     character of its msgids and msgstrs, the characters C code of the
#     splash draws outside the catalogs (fonts/initramfs-chars.txt, and the
#     non-ASCII characters of the string literals in src/splash and
#     src/cli), and U+0020-U+00FF: each cut-down font has a glyph for it
#     exactly when the full font does (asked of FreeType as the splash asks,
#     tests/fonts-coverage), so that the splash picks the same font for
#     each run (DejaVu Sans, or Noto Sans Arabic for right-to-left text)
#     and finds the glyph there; and each has a glyph in one of them;
#   - resume frames of every language, rendered to PNG by "dormouse
#     preview" with the full fonts and with the cut-down ones, are the same
#     file, byte for byte (the resume scene, its error scene and the
#     passphrase dialog, in every shipped theme);
#   - both checks can fail: a cut without "ß" is found in German, naming
#     the character, and German frames drawn without "ü" differ.
# TAP output.
set -u

srcdir=${DMO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${DMO_BUILDDIR:-$(pwd)}
. "$srcdir/tests/tap.sh"

cut=$builddir/fonts/initramfs
full=$srcdir/fonts
coverage=$builddir/tests/fonts-coverage
if [ ! -f "$cut/DejaVuSans.ttf" ]; then
	echo "1..0 # SKIP no cut-down fonts (configured with --disable-font-subsets)"
	exit 0
fi
require_dormouse
if [ ! -x "$coverage" ]; then
	echo "1..0 # SKIP tests/fonts-coverage is not built"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fonts-initramfs.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

fonts="DejaVuSans.ttf DejaVuSans-Bold.ttf NotoSansArabic-Regular.ttf"

# The text of a catalog: its msgids and msgstrs (escapes are ASCII, and
# ASCII is checked whole below).
catalog_text()
{
	sed -n -e 's/^\(msgid\|msgid_plural\|msgstr\|msgstr\[[0-9]*\]\)\{0,1\}[[:space:]]*"\(.*\)"[[:space:]]*$/\2/p' "$1"
}

# What C code draws outside the catalogs, and U+0020-U+00FF.
{
	grep -v '^#' "$srcdir/fonts/initramfs-chars.txt"
	LC_ALL=C grep -h '"[^"]*[^ -~	][^"]*"' "$srcdir"/src/splash/*.c "$srcdir"/src/splash/*/*.c \
		"$srcdir"/src/cli/*.c | LC_ALL=C grep -v '^[[:space:]]*/\{0,1\}\*' |
		LC_ALL=C sed -e 's/^[^"]*"//' -e 's/"[^"]*$//'
	printf '%b' "$(printf '\\%03o' $(seq 32 126))"
	printf '\n'
	for b in $(seq 160 255); do
		printf "\\$(printf '%03o' $((0xc0 | b >> 6)))\\$(printf '%03o' $((0x80 | (b & 0x3f))))"
	done
	printf '\n'
} >"$tmp/C.txt"

# check_coverage NAME TEXT FULLDIR CUTDIR: one test per font.
check_coverage()
{
	for f in $fonts; do
		"$coverage" "$3/$f" "$4/$f" <"$2" >"$tmp/diff" 2>&1
		rc=$?
		if [ "$rc" = 0 ]; then
			ok "$1: the cut-down $f has a glyph for each character exactly when the full one has"
		else
			not_ok "$1: the cut-down $f has a glyph for each character exactly when the full one has (exit $rc)"
			sed -e "s/^/# $1: /" -e 's/ +$/ (only in the cut-down copy)/' \
				-e 's/\(U+[0-9A-F]*.*[^)]\)$/\1 missing from the cut-down copy/' "$tmp/diff" | head -n 20
		fi
	done
	"$coverage" --none "$4/DejaVuSans.ttf" "$4/NotoSansArabic-Regular.ttf" <"$2" >"$tmp/none" 2>&1
	rc=$?
	if [ "$rc" = 0 ]; then
		ok "$1: every character has a glyph in the font the splash draws it with"
	else
		not_ok "$1: every character has a glyph in the font the splash draws it with (exit $rc)"
		sed -e "s/^/# $1: no glyph for /" "$tmp/none" | head -n 20
	fi
}

languages=$(sed -e 's/#.*//' "$srcdir/po/LINGUAS" | tr -s ' \t' '\n\n' | grep -v '^$')
catalog_text "$srcdir/po/dormouse.pot" >"$tmp/en.txt"
check_coverage "en (po/dormouse.pot)" "$tmp/en.txt" "$full" "$cut"
for lang in $languages; do
	catalog_text "$srcdir/po/$lang.po" >"$tmp/$lang.txt"
	check_coverage "$lang" "$tmp/$lang.txt" "$full" "$cut"
done
check_coverage "C strings" "$tmp/C.txt" "$full" "$cut"

# render LANG THEME MODE DIALOG FONTSDIR OUT
render()
{
	env -u LC_ALL -u LC_MESSAGES -u DORMOUSE_LOCALEDIR LANG=C.UTF-8 DORMOUSE_FONTS_DIR="$5" \
		"$prog" preview --theme "$2" --mode "$3" ${4:+--dialog "$4"} --lang "$1" \
		--size 1280x800 --progress 0.37 --output "$6" >"$tmp/render.out" 2>&1
}

# same_frames LANG CUTDIR: every frame the same with the full and the cut
# fonts; prints what differs.
same_frames()
{
	differ=""
	for theme in "$srcdir"/themes/*/theme.conf; do
		theme=${theme%/theme.conf}
		theme=${theme##*/}
		for shot in resume: resume-error: resume:password; do
			mode=${shot%%:*} dialog=${shot#*:}
			name=$1-$theme-$mode${dialog:+-$dialog}
			if ! render "$1" "$theme" "$mode" "$dialog" "$full" "$tmp/full-$name.png" ||
				! render "$1" "$theme" "$mode" "$dialog" "$2" "$tmp/cut-$name.png"; then
				differ="$differ $name(not rendered: $(head -c 200 "$tmp/render.out"))"
			elif ! cmp -s "$tmp/full-$name.png" "$tmp/cut-$name.png"; then
				differ="$differ $name"
			fi
			rm -f "$tmp/full-$name.png" "$tmp/cut-$name.png"
		done
	done
	echo "$differ"
}

for lang in en $languages; do
	differ=$(same_frames "$lang" "$cut")
	if [ -z "$differ" ]; then
		ok "$lang: resume frames drawn with the cut-down fonts are those drawn with the full ones"
	else
		not_ok "$lang: resume frames drawn with the cut-down fonts are those drawn with the full ones"
		echo "# differ:$differ"
	fi
done

# The checks must be able to fail: a DejaVu Sans without "ß" (U+00DF),
# which German uses, and one without "ü" (U+00FC), which its resume
# title uses.
py=${FONTTOOLS_PYTHON:-python3}
if "$py" -c 'import fontTools.subset' 2>/dev/null; then
	for c in DF FC; do
		mkdir -p "$tmp/no$c"
		cp "$cut"/* "$tmp/no$c/"
		"$py" -m fontTools.subset "$cut/DejaVuSans.ttf" --unicodes="U+0020-00$(printf '%X' $((0x$c - 1))),U+00$(printf '%X' $((0x$c + 1)))-FFFF" \
			--layout-features='*' --legacy-kern --notdef-outline --name-IDs='*' \
			--output-file="$tmp/no$c/DejaVuSans.ttf" 2>/dev/null
		cp "$tmp/no$c/DejaVuSans.ttf" "$tmp/no$c/DejaVuSans-Bold.ttf"
	done
	"$coverage" "$full/DejaVuSans.ttf" "$tmp/noDF/DejaVuSans.ttf" <"$tmp/de.txt" >"$tmp/diff"
	check "a cut without ß is found in German, naming it ($(tr '\n' ' ' <"$tmp/diff"))" \
		grep -qx 'U+00DF ß' "$tmp/diff"
	differ=$(same_frames de "$tmp/noFC")
	check "German frames drawn without ü differ ($(echo "$differ" | wc -w) of them)" test -n "$differ"
else
	echo "# fontTools is missing: the checks are not made to fail"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
