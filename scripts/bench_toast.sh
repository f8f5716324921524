#!/usr/bin/env bash
# rokkos against TOAST 3.0.6's own compiled kernels: every kernel, the same arrays, one run.
#
#   scripts/bench_toast.sh [--n-det 32] [--n-samp 360000] [--nside 1024] [--reps 5]
#
# Installs toast==3.0.6 (the PyPI wheel: OpenMP kernels in toast._libtoast, built for generic
# x86-64) and rokkos_toast (python/, built by pip in release, no -C target-cpu=native either) into
# a venv ($TOAST_VENV, default ~/.cache/rokkos-bench/toast-3.0.6; `--reinstall` rebuilds
# rokkos_toast after a change). Then runs scripts/bench_toast3.py, which calls both on identical
# NumPy arrays in one process, four times: TOAST on 1 OpenMP thread against rokkos serial, and on
# 2 threads against rokkos rayon on 2 threads, each with 100 irregular intervals and with one.
# Prints the best ns per sample of each and the ratio rokkos / TOAST (below 1: rokkos faster);
# every line is kept as JSON in target/bench_toast.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
args=() reinstall=0
while [ $# -gt 0 ]; do
    case "$1" in
        --reinstall) reinstall=1; shift ;;
        --n-det|--n-samp|--nside|--reps|--seed) args+=("$1" "$2"); shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
venv="${TOAST_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/rokkos-bench/toast-3.0.6}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import toast" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check toast==3.0.6
fi
if [ "$reinstall" = 1 ] || ! "$venv/bin/python" -c "import rokkos_toast" 2>/dev/null; then
    "$venv/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps ./python
fi
mkdir -p target
out=target/bench_toast.jsonl
: > "$out"
for n_view in 100 1; do
    OMP_NUM_THREADS=1 "$venv/bin/python" scripts/bench_toast3.py --backend serial \
        --n-view "$n_view" "${args[@]}" >> "$out"
    OMP_NUM_THREADS=2 RAYON_NUM_THREADS=2 "$venv/bin/python" scripts/bench_toast3.py \
        --backend rayon --n-view "$n_view" "${args[@]}" >> "$out"
done
python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(f"{'kernel':26} {'threads':>7} {'intervals':>9} {'TOAST ns/s':>11} {'rokkos ns/s':>12} {'ratio':>6}")
for r in rows:
    print(f"{r['kernel']:26} {r['omp_threads']:>7} {r['n_view']:>9} {r['toast_ns_per_sample']:11.3f} "
          f"{r['rokkos_ns_per_sample']:12.3f} {r['ratio']:6.2f}")
PY
