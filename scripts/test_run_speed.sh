#!/bin/bash
# Runs `run.sh speed` (scripts/bench_gpu.sh) here, without a GPU, with every program it calls
# replaced by a stub that records its arguments and succeeds (`nvcc` writes such a stub as its
# output), to check the mode's own flow: the steps it runs with which arguments, where the logs
# go, the time budget (a step past SPEED_BUDGET is skipped), the table at the end and the
# archive. The table's parsing is checked on realistic logs by scripts/test_speed_table.sh.
# usage: scripts/test_run_speed.sh
set -euo pipefail
cd "$(dirname "$0")/.."
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/bin" "$t/repo/.gpu" "$t/out"
# A stub: appends its name and arguments to calls.txt; STUB_SLEEP seconds of work.
stub() {
    cat > "$1" <<EOF
#!/bin/bash
echo "\$(basename "\$0") \$*" >> "$t/calls.txt"
sleep "\${STUB_SLEEP:-0}"
EOF
    chmod +x "$1"
}
stub "$t/bin/nvidia-smi"
cat > "$t/bin/nvcc" <<EOF
#!/bin/bash
echo "nvcc \$*" >> "$t/calls.txt"
while [ \$# -gt 0 ]; do [ "\$1" = -o ] && out=\$2; shift; done
printf '#!/bin/bash\necho "\$(basename "\$0") \$*" >> "$t/calls.txt"\n' > "\$out"
chmod +x "\$out"
EOF
chmod +x "$t/bin/nvcc"
for p in babelstream yax cg launch_cost rokkos-toast; do stub "$t/repo/.gpu/$p"; done
cp scripts/bench_gpu.sh "$t/repo/.gpu/run.sh"
cp scripts/speed_table.py "$t/repo/.gpu/"
touch "$t/repo/.gpu/stream_n.cu" "$t/repo/.gpu/yax.cu" "$t/repo/.gpu/cg.cu"

fail=0
check() { grep -qF -- "$2" "$3" || { echo "test_run_speed: $1: no [$2] in $(basename "$3")"; fail=1; }; }

(cd "$t/repo" && PATH="$t/bin:$PATH" OUT="$t/out" ROUNDS=2 bash .gpu/run.sh speed > "$t/run.txt" 2>&1) || true
c=$t/calls.txt
check "stream.cu's own main" "stream_n " "$c"
check "f32 at 2^28" "stream_n f32 268435456" "$c"
check "host-timed" "stream_n host f64 33554432 f32 33554432 f64 268435456 f32 268435456" "$c"
check "babelstream" "babelstream --backend cuda --dtype f32 --n 268435456 --reps 100 --json" "$c"
check "launch_cost" "launch_cost --json" "$c"
check "launch_cost, second process" "launch_cost --rounds 1 --batch 100 --reps 100 --json" "$c"
check "yax" "yax --backend cuda --json" "$c"
check "yax reference" "yax_ref" "$c"
check "cg" "cg --backend cuda --n 2048 --iters 40000 --json" "$c"
check "cg reference" "cg_ref 2048 40000" "$c"
check "toast" "rokkos-toast --backend cuda --json" "$c"
check "nvcc" "nvcc -O3 -arch=sm_90 -I. stream_n.cu -o stream_n" "$c"
[ "$(grep -c '^babelstream ' "$c")" = 8 ] || { echo "test_run_speed: expected 8 babelstream runs (2 rounds x 4)"; fail=1; }
check "the table" "== issue 16, CUDA" "$t/run.txt"
check "the table's file" "== issue 16, CUDA" "$t/out/speed_table.txt"
[ -f "$t/out/speed_logs.tgz" ] || { echo "test_run_speed: no speed_logs.tgz"; fail=1; }
tar tzf "$t/out/speed_logs.tgz" | grep -q 'speed/r2/launch_warm.log' || { echo "test_run_speed: logs missing from the archive"; fail=1; }

# The budget: with 1 s per program and 8 s in all, later steps are skipped, and the table
# still comes.
rm -rf "$t/out" "$c" && mkdir -p "$t/out"
(cd "$t/repo" && PATH="$t/bin:$PATH" OUT="$t/out" STUB_SLEEP=1 SPEED_BUDGET=8 bash .gpu/run.sh speed "yax cg" > "$t/run2.txt" 2>&1) || true
check "budget" "SKIPPED" "$t/run2.txt"
check "table after the budget" "== issue 16, CUDA" "$t/run2.txt"
if grep -q '^babelstream\|^stream_n' "$c"; then echo "test_run_speed: PARTS=\"yax cg\" ran other parts"; fail=1; fi
[ "${VERBOSE:-0}" = 1 ] && cat "$t/run.txt" "$t/run2.txt"
[ $fail = 0 ] && echo "test_run_speed: ok"
exit $fail
