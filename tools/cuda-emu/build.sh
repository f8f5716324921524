#!/bin/bash
# Builds rokkos' CUDA emulator (see README.md here) into $1 (default target/cuda-emu): libcuda.so
# and libnvrtc.so.13 stand-ins, with rkemu.h beside them, then runs its self-test (selftest.cpp).
# Put that folder first on LD_LIBRARY_PATH to run rokkos-cuda on the host (env.sh does it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../../target/cuda-emu}
mkdir -p "$out"
out=$(cd "$out" && pwd)
CXX=${RKEMU_CXX:-g++}
$CXX -std=c++17 -O2 -fPIC -shared -Wall -o "$out/libcuda.so.1" "$here/driver.cpp" -ldl
ln -sf libcuda.so.1 "$out/libcuda.so"
$CXX -std=c++17 -O2 -fPIC -shared -Wall -o "$out/libnvrtc.so.13" "$here/nvrtc.cpp" -ldl
ln -sf libnvrtc.so.13 "$out/libnvrtc.so"
cp "$here/rkemu.h" "$out/"
$CXX -std=c++17 -O1 -Wall -o "$out/selftest" "$here/selftest.cpp" "$out/libcuda.so.1" "$out/libnvrtc.so.13" \
    -Wl,-rpath,"$out"
# The launches it expects to fail print the emulator's messages: kept in a log, shown on failure.
if ! RKEMU_DIR="$out/selftest-kernels" "$out/selftest" 2>"$out/selftest.log"; then
    cat "$out/selftest.log" >&2
    exit 1
fi
echo "$out"
