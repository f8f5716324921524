#!/bin/bash
# The GPU-machine run, there from the repository root by the device tool with `.gpu` and `.gl`
# carried (the machine has no Rust toolchain: scripts/prepare_gpu.sh builds everything here
# first). One command, `bash .gpu/run.sh`, runs the CUDA backend's checks, each step with a time
# limit, a failure recorded in the table and the next step run anyway (set -u, not set -e):
#   - the equivalence suite's cuda and device_cuda instances with ROKKOS_REQUIRE_CUDA=1 (no skip
#     for want of a device), and run_on over every backend;
#   - rokkos-cuda's own tests (runtime smoke test, launcher unit tests, the View API on device
#     memory, NVRTC + ptxas), the facade's Device tests and TOAST's backend tests on cuda;
#   - BabelStream --backend cuda (f32 and f64, n = 2^25) and the CUDA C reference stream.cu
#     compiled with nvcc, with the ratios; the CG example on cuda;
#   - compute-sanitizer memcheck and racecheck on BabelStream, a reduction (float_dot,
#     reduce_into_rank0), a scan (prefix_sum_of_data) and team kernels (level-0 and level-1
#     scratch across barriers, team and vector reductions and scans, a team-vector MinLoc).
# CHECK_BUDGET (570 s) bounds the whole run as SPEED_BUDGET bounds `speed`, so that the table
# comes back within the device's 10-minute limit even when a step hangs.
# Logs go to $OUT (one per step, then logs.tgz); the table is printed last.
# `bash .gpu/run.sh wgpu` runs the wgpu benchmark instead (needs wgpu-triad: prepare with
# ROKKOS_GPU_WGPU=1): three interleaved rounds of the CUDA reference, the raw wgpu reference and
# rokkos BabelStream on wgpu (and on cuda, for the dot), then the wgpu tests on the NVIDIA Vulkan
# driver, with the ratios and the step table; WGPU_BUDGET (570 s) bounds it.
# `bash .gpu/run.sh speed [PARTS]` measures issue 16's CUDA table: ROUNDS (3) interleaved rounds
# of each rokkos program and its reference, then the TOAST benchmark once; the table
# (scripts/speed_table.py) is printed last and kept in $OUT/speed_table.txt. PARTS (default all:
# "stream launch yax cg toast") picks a subset, e.g. `run.sh speed "yax cg"`. SPEED_BUDGET (560 s)
# bounds the whole run: a step that would start later is skipped, one that would end later gets
# the time left, so that the table always comes back within the device's 10-minute limit.
#   stream: stream.cu's own main (f64 and f32 at 2^25, f64 at 2^28, launch figures), f32 at 2^28
#           and the host-timed kernels (scripts/stream_n.cu includes stream.cu), against
#           babelstream --backend cuda at 2^25 and 2^28, f64 and f32;
#   launch: backend-cuda's launch_cost example (empty kernel async and with a fence, a one-element
#           parallel_reduce, raw cudarc beside each), twice per round with one fresh kernel cache
#           folder: the first process's first launch compiles, the second's reads the disk cache;
#   yax:    examples/yax.rs (TeamPolicy) against scripts/yax.cu, 2^14 x 2^14 f64;
#   cg:     examples/cg.rs against scripts/cg.cu, n = 2048, to convergence;
#   toast:  rokkos-toast --backend cuda in the benchmark configuration, every kernel checked
#           against the serial reference, with the kernel timer (ROKKOS_PROFILE=timer).
# `bash .gpu/run.sh host` runs scripts/bench_host.sh on the GPU machine's CPU (issue 12) with the
# rokkos host programs prepare_gpu.sh built for x86-64-v3 and the OpenMP references compiled
# there with gcc (when the machine has none, it says so and stops); THREADS defaults to 16.
set -u
OUT=${OUT:-/tmp/rokkos-gpu-out}
mkdir -p "$OUT"
for f in .gl/*.deb; do [ -e "$f" ] && dpkg -x "$f" /; done; ldconfig 2>/dev/null
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64
export PATH=$PATH:/usr/local/cuda/bin
cd .gpu || exit 1
[ -f bin.tar.xz ] && tar -xJf bin.tar.xz
nvidia-smi -L

ROWS=()
# step NAME SECONDS PATTERN CMD...: runs CMD with a time limit, its output in $OUT/NAME.log, and
# records a table row with the result and the last log line matching PATTERN.
# NAME may hold folders (created under $OUT). When DEADLINE (epoch seconds) is set, a step that
# would start after it is skipped and one that would end after it gets the time left.
step() {
    local name=$1 limit=$2 pat=$3
    shift 3
    local log=$OUT/$name.log t0
    t0=$(date +%s)
    mkdir -p "$(dirname "$log")"
    if [ -n "${DEADLINE:-}" ]; then
        local left=$((DEADLINE - t0))
        if [ "$left" -le 5 ]; then
            ROWS+=("$(printf '%-26s %-14s %5ss  %s' "$name" "SKIPPED" 0 "no time left (the mode's budget)")")
            echo "${ROWS[${#ROWS[@]}-1]}"
            return
        fi
        [ "$left" -lt "$limit" ] && limit=$left
    fi
    timeout "$limit" "$@" > "$log" 2>&1
    local rc=$?
    local res=ok
    [ $rc -ne 0 ] && res="FAIL($rc)"
    [ $rc -eq 124 ] && res="TIMEOUT(${limit}s)"
    local what
    what=$(grep -aE "$pat" "$log" | tail -1 | cut -c1-110)
    ROWS+=("$(printf '%-26s %-14s %5ss  %s' "$name" "$res" "$(( $(date +%s) - t0 ))" "$what")")
    echo "${ROWS[${#ROWS[@]}-1]}"
}
table() {
    echo
    echo "== summary (logs in \$OUT)"
    printf '%-26s %-14s %6s  %s\n' step result time detail
    for r in "${ROWS[@]}"; do echo "$r"; done
}

MODE=${1:-check}
if [ "$MODE" = speed ]; then
    START=$(date +%s)
    DEADLINE=$((START + ${SPEED_BUDGET:-560}))
    PARTS=${2:-stream launch yax cg toast}
    ROUNDS=${ROUNDS:-3}
    has() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
    export ROKKOS_REQUIRE_NVRTC=1 ROKKOS_PTXAS=/usr/local/cuda/bin/ptxas
    export ROKKOS_CUDA_CACHE_DIR=/tmp/rokkos-speed-cache
    S=speed
    NVCC=(nvcc -O3 -arch=sm_90)
    has stream && step $S/nvcc_stream_n 120 'error' "${NVCC[@]}" -I. stream_n.cu -o stream_n
    has yax && step $S/nvcc_yax 120 'error' "${NVCC[@]}" yax.cu -o yax_ref
    has cg && step $S/nvcc_cg 120 'error' "${NVCC[@]}" cg.cu -o cg_ref
    J='^\{|rror|panicked'
    for r in $(seq "$ROUNDS"); do
        R=$S/r$r
        if has stream; then
            step "$R/stream" 60 'round trip' ./stream_n
            step "$R/stream_f32_28" 60 'triad' ./stream_n f32 268435456
            step "$R/stream_host" 90 'triad' ./stream_n host f64 33554432 f32 33554432 f64 268435456 f32 268435456
            for n in 25 28; do
                for t in f64 f32; do
                    step "$R/bs_${t}_$n" 90 "$J" ./babelstream --backend cuda --dtype $t --n $((1 << n)) --reps 100 --json
                done
            done
        fi
        if has launch; then
            # A fresh cache folder per round: the first process compiles, the second reads it.
            rm -rf "/tmp/rokkos-first-$r"
            step "$R/launch" 60 "$J" env ROKKOS_CUDA_CACHE_DIR="/tmp/rokkos-first-$r" ./launch_cost --json
            step "$R/launch_warm" 30 "$J" env ROKKOS_CUDA_CACHE_DIR="/tmp/rokkos-first-$r" ./launch_cost --rounds 1 --batch 100 --reps 100 --json
        fi
        if has yax; then
            step "$R/yax" 60 "$J" ./yax --backend cuda --json
            step "$R/yax_ref" 60 "$J" ./yax_ref
        fi
        if has cg; then
            step "$R/cg" 90 "$J" ./cg --backend cuda --n 2048 --iters 40000 --json
            step "$R/cg_ref" 90 "$J" ./cg_ref 2048 40000
        fi
    done
    if has toast; then
        # The kernel timer fences after each launch (ms-long kernels: a few us each) and prints
        # its table at exit; its JSON lines go into the archive.
        step $S/toast 400 "$J" env ROKKOS_PROFILE=timer ROKKOS_PROFILE_JSON="$OUT/$S/toast_timer.jsonl" \
            ./rokkos-toast --backend cuda --json
        grep -avE '^\{' "$OUT/$S/toast.log" | tail -40
    fi
    echo
    echo "== steps: ${#ROWS[@]}, not ok:"
    for r in "${ROWS[@]}"; do case "$r" in *" ok "*) ;; *) echo "$r" ;; esac; done
    python3 speed_table.py "$OUT/$S" | tee "$OUT/speed_table.txt"
    echo "speed run: $(( $(date +%s) - START )) s"
    cd "$OUT" && tar czf speed_logs.tgz $S && rm -rf $S
    exit 0
fi

if [ "$MODE" = host ]; then
    export THREADS=${THREADS:-16}
    lscpu | grep -E 'Model name|^CPU\(s\)|Thread|NUMA node\(s\)|L3' || true
    if ! command -v gcc > /dev/null; then
        echo "host: gcc is not installed on this machine, so the OpenMP references cannot be built here: no host comparison"
        exit 1
    fi
    shift
    # bench_host.sh's arguments ([n] [reps] [rounds]) follow `host`.
    ROKKOS_HOST_BIN=$PWD/host ROKKOS_REFERENCE=$PWD/reference bash ./bench_host.sh "$@" 2>&1 | tee "$OUT/host.txt"
    exit "${PIPESTATUS[0]}"
fi

if [ "$MODE" != wgpu ]; then
    DEADLINE=$(($(date +%s) + ${CHECK_BUDGET:-570}))
    export ROKKOS_REQUIRE_CUDA=1 ROKKOS_REQUIRE_NVRTC=1 ROKKOS_PTXAS=/usr/local/cuda/bin/ptxas
    export ROKKOS_CUDA_CACHE_DIR=/tmp/rokkos-cuda-cache
    T='test result|panicked'
    step equivalence_cuda 330 "$T" ./equivalence cuda --skip cuda_check
    grep -aE "^---- |skipped on cuda" "$OUT/equivalence_cuda.log" | sort | uniq -c | sort -rn | head -15
    step run_on_all 60 "$T" ./equivalence run_on_every_available_backend
    step cuda_unit 120 "$T" ./cuda_unit --test-threads=1
    step cuda_views 60 "$T" ./cuda_views --test-threads=1
    step cuda_nvrtc 120 "$T" ./cuda_nvrtc
    step device_tests 60 "$T" ./device
    step toast_cuda 120 "$T" ./toast_backends cuda --skip cuda_check
    step nvcc_stream 120 'error|warning' nvcc -O3 -arch=sm_90 stream.cu -o stream
    step stream_ref 60 'triad' ./stream
    N=33554432
    for t in f32 f64; do
        step "babelstream_cuda_$t" 120 '"triad"' ./babelstream --backend cuda --dtype $t --n $N --reps 50 --json
    done
    step cg_cuda 120 'cg on|cg:' ./cg --backend cuda --n 256 --iters 400
    SAN=(compute-sanitizer --error-exitcode 9)
    for tool in memcheck racecheck; do
        S='ERROR SUMMARY|RACECHECK SUMMARY|HAZARD|test result'
        step "san_${tool}_babelstream" 180 "$S" "${SAN[@]}" --tool $tool ./babelstream --backend cuda --n 1048576 --reps 2
        step "san_${tool}_reduce" 180 "$S" "${SAN[@]}" --tool $tool ./equivalence --exact reduce::float_dot::cuda reduce::reduce_into_rank0::cuda --test-threads=1
        step "san_${tool}_scan" 180 "$S" "${SAN[@]}" --tool $tool ./equivalence --exact scan::prefix_sum_of_data::cuda --test-threads=1
        step "san_${tool}_team" 180 "$S" "${SAN[@]}" --tool $tool ./equivalence --exact \
            team_scratch::scratch_round_trip::cuda team_scratch::thread_private_scratch::cuda \
            team_basic::team_reduce::cuda team_basic::team_thread_scan::cuda \
            team_vector::nested_vector_scan::cuda team_vector::team_vector_minloc::cuda --test-threads=1
    done
    echo
    echo "== BabelStream on cuda vs the CUDA C reference (GB/s)"
    python3 - "$OUT" <<'PY'
import json, re, sys
out = sys.argv[1]
try:
    cu = open(out + "/stream_ref.log").read()
except OSError:
    cu = ""
for t in ("f32", "f64"):
    d = {}
    try:
        for l in open("%s/babelstream_cuda_%s.log" % (out, t)):
            if l.startswith("{"):
                j = json.loads(l)
                d[j["kernel"]] = j["value"]
    except (OSError, ValueError):
        pass
    m = re.search(r"%s triad\s+n=33554432\s+best ([\d.]+)" % t, cu)
    ref = float(m.group(1)) if m else float("nan")
    m = re.search(r"%s dot\s+n=33554432\s+best ([\d.]+)" % t, cu)
    rdot = float(m.group(1)) if m else float("nan")
    tri, trb, dot = (d.get(k, float("nan")) for k in ("triad", "triad_batched", "dot"))
    print("%s triad fenced %.0f, batched %.0f / stream.cu %.0f = %.3f | dot %.0f / %.0f = %.3f"
          % (t, tri, trb, ref, trb / ref if ref == ref and ref else float("nan"),
             dot, rdot, dot / rdot if rdot == rdot and rdot else float("nan")))
PY
    table
    cd "$OUT" && tar czf logs.tgz ./*.log && rm -f ./*.log
    exit 0
fi

[ -x wgpu-triad ] || { echo "wgpu-triad is missing: prepare with ROKKOS_GPU_WGPU=1"; exit 1; }
DEADLINE=$(($(date +%s) + ${WGPU_BUDGET:-570}))
export ROKKOS_REQUIRE_WGPU=1
T='test result|panicked'
J='^\{|rror|panicked'
N=33554432
step wgpu/nvcc_stream 120 'error|warning' nvcc -O3 -arch=sm_90 stream.cu -o stream
step wgpu/e2e 90 "$T" ./e2e --test-threads=1
# The benchmark rounds first: they are what this mode is for, and the budget may not reach the
# longer test steps after them.
for round in 1 2 3; do
    R=wgpu/r$round
    step $R/stream 60 'triad' ./stream
    step $R/wgpu_triad 60 'triad' ./wgpu-triad $N
    for t in f32 f64; do
        step $R/bs_$t 90 "$J" ./babelstream --backend wgpu --dtype $t --n $N --reps 100 --json
        # The same with waits that block at once (no polling): what ROKKOS_WGPU_SPIN_US buys.
        step $R/bs_${t}_block 90 "$J" env ROKKOS_WGPU_SPIN_US=0 ./babelstream --backend wgpu --dtype $t --n $N --reps 100 --json
        # rokkos' own dot on cuda, for "dot next to CUDA's" (and stream.cu's, below).
        step $R/bs_${t}_cuda 90 "$J" ./babelstream --backend cuda --dtype $t --n $N --reps 100 --json
    done
done
step wgpu/team 90 "$T" ./team --test-threads=1
step wgpu/equivalence 240 "$T" ./equivalence wgpu
grep -aE "^---- |skipped" "$OUT/wgpu/equivalence.log" | sort | uniq -c | sort -rn | head -15
step wgpu/unit 60 "$T" ./wgpu_unit
[ -x math_f64 ] && step wgpu/math_f64 60 "$T" ./math_f64 --nocapture
[ -x wgpu_f32_math ] && step wgpu/f32_math 60 "$T" ./wgpu_f32_math --nocapture
[ -x cg ] && step wgpu/cg 90 'cg on|cg:' ./cg --backend wgpu --n 1024 --iters 2000
echo "== f32 and f64 math accuracy on the NVIDIA Vulkan driver"
cat "$OUT/wgpu/math_f64.log" "$OUT/wgpu/f32_math.log" 2>/dev/null | grep -aEi "ulp|^f32 " | head -40
echo "== stream.cu"; grep -ahE 'triad|dot|launch' "$OUT"/wgpu/r2/stream.log
echo "== wgpu_triad"; cat "$OUT"/wgpu/r*/wgpu_triad.log | grep -av verify
echo "== rokkos wgpu vs references (per round)"; python3 - "$OUT/wgpu" <<'PY'
import json,sys,re,glob,os,statistics
out=sys.argv[1]
nan=float('nan')
def text(path):
    try:
        return open(path, errors='replace').read()
    except OSError:
        return ''
def num(pat, s):
    m=re.search(pat, s)
    return float(m.group(1)) if m else nan
def kernels(path):
    d={}
    for l in text(path).splitlines():
        if l.startswith('{'):
            try:
                j=json.loads(l); d[j['kernel']]=j['value']
            except (ValueError, KeyError):
                pass
    return d
def div(a, b):
    return a/b if b == b and b else nan
# Ratio name -> one value per round, summarised (best and median) at the end.
ratios={}
def keep(name, v):
    if v == v: ratios.setdefault(name, []).append(v)
for r in sorted(glob.glob(out+'/r*')):
    ref=text(r+'/wgpu_triad.log'); cu=text(r+'/stream.log')
    m=re.search(r'round trip ([\d.]+) us', ref); rt=m.group(1) if m else '?'
    m=re.search(r'throughput ([\d.]+) us', ref); tp=m.group(1) if m else '?'
    for t in ('f32','f64'):
        w=num(r'wgpu %s triad n=\d+ best ([\d.]+)'%t, ref)
        wb=num(r'wgpu %s triad batched 20/submit ([\d.]+)'%t, ref)
        wcu=num(r'%s triad\s+n=33554432\s+best ([\d.]+)'%t, cu)
        wcudot=num(r'%s dot\s+n=33554432\s+best ([\d.]+)'%t, cu)
        d=kernels(r+'/bs_%s.log'%t)
        g=lambda k: d.get(k, nan)
        print('%s %s triad fenced %.0f / ref %.0f = %.3f | batched %.0f / cuda %.0f = %.3f (ref wgpu batched %.0f) | dot %.0f, into a View x20 %.0f (cuda %.0f) | empty sync %.1f us (ref %s) async %.1f us (ref %s)' % (os.path.basename(r), t, g('triad'), w, div(g('triad'), w), g('triad_batched'), wcu, div(g('triad_batched'), wcu), wb, g('dot'), g('dot_batched'), wcudot, g('empty_sync'), rt, g('empty_async'), tp))
        keep('%s triad fenced / wgpu_triad (bar 0.95)'%t, div(g('triad'), w))
        keep('%s 20 triads / stream.cu triad (bar 0.85)'%t, div(g('triad_batched'), wcu))
        b=kernels(r+'/bs_%s_block.log'%t)
        if b:
            print('   blocking waits (ROKKOS_WGPU_SPIN_US=0): triad fenced %.0f = %.3f of ref | dot %.0f | empty sync %.1f us' % (b.get('triad', nan), div(b.get('triad', nan), w), b.get('dot', nan), b.get('empty_sync', nan)))
        c=kernels(r+'/bs_%s_cuda.log'%t)
        if c:
            print('   dot: wgpu %.0f / rokkos cuda %.0f = %.3f | into a View x20: wgpu %.0f / cuda %.0f = %.3f | stream.cu %.0f' % (g('dot'), c.get('dot', nan), div(g('dot'), c.get('dot', nan)), g('dot_batched'), c.get('dot_batched', nan), div(g('dot_batched'), c.get('dot_batched', nan)), wcudot))
            keep('%s dot wgpu / rokkos cuda'%t, div(g('dot'), c.get('dot', nan)))
print('== ratios over the rounds: best, median (rounds)')
for name, vs in ratios.items():
    print('  %-44s %.3f  %.3f  (%d)' % (name, max(vs), statistics.median(vs), len(vs)))
PY
table
cd "$OUT" && tar czf logs.tgz wgpu && rm -rf wgpu
