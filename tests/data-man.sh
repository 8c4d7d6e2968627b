#!/bin/sh
# The man pages and the bash completion against the program they describe:
# the pages render without a groff warning, name every option that
# "dormouse COMMAND --help" prints and every key of the example
# configuration; the completion parses, completes the commands that
# "dormouse --help" lists, and every option of each command. TAP output.
set -u

builddir=${DMO_BUILDDIR:-$(pwd)}
srcdir=${DMO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$srcdir/tests/tap.sh"
skip()
{
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

dormouse=$builddir/dormouse
groff=${GROFF:-$(command -v groff 2>/dev/null || true)}

# --- man pages -----------------------------------------------------------------
for page in man/dormouse.8 man/dormouse.conf.5 man/dormouse-themes.7; do
	f=$builddir/$page
	check "$page is built" test -s "$f"
	left=$(grep -o '@[a-zA-Z_]*@' "$f" | sort -u | tr '\n' ' ')
	check "$page: no @placeholder@ left${left:+ ($left)}" test -z "$left"
	if [ -z "$groff" ]; then
		skip "$page renders without warnings" "groff is not installed (groff-base)"
		continue
	fi
	# -ww: every warning but "break" (-Wbreak): an installation path longer
	# than the line (distcheck's) cannot be adjusted, and that is not a
	# fault of the page. -z: no output; -t: tables. Rendered as man does.
	out=$(LC_ALL=C.UTF-8 "$groff" -man -ww -Wbreak -z -t -Tutf8 "$f" 2>&1)
	if [ -z "$out" ]; then
		ok "$page renders without warnings"
	else
		not_ok "$page renders without warnings"
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
done

# The options the program knows, from its own help.
help_options()
{
	"$dormouse" "$@" --help 2>&1 | grep -o -e '--[a-z][a-z-]*' | sort -u
}
page8=$builddir/man/dormouse.8
# In roff source, "-" in an option name is written "\-".
in_page() { sed 's/\\-/-/g' "$1" | grep -q -e "$2\\([^a-z-]\\|\$\\)"; }
for cmd in hibernate resume info preview keygen suspend-then-hibernate hybrid-sleep; do
	missing=""
	for o in $(help_options $cmd); do
		[ "$o" = --help ] && continue
		in_page "$page8" "$o" || missing="$missing $o"
	done
	check "dormouse(8) names every option of \"dormouse $cmd --help\"${missing:+ (missing:$missing)}" \
		test -z "$missing"
done
commands=$("$dormouse" --help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\).*/\1/p')
check "\"dormouse --help\" lists commands" test -n "$commands"
missing=""
for c in $commands; do
	sed 's/\\-/-/g' "$page8" | grep -q "^\\.SS $c" || missing="$missing $c"
done
check "dormouse(8) has a section for every command${missing:+ (missing:$missing)}" test -z "$missing"

# Every key of the example configuration is in dormouse.conf(5).
page5=$builddir/man/dormouse.conf.5
missing=""
for k in $(sed -n 's/^#\([a-z][a-z ]*[a-z]\) = .*/\1/p' "$srcdir/data/dormouse.conf" | tr ' ' '_'); do
	k=$(printf '%s' "$k" | tr '_' ' ')
	grep -q "^\\.B[IR]* \"$k = " "$page5" || missing="$missing [$k]"
done
check "dormouse.conf(5) describes every key of the example configuration${missing:+ (missing:$missing)}" \
	test -z "$missing"

# --- bash completion -----------------------------------------------------------
comp=$builddir/data/bash-completion/dormouse
if ! command -v bash >/dev/null 2>&1; then
	skip "bash completion" "no bash"
	echo "1..$n"
	[ "$failed" -eq 0 ]
	exit
fi
check "bash -n: the completion parses" bash -n "$comp"

# complete WORD...: what the completion offers for "dormouse WORD..." (the
# last word is the one being completed), one per line.
complete_words()
{
	bash -c '
		. "$1"; shift
		COMP_WORDS=(dormouse "$@"); COMP_CWORD=$#
		COMP_LINE="dormouse $*"; COMP_POINT=${#COMP_LINE}
		_dormouse dormouse "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' bash "$comp" "$@" 2>&1
}
offered=$(complete_words "" | sort | tr '\n' ' ')
missing=""
for c in $commands; do
	case " $offered " in *" $c "*) ;; *) missing="$missing $c" ;; esac
done
check "completion offers every command of \"dormouse --help\" ($offered)" test -z "$missing"
check "completion: \"dormouse hib\" completes to hibernate" test "$(complete_words hib)" = hibernate
check "completion: \"dormouse theme \" offers check" test "$(complete_words theme '')" = check
for cmd in hibernate resume info preview keygen suspend-then-hibernate hybrid-sleep; do
	offered=" $(complete_words $cmd -- | tr '\n' ' ') "
	missing=""
	for o in $(help_options $cmd); do
		case "$offered" in *" $o "*) ;; *) missing="$missing $o" ;; esac
	done
	check "completion offers every option of \"dormouse $cmd --help\"${missing:+ (missing:$missing)}" \
		test -z "$missing"
done
check "completion: --compress offers lz4 zstd none" \
	test "$(complete_words hibernate --compress '' | tr '\n' ' ')" = "lz4 zstd none "
check "completion: --encrypt offers the three modes" \
	test "$(complete_words hibernate --encrypt '' | tr '\n' ' ')" = "passphrase pubkey none "
check "completion: --shutdown offers the four methods" \
	test "$(complete_words hibernate --shutdown '' | tr '\n' ' ')" = "platform shutdown reboot suspend "
themes=$(DORMOUSE_THEMES_DIR="$srcdir/themes" complete_words resume --theme '' | sort | tr '\n' ' ')
check "completion: --theme offers the themes ($themes)" test "$themes" = "default minimal nocturne "

echo "1..$n"
[ "$failed" -eq 0 ]
