//! The software math library of the GPU targets, written once as IR: generic Rust that builds
//! each function with the IR builder for `f32` and `f64` alike, added to a kernel by the pass
//! [`lower_math`], which turns the math calls a target takes from the library into calls of those
//! functions. Each emitter then writes them as it writes any `#[rokkos::func]`, so the library has
//! no text in any target language (and no file rewrites one target's text into another's), and
//! the IR evaluator runs it as it is emitted (`tests/softmath_eval.rs` checks it there against
//! Rust's `std` without a GPU).
//!
//! - [`library`]: which [`MathFn`](rokkos_core::ir::MathFn) of which type each entry point
//!   computes;
//! - `exact`: the opaque identity, error-free sums and products, rounding to odd, `ldexp`, and the
//!   correctly rounded `fma` (`mul_add`);
//! - `exp` (`exp`, `exp2`, `sinh`, `cosh`, `tanh`) and `log` (`ln`, `log2`, `log10`, `powf`);
//! - `trig` (`sin`, `cos`, `tan`: the reductions by π/2, Cody–Waite and Payne–Hanek, and the
//!   kernels) and `inverse` (`atan`, `atan2`, `asin`, `acos`);
//! - `roots` (`cbrt`, `hypot`);
//! - `dd` and `float`: pair arithmetic, Horner polynomials, and what the generic source needs of
//!   a float type.
//!
//! Functions that return a pair (a double-double, a reduced argument with its quadrant) are
//! Rust functions that write their statements into the calling function's body, since an IR
//! function returns one value; the others are IR functions, each defined once per kernel under
//! its library name (`rk_f64_sin`). The `f32` functions use no 64-bit integer, so they run on
//! devices without SHADER_INT64.
//!
//! What a target takes from the library is its own choice (its `software` predicate): WGSL takes
//! every transcendental function of both types (its built-ins are not within the precision
//! contract, and SPIR-V has no f64 ones) and `mul_add` (WGSL's `fma` need not be fused); CUDA
//! takes the f64 functions its own library documents above 1 ulp, and none of `mul_add`.

mod dd;
mod exact;
mod exp;
mod float;
mod inverse;
pub mod library;
mod log;
mod lower;
mod roots;
mod trig;

pub use lower::lower_math;

#[cfg(test)]
mod tests;
