#!/usr/bin/env python3
"""Times every TOAST 3.0.6 compiled kernel and rokkos_toast's on the same arrays, in one process.

Both are called from Python on identical NumPy inputs (rokkos_toast borrows them without a copy
and releases the GIL, as toast._libtoast does), so the kernels whose cost depends on the data
(pointing, pixels, scan_map, build_noise_weighted) see the same pointing, pixels and maps. The
pointing is a scan (boresight sweeping in azimuth, slowly drifting in elevation) with detectors
spread over a few degrees; pixels are HEALPix nside 1024 (nest), as in TOAST's defaults; every
submap is local (TOAST 3.0.6's compiled scan_map and build_noise_weighted index out of bounds for
non-local ones). Intervals: `--n-view` irregular half-open spans with gaps, or one span covering
every sample when it is 1.

Each kernel runs once to warm up, then `--reps` times alternating TOAST and rokkos; the best time
of each is printed as nanoseconds per sample of n_det x n_samp, with the ratio rokkos / TOAST
(below 1: rokkos faster). TOAST's thread count is libgomp's (OMP_NUM_THREADS); rokkos runs the
backend given by `--backend` (serial, or rayon with RAYON_NUM_THREADS threads). One JSON object
per kernel on stdout.
"""

import argparse
import json
import os
import time

import numpy as np
import toast._libtoast as lt
from toast.intervals import interval_dtype

import rokkos_toast as rt


def intervals(n_samp, n_view, rng):
    """`n_view` irregular half-open spans with gaps (or one covering everything)."""
    if n_view == 1:
        pairs = [(0, n_samp)]
    else:
        # Irregular lengths: cut points drawn at random, each span loses a gap of 0-2% at its end.
        cuts = np.sort(rng.choice(np.arange(1, n_samp), size=n_view - 1, replace=False))
        edges = np.concatenate([[0], cuts, [n_samp]])
        pairs = []
        for a, b in zip(edges[:-1], edges[1:]):
            gap = int(rng.uniform(0, 0.02) * (b - a))
            if b - gap > a:
                pairs.append((int(a), int(b - gap)))
    iv = np.zeros(len(pairs), dtype=interval_dtype)
    for i, (f, l) in enumerate(pairs):
        iv[i] = (0.01 * f, 0.01 * (l - 1), f, l)
    return iv


def quat_mult(p, q):
    """Hamilton products of quaternions stored (x, y, z, w), broadcasting."""
    px, py, pz, pw = np.moveaxis(p, -1, 0)
    qx, qy, qz, qw = np.moveaxis(q, -1, 0)
    return np.stack(
        [
            pw * qx + px * qw + py * qz - pz * qy,
            pw * qy - px * qz + py * qw + pz * qx,
            pw * qz + px * qy - py * qx + pz * qw,
            pw * qw - px * qx - py * qy - pz * qz,
        ],
        axis=-1,
    )


def rot(axis, angle):
    q = np.zeros(np.shape(angle) + (4,))
    q[..., axis] = np.sin(0.5 * np.asarray(angle))
    q[..., 3] = np.cos(0.5 * np.asarray(angle))
    return q


def pointing(n_det, n_samp, rng):
    t = np.arange(n_samp) / 100.0
    az = 2 * np.pi * (0.5 * np.abs(((t / 60.0) % 2.0) - 1.0))  # back-and-forth sweeps
    el = 0.8 + 0.2 * np.sin(2 * np.pi * t / 3600.0)
    bore = quat_mult(rot(2, az), rot(1, np.pi / 2 - el))
    bore /= np.linalg.norm(bore, axis=-1, keepdims=True)
    off = np.radians(rng.uniform(-2, 2, (n_det, 2)))
    fp = quat_mult(quat_mult(rot(0, off[:, 0]), rot(1, off[:, 1])), rot(2, rng.uniform(0, np.pi, n_det)))
    fp /= np.linalg.norm(fp, axis=-1, keepdims=True)
    return fp, bore


def best_pair(reps, toast_call, rokkos_call):
    toast_call()
    rokkos_call()
    bt = br = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        toast_call()
        bt = min(bt, time.perf_counter() - t0)
        t0 = time.perf_counter()
        rokkos_call()
        br = min(br, time.perf_counter() - t0)
    return bt, br


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-det", type=int, default=32)
    ap.add_argument("--n-samp", type=int, default=360000)
    ap.add_argument("--n-view", type=int, default=100)
    ap.add_argument("--nside", type=int, default=1024)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--backend", default="serial")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rt.set_backend(a.backend)
    rng = np.random.default_rng(a.seed)
    n_det, n_samp, nside = a.n_det, a.n_samp, a.nside
    iv = intervals(n_samp, a.n_view, rng)
    idx = np.arange(n_det, dtype=np.int32)
    fp, bore = pointing(n_det, n_samp, rng)
    shared_flags = np.zeros(n_samp, dtype=np.uint8)
    shared_flags[rng.random(n_samp) < 0.01] = 1
    det_flags = np.zeros((n_det, n_samp), dtype=np.uint8)
    det_flags[rng.random((n_det, n_samp)) < 0.01] = 1
    quats = np.zeros((n_det, n_samp, 4))
    lt.pointing_detector(fp, bore, idx, quats, iv, shared_flags, 1, False)
    nside_submap = 16
    n_submap = 12 * nside_submap * nside_submap
    n_pix_submap = 12 * nside * nside // n_submap
    pixels = np.full((n_det, n_samp), -1, dtype=np.int64)
    hits = np.zeros(n_submap, dtype=np.uint8)
    lt.pixels_healpix(idx, quats, shared_flags, 1, idx, pixels, iv, hits, n_pix_submap, nside, True, False)
    g2l = np.arange(n_submap, dtype=np.int64)
    nnz = 3
    hwp = np.zeros(1)
    eps, gamma, cal = rng.uniform(0, 0.01, n_det), rng.uniform(0, np.pi, n_det), np.ones(n_det)
    weights = np.zeros((n_det, n_samp, nnz))
    lt.stokes_weights_IQU(idx, quats, idx, weights, hwp, iv, eps, gamma, cal, False, False)
    det_data = rng.normal(size=(n_det, n_samp))
    detw = rng.uniform(0.5, 2, n_det)
    mapdata = rng.normal(size=(n_submap, n_pix_submap, nnz))
    zmap = np.zeros((n_submap, n_pix_submap, nnz))
    scale = np.ones(n_det)
    step = 1000
    n_amp_views = np.array([(l - f + step - 1) // step for f, l in zip(iv["first"], iv["last"])], dtype=np.int64)
    n_amp = int(n_amp_views.sum())
    amps = rng.normal(size=n_amp * n_det)
    aflags = np.zeros(n_amp * n_det, dtype=np.uint8)
    var = rng.uniform(0.1, 2, n_amp * n_det)
    amp_out = np.zeros(n_amp * n_det)

    def both(name, fn_toast, fn_rokkos, args):
        return name, (lambda: fn_toast(*args)), (lambda: fn_rokkos(*args))

    def offsets(fn_t, fn_r, per_det):
        # TOAST calls the offset template once per detector, with that detector's amplitudes.
        def run(fn):
            return lambda: [fn(*per_det(d)) for d in range(n_det)]

        return run(fn_t), run(fn_r)

    out_q = np.zeros_like(quats)
    out_w = np.zeros_like(weights)
    out_w1 = np.zeros((n_det, n_samp))
    out_p = np.zeros_like(pixels)
    hits_o = np.zeros_like(hits)
    cases = [
        both("pointing_detector", lt.pointing_detector, rt.pointing_detector,
             (fp, bore, idx, out_q, iv, shared_flags, 1, False)),
        both("stokes_weights_IQU", lt.stokes_weights_IQU, rt.stokes_weights_IQU,
             (idx, quats, idx, out_w, hwp, iv, eps, gamma, cal, False, False)),
        both("stokes_weights_I", lt.stokes_weights_I, rt.stokes_weights_I,
             (idx, out_w1, iv, cal, False)),
        both("pixels_healpix_nest", lt.pixels_healpix, rt.pixels_healpix,
             (idx, quats, shared_flags, 1, idx, out_p, iv, hits_o, n_pix_submap, nside, True, False)),
        both("pixels_healpix_ring", lt.pixels_healpix, rt.pixels_healpix,
             (idx, quats, shared_flags, 1, idx, out_p, iv, hits_o, n_pix_submap, nside, False, False)),
        both("noise_weight", lt.noise_weight, rt.noise_weight, (det_data, idx, iv, detw, False)),
        both("scan_map", lt.ops_scan_map_float64, rt.scan_map,
             (g2l, n_pix_submap, mapdata, det_data, idx, pixels, idx, weights, idx, iv, 1.0,
              False, False, False, False)),
        both("build_noise_weighted", lt.build_noise_weighted, rt.build_noise_weighted,
             (g2l, zmap, idx, pixels, idx, weights, idx, det_data, idx, det_flags, scale, 1, iv,
              shared_flags, 1, False)),
    ]
    add_t, add_r = offsets(
        lt.template_offset_add_to_signal, rt.template_offset_add_to_signal,
        lambda d: (step, d * n_amp, n_amp_views, amps, aflags, d, det_data, iv, False))
    proj_t, proj_r = offsets(
        lt.template_offset_project_signal, rt.template_offset_project_signal,
        lambda d: (d, det_data, d, det_flags, 1, step, d * n_amp, n_amp_views, amp_out, aflags, iv, False))
    cases.append(("offset_add_to_signal", add_t, add_r))
    cases.append(("offset_project_signal", proj_t, proj_r))
    cases.append(("offset_apply_diag_precond",
                  lambda: lt.template_offset_apply_diag_precond(var, amps, aflags, amp_out, False),
                  lambda: rt.template_offset_apply_diag_precond(var, amps, aflags, amp_out, False)))
    threads = os.environ.get("OMP_NUM_THREADS", "?")
    for name, t_call, r_call in cases:
        bt, br = best_pair(a.reps, t_call, r_call)
        per = 1e9 / (n_det * n_samp)
        print(json.dumps({
            "bench": "toast3_side_by_side", "kernel": name, "backend": a.backend,
            "omp_threads": threads, "rayon_threads": os.environ.get("RAYON_NUM_THREADS", "?"),
            "n_det": n_det, "n_samp": n_samp, "n_view": len(iv), "nside": nside,
            "toast_ns_per_sample": bt * per, "rokkos_ns_per_sample": br * per,
            "ratio": br / bt,
        }), flush=True)


if __name__ == "__main__":
    main()
