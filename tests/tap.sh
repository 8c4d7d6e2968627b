# tap.sh: TAP for the shell tests. Source it, then call ok/not_ok/check;
# $failed counts failures for the exit status.
n=0
failed=0
ok()
{
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok()
{
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
}
check()
{
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# What the shell tests of the program need, each skipping the whole test
# (a TAP plan of 0) when it is missing. Call after setting $builddir.
# require_dormouse: $prog is the built program.
require_dormouse()
{
	prog="$builddir/dormouse"
	if [ ! -x "$prog" ]; then
		echo "1..0 # SKIP the dormouse program is not built"
		exit 0
	fi
}
# require_mkswap: $mkswap is util-linux's.
require_mkswap()
{
	mkswap=$(command -v mkswap || command -v /sbin/mkswap || command -v /usr/sbin/mkswap)
	if [ -z "$mkswap" ]; then
		echo "1..0 # SKIP mkswap (util-linux) is not installed"
		exit 0
	fi
}
# scratch NAME: $tmp, a directory removed when the test exits.
scratch()
{
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 99
	trap 'rm -rf "$tmp"' EXIT INT TERM
}
