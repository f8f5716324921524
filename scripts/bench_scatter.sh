#!/usr/bin/env bash
# rokkos' ScatterView histogram against its OpenMP references, in one run:
#
#   scripts/bench_scatter.sh [--n 16777216] [--reps 5]
#
# Builds scripts/histogram_omp.c (gcc -O3 -fopenmp) and the histogram example (release), runs
# both on every core (OMP_NUM_THREADS and rayon's pool at nproc), and prints, per dtype and bin
# count, each rokkos kernel's speed as a ratio of each OpenMP reference's (best of --reps runs,
# samples per second; above 1: rokkos faster). Issue 32's bar: scatter_view >= 0.9 of
# omp_reduction and of omp_per_thread. Every line is kept as JSON in target/bench_scatter.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
n=$((1 << 24)) reps=5
while [ $# -gt 0 ]; do
    case "$1" in
        --n) n="$2"; shift 2 ;;
        --reps) reps="$2"; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
threads=$(nproc)
mkdir -p target
gcc -O3 -fopenmp scripts/histogram_omp.c -o target/histogram_omp
cargo build -q --release -p rokkos-containers --example histogram
out=target/bench_scatter.jsonl
: > "$out"
# GCC puts the private reduction arrays on the threads' stacks (the main thread's too).
ulimit -s 1048576
OMP_NUM_THREADS=$threads OMP_STACKSIZE=64M OMP_PROC_BIND=false target/histogram_omp "$n" "$reps" >> "$out"
RAYON_NUM_THREADS=$threads target/release/examples/histogram --bench --json --n "$n" --reps "$reps" >> "$out"
python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
best = {(r["dtype"], r["bins"], r["kernel"]): r["best_s"] for r in rows}
refs = ["omp_reduction", "omp_per_thread", "omp_atomic"]
print(f"threads {rows[0]['threads']}, n {rows[0]['n']}: speed of rokkos / speed of OpenMP (best of runs; above 1: rokkos faster)")
print(f"{'dtype':5} {'bins':>8} {'rokkos kernel':>14} " + " ".join(f"{r:>15}" for r in refs))
for dtype in ["u32", "f64"]:
    for bins in sorted({r["bins"] for r in rows}):
        for k in ["scatter_view", "atomic"]:
            t = best.get((dtype, bins, k))
            if t is None:
                continue
            cells = [f"{best[(dtype, bins, r)] / t:15.2f}" if (dtype, bins, r) in best else f"{'-':>15}" for r in refs]
            print(f"{dtype:5} {bins:>8} {k:>14} " + " ".join(cells))
PY
