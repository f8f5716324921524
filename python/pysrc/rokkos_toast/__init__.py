"""TOAST 3's compiled kernels, run by rokkos.

Each kernel has the name, arguments and argument order of its ``toast._libtoast`` twin and
takes the NumPy arrays without copying them on the host backends;
``set_backend("serial" | "rayon" | "wgpu")`` (or the ``ROKKOS_BACKEND`` variable) chooses where
they run (``backends()`` lists what this build has; on wgpu the arrays are copied to the device
and the outputs back). ``rokkos_toast.toast_plugin.install()``
makes TOAST's own operators call them.

>>> import rokkos_toast
>>> rokkos_toast.get_backend() in ("serial", "rayon")
True
"""

from ._rokkos_toast import (
    backends,
    build_noise_weighted,
    get_backend,
    noise_weight,
    pixels_healpix,
    pointing_detector,
    scan_map,
    set_backend,
    stokes_weights_I,
    stokes_weights_IQU,
    template_offset_add_to_signal,
    template_offset_apply_diag_precond,
    template_offset_project_signal,
)

__all__ = [
    "backends",
    "build_noise_weighted",
    "get_backend",
    "noise_weight",
    "pixels_healpix",
    "pointing_detector",
    "scan_map",
    "set_backend",
    "stokes_weights_I",
    "stokes_weights_IQU",
    "template_offset_add_to_signal",
    "template_offset_apply_diag_precond",
    "template_offset_project_signal",
]
