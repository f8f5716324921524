#!/bin/bash
# Runs `run.sh speed`'s table code (scripts/speed_table.py) on fake logs, so that a format slip
# is found here and not in a GPU session. The logs are made the way the GPU run makes them:
#   - the CUDA C programs' lines from their own printf formats, read out of stream.cu (the
#     reference), scripts/stream_n.cu, yax.cu and cg.cu and filled in with chosen figures;
#   - the rokkos programs' JSON from running them here (babelstream, yax, cg, rokkos-toast on
#     --backend BACKEND, default rayon, at small sizes; each must pass its own result check),
#     with the size fields and figures then set to chosen ones;
#   - launch_cost's JSON (it needs a GPU) written with the keys its source prints.
# Then it checks that every bar has data and that chosen ratios come out as computed by hand.
# usage: scripts/test_speed_table.sh   (BIN: folder of the examples, default target/release/examples;
#        TOAST: the rokkos-toast binary, default target/release/rokkos-toast)
set -euo pipefail
cd "$(dirname "$0")/.."
REF=${ROKKOS_REFERENCE:-../shared/reference}
BIN=${BIN:-target/release/examples}
TOAST=${TOAST:-target/release/rokkos-toast}
BACKEND=${BACKEND:-rayon}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

# The rokkos programs, small, on a host backend (their own checks must pass).
"$BIN/babelstream" --backend "$BACKEND" --n 4096 --reps 5 --json > "$d/bs.json"
"$BIN/babelstream" --backend "$BACKEND" --dtype f32 --n 4096 --reps 5 --json > "$d/bs32.json"
"$BIN/yax" --backend "$BACKEND" --rows 96 --cols 200 --reps 3 --json > "$d/yax.json"
"$BIN/cg" --backend "$BACKEND" --n 24 --iters 400 --json > "$d/cg.json"
"$TOAST" --backend "$BACKEND" --n-det 2 --n-samp 3000 --n-view 5 --nside 64 --reps 2 --json > "$d/toast.json"

python3 - "$d" "$REF/stream.cu" scripts/stream_n.cu scripts/yax.cu scripts/cg.cu <<'PY'
import json, os, re, sys
d, stream_cu, stream_n, yax_cu, cg_cu = sys.argv[1:]

def formats(path):
    """The printf format strings of a C file, C escapes resolved, %zu/%llu as Python's %d."""
    src = open(path).read()
    out = []
    for m in re.finditer(r'printf\s*\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)', src):
        s = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))
        s = s.encode().decode("unicode_escape")
        out.append(re.sub(r"%(-?\d*)(?:zu|llu|lu)", r"%\1d", s))
    return out

def one(fmts, needle):
    hits = [f for f in fmts if needle in f]
    assert len(hits) == 1, (needle, hits)
    return hits[0]

ref = formats(stream_cu)
bw, thr, rt = one(ref, "best %.1f GB/s"), one(ref, "launch throughput"), one(ref, "round trip")
dev = one(ref, "device %s")
host = one(formats(stream_n), "host-timed %s %-6s")
yax_fmt, cg_fmt = one(formats(yax_cu), '"bench":"yax"'), one(formats(cg_cu), '"bench":"cg"')

N25, N28 = 1 << 25, 1 << 28
KERNELS = ("copy", "mul", "add", "triad", "dot")
# Chosen figures: the reference's best GB/s = 1000 + 10 * kernel index (+1 per round), median
# 0.9 of it; host-timed 0.95 of it; rokkos 0.98 of the reference's best in the best round.
def ref_best(t, k, n, r):
    return 1000.0 + 10 * KERNELS.index(k) + (n == N28) * 100 + (t == "f32") * 50 + r

def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)

bs = [json.loads(l) for l in open(os.path.join(d, "bs.json")) if l.startswith("{")]
bs32 = [json.loads(l) for l in open(os.path.join(d, "bs32.json")) if l.startswith("{")]
yax = json.loads(open(os.path.join(d, "yax.json")).read().strip().splitlines()[-1])
cg = json.loads(open(os.path.join(d, "cg.json")).read().strip().splitlines()[-1])
assert yax["correct"] and cg["error"] < 1e-6, (yax, cg)
for r in (1, 2, 3):
    rd = os.path.join(d, "speed", "r%d" % r)
    lines = [dev % ("NVIDIA H100 80GB HBM3", 132)]
    for t, n in (("f64", N25), ("f32", N25), ("f64", N28)):
        for k in KERNELS:
            b = ref_best(t, k, n, r)
            lines.append(bw % (t, k, n, b, 0.9 * b))
    lines.append(thr % 3.0)
    lines.append(rt % (8.8 + r))
    write(os.path.join(rd, "stream.log"), "".join(lines))
    write(os.path.join(rd, "stream_f32_28.log"),
          "".join(bw % ("f32", k, N28, ref_best("f32", k, N28, r), 0.9 * ref_best("f32", k, N28, r)) for k in KERNELS))
    write(os.path.join(rd, "stream_host.log"),
          "".join(host % (t, k, n, 0.95 * ref_best(t, k, n, r), 0.9 * ref_best(t, k, n, r))
                  for t, n in (("f64", N25), ("f32", N25), ("f64", N28), ("f32", N28)) for k in KERNELS))
    for t, src in (("f64", bs), ("f32", bs32)):
        for n in (N25, N28):
            out = []
            for j in src:
                j = dict(j, n=n)
                base = j["kernel"].split("_")[0]
                if j["metric"] == "GB/s" and base in KERNELS:
                    j["value"] = 0.98 * ref_best(t, base, n, 3)
                    j["best_s"], j["median_s"] = 1.0, 1.0 / 0.9
                out.append(json.dumps(j))
            write(os.path.join(rd, "bs_%s_%d.log" % (t, n.bit_length() - 1)), "\n".join(out) + "\n")
    launch = [
        {"bench": "launch_cost", "kernel": "first_launch", "side": "rokkos", "device": "x", "ms": 300.0 + r, "nvrtc_compiles": 1},
        {"bench": "launch_cost", "kernel": "first_launch", "side": "cudarc", "device": "x", "ms": 250.0, "nvrtc_compiles": None},
        {"bench": "launch_cost", "kernel": "empty_async", "side": "rokkos", "device": "x", "best_us": 4.0, "median_us": 4.4, "samples": 5},
        {"bench": "launch_cost", "kernel": "empty_async", "side": "cudarc", "device": "x", "best_us": 3.2, "median_us": 3.3, "samples": 5},
        {"bench": "launch_cost", "kernel": "empty_sync", "side": "rokkos", "device": "x", "best_us": 9.0, "median_us": 9.5, "samples": 10000},
        {"bench": "launch_cost", "kernel": "empty_sync", "side": "cudarc", "device": "x", "best_us": 8.0, "median_us": 8.5, "samples": 10000},
        {"bench": "launch_cost", "kernel": "reduce_one", "side": "rokkos", "device": "x", "best_us": 12.0, "median_us": 14.0, "samples": 10000},
        {"bench": "launch_cost", "kernel": "reduce_one", "side": "cudarc", "device": "x", "best_us": 10.0, "median_us": 11.0, "samples": 10000},
    ]
    write(os.path.join(rd, "launch.log"), "".join(json.dumps(j) + "\n" for j in launch))
    warm = [dict(launch[0], ms=2.0 + r, nvrtc_compiles=0)] + launch[1:]
    write(os.path.join(rd, "launch_warm.log"), "".join(json.dumps(j) + "\n" for j in warm))
    # yAx: rokkos 0.92 of the reference's bandwidth; CG: the reference 0.9 of rokkos' time.
    write(os.path.join(rd, "yax_ref.log"),
          yax_fmt % (16384, 16384, 20, 1e-3, 1.1e-3, 2000.0 + r, 1.0, 1.0, "true"))
    write(os.path.join(rd, "yax.log"), "some stderr line\n" + json.dumps(
        dict(yax, rows=16384, cols=16384, best_s=1e-3, median_s=1.1e-3, value=0.92 * (2000.0 + 3))) + "\n")
    write(os.path.join(rd, "cg_ref.log"), cg_fmt % (2048, 5000, 9e-11, 1e-8, 90e-6))
    write(os.path.join(rd, "cg.log"), json.dumps(dict(cg, n=2048, steps=5000, value=100e-6)) + "\n")
toast = []
for l in open(os.path.join(d, "toast.json")):
    if l.startswith("{"):
        j = json.loads(l)
        if j.get("kernel") == "pixels_healpix":
            j["best_s"], j["median_s"] = (0.010, 0.011) if j["design"] == "flat" else (0.02, 0.021)
        toast.append(json.dumps(j))
write(os.path.join(d, "speed", "toast.log"), "kernel timer table...\n" + "\n".join(toast) + "\n")
PY

python3 scripts/speed_table.py "$d/speed" > "$d/table.txt"
cat "$d/table.txt"
fail=0
expect() {
    grep -qF -- "$2" "$d/table.txt" || { echo "test_speed_table: missing [$2] ($1)"; fail=1; }
}
# Best over rounds (round 3) 0.98 of the reference; median: 0.98 * best3 / 0.9 over 0.9 * best2.
expect "babelstream ratio" "f64 triad n=2^25"
expect "babelstream best ratio" "0.980 /"
expect "launch async ratio 4.0/3.2" "1.250 / 1.333"
expect "first launch, 2nd process median" "3.0 / 4.0 ms"
expect "yAx ratio 0.92" "0.920 /"
expect "CG ratio 90/100" "0.900 / 0.900"
expect "toast pixels_healpix flat 10 ms vs 46.1" "4.610 /"
if grep -q "no data" "$d/table.txt"; then echo "test_speed_table: a bar has no data"; fail=1; fi
grep -q "every TOAST result matched the serial reference: True" "$d/table.txt" || { echo "test_speed_table: toast's result line"; fail=1; }
[ $fail = 0 ] && echo "test_speed_table: ok"
exit $fail
