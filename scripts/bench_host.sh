#!/usr/bin/env bash
# Host bandwidth bars: the OpenMP reference (../shared/reference/stream_omp.c) and rokkos BabelStream
# on rayon and serial at the same n, interleaved over several rounds (memory bandwidth on a shared VM
# drifts by tens of percent between runs, so each side keeps its best figure over all rounds).
# usage: scripts/bench_host.sh [n] [reps per run] [rounds]
set -euo pipefail
n=${1:-33554432}
reps=${2:-20}
rounds=${3:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
ref=${ROKKOS_REFERENCE:-$root/../shared/reference}
out=$(mktemp -d)
gcc -O3 -march=native -fopenmp "$ref/stream_omp.c" -o "$out/stream_omp"
cargo build --release --example babelstream --manifest-path "$root/Cargo.toml" >/dev/null 2>&1
bin="$root/target/release/examples/babelstream"
for r in $(seq "$rounds"); do
  "$out/stream_omp" "$n" >> "$out/omp.txt"
  "$bin" --backend rayon --n "$n" --reps "$reps" --json >> "$out/rayon.jsonl"
  "$bin" --backend serial --n "$n" --reps "$reps" --json >> "$out/serial.jsonl"
done
python3 - "$out" "$n" "$rounds" <<'PY'
import json, re, sys
out, n, rounds = sys.argv[1], sys.argv[2], sys.argv[3]
best = {}
for line in open(f"{out}/omp.txt"):
    for k, v in re.findall(r"(copy|triad|dot) ([0-9.]+) GB/s", line):
        best[("openmp", k)] = max(best.get(("openmp", k), 0.0), float(v))
for b in ("rayon", "serial"):
    for line in open(f"{out}/{b}.jsonl"):
        j = json.loads(line)
        best[(b, j["kernel"])] = max(best.get((b, j["kernel"]), 0.0), j["value"])
print(f"n={n}, best of {rounds} interleaved rounds")
print(f"{'kernel':<8}{'openmp GB/s':>13}{'rayon GB/s':>12}{'rayon/omp':>11}{'serial GB/s':>13}")
for k in ("copy", "triad", "dot"):
    o, r = best[("openmp", k)], best[("rayon", k)]
    print(f"{k:<8}{o:>13.1f}{r:>12.1f}{r / o:>11.3f}{best[('serial', k)]:>13.1f}")
PY
