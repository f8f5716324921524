//! What the generated launch functions call: Views in any space's memory filled from an
//! [`Input`], launches whose panics and errors become a [`Failure`], and results read back as IR
//! values ([`Outputs`]).

use rokkos::ir::Value;
use rokkos::{
    create_mirror_view_and_copy, deep_copy, Error, ExecutionSpace, Layout, LayoutRight,
    LayoutStride, MemorySpace, MinMaxVal, Pod, ValLoc, View,
};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The inputs of one launch.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// Work extents: range end, MDRange box ends, or league size and the inner extent of team
    /// kernels' per-team Views.
    pub ends: Vec<usize>,
    /// Work begins (range and MDRange).
    pub begins: Vec<usize>,
    /// MDRange tiles (0: the backend's choice).
    pub tiles: Vec<usize>,
    /// Range chunk size (0: the backend's choice).
    pub chunk: usize,
    /// MDRange iteration order: `Iterate::Left` (else `Right`).
    pub iterate_left: bool,
    /// Data of each input View, in row-major index order.
    pub inputs: Vec<Vec<Value>>,
    /// Initial data of each atomic View.
    pub atomics: Vec<Vec<Value>>,
    /// Scalar arguments.
    pub scalars: Vec<Value>,
}

impl Input {
    /// Equal bit for bit (a NaN equals itself, unlike with `==`).
    pub fn same(&self, other: &Input) -> bool {
        let bits = |v: &[Vec<Value>]| -> Vec<Vec<u64>> {
            v.iter()
                .map(|d| d.iter().map(|x| x.to_bits()).collect())
                .collect()
        };
        self.ends == other.ends
            && self.begins == other.begins
            && self.tiles == other.tiles
            && self.chunk == other.chunk
            && self.iterate_left == other.iterate_left
            && bits(&self.inputs) == bits(&other.inputs)
            && bits(&self.atomics) == bits(&other.atomics)
            && bits(std::slice::from_ref(&self.scalars))
                == bits(std::slice::from_ref(&other.scalars))
    }
}

/// Results of a launch that succeeded: every output and atomic View (row-major), then the
/// reduction's value or the scan's total, field by field.
#[derive(Clone, Debug, PartialEq)]
pub struct Outputs {
    /// Output Views, then atomic Views.
    pub views: Vec<Vec<Value>>,
    /// Accumulator fields.
    pub accs: Vec<Value>,
}

/// Why a launch did not produce results.
#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// A work item failed (a host panic, or `Err` from the launch, a fence or a read-back).
    Kernel {
        /// What kind of failure.
        kind: FailKind,
        /// The message.
        message: String,
    },
    /// The backend refused the kernel (`Err(Unsupported)`).
    Unsupported(String),
    /// The backend generated code its compiler refused (`Err(Compile)`: a rokkos bug).
    Compile(String),
    /// Setting up or reading back failed for another reason (a harness or backend problem).
    Setup(String),
}

/// The kind of a work item's failure, from the panic message or the error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FailKind {
    /// An index outside a View, scratch View or local array.
    OutOfBounds,
    /// Integer division or remainder by zero.
    DivByZero,
    /// Integer overflow (`+ - * neg abs << >>` with overflow checks, `MIN / -1`).
    Overflow,
    /// `step_by(0)` or another non-positive step.
    BadStep,
    /// `clamp` with `min > max` or a NaN bound.
    Clamp,
    /// Anything else.
    Other,
}

impl Failure {
    /// A setup failure.
    pub fn setup(msg: impl Into<String>) -> Failure {
        Failure::Setup(msg.into())
    }
    /// A short description.
    pub fn describe(&self) -> String {
        match self {
            Failure::Kernel { kind, message } => format!("failed ({kind:?}): {message}"),
            Failure::Unsupported(m) => format!("unsupported: {m}"),
            Failure::Compile(m) => format!("compile error: {m}"),
            Failure::Setup(m) => format!("setup error: {m}"),
        }
    }
}

/// The kind of failure a panic message or error message describes.
pub fn classify(message: &str) -> FailKind {
    let m = message.to_lowercase();
    if m.contains("out of bounds") {
        FailKind::OutOfBounds
    } else if m.contains("divide by zero")
        || m.contains("division by zero")
        || m.contains("divisor of zero")
    {
        FailKind::DivByZero
    } else if m.contains("overflow") {
        FailKind::Overflow
    } else if m.contains("step") {
        FailKind::BadStep
    } else if m.contains("clamp") || m.contains("min > max") || m.contains("min <= max") {
        FailKind::Clamp
    } else {
        FailKind::Other
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        match &e {
            Error::Unsupported { .. } => Failure::Unsupported(e.to_string()),
            Error::Compile { .. } => Failure::Compile(e.to_string()),
            Error::OutOfBounds { .. } => Failure::Kernel {
                kind: FailKind::OutOfBounds,
                message: e.to_string(),
            },
            Error::KernelFailed { .. } | Error::InvalidArgument(_) => {
                let message = e.to_string();
                Failure::Kernel {
                    kind: classify(&message),
                    message,
                }
            }
            _ => Failure::Setup(e.to_string()),
        }
    }
}

/// The result of running one case with one input on one backend.
pub type Run = Result<Outputs, Failure>;

/// Dispatches case numbers to the generated launch functions (implemented by the generated code).
pub trait Runner {
    /// Launches case `case` on `space` with `inp`.
    fn run<E: ExecutionSpace>(&self, case: usize, space: &E, inp: &Input) -> Run;
}

/// The message of a caught panic.
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else {
        "<non-string panic payload>".to_string()
    }
}

/// Runs a launch: a panic of the kernel body (host backends today) or an `Err` (device
/// backends, and host backends once they report failures as errors) becomes a [`Failure`].
pub fn launch<T>(f: impl FnOnce() -> rokkos::Result<T>) -> Result<T, Failure> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(e.into()),
        Err(p) => {
            let message = panic_message(&*p);
            Err(Failure::Kernel {
                kind: classify(&message),
                message,
            })
        }
    }
}

/// Conversion of IR values into kernel scalars and View elements.
pub trait FromValue: Sized {
    /// The value as `Self` (`usize` from `U64`, `isize` from `I64`).
    fn from_value(v: Value) -> Self;
}
/// Conversion of kernel results into IR values.
pub trait ToValue {
    /// The IR value (`usize` as `U64`, `isize` as `I64`).
    fn to_value(&self) -> Value;
}

macro_rules! scalar_value {
    ($($t:ty => $v:ident as $c:ty),*) => {$(
        impl FromValue for $t {
            fn from_value(v: Value) -> Self {
                match v {
                    Value::$v(x) => x as $t,
                    other => panic!("harness bug: {other:?} where a {} was expected", stringify!($t)),
                }
            }
        }
        impl ToValue for $t {
            fn to_value(&self) -> Value {
                Value::$v(*self as $c)
            }
        }
    )*};
}
scalar_value!(i32 => I32 as i32, u32 => U32 as u32, i64 => I64 as i64, u64 => U64 as u64,
    usize => U64 as u64, isize => I64 as i64, f32 => F32 as f32, f64 => F64 as f64);

impl FromValue for bool {
    fn from_value(v: Value) -> Self {
        match v {
            Value::Bool(b) => b,
            other => panic!("harness bug: {other:?} where a bool was expected"),
        }
    }
}
impl ToValue for bool {
    fn to_value(&self) -> Value {
        Value::Bool(*self)
    }
}

/// The MDRange iteration order of `inp`.
pub fn iterate(inp: &Input) -> rokkos::Iterate {
    if inp.iterate_left {
        rokkos::Iterate::Left
    } else {
        rokkos::Iterate::Right
    }
}

/// Scalar argument `n` of `inp`.
pub fn scalar<T: FromValue>(inp: &Input, n: usize) -> T {
    T::from_value(inp.scalars[n])
}

/// The fields of a reduction result: scalars, `ValLoc`, `MinMaxVal` and tuples of them.
pub fn values<V: ResultFields>(v: &V) -> Vec<Value> {
    let mut out = Vec::new();
    v.push_fields(&mut out);
    out
}

/// A reduction result, flattened into its fields.
pub trait ResultFields {
    /// Appends the fields.
    fn push_fields(&self, out: &mut Vec<Value>);
}
macro_rules! result_scalar {
    ($($t:ty),*) => {$(
        impl ResultFields for $t {
            fn push_fields(&self, out: &mut Vec<Value>) {
                out.push(self.to_value());
            }
        }
    )*};
}
result_scalar!(bool, i32, u32, i64, u64, usize, isize, f32, f64);
impl<T: ToValue> ResultFields for ValLoc<T> {
    fn push_fields(&self, out: &mut Vec<Value>) {
        out.push(self.val.to_value());
        out.push(self.loc.to_value());
    }
}
impl<T: ToValue> ResultFields for MinMaxVal<T> {
    fn push_fields(&self, out: &mut Vec<Value>) {
        out.push(self.min.to_value());
        out.push(self.max.to_value());
    }
}
macro_rules! result_tuple {
    ($($n:tt $t:ident),*) => {
        impl<$($t: ResultFields),*> ResultFields for ($($t,)*) {
            fn push_fields(&self, out: &mut Vec<Value>) {
                $(self.$n.push_fields(out);)*
            }
        }
    };
}
result_tuple!(0 A, 1 B);
result_tuple!(0 A, 1 B, 2 C);
result_tuple!(0 A, 1 B, 2 C, 3 D);

/// The value an output's term column starts with: a NaN with a payload no float operation
/// produces, so that the comparison can tell a work item that contributed no term (it returned
/// before its contribution, or lies outside the work range) from a term of zero.
pub fn is_unwritten(v: Value) -> bool {
    match v {
        Value::F32(x) => x.to_bits() == SENTINEL_F32,
        Value::F64(x) => x.to_bits() == SENTINEL_F64,
        _ => false,
    }
}
const SENTINEL_F32: u32 = 0x7fc0_dead;
const SENTINEL_F64: u64 = 0x7ff8_dead_beef_0001;

/// Initial data of an output View of `len` elements in rows of `cols`: zero, except the
/// columns `terms`, which hold the unwritten-term sentinel ([`is_unwritten`]).
pub fn term_init<T: TermSentinel>(len: usize, cols: usize, terms: &[usize]) -> Vec<Value> {
    (0..len)
        .map(|e| {
            if terms.contains(&(e % cols.max(1))) {
                T::sentinel()
            } else {
                T::zero()
            }
        })
        .collect()
}

/// Float element types of term columns.
pub trait TermSentinel {
    /// The sentinel.
    fn sentinel() -> Value;
    /// Zero.
    fn zero() -> Value;
}
impl TermSentinel for f32 {
    fn sentinel() -> Value {
        Value::F32(f32::from_bits(SENTINEL_F32))
    }
    fn zero() -> Value {
        Value::F32(0.0)
    }
}
impl TermSentinel for f64 {
    fn sentinel() -> Value {
        Value::F64(f64::from_bits(SENTINEL_F64))
    }
    fn zero() -> Value {
        Value::F64(0.0)
    }
}

/// A View of `space`'s memory with `extents`, in layout `L`, holding `data` (row-major) when
/// given, zero otherwise.
pub fn view<E, T, const R: usize, L>(
    space: &E,
    label: &str,
    extents: [usize; R],
    data: Option<&Vec<Value>>,
) -> Result<View<T, R, L, E::Memory>, Failure>
where
    E: ExecutionSpace,
    T: Pod + FromValue,
    L: Layout,
{
    let v = View::<T, R, L, E::Memory>::new_in(&space.memory_space(), label, extents)?;
    fill(&v, label, extents, data)?;
    Ok(v)
}

fn fill<T, const R: usize, L, S>(
    v: &View<T, R, L, S>,
    label: &str,
    extents: [usize; R],
    data: Option<&Vec<Value>>,
) -> Result<(), Failure>
where
    T: Pod + FromValue,
    L: Layout,
    S: MemorySpace,
{
    if let Some(d) = data {
        let host = View::<T, R, LayoutRight>::from_vec(
            label,
            extents,
            d.iter().map(|&x| T::from_value(x)).collect(),
        )?;
        deep_copy(v, &host)?;
    }
    Ok(())
}

macro_rules! strided {
    ($name:ident, $r:literal, $r1:literal, ($($k:tt),*)) => {
        /// A `LayoutStride` View: every other element of a View with one more dimension of 2.
        pub fn $name<E, T>(
            space: &E,
            label: &str,
            extents: [usize; $r],
            data: Option<&Vec<Value>>,
        ) -> Result<View<T, $r, LayoutStride, E::Memory>, Failure>
        where
            E: ExecutionSpace,
            T: Pod + FromValue,
        {
            let big = View::<T, $r1, LayoutRight, E::Memory>::new_in(
                &space.memory_space(),
                label,
                [$(extents[$k],)* 2],
            )?;
            let v: View<T, $r, LayoutStride, E::Memory> = big.subview(($(strided!(@all $k),)* 1usize))?;
            fill(&v, label, extents, data)?;
            Ok(v)
        }
    };
    (@all $k:tt) => { .. };
}
strided!(view_strided1, 1, 2, (0));
strided!(view_strided2, 2, 3, (0, 1));
strided!(view_strided3, 3, 4, (0, 1, 2));
strided!(view_strided4, 4, 5, (0, 1, 2, 3));

/// The elements of a View, row-major; a failed read-back (a device's deferred kernel error)
/// is the kernel's failure.
pub fn read<T, const R: usize, L, S>(v: &View<T, R, L, S>) -> Result<Vec<Value>, Failure>
where
    T: Pod + ToValue,
    L: Layout,
    S: MemorySpace,
{
    let m = create_mirror_view_and_copy(v)?;
    Ok(m.to_vec().iter().map(ToValue::to_value).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_classified_from_rusts_and_rokkos_messages() {
        assert_eq!(classify("attempt to divide by zero"), FailKind::DivByZero);
        assert_eq!(
            classify("attempt to calculate the remainder with a divisor of zero"),
            FailKind::DivByZero
        );
        assert_eq!(
            classify("attempt to shift left with overflow"),
            FailKind::Overflow
        );
        assert_eq!(
            classify("attempt to divide with overflow"),
            FailKind::Overflow
        );
        assert_eq!(
            classify("kernel `k`: index [3] out of bounds for View `x` with extents [2]"),
            FailKind::OutOfBounds
        );
        assert_eq!(classify("assertion failed: step != 0"), FailKind::BadStep);
        assert_eq!(classify("assertion failed: min <= max"), FailKind::Clamp);
        let e: Failure = Error::KernelFailed {
            kernel: "k".into(),
            reason: "attempt to multiply with overflow".into(),
        }
        .into();
        assert!(matches!(
            e,
            Failure::Kernel {
                kind: FailKind::Overflow,
                ..
            }
        ));
    }

    #[test]
    fn term_columns_start_unwritten() {
        let d = term_init::<f64>(6, 3, &[1]);
        let unwritten: Vec<bool> = d.iter().map(|&v| is_unwritten(v)).collect();
        assert_eq!(unwritten, [false, true, false, false, true, false]);
        assert!(!is_unwritten(Value::F64(f64::NAN)));
        assert!(!is_unwritten(Value::F32(f32::NAN)));
        assert!(is_unwritten(term_init::<f32>(1, 1, &[0])[0]));
    }
}
