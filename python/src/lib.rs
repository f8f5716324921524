//! `rokkos_toast`: TOAST 3's compiled kernels from Python, run by rokkos (issue 34 item 2;
//! the TOAST plug-in of item 3 is the Python module `rokkos_toast.toast_plugin`, pysrc/).
//!
//! Each function has the name, the arguments and their order of its `toast._libtoast` twin
//! (`use_accel` last, accepted and ignored: the backend decides where a kernel runs). NumPy
//! arrays are lent to the kernel **without a copy**: the large arrays (quaternions, weights,
//! pixels, timestreams, maps, amplitudes) become host Views over the array's own memory for
//! the call, after their dtype (`TypeError`), number of dimensions, C-contiguity and, for the
//! arrays a kernel writes, writability (`ValueError`) are checked (inputs may be read-only);
//! the per-detector index arrays and the intervals (a few numbers per detector or interval)
//! are copied. The GIL is released while a kernel runs.
//!
//! `set_backend("serial" | "rayon" | "wgpu")` (or the `ROKKOS_BACKEND` variable, read at import)
//! chooses the backend; rayon is the default. On wgpu (a build with the `wgpu` feature, the
//! default) the arrays are copied to the device for the call and the outputs copied back into
//! the same NumPy arrays: the zero-copy lending is the host backends'.

// The one `unsafe` of this crate: a NumPy array's buffer lent as a View for one call.
#![deny(unsafe_op_in_unsafe_fn)]

use numpy::{Element, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyAny;
#[cfg(feature = "wgpu")]
use rokkos::{create_mirror_view_and_copy_in, deep_copy};
use rokkos::{ExecutionSpace, Pod, View};
use std::sync::Mutex;
use toast_kernels::kernels::{self, toast3, Design, Intervals, RowIndex};
use toast_kernels::Interval;

/// The backend the kernels run on.
#[derive(Clone)]
enum Backend {
    Serial,
    Rayon(rokkos::Rayon),
    /// A GPU backend through rokkos' run-time `Device` (its name kept for `get_backend`).
    #[cfg(feature = "wgpu")]
    Device(rokkos::Device, &'static str),
}

static BACKEND: Mutex<Option<Backend>> = Mutex::new(None);

fn backend_named(name: &str) -> PyResult<Backend> {
    match name {
        "serial" => Ok(Backend::Serial),
        "rayon" => Ok(Backend::Rayon(rokkos::Rayon::new())),
        #[cfg(feature = "wgpu")]
        "wgpu" => rokkos::Device::with_backend("wgpu")
            .map(|d| Backend::Device(d, "wgpu"))
            .map_err(rokkos_err),
        other => Err(PyValueError::new_err(format!(
            "unknown backend {other:?}: this build has {}",
            BACKENDS.join(", ")
        ))),
    }
}

fn current() -> PyResult<Backend> {
    let mut b = BACKEND
        .lock()
        .map_err(|_| PyRuntimeError::new_err("backend lock poisoned"))?;
    if b.is_none() {
        let name = std::env::var("ROKKOS_BACKEND").unwrap_or_else(|_| "rayon".to_string());
        *b = Some(backend_named(&name)?);
    }
    Ok(b.clone().expect("set above"))
}

/// The backends this build has (whether a GPU backend has a device here is known only when it
/// is chosen).
const BACKENDS: &[&str] = &[
    "serial",
    "rayon",
    #[cfg(feature = "wgpu")]
    "wgpu",
];

/// The backends this build of the extension has: `["serial", "rayon", "wgpu"]` (wgpu only in a
/// build with the `wgpu` feature, the default).
#[pyfunction]
fn backends() -> Vec<&'static str> {
    BACKENDS.to_vec()
}

/// Chooses the backend of every later call: "serial", "rayon" or "wgpu". `ValueError` for a
/// name this build does not have, `RuntimeError` when the backend has no device here.
#[pyfunction]
fn set_backend(name: &str) -> PyResult<()> {
    let b = backend_named(name)?;
    *BACKEND
        .lock()
        .map_err(|_| PyRuntimeError::new_err("backend lock poisoned"))? = Some(b);
    Ok(())
}

/// The name of the backend the kernels run on.
#[pyfunction]
fn get_backend() -> PyResult<&'static str> {
    Ok(match current()? {
        Backend::Serial => "serial",
        Backend::Rayon(_) => "rayon",
        #[cfg(feature = "wgpu")]
        Backend::Device(_, name) => name,
    })
}

fn rokkos_err(e: rokkos::Error) -> PyErr {
    match e {
        rokkos::Error::InvalidArgument(_) | rokkos::Error::ShapeMismatch { .. } => {
            PyValueError::new_err(e.to_string())
        }
        other => PyRuntimeError::new_err(other.to_string()),
    }
}

/// A NumPy array lent to one kernel call as a host View over its memory. Holding the
/// `PyReadwriteArray` keeps NumPy's borrow flag set (the same array cannot be lent twice, and
/// Python code that respects the flag cannot take it meanwhile) and the array alive.
struct Lent<'py, T: Element + Pod, const R: usize> {
    view: Option<View<T, R>>,
    guard: Guard<'py, T>,
}

/// NumPy's borrow of a lent array: exclusive for an array the kernel writes, shared for one it
/// only reads (which may then be read-only, as TOAST's shared-memory boresight and flags are).
enum Guard<'py, T: Element> {
    Write(numpy::PyReadwriteArrayDyn<'py, T>),
    Read(numpy::PyReadonlyArrayDyn<'py, T>),
}

impl<'py, T: Element> Guard<'py, T> {
    fn array(&self) -> &Bound<'py, PyArrayDyn<T>> {
        match self {
            Guard::Write(g) => g,
            Guard::Read(g) => g,
        }
    }
}

impl<'py, T: Element + Pod, const R: usize> Lent<'py, T, R> {
    /// An array the kernel writes: it must be writeable and not lent elsewhere in the call.
    fn new(name: &str, obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        Self::lend(name, obj, true)
    }

    /// An array the kernel only reads: read-only arrays are accepted, and the same array may be
    /// lent as several inputs of one call.
    fn input(name: &str, obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        Self::lend(name, obj, false)
    }

    fn lend(name: &str, obj: &Bound<'py, PyAny>, write: bool) -> PyResult<Self> {
        let obj = &as_ndarray(obj)?;
        let arr = obj.downcast::<PyArrayDyn<T>>().map_err(|_| {
            let got = obj
                .getattr("dtype")
                .map(|d| d.to_string())
                .unwrap_or_else(|_| obj.get_type().to_string());
            PyTypeError::new_err(format!(
                "{name} must be a numpy array of dtype {}, got {got}",
                numpy::dtype::<T>(obj.py())
            ))
        })?;
        if arr.ndim() != R {
            return Err(PyValueError::new_err(format!(
                "{name} must have {R} dimensions, got shape {:?}",
                arr.shape()
            )));
        }
        if !arr.is_c_contiguous() {
            return Err(PyValueError::new_err(format!(
                "{name} must be C-contiguous"
            )));
        }
        // A misaligned buffer (a view of a packed record array, say) cannot be lent as `&[T]`.
        if !(arr.data() as usize).is_multiple_of(std::mem::align_of::<T>()) {
            return Err(PyValueError::new_err(format!(
                "{name} must be aligned to its dtype ({} bytes); copy it with numpy.ascontiguousarray",
                std::mem::align_of::<T>()
            )));
        }
        let guard = if write {
            Guard::Write(arr.try_readwrite().map_err(|e| {
                PyValueError::new_err(format!(
                    "{name} must be a writeable array not lent elsewhere in this call ({e})"
                ))
            })?)
        } else {
            Guard::Read(arr.try_readonly().map_err(|e| {
                PyValueError::new_err(format!(
                    "{name} must not be lent for writing elsewhere in this call ({e})"
                ))
            })?)
        };
        let mut extents = [0usize; R];
        extents.copy_from_slice(arr.shape());
        let len = arr.len();
        // SAFETY (both slices): the slice covers the array's `len` contiguous elements (checked
        // C-contiguous and aligned, of dtype `T`), and the guard, held until after the View is
        // dropped (`drop`), keeps the array alive and its borrow flag set. The 'static lifetime
        // is never observed: the View is dropped before the guard, or, if a handle to it outlived
        // the call, the array is kept alive forever instead (`drop`). An output (`write`) is
        // lent exclusively (NumPy's writeable borrow), so a `&mut` is right for it; an input (a
        // shared borrow, possibly of read-only memory) is lent as a shared slice to a read-only
        // View, which refuses every write (a kernel taking it as a writable parameter included).
        let view = if write {
            let data: &'static mut [T] = unsafe {
                if len == 0 {
                    &mut []
                } else {
                    std::slice::from_raw_parts_mut(arr.data(), len)
                }
            };
            View::unmanaged(name, data, extents)
        } else {
            let data: &'static [T] = unsafe {
                if len == 0 {
                    &[]
                } else {
                    std::slice::from_raw_parts(arr.data() as *const T, len)
                }
            };
            View::unmanaged_read_only(name, data, extents)
        }
        .map_err(rokkos_err)?;
        Ok(Lent {
            view: Some(view),
            guard,
        })
    }

    fn view(&self) -> &View<T, R> {
        self.view.as_ref().expect("present until finish")
    }
}

impl<T: Element + Pod, const R: usize> Drop for Lent<'_, T, R> {
    fn drop(&mut self) {
        if let Some(v) = self.view.take() {
            if v.use_count() != 1 {
                // Something kept a handle to the View: the memory must then outlive it.
                let keep: Py<PyAny> = self.guard.array().as_any().clone().unbind();
                std::mem::forget(keep);
                std::mem::forget(v);
            }
        }
    }
}

/// `obj` itself when it is a NumPy array; otherwise, for an object with the buffer protocol
/// (TOAST's `AlignedI64`/`AlignedF64`, a `memoryview`), a NumPy array over the same memory
/// (`numpy.asarray(memoryview(obj))`: no copy, read-only if the buffer is). Anything else
/// (a list, say) is returned unchanged and refused by the caller's dtype check: converting
/// it would write an output into a temporary.
fn as_ndarray<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    if obj.is_instance_of::<numpy::PyUntypedArray>() {
        return Ok(obj.clone());
    }
    match pyo3::types::PyMemoryView::from(obj) {
        Ok(view) => py.import("numpy")?.call_method1("asarray", (view,)),
        Err(_) => Ok(obj.clone()),
    }
}

/// A small array (indices, per-detector parameters) copied into a Vec.
fn small<T: Element + Pod>(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<T>> {
    let obj = &as_ndarray(obj)?;
    let arr = obj.downcast::<PyArrayDyn<T>>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name} must be a numpy array of dtype {}",
            numpy::dtype::<T>(obj.py())
        ))
    })?;
    Ok(arr
        .try_readonly()
        .map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?
        .as_array()
        .iter()
        .copied()
        .collect())
}

/// TOAST 3's intervals: a NumPy array of `toast.intervals.interval_dtype` (fields `first`
/// and `last` are read; half-open).
fn intervals(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Interval>> {
    let field = |f: &str| -> PyResult<Vec<i64>> {
        let a = obj.get_item(f).map_err(|_| {
            PyTypeError::new_err("intervals must be an array of toast.intervals.interval_dtype")
        })?;
        let a = a
            .downcast::<numpy::PyArray1<i64>>()
            .map_err(|_| PyTypeError::new_err(format!("intervals[{f:?}] must be int64")))?;
        Ok(a.readonly().as_array().iter().copied().collect())
    };
    let (first, last) = (field("first")?, field("last")?);
    Ok(first
        .iter()
        .zip(&last)
        .map(|(&f, &l)| Interval::samples(f, l))
        .collect())
}

/// The loop design of every call: a team per (detector, interval) needs no memory of the
/// samples' size (the flattened design keeps a sample map of 4 bytes per sample).
const DESIGN: Design = Design::Team;

/// Runs `$body` (a `rokkos::Result<()>` expression using the space `$s`) on the chosen backend
/// with the GIL released. A macro, not a closure: the body is generic over the space. `[$i]`
/// names the lent Views the kernel only reads, `[$o]` those it writes: the host backends use
/// them in place; a GPU backend gets copies of both in its memory (the outputs copied in too, as
/// kernels accumulate into them), under the same names, and the outputs are copied back after
/// the body.
macro_rules! run_on {
    ($py:expr, [$($i:ident),*], [$($o:ident),*], |$s:ident| $body:expr) => {{
        let b = current()?;
        $py.allow_threads(|| -> rokkos::Result<()> {
            match &b {
                Backend::Serial => {
                    let $s = &rokkos::Serial;
                    $body
                }
                Backend::Rayon(r) => {
                    let $s = r;
                    $body
                }
                #[cfg(feature = "wgpu")]
                Backend::Device(d, _) => {
                    let $s = d;
                    let mut back: Vec<Box<dyn FnOnce() -> rokkos::Result<()>>> = Vec::new();
                    $(let $i = &create_mirror_view_and_copy_in($s, $i)?;)*
                    $(
                        let $o = {
                            let (host, dev) = ($o.clone(), create_mirror_view_and_copy_in($s, $o)?);
                            let d = dev.clone();
                            back.push(Box::new(move || deep_copy(&host, &d)));
                            dev
                        };
                        let $o = &$o;
                    )*
                    $body?;
                    back.into_iter().try_for_each(|f| f())
                }
            }
        })
        .map_err(rokkos_err)
    }};
}

fn up<E: ExecutionSpace, T: Pod>(
    s: &E,
    v: &[T],
) -> rokkos::Result<View<T, 1, rokkos::LayoutRight, E::Memory>> {
    kernels::upload(s, "parameter", [v.len()], v.to_vec())
}

fn rows<E: ExecutionSpace>(s: &E, v: &[i32]) -> rokkos::Result<RowIndex<E>> {
    kernels::row_index(s, v)
}

/// TOAST's weights: `[n][n_samp][nnz]`, or `[n][n_samp]` when nnz = 1 (lent as nnz 1: a NumPy
/// reshape of a contiguous array is a view, no copy).
fn weights<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Lent<'py, f64, 3>> {
    let ndim: usize = obj.getattr("ndim").and_then(|n| n.extract()).unwrap_or(0);
    if ndim == 2 {
        let contiguous: bool = obj.getattr("flags")?.get_item("C_CONTIGUOUS")?.extract()?;
        if !contiguous {
            return Err(PyValueError::new_err("weights must be C-contiguous"));
        }
        let shape: (usize, usize) = obj.getattr("shape")?.extract()?;
        // A contiguous array reshapes to a view of its own memory.
        let r = obj.call_method1("reshape", (shape.0, shape.1, 1))?;
        return Lent::input("weights", &r);
    }
    Lent::input("weights", obj)
}

/// `stokes_weights_IQU(quat_index, quats, weight_index, weights, hwp, intervals, epsilon,
/// gamma, cal, IAU, use_accel)`, as `toast._libtoast.stokes_weights_IQU`.
#[pyfunction]
#[pyo3(name = "stokes_weights_IQU", signature = (quat_index, quats, weight_index, weights, hwp, intervals, epsilon, gamma, cal, IAU, use_accel=false))]
#[allow(clippy::too_many_arguments, non_snake_case)]
fn stokes_weights_iqu(
    py: Python<'_>,
    quat_index: &Bound<'_, PyAny>,
    quats: &Bound<'_, PyAny>,
    weight_index: &Bound<'_, PyAny>,
    weights: &Bound<'_, PyAny>,
    hwp: &Bound<'_, PyAny>,
    intervals: &Bound<'_, PyAny>,
    epsilon: &Bound<'_, PyAny>,
    gamma: &Bound<'_, PyAny>,
    cal: &Bound<'_, PyAny>,
    IAU: bool,
    use_accel: bool,
) -> PyResult<()> {
    let _ = use_accel;
    let qi = small::<i32>("quat_index", quat_index)?;
    let wi = small::<i32>("weight_index", weight_index)?;
    let iv = self::intervals(intervals)?;
    let eps = small::<f64>("epsilon", epsilon)?;
    let gam = small::<f64>("gamma", gamma)?;
    let c = small::<f64>("cal", cal)?;
    let quats = Lent::<f64, 3>::input("quats", quats)?;
    let weights = Lent::<f64, 3>::new("weights", weights)?;
    let hwp = Lent::<f64, 1>::input("hwp", hwp)?;
    let (qv, wv, hv) = (quats.view(), weights.view(), hwp.view());
    run_on!(py, [qv, hv], [wv], |s| toast3::StokesWeightsIqu {
        quat_index: &rows(s, &qi)?,
        quats: qv,
        weight_index: &rows(s, &wi)?,
        weights: wv,
        hwp: hv,
        intervals: &Intervals::half_open(s, &iv)?,
        epsilon: &up(s, &eps)?,
        gamma: &up(s, &gam)?,
        cal: &up(s, &c)?,
        iau: IAU,
    }
    .run(s, DESIGN))
}

/// `stokes_weights_I(weight_index, weights, intervals, cal, use_accel)`.
#[pyfunction]
#[pyo3(name = "stokes_weights_I", signature = (weight_index, weights, intervals, cal, use_accel=false))]
fn stokes_weights_i(
    py: Python<'_>,
    weight_index: &Bound<'_, PyAny>,
    weights: &Bound<'_, PyAny>,
    intervals: &Bound<'_, PyAny>,
    cal: &Bound<'_, PyAny>,
    use_accel: bool,
) -> PyResult<()> {
    let _ = use_accel;
    let wi = small::<i32>("weight_index", weight_index)?;
    let iv = self::intervals(intervals)?;
    let c = small::<f64>("cal", cal)?;
    let weights = Lent::<f64, 2>::new("weights", weights)?;
    let wv = weights.view();
    run_on!(py, [], [wv], |s| toast3::StokesWeightsI {
        weight_index: &rows(s, &wi)?,
        weights: wv,
        intervals: &Intervals::half_open(s, &iv)?,
        cal: &up(s, &c)?,
    }
    .run(s, DESIGN))
}

/// `pointing_detector(focalplane, boresight, quat_index, quats, intervals, shared_flags,
/// shared_flag_mask, use_accel)`.
#[pyfunction]
#[pyo3(signature = (focalplane, boresight, quat_index, quats, intervals, shared_flags, shared_flag_mask, use_accel=false))]
#[allow(clippy::too_many_arguments)]
fn pointing_detector(
    py: Python<'_>,
    focalplane: &Bound<'_, PyAny>,
    boresight: &Bound<'_, PyAny>,
    quat_index: &Bound<'_, PyAny>,
    quats: &Bound<'_, PyAny>,
    intervals: &Bound<'_, PyAny>,
    shared_flags: &Bound<'_, PyAny>,
    shared_flag_mask: u8,
    use_accel: bool,
) -> PyResult<()> {
    let _ = use_accel;
    let fp = Lent::<f64, 2>::input("focalplane", focalplane)?;
    let bore = Lent::<f64, 2>::input("boresight", boresight)?;
    let qi = small::<i32>("quat_index", quat_index)?;
    let quats = Lent::<f64, 3>::new("quats", quats)?;
    let iv = self::intervals(intervals)?;
    let flags = Lent::<u8, 1>::input("shared_flags", shared_flags)?;
    let (fv, bv, qv, sv) = (fp.view(), bore.view(), quats.view(), flags.view());
    run_on!(py, [fv, bv, sv], [qv], |s| kernels::PointingDetector {
        focalplane: fv,
        boresight: bv,
        quat_index: &rows(s, &qi)?,
        quats: qv,
        intervals: &Intervals::half_open(s, &iv)?,
        shared_flags: sv,
        shared_flag_mask,
    }
    .run(s, DESIGN))
}

/// `pixels_healpix(quat_index, quats, shared_flags, shared_flag_mask, pixel_index, pixels,
/// intervals, hit_submaps, n_pix_submap, nside, nest, use_accel)`.
#[pyfunction]
#[pyo3(signature = (quat_index, quats, shared_flags, shared_flag_mask, pixel_index, pixels, intervals, hit_submaps, n_pix_submap, nside, nest, use_accel=false))]
#[allow(clippy::too_many_arguments)]
fn pixels_healpix(
    py: Python<'_>,
    quat_index: &Bound<'_, PyAny>,
    quats: &Bound<'_, PyAny>,
    shared_flags: &Bound<'_, PyAny>,
    shared_flag_mask: u8,
    pixel_index: &Bound<'_, PyAny>,
    pixels: &Bound<'_, PyAny>,
    intervals: &Bound<'_, PyAny>,
    hit_submaps: &Bound<'_, PyAny>,
    n_pix_submap: i64,
    nside: i64,
    nest: bool,
    use_accel: bool,
) -> PyResult<()> {
    let _ = use_accel;
    let qi = small::<i32>("quat_index", quat_index)?;
    let pi = small::<i32>("pixel_index", pixel_index)?;
    let iv = self::intervals(intervals)?;
    let quats = Lent::<f64, 3>::input("quats", quats)?;
    let flags = Lent::<u8, 1>::input("shared_flags", shared_flags)?;
    let pixels = Lent::<i64, 2>::new("pixels", pixels)?;
    let hits = Lent::<u8, 1>::new("hit_submaps", hit_submaps)?;
    let (qv, fv, pv, hv) = (quats.view(), flags.view(), pixels.view(), hits.view());
    run_on!(py, [qv, fv], [pv, hv], |s| kernels::PixelsHealpix {
        quat_index: &rows(s, &qi)?,
        quats: qv,
        shared_flags: fv,
        shared_flag_mask,
        pixel_index: &rows(s, &pi)?,
        pixels: pv,
        intervals: &Intervals::half_open(s, &iv)?,
        hit_submaps: hv,
        n_pix_submap,
        nside,
        nest,
    }
    .run(s, DESIGN))
}

/// `noise_weight(det_data, det_data_index, intervals, detector_weights, use_accel)`.
#[pyfunction]
#[pyo3(signature = (det_data, det_data_index, intervals, detector_weights, use_accel=false))]
fn noise_weight(
    py: Python<'_>,
    det_data: &Bound<'_, PyAny>,
    det_data_index: &Bound<'_, PyAny>,
    intervals: &Bound<'_, PyAny>,
    detector_weights: &Bound<'_, PyAny>,
    use_accel: bool,
) -> PyResult<()> {
    let _ = use_accel;
    let di = small::<i32>("det_data_index", det_data_index)?;
    let iv = self::intervals(intervals)?;
    let w = small::<f64>("detector_weights", detector_weights)?;
    let det = Lent::<f64, 2>::new("det_data", det_data)?;
    let dv = det.view();
    run_on!(py, [], [dv], |s| kernels::NoiseWeight {
        det_data: dv,
        data_index: &rows(s, &di)?,
        intervals: &Intervals::half_open(s, &iv)?,
        detector_weights: &up(s, &w)?,
    }
    .run(s, DESIGN))
}

/// scan_map with the map's element type `T`.
#[allow(clippy::too_many_arguments)]
fn scan_map_of<T: Element + Pod + toast3::MapElement>(
    py: Python<'_>,
    g2l: Vec<i64>,
    n_pix_submap: i64,
    mapdata: &Bound<'_, PyAny>,
    det: &Lent<'_, f64, 2>,
    di: Vec<i32>,
    pixels: &Lent<'_, i64, 2>,
    pi: Vec<i32>,
    weights: &Lent<'_, f64, 3>,
    wi: Vec<i32>,
    iv: Vec<Interval>,
    data_scale: f64,
    mode: (bool, bool, bool),
) -> PyResult<()> {
    let map = Lent::<T, 3>::input("mapdata", mapdata)?;
    let (mv, dv, pv, wv) = (map.view(), det.view(), pixels.view(), weights.view());
    run_on!(py, [mv, pv, wv], [dv], |s| toast3::ScanMap {
        global2local: &up(s, &g2l)?,
        n_pix_submap,
        mapdata: mv,
        det_data: dv,
        det_data_index: &rows(s, &di)?,
        pixels: pv,
        pixels_index: &rows(s, &pi)?,
        weights: wv,
        weight_index: &rows(s, &wi)?,
        intervals: &Intervals::half_open(s, &iv)?,
        data_scale,
        should_zero: mode.0,
        should_subtract: mode.1,
        should_scale: mode.2,
    }
    .run(s, DESIGN))
}

/// `scan_map(global2local, n_pix_submap, mapdata, det_data, det_data_index, pixels,
/// pixels_index, weights, weight_index, intervals, data_scale, should_zero, should_subtract,
/// should_scale, use_accel)`: one function for TOAST's `ops_scan_map_{float32, float64, int32,
/// int64}`, chosen by `mapdata`'s dtype.
#[pyfunction]
#[pyo3(signature = (global2local, n_pix_submap, mapdata, det_data, det_data_index, pixels, pixels_index, weights, weight_index, intervals, data_scale, should_zero, should_subtract, should_scale, use_accel=false))]
#[allow(clippy::too_many_arguments)]
fn scan_map(
    py: Python<'_>,
    global2local: &Bound<'_, PyAny>,
    n_pix_submap: i64,
    mapdata: &Bound<'_, PyAny>,
    det_data: &Bound<'_, PyAny>,
    det_data_index: &Bound<'_, PyAny>,
    pixels: &Bound<'_, PyAny>,
    pixels_index: &Bound<'_, PyAny>,
    weights: &Bound<'_, PyAny>,
    weight_index: &Bound<'_, PyAny>,
    intervals: &Bound<'_, PyAny>,
    data_scale: f64,
    should_zero: bool,
    should_subtract: bool,
    should_scale: bool,
    use_accel: bool,
) -> PyResult<()> {
    let _ = use_accel;
    let g2l = small::<i64>("global2local", global2local)?;
    let di = small::<i32>("det_data_index", det_data_index)?;
    let pi = small::<i32>("pixels_index", pixels_index)?;
    let wi = small::<i32>("weight_index", weight_index)?;
    let iv = self::intervals(intervals)?;
    let det = Lent::<f64, 2>::new("det_data", det_data)?;
    let pix = Lent::<i64, 2>::input("pixels", pixels)?;
    let w = self::weights(weights)?;
    let mode = (should_zero, should_subtract, should_scale);
    let dtype = mapdata
        .getattr("dtype")
        .map(|d| d.to_string())
        .unwrap_or_default();
    match dtype.as_str() {
        "float64" => scan_map_of::<f64>(
            py,
            g2l,
            n_pix_submap,
            mapdata,
            &det,
            di,
            &pix,
            pi,
            &w,
            wi,
            iv,
            data_scale,
            mode,
        ),
        "float32" => scan_map_of::<f32>(
            py,
            g2l,
            n_pix_submap,
            mapdata,
            &det,
            di,
            &pix,
            pi,
            &w,
            wi,
            iv,
            data_scale,
            mode,
        ),
        "int32" => scan_map_of::<i32>(
            py,
            g2l,
            n_pix_submap,
            mapdata,
            &det,
            di,
            &pix,
            pi,
            &w,
            wi,
            iv,
            data_scale,
            mode,
        ),
        "int64" => scan_map_of::<i64>(
            py,
            g2l,
            n_pix_submap,
            mapdata,
            &det,
            di,
            &pix,
            pi,
            &w,
            wi,
            iv,
            data_scale,
            mode,
        ),
        other => Err(PyTypeError::new_err(format!(
            "mapdata must be a numpy array of float32, float64, int32 or int64, got {other:?}"
        ))),
    }
}

/// `build_noise_weighted(global2local, zmap, pixel_index, pixels, weight_index, weights,
/// data_index, det_data, flag_index, det_flags, det_scale, det_flag_mask, intervals,
/// shared_flags, shared_flag_mask, use_accel)`.
#[pyfunction]
#[pyo3(signature = (global2local, zmap, pixel_index, pixels, weight_index, weights, data_index, det_data, flag_index, det_flags, det_scale, det_flag_mask, intervals, shared_flags, shared_flag_mask, use_accel=false))]
#[allow(clippy::too_many_arguments)]
fn build_noise_weighted(
    py: Python<'_>,
    global2local: &Bound<'_, PyAny>,
    zmap: &Bound<'_, PyAny>,
    pixel_index: &Bound<'_, PyAny>,
    pixels: &Bound<'_, PyAny>,
    weight_index: &Bound<'_, PyAny>,
    weights: &Bound<'_, PyAny>,
    data_index: &Bound<'_, PyAny>,
    det_data: &Bound<'_, PyAny>,
    flag_index: &Bound<'_, PyAny>,
    det_flags: &Bound<'_, PyAny>,
    det_scale: &Bound<'_, PyAny>,
    det_flag_mask: u8,
    intervals: &Bound<'_, PyAny>,
    shared_flags: &Bound<'_, PyAny>,
    shared_flag_mask: u8,
    use_accel: bool,
) -> PyResult<()> {
    let _ = use_accel;
    let g2l = small::<i64>("global2local", global2local)?;
    let pi = small::<i32>("pixel_index", pixel_index)?;
    let wi = small::<i32>("weight_index", weight_index)?;
    let di = small::<i32>("data_index", data_index)?;
    let fi = small::<i32>("flag_index", flag_index)?;
    let scale = small::<f64>("det_scale", det_scale)?;
    let iv = self::intervals(intervals)?;
    let zmap = Lent::<f64, 3>::new("zmap", zmap)?;
    let pix = Lent::<i64, 2>::input("pixels", pixels)?;
    let w = self::weights(weights)?;
    let det = Lent::<f64, 2>::input("det_data", det_data)?;
    let flags = Lent::<u8, 2>::input("det_flags", det_flags)?;
    let shared = Lent::<u8, 1>::input("shared_flags", shared_flags)?;
    let (zv, pv, wv, dv, fv, sv) = (
        zmap.view(),
        pix.view(),
        w.view(),
        det.view(),
        flags.view(),
        shared.view(),
    );
    run_on!(py, [pv, wv, dv, fv, sv], [zv], |s| {
        toast3::BuildNoiseWeighted {
            global2local: &up(s, &g2l)?,
            zmap: zv,
            pixel_index: &rows(s, &pi)?,
            pixels: pv,
            weight_index: &rows(s, &wi)?,
            weights: wv,
            data_index: &rows(s, &di)?,
            det_data: dv,
            flag_index: &up(s, &fi)?,
            det_flags: fv,
            det_scale: &up(s, &scale)?,
            det_flag_mask,
            intervals: &Intervals::half_open(s, &iv)?,
            shared_flags: sv,
            shared_flag_mask,
        }
        .run(s, DESIGN)
    })
}

/// `template_offset_add_to_signal(step_length, amp_offset, n_amp_views, amplitudes,
/// amplitude_flags, data_index, det_data, intervals, use_accel)`.
#[pyfunction]
#[pyo3(signature = (step_length, amp_offset, n_amp_views, amplitudes, amplitude_flags, data_index, det_data, intervals, use_accel=false))]
#[allow(clippy::too_many_arguments)]
fn template_offset_add_to_signal(
    py: Python<'_>,
    step_length: i64,
    amp_offset: i64,
    n_amp_views: &Bound<'_, PyAny>,
    amplitudes: &Bound<'_, PyAny>,
    amplitude_flags: &Bound<'_, PyAny>,
    data_index: i64,
    det_data: &Bound<'_, PyAny>,
    intervals: &Bound<'_, PyAny>,
    use_accel: bool,
) -> PyResult<()> {
    let _ = use_accel;
    let counts = small::<i64>("n_amp_views", n_amp_views)?;
    let iv = self::intervals(intervals)?;
    let amps = Lent::<f64, 1>::input("amplitudes", amplitudes)?;
    let flags = Lent::<u8, 1>::input("amplitude_flags", amplitude_flags)?;
    let det = Lent::<f64, 2>::new("det_data", det_data)?;
    let (av, fv, dv) = (amps.view(), flags.view(), det.view());
    run_on!(py, [av, fv], [dv], |s| toast3::OffsetAddToSignal {
        layout: &toast3::OffsetLayout::new(s, &iv, &counts, step_length)?,
        amp_offset,
        amplitudes: av,
        amplitude_flags: fv,
        data_index,
        det_data: dv,
    }
    .run(s, DESIGN))
}

/// `template_offset_project_signal(data_index, det_data, flag_index, flag_data, flag_mask,
/// step_length, amp_offset, n_amp_views, amplitudes, amplitude_flags, intervals, use_accel)`.
#[pyfunction]
#[pyo3(signature = (data_index, det_data, flag_index, flag_data, flag_mask, step_length, amp_offset, n_amp_views, amplitudes, amplitude_flags, intervals, use_accel=false))]
#[allow(clippy::too_many_arguments)]
fn template_offset_project_signal(
    py: Python<'_>,
    data_index: i64,
    det_data: &Bound<'_, PyAny>,
    flag_index: i64,
    flag_data: &Bound<'_, PyAny>,
    flag_mask: u8,
    step_length: i64,
    amp_offset: i64,
    n_amp_views: &Bound<'_, PyAny>,
    amplitudes: &Bound<'_, PyAny>,
    amplitude_flags: &Bound<'_, PyAny>,
    intervals: &Bound<'_, PyAny>,
    use_accel: bool,
) -> PyResult<()> {
    let _ = use_accel;
    let counts = small::<i64>("n_amp_views", n_amp_views)?;
    let iv = self::intervals(intervals)?;
    let det = Lent::<f64, 2>::input("det_data", det_data)?;
    // TOAST passes a dummy `np.zeros(1)` when `flag_index` is negative, and its kernel then
    // ignores flag_data's shape; lent as one row (a view: no copy).
    let flag_data = if flag_index < 0 {
        let ndim: usize = flag_data
            .getattr("ndim")
            .and_then(|n| n.extract())
            .unwrap_or(2);
        if ndim == 2 {
            flag_data.clone()
        } else {
            as_ndarray(flag_data)?.call_method1("reshape", (1, -1))?
        }
    } else {
        flag_data.clone()
    };
    let fl = Lent::<u8, 2>::input("flag_data", &flag_data)?;
    let amps = Lent::<f64, 1>::new("amplitudes", amplitudes)?;
    let aflags = Lent::<u8, 1>::input("amplitude_flags", amplitude_flags)?;
    let (dv, flv, av, afv) = (det.view(), fl.view(), amps.view(), aflags.view());
    run_on!(py, [dv, flv, afv], [av], |s| toast3::OffsetProjectSignal {
        data_index,
        det_data: dv,
        flag_index,
        flag_data: flv,
        flag_mask,
        layout: &toast3::OffsetLayout::new(s, &iv, &counts, step_length)?,
        amp_offset,
        amplitudes: av,
        amplitude_flags: afv,
    }
    .run(s, DESIGN))
}

/// `template_offset_apply_diag_precond(offset_var, amplitudes_in, amplitude_flags,
/// amplitudes_out, use_accel)`.
#[pyfunction]
#[pyo3(signature = (offset_var, amplitudes_in, amplitude_flags, amplitudes_out, use_accel=false))]
fn template_offset_apply_diag_precond(
    py: Python<'_>,
    offset_var: &Bound<'_, PyAny>,
    amplitudes_in: &Bound<'_, PyAny>,
    amplitude_flags: &Bound<'_, PyAny>,
    amplitudes_out: &Bound<'_, PyAny>,
    use_accel: bool,
) -> PyResult<()> {
    let _ = use_accel;
    let var = Lent::<f64, 1>::input("offset_var", offset_var)?;
    let ain = Lent::<f64, 1>::input("amplitudes_in", amplitudes_in)?;
    let fl = Lent::<u8, 1>::input("amplitude_flags", amplitude_flags)?;
    let aout = Lent::<f64, 1>::new("amplitudes_out", amplitudes_out)?;
    let (vv, iv, fv, ov) = (var.view(), ain.view(), fl.view(), aout.view());
    run_on!(py, [vv, iv, fv], [ov], |s| toast3::OffsetApplyDiagPrecond {
        offset_var: vv,
        amplitudes_in: iv,
        amplitude_flags: fv,
        amplitudes_out: ov,
    }
    .run(s))
}

/// The native module `rokkos_toast._rokkos_toast`; the package `rokkos_toast`
/// (`pysrc/rokkos_toast/__init__.py`) re-exports its functions.
#[pymodule]
#[pyo3(name = "_rokkos_toast")]
fn rokkos_toast(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(set_backend, m)?)?;
    m.add_function(wrap_pyfunction!(get_backend, m)?)?;
    m.add_function(wrap_pyfunction!(backends, m)?)?;
    m.add_function(wrap_pyfunction!(stokes_weights_iqu, m)?)?;
    m.add_function(wrap_pyfunction!(stokes_weights_i, m)?)?;
    m.add_function(wrap_pyfunction!(pointing_detector, m)?)?;
    m.add_function(wrap_pyfunction!(pixels_healpix, m)?)?;
    m.add_function(wrap_pyfunction!(noise_weight, m)?)?;
    m.add_function(wrap_pyfunction!(scan_map, m)?)?;
    m.add_function(wrap_pyfunction!(build_noise_weighted, m)?)?;
    m.add_function(wrap_pyfunction!(template_offset_add_to_signal, m)?)?;
    m.add_function(wrap_pyfunction!(template_offset_project_signal, m)?)?;
    m.add_function(wrap_pyfunction!(template_offset_apply_diag_precond, m)?)?;
    Ok(())
}
