#!/bin/bash
# Host-side cost of a wgpu launch, rokkos against raw wgpu, with no driver underneath: both are
# built with wgpu's no-op backend (which runs no shader and copies nothing) and run on it, so what
# is left is the time each spends in its own code and in wgpu-core per launch. Runs on any machine,
# no GPU needed. Results of kernels are meaningless there, so BabelStream's validation fails; only
# its timings are read. The no-op queue is always idle, so rokkos submits every launch at once
# (while a GPU is busy it would gather them in one command buffer): its batched figures are the
# idle-queue worst case, where the reference records 20 dispatches in one pass.
#
#   scripts/host_overhead.sh [n] [reps]      (defaults 33554432 and 1000)
#
# The reference is ../shared/reference/wgpu_triad, copied to a temporary directory with two edits:
# wgpu's `noop` feature, and at most 4 bind groups (the no-op adapter reports an unlimited count,
# which overflows wgpu-core's tables when a device asks for all of it; rokkos asks for at most 4).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-33554432}
REPS=${2:-1000}
T=${TMPDIR:-/tmp}/rokkos-host-overhead
mkdir -p "$T"
rm -rf "$T/wgpu_triad" && cp -r ../shared/reference/wgpu_triad "$T/wgpu_triad"
sed -i 's/^wgpu = "30.0.1"/wgpu = { version = "30.0.1", features = ["noop"] }/' "$T/wgpu_triad/Cargo.toml"
sed -i 's/required_limits: adapter.limits(),/required_limits: wgpu::Limits { max_bind_groups: adapter.limits().max_bind_groups.min(4), ..adapter.limits() },/' \
    "$T/wgpu_triad/src/main.rs"
grep -q 'features = \["noop"\]' "$T/wgpu_triad/Cargo.toml"
grep -q 'max_bind_groups.min(4)' "$T/wgpu_triad/src/main.rs"
CARGO_TARGET_DIR=$T/ref_target cargo build -q --release --manifest-path "$T/wgpu_triad/Cargo.toml"
CARGO_TARGET_DIR=$T/target cargo build -q --release --features wgpu,rokkos-wgpu/noop --example babelstream

export WGPU_NOOP_BACKEND=1 WGPU_BACKEND=noop
for dt in f32 f64; do
    "$T/target/release/examples/babelstream" --backend wgpu --n "$N" --reps "$REPS" --dtype $dt --json \
        2>/dev/null | grep '^{' > "$T/rokkos_$dt.json" || true
done
"$T/ref_target/release/wgpu-triad" "$N" > "$T/ref.txt"

python3 - "$T" "$N" <<'EOF'
import json, re, sys
t, n = sys.argv[1], int(sys.argv[2])
ref = open(f"{t}/ref.txt").read()
def ref_us(dt, pat):
    m = re.search(rf"wgpu {dt} triad {pat} ([0-9.]+) GB/s", ref)
    size = 4 if dt == "f32" else 8
    return 3 * n * size / (float(m.group(1)) * 1e9) * 1e6 if m else float("nan")
rows = []
for dt in ["f32", "f64"]:
    r = {j["kernel"]: j for j in map(json.loads, open(f"{t}/rokkos_{dt}.json"))}
    us = lambda k: r[k]["best_s"] * 1e6 if k in r else float("nan")
    rows.append((f"{dt} triad, launch + fence", us("triad"), ref_us(dt, rf"n={n} best")))
    # The reference's batched figure counts the bytes of all 20 triads: per triad already.
    rows.append((f"{dt} triad, 20 per fence (per triad)", us("triad_batched"),
                 ref_us(dt, "batched 20/submit")))
    rows.append((f"{dt} dot, blocking (result on the host)", us("dot"), float("nan")))
    rows.append((f"{dt} dot into a device View, 20 per fence", us("dot_batched"), float("nan")))
    if dt == "f32":
        e = re.search(r"round trip ([0-9.]+) us", ref)
        a = re.search(r"throughput ([0-9.]+) us", ref)
        rows.append(("empty kernel, launch + fence", us("empty_sync"), float(e.group(1)) if e else float("nan")))
        rows.append(("empty kernel, async (per launch)", us("empty_async"), float(a.group(1)) if a else float("nan")))
print(f"host time per launch on wgpu's no-op backend, n = {n} (best of the runs, microseconds)")
print(f"{'what':45} {'rokkos':>8} {'raw wgpu':>9} {'extra':>7}")
for what, mine, raw in rows:
    extra = mine - raw if raw == raw else float("nan")
    fmt = lambda x: f"{x:.2f}" if x == x else "-"
    print(f"{what:45} {fmt(mine):>8} {fmt(raw):>9} {fmt(extra):>7}")
EOF
