#!/usr/bin/env bash
# rokkos-toast against TOAST 3.0.6's own compiled kernels, side by side, in one run.
#
#   scripts/bench_toast.sh [--n-det 16] [--n-samp 360000] [--n-view 100] [--rounds 3]
#
# Installs toast==3.0.6 (PyPI wheel, OpenMP kernels in toast._libtoast) into a venv once
# ($TOAST_VENV, default ~/.cache/rokkos-bench/toast-3.0.6), builds rokkos-toast in release (no
# -C target-cpu=native: the wheel is built for generic x86-64 too), then alternates, `--rounds`
# times: TOAST on 1 OpenMP thread, rokkos serial, TOAST on 2 threads, rokkos rayon on 2 threads.
# Prints the best ns per sample of each and the ratio rokkos / TOAST (below 1: rokkos faster)
# for the kernels whose timing does not depend on the data (scripts/bench_toast_compiled.py says
# which and why); all lines are also kept as JSON in target/bench_toast.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
n_det=16 n_samp=360000 n_view=100 rounds=3
while [ $# -gt 0 ]; do
    case "$1" in
        --n-det) n_det=$2; shift 2 ;;
        --n-samp) n_samp=$2; shift 2 ;;
        --n-view) n_view=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
venv="${TOAST_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/rokkos-bench/toast-3.0.6}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import toast" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check toast==3.0.6
fi
cargo build -q --release -p rokkos-toast
out=target/bench_toast.jsonl
: > "$out"
size=(--n-det "$n_det" --n-samp "$n_samp" --n-view "$n_view")
for _ in $(seq "$rounds"); do
    OMP_NUM_THREADS=1 "$venv/bin/python" scripts/bench_toast_compiled.py "${size[@]}" >> "$out"
    target/release/rokkos-toast --backend serial --design team --json "${size[@]}" | grep '^{"backend"' >> "$out"
    OMP_NUM_THREADS=2 "$venv/bin/python" scripts/bench_toast_compiled.py "${size[@]}" >> "$out"
    RAYON_NUM_THREADS=2 target/release/rokkos-toast --backend rayon --design team --json "${size[@]}" \
        | grep '^{"backend"' >> "$out"
done
python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
best = {}
for r in rows:
    if r.get("bench") == "toast_compiled":
        key = ("toast", r["omp_threads"], r["kernel"])
        ns = r["ns_per_sample"]
    elif r.get("bench") == "toast" and "kernel" in r:
        key = ("rokkos", "1" if r["backend"] == "serial" else "2", r["kernel"])
        ns = r["best_s"] * 1e9 / (r["n_det"] * r["n_samp"])
    else:
        continue
    best[key] = min(ns, best.get(key, ns))
kernels = sorted({k for (who, _, k) in best if who == "toast"})
print(f"{'kernel':24} {'thr':>3} {'TOAST ns/s':>11} {'rokkos ns/s':>12} {'ratio':>6}")
for k in kernels:
    for t in ("1", "2"):
        a, b = best.get(("toast", t, k)), best.get(("rokkos", t, k))
        if a and b:
            print(f"{k:24} {t:>3} {a:11.3f} {b:12.3f} {b / a:6.2f}")
PY
