//! How an operation makes its work item fail: the arithmetic failures of the IR, each with the
//! message Rust's own panic prints.
//!
//! The native path panics with these messages (Rust's own checks); the reference evaluator returns
//! `rokkos_core::ir::eval::EvalError::Failed` with them, and a device backend records the failure and
//! reports it as `rokkos_core::Error::KernelFailed` with the same text. Division and remainder failures
//! happen in every build, as Rust panics on them in release builds too; the overflow failures only
//! in a kernel recorded with [`crate::Kernel::overflow_checks`] (its crate was built with debug
//! assertions, where Rust checks overflow), and wrap otherwise.

/// An arithmetic failure of a work item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Failure {
    /// `a + b` overflowed.
    AddOverflow,
    /// `a - b` overflowed.
    SubOverflow,
    /// `a * b` overflowed.
    MulOverflow,
    /// `-a` or `a.abs()` of a signed integer's `MIN`.
    NegOverflow,
    /// `a << b` with `b` at least the width of `a` (or negative).
    ShlOverflow,
    /// `a >> b` with `b` at least the width of `a` (or negative).
    ShrOverflow,
    /// An integer `a / 0`.
    DivByZero,
    /// `MIN / -1` of a signed integer.
    DivOverflow,
    /// An integer `a % 0`.
    RemByZero,
    /// `MIN % -1` of a signed integer.
    RemOverflow,
}

impl Failure {
    /// Every failure, in declaration order (device backends number them by position).
    pub const ALL: [Failure; 10] = [
        Failure::AddOverflow,
        Failure::SubOverflow,
        Failure::MulOverflow,
        Failure::NegOverflow,
        Failure::ShlOverflow,
        Failure::ShrOverflow,
        Failure::DivByZero,
        Failure::DivOverflow,
        Failure::RemByZero,
        Failure::RemOverflow,
    ];

    /// What Rust's panic says.
    ///
    /// ```
    /// use rokkos_ir::ops::Failure;
    /// let r = std::panic::catch_unwind(|| std::hint::black_box(i32::MIN) / std::hint::black_box(-1));
    /// let msg = r.unwrap_err().downcast::<&str>().map(|s| *s).unwrap_or("");
    /// assert_eq!(msg, Failure::DivOverflow.message());
    /// ```
    pub fn message(self) -> &'static str {
        match self {
            Failure::AddOverflow => "attempt to add with overflow",
            Failure::SubOverflow => "attempt to subtract with overflow",
            Failure::MulOverflow => "attempt to multiply with overflow",
            Failure::NegOverflow => "attempt to negate with overflow",
            Failure::ShlOverflow => "attempt to shift left with overflow",
            Failure::ShrOverflow => "attempt to shift right with overflow",
            Failure::DivByZero => "attempt to divide by zero",
            Failure::DivOverflow => "attempt to divide with overflow",
            Failure::RemByZero => "attempt to calculate the remainder with a divisor of zero",
            Failure::RemOverflow => "attempt to calculate the remainder with overflow",
        }
    }

    /// Whether the failure happens only in kernels recorded with overflow checks (the overflows of
    /// `+ - * << >>`, negation and `abs`); the division and remainder failures happen in every build.
    pub fn needs_overflow_checks(self) -> bool {
        !matches!(
            self,
            Failure::DivByZero | Failure::DivOverflow | Failure::RemByZero | Failure::RemOverflow
        )
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}
