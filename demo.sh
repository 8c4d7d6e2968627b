#!/bin/sh
# One command from a fresh Debian 12 machine to a hibernate/resume round trip
# on the simulated kernel: installs the build dependencies (root), builds in
# build-demo/, and runs the demo. Nothing here touches the machine's power state.
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
exec ../tests/demo-run ./dormouse "$@"
