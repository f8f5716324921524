"""TOAST 3.0.6's own unit tests for the operators whose kernels rokkos_toast provides, run with
``rokkos_toast.toast_plugin`` installed: TOAST's operators then call the rokkos kernels through
TOAST's kernel registry. Every case must pass, and the plug-in's call counts must show that the
rokkos kernels did the work (a pass with zero calls would mean TOAST ran its own kernels).

Left out by default (``ROKKOS_TOAST_FULL=1`` adds them): ``ops_mapmaker`` (about 15 minutes with
TOAST's own kernels on two cores) and ``ops_mapmaker_utils`` (about a minute; build_noise_weighted
is covered by ``ops_mapmaker_binning`` and ``ops_mapmaker_solve``). Not run: ``ops_pixels_healpix``,
which calls
``toast._libtoast.pixels_healpix`` directly, not through TOAST's kernel registry.
"""

import importlib
import io
import os
import unittest

import numpy as np
import pytest

toast = pytest.importorskip("toast")

from rokkos_toast import toast_plugin  # noqa: E402

# TOAST test module -> the kernels its cases must have run on rokkos.
MODULES = {
    "ops_pointing_detector": {"pointing_detector"},
    "ops_pointing_healpix": {"pointing_detector", "pixels_healpix", "stokes_weights_I",
                             "stokes_weights_IQU"},
    "ops_stokes_weights": {"pointing_detector", "pixels_healpix", "stokes_weights_IQU",
                           "scan_map"},
    "ops_scan_map": {"scan_map"},
    "ops_scan_healpix": {"scan_map"},
    "template_offset": {"offset_add_to_signal", "offset_project_signal"},
    "ops_mapmaker_binning": {"build_noise_weighted", "stokes_weights_IQU"},
    "ops_mapmaker_solve": {"build_noise_weighted", "noise_weight", "scan_map",
                           "offset_add_to_signal", "offset_project_signal",
                           "stokes_weights_I"},
}


# Too slow for CI on two cores, run with ROKKOS_TOAST_FULL=1: ops_mapmaker_utils (about a
# minute) and ops_mapmaker (about 15 minutes with TOAST's own kernels).
SLOW = {
    "ops_mapmaker_utils": {"build_noise_weighted", "stokes_weights_IQU"},
    "ops_mapmaker": {"build_noise_weighted", "noise_weight", "scan_map", "offset_add_to_signal",
                     "offset_project_signal", "offset_apply_diag_precond"},
}
if os.environ.get("ROKKOS_TOAST_FULL") == "1":
    MODULES.update(SLOW)


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    # TOAST's tests write into ./toast_output.
    monkeypatch.chdir(tmp_path)
    toast_plugin.install(backend="rayon")
    toast_plugin.reset_counts()
    yield toast_plugin
    toast_plugin.uninstall()


def _run(module):
    mod = importlib.import_module(f"toast.tests.{module}")
    suite = unittest.TestLoader().loadTestsFromModule(mod)
    out = io.StringIO()
    result = unittest.TextTestRunner(stream=out, verbosity=2).run(suite)
    return result, out.getvalue()


@pytest.mark.parametrize("module", sorted(MODULES))
def test_toast_module_passes_on_rokkos(plugin, module):
    result, report = _run(module)
    assert result.testsRun > 0, report
    assert result.wasSuccessful(), report
    calls = plugin.calls()
    missing = {k for k in MODULES[module] if calls.get(k, 0) == 0}
    assert not missing, f"{module} never ran {missing} on rokkos: {calls}"
    # Nothing was handed back to TOAST (no accelerator in this build).
    assert plugin.fallbacks() == {}


def test_every_kernel_is_replaced_and_restored():
    from toast.accelerator.kernel_registry import ImplementationType, registry

    toast_plugin.install()
    try:
        assert toast_plugin.installed()
        for name in toast_plugin.KERNELS:
            for impl in (ImplementationType.DEFAULT, ImplementationType.COMPILED):
                assert registry[name][impl].__name__ == f"rokkos_{name}"
            assert registry[name][ImplementationType.NUMPY].__name__ != f"rokkos_{name}"
        originals = dict(toast_plugin._saved)
    finally:
        toast_plugin.uninstall()
    assert not toast_plugin.installed()
    for (name, impl), fn in originals.items():
        assert registry[name][impl] is fn


def _nw_problem():
    from toast.intervals import interval_dtype

    rng = np.random.default_rng(3)
    det = rng.normal(size=(2, 50))
    iv = np.zeros(2, dtype=interval_dtype).view(np.recarray)
    iv.first = [0, 20]
    iv.last = [10, 50]
    return det, np.array([0, 1], dtype=np.int32), iv, np.array([2.0, -0.5])


def test_dispatch_counts_calls_and_matches_toast():
    from toast.accelerator import ImplementationType
    from toast.ops.noise_weight.kernels import noise_weight

    det, idx, iv, w = _nw_problem()
    expect = det.copy()
    noise_weight(expect, idx, iv, w, impl=ImplementationType.DEFAULT)
    toast_plugin.install()
    try:
        toast_plugin.reset_counts()
        for impl in (ImplementationType.DEFAULT, ImplementationType.COMPILED):
            got = det.copy()
            noise_weight(got, idx, iv, w, impl=impl)
            np.testing.assert_array_equal(got, expect)
        assert toast_plugin.calls() == {"noise_weight": 2}
    finally:
        toast_plugin.uninstall()


def test_offset_apply_diag_precond_dispatch_matches_toast():
    # No TOAST test module cheap enough for CI reaches this kernel (ops_mapmaker does).
    from toast.accelerator import ImplementationType
    from toast.templates.offset.kernels import offset_apply_diag_precond

    rng = np.random.default_rng(7)
    var = rng.random(30)
    amps = rng.normal(size=30)
    flags = (rng.random(30) < 0.3).astype(np.uint8)
    expect = np.full(30, 9.0)
    offset_apply_diag_precond(var, amps, flags, expect, impl=ImplementationType.DEFAULT)
    toast_plugin.install()
    try:
        toast_plugin.reset_counts()
        got = np.full(30, 9.0)
        offset_apply_diag_precond(var, amps, flags, got, impl=ImplementationType.COMPILED)
        np.testing.assert_array_equal(got, expect)
        assert toast_plugin.calls() == {"offset_apply_diag_precond": 1}
    finally:
        toast_plugin.uninstall()


def test_use_accel_falls_back_to_toast(monkeypatch):
    from toast.accelerator import ImplementationType
    from toast.accelerator.kernel_registry import registry
    from toast.ops.noise_weight.kernels import noise_weight

    det, idx, iv, w = _nw_problem()
    seen = []
    toast_plugin.install()
    try:
        toast_plugin.reset_counts()
        # Stand in for TOAST's own (saved) implementation: its accelerator path is not built
        # here, so record that the call reached it instead of running it.
        key = ("noise_weight", ImplementationType.DEFAULT)
        monkeypatch.setitem(toast_plugin._saved, key, lambda *a, use_accel: seen.append(use_accel))
        before = det.copy()
        noise_weight(det, idx, iv, w, impl=ImplementationType.DEFAULT, use_accel=True)
        assert seen == [True]
        np.testing.assert_array_equal(det, before)
        assert toast_plugin.fallbacks() == {"noise_weight": 1}
        assert toast_plugin.calls() == {}
    finally:
        monkeypatch.undo()
        toast_plugin.uninstall()
    assert registry["noise_weight"][ImplementationType.DEFAULT].__name__ != "rokkos_noise_weight"


def test_refused_arguments_raise_instead_of_falling_back():
    from toast.accelerator import ImplementationType
    from toast.ops.noise_weight.kernels import noise_weight

    det, idx, iv, w = _nw_problem()
    toast_plugin.install()
    try:
        toast_plugin.reset_counts()
        with pytest.raises(TypeError, match="det_data"):
            noise_weight(det.astype(np.float32), idx, iv, w, impl=ImplementationType.DEFAULT)
        ro = det.copy()
        ro.flags.writeable = False
        with pytest.raises(ValueError, match="det_data"):
            noise_weight(ro, idx, iv, w, impl=ImplementationType.DEFAULT)
        assert toast_plugin.fallbacks() == {}
        assert toast_plugin.calls() == {}
    finally:
        toast_plugin.uninstall()


def test_read_only_inputs_and_buffer_objects_are_lent():
    """TOAST's shared boresight and flags are read-only arrays, and its pixel distribution's
    global-to-local table is an AlignedI64 (buffer protocol): both are accepted as inputs."""
    import rokkos_toast as rt
    import toast._libtoast as lt
    from toast._libtoast import AlignedI64
    from toast.intervals import interval_dtype

    rng = np.random.default_rng(5)
    n_samp = 40
    fp = rng.normal(size=(2, 4))
    fp /= np.linalg.norm(fp, axis=1)[:, None]
    bore = rng.normal(size=(n_samp, 4))
    bore /= np.linalg.norm(bore, axis=1)[:, None]
    bore.flags.writeable = False
    flags = (rng.random(n_samp) < 0.2).astype(np.uint8)
    flags.flags.writeable = False
    iv = np.zeros(1, dtype=interval_dtype).view(np.recarray)
    iv.first, iv.last = 0, n_samp
    qi = np.array([0, 1], dtype=np.int32)
    got = np.zeros((2, n_samp, 4))
    expect = np.zeros((2, n_samp, 4))
    rt.pointing_detector(fp, bore, qi, got, iv, flags, 1)
    lt.pointing_detector(fp, bore, qi, expect, iv, flags, 1, False)
    np.testing.assert_array_equal(got, expect)

    g2l = AlignedI64(3)
    # Submap 2 is not local; no pixel falls in it (TOAST reads out of bounds there).
    g2l[:] = np.array([1, 0, -1], dtype=np.int64)
    mapdata = rng.normal(size=(2, 4, 1))
    pixels = rng.integers(-1, 8, size=(1, n_samp)).astype(np.int64)
    weights = np.ones((1, n_samp))
    det_got = np.zeros((1, n_samp))
    det_exp = np.zeros((1, n_samp))
    i0 = np.array([0], dtype=np.int32)
    rt.scan_map(g2l, 4, mapdata, det_got, i0, pixels, i0, weights, i0, iv, 1.0, False, False,
                False)
    lt.ops_scan_map_float64(g2l, 4, mapdata, det_exp, i0, pixels, i0,
                            weights.reshape(1, n_samp, 1), i0, iv, 1.0, False, False, False,
                            False)
    np.testing.assert_array_equal(det_got, det_exp)
    # An output still has to be writeable.
    ro = np.zeros((2, n_samp, 4))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="quats"):
        rt.pointing_detector(fp, bore, qi, ro, iv, flags, 1)
