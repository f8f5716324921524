//! The software f64 transcendental functions (`rokkos_device::emit::softmath`) on the wgpu
//! backend against Rust's `std`: one kernel per function applied to a View of inputs. The inputs,
//! the bounds and the check are shared with the CUDA C host test and the IR evaluator's test
//! ([`support/math_f64_cases.rs`](support/math_f64_cases.rs)).
//!
//! Without an adapter, or without SHADER_F64, each test prints why and passes, unless
//! `ROKKOS_REQUIRE_WGPU=1` (then a missing adapter fails, as in the other wgpu tests).

use rokkos_core::ir::build::{BuildError, Expr, KernelBuilder};
use rokkos_core::ir::{self, Access};
use rokkos_core::kernel::*;
use rokkos_core::*;
use rokkos_wgpu::{Wgpu, WgpuSpace};

mod common;
use common::{space, NoBody};
#[path = "support/math_f64_cases.rs"]
mod cases;
use cases::BINARY;

type DView = View<f64, 1, LayoutRight, WgpuSpace>;

// ---- the functions ----

fn ir_unary(f: u8, x: Expr<f64>) -> Expr<f64> {
    match f {
        0 => x.sin(),
        1 => x.cos(),
        2 => x.tan(),
        3 => x.asin(),
        4 => x.acos(),
        5 => x.atan(),
        6 => x.sinh(),
        7 => x.cosh(),
        8 => x.tanh(),
        9 => x.exp(),
        10 => x.exp2(),
        11 => x.ln(),
        12 => x.log2(),
        13 => x.log10(),
        14 => x.cbrt(),
        _ => unreachable!(),
    }
}
fn ir_binary(f: u8, x: Expr<f64>, y: Expr<f64>) -> Expr<f64> {
    match f {
        15 => x.atan2(y),
        16 => x.powf(y),
        17 => x.hypot(y),
        _ => unreachable!(),
    }
}
/// `out[i] = f(x[i], y[i])` (`y` unused by the functions of one argument).
struct Apply<'k, const F: u8> {
    out: &'k DView,
    x: &'k DView,
    y: &'k DView,
}
impl<const F: u8> Kernel for Apply<'_, F> {
    const NAME: &'static str = "math_f64";
    type Space = WgpuSpace;
    fn visit_views<'a>(&'a self, f: &mut dyn FnMut(ViewArg<'a>)) {
        f(self.out.__kernel_arg("out", true));
        f(self.x.__kernel_arg("x", false));
        if F >= BINARY {
            f(self.y.__kernel_arg("y", false));
        }
    }
}
impl<const F: u8> ForKernel<RangeWork> for Apply<'_, F> {
    type Body<'a>
        = NoBody
    where
        Self: 'a;
    unsafe fn bind(&self) -> NoBody {
        NoBody
    }
}
impl<const F: u8> KernelIr for Apply<'_, F> {
    fn build_ir() -> Result<ir::Kernel, BuildError> {
        let mut kb = KernelBuilder::new("math_f64", ir::WorkKind::Range);
        let i = kb.work_index(0);
        let out = kb.view::<f64>("out", 1, Access::Writable);
        let x = kb.view::<f64>("x", 1, Access::ReadOnly);
        let v = if F >= BINARY {
            let y = kb.view::<f64>("y", 1, Access::ReadOnly);
            ir_binary(F, x.load(i.clone()), y.load(i.clone()))
        } else {
            ir_unary(F, x.load(i.clone()))
        };
        kb.store(out, i, v);
        kb.finish()
    }
    fn visit_args<'a>(&'a self, f: &mut dyn FnMut(KernelArg<'a, WgpuSpace>)) {
        f(KernelArg::View(self.out.__binding("out", true)));
        f(KernelArg::View(self.x.__binding("x", false)));
        if F >= BINARY {
            f(KernelArg::View(self.y.__binding("y", false)));
        }
    }
}

fn upload(s: &Wgpu, v: &[f64]) -> DView {
    let h = View::<f64>::from_fn("h", [v.len()], |[i]| v[i]).unwrap();
    let d = DView::new_in(&s.memory_space(), "d", [v.len()]).unwrap();
    deep_copy(&d, &h).unwrap();
    d
}

/// Runs function `F` on the device over `(x, y)` pairs.
fn run<const F: u8>(s: &Wgpu, xs: &[f64], ys: &[f64]) -> Vec<f64> {
    let n = xs.len();
    let (x, y) = (upload(s, xs), upload(s, ys));
    let out = DView::new_in(&s.memory_space(), "out", [n]).unwrap();
    parallel_for(
        "math_f64",
        RangePolicy::new(s, 0..n),
        Apply::<F> {
            out: &out,
            x: &x,
            y: &y,
        },
    )
    .unwrap();
    let h = View::<f64>::new("h", [n]).unwrap();
    deep_copy(&h, &out).unwrap();
    (0..n).map(|i| h.get([i])).collect()
}

/// The wgpu space if it has f64, else `None` after saying why.
fn f64_space() -> Option<Wgpu> {
    let s = space()?;
    // A kernel on f64 answers Err(Unsupported) on adapters without SHADER_F64.
    let probe = parallel_for(
        "math_f64",
        RangePolicy::new(&s, 0..1),
        Apply::<9> {
            out: &upload(&s, &[0.0]),
            x: &upload(&s, &[0.0]),
            y: &upload(&s, &[0.0]),
        },
    );
    match probe {
        Ok(()) => Some(s),
        Err(e) => {
            eprintln!("skipping f64 math test: {e}");
            None
        }
    }
}

/// Runs function `f` on the device over `(x, y)` pairs.
fn run_f(s: &Wgpu, f: u8, xs: &[f64], ys: &[f64]) -> Vec<f64> {
    match f {
        0 => run::<0>(s, xs, ys),
        1 => run::<1>(s, xs, ys),
        2 => run::<2>(s, xs, ys),
        3 => run::<3>(s, xs, ys),
        4 => run::<4>(s, xs, ys),
        5 => run::<5>(s, xs, ys),
        6 => run::<6>(s, xs, ys),
        7 => run::<7>(s, xs, ys),
        8 => run::<8>(s, xs, ys),
        9 => run::<9>(s, xs, ys),
        10 => run::<10>(s, xs, ys),
        11 => run::<11>(s, xs, ys),
        12 => run::<12>(s, xs, ys),
        13 => run::<13>(s, xs, ys),
        14 => run::<14>(s, xs, ys),
        15 => run::<15>(s, xs, ys),
        16 => run::<16>(s, xs, ys),
        17 => run::<17>(s, xs, ys),
        _ => unreachable!(),
    }
}

/// Runs and checks every case of one test group.
fn check_all(group: Vec<cases::Case>) {
    let Some(s) = f64_space() else { return };
    for c in group {
        let all = c.inputs();
        let xs: Vec<f64> = all.iter().map(|p| p.0).collect();
        let ys: Vec<f64> = all.iter().map(|p| p.1).collect();
        let got = run_f(&s, c.f, &xs, &ys);
        cases::check(&c, &got, "wgpu");
    }
}

#[test]
fn trig() {
    check_all(cases::trig());
}
#[test]
fn inverse_trig() {
    check_all(cases::inverse_trig());
}
#[test]
fn atan2() {
    check_all(cases::atan2());
}
#[test]
fn hyperbolic() {
    check_all(cases::hyperbolic());
}
#[test]
fn exponentials() {
    check_all(cases::exponentials());
}
#[test]
fn logarithms() {
    check_all(cases::logarithms());
}
#[test]
fn cbrt() {
    check_all(cases::cbrt());
}
#[test]
fn hypot() {
    check_all(cases::hypot());
}
#[test]
fn powf() {
    check_all(cases::powf());
}
