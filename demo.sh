#!/bin/sh
# One command from a fresh Debian 12 machine to a hibernate/resume round trip
# on the simulated kernel: installs the build dependencies (root), builds in
# build-demo/, and runs the demo. Nothing here touches the machine's power state.
# ./demo.sh --vm does the same with a real kernel inside QEMU (about a minute).
# Quiet unless something fails: the installation and build output goes to
# build-demo/demo.log, and its end is shown if a step fails.
set -eu
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"
mkdir -p build-demo
log="$top/build-demo/demo.log"
: >"$log"
step()
{
        what=$1
        shift
        if ! "$@" >>"$log" 2>&1; then
                echo "demo.sh: $what failed; the end of $log:" >&2
                tail -n 30 "$log" >&2
                exit 1
        fi
}
vm=no
[ "${1:-}" = "--vm" ] && vm=yes
if [ "$(id -u)" = 0 ]; then
        # The QEMU and Debian root file system packages only for --vm.
        if [ $vm = yes ]; then
                step "installing the dependencies" tools/install-deps
        else
                step "installing the build dependencies" tools/install-deps --no-vm
        fi
else
        echo "demo.sh: not root, assuming the build dependencies are installed (tools/install-deps)"
fi
[ -x configure ] || step "autogen.sh" ./autogen.sh
cd build-demo
[ -f Makefile ] || step "configure" ../configure -q CFLAGS="-O2 -g"
step "the build" make -j"$(nproc)"
if [ $vm = yes ]; then
        # The real thing: a Debian kernel in QEMU hibernated and resumed by
        # dormouse with its KMS splash; prints where the screenshots are.
        exec python3 ../tests/vm/run.py --demo --dormouse "$PWD/dormouse"
fi
exec ../tests/demo-run ./dormouse "$@"
