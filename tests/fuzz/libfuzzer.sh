#!/bin/sh
# Coverage-guided fuzzing of one target with clang's libFuzzer: every module's
# sources are compiled with the fuzzer's instrumentation and ASan+UBSan.
# Usage: libfuzzer.sh SRCDIR BUILDDIR TARGET SECONDS
set -eu
src=$1 build=$2 target=$3 seconds=$4
out="$build/tests/fuzz-work/$target"
mkdir -p "$out/corpus"
[ -d "$src/tests/fuzz/corpus/fuzz-$target" ] && cp -r "$src/tests/fuzz/corpus/fuzz-$target/." "$out/corpus/"
pkgs="libdrm cairo cairo-ft libpng freetype2 harfbuzz liblz4 libzstd libxxhash libsodium"
sources=$(ls "$src"/src/*/*.c "$src"/kernel/*.c | grep -v '/src/cli/main.c$')
# shellcheck disable=SC2086
clang -g -O1 -fsanitize=fuzzer,address,undefined -std=gnu11 -pthread \
        -include "$build/config.h" -I"$src" -I"$src/src" -I"$build" \
        -DLOCALEDIR=\"/usr/share/locale\" -DDMO_SRCDIR=\"$src\" \
        $(pkg-config --cflags $pkgs) "$src/tests/fuzz/fuzz-$target.c" $sources \
        $(pkg-config --libs $pkgs) -lm -o "$out/fuzzer"
echo "fuzz-$target: libFuzzer for $seconds s"
"$out/fuzzer" -max_total_time="$seconds" -print_final_stats=1 "$out/corpus" 2>&1 | tail -12
