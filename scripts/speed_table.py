#!/usr/bin/env python3
"""Issue 16's CUDA table from the logs of `run.sh speed` (scripts/bench_gpu.sh).

usage: speed_table.py DIR

DIR holds one folder per interleaved round (r1, r2, ...) with the logs of the references and
the rokkos programs (stream.log, stream_f32_28.log, stream_host.log, bs_<dtype>_<log2 n>.log,
launch.log, launch_warm.log, yax.log, yax_ref.log, cg.log, cg_ref.log: each its program's own
output, stdout and stderr together), and toast.log. Each side's
figure per round is its own best (and median) over that round's repetitions; over the rounds
the table gives the best of the bests and the median of the medians. A ratio is rokkos over the
reference as "fraction of the reference's speed" (above 1: rokkos faster), except for launch
costs, where it is rokkos' time over the reference's (below 1: rokkos faster), as the issue's
bars read. Missing or unreadable logs give "n/a" and the bar "no data"; nothing is made up.
"""
import glob
import json
import os
import re
import statistics
import sys

NAN = float("nan")
JAX_MS = {  # issue 16: TOAST's JAX kernels on this H100 model
    "pixels_healpix": 46.1,
    "stokes_weights_IQU": 16.4,
    "build_noise_weighted": 33.5,
    "offset_project_signal": 43.1,
}
WORDS = {"copy": 2, "mul": 2, "add": 3, "triad": 3, "dot": 2}


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def jsonl(path):
    out = []
    for line in read(path).splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def stream_figures(text, prefix=""):
    """{(dtype, kernel, n): (best GB/s, median GB/s)} from stream.cu's lines."""
    pat = prefix + r"(f32|f64) (\w+)\s+n=(\d+)\s+best ([\d.]+) GB/s\s+median ([\d.]+) GB/s"
    return {
        (m.group(1), m.group(2), int(m.group(3))): (float(m.group(4)), float(m.group(5)))
        for m in re.finditer(r"(?m)^" + pat, text)
    }


def agg(pairs, higher=True):
    """Best of the per-round bests and median of the per-round medians."""
    pairs = [p for p in pairs if p is not None]
    if not pairs:
        return (NAN, NAN)
    best = max(p[0] for p in pairs) if higher else min(p[0] for p in pairs)
    return (best, statistics.median(p[1] for p in pairs))


def rounds(d):
    return sorted(glob.glob(os.path.join(d, "r[0-9]*")), key=lambda p: int(p.rsplit("r", 1)[1]))


def fmt(v, spec=".1f"):
    return "n/a" if v != v else format(v, spec)


def verdict(value, bar, higher):
    if value != value:
        return "no data"
    return "met" if (value >= bar if higher else value <= bar) else "MISSED"


ROWS = []


def row(what, ref, ours, ratio, bar, unit=""):
    """ref, ours: (best, median); ratio: (best, median); bar: (text, verdict)."""
    ROWS.append(
        (
            what,
            "%s / %s%s" % (fmt(ref[0]), fmt(ref[1]), unit) if ref else "-",
            "%s / %s%s" % (fmt(ours[0]), fmt(ours[1]), unit),
            "%s / %s" % (fmt(ratio[0], ".3f"), fmt(ratio[1], ".3f")) if ratio else "-",
            bar[0],
            bar[1],
        )
    )


def div(a, b):
    return a / b if a == a and b == b and b else NAN


def babelstream(d):
    rs = rounds(d)
    ref, host, ours, batched = {}, {}, {}, {}
    for r in rs:
        figs = stream_figures(read(os.path.join(r, "stream.log")))
        figs.update(stream_figures(read(os.path.join(r, "stream_f32_28.log"))))
        for k, v in figs.items():
            ref.setdefault(k, []).append(v)
        for k, v in stream_figures(read(os.path.join(r, "stream_host.log")), "host-timed ").items():
            host.setdefault(k, []).append(v)
        for f in glob.glob(os.path.join(r, "bs_*.log")):
            for j in jsonl(f):
                if j.get("bench") != "babelstream" or j.get("metric") != "GB/s":
                    continue
                med = j["value"] * j["best_s"] / j["median_s"] if j.get("median_s") else NAN
                key = (j["dtype"], j["kernel"], int(j["n"]))
                (batched if j["kernel"].endswith("_batched") else ours).setdefault(key, []).append(
                    (j["value"], med)
                )
    print("\n== BabelStream on cuda, GB/s (best / median over %d rounds)" % len(rs))
    print("ratio: rokkos / stream.cu (CUDA events, the bar) | rokkos / the same kernels timed on")
    print("the host with a synchronize after each, as rokkos' babelstream times them")
    for dtype in ("f64", "f32"):
        for n in (1 << 25, 1 << 28):
            for k in ("copy", "mul", "add", "triad", "dot"):
                key = (dtype, k, n)
                rf, hf, of = agg(ref.get(key, [])), agg(host.get(key, [])), agg(ours.get(key, []))
                bar = 0.95 if k == "dot" else 0.97
                ratio = (div(of[0], rf[0]), div(of[1], rf[1]))
                same = (div(of[0], hf[0]), div(of[1], hf[1]))
                row(
                    "%s %s n=2^%d" % (dtype, k, n.bit_length() - 1),
                    rf,
                    of,
                    ratio,
                    (
                        ">= %.2f (host-timed ref %s, ratio %s)"
                        % (bar, fmt(hf[0]), fmt(same[0], ".3f")),
                        verdict(ratio[0], bar, True),
                    ),
                )
            for k in ("triad_batched", "dot_batched"):
                base = k.split("_")[0]
                rf, of = agg(ref.get((dtype, base, n), [])), agg(batched.get((dtype, k, n), []))
                ratio = (div(of[0], rf[0]), div(of[1], rf[1]))
                row(
                    "%s %s (20 per fence) n=2^%d" % (dtype, base, n.bit_length() - 1),
                    rf,
                    of,
                    ratio,
                    (">= %.2f (info)" % (0.95 if base == "dot" else 0.97), verdict(ratio[0], 0.95 if base == "dot" else 0.97, True)),
                )


def launch_cost(d):
    rs = rounds(d)
    per = {}
    firsts = {"cold": [], "warm": [], "cudarc": []}
    compiles = {"cold": [], "warm": []}
    ref_async, ref_sync = [], []
    for r in rs:
        t = read(os.path.join(r, "stream.log"))
        m = re.search(r"launch throughput \(async, \d+ empty kernels\): ([\d.]+) us/launch", t)
        if m:
            ref_async.append((float(m.group(1)), float(m.group(1))))
        m = re.search(r"launch\+sync round trip: ([\d.]+) us", t)
        if m:
            ref_sync.append((float(m.group(1)), float(m.group(1))))
        for f, which in (("launch.log", "cold"), ("launch_warm.log", "warm")):
            for j in jsonl(os.path.join(r, f)):
                if j.get("kernel") == "first_launch":
                    if j["side"] == "rokkos":
                        firsts[which].append((j["ms"], j["ms"]))
                        compiles[which].append(j.get("nvrtc_compiles"))
                    elif which == "cold":
                        firsts["cudarc"].append((j["ms"], j["ms"]))
                elif which == "cold":
                    per.setdefault((j["kernel"], j["side"]), []).append((j["best_us"], j["median_us"]))
    print("\n== Launch costs, us (best / median over %d rounds; ratio: rokkos time / reference time)" % len(rs))
    ea_r, ea_c = agg(per.get(("empty_async", "rokkos"), []), False), agg(per.get(("empty_async", "cudarc"), []), False)
    ratio = (div(ea_r[0], ea_c[0]), div(ea_r[1], ea_c[1]))
    sa = agg(ref_async, False)
    row("empty kernel, async", ea_c, ea_r, ratio,
        ("<= 1.25x raw cudarc (stream.cu %s us)" % fmt(sa[0], ".2f"), verdict(ratio[1], 1.25, False)), " us")
    es_r, ss = agg(per.get(("empty_sync", "rokkos"), []), False), agg(ref_sync, False)
    es_c = agg(per.get(("empty_sync", "cudarc"), []), False)
    row("empty kernel + fence", ss, es_r, (div(es_r[0], ss[0]), div(es_r[1], ss[1])),
        ("<= 10 us (median; raw cudarc %s us)" % fmt(es_c[1], ".2f"), verdict(es_r[1], 10.0, False)), " us")
    rd_r, rd_c = agg(per.get(("reduce_one", "rokkos"), []), False), agg(per.get(("reduce_one", "cudarc"), []), False)
    row("parallel_reduce, 1 element", rd_c, rd_r, (div(rd_r[0], rd_c[0]), div(rd_r[1], rd_c[1])),
        ("<= 13 us (median; ref: raw kernel + copy)", verdict(rd_r[1], 13.0, False)), " us")
    cold, warm, raw = agg(firsts["cold"], False), agg(firsts["warm"], False), agg(firsts["cudarc"], False)
    row("first launch, new kernel", raw, cold, None,
        ("report (NVRTC compiles: %s; ref: raw NVRTC+load)" % compiles["cold"], "reported" if cold[0] == cold[0] else "no data"), " ms")
    row("first launch, 2nd process", None, warm, None,
        ("<= 5 ms (median; NVRTC compiles: %s)" % compiles["warm"], verdict(warm[1], 5.0, False)), " ms")


def yax_cg(d):
    rs = rounds(d)
    y, yr, c, cr = [], [], [], []
    ok = {"yax": [], "yax_ref": [], "cg": [], "cg_ref": []}
    for r in rs:
        for f, dst in (("yax.log", y), ("yax_ref.log", yr)):
            for j in jsonl(os.path.join(r, f)):
                if j.get("bench") == "yax":
                    dst.append((j["value"], j["value"] * j["best_s"] / j["median_s"]))
                    ok[f[:-4]].append(bool(j.get("correct")))
        for f, dst in (("cg.log", c), ("cg_ref.log", cr)):
            for j in jsonl(os.path.join(r, f)):
                if j.get("bench") == "cg":
                    # One figure per run: best and median over the rounds.
                    dst.append((j["value"] * 1e6, j["value"] * 1e6))
                    ok[f[:-4]].append("%d steps" % j["steps"])
    print("\n== yAx (GB/s) and CG (us per step), best / median over %d rounds" % len(rs))
    of, rf = agg(y), agg(yr)
    ratio = (div(of[0], rf[0]), div(of[1], rf[1]))
    row("yAx TeamPolicy 2^14 x 2^14 f64", rf, of, ratio,
        (">= 0.90 (correct: rokkos %s, ref %s)" % (ok["yax"], ok["yax_ref"]), verdict(ratio[0], 0.90, True)), " GB/s")
    of, rf = agg(c, False), agg(cr, False)
    ratio = (div(rf[0], of[0]), div(rf[1], of[1]))
    row("CG 2-D Poisson n=2048, per step", rf, of, ratio,
        (">= 0.85 (ref time / rokkos time; rokkos %s, ref %s)" % (ok["cg"], ok["cg_ref"]), verdict(ratio[0], 0.85, True)), " us")


def toast(d):
    js = [j for j in jsonl(os.path.join(d, "toast.log")) if j.get("bench") == "toast"]
    print("\n== TOAST benchmark configuration on cuda (ms, best / median of the run's reps)")
    by = {}
    for j in js:
        if "kernel" in j:
            by.setdefault(j["kernel"], []).append(j)
    for k, lines in by.items():
        lines.sort(key=lambda j: j["best_s"])
        fastest = lines[0]
        designs = ", ".join("%s %.2f" % (j["design"], j["best_s"] * 1e3) for j in lines)
        correct = all(j.get("matches_reference") for j in lines)
        jax = JAX_MS.get(k)
        ours = (fastest["best_s"] * 1e3, fastest["median_s"] * 1e3)
        if jax:
            speedup = (div(jax, ours[0]), div(jax, ours[1]))
            row("toast %s (%s)" % (k, fastest["design"]), (jax, jax), ours, speedup,
                (">= 2x JAX, correct (%s; all designs: %s)" % (correct, designs),
                 verdict(speedup[0], 2.0, True) if correct else "WRONG"), " ms")
        else:
            row("toast %s (%s)" % (k, fastest["design"]), None, ours, None,
                ("correct (%s; designs: %s)" % (correct, designs), "ok" if correct else "WRONG"), " ms")
    every = [j for j in js if "all_results_match_serial_reference" in j]
    if every:
        print("every TOAST result matched the serial reference: %s" % every[-1]["all_results_match_serial_reference"])
    elif not js:
        print("(no TOAST results in toast.log)")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    babelstream(d)
    launch_cost(d)
    yax_cg(d)
    toast(d)
    print("\n== issue 16, CUDA: bar | reference | rokkos | ratio (best / median) | bar | verdict")
    w = [max(len(r[i]) for r in ROWS) for i in range(4)] if ROWS else [0] * 4
    for r in ROWS:
        print("%-*s | %*s | %*s | %*s | %s | %s" % (w[0], r[0], w[1], r[1], w[2], r[2], w[3], r[3], r[4], r[5]))
    missed = sum(1 for r in ROWS if r[5] in ("MISSED", "WRONG"))
    nodata = sum(1 for r in ROWS if r[5] == "no data")
    print("\n%d rows, %d missed or wrong, %d without data" % (len(ROWS), missed, nodata))


if __name__ == "__main__":
    main()
