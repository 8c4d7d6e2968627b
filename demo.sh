#!/bin/sh
# One command from a fresh Debian 12 machine to a hibernate/resume round trip
# on the simulated kernel: installs the build dependencies (root), builds in
# build-demo/, and runs the demo. Nothing here touches the machine's power state.
# ./demo.sh --vm does the same with a real kernel inside QEMU (about a minute).
set -eu
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"
if [ "$(id -u)" = 0 ]; then
        tools/install-deps
else
        echo "demo.sh: not root, assuming the build dependencies are installed (tools/install-deps)"
fi
[ -x configure ] || ./autogen.sh
mkdir -p build-demo
cd build-demo
[ -f Makefile ] || ../configure -q CFLAGS="-O2 -g"
make -j"$(nproc)" >/dev/null
if [ "${1:-}" = "--vm" ]; then
        # The real thing: a Debian kernel in QEMU hibernated and resumed by
        # dormouse with its KMS splash; prints where the screenshots are.
        exec python3 ../tests/vm/run.py --demo --dormouse "$PWD/dormouse"
fi
exec ../tests/demo-run ./dormouse "$@"
