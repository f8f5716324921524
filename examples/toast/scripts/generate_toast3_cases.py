#!/usr/bin/env python3
"""Writes the expected outputs of TOAST 3.0.6's compiled kernels (`toast._libtoast`) on a few
fixed random problems to tests/data/toast3_cases.json, for rokkos-toast's TOAST-3 tests.

Run once, with TOAST 3.0.6 installed (`pip install toast==3.0.6 numpy`):

    python3 examples/toast/scripts/generate_toast3_cases.py

Every case records its inputs and the outputs TOAST wrote into buffers that start from a
sentinel, so a sample a kernel must not touch shows. Intervals are TOAST 3's half-open
`first <= s < last`, with an empty one and one that ends at `n_samp`.
"""

import json
import os

import numpy as np
import toast
import toast._libtoast as lt
from toast.intervals import interval_dtype

assert toast.__version__ == "3.0.6", toast.__version__

SENTINEL = -7.25
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "toast3_cases.json")


def intervals(pairs):
    iv = np.zeros(len(pairs), dtype=interval_dtype).view(np.recarray)
    for i, (f, l) in enumerate(pairs):
        iv[i].start = 0.01 * f
        iv[i].stop = 0.01 * l
        iv[i].first = f
        iv[i].last = l
    return iv


def random_quats(rng, shape):
    q = rng.normal(size=shape + (4,))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    return q


def flat(a):
    """Integers as they are; floats as their IEEE-754 bit patterns (u64), which every JSON parser
    reads exactly (decimal floats are not always parsed to the nearest double)."""
    a = np.ascontiguousarray(a)
    if a.dtype.kind == "f":
        a = a.astype(np.float64).view(np.uint64)
    return a.ravel().tolist()


def stokes_iqu_case(rng, n_samp, pairs, hwp, iau):
    n_det = 3
    quat_index = np.array([2, 0, 3], dtype=np.int32)
    weight_index = np.array([1, 3, 0], dtype=np.int32)
    quats = random_quats(rng, (4, n_samp))
    weights = np.full((4, n_samp, 3), SENTINEL)
    hwp_data = rng.uniform(0, 2 * np.pi, n_samp) if hwp else np.zeros(1)
    epsilon = rng.uniform(0, 0.1, n_det)
    gamma = rng.uniform(0, np.pi, n_det)
    cal = rng.uniform(0.5, 1.5, n_det)
    lt.stokes_weights_IQU(
        quat_index, quats, weight_index, weights, hwp_data, intervals(pairs),
        epsilon, gamma, cal, iau, False,
    )
    return dict(
        kernel="stokes_weights_IQU", n_samp=n_samp, intervals=pairs,
        quat_index=flat(quat_index), quats=flat(quats), n_qrows=4,
        weight_index=flat(weight_index), n_wrows=4,
        hwp=flat(hwp_data), epsilon=flat(epsilon), gamma=flat(gamma), cal=flat(cal),
        IAU=iau, expected=flat(weights),
    )


def stokes_i_case(rng, n_samp, pairs):
    weight_index = np.array([1, 0], dtype=np.int32)
    weights = np.full((2, n_samp), SENTINEL)
    cal = rng.uniform(0.5, 1.5, 2)
    lt.stokes_weights_I(weight_index, weights, intervals(pairs), cal, False)
    return dict(
        kernel="stokes_weights_I", n_samp=n_samp, intervals=pairs,
        weight_index=flat(weight_index), n_wrows=2, cal=flat(cal), expected=flat(weights),
    )


def pointing_case(rng, n_samp, pairs):
    n_det = 2
    focalplane = random_quats(rng, (n_det,))
    boresight = random_quats(rng, (n_samp,))
    quat_index = np.array([1, 2], dtype=np.int32)
    quats = np.full((3, n_samp, 4), SENTINEL)
    shared_flags = rng.choice(np.array([0, 1, 2, 3], dtype=np.uint8), n_samp)
    lt.pointing_detector(
        focalplane, boresight, quat_index, quats, intervals(pairs), shared_flags, 1, False
    )
    return dict(
        kernel="pointing_detector", n_samp=n_samp, intervals=pairs,
        focalplane=flat(focalplane), boresight=flat(boresight), quat_index=flat(quat_index),
        n_qrows=3, shared_flags=flat(shared_flags), shared_flag_mask=1, expected=flat(quats),
    )


def pixels_case(rng, n_samp, pairs, nside, nest, flags):
    quat_index = np.array([0, 2], dtype=np.int32)
    pixel_index = np.array([1, 0], dtype=np.int32)
    quats = random_quats(rng, (3, n_samp))
    if flags:
        shared_flags = rng.choice(np.array([0, 0, 1, 4], dtype=np.uint8), n_samp)
    else:
        shared_flags = np.zeros(1, dtype=np.uint8)
    n_pix_submap = nside * nside // 4
    pixels = np.full((2, n_samp), -9, dtype=np.int64)
    hit_submaps = np.zeros(12 * nside * nside // n_pix_submap, dtype=np.uint8)
    lt.pixels_healpix(
        quat_index, quats, shared_flags, 4, pixel_index, pixels, intervals(pairs),
        hit_submaps, n_pix_submap, nside, nest, False,
    )
    return dict(
        kernel="pixels_healpix", n_samp=n_samp, intervals=pairs, quat_index=flat(quat_index),
        quats=flat(quats), n_qrows=3, shared_flags=flat(shared_flags), shared_flag_mask=4,
        pixel_index=flat(pixel_index), n_prows=2, n_pix_submap=n_pix_submap, nside=nside,
        nest=nest, expected=flat(pixels), expected_hits=flat(hit_submaps),
    )


def noise_weight_case(rng, n_samp, pairs):
    data_index = np.array([2, 0, 1], dtype=np.int32)
    det_data = rng.normal(size=(3, n_samp))
    before = det_data.copy()
    detector_weights = rng.uniform(0.5, 2.0, 3)
    lt.noise_weight(det_data, data_index, intervals(pairs), detector_weights, False)
    return dict(
        kernel="noise_weight", n_samp=n_samp, intervals=pairs, data_index=flat(data_index),
        det_data=flat(before), detector_weights=flat(detector_weights), expected=flat(det_data),
    )


def offset_case(rng, n_samp, pairs, step_length, with_flags):
    n_rows = 3
    n_amp_views = np.array([(l - f + step_length - 1) // step_length for f, l in pairs], dtype=np.int64)
    amp_offset = 2
    n_amp = amp_offset + int(n_amp_views.sum()) + 1
    amplitudes = rng.normal(size=n_amp)
    amplitude_flags = rng.choice(np.array([0, 0, 0, 1], dtype=np.uint8), n_amp)
    det_data = rng.normal(size=(n_rows, n_samp))
    flag_data = rng.choice(np.array([0, 0, 1, 2], dtype=np.uint8), (n_rows, n_samp))
    data_index, flag_index, flag_mask = 1, (2 if with_flags else -1), 1
    added = det_data.copy()
    lt.template_offset_add_to_signal(
        step_length, amp_offset, n_amp_views, amplitudes, amplitude_flags, data_index,
        added, intervals(pairs), False,
    )
    projected = np.full(n_amp, SENTINEL)
    lt.template_offset_project_signal(
        data_index, det_data, flag_index, flag_data, flag_mask, step_length, amp_offset,
        n_amp_views, projected, amplitude_flags, intervals(pairs), False,
    )
    offset_var = rng.uniform(0.1, 2.0, n_amp)
    precond = np.full(n_amp, SENTINEL)
    lt.template_offset_apply_diag_precond(offset_var, amplitudes, amplitude_flags, precond, False)
    return dict(
        kernel="template_offset", n_samp=n_samp, intervals=pairs, step_length=step_length,
        amp_offset=amp_offset, n_amp_views=flat(n_amp_views), amplitudes=flat(amplitudes),
        amplitude_flags=flat(amplitude_flags), det_data=flat(det_data), n_rows=n_rows,
        flag_data=flat(flag_data), data_index=data_index, flag_index=flag_index,
        flag_mask=flag_mask, offset_var=flat(offset_var), expected_add=flat(added),
        expected_project=flat(projected), expected_precond=flat(precond),
    )


def map_geometry(rng, n_samp, n_pix_submap, nnz, all_local=False):
    # TOAST 3.0.6's compiled build_noise_weighted and scan_map do not skip submaps that are
    # not local (global2local -1): they write before zmap (corrupting the heap) or read before
    # mapdata (garbage). The cases keep every submap local (rokkos skips such samples: the
    # crate's own tests check that).
    if all_local:
        global2local = np.array([1, 3, 0, 2, 4], dtype=np.int64)
    else:
        global2local = np.array([1, -1, 0, 2, -1], dtype=np.int64)
    npix = len(global2local) * n_pix_submap
    pixels = rng.integers(-1, npix, (3, n_samp)).astype(np.int64)
    weights = rng.normal(size=(3, n_samp, nnz))
    return global2local, pixels, weights


def scan_map_case(rng, n_samp, pairs, dtype, mode, nnz=3):
    n_pix_submap = 6
    all_local = True
    global2local, pixels, weights = map_geometry(rng, n_samp, n_pix_submap, nnz, all_local)
    n_local = 5 if all_local else 3
    mapdata = (rng.normal(size=(n_local, n_pix_submap, nnz)) * 10).astype(dtype)
    det_data = rng.normal(size=(3, n_samp))
    before = det_data.copy()
    det_data_index = np.array([2, 0], dtype=np.int32)
    pixels_index = np.array([1, 2], dtype=np.int32)
    weight_index = np.array([0, 1], dtype=np.int32)
    zero, subtract, scale = mode
    # TOAST's weights of nnz = 1 are 2-D: [n_wrows][n_samp], the same memory as [..][..][1].
    toast_weights = weights[:, :, 0] if nnz == 1 else weights
    getattr(lt, "ops_scan_map_" + dtype)(
        global2local, n_pix_submap, mapdata, det_data, det_data_index, pixels, pixels_index,
        toast_weights, weight_index, intervals(pairs), 1.5, zero, subtract, scale, False,
    )
    return dict(
        kernel="scan_map", dtype=dtype, n_samp=n_samp, intervals=pairs,
        global2local=flat(global2local), n_pix_submap=n_pix_submap, nnz=nnz,
        mapdata=flat(mapdata), n_local=n_local, det_data=flat(before),
        det_data_index=flat(det_data_index), pixels=flat(pixels), pixels_index=flat(pixels_index),
        weights=flat(weights), weight_index=flat(weight_index), data_scale=1.5,
        should_zero=zero, should_subtract=subtract, should_scale=scale, expected=flat(det_data),
    )


def build_noise_weighted_case(rng, n_samp, pairs, det_flags, shared, nnz=3):
    n_pix_submap = 6
    global2local, pixels, weights = map_geometry(rng, n_samp, n_pix_submap, nnz, True)
    zmap = np.full((5, n_pix_submap, nnz), SENTINEL)
    pixel_index = np.array([0, 2], dtype=np.int32)
    weight_index = np.array([2, 1], dtype=np.int32)
    data_index = np.array([1, 0], dtype=np.int32)
    det_data = rng.normal(size=(3, n_samp))
    if det_flags:
        flag_index = np.array([2, 0], dtype=np.int32)
        flags = rng.choice(np.array([0, 0, 1, 2], dtype=np.uint8), (3, n_samp))
    else:
        flag_index = np.full(2, -1, dtype=np.int32)
        flags = np.zeros((1, 1), dtype=np.uint8)
    if shared:
        shared_flags = rng.choice(np.array([0, 0, 4, 8], dtype=np.uint8), n_samp)
    else:
        shared_flags = np.zeros(1, dtype=np.uint8)
    det_scale = rng.uniform(0.5, 2.0, 2)
    toast_weights = weights[:, :, 0] if nnz == 1 else weights
    lt.build_noise_weighted(
        global2local, zmap, pixel_index, pixels, weight_index, toast_weights, data_index, det_data,
        flag_index, flags, det_scale, 1, intervals(pairs), shared_flags, 4, False,
    )
    return dict(
        kernel="build_noise_weighted", n_samp=n_samp, intervals=pairs,
        global2local=flat(global2local), n_pix_submap=n_pix_submap, nnz=nnz, n_local=5,
        pixel_index=flat(pixel_index), pixels=flat(pixels), weight_index=flat(weight_index),
        weights=flat(weights), data_index=flat(data_index), det_data=flat(det_data),
        flag_index=flat(flag_index), det_flags=flat(flags), det_flags_shape=list(flags.shape),
        det_scale=flat(det_scale), det_flag_mask=1, shared_flags=flat(shared_flags),
        shared_flag_mask=4, expected=flat(zmap),
    )


def main():
    rng = np.random.default_rng(20261203)
    cases = []
    pairs_a = [[0, 5], [5, 5], [8, 20], [25, 37]]
    pairs_b = [[3, 4], [4, 11], [11, 11], [19, 29]]
    for hwp in (False, True):
        for iau in (False, True):
            cases.append(stokes_iqu_case(rng, 37, pairs_a, hwp, iau))
    cases.append(stokes_iqu_case(rng, 29, pairs_b, True, False))
    cases.append(stokes_i_case(rng, 37, pairs_a))
    cases.append(stokes_i_case(rng, 29, pairs_b))
    cases.append(pointing_case(rng, 37, pairs_a))
    cases.append(pointing_case(rng, 29, pairs_b))
    cases.append(pixels_case(rng, 37, pairs_a, 8, True, True))
    cases.append(pixels_case(rng, 37, pairs_a, 16, False, True))
    cases.append(pixels_case(rng, 29, pairs_b, 4, True, False))
    cases.append(noise_weight_case(rng, 37, pairs_a))
    cases.append(noise_weight_case(rng, 29, pairs_b))
    cases.append(offset_case(rng, 37, pairs_a, 3, True))
    cases.append(offset_case(rng, 29, pairs_b, 4, False))
    cases.append(offset_case(rng, 37, pairs_a, 1, False))
    modes = [(False, False, False), (True, True, False), (False, False, True), (False, True, True)]
    for dtype, mode in zip(["float64", "float32", "int32", "int64"], modes):
        cases.append(scan_map_case(rng, 37, pairs_a, dtype, mode))
    cases.append(scan_map_case(rng, 29, pairs_b, "int32", (True, False, False)))
    cases.append(build_noise_weighted_case(rng, 37, pairs_a, True, True))
    cases.append(build_noise_weighted_case(rng, 29, pairs_b, False, False))
    cases.append(build_noise_weighted_case(rng, 37, pairs_a, False, True))
    cases.append(scan_map_case(rng, 37, pairs_a, "float64", (False, False, False), nnz=1))
    cases.append(build_noise_weighted_case(rng, 37, pairs_a, True, False, nnz=1))
    with open(OUT, "w") as f:
        json.dump(dict(toast=toast.__version__, sentinel=SENTINEL, cases=cases), f)
    print(f"wrote {len(cases)} cases to {os.path.normpath(OUT)} ({os.path.getsize(OUT)} bytes)")


if __name__ == "__main__":
    main()
