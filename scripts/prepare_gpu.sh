#!/bin/bash
# Builds, here, everything scripts/bench_gpu.sh runs on the GPU machine (which has no Rust
# toolchain), into the ignored folders .gpu/ and .gl/ of the repository root:
#   .gpu/  bin.tar.xz (babelstream, cg, the test executables e2e, team, math_f64, wgpu_f32_math,
#          wgpu_unit and equivalence, rokkos-cuda's cuda_unit (the runtime smoke test), cuda_views
#          and cuda_nvrtc, and the raw wgpu reference wgpu-triad, stripped; compressed
#          because the carry limit is 64 MiB), stream.cu and run.sh (= scripts/bench_gpu.sh);
#   .gl/   the Vulkan loader packages the device README names.
# Then, with the device tool: run `bash .gpu/run.sh` with carry [".gpu", ".gl"].
set -euo pipefail
cd "$(dirname "$0")/.."
REF=../shared/reference
mkdir -p .git/info
for d in /.gpu/ /.gl/; do grep -qxF "$d" .git/info/exclude 2>/dev/null || echo "$d" >> .git/info/exclude; done
rm -rf .gpu && mkdir -p .gpu

cargo build --release --features wgpu --example babelstream --example cg
cp target/release/examples/babelstream target/release/examples/cg .gpu/

# The test executables, named by cargo's JSON messages (one line per artifact).
cargo test --release --features wgpu --workspace --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, shutil, sys
want = {"e2e": "e2e", "team": "team", "math_f64": "math_f64", "equivalence": "equivalence",
        "wgpu_f32_math": "wgpu_f32_math", "views": "cuda_views", "nvrtc_ptxas": "cuda_nvrtc"}
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") != "compiler-artifact" or not m.get("executable"):
        continue
    t = m["target"]
    name = t["name"]
    if t["kind"] == ["lib"] and name == "rokkos_wgpu":
        shutil.copy(m["executable"], ".gpu/wgpu_unit")
    elif t["kind"] == ["lib"] and name == "rokkos_cuda":
        shutil.copy(m["executable"], ".gpu/cuda_unit")
    elif "test" in t["kind"] and name in want:
        shutil.copy(m["executable"], ".gpu/" + want[name])
'

CARGO_TARGET_DIR=/tmp/wgpu_triad_target cargo build --release --manifest-path $REF/wgpu_triad/Cargo.toml
cp /tmp/wgpu_triad_target/release/wgpu-triad .gpu/
cp $REF/stream.cu .gpu/
cp scripts/bench_gpu.sh .gpu/run.sh
BINS="babelstream cg wgpu-triad e2e team math_f64 wgpu_f32_math wgpu_unit equivalence cuda_unit cuda_views cuda_nvrtc"
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
