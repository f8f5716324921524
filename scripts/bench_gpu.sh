#!/bin/bash
# GPU-machine benchmark and check, run there from the repository root by the device tool with
# `.gpu` and `.gl` carried (the machine has no Rust toolchain: everything is built here first):
#   .gpu/, .gl/: made by scripts/prepare_gpu.sh (release examples babelstream and cg, the test
#          executables, the raw wgpu reference wgpu-triad, stream.cu; the Vulkan loader packages
#          named in the device README).
# It runs the wgpu tests on the NVIDIA Vulkan driver, then three interleaved rounds of the CUDA
# reference, the raw wgpu reference and rokkos BabelStream on wgpu (f32, f64, n = 2^25), and prints
# the ratios per round. Logs go to $OUT/logs.tgz.
# `bash .gpu/run.sh cuda` runs only the CUDA part: rokkos-cuda's tests with ROKKOS_REQUIRE_CUDA=1
# (runtime smoke test: allocate, copy, compile, launch, read back, two streams; the View API on
# device memory; NVRTC + ptxas of the representative kernels), then the smoke test under
# compute-sanitizer memcheck and racecheck. The full run does it first, too.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
cd .gpu || exit 1
[ -f bin.tar.xz ] && tar -xJf bin.tar.xz
nvidia-smi -L
cuda_tests() {
  export ROKKOS_REQUIRE_CUDA=1 ROKKOS_REQUIRE_NVRTC=1 ROKKOS_PTXAS=/usr/local/cuda/bin/ptxas
  export ROKKOS_CUDA_CACHE_DIR=$OUT/cuda-cache
  for t in cuda_unit cuda_views cuda_nvrtc; do
    echo "== $t"; ./$t --test-threads=1 --nocapture > $OUT/$t.log 2>&1; grep -E "^test |panicked|test result|registers|device:" $OUT/$t.log | head -30
  done
  # A second process finds every kernel in the disk cache.
  ./cuda_unit runtime_smoke > $OUT/cuda_unit2.log 2>&1; grep "test result" $OUT/cuda_unit2.log
  SAN=/usr/local/cuda/bin/compute-sanitizer
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer $tool (runtime smoke)"
    $SAN --tool $tool --error-exitcode 9 ./cuda_unit runtime_smoke --test-threads=1 > $OUT/san_$tool.log 2>&1
    echo "exit $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result" $OUT/san_$tool.log | head -5
  done
  unset ROKKOS_REQUIRE_CUDA
}
if [ "${1:-}" = cuda ]; then
  cuda_tests
  cd $OUT && tar czf logs.tgz *.log && rm -f *.log
  exit 0
fi
cuda_tests
nvcc -O3 -arch=sm_90 stream.cu -o stream > $OUT/nvcc.log 2>&1 || echo "nvcc failed"
echo "== e2e"; ROKKOS_REQUIRE_WGPU=1 ./e2e --test-threads=1 > $OUT/e2e.log 2>&1; grep -E "^test |panicked|test result" $OUT/e2e.log | head -20
echo "== team"; ROKKOS_REQUIRE_WGPU=1 ./team --test-threads=1 > $OUT/team.log 2>&1; grep -E "^test |panicked|test result" $OUT/team.log | head -20
echo "== equivalence on wgpu (twice)"; for k in 1 2; do ROKKOS_REQUIRE_WGPU=1 ./equivalence wgpu > $OUT/equivalence$k.log 2>&1; grep -E "test result|^---- |skipped" $OUT/equivalence$k.log | head -20; done
echo "== unit"; ./wgpu_unit > $OUT/unit.log 2>&1; tail -2 $OUT/unit.log
echo "== math_f64"; [ -x math_f64 ] && ROKKOS_REQUIRE_WGPU=1 ./math_f64 --nocapture > $OUT/math_f64.log 2>&1; grep -Ei "ulp|test result|panicked" $OUT/math_f64.log | head -30
echo "== f32 math (WGSL built-ins)"; [ -x wgpu_f32_math ] && ROKKOS_REQUIRE_WGPU=1 ./wgpu_f32_math --nocapture 2>&1 | grep -E "f32 |test result|panicked"
echo "== cg"; [ -x cg ] && for b in wgpu; do ./cg --backend $b --n 1024 --iters 2000 2>&1; done
N=33554432
for round in 1 2 3; do
  mkdir -p $OUT/r$round
  ./stream > $OUT/r$round/stream.txt 2>&1
  ./wgpu-triad $N > $OUT/r$round/wgpu_triad.txt 2>&1
  for t in f32 f64; do
    ./babelstream --backend wgpu --dtype $t --n $N --reps 100 --json > $OUT/r$round/bs_${t}.json 2> $OUT/r$round/bs_${t}.err
    # The same with waits that block at once (no polling): what ROKKOS_WGPU_SPIN_US buys.
    ROKKOS_WGPU_SPIN_US=0 ./babelstream --backend wgpu --dtype $t --n $N --reps 100 --json > $OUT/r$round/bs_${t}_block.json 2>> $OUT/r$round/bs_${t}.err
  done
done
echo "== stream.cu"; grep -E 'triad|dot|launch' $OUT/r2/stream.txt
echo "== wgpu_triad"; cat $OUT/r*/wgpu_triad.txt | grep -v verify
echo "== rokkos wgpu vs references (per round)"; python3 - $OUT <<'PY'
import json,sys,re,glob,os
out=sys.argv[1]
for r in sorted(glob.glob(out+'/r*')):
    ref=open(r+'/wgpu_triad.txt').read(); cu=open(r+'/stream.txt').read()
    w={}
    for t in ('f32','f64'):
        m=re.search(r'wgpu %s triad n=\d+ best ([\d.]+)'%t, ref); w[t]=float(m.group(1)) if m else float('nan')
        m=re.search(r'wgpu %s triad batched 20/submit ([\d.]+)'%t, ref); w[t+'b']=float(m.group(1)) if m else float('nan')
        m=re.search(r'%s triad\s+n=33554432\s+best ([\d.]+)'%t, cu); w[t+'cu']=float(m.group(1)) if m else float('nan')
        m=re.search(r'%s dot\s+n=33554432\s+best ([\d.]+)'%t, cu); w[t+'cudot']=float(m.group(1)) if m else float('nan')
    m=re.search(r'round trip ([\d.]+) us', ref); rt=m.group(1) if m else '?'
    m=re.search(r'throughput ([\d.]+) us', ref); tp=m.group(1) if m else '?'
    for t in ('f32','f64'):
        d={}
        for l in open(r+'/bs_%s.json'%t):
            j=json.loads(l); d[j['kernel']]=j['value']
        print('%s %s triad fenced %.0f / ref %.0f = %.3f | batched %.0f / cuda %.0f = %.3f (ref wgpu batched %.0f) | dot %.0f, into a View x20 %.0f (cuda %.0f) | empty sync %.1f us (ref %s) async %.1f us (ref %s)' % (os.path.basename(r), t, d['triad'], w[t], d['triad']/w[t], d['triad_batched'], w[t+'cu'], d['triad_batched']/w[t+'cu'], w[t+'b'], d['dot'], d.get('dot_batched', float('nan')), w[t+'cudot'], d['empty_sync'], rt, d['empty_async'], tp))
        b={}
        if os.path.exists(r+'/bs_%s_block.json'%t):
            for l in open(r+'/bs_%s_block.json'%t):
                j=json.loads(l); b[j['kernel']]=j['value']
        if b:
            print('   blocking waits (ROKKOS_WGPU_SPIN_US=0): triad fenced %.0f = %.3f of ref | dot %.0f | empty sync %.1f us' % (b['triad'], b['triad']/w[t], b['dot'], b['empty_sync']))
PY
cat $OUT/r*/bs_*.err | grep -v XDG | head -5
cd $OUT && tar czf logs.tgz r* *.log && rm -rf r1 r2 r3 *.log
