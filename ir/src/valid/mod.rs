//! The validator: checks a recorded [`Kernel`] and describes it for the emitters.
//!
//! Split by concern, as naga's `valid/`: [`types`] (every operand has the type its operator needs),
//! [`scope`] (locals used only where declared, `break`/`continue`/`return` where they mean something),
//! [`context`] (each construct used only in kernels and bodies where it exists), [`access`] (no write
//! through a read-only View, atomics only where the element type supports them) and [`barrier`] (team
//! barriers and team-wide constructs reached by the whole team, with uniform bounds, nested only where
//! a backend can run them: [`rokkos_rules::converge`] on the body's [`model`]). [`validate`] runs them
//! in that order and then the [`analyzer`], whose [`KernelInfo`] the emitters use instead of re-walking
//! the IR. [`lanes_independent`] tells a backend whether it may run vector lanes in parallel.
//!
//! Validation is what makes a kernel mean the same on every backend: the macro records IR that `rustc`
//! already type-checked, and `#[kernel]` enforces the team rules (the same `rokkos_rules` code) and
//! the scratch levels and View ranks at compile time, so a failure here is a kernel built without the
//! macro or a bug in the recording, never a user kernel that compiled.

pub mod access;
pub mod analyzer;
pub mod barrier;
pub mod context;
pub mod model;
pub mod scope;
pub mod types;

pub use analyzer::KernelInfo;

use crate::ops::{AtomicOp, MathFn};
use crate::stmt::{Block, LocalDecl};
use crate::{Kernel, ScalarType};

/// Why a kernel was rejected, and where.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("kernel `{kernel}`, {location}: {kind}")]
pub struct ValidationError {
    /// The kernel's name.
    pub kernel: String,
    /// `signature`, `body`, or `fn <name>`.
    pub location: String,
    /// What is wrong.
    pub kind: ErrorKind,
}

/// What is wrong with a kernel.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ErrorKind {
    // ---- signature ----
    /// A View (or scratch) element type that is not numeric.
    #[error("{what} has element type {ty}; View elements must be numeric")]
    NonNumericElement {
        /// The View or scratch.
        what: String,
        /// Its element type.
        ty: ScalarType,
    },
    /// A rank or level out of range.
    #[error("{what} is {value}, allowed {allowed}")]
    OutOfRange {
        /// What it is.
        what: String,
        /// Its value.
        value: u32,
        /// The allowed range.
        allowed: &'static str,
    },
    /// A scan kernel without exactly one scalar numeric accumulator.
    #[error("a scan kernel needs exactly one numeric scalar partial value")]
    ScanShape,

    // ---- types ----
    /// An operand or value of the wrong type.
    #[error("{context}: expected {expected}, found {found}")]
    TypeMismatch {
        /// Where.
        context: String,
        /// The required type.
        expected: ScalarType,
        /// The actual type.
        found: ScalarType,
    },
    /// A binary operator applied to operand types it does not take.
    #[error("operator `{op}` does not apply to {lhs} and {rhs}")]
    BadOperands {
        /// The operator.
        op: &'static str,
        /// Left operand type.
        lhs: ScalarType,
        /// Right operand type.
        rhs: ScalarType,
    },
    /// A unary operator applied to an operand type it does not take.
    #[error("operator `{op}` does not apply to {ty}")]
    BadOperand {
        /// The operator.
        op: &'static str,
        /// Operand type.
        ty: ScalarType,
    },
    /// A math function called with the wrong number or types of arguments.
    #[error("`{}` does not take arguments ({})", .func.name(), fmt_types(.args))]
    BadMathArgs {
        /// The function.
        func: MathFn,
        /// The argument types.
        args: Vec<ScalarType>,
    },
    /// A cast Rust's `as` does not allow.
    #[error("cannot cast {from} as {to}")]
    IllegalCast {
        /// Source type.
        from: ScalarType,
        /// Target type.
        to: ScalarType,
    },
    /// A non-integer index, extent or loop bound.
    #[error("{context} must be an integer, found {found}")]
    NotInteger {
        /// Where.
        context: String,
        /// The actual type.
        found: ScalarType,
    },
    /// The wrong number of indices, extents, arguments or elements.
    #[error("{context}: expected {expected}, found {found}")]
    WrongCount {
        /// What is counted.
        context: String,
        /// Required number.
        expected: usize,
        /// Actual number.
        found: usize,
    },
    /// A reference to a View, parameter, local, accumulator, function or scratch that does not exist.
    #[error("unknown {what} {id}")]
    Unknown {
        /// The kind of thing.
        what: &'static str,
        /// Its id.
        id: u32,
    },
    /// A scalar local used as an array or the reverse.
    #[error("local `{local}` is {}", if *.is_array { "an array, used as a scalar" } else { "a scalar, used as an array" })]
    ArrayMismatch {
        /// The local.
        local: String,
        /// Whether it is an array.
        is_array: bool,
    },
    /// An atomic `store` used as a value.
    #[error("atomic store yields no value")]
    StoreAsValue,
    /// A nested reduction whose reducer does not support the value type.
    #[error("reducer {reducer} does not apply to {ty}")]
    ReducerType {
        /// The reducer's name.
        reducer: &'static str,
        /// The value type.
        ty: ScalarType,
    },

    // ---- scope ----
    /// A local used where it is not declared (before its `let` or after its block ended).
    #[error("local `{0}` used outside its scope")]
    NotInScope(String),
    /// A local declared twice.
    #[error("local `{0}` declared twice")]
    Redeclared(String),
    /// `break` or `continue` outside a loop (or across a closure body).
    #[error("`{0}` outside a loop")]
    OutsideLoop(&'static str),
    /// `return` where it is not allowed or with the wrong form.
    #[error("{0}")]
    BadReturn(&'static str),
    /// A closure body (nested range, reduction, scan, single) assigns a local declared outside it.
    #[error(
        "`{0}` is declared outside this team construct's body and cannot be assigned inside it"
    )]
    AssignsOuterLocal(String),
    /// A helper function that can end without returning a value.
    #[error("function can end without returning a value")]
    MissingReturn,

    // ---- context ----
    /// A construct used where it does not exist.
    #[error("{what} is not available {place}")]
    NotAvailable {
        /// The construct.
        what: &'static str,
        /// Where it was used.
        place: &'static str,
    },
    /// A call of a function declared later (functions may call only earlier ones: no recursion).
    #[error("call of `{0}`, which is not declared before the caller (recursion is not supported)")]
    ForwardCall(String),

    // ---- access ----
    /// A store to a read-only View.
    #[error("store to read-only View `{0}`")]
    StoreToReadOnly(String),
    /// An atomic on a read-only View.
    #[error("atomic {} on read-only View `{view}`", .op.name())]
    AtomicOnReadOnly {
        /// The View.
        view: String,
        /// The operation.
        op: AtomicOp,
    },
    /// An atomic on a View not declared `used_atomically`.
    #[error("atomic on View `{0}`, which is not marked used_atomically")]
    AtomicNotDeclared(String),
    /// An atomic the element type does not support.
    #[error("atomic {} is not available for {elem} elements (View `{view}`)", .op.name())]
    AtomicUnsupported {
        /// The View.
        view: String,
        /// The operation.
        op: AtomicOp,
        /// The element type.
        elem: ScalarType,
    },
    /// An atomic yielding the value it stored ([`crate::AtomicResult::New`]) for an operation
    /// that is no read-modify-write (`exchange`, `compare_exchange`, `load`, `store`).
    #[error("atomic {} cannot yield the value it stored (View `{view}`)", .op.name())]
    AtomicNoNewValue {
        /// The View.
        view: String,
        /// The operation.
        op: AtomicOp,
    },

    // ---- barrier ----
    /// A barrier or team-wide construct under control flow that depends on thread-varying values.
    #[error("{0} under control flow that depends on thread-varying values (every thread of the team must reach it)")]
    DivergentTeamOp(&'static str),
    /// A barrier or nested construct inside a nested construct's body that does not allow it.
    #[error("{what} inside a {inside} body")]
    NestedTeamOp {
        /// The construct.
        what: &'static str,
        /// The enclosing body.
        inside: &'static str,
    },
}

fn fmt_types(ts: &[ScalarType]) -> String {
    ts.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ")
}

/// One body to check: the kernel body or a helper function's.
#[derive(Clone, Copy)]
pub struct Body<'a> {
    /// The kernel.
    pub kernel: &'a Kernel,
    /// The body's locals table.
    pub locals: &'a [LocalDecl],
    /// The statements.
    pub block: &'a Block,
    /// `Some(index)` for helper function `index`.
    pub func: Option<usize>,
}

impl<'a> Body<'a> {
    /// The bodies of `kernel`: its functions in order, then the kernel body.
    pub fn all(kernel: &'a Kernel) -> Vec<Body<'a>> {
        let mut out: Vec<Body<'a>> = kernel
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| Body {
                kernel,
                locals: &f.locals,
                block: &f.body,
                func: Some(i),
            })
            .collect();
        out.push(Body {
            kernel,
            locals: &kernel.locals,
            block: &kernel.body,
            func: None,
        });
        out
    }
    /// `body` or `fn <name>`.
    pub fn location(&self) -> String {
        match self.func {
            Some(i) => format!("fn {}", self.kernel.functions[i].name),
            None => "body".to_string(),
        }
    }
    /// The printed name of a local (`name_id`).
    pub fn local_name(&self, id: u32) -> String {
        match self.locals.get(id as usize) {
            Some(d) => format!("{}_{id}", d.name),
            None => format!("_{id}"),
        }
    }
}

/// Checks `kernel` and, when it is valid, describes it.
pub fn validate(kernel: &Kernel) -> Result<KernelInfo, ValidationError> {
    let err = |location: String, kind: ErrorKind| ValidationError {
        kernel: kernel.name.clone(),
        location,
        kind,
    };
    check_signature(kernel).map_err(|k| err("signature".to_string(), k))?;
    for body in Body::all(kernel) {
        let at = |k| err(body.location(), k);
        types::check(body).map_err(at)?;
        scope::check(body).map_err(at)?;
        context::check(body).map_err(at)?;
        access::check(body).map_err(at)?;
        barrier::check(body).map_err(at)?;
    }
    Ok(analyzer::analyze(kernel))
}

fn check_signature(k: &Kernel) -> Result<(), ErrorKind> {
    if let crate::WorkKind::MDRange(n) = k.work {
        if !(2..=6).contains(&n) {
            return Err(ErrorKind::OutOfRange {
                what: "MDRange rank".to_string(),
                value: n,
                allowed: "2..=6",
            });
        }
    }
    for v in &k.views {
        if !v.elem.is_numeric() {
            return Err(ErrorKind::NonNumericElement {
                what: format!("View `{}`", v.name),
                ty: v.elem,
            });
        }
        if v.rank > 8 {
            return Err(ErrorKind::OutOfRange {
                what: format!("rank of View `{}`", v.name),
                value: v.rank,
                allowed: "0..=8",
            });
        }
    }
    for (i, s) in k.scratch.iter().enumerate() {
        if !s.elem.is_numeric() {
            return Err(ErrorKind::NonNumericElement {
                what: format!("scratch{i}"),
                ty: s.elem,
            });
        }
        if s.level > 1 {
            return Err(ErrorKind::OutOfRange {
                what: format!("level of scratch{i}"),
                value: s.level,
                allowed: "0..=1",
            });
        }
    }
    for (i, t) in k.tables.iter().enumerate() {
        if t.values.is_empty() || t.values.len() > crate::ConstTable::MAX_LEN {
            return Err(ErrorKind::OutOfRange {
                what: format!("length of constant table `{}`", t.name),
                value: u32::try_from(t.values.len()).unwrap_or(u32::MAX),
                allowed: "1..=65536",
            });
        }
        if let Some(v) = t.values.iter().find(|v| v.ty() != t.ty) {
            return Err(ErrorKind::TypeMismatch {
                context: format!("element of constant table {i} `{}`", t.name),
                expected: t.ty,
                found: v.ty(),
            });
        }
    }
    if k.is_scan {
        let ok = matches!(k.accumulators.as_slice(), [a] if matches!(a.shape, crate::AccShape::Scalar(t) if t.is_numeric()));
        if !ok {
            return Err(ErrorKind::ScanShape);
        }
    }
    Ok(())
}

/// The names the validator uses for nested kinds in messages.
pub(crate) fn nested_name(kind: rokkos_rules::model::NestedKind) -> &'static str {
    match kind {
        rokkos_rules::model::NestedKind::Thread => "TeamThreadRange",
        rokkos_rules::model::NestedKind::Vector => "ThreadVectorRange",
        rokkos_rules::model::NestedKind::TeamVector => "TeamVectorRange",
    }
}

/// Whether the vector lanes of each thread of team kernel `kernel` (valid) can run in parallel with
/// the effect of running them one after the other, as the host backends do: no write or atomic
/// that several lanes of a thread run on one element (code outside vector ranges and `single`s
/// runs on every lane), no contribution to the launch's accumulator that every lane repeats
/// (lanes fold into copies joined at the end, so it would count once per lane), and no element
/// that two lanes of one thread touch in one phase, one of them writing
/// ([`rokkos_rules::hazard::lanes_independent`]). A backend that runs lanes as
/// parallel invocations uses them only then; `false` for other kernels.
pub fn lanes_independent(kernel: &Kernel) -> bool {
    kernel.work == crate::WorkKind::Team
        && rokkos_rules::hazard::lanes_independent(&model::of_kernel(kernel))
}
