#!/bin/sh
# The translations: every catalog in po/LINGUAS is valid (msgfmt --check,
# which also checks the c-format placeholders), po/POTFILES.in lists every
# source file with translatable strings, the committed template
# po/dormouse.pot is the one the sources give, and the program really speaks
# each language (a lookup through $DORMOUSE_LOCALEDIR, singular and plural,
# and from the build tree without it). A partial catalog passes: the
# translated fraction of each language is reported, and what is not
# translated stays English.
# TAP output.
set -u

srcdir=${DMO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${DMO_BUILDDIR:-$(pwd)}
MSGFMT=${MSGFMT:-msgfmt}
XGETTEXT=${XGETTEXT:-xgettext}
MSGMERGE=${MSGMERGE:-msgmerge}
case "$MSGFMT" in :*) MSGFMT=msgfmt ;; esac
case "$XGETTEXT" in :*) XGETTEXT=xgettext ;; esac
case "$MSGMERGE" in :*) MSGMERGE=msgmerge ;; esac

. "${DMO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/tap.sh"
diag()
{
	sed 's/^/# /'
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/po-catalogs.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

languages=$(sed -e 's/#.*//' "$srcdir/po/LINGUAS" | tr -s ' \t' '\n\n' | grep -v '^$')

# --- POTFILES.in: complete and existing ---------------------------------
grep -v '^[[:space:]]*#' "$srcdir/po/POTFILES.in" | grep -v '^[[:space:]]*$' | sort >"$tmp/listed"
(cd "$srcdir" && grep -rlE '(^|[^A-Za-z0-9_])(N_|_|ngettext)\(' src kernel themes --include='*.c' |
	sort) >"$tmp/using"
missing=$(comm -13 "$tmp/listed" "$tmp/using")
if [ -z "$missing" ]; then
	ok "po/POTFILES.in lists every source file with translatable strings"
else
	not_ok "po/POTFILES.in lists every source file with translatable strings"
	echo "missing: $missing" | diag
fi
gone=""
while read -r f; do
	[ -e "$srcdir/$f" ] || gone="$gone $f"
done <"$tmp/listed"
if [ -z "$gone" ]; then
	ok "every file in po/POTFILES.in exists"
else
	not_ok "every file in po/POTFILES.in exists"
	echo "gone:$gone" | diag
fi

# --- a fresh template from the sources -----------------------------------
keywords=$(sed -n 's/^XGETTEXT_OPTIONS[[:space:]]*=//p' "$srcdir/po/Makevars")
# shellcheck disable=SC2086
if (cd "$srcdir" && "$XGETTEXT" --default-domain=dormouse --language=C $keywords \
	--files-from="$tmp/listed" --output="$tmp/fresh.pot") 2>"$tmp/xgettext.err"; then
	ok "xgettext extracts a template from the sources"
else
	not_ok "xgettext extracts a template from the sources"
	diag <"$tmp/xgettext.err"
fi
total=$(grep -c '^msgid ' "$tmp/fresh.pot" 2>/dev/null || echo 0)
total=$((total - 1))
check "the template has messages ($total)" test "$total" -gt 50

# The committed template is what the sources give now (msgids compared;
# dates and line numbers may differ), so translators work from it.
if [ -r "$srcdir/po/dormouse.pot" ]; then
	msgids()
	{
		msgcat --no-location --no-wrap --sort-output "$1" 2>/dev/null | grep -e '^msgid' -e '^msgid_plural'
	}
	msgids "$srcdir/po/dormouse.pot" >"$tmp/committed.ids"
	msgids "$tmp/fresh.pot" >"$tmp/fresh.ids"
	if cmp -s "$tmp/committed.ids" "$tmp/fresh.ids"; then
		ok "po/dormouse.pot has the messages of the current sources"
	else
		not_ok "po/dormouse.pot has the messages of the current sources"
		diff "$tmp/committed.ids" "$tmp/fresh.ids" | head -n 20 | diag
		echo "run: make -C po update-po (in the build tree), then commit po/" | diag
	fi
else
	not_ok "po/dormouse.pot is in the source tree"
fi

# The check below must be able to fail: a catalog whose translation drops a
# placeholder is rejected.
cat >"$tmp/broken.po" <<'PO'
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

#, c-format
msgid "%s: cannot open: %s"
msgstr "kann nicht geöffnet werden: %s"
PO
if "$MSGFMT" --check -o /dev/null "$tmp/broken.po" 2>/dev/null; then
	not_ok "msgfmt --check rejects a translation that drops a placeholder"
else
	ok "msgfmt --check rejects a translation that drops a placeholder"
fi

for lang in $languages; do
	po="$srcdir/po/$lang.po"
	if [ ! -r "$po" ]; then
		not_ok "$lang: po/$lang.po exists"
		continue
	fi
	if "$MSGFMT" --check -o "$tmp/$lang.mo" "$po" 2>"$tmp/$lang.err"; then
		ok "$lang: msgfmt --check passes"
	else
		not_ok "$lang: msgfmt --check passes"
		diag <"$tmp/$lang.err"
	fi
	# How much is translated, against the sources as they are now. Reported,
	# not required: the rest falls back to English.
	"$MSGMERGE" --quiet --no-fuzzy-matching -o "$tmp/$lang.merged.po" "$po" "$tmp/fresh.pot" 2>/dev/null
	done_n=$(msgattrib --translated --no-fuzzy --no-obsolete "$tmp/$lang.merged.po" 2>/dev/null |
		grep -c '^msgid ')
	done_n=$((done_n > 0 ? done_n - 1 : 0))
	ok "$lang: $done_n of $total messages translated ($((done_n * 100 / (total > 0 ? total : 1)))%)"
	plurals=$(sed -n 's/^"Plural-Forms: nplurals=\([0-9]*\);.*/\1/p' "$po")
	case $lang in
	ar) want=6 ;;
	fr | de | es | it | pt | pt_BR | he) want=2 ;;
	*) want=$plurals ;;
	esac
	check "$lang: Plural-Forms has $want forms (found ${plurals:-none})" test "${plurals:-0}" = "$want"
	mkdir -p "$tmp/locale/$lang/LC_MESSAGES"
	cp "$tmp/$lang.mo" "$tmp/locale/$lang/LC_MESSAGES/dormouse.mo" 2>/dev/null
done

# A partial catalog: what it translates is used, the rest stays English.
cat >"$tmp/partial.po" <<'PO'
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

msgid "Yes"
msgstr "Sì"
PO
mkdir -p "$tmp/partial/it/LC_MESSAGES"
# The gettext tools ignore LANGUAGE under C.<codeset> on glibc 2.39 and
# later: they get, as dormouse does (src/util/i18n.c), LC_MESSAGES from the
# locale "dormouse" in the build tree's data/locale.
if "$MSGFMT" --check -o "$tmp/partial/it/LC_MESSAGES/dormouse.mo" "$tmp/partial.po" 2>/dev/null &&
	command -v gettext >/dev/null 2>&1; then
	yes=$(env -u LC_ALL LANG=C.UTF-8 LC_MESSAGES=dormouse LOCPATH="$builddir/data/locale" LANGUAGE=it TEXTDOMAINDIR="$tmp/partial" gettext -d dormouse "Yes")
	no=$(env -u LC_ALL LANG=C.UTF-8 LC_MESSAGES=dormouse LOCPATH="$builddir/data/locale" LANGUAGE=it TEXTDOMAINDIR="$tmp/partial" gettext -d dormouse "No")
	check "a partial catalog translates what it has (\"$yes\") and leaves the rest English (\"$no\")" \
		test "$yes" = "Sì" -a "$no" = "No"
fi

# --- real lookups ----------------------------------------------------------
prog="$builddir/dormouse"
if [ ! -x "$prog" ]; then
	not_ok "the dormouse program is built ($prog)"
else
	english=$(env -u LANGUAGE LC_ALL=C.UTF-8 "$prog" hibernate --help 2>&1)
	for lang in $languages; do
		case $lang in
		de) word="Auslagerungsbereich" ;;
		fr) word="zone d'échange" ;;
		es) word="área de intercambio" ;;
		ar) word="منطقة التبديل" ;;
		it) word="area di swap" ;;
		pt_BR) word="área de troca" ;;
		he) word="אזור ההחלפה" ;;
		*) word="" ;;
		esac
		out=$(env -u LC_ALL -u LC_MESSAGES LANG=C.UTF-8 LANGUAGE="$lang" \
			DORMOUSE_LOCALEDIR="$tmp/locale" "$prog" hibernate --help 2>&1)
		if [ "$out" != "$english" ] && { [ -z "$word" ] || printf '%s' "$out" | grep -qF "$word"; }; then
			ok "$lang: \"dormouse hibernate --help\" is translated${word:+ (says \"$word\")}"
		else
			not_ok "$lang: \"dormouse hibernate --help\" is translated${word:+ (says \"$word\")}"
			printf '%s\n' "$out" | head -n 3 | diag
		fi
	done
	# Without the catalog directory the program falls back to English.
	out=$(env -u LC_ALL LANG=C.UTF-8 LANGUAGE=de DORMOUSE_LOCALEDIR="$tmp/nowhere" \
		"$prog" hibernate --help 2>&1)
	check "with no catalog the text stays English" test "$out" = "$english"
fi

# From the build tree, without $DORMOUSE_LOCALEDIR: "make" put every
# catalog in po/locale, and the program run from the tree finds it.
if [ -x "$prog" ]; then
	for lang in $languages; do
		out=$(env -u LC_ALL -u LC_MESSAGES -u DORMOUSE_LOCALEDIR LANG=C.UTF-8 LANGUAGE="$lang" \
			"$prog" hibernate --help 2>&1)
		check "$lang: the program run from the build tree finds its catalog" \
			test -r "$builddir/po/locale/$lang/LC_MESSAGES/dormouse.mo" -a "$out" != "$english"
	done
	# --lang with a language nobody translated: one warning, English text.
	env -u DORMOUSE_LOCALEDIR "$prog" preview --lang xx --output "$tmp/xx.png" 2>"$tmp/xx.err"
	warnings=$(grep -c 'xx' "$tmp/xx.err")
	check "--lang xx warns once that there is no catalog (found $warnings)" test "$warnings" = 1
	first=$(echo $languages | cut -d' ' -f1)
	env -u DORMOUSE_LOCALEDIR "$prog" preview --lang "$first" --output "$tmp/l.png" 2>"$tmp/l.err"
	check "--lang $first gives no warning" test ! -s "$tmp/l.err"
fi

# Plural forms through the compiled catalogs (the gettext tools' ngettext).
if command -v ngettext >/dev/null 2>&1; then
	for spec in "ar 0 0" "ar 1 1" "ar 2 2" "ar 5 3" "ar 11 4" "ar 100 5" \
		"de 1 0" "de 2 1" "fr 1 0" "fr 0 0" "fr 2 1" "es 1 0" "es 0 1" \
		"it 1 0" "it 0 1" "pt_BR 0 0" "pt_BR 1 0" "pt_BR 2 1"; do
		set -- $spec
		lang=$1 count=$2 form=$3
		[ -r "$srcdir/po/$lang.po" ] || continue
		# msgstr[FORM] of the plural entry, as msgfmt compiled it.
		want=$(awk -v form="$form" '
			/^msgid "%ld second left"$/ { inmsg = 1; next }
			inmsg && $0 ~ "^msgstr\\[" form "\\] " { sub(/^msgstr\[[0-9]\] "/, ""); sub(/"$/, ""); print; exit }
			/^$/ { inmsg = 0 }' "$srcdir/po/$lang.po")
		got=$(env -u LC_ALL LANG=C.UTF-8 LC_MESSAGES=dormouse LOCPATH="$builddir/data/locale" LANGUAGE="$lang" TEXTDOMAINDIR="$tmp/locale" \
			ngettext -d dormouse "%ld second left" "%ld seconds left" "$count")
		check "$lang: $count seconds uses plural form $form (\"$got\")" \
			test -n "$want" -a "$got" = "$want"
	done
else
	echo "# ngettext (gettext-base) not installed: plural lookups not checked"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
