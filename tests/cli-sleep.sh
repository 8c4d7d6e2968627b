#!/bin/sh
# dormouse suspend-then-hibernate and hybrid-sleep, end to end on the
# simulated kernel, with stand-ins for /sys/power (its "state" a file, or a
# FIFO that holds the "suspend" until the test reads it: the wake), for
# /sys/class/power_supply, for systemd's sleep.conf and for the sleep hooks.
# Checked: which sleeps happen in which order with which hooks, when the
# image is written and when not, the fallback when the hibernation fails,
# and that the tool refuses to suspend the machine a test runs on.
# TAP output.
set -u

srcdir=${DMO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${DMO_BUILDDIR:-$(pwd)}
. "$srcdir/tests/tap.sh"

require_dormouse
require_mkswap
scratch cli-sleep
export LANG=C LANGUAGE=

swap="$tmp/swap"
fresh() {
	rm -rf "$swap" "$tmp/power" "$tmp/sys" "$tmp/conf" "$tmp/hooks.log" "$tmp/err"
	truncate -s 16M "$swap" && chmod 600 "$swap" && "$mkswap" "$swap" >/dev/null 2>&1
	mkdir -p "$tmp/power" "$tmp/sys" "$tmp/conf"
	: >"$tmp/power/state"
}
# The hooks' stand-in: one line per call, "WHEN MODE STEP".
hooks="$tmp/hooks"
printf '#!/bin/sh\n[ "$1" = hooks ] || exit 2\necho "$2 $3 $SYSTEMD_SLEEP_ACTION" >>"%s"\n' \
	"$tmp/hooks.log" >"$hooks"
chmod +x "$hooks"
hooks_log() { tr '\n' '|' <"$tmp/hooks.log" 2>/dev/null; }
image_on_swap() { "$prog" info "$swap" >/dev/null 2>&1; }
sim="--kernel sim --sim-size 4M --sim-seed 3 --splash none --resume-device $swap"

# sleep_cmd MODE [OPTIONS] -- [HIBERNATE-OPTIONS]: stderr into $tmp/err.
sleep_cmd() {
	mode=$1
	shift
	"$prog" "$mode" --sleep-hooks "$hooks" --power-dir "$tmp/power" --sysfs "$tmp/sys" \
		--sleep-conf-root "$tmp/conf" "$@" 2>"$tmp/err"
}

# Seconds since the epoch with nanoseconds, for deadlines.
now() { date +%s.%N; }
later_than() { awk -v a="$(now)" -v b="$1" 'BEGIN { exit !(a >= b) }'; }
# wait_for_line PATTERN FILE SECONDS: until the line is there or the time is up.
wait_for_line() {
	deadline=$(awk -v t="$(now)" -v s="$3" 'BEGIN { printf "%.3f", t + s }')
	until grep -q "$1" "$2" 2>/dev/null; do
		later_than "$deadline" && return 1
		sleep 0.05
	done
}

# --- suspend-then-hibernate ----------------------------------------------------------
fresh
sleep_cmd suspend-then-hibernate --hibernate-delay 1h -- $sim
rc=$?
check "s2h, woken by the person: exit 0" test "$rc" = 0
check "s2h, woken by the person: says so" grep -q "before the alarm: back to the session, no image written" "$tmp/err"
check "s2h, woken by the person: no image on the swap area" sh -c "! \"$prog\" info \"$swap\" >/dev/null 2>&1"
check "s2h, woken by the person: suspended once through /sys/power/state" test "$(cat "$tmp/power/state")" = mem
check "s2h, woken by the person: the hooks ran around the suspend, the step in SYSTEMD_SLEEP_ACTION" \
	test "$(hooks_log)" = "pre suspend-then-hibernate suspend|post suspend-then-hibernate suspend|"

# The alarm: the "suspend" (a write into a FIFO) lasts until the alarm's
# time has come, then the test reads it, as the RTC would wake the machine.
fresh
rm -f "$tmp/power/state"
mkfifo "$tmp/power/state"
sleep_cmd suspend-then-hibernate --hibernate-delay 3s -- $sim &
pid=$!
if wait_for_line "suspending to RAM" "$tmp/err" 60; then
	# The alarm was set at most 3 s after the line appeared.
	alarm=$(awk -v t="$(now)" 'BEGIN { printf "%.3f", t + 3 }')
	until later_than "$alarm"; do sleep 0.1; done
	timeout 60 cat "$tmp/power/state" >"$tmp/state-written"
	ok "s2h, the alarm: suspended"
else
	not_ok "s2h, the alarm: suspended"
	kill "$pid" 2>/dev/null
fi
wait "$pid"
rc=$?
check "s2h, the alarm: exit 0" test "$rc" = 0
check "s2h, the alarm: it wrote mem" test "$(cat "$tmp/state-written" 2>/dev/null)" = mem
check "s2h, the alarm: hibernated because the alarm rang with no battery to watch" \
	grep -q "hibernating: the wake alarm rang and there is no battery to watch" "$tmp/err"
check "s2h, the alarm: dormouse's image is on the swap area" image_on_swap
check "s2h, the alarm: hooks around the suspend, then around the hibernation" \
	test "$(hooks_log)" = "pre suspend-then-hibernate suspend|post suspend-then-hibernate suspend|pre suspend-then-hibernate hibernate|post suspend-then-hibernate hibernate|"
rm -f "$tmp/state-written"

# A dying battery: hibernate at once, no suspend at all.
fresh
mkdir -p "$tmp/sys/class/power_supply/BAT0" "$tmp/sys/class/power_supply/AC"
echo Battery >"$tmp/sys/class/power_supply/BAT0/type"
echo Discharging >"$tmp/sys/class/power_supply/BAT0/status"
echo 3 >"$tmp/sys/class/power_supply/BAT0/capacity"
echo Mains >"$tmp/sys/class/power_supply/AC/type"
echo 0 >"$tmp/sys/class/power_supply/AC/online"
sleep_cmd suspend-then-hibernate -- $sim
rc=$?
check "s2h, battery at 3 %: exit 0" test "$rc" = 0
check "s2h, battery at 3 %: hibernated at once, because the battery is low" \
	grep -q "hibernating: the battery is low" "$tmp/err"
check "s2h, battery at 3 %: no suspend" test ! -s "$tmp/power/state"
check "s2h, battery at 3 %: the image is on the swap area" image_on_swap

# A battery that does not tell its charge (no capacity, as the kernel's
# ACPI battery when the firmware reports "unknown"): the timer decides, as
# with no battery, and the journal says so.
fresh
rm -f "$tmp/power/state"
mkfifo "$tmp/power/state"
mkdir -p "$tmp/sys/class/power_supply/BAT0"
echo Battery >"$tmp/sys/class/power_supply/BAT0/type"
echo Discharging >"$tmp/sys/class/power_supply/BAT0/status"
sleep_cmd suspend-then-hibernate --hibernate-delay 3s -- $sim &
pid=$!
if wait_for_line "suspending to RAM" "$tmp/err" 60; then
	alarm=$(awk -v t="$(now)" 'BEGIN { printf "%.3f", t + 3 }')
	until later_than "$alarm"; do sleep 0.1; done
	timeout 60 cat "$tmp/power/state" >/dev/null
	ok "s2h, no charge told: suspended"
else
	not_ok "s2h, no charge told: suspended"
	kill "$pid" 2>/dev/null
fi
wait "$pid"
rc=$?
check "s2h, no charge told: exit 0" test "$rc" = 0
check "s2h, no charge told: says it goes by the timer" \
	grep -q "the battery does not tell its charge: going by the timer, hibernating after 3 s of suspend" "$tmp/err"
check "s2h, no charge told: the alarm's wake hibernated" \
	grep -q "hibernating: the wake alarm rang and the battery does not tell its charge" "$tmp/err"
check "s2h, no charge told: the image is on the swap area" image_on_swap

# Encryption configured: the image this entry point writes is encrypted.
fresh
printf 'a passphrase\n' >"$tmp/key"
chmod 600 "$tmp/key"
sleep_cmd suspend-then-hibernate --hibernate-delay 1s -- $sim --encrypt passphrase --key-file "$tmp/key"
check "s2h with encryption: the image is encrypted" \
	sh -c "\"$prog\" info \"$swap\" | grep -q '^  encryption: *passphrase'"

# systemd's sleep.conf: a bad line is named, and AllowSuspendThenHibernate=no refuses.
fresh
mkdir -p "$tmp/conf/etc/systemd/sleep.conf.d"
printf '[Sleep]\nHibernateDelaySec=soon\n' >"$tmp/conf/etc/systemd/sleep.conf"
printf '[Sleep]\nAllowSuspendThenHibernate=no\n' >"$tmp/conf/etc/systemd/sleep.conf.d/50-no.conf"
sleep_cmd suspend-then-hibernate -- $sim
rc=$?
check "sleep.conf: AllowSuspendThenHibernate=no: exit 6" test "$rc" = 6
check "sleep.conf: says it is disabled" grep -q "suspend-then-hibernate is disabled in systemd's sleep.conf" "$tmp/err"
check "sleep.conf: the bad line is named with its file and line" \
	grep -q "/etc/systemd/sleep.conf:2: HibernateDelaySec=soon is not a time span" "$tmp/err"
check "sleep.conf: disabled: nothing slept" test ! -s "$tmp/power/state"

# --- hybrid sleep ----------------------------------------------------------------
fresh
sleep_cmd hybrid-sleep -- $sim
rc=$?
check "hybrid-sleep: exit 0" test "$rc" = 0
check "hybrid-sleep: the hooks ran with hybrid-sleep" \
	test "$(hooks_log)" = "pre hybrid-sleep hybrid-sleep|post hybrid-sleep hybrid-sleep|"
check "hybrid-sleep: woken, the image is gone from the swap area" sh -c "! \"$prog\" info \"$swap\" >/dev/null 2>&1"

# Its last step is a suspend to RAM: the progress says so, not "Powering off".
fresh
sleep_cmd hybrid-sleep -- $sim --splash text
check "hybrid-sleep: the last step's line says it suspends" grep -q "\] Suspending" "$tmp/err"
check "hybrid-sleep: and not that it powers off" sh -c "! grep -q 'Powering off' \"$tmp/err\""

# The hibernation fails (no swap area there): suspend anyway, as systemd-sleep.
fresh
sleep_cmd hybrid-sleep -- --kernel sim --sim-size 4M --splash none --resume-device "$tmp/missing"
rc=$?
check "hybrid-sleep, hibernation failed: exit 6" test "$rc" = 6
check "hybrid-sleep, hibernation failed: says it suspends instead" \
	grep -q "suspending to RAM instead, as systemd-sleep does" "$tmp/err"
check "hybrid-sleep, hibernation failed: suspended" test "$(cat "$tmp/power/state")" = mem
check "hybrid-sleep, hibernation failed: the fallback's hooks say suspend-after-failed-hybrid-sleep" \
	test "$(hooks_log)" = "pre hybrid-sleep hybrid-sleep|post hybrid-sleep hybrid-sleep|pre hybrid-sleep suspend-after-failed-hybrid-sleep|post hybrid-sleep suspend-after-failed-hybrid-sleep|"

# --- never the machine the tests run on ----------------------------------------------
"$prog" suspend-then-hibernate --sleep-hooks none -- --kernel sim 2>"$tmp/err"
rc=$?
check "the simulated kernel without --power-dir: refused (exit 2)" test "$rc" = 2
check "and says why" grep -q "needs --power-dir" "$tmp/err"
"$prog" hybrid-sleep --power-dir "$tmp/power" 2>"$tmp/err"
rc=$?
check "--power-dir with the real kernel: refused (exit 2)" test "$rc" = 2
"$prog" suspend-then-hibernate --hibernate-delay soon --power-dir "$tmp/power" -- --kernel sim 2>"$tmp/err"
rc=$?
check "--hibernate-delay soon: refused (exit 2), naming it" \
	sh -c "test $rc = 2 && grep -q -- '--hibernate-delay: \"soon\" is not a time span' \"$tmp/err\""
"$prog" suspend-then-hibernate stray 2>"$tmp/err"
rc=$?
check "a stray argument: refused (exit 2), pointing at --" \
	sh -c "test $rc = 2 && grep -q 'go after \"--\"' \"$tmp/err\""

echo "1..$n"
exit $((failed > 0))
