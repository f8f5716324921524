#!/usr/bin/env bash
# Host bandwidth bars, one run: the OpenMP reference (../shared/reference/stream_omp.c) and rokkos
# BabelStream on rayon and serial at the same n, best of repetitions, then the ratios.
# usage: scripts/bench_host.sh [n] [reps]
set -euo pipefail
n=${1:-33554432}
reps=${2:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
ref=${ROKKOS_REFERENCE:-$root/../shared/reference}
out=$(mktemp -d)
gcc -O3 -march=native -fopenmp "$ref/stream_omp.c" -o "$out/stream_omp"
cargo build --release --example babelstream --manifest-path "$root/Cargo.toml" >/dev/null 2>&1
bin="$root/target/release/examples/babelstream"
omp=$("$out/stream_omp" "$n")
echo "openmp: $omp"
"$bin" --backend rayon --n "$n" --reps "$reps" --json > "$out/rayon.jsonl"
"$bin" --backend serial --n "$n" --reps "$reps" --json > "$out/serial.jsonl"
python3 - "$out" "$omp" <<'PY'
import json, re, sys
out, omp = sys.argv[1], sys.argv[2]
ref = {k: float(v) for k, v in re.findall(r"(copy|triad|dot) ([0-9.]+) GB/s", omp)}
rows = {}
for b in ("rayon", "serial"):
    for line in open(f"{out}/{b}.jsonl"):
        j = json.loads(line)
        rows[(b, j["kernel"])] = j["value"]
print(f"{'kernel':<8}{'openmp GB/s':>13}{'rayon GB/s':>12}{'rayon/omp':>11}{'serial GB/s':>13}")
for k in ("copy", "triad", "dot"):
    r = rows[("rayon", k)]
    print(f"{k:<8}{ref[k]:>13.1f}{r:>12.1f}{r / ref[k]:>11.3f}{rows[('serial', k)]:>13.1f}")
PY
