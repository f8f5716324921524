//! The reference evaluator: runs a [`Kernel`] on the host, sequentially, against host buffers.
//!
//! Tests use it to prove without a GPU that the IR means what the native body does: for each kernel
//! they compare `eval_*` with the native path (the serial backend) bit for bit. It follows the IR's
//! semantics (see [`crate::ir`]) literally: integer overflow fails or wraps as the kernel's
//! [`Kernel::overflow_checks`] says, a failing work item (a division by zero, an overflow, `clamp`
//! with `min > max`, `step_by(0)`, a scratch request past the reservation) is [`EvalError::Failed`]
//! with the message Rust's panic prints, an index outside a View's extents is
//! [`EvalError::OutOfBounds`], casts are Rust's `as`, math functions are the Rust methods (with
//! the choices Rust leaves open pinned down in [`crate::ir::ops::math`]). Work items run in order (an MDRange in
//! the host backends' order, [`crate::host_iter::TileGrid`]: tile after tile, each tile's points in the
//! policy's [`Iterate`](crate::Iterate) order; row-major for default tiles); a league runs team by team with team size 1, so nested
//! ranges run sequentially, `single` runs once, broadcasts return their value and barriers do nothing,
//! like the host backends. A scan runs one pass with the final flag set. Scratch Views are
//! zero-filled at allocation.
//!
//! Arguments are passed in the kernel's declaration order: first one [`ArgValue::View`] per View
//! parameter, then one [`ArgValue::Scalar`] per scalar parameter.

mod machine;
pub mod ops;
mod space;

pub use space::{EvalMemory, IrEval, HASH_LOG};

use crate::ir::valid::{validate, ValidationError};
use crate::ir::{Kernel, Pattern, ScalarType, Value, WorkKind};

/// Why an evaluation failed. The first error ends the evaluation; stores made before it remain.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EvalError {
    /// The kernel failed validation.
    #[error(transparent)]
    Invalid(#[from] ValidationError),
    /// The arguments, work set or initial values do not fit the kernel.
    #[error("bad arguments: {0}")]
    BadArguments(String),
    /// A work item failed where the native path panics (other than an index out of bounds): the
    /// message is Rust's (`attempt to divide by zero`, `attempt to add with overflow`, `min > max,
    /// or either was NaN. min = 2.0, max = 1.0`, `assertion failed: step != 0`, ...). Launches
    /// report it as `Error::KernelFailed`.
    #[error("{0}")]
    Failed(String),
    /// A View or local array index outside the extents.
    #[error("index {index:?} out of bounds for `{view}` with extents {extents:?}")]
    OutOfBounds {
        /// The View (parameter name, `scratchN`, or local array name).
        view: String,
        /// The index.
        index: Vec<i128>,
        /// The extents.
        extents: Vec<usize>,
    },
    /// A local read before any assignment.
    #[error("local `{0}` read before it was assigned")]
    Uninitialized(String),
    /// An evaluator inconsistency (a bug: the validator should have rejected the kernel).
    #[error("internal evaluator error: {0}")]
    Internal(String),
}

/// Host storage of one View argument, of the View's element type.
#[derive(Debug)]
pub enum Buffer<'a> {
    /// `i32` elements.
    I32(&'a mut [i32]),
    /// `u32` elements.
    U32(&'a mut [u32]),
    /// `u8` elements.
    U8(&'a mut [u8]),
    /// `u16` elements.
    U16(&'a mut [u16]),
    /// `i8` elements.
    I8(&'a mut [i8]),
    /// `i16` elements.
    I16(&'a mut [i16]),
    /// `i64` elements.
    I64(&'a mut [i64]),
    /// `u64` elements.
    U64(&'a mut [u64]),
    /// `f32` elements.
    F32(&'a mut [f32]),
    /// `f64` elements.
    F64(&'a mut [f64]),
}

macro_rules! buffer_from {
    ($($t:ty => $v:ident),*) => {$(
        impl<'a> From<&'a mut [$t]> for Buffer<'a> {
            fn from(s: &'a mut [$t]) -> Self {
                Buffer::$v(s)
            }
        }
        impl<'a> From<&'a mut Vec<$t>> for Buffer<'a> {
            fn from(s: &'a mut Vec<$t>) -> Self {
                Buffer::$v(s.as_mut_slice())
            }
        }
    )*};
}
buffer_from!(i32 => I32, u32 => U32, u8 => U8, u16 => U16, i8 => I8, i16 => I16, i64 => I64, u64 => U64, f32 => F32, f64 => F64);

impl Buffer<'_> {
    /// The element type.
    pub fn elem(&self) -> ScalarType {
        match self {
            Buffer::I32(_) => ScalarType::I32,
            Buffer::U32(_) => ScalarType::U32,
            Buffer::U8(_) => ScalarType::U8,
            Buffer::U16(_) => ScalarType::U16,
            Buffer::I8(_) => ScalarType::I8,
            Buffer::I16(_) => ScalarType::I16,
            Buffer::I64(_) => ScalarType::I64,
            Buffer::U64(_) => ScalarType::U64,
            Buffer::F32(_) => ScalarType::F32,
            Buffer::F64(_) => ScalarType::F64,
        }
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Buffer::I32(s) => s.len(),
            Buffer::U32(s) => s.len(),
            Buffer::U8(s) => s.len(),
            Buffer::U16(s) => s.len(),
            Buffer::I8(s) => s.len(),
            Buffer::I16(s) => s.len(),
            Buffer::I64(s) => s.len(),
            Buffer::U64(s) => s.len(),
            Buffer::F32(s) => s.len(),
            Buffer::F64(s) => s.len(),
        }
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Element `i` (in range).
    pub(crate) fn get(&self, i: usize) -> Value {
        match self {
            Buffer::I32(s) => Value::I32(s[i]),
            Buffer::U32(s) => Value::U32(s[i]),
            Buffer::U8(s) => Value::U8(s[i]),
            Buffer::U16(s) => Value::U16(s[i]),
            Buffer::I8(s) => Value::I8(s[i]),
            Buffer::I16(s) => Value::I16(s[i]),
            Buffer::I64(s) => Value::I64(s[i]),
            Buffer::U64(s) => Value::U64(s[i]),
            Buffer::F32(s) => Value::F32(s[i]),
            Buffer::F64(s) => Value::F64(s[i]),
        }
    }
    /// Sets element `i` (in range) to `v` (of the element type).
    pub(crate) fn set(&mut self, i: usize, v: Value) {
        match (self, v) {
            (Buffer::I32(s), Value::I32(x)) => s[i] = x,
            (Buffer::U32(s), Value::U32(x)) => s[i] = x,
            (Buffer::U8(s), Value::U8(x)) => s[i] = x,
            (Buffer::U16(s), Value::U16(x)) => s[i] = x,
            (Buffer::I8(s), Value::I8(x)) => s[i] = x,
            (Buffer::I16(s), Value::I16(x)) => s[i] = x,
            (Buffer::I64(s), Value::I64(x)) => s[i] = x,
            (Buffer::U64(s), Value::U64(x)) => s[i] = x,
            (Buffer::F32(s), Value::F32(x)) => s[i] = x,
            (Buffer::F64(s), Value::F64(x)) => s[i] = x,
            (b, v) => unreachable!("store of {:?} into a {} buffer", v, b.elem()),
        }
    }
}

/// One View argument: storage, extents and strides (in elements).
#[derive(Debug)]
pub struct ViewArg<'a> {
    /// The elements.
    pub data: Buffer<'a>,
    /// Extent of each dimension.
    pub extents: Vec<usize>,
    /// Stride of each dimension: element `idx` is `data[sum(idx[k] * strides[k])]`.
    pub strides: Vec<usize>,
}

/// One kernel argument.
#[derive(Debug)]
pub enum ArgValue<'a> {
    /// A View parameter's argument.
    View(ViewArg<'a>),
    /// A scalar parameter's argument.
    Scalar(Value),
}

impl<'a> ArgValue<'a> {
    /// A contiguous row-major (LayoutRight) View over `data` with these extents.
    pub fn view(data: impl Into<Buffer<'a>>, extents: &[usize]) -> Self {
        let mut strides = vec![0; extents.len()];
        let mut acc = 1;
        for k in (0..extents.len()).rev() {
            strides[k] = acc;
            acc *= extents[k].max(1);
        }
        Self::view_strided(data, extents, &strides)
    }
    /// A column-major (LayoutLeft) View over `data` with these extents.
    pub fn view_left(data: impl Into<Buffer<'a>>, extents: &[usize]) -> Self {
        let mut strides = vec![0; extents.len()];
        let mut acc = 1;
        for k in 0..extents.len() {
            strides[k] = acc;
            acc *= extents[k].max(1);
        }
        Self::view_strided(data, extents, &strides)
    }
    /// A View over `data` with explicit extents and strides (LayoutStride).
    pub fn view_strided(data: impl Into<Buffer<'a>>, extents: &[usize], strides: &[usize]) -> Self {
        ArgValue::View(ViewArg {
            data: data.into(),
            extents: extents.to_vec(),
            strides: strides.to_vec(),
        })
    }
}

/// The work items to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorkSet {
    /// `begin..end` (a `RangePolicy`).
    Range {
        /// First index.
        begin: u64,
        /// Exclusive end.
        end: u64,
    },
    /// The box `begin[k]..end[k]` (an `MDRangePolicy` with its default tiles), in row-major
    /// order, the last index fastest.
    MDRange {
        /// First index per dimension.
        begin: Vec<u64>,
        /// Exclusive end per dimension.
        end: Vec<u64>,
    },
    /// The box `begin[k]..end[k]` cut into tiles (an `MDRangePolicy` with explicit tiles or
    /// [`Iterate::Left`](crate::Iterate::Left)), visited as the host backends visit it
    /// ([`crate::host_iter::TileGrid`]): tile after tile, each tile's points in `order`. A
    /// reduction whose join is not commutative folds in exactly their order.
    TiledMDRange {
        /// First index per dimension.
        begin: Vec<u64>,
        /// Exclusive end per dimension.
        end: Vec<u64>,
        /// Tile extent per dimension (0: the host backends' choice).
        tile: Vec<u64>,
        /// Which index moves fastest.
        order: crate::Iterate,
    },
    /// `league_size` teams of one thread (a `TeamPolicy`).
    League {
        /// Number of teams.
        league_size: u64,
        /// Vector length reported by `vector_length()`.
        vector_length: u64,
        /// Bytes each team may take from its scratch arena per level (the `TeamPolicy`'s
        /// reservation), or `None` for no limit. With a limit, an allocation past it fails like the
        /// native path's does: each scratch View starts at the next multiple of
        /// `max(element size, 8)` bytes.
        scratch_bytes: Option<[u64; 2]>,
    },
}

/// Runs a `parallel_for` kernel over `work`.
pub fn eval_for(
    kernel: &Kernel,
    work: &WorkSet,
    args: &mut [ArgValue<'_>],
) -> Result<(), EvalError> {
    expect_pattern(kernel, Pattern::For)?;
    machine::run(kernel, work, args, Vec::new()).map(|_| ())
}

/// Runs a `parallel_reduce` kernel over `work`, folding into one accumulator that starts at `init`
/// (the reducers' identities, one value per accumulator field in [`Kernel::acc_fields`] order, as
/// serial backends do); returns the final field values.
pub fn eval_reduce(
    kernel: &Kernel,
    work: &WorkSet,
    args: &mut [ArgValue<'_>],
    init: &[Value],
) -> Result<Vec<Value>, EvalError> {
    expect_pattern(kernel, Pattern::Reduce)?;
    machine::run(kernel, work, args, init.to_vec())
}

/// Runs a `parallel_scan` kernel over `begin..end` with the partial value starting at `init`, in one
/// pass with the final flag set (each work item sees the exclusive prefix); returns the total.
pub fn eval_scan(
    kernel: &Kernel,
    begin: u64,
    end: u64,
    args: &mut [ArgValue<'_>],
    init: Value,
) -> Result<Value, EvalError> {
    expect_pattern(kernel, Pattern::Scan)?;
    let out = machine::run(kernel, &WorkSet::Range { begin, end }, args, vec![init])?;
    Ok(out[0])
}

fn expect_pattern(kernel: &Kernel, p: Pattern) -> Result<(), EvalError> {
    validate(kernel)?;
    if kernel.pattern() != p {
        return Err(EvalError::BadArguments(format!(
            "kernel `{}` is a {:?} kernel, evaluated as {p:?}",
            kernel.name,
            kernel.pattern()
        )));
    }
    Ok(())
}

/// Checks that `work` fits the kernel's work kind.
fn check_work(kernel: &Kernel, work: &WorkSet) -> Result<(), EvalError> {
    let ok = match (kernel.work, work) {
        (WorkKind::Range, WorkSet::Range { .. }) | (WorkKind::Team, WorkSet::League { .. }) => true,
        (WorkKind::MDRange(n), WorkSet::MDRange { begin, end }) => {
            begin.len() == n as usize && end.len() == n as usize
        }
        (
            WorkKind::MDRange(n),
            WorkSet::TiledMDRange {
                begin, end, tile, ..
            },
        ) => [begin, end, tile].iter().all(|v| v.len() == n as usize),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(EvalError::BadArguments(format!(
            "work set {work:?} does not fit a {:?} kernel",
            kernel.work
        )))
    }
}

#[cfg(test)]
mod tests;
