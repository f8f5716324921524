#!/bin/bash
# Runs `run.sh` (scripts/bench_gpu.sh) here, without a GPU, in its three GPU modes (`speed`, the
# default check run and `wgpu`), with every program it calls replaced by a stub that records its
# arguments and succeeds (`nvcc` writes such a stub as its output; babelstream, stream and
# wgpu-triad print sample figures), to check each mode's own flow: the steps it runs with which
# arguments, where the logs go, the time budget (a step past SPEED_BUDGET, CHECK_BUDGET or
# WGPU_BUDGET is skipped), the table at the end and the archive. The speed table's parsing is
# checked on realistic logs by scripts/test_speed_table.sh.
# usage: scripts/test_run_gpu.sh
set -euo pipefail
cd "$(dirname "$0")/.."
t=$(mktemp -d)
trap "[ \"\${KEEP:-0}\" = 1 ] || rm -rf $t" EXIT
mkdir -p "$t/bin" "$t/repo/.gpu" "$t/out"
# A stub: appends its name and arguments to calls.txt; STUB_SLEEP seconds of work.
stub() {
    cat > "$1" <<EOF
#!/bin/bash
echo "\$(basename "\$0") \$*" >> "$t/calls.txt"
sleep "\${STUB_SLEEP:-0}"
say="$t/say_\$(basename "\$0").txt"
[ -f "\$say" ] && cat "\$say"
exit 0
EOF
    chmod +x "$1"
}
stub "$t/bin/nvidia-smi"
cat > "$t/bin/nvcc" <<EOF
#!/bin/bash
echo "nvcc \$*" >> "$t/calls.txt"
while [ \$# -gt 0 ]; do [ "\$1" = -o ] && out=\$2; shift; done
printf '#!/bin/bash\necho "\$(basename "\$0") \$*" >> "$t/calls.txt"\nsay="$t/say_\$(basename "\$0").txt"\n[ -f "\$say" ] && cat "\$say"\nexit 0\n' > "\$out"
chmod +x "\$out"
EOF
chmod +x "$t/bin/nvcc"
for p in babelstream yax cg launch_cost rokkos-toast; do stub "$t/repo/.gpu/$p"; done
cp scripts/bench_gpu.sh "$t/repo/.gpu/run.sh"
cp scripts/speed_table.py "$t/repo/.gpu/"
touch "$t/repo/.gpu/stream_n.cu" "$t/repo/.gpu/yax.cu" "$t/repo/.gpu/cg.cu"

fail=0
check() { grep -qF -- "$2" "$3" || { echo "test_run_gpu: $1: no [$2] in $(basename "$3")"; fail=1; }; }

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
[ "$(grep -c '^babelstream ' "$c")" = 8 ] || { echo "test_run_gpu: expected 8 babelstream runs (2 rounds x 4)"; fail=1; }
check "the table" "== issue 16, CUDA" "$t/run.txt"
check "the table's file" "== issue 16, CUDA" "$t/out/speed_table.txt"
[ -f "$t/out/speed_logs.tgz" ] || { echo "test_run_gpu: no speed_logs.tgz"; fail=1; }
# (listed to a file first: `grep -q` closing the pipe early would fail tar under pipefail)
tar tzf "$t/out/speed_logs.tgz" > "$t/list.txt" 2>&1 || true
grep -q 'speed/r2/launch_warm.log' "$t/list.txt" || { echo "test_run_gpu: logs missing from the archive"; fail=1; }

# The budget: with 1 s per program and 8 s in all, later steps are skipped, and the table
# still comes.
rm -rf "$t/out" "$c" && mkdir -p "$t/out"
(cd "$t/repo" && PATH="$t/bin:$PATH" OUT="$t/out" STUB_SLEEP=1 SPEED_BUDGET=8 bash .gpu/run.sh speed "yax cg" > "$t/run2.txt" 2>&1) || true
check "budget" "SKIPPED" "$t/run2.txt"
check "table after the budget" "== issue 16, CUDA" "$t/run2.txt"
if grep -q '^babelstream\|^stream_n' "$c"; then echo "test_run_gpu: PARTS=\"yax cg\" ran other parts"; fail=1; fi

# The check run (the default mode): its steps, the sanitizers on team kernels, the table.
for p in equivalence cuda_unit cuda_views cuda_nvrtc device e2e team wgpu_unit math_f64 wgpu_f32_math wgpu-triad; do
    stub "$t/repo/.gpu/$p"
done
stub "$t/bin/compute-sanitizer"
touch "$t/repo/.gpu/stream.cu"
rm -rf "$t/out" "$c" && mkdir -p "$t/out"
(cd "$t/repo" && PATH="$t/bin:$PATH" OUT="$t/out" bash .gpu/run.sh > "$t/run3.txt" 2>&1) || true
check "check: equivalence" "equivalence cuda --skip cuda_check" "$c"
check "check: nvcc" "nvcc -O3 -arch=sm_90 stream.cu -o stream" "$c"
check "check: babelstream" "babelstream --backend cuda --dtype f64 --n 33554432 --reps 50 --json" "$c"
check "check: racecheck on team kernels" "compute-sanitizer --error-exitcode 9 --tool racecheck ./equivalence --exact team_scratch::scratch_round_trip::cuda" "$c"
check "check: memcheck on a scan" "compute-sanitizer --error-exitcode 9 --tool memcheck ./equivalence --exact scan::prefix_sum_of_data::cuda" "$c"
check "check: the table" "san_racecheck_team" "$t/run3.txt"
[ -f "$t/out/logs.tgz" ] || { echo "test_run_gpu: check: no logs.tgz"; fail=1; }
rm -rf "$t/out" "$c" && mkdir -p "$t/out"
(cd "$t/repo" && PATH="$t/bin:$PATH" OUT="$t/out" STUB_SLEEP=1 CHECK_BUDGET=6 bash .gpu/run.sh > "$t/run4.txt" 2>&1) || true
check "check: budget" "SKIPPED" "$t/run4.txt"
check "check: table after the budget" "== summary" "$t/run4.txt"

# The wgpu mode: sample figures through the ratios (rokkos' triad 900 against the raw wgpu
# reference's 1000 is 0.900), the tests after the rounds, the archive.
printf '{"kernel":"triad","value":900}\n{"kernel":"triad_batched","value":1700}\n{"kernel":"dot","value":1500}\n{"kernel":"dot_batched","value":1400}\n{"kernel":"empty_sync","value":12.5}\n{"kernel":"empty_async","value":3.5}\nnot json\n' > "$t/say_babelstream.txt"
printf 'f32 triad  n=33554432  best 2000.0 GB/s\nf64 triad  n=33554432  best 2000.0 GB/s\nf32 dot  n=33554432  best 1600.0 GB/s\nf64 dot  n=33554432  best 1600.0 GB/s\n' > "$t/say_stream.txt"
printf 'wgpu f32 triad n=33554432 best 1000.0 GB/s\nwgpu f64 triad n=33554432 best 1000.0 GB/s\nwgpu f32 triad batched 20/submit 1500.0 GB/s\nround trip 50.0 us\nthroughput 4.0 us\n' > "$t/say_wgpu-triad.txt"
rm -rf "$t/out" "$c" && mkdir -p "$t/out"
(cd "$t/repo" && PATH="$t/bin:$PATH" OUT="$t/out" bash .gpu/run.sh wgpu > "$t/run5.txt" 2>&1) || true
check "wgpu: babelstream" "babelstream --backend wgpu --dtype f64 --n 33554432 --reps 100 --json" "$c"
check "wgpu: the cuda dot" "babelstream --backend cuda --dtype f32 --n 33554432 --reps 100 --json" "$c"
check "wgpu: equivalence" "equivalence wgpu" "$c"
grep -qE '^  f32 triad fenced / wgpu_triad \(bar 0.95\) +0\.900  0\.900  \(3\)$' "$t/run5.txt" ||
    { echo "test_run_gpu: wgpu: no f32 triad ratio 0.900 over 3 rounds"; fail=1; }
grep -qE '^  f64 20 triads / stream.cu triad \(bar 0.85\) +0\.850  0\.850  \(3\)$' "$t/run5.txt" ||
    { echo "test_run_gpu: wgpu: no f64 20-triad ratio 0.850 over 3 rounds"; fail=1; }
check "wgpu: the table" "wgpu/equivalence" "$t/run5.txt"
tar tzf "$t/out/logs.tgz" > "$t/list.txt" 2>&1 || true
grep -q 'wgpu/r3/bs_f64_cuda.log' "$t/list.txt" || { echo "test_run_gpu: wgpu: logs missing from the archive"; fail=1; }
rm -rf "$t/out" "$c" && mkdir -p "$t/out"
(cd "$t/repo" && PATH="$t/bin:$PATH" OUT="$t/out" STUB_SLEEP=1 WGPU_BUDGET=6 bash .gpu/run.sh wgpu > "$t/run6.txt" 2>&1) || true
check "wgpu: budget" "SKIPPED" "$t/run6.txt"
check "wgpu: ratios after the budget" "== ratios over the rounds" "$t/run6.txt"

[ "${VERBOSE:-0}" = 1 ] && cat "$t/run.txt" "$t/run2.txt" "$t/run3.txt" "$t/run4.txt" "$t/run5.txt" "$t/run6.txt"
[ $fail = 0 ] && echo "test_run_gpu: ok"
exit $fail
