#!/bin/bash
# Checks, on a machine without nvcc or a GPU, the CUDA C that `run.sh speed` compiles with nvcc
# on the GPU machine: each file's kernels (-DKERNELS_ONLY) through NVRTC and ptxas for sm_90, and
# its host code with g++ -fsyntax-only against scripts/cuda_stub.h after rewriting each launch
# `k<<<grid, block>>>(args)` as `cuda_stub_launch(grid, block), k(args)` (a plain call, whose
# arguments g++ checks against the kernel's parameters). stream_n.cu is checked the same way with the reference
# stream.cu (ROKKOS_REFERENCE, default ../shared/reference) beside it.
# Needs NVRTC (LD_LIBRARY_PATH) and ptxas (ROKKOS_PTXAS), as CI's `.ci/run` sets them.
set -euo pipefail
cd "$(dirname "$0")/.."
REF=${ROKKOS_REFERENCE:-../shared/reference}
PTXAS=${ROKKOS_PTXAS:-ptxas}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unlaunch() { sed -E 's/([A-Za-z_][A-Za-z0-9_]*(<[A-Za-z0-9_]*>)?)<<<([^>]*)>>>/cuda_stub_launch(\3), \1/g' "$1"; }
for f in scripts/yax.cu scripts/cg.cu; do
    b=$(basename "$f" .cu)
    python3 - "$f" "$tmp/$b.ptx" <<'PY'
import ctypes, sys
src = open(sys.argv[1], "rb").read()
lib = ctypes.CDLL("libnvrtc.so.13")
prog = ctypes.c_void_p()
if lib.nvrtcCreateProgram(ctypes.byref(prog), src, sys.argv[1].encode(), 0, None, None):
    sys.exit("nvrtcCreateProgram failed")
opts = [b"--gpu-architecture=compute_90", b"-DKERNELS_ONLY", b"-default-device"]
arr = (ctypes.c_char_p * len(opts))(*opts)
rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
size = ctypes.c_size_t()
lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
log = ctypes.create_string_buffer(size.value)
lib.nvrtcGetProgramLog(prog, log)
text = log.value.decode(errors="replace").strip()
if text:
    print(text)
if rc:
    sys.exit("NVRTC failed on %s" % sys.argv[1])
lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
ptx = ctypes.create_string_buffer(size.value)
lib.nvrtcGetPTX(prog, ptx)
open(sys.argv[2], "wb").write(ptx.value)
PY
    "$PTXAS" -arch=sm_90 -v "$tmp/$b.ptx" -o "$tmp/$b.cubin" 2>&1 | grep -E 'Compiling|registers|spill' || true
    unlaunch "$f" > "$tmp/$b.cpp"
    g++ -std=c++17 -fsyntax-only -Wall -Wextra -Werror -include scripts/cuda_stub.h "$tmp/$b.cpp"
    echo "check_cuda: $f ok (NVRTC + ptxas sm_90, host code g++)"
done
# No warnings asked for here: the reference is not ours to tidy.
unlaunch "$REF/stream.cu" > "$tmp/stream.cu"
unlaunch scripts/stream_n.cu > "$tmp/stream_n.cpp"
g++ -std=c++17 -fsyntax-only -include scripts/cuda_stub.h -I"$tmp" "$tmp/stream_n.cpp"
echo "check_cuda: scripts/stream_n.cu ok (host code g++, with the reference stream.cu)"
