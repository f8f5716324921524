#!/usr/bin/env python3
"""Times TOAST 3.0.6's own compiled (OpenMP) kernels on the problem rokkos-toast's benchmark runs.

The kernels whose timing does not depend on the data values (noise_weight and the offset
template's add_to_signal) run on the same shapes and the same intervals as `rokkos-toast
--n-det N --n-samp S --n-view V`: V equal intervals separated by gaps of 1% (one interval
covering everything when V is 1), converted to TOAST 3's half-open [first, last); one offset
amplitude per interval and detector, the step length the longest interval. Each kernel runs
once to warm up, then `--reps` times; the best time is reported as nanoseconds per sample of
n_det x n_samp, the metric of rokkos-toast's `--json` lines. The OpenMP thread count is
libgomp's (set OMP_NUM_THREADS before starting Python). Prints one JSON object per kernel.
"""

import argparse
import json
import os
import time

import numpy as np
from toast._libtoast import noise_weight
from toast._libtoast import template_offset_add_to_signal as offset_add_to_signal
from toast.intervals import interval_dtype


def regular_intervals(n_samp, n_view, gap):
    """rokkos-toast's gen::regular_intervals, as TOAST 3 half-open records."""
    if n_view == 0 or n_samp == 0:
        return np.zeros(0, dtype=interval_dtype)
    stride = n_samp // n_view
    spans = []
    for v in range(n_view):
        first = v * stride
        end = n_samp if v + 1 == n_view else (v + 1) * stride
        last = max(end - (1 if v + 1 == n_view else gap + 1), 0)
        if last >= first and end > first:
            spans.append((first, last + 1))
    iv = np.zeros(len(spans), dtype=interval_dtype)
    for k, (a, b) in enumerate(spans):
        iv[k]["first"], iv[k]["last"] = a, b
        iv[k]["start"], iv[k]["stop"] = a / 100.0, (b - 1) / 100.0
    return iv


def best(reps, reset, run):
    times = []
    for k in range(reps + 1):
        reset()
        t0 = time.perf_counter()
        run()
        t = time.perf_counter() - t0
        if k > 0:
            times.append(t)
    return min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-det", type=int, default=16)
    ap.add_argument("--n-samp", type=int, default=360000)
    ap.add_argument("--n-view", type=int, default=100)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    n_det, n_samp, n_view = a.n_det, a.n_samp, a.n_view
    gap = n_samp // n_view // 100 if n_view > 1 else 0
    intervals = regular_intervals(n_samp, n_view, gap)
    rng = np.random.default_rng(7)
    init = rng.standard_normal((n_det, n_samp))
    det_data = np.empty_like(init)
    index = np.arange(n_det, dtype=np.int32)
    weights = rng.uniform(0.5, 2.0, n_det)

    def reset():
        det_data[:] = init

    out = []
    t = best(a.reps, reset, lambda: noise_weight(det_data, index, intervals, weights, False))
    out.append(("noise_weight", t))

    n_iv = len(intervals)
    step_length = int(max(int(iv["last"] - iv["first"]) for iv in intervals))
    n_amp_views = np.ones(n_iv, dtype=np.int64)
    amplitudes = rng.standard_normal(n_det * n_iv)
    amp_flags = np.zeros(n_det * n_iv, dtype=np.uint8)

    def add_all():
        for d in range(n_det):
            offset_add_to_signal(
                step_length, d * n_iv, n_amp_views, amplitudes, amp_flags, d, det_data,
                intervals, False,
            )

    out.append(("offset_add_to_signal", best(a.reps, reset, add_all)))
    threads = os.environ.get("OMP_NUM_THREADS", "default")
    for kernel, t in out:
        print(json.dumps({
            "bench": "toast_compiled", "kernel": kernel, "omp_threads": threads,
            "n_det": n_det, "n_samp": n_samp, "n_view": n_view, "best_s": t,
            "ns_per_sample": t * 1e9 / (n_det * n_samp),
        }))


if __name__ == "__main__":
    main()
