#!/bin/bash
# Builds, here, everything .gpu/run.sh (= scripts/bench_gpu.sh) runs on the GPU machine (which
# has no Rust toolchain), into the ignored folders .gpu/ and .gl/ of the repository root:
#   .gpu/  bin.tar.xz: the release examples babelstream, cg and yax (features wgpu and cuda),
#          rokkos-cuda's launch_cost example and rokkos-toast (feature cuda) for `run.sh speed`;
#          host/: babelstream, stencil and launch built for x86-64-v3 (the GPU machine's CPU is
#          unknown) for `run.sh host` (skipped with ROKKOS_GPU_HOST=0); the test
#          executables (dev profile, as CI runs them; features wgpu and cuda): equivalence,
#          device, wgpu_f32_math, rokkos-wgpu's wgpu_unit, e2e, team, math_f64, rokkos-cuda's
#          cuda_unit (runtime smoke test and launcher unit tests), cuda_views and cuda_nvrtc;
#          with ROKKOS_GPU_WGPU=1 also the raw wgpu reference wgpu-triad (its own release build,
#          needed only by `run.sh wgpu`); all stripped and compressed (the carry limit is
#          64 MiB); stream.cu and scripts' stream_n.cu, yax.cu and cg.cu (compiled with nvcc
#          there), speed_table.py, bench_host.sh, the OpenMP references (reference/, compiled
#          with gcc there) and run.sh;
#   .gl/   the Vulkan loader packages the device README names (for the wgpu steps).
# Then, with the device tool: run `bash .gpu/run.sh` with carry [".gpu", ".gl"].
set -euo pipefail
cd "$(dirname "$0")/.."
# The C references live outside the repository (ROKKOS_REFERENCE says where).
REF=${ROKKOS_REFERENCE:-../shared/reference}
[ -f "$REF/stream.cu" ] || { echo "prepare_gpu: no stream.cu in $REF (set ROKKOS_REFERENCE)" >&2; exit 1; }
# Ignored, also in a worktree (whose .git is a file: the exclude file is the common one's).
EXCLUDE="$(git rev-parse --git-common-dir)/info/exclude"
mkdir -p "$(dirname "$EXCLUDE")"
for d in /.gpu/ /.gl/; do grep -qxF "$d" "$EXCLUDE" 2>/dev/null || echo "$d" >> "$EXCLUDE"; done
rm -rf .gpu && mkdir -p .gpu

cargo build -j2 --release --features wgpu,cuda --example babelstream --example cg --example yax
cp target/release/examples/babelstream target/release/examples/cg target/release/examples/yax .gpu/
cargo build -j2 --release -p rokkos-cuda --example launch_cost
cp target/release/examples/launch_cost .gpu/
cargo build -j2 --release -p rokkos-toast --features cuda
cp target/release/rokkos-toast .gpu/
HOST=""
if [ "${ROKKOS_GPU_HOST:-1}" = 1 ]; then
    # Its own target folder: other RUSTFLAGS would rebuild target/release from scratch.
    HOST_FLAGS="-C target-cpu=x86-64-v3"
    RUSTFLAGS="$HOST_FLAGS" cargo build -j2 --release --example babelstream --example stencil \
        --example launch --example md --example transpose --target-dir target/bench-x86-64-v3
    mkdir -p .gpu/host
    for b in babelstream stencil launch md transpose; do cp "target/bench-x86-64-v3/release/examples/$b" .gpu/host/; done
    echo "$HOST_FLAGS" > .gpu/host/RUSTFLAGS
    HOST="host/babelstream host/stencil host/launch host/md host/transpose"
fi

# The test executables, named by cargo's JSON messages (one line per artifact): per package,
# since each has its own features and targets.
collect() {
    python3 -c '
import json, shutil, sys
want = {"equivalence": "equivalence", "device": "device", "wgpu_f32_math": "wgpu_f32_math",
        "e2e": "e2e", "team": "team", "math_f64": "math_f64",
        "views": "cuda_views", "nvrtc_ptxas": "cuda_nvrtc", "backends": "toast_backends"}
lib = {"rokkos_wgpu": "wgpu_unit", "rokkos_cuda": "cuda_unit"}
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") != "compiler-artifact" or not m.get("executable"):
        continue
    t = m["target"]
    name = t["name"]
    if t["kind"] == ["lib"] and name in lib:
        shutil.copy(m["executable"], ".gpu/" + lib[name])
    elif "test" in t["kind"] and name in want:
        shutil.copy(m["executable"], ".gpu/" + want[name])
'
}
cargo test -j2 --features wgpu,cuda --no-run --message-format=json \
    --test equivalence --test device --test wgpu_f32_math 2>/dev/null | collect
cargo test -j2 -p rokkos-wgpu --no-run --message-format=json \
    --lib --test e2e --test team --test math_f64 2>/dev/null | collect
cargo test -j2 -p rokkos-cuda --no-run --message-format=json \
    --lib --test views --test nvrtc_ptxas 2>/dev/null | collect
cargo test -j2 -p rokkos-toast --features cuda --no-run --message-format=json \
    --test backends 2>/dev/null | collect

BINS="babelstream cg yax launch_cost rokkos-toast equivalence device wgpu_f32_math wgpu_unit e2e team math_f64 cuda_unit cuda_views cuda_nvrtc toast_backends $HOST"
if [ "${ROKKOS_GPU_WGPU:-0}" = 1 ]; then
    CARGO_TARGET_DIR=/tmp/wgpu_triad_target cargo build --release --manifest-path "$REF/wgpu_triad/Cargo.toml"
    cp /tmp/wgpu_triad_target/release/wgpu-triad .gpu/
    BINS="$BINS wgpu-triad"
fi
for b in $BINS; do [ -f ".gpu/$b" ] || { echo "prepare_gpu: $b was not built" >&2; exit 1; }; done
cp "$REF/stream.cu" scripts/stream_n.cu scripts/yax.cu scripts/cg.cu scripts/speed_table.py \
    scripts/bench_host.sh .gpu/
mkdir -p .gpu/reference
cp "$REF/stream_omp.c" "$REF/stencil_omp.c" "$REF/launch_omp.c" .gpu/reference/
cp scripts/scan_omp.c scripts/md_omp.c .gpu/reference/
cp scripts/bench_gpu.sh .gpu/run.sh
# shellcheck disable=SC2086
(cd .gpu && strip $BINS && tar -cJf bin.tar.xz $BINS && rm $BINS)

if ! ls .gl/*.deb >/dev/null 2>&1; then
    mkdir -p .gl /tmp/amd64/partial
    o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
    # shellcheck disable=SC2086
    apt-get $o update -qq
    # shellcheck disable=SC2086
    (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
fi
du -sh .gpu .gl
ls -la .gpu
size=$(du -cb .gpu .gl | tail -1 | cut -f1)
limit=$((64 * 1024 * 1024))
echo "carried: $size bytes of $limit"
[ "$size" -le "$limit" ] || { echo "prepare_gpu: .gpu and .gl exceed the 64 MiB carry limit" >&2; exit 1; }
