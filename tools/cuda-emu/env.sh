# Source from the repository root (bash): builds rokkos' CUDA emulator into target/cuda-emu when
# it is missing or older than its sources, and exports what runs rokkos-cuda on it. The optional
# argument is the real NVRTC library (libnvrtc.so.13), which then also compiles every program,
# so that NVRTC's errors and rokkos' PTX/ptxas checks stay real (see README.md here).
#
#   . tools/cuda-emu/env.sh "$HOME/.cache/rokkos-ci/cuda-13.0.88/nvidia/cu13/lib/libnvrtc.so.13"
#   cargo test --workspace --features wgpu,cuda
rkemu_src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rkemu_out="$(pwd)/target/cuda-emu"
rkemu_stale=0
for f in "$rkemu_src"/*.cpp "$rkemu_src"/*.h; do
    if [ ! "$rkemu_out/libcuda.so.1" -nt "$f" ] || [ ! "$rkemu_out/libnvrtc.so.13" -nt "$f" ]; then
        rkemu_stale=1
    fi
done
if [ "$rkemu_stale" = 1 ]; then
    "$rkemu_src/build.sh" "$rkemu_out" >/dev/null || return 1
fi
export LD_LIBRARY_PATH="$rkemu_out${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -n "${1:-}" ]; then
    export RKEMU_NVRTC="$1"
fi
# Kernels built by the emulator, and rokkos-cuda's disk cache of compiled kernels, both kept
# beside the emulator: the cache's images name the emulator's files, so they must never reach
# the cache of a real GPU (default ~/.cache/rokkos/cuda).
export RKEMU_DIR="$rkemu_out/kernels"
export ROKKOS_CUDA_CACHE_DIR="$rkemu_out/cache"
# A cuda test that cannot run fails instead of skipping.
export ROKKOS_REQUIRE_CUDA=1
unset rkemu_src rkemu_out rkemu_stale f
