"""rokkos_toast against TOAST 3.0.6's compiled kernels (toast._libtoast) on random problems,
on the serial and rayon backends and wgpu (where it has an adapter: lavapipe in CI, where
ROKKOS_REQUIRE_WGPU=1 makes a missing one a failure), and the zero-copy claim of the host
backends: outputs are written in place, and nothing of the inputs' size is allocated."""

import os

import numpy as np
import pytest
import toast._libtoast as lt
from toast.intervals import interval_dtype

import rokkos_toast as rt

HOST_BACKENDS = ("serial", "rayon")


def _usable(name):
    """Whether a GPU backend this build has finds a device here."""
    try:
        rt.set_backend(name)
        return True
    except RuntimeError:
        if os.environ.get("ROKKOS_REQUIRE_WGPU") == "1" and name == "wgpu":
            raise
        return False
    finally:
        rt.set_backend("rayon")


BACKENDS = [b for b in rt.backends() if b in HOST_BACKENDS or _usable(b)]


@pytest.fixture(params=BACKENDS)
def backend(request):
    rt.set_backend(request.param)
    assert rt.get_backend() == request.param
    return request.param


def intervals(pairs):
    iv = np.zeros(len(pairs), dtype=interval_dtype)
    for i, (f, l) in enumerate(pairs):
        iv[i] = (0.01 * f, 0.01 * l, f, l)
    return iv


def random_intervals(rng, n_samp):
    """Sorted half-open intervals with gaps, an empty one, the last ending at n_samp."""
    cuts = np.sort(rng.choice(np.arange(1, n_samp), size=6, replace=False))
    pairs = [(0, int(cuts[0])), (int(cuts[1]), int(cuts[1])), (int(cuts[2]), int(cuts[3]))]
    pairs.append((int(cuts[4]), n_samp))
    return intervals(pairs)


def quats(rng, shape):
    q = rng.normal(size=shape + (4,))
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


SEEDS = [1, 2, 3]
SENT = -7.25


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("hwp_on", [False, True])
@pytest.mark.parametrize("iau", [False, True])
def test_stokes_weights_iqu(backend, seed, hwp_on, iau):
    rng = np.random.default_rng(seed)
    n_det, n_samp = 3, 200
    q = quats(rng, (4, n_samp))
    qi = np.array([2, 0, 3], dtype=np.int32)
    wi = np.array([1, 3, 0], dtype=np.int32)
    hwp = rng.uniform(0, 6.3, n_samp) if hwp_on else np.zeros(1)
    eps, gam, cal = rng.uniform(0, 0.1, n_det), rng.uniform(0, 3, n_det), rng.uniform(0.5, 1.5, n_det)
    iv = random_intervals(rng, n_samp)
    want = np.full((4, n_samp, 3), SENT)
    got = np.full((4, n_samp, 3), SENT)
    lt.stokes_weights_IQU(qi, q, wi, want, hwp, iv, eps, gam, cal, iau, False)
    rt.stokes_weights_IQU(qi, q, wi, got, hwp, iv, eps, gam, cal, iau, False)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_stokes_weights_i(backend, seed):
    rng = np.random.default_rng(seed)
    n_samp = 150
    wi = np.array([1, 0], dtype=np.int32)
    cal = rng.uniform(0.5, 1.5, 2)
    iv = random_intervals(rng, n_samp)
    want, got = np.full((2, n_samp), SENT), np.full((2, n_samp), SENT)
    lt.stokes_weights_I(wi, want, iv, cal, False)
    rt.stokes_weights_I(wi, got, iv, cal, False)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", SEEDS)
def test_pointing_detector(backend, seed):
    rng = np.random.default_rng(seed)
    n_samp = 200
    fp, bore = quats(rng, (2,)), quats(rng, (n_samp,))
    qi = np.array([1, 2], dtype=np.int32)
    flags = rng.choice(np.array([0, 1, 2], dtype=np.uint8), n_samp)
    iv = random_intervals(rng, n_samp)
    want, got = np.full((3, n_samp, 4), SENT), np.full((3, n_samp, 4), SENT)
    lt.pointing_detector(fp, bore, qi, want, iv, flags, 1, False)
    rt.pointing_detector(fp, bore, qi, got, iv, flags, 1, False)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("nest", [False, True])
def test_pixels_healpix(backend, seed, nest):
    rng = np.random.default_rng(seed)
    n_samp, nside = 300, 16
    q = quats(rng, (3, n_samp))
    qi, pi = np.array([0, 2], dtype=np.int32), np.array([1, 0], dtype=np.int32)
    flags = rng.choice(np.array([0, 0, 1, 4], dtype=np.uint8), n_samp)
    nps = nside * nside // 4
    iv = random_intervals(rng, n_samp)
    want, got = np.full((2, n_samp), -9, dtype=np.int64), np.full((2, n_samp), -9, dtype=np.int64)
    hw, hg = np.zeros(48, dtype=np.uint8), np.zeros(48, dtype=np.uint8)
    lt.pixels_healpix(qi, q, flags, 4, pi, want, iv, hw, nps, nside, nest, False)
    rt.pixels_healpix(qi, q, flags, 4, pi, got, iv, hg, nps, nside, nest, False)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(hg, hw)


@pytest.mark.parametrize("seed", SEEDS)
def test_noise_weight(backend, seed):
    rng = np.random.default_rng(seed)
    n_samp = 200
    d = rng.normal(size=(3, n_samp))
    di = np.array([2, 0, 1], dtype=np.int32)
    w = rng.uniform(0.5, 2, 3)
    iv = random_intervals(rng, n_samp)
    want, got = d.copy(), d.copy()
    lt.noise_weight(want, di, iv, w, False)
    rt.noise_weight(got, di, iv, w, False)
    np.testing.assert_array_equal(got, want)


def geometry(rng, n_samp, nnz, all_local=True):
    # TOAST 3.0.6's compiled build_noise_weighted and scan_map write or read out of bounds for
    # pixels of non-local submaps (global2local -1): compared with every submap local only.
    g2l = np.array([1, 3, 0, 2, 4] if all_local else [1, -1, 0, 2, -1], dtype=np.int64)
    pixels = rng.integers(-1, 30, (3, n_samp)).astype(np.int64)
    weights = rng.normal(size=(3, n_samp, nnz))
    return g2l, pixels, weights


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "int64"])
@pytest.mark.parametrize("mode", [(False, False, False), (True, True, False), (False, False, True)])
def test_scan_map(backend, seed, dtype, mode):
    rng = np.random.default_rng(seed)
    n_samp, nnz = 200, 3
    g2l, pixels, weights = geometry(rng, n_samp, nnz, True)
    m = (rng.normal(size=(5, 6, nnz)) * 10).astype(dtype)
    d = rng.normal(size=(3, n_samp))
    di, pi, wi = (np.array(x, dtype=np.int32) for x in ([2, 0], [1, 2], [0, 1]))
    iv = random_intervals(rng, n_samp)
    want, got = d.copy(), d.copy()
    getattr(lt, "ops_scan_map_" + dtype)(g2l, 6, m, want, di, pixels, pi, weights, wi, iv, 1.5, *mode, False)
    rt.scan_map(g2l, 6, m, got, di, pixels, pi, weights, wi, iv, 1.5, *mode, False)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("flags_on", [False, True])
@pytest.mark.parametrize("nnz", [1, 3])
def test_build_noise_weighted(backend, seed, flags_on, nnz):
    rng = np.random.default_rng(seed)
    n_samp = 200
    g2l, pixels, weights = geometry(rng, n_samp, nnz, True)
    if nnz == 1:
        weights = weights[:, :, 0].copy()  # TOAST's 2-D weights
    d = rng.normal(size=(3, n_samp))
    pi, wi, di = (np.array(x, dtype=np.int32) for x in ([0, 2], [2, 1], [1, 0]))
    if flags_on:
        fi = np.array([2, 0], dtype=np.int32)
        fl = rng.choice(np.array([0, 0, 1, 2], dtype=np.uint8), (3, n_samp))
        sh = rng.choice(np.array([0, 0, 4], dtype=np.uint8), n_samp)
    else:
        fi = np.full(2, -1, dtype=np.int32)
        fl, sh = np.zeros((1, 1), dtype=np.uint8), np.zeros(1, dtype=np.uint8)
    scale = rng.uniform(0.5, 2, 2)
    iv = random_intervals(rng, n_samp)
    want, got = np.full((5, 6, nnz), SENT), np.full((5, 6, nnz), SENT)
    lt.build_noise_weighted(g2l, want, pi, pixels, wi, weights, di, d, fi, fl, scale, 1, iv, sh, 4, False)
    rt.build_noise_weighted(g2l, got, pi, pixels, wi, weights, di, d, fi, fl, scale, 1, iv, sh, 4, False)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-11)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("step", [1, 3, 7])
@pytest.mark.parametrize("flags_on", [False, True])
def test_offset_template(backend, seed, step, flags_on):
    rng = np.random.default_rng(seed)
    n_samp = 200
    iv = random_intervals(rng, n_samp)
    n_amp_views = np.array([(l - f + step - 1) // step for f, l in zip(iv["first"], iv["last"])], dtype=np.int64)
    amp_offset = 3
    n_amp = amp_offset + int(n_amp_views.sum()) + 2
    amps = rng.normal(size=n_amp)
    aflags = rng.choice(np.array([0, 0, 0, 1], dtype=np.uint8), n_amp)
    d = rng.normal(size=(3, n_samp))
    fl = rng.choice(np.array([0, 0, 1, 2], dtype=np.uint8), (3, n_samp))
    fi = 2 if flags_on else -1

    want, got = d.copy(), d.copy()
    lt.template_offset_add_to_signal(step, amp_offset, n_amp_views, amps, aflags, 1, want, iv, False)
    rt.template_offset_add_to_signal(step, amp_offset, n_amp_views, amps, aflags, 1, got, iv, False)
    np.testing.assert_array_equal(got, want)

    want, got = np.full(n_amp, SENT), np.full(n_amp, SENT)
    lt.template_offset_project_signal(1, d, fi, fl, 1, step, amp_offset, n_amp_views, want, aflags, iv, False)
    rt.template_offset_project_signal(1, d, fi, fl, 1, step, amp_offset, n_amp_views, got, aflags, iv, False)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)

    var = rng.uniform(0.1, 2, n_amp)
    want, got = np.full(n_amp, SENT), np.full(n_amp, SENT)
    lt.template_offset_apply_diag_precond(var, amps, aflags, want, False)
    rt.template_offset_apply_diag_precond(var, amps, aflags, got, False)
    np.testing.assert_array_equal(got, want)


def test_outputs_written_in_place(backend):
    """The output array object and its buffer are the ones passed: written in place, and a
    view into a larger array writes the larger array."""
    rng = np.random.default_rng(9)
    n_samp = 4000
    big = np.full((3, n_samp, 3), SENT)
    addr = big.ctypes.data
    q = quats(rng, (1, n_samp))
    iv = intervals([(0, n_samp)])
    one = np.ones(1)
    rt.stokes_weights_IQU(np.zeros(1, dtype=np.int32), q, np.array([1], dtype=np.int32), big, np.zeros(1), iv, np.zeros(1), np.zeros(1), one, False)
    assert big.ctypes.data == addr
    assert np.all(big[1, :, 0] == 1.0) and np.all(big[0] == SENT) and np.all(big[2] == SENT)
    # A contiguous slice of a larger array: the parent sees the writes.
    parent = np.zeros((5, n_samp))
    view = parent[1:3]
    rt.noise_weight(view, np.array([0], dtype=np.int32), iv, np.array([2.0]), False)
    parent[1] = 1.0
    rt.noise_weight(view, np.array([0], dtype=np.int32), iv, np.array([2.0]), False)
    assert np.all(parent[1] == 2.0)


def test_no_input_sized_allocation(backend):
    """A large call allocates nothing of the inputs' size (tracemalloc sees NumPy and Python
    allocations; rokkos' host Views would be Rust allocations, so the process's peak RSS is
    checked too). On a GPU backend the arrays are copied to the device by design."""
    import resource

    if backend not in HOST_BACKENDS:
        pytest.skip(f"{backend} copies the arrays to its device")

    n_samp = 2_000_000  # 48 MB of quaternions, 48 MB of weights
    q = np.zeros((1, n_samp, 4))
    q[..., 3] = 1.0
    w = np.zeros((1, n_samp, 3))
    iv = intervals([(0, n_samp)])
    args = (np.zeros(1, dtype=np.int32), q, np.zeros(1, dtype=np.int32), w, np.zeros(1), iv, np.zeros(1), np.zeros(1), np.ones(1), False)
    rt.stokes_weights_IQU(*args)  # warm up
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(3):
        rt.stokes_weights_IQU(*args)
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 8_000, f"peak memory grew by {grown_kb} kB for 96 MB of arrays"
    assert np.all(w[0, :, 0] == 1.0)


def test_errors(backend):
    iv = intervals([(0, 4)])
    idx = np.zeros(1, dtype=np.int32)
    w = np.zeros((1, 4))
    with pytest.raises(TypeError, match="weights must be a numpy array of dtype float64"):
        rt.stokes_weights_I(idx, w.astype(np.float32), iv, np.ones(1))
    with pytest.raises(ValueError, match="weights must have 2 dimensions"):
        rt.stokes_weights_I(idx, np.zeros(4), iv, np.ones(1))
    with pytest.raises(ValueError, match="C-contiguous"):
        rt.stokes_weights_I(idx, np.zeros((1, 8))[:, ::2], iv, np.ones(1))
    ro = np.zeros((1, 4))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        rt.stokes_weights_I(idx, ro, iv, np.ones(1))
    with pytest.raises(ValueError, match="intervals reach sample"):
        rt.stokes_weights_I(idx, w, intervals([(0, 5)]), np.ones(1))
    with pytest.raises(ValueError, match="unknown backend"):
        rt.set_backend("quantum")
    # Nothing was written by the refused calls.
    assert np.all(w == 0.0)
