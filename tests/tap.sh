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
