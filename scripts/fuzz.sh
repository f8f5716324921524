#!/usr/bin/env bash
# Differential fuzzing of rokkos' backends, on demand (the README's test command runs a short,
# fixed-seed run of the same fuzzer).
#
#   scripts/fuzz.sh [SEED [KERNELS [INPUTS [BATCH]]]]
#       A long run: KERNELS random kernels (default 400) in builds of BATCH kernels (default 50),
#       seeds SEED, SEED+1, ... (default: from the clock), INPUTS input sets each (default 16),
#       on serial, rayon, the IR evaluator, wgpu (lavapipe here) and cuda (where available).
#       Prints each batch's summary and the totals; exits 1 when a batch found a new divergence
#       (its reproducers are in target/fuzz/seed-<SEED>.log).
#   scripts/fuzz.sh shrink SPEC INPUT
#       Minimises a failing case (SPEC and INPUT as a reproducer prints them) by deleting
#       statements and replacing expressions while the divergence persists.
#
# ROKKOS_FUZZ_BACKENDS=serial,rayon,ir-eval,wgpu,cuda selects backends; cargo builds with -j2 and
# the test command's features (wgpu,cuda): the cuda column runs where a GPU, or the CUDA
# emulator (`. tools/cuda-emu/env.sh`), is found.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
    XDG_RUNTIME_DIR="$(mktemp -d)"
    chmod 700 "$XDG_RUNTIME_DIR"
    export XDG_RUNTIME_DIR
fi

if [ "${1:-}" = shrink ]; then
    [ $# -eq 3 ] || { echo "usage: scripts/fuzz.sh shrink SPEC INPUT" >&2; exit 2; }
    cargo build -q -j2 -p rokkos-fuzz-gen --bin rokkos-fuzz-shrink
    CARGO_BUILD_JOBS=2 exec target/debug/rokkos-fuzz-shrink "$2" "$3"
fi

seed="${1:-$(date +%s)}"
kernels="${2:-400}"
inputs="${3:-16}"
batch="${4:-50}"
mkdir -p target/fuzz
done_kernels=0
sets=0
values=0
failed=0
start=$(date +%s)
while [ "$done_kernels" -lt "$kernels" ]; do
    n=$(( kernels - done_kernels < batch ? kernels - done_kernels : batch ))
    log="target/fuzz/seed-$seed.log"
    set +e
    ROKKOS_FUZZ_SEED="$seed" ROKKOS_FUZZ_KERNELS="$n" ROKKOS_FUZZ_INPUTS="$inputs" \
        cargo test -q -j2 -p rokkos-fuzz --features wgpu,cuda --test fuzz >"$log" 2>&1
    rc=$?
    set -e
    summary=$(grep '^fuzz: [0-9]* kernels' "$log" || true)
    if [ -z "$summary" ]; then
        echo "seed $seed: the fuzz test did not run (build error?), see $log"
        tail -20 "$log"
        exit 1
    fi
    echo "seed $seed: $summary"
    grep -E '^fuzz: (launches|KNOWN|not checkable|[0-9]+ NEW)' "$log" | sed 's/^/    /'
    s=$(echo "$summary" | sed -E 's/.*= ([0-9]+) input sets.*/\1/')
    v=$(grep '^fuzz: launches' "$log" | sed -E 's/.*; ([0-9]+) values compared.*/\1/')
    sets=$((sets + s))
    values=$((values + v))
    if [ "$rc" -ne 0 ]; then
        failed=$((failed + 1))
        echo "    NEW divergences: reproducers in $log"
    fi
    done_kernels=$((done_kernels + n))
    seed=$((seed + 1))
done
echo "fuzz.sh: $done_kernels random kernels (+ the corpus per batch), $sets kernel x input sets, $values values compared, $(( $(date +%s) - start )) s; batches with new divergences: $failed"
[ "$failed" -eq 0 ]
