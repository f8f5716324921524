//! [`IrEval`]: an execution space that runs every kernel through its IR in the reference evaluator.
//!
//! It exists for the test suite: a test written once for any `ExecutionSpace` and instantiated with
//! `IrEval` proves that the kernel's IR computes what its native body computes on the serial and
//! rayon backends, so the IR the GPU backends compile is checked in CI without a GPU.
//!
//! Its memory space, [`EvalMemory`], behaves like a GPU's: host code cannot index its Views (it is
//! not [`HostAccessible`](crate::HostAccessible)) and reaches their data only through `deep_copy`,
//! mirrors and `fill`. A test that passes on `IrEval` therefore does not rely on host access to the
//! Views its kernels use.
//!
//! A launch copies each View argument's span out of its buffer into a typed buffer, evaluates, and
//! copies the writable Views back (also after a failed evaluation, so that stores made before the
//! failure remain, as on the host backends). The launch-time argument checks guarantee that no
//! writable View overlaps another argument, so the copies cannot clobber each other. Errors of a
//! work item become the errors a checked device launch reports: an index outside a View's extents
//! is [`Error::OutOfBounds`] (the message the native path panics with), any other failure of a
//! work item ([`EvalError::Failed`]: a division by zero, an overflow, ...) is
//! [`Error::KernelFailed`] with Rust's panic message, and the rest (a kernel the IR cannot
//! describe, an evaluator bug) are [`Error::InvalidArgument`].

use super::{eval_for, eval_reduce, eval_scan, ArgValue, Buffer, EvalError, ViewArg, WorkSet};
use crate::error::{Error, Result};
use crate::host_iter::{team_scratch_bytes, HOST_TEAM_LIMITS};
use crate::ir::{ScalarType, Value};
use crate::kernel::{
    ForKernel, KernelArg, KernelIr, MDWork, RangeWork, ReduceKernel, ScanKernel, TeamWork,
    ViewBinding,
};
use crate::launch::Launch;
use crate::layout::span_of;
use crate::policy::{MDRangePolicy, RangePolicy, TeamPolicy};
use crate::reducer::{AccValue, Reducer};
use crate::space::{ExecutionSpace, HostBuffer, HostSpace, MemorySpace, TeamLimits};
use std::ptr::NonNull;

/// Runs kernels through their IR in the reference evaluator, sequentially (tests only: slow).
///
/// Teams have one thread, like the serial backend, and share its limits.
///
/// ```
/// use rokkos_core::ir::eval::IrEval;
/// use rokkos_core::ExecutionSpace;
/// assert_eq!(IrEval.name(), "ir-eval");
/// assert_eq!(IrEval.team_limits().team_size_max, 1);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IrEval;

/// The memory space of [`IrEval`]: host allocations that host code may not index, as on a GPU.
///
/// The bytes live in ordinary host memory (a [`HostBuffer`] from [`HostSpace`]), but
/// [`MemorySpace::host_ptr`] answers `None` and the space is not
/// [`HostAccessible`](crate::HostAccessible), so `get`, `set`, `host()`, `host_mut()` and
/// `to_vec()` do not compile for its Views. Data moves in and out with `deep_copy`,
/// `create_mirror_view_and_copy` and `fill`, exactly as for a device space; `IrEval` launches read
/// and write the buffers through [`HostSpace`]'s byte copies.
///
/// ```
/// use rokkos_core::ir::eval::{EvalMemory, IrEval};
/// use rokkos_core::{create_mirror_view_and_copy, deep_copy, ExecutionSpace, MemorySpace, View};
/// use rokkos_core::{LayoutRight, Result};
///
/// # fn main() -> Result<()> {
/// let space: EvalMemory = IrEval.memory_space();
/// let d = View::<f64, 1, LayoutRight, EvalMemory>::new_in(&space, "d", [4])?;
/// let h = View::<f64>::from_vec("h", [4], vec![1.0, 2.0, 3.0, 4.0])?;
/// deep_copy(&d, &h)?; // host -> "device"
/// let back = create_mirror_view_and_copy(&d)?; // "device" -> a new host View
/// assert!(!back.shares_allocation_with(&h));
/// assert_eq!(back.to_vec(), vec![1.0, 2.0, 3.0, 4.0]);
/// d.fill(0.5)?;
/// deep_copy(&h, &d)?;
/// assert_eq!(h.to_vec(), vec![0.5; 4]);
///
/// // Host code has no address for the data.
/// let buffer = space.allocate("raw", 16, 8)?;
/// assert!(EvalMemory::host_ptr(&buffer).is_none());
/// # Ok(())
/// # }
/// ```
///
/// Indexing a View in `EvalMemory` from host code is a compile error:
///
/// ```compile_fail,E0599
/// use rokkos_core::ir::eval::EvalMemory;
/// use rokkos_core::{LayoutRight, View};
/// let d = View::<f64, 1, LayoutRight, EvalMemory>::new_in(&EvalMemory, "d", [4]).unwrap();
/// let _ = d.get(0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EvalMemory;

// SAFETY: every buffer is its own storage (the identity projection): what lets a space whose
// memory is `EvalMemory` (a checking space over the evaluator) hand its launches to `IrEval`.
unsafe impl crate::delegate::ProjectMemory<EvalMemory> for EvalMemory {
    fn project(buffer: &HostBuffer) -> Option<&HostBuffer> {
        Some(buffer)
    }
}

impl MemorySpace for EvalMemory {
    const NAME: &'static str = "EvalMemory";
    type Buffer = HostBuffer;

    fn allocate(&self, label: &str, bytes: usize, align: usize) -> Result<HostBuffer> {
        HostSpace.allocate(label, bytes, align)
    }
    fn host_ptr(_buffer: &HostBuffer) -> Option<NonNull<u8>> {
        None
    }
    unsafe fn read_bytes(&self, buffer: &HostBuffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        // SAFETY: the caller's contract, passed on.
        unsafe { HostSpace.read_bytes(buffer, offset, dst) }
    }
    unsafe fn write_bytes(&self, buffer: &HostBuffer, offset: usize, src: &[u8]) -> Result<()> {
        // SAFETY: the caller's contract, passed on.
        unsafe { HostSpace.write_bytes(buffer, offset, src) }
    }
}

/// Host copies of one launch's View arguments.
enum Owned {
    I32(Vec<i32>),
    U32(Vec<u32>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    I64(Vec<i64>),
    U64(Vec<u64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

struct ViewCopy<'a> {
    binding: ViewBinding<'a, EvalMemory>,
    data: Owned,
}

fn elem_size(t: ScalarType) -> usize {
    match t {
        ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 4,
        ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 8,
        ScalarType::Bool | ScalarType::U8 | ScalarType::I8 => 1,
        ScalarType::U16 | ScalarType::I16 => 2,
    }
}

impl<'a> ViewCopy<'a> {
    /// Copies the View's span (`offset .. offset + span` elements of its allocation). Called only
    /// for the arguments of a launch, which holds their allocations.
    fn load(binding: ViewBinding<'a, EvalMemory>) -> Result<Self> {
        let span = span_of(binding.extents, binding.strides);
        let size = elem_size(binding.elem);
        let mut bytes = vec![0u8; span * size];
        // An empty View's offset may point one past its allocation: nothing to read.
        if span > 0 {
            // SAFETY: the launch holds the allocation (and `EvalMemory` lends no host references).
            unsafe { HostSpace.read_bytes(binding.buffer, binding.offset * size, &mut bytes) }?;
        }
        fn typed<T: bytemuck::Pod>(bytes: &[u8]) -> Vec<T> {
            let mut v = vec![T::zeroed(); bytes.len() / std::mem::size_of::<T>()];
            bytemuck::cast_slice_mut::<T, u8>(&mut v).copy_from_slice(bytes);
            v
        }
        let data = match binding.elem {
            ScalarType::I32 => Owned::I32(typed(&bytes)),
            ScalarType::U32 => Owned::U32(typed(&bytes)),
            ScalarType::U8 => Owned::U8(typed(&bytes)),
            ScalarType::U16 => Owned::U16(typed(&bytes)),
            ScalarType::I8 => Owned::I8(typed(&bytes)),
            ScalarType::I16 => Owned::I16(typed(&bytes)),
            ScalarType::I64 => Owned::I64(typed(&bytes)),
            ScalarType::U64 => Owned::U64(typed(&bytes)),
            ScalarType::F32 => Owned::F32(typed(&bytes)),
            ScalarType::F64 => Owned::F64(typed(&bytes)),
            ScalarType::Bool => {
                return Err(Error::InvalidArgument(format!(
                    "View `{}` has element type bool, which no kernel IR accepts",
                    binding.label
                )))
            }
        };
        Ok(ViewCopy { binding, data })
    }
    /// Writes the span back (a writable argument, held exclusively by the launch).
    fn store(&self) -> Result<()> {
        let bytes: &[u8] = match &self.data {
            Owned::I32(v) => bytemuck::cast_slice(v),
            Owned::U32(v) => bytemuck::cast_slice(v),
            Owned::U8(v) => bytemuck::cast_slice(v),
            Owned::U16(v) => bytemuck::cast_slice(v),
            Owned::I8(v) => bytemuck::cast_slice(v),
            Owned::I16(v) => bytemuck::cast_slice(v),
            Owned::I64(v) => bytemuck::cast_slice(v),
            Owned::U64(v) => bytemuck::cast_slice(v),
            Owned::F32(v) => bytemuck::cast_slice(v),
            Owned::F64(v) => bytemuck::cast_slice(v),
        };
        if bytes.is_empty() {
            return Ok(());
        }
        let offset = self.binding.offset * elem_size(self.binding.elem);
        // SAFETY: a writable argument's allocation is held exclusively by the launch, and no
        // other argument overlaps it (the launch checks).
        unsafe { HostSpace.write_bytes(self.binding.buffer, offset, bytes) }
    }
    fn arg(&mut self) -> ArgValue<'_> {
        let data = match &mut self.data {
            Owned::I32(v) => Buffer::I32(v),
            Owned::U32(v) => Buffer::U32(v),
            Owned::U8(v) => Buffer::U8(v),
            Owned::U16(v) => Buffer::U16(v),
            Owned::I8(v) => Buffer::I8(v),
            Owned::I16(v) => Buffer::I16(v),
            Owned::I64(v) => Buffer::I64(v),
            Owned::U64(v) => Buffer::U64(v),
            Owned::F32(v) => Buffer::F32(v),
            Owned::F64(v) => Buffer::F64(v),
        };
        ArgValue::View(ViewArg {
            data,
            extents: self.binding.extents.to_vec(),
            strides: self.binding.strides.to_vec(),
        })
    }
}

/// Environment variable naming a file to which every launch appends `<kernel> <IR hash>`: how the
/// test suite checks that the hash of every kernel it runs is the same in two processes.
pub const HASH_LOG: &str = "ROKKOS_IR_HASH_LOG";

fn log_hash(path: &std::ffi::OsStr, ir: &crate::ir::Kernel) {
    use std::io::Write;
    let line = format!("{} {:016x}\n", ir.name, ir.stable_hash());
    // One short `O_APPEND` write per line, so that concurrent test threads do not interleave.
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        eprintln!(
            "rokkos: cannot append to {HASH_LOG}={}: {e}",
            path.to_string_lossy()
        );
    }
}

/// What to evaluate.
enum Run<'v> {
    For,
    Reduce(&'v [Value]),
    Scan(Value),
}

fn fmt_index<T: std::fmt::Display>(xs: &[T]) -> String {
    let parts: Vec<String> = xs.iter().map(|x| x.to_string()).collect();
    format!("({})", parts.join(", "))
}

/// Evaluates one launch of its kernel over `work`; returns the accumulator fields. Messages name
/// the kernel, as the native path's errors do. Taking the token is what makes reading and writing
/// the arguments' buffers sound: it holds them.
fn launch<P, K: KernelIr<Space = EvalMemory>>(
    l: &Launch<'_, P, K>,
    work: WorkSet,
    run: Run<'_>,
) -> Result<Vec<Value>> {
    let (name, kernel) = (K::NAME, l.kernel());
    let ir = K::build_ir().map_err(|e| Error::Unsupported {
        backend: "ir-eval".into(),
        feature: format!("kernel `{name}`: {e}"),
    })?;
    if let Some(path) = std::env::var_os(HASH_LOG) {
        log_hash(&path, &ir);
    }
    let mut bindings = Vec::new();
    let mut scalars = Vec::new();
    kernel.visit_args(&mut |a| match a {
        KernelArg::View(b) => bindings.push(b),
        KernelArg::Scalar(v) => scalars.push(v),
    });
    let mut views = bindings
        .into_iter()
        .map(ViewCopy::load)
        .collect::<Result<Vec<_>>>()?;
    let outcome = {
        let mut args: Vec<ArgValue<'_>> = views.iter_mut().map(ViewCopy::arg).collect();
        args.extend(scalars.into_iter().map(ArgValue::Scalar));
        match (run, &work) {
            (Run::For, _) => eval_for(&ir, &work, &mut args).map(|()| Vec::new()),
            (Run::Reduce(init), _) => eval_reduce(&ir, &work, &mut args, init),
            (Run::Scan(init), WorkSet::Range { begin, end }) => {
                eval_scan(&ir, *begin, *end, &mut args, init).map(|v| vec![v])
            }
            (Run::Scan(_), _) => Err(EvalError::BadArguments("a scan runs over a range".into())),
        }
    };
    for v in views.iter().filter(|v| v.binding.writable) {
        v.store()?;
    }
    outcome.map_err(|e| match e {
        EvalError::OutOfBounds {
            view,
            index,
            extents,
        } => {
            let label = views
                .iter()
                .find(|v| v.binding.param == view)
                .map_or(view.clone(), |v| v.binding.label.to_string());
            Error::OutOfBounds {
                kernel: name.to_string(),
                view: label,
                index: fmt_index(&index),
                extents: fmt_index(&extents),
            }
        }
        EvalError::Failed(reason) => Error::KernelFailed {
            kernel: name.to_string(),
            reason,
        },
        other => Error::InvalidArgument(format!("kernel `{name}` (IR evaluator): {other}")),
    })
}

fn init_values<V: AccValue, Rd: Reducer<V>>(reducer: &Rd) -> Vec<Value> {
    let mut out = Vec::new();
    reducer.init().push_values(&mut out);
    out
}

fn result_value<V: AccValue>(name: &str, values: &[Value]) -> Result<V> {
    V::from_values(&mut values.iter()).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "kernel `{name}`: the IR's accumulator fields {values:?} do not match the kernel's value type"
        ))
    })
}

fn range_work(begin: usize, end: usize) -> WorkSet {
    WorkSet::Range {
        begin: begin as u64,
        end: end as u64,
    }
}

/// The work of `policy`, visited as the host backends visit it (its tiles and order).
fn md_work<const N: usize>(policy: &MDRangePolicy<IrEval, N>) -> WorkSet {
    let wide = |xs: [usize; N]| xs.iter().map(|&x| x as u64).collect();
    WorkSet::TiledMDRange {
        begin: wide(policy.begin()),
        end: wide(policy.end()),
        tile: wide(policy.tiles()),
        order: policy.order(),
    }
}

fn league_work(policy: &TeamPolicy<IrEval>) -> WorkSet {
    WorkSet::League {
        league_size: policy.league_size() as u64,
        vector_length: policy.vector_len() as u64,
        scratch_bytes: Some(team_scratch_bytes(policy).map(|b| b as u64)),
    }
}

impl ExecutionSpace for IrEval {
    type Memory = EvalMemory;

    fn name(&self) -> &'static str {
        "ir-eval"
    }
    fn concurrency(&self) -> usize {
        1
    }
    fn fence(&self) -> Result<()> {
        Ok(())
    }
    fn team_limits(&self) -> TeamLimits {
        HOST_TEAM_LIMITS
    }
    fn for_range<K>(&self, l: Launch<'_, RangePolicy<Self>, K>) -> Result<()>
    where
        K: ForKernel<RangeWork, Space = EvalMemory> + KernelIr,
    {
        let p = l.policy();
        launch(&l, range_work(p.begin(), p.end()), Run::For).map(drop)
    }
    fn for_mdrange<const N: usize, K>(&self, l: Launch<'_, MDRangePolicy<Self, N>, K>) -> Result<()>
    where
        K: ForKernel<MDWork<N>, Space = EvalMemory> + KernelIr,
    {
        let p = l.policy();
        launch(&l, md_work(p), Run::For).map(drop)
    }
    fn for_team<K>(&self, l: Launch<'_, TeamPolicy<Self>, K>) -> Result<()>
    where
        K: ForKernel<TeamWork, Space = EvalMemory> + KernelIr,
    {
        launch(&l, league_work(l.policy()), Run::For).map(drop)
    }
    fn reduce_range<K, Rd>(
        &self,
        l: Launch<'_, RangePolicy<Self>, K>,
        reducer: &Rd,
    ) -> Result<K::Value>
    where
        K: ReduceKernel<RangeWork, Space = EvalMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        let init = init_values(reducer);
        let p = l.policy();
        let work = range_work(p.begin(), p.end());
        result_value(K::NAME, &launch(&l, work, Run::Reduce(&init))?)
    }
    fn reduce_mdrange<const N: usize, K, Rd>(
        &self,
        l: Launch<'_, MDRangePolicy<Self, N>, K>,
        reducer: &Rd,
    ) -> Result<K::Value>
    where
        K: ReduceKernel<MDWork<N>, Space = EvalMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        let init = init_values(reducer);
        let p = l.policy();
        let work = md_work(p);
        result_value(K::NAME, &launch(&l, work, Run::Reduce(&init))?)
    }
    fn reduce_team<K, Rd>(
        &self,
        l: Launch<'_, TeamPolicy<Self>, K>,
        reducer: &Rd,
    ) -> Result<K::Value>
    where
        K: ReduceKernel<TeamWork, Space = EvalMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        let init = init_values(reducer);
        let work = league_work(l.policy());
        result_value(K::NAME, &launch(&l, work, Run::Reduce(&init))?)
    }
    fn scan_range<K, Rd>(
        &self,
        l: Launch<'_, RangePolicy<Self>, K>,
        reducer: &Rd,
    ) -> Result<K::Value>
    where
        K: ScanKernel<RangeWork, Space = EvalMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        let init = init_values(reducer);
        let [init] = init[..] else {
            return Err(Error::InvalidArgument(format!(
                "kernel `{}`: a scan value has one field, not {}",
                K::NAME,
                init.len()
            )));
        };
        let p = l.policy();
        let work = range_work(p.begin(), p.end());
        result_value(K::NAME, &launch(&l, work, Run::Scan(init))?)
    }
}
