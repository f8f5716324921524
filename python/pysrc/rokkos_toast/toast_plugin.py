"""Make TOAST 3 run its operators' kernels on rokkos.

TOAST 3.0.6 dispatches every kernel through ``toast.accelerator.kernel_registry.registry``:
``registry[name][impl]`` is looked up at *each call* by the dispatch function that the
operators import, so replacing an entry there reroutes every operator, whichever module
imported the kernel. On the CPU, ``Operator.select_kernels`` picks
``ImplementationType.DEFAULT`` (with ``use_accel=False``), and TOAST's DEFAULT implementations
of these kernels are thin calls of ``toast._libtoast``; ``COMPILED`` calls ``_libtoast`` too.
``install()`` replaces both entries of each kernel in :data:`KERNELS`; NUMPY and JAX are left
alone (an operator asked for them runs TOAST's own Python).

What is not handed to rokkos:

* ``use_accel=True`` (the data live on TOAST's accelerator, OpenMP target offload): the call
  goes to the TOAST implementation that was registered before ``install()``, and is counted
  in :func:`fallbacks`.
* Nothing else falls back: arguments rokkos_toast refuses (a wrong dtype, a non-contiguous
  array, a shape that does not match) raise its ``TypeError``/``ValueError`` naming the
  argument, so a call never silently computes something else.

>>> from rokkos_toast import toast_plugin
>>> sorted(toast_plugin.KERNELS)[:2]
['build_noise_weighted', 'noise_weight']
>>> toast_plugin.installed()
False
"""

import threading

import numpy as np

from . import _rokkos_toast as _native

#: TOAST 3.0.6 kernel-registry name -> the rokkos_toast function that replaces it.
KERNELS = {
    "pointing_detector": "pointing_detector",
    "pixels_healpix": "pixels_healpix",
    "stokes_weights_I": "stokes_weights_I",
    "stokes_weights_IQU": "stokes_weights_IQU",
    "noise_weight": "noise_weight",
    "scan_map": "scan_map",
    "build_noise_weighted": "build_noise_weighted",
    "offset_add_to_signal": "template_offset_add_to_signal",
    "offset_project_signal": "template_offset_project_signal",
    "offset_apply_diag_precond": "template_offset_apply_diag_precond",
}

#: The names of TOAST's ImplementationType members that are replaced (both call _libtoast).
REPLACED_IMPLEMENTATIONS = ("DEFAULT", "COMPILED")

_lock = threading.Lock()
# (kernel name, ImplementationType) -> TOAST's registered function, while installed.
_saved = {}
_calls = {}
_fallbacks = {}


def _count(table, name):
    with _lock:
        table[name] = table.get(name, 0) + 1


def _default_build_noise_weighted(args):
    # TOAST's DEFAULT build_noise_weighted passes det_data.astype(np.float64) to _libtoast (a
    # float32 timestream is accumulated in double); keep that, copying only when needed.
    det_data = args[7]
    if isinstance(det_data, np.ndarray) and det_data.dtype != np.float64:
        args = list(args)
        args[7] = det_data.astype(np.float64)
    return args


# Per-(kernel, implementation) rewrites of TOAST's arguments that its own Python wrapper makes
# before calling _libtoast.
_ADAPT = {("build_noise_weighted", "DEFAULT"): _default_build_noise_weighted}


def _make(name, impl):
    native = getattr(_native, KERNELS[name])
    adapt = _ADAPT.get((name, impl.name))

    def kernel(*args, use_accel=False, **kwargs):
        if use_accel:
            # The arrays are on TOAST's accelerator: only TOAST's kernel can use them.
            _count(_fallbacks, name)
            return _saved[(name, impl)](*args, use_accel=use_accel, **kwargs)
        if adapt is not None:
            args = adapt(args)
        result = native(*args, **kwargs)
        _count(_calls, name)
        return result

    kernel.__name__ = f"rokkos_{name}"
    kernel.__qualname__ = kernel.__name__
    kernel.__doc__ = f"TOAST's {name} ({impl.name}) run by rokkos_toast.{KERNELS[name]}."
    return kernel


def _registry():
    # Importing the operator and template packages registers every kernel of KERNELS.
    import toast.ops  # noqa: F401
    import toast.templates  # noqa: F401
    from toast.accelerator.kernel_registry import ImplementationType, registry

    missing = [k for k in KERNELS if k not in registry]
    if missing:
        raise RuntimeError(
            f"this TOAST registers no kernel named {missing}: rokkos_toast follows TOAST 3.0.6"
        )
    impls = [ImplementationType[i] for i in REPLACED_IMPLEMENTATIONS]
    return registry, impls


def install(backend=None):
    """Routes TOAST's DEFAULT and COMPILED implementations of :data:`KERNELS` to rokkos.

    ``backend`` ("serial" or "rayon"), when given, is passed to ``set_backend``. Installing
    twice is harmless; :func:`uninstall` restores TOAST's own functions.
    """
    if backend is not None:
        _native.set_backend(backend)
    from toast.timing import function_timer

    registry, impls = _registry()
    with _lock:
        if _saved:
            return
        for name in KERNELS:
            for impl in impls:
                if impl not in registry[name]:
                    raise RuntimeError(f"TOAST has no {impl.name} implementation of {name}")
        for name in KERNELS:
            for impl in impls:
                _saved[(name, impl)] = registry[name][impl]
                # TOAST times every registered kernel; its timer reports keep working.
                registry[name][impl] = function_timer(_make(name, impl))


def uninstall():
    """Puts TOAST's own kernel functions back in its registry."""
    if not _saved:
        return
    from toast.accelerator.kernel_registry import registry

    with _lock:
        for (name, impl), toast_fn in _saved.items():
            registry[name][impl] = toast_fn
        _saved.clear()


def installed():
    """Whether TOAST's registry currently routes the kernels to rokkos."""
    return bool(_saved)


def calls():
    """Calls that rokkos completed since the last :func:`reset_counts`, per TOAST kernel name
    (a call that rokkos_toast refused with an error is not counted)."""
    with _lock:
        return dict(_calls)


def fallbacks():
    """Calls handed back to TOAST's own implementation (``use_accel=True``), per kernel."""
    with _lock:
        return dict(_fallbacks)


def reset_counts():
    """Sets :func:`calls` and :func:`fallbacks` back to empty."""
    with _lock:
        _calls.clear()
        _fallbacks.clear()
