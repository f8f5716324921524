//! The software math library (`rokkos_device::emit::softmath`) run on the IR evaluator, as the
//! pass adds it to a kernel, without any GPU: the f64 functions on the cases and the check of the
//! GPU targets' tests (`backend-wgpu/tests/support/math_f64_cases.rs`: the spread within the
//! case's ulp bound of Rust's `std`, the edge cases' special values bit for bit), and the f32
//! functions within 1 ulp of the exact value (the f64 function of the widened arguments) with
//! Rust's special values. A function the library does not implement yet is skipped, and said.

use rokkos_core::ir::build::{Expr, IrFloat, KernelBuilder};
use rokkos_core::ir::eval::{eval_for, ArgValue, Buffer, WorkSet};
use rokkos_core::ir::{Access, Expr as IrExpr, MathFn, ScalarType, WorkKind};
use rokkos_device::emit::softmath::{library, lower_math};

#[path = "../../backend-wgpu/tests/support/math_f64_cases.rs"]
mod cases;

/// The functions of the cases, by their number there.
const FUNCS: [MathFn; 18] = [
    MathFn::Sin,
    MathFn::Cos,
    MathFn::Tan,
    MathFn::Asin,
    MathFn::Acos,
    MathFn::Atan,
    MathFn::Sinh,
    MathFn::Cosh,
    MathFn::Tanh,
    MathFn::Exp,
    MathFn::Exp2,
    MathFn::Ln,
    MathFn::Log2,
    MathFn::Log10,
    MathFn::Cbrt,
    MathFn::Atan2,
    MathFn::Powf,
    MathFn::Hypot,
];

/// `func` of the library on `xs` (one Vec per argument), on the evaluator.
fn eval_lib<T>(func: MathFn, xs: &[Vec<T>]) -> Vec<T>
where
    T: IrFloat + Default,
    for<'a> Buffer<'a>: From<&'a mut Vec<T>>,
{
    let n = xs[0].len();
    let mut k = KernelBuilder::new("lib", WorkKind::Range);
    let out = k.view::<T>("out", 1, Access::Writable);
    let ins: Vec<_> = (0..xs.len())
        .map(|j| k.view::<T>(&format!("x{j}"), 1, Access::ReadOnly))
        .collect();
    let i = k.work_index(0);
    let args = ins.iter().map(|v| v.load(i.clone()).into_ir()).collect();
    k.store(out, i, Expr::<T>::from_ir(IrExpr::Math { func, args }));
    let kernel = k.finish().expect("kernel");
    let lowered = lower_math(&kernel, |f, t| f == func && t == T::TYPE).expect("lowered");
    let mut res = vec![T::default(); n];
    let mut ins = xs.to_vec();
    let mut args = vec![ArgValue::view(&mut res, &[n])];
    for x in ins.iter_mut() {
        args.push(ArgValue::view(x, &[n]));
    }
    eval_for(
        &lowered,
        &WorkSet::Range {
            begin: 0,
            end: n as u64,
        },
        &mut args,
    )
    .expect("evaluated");
    res
}

fn check_f64(group: Vec<cases::Case>) {
    for c in group {
        let func = FUNCS[c.f as usize];
        if !library::implements(func, ScalarType::F64) {
            eprintln!("f64 {}: not in the IR library yet", func.name());
            continue;
        }
        let inputs = c.inputs();
        let mut xs = vec![inputs.iter().map(|p| p.0).collect::<Vec<f64>>()];
        if func.arity() == 2 {
            xs.push(inputs.iter().map(|p| p.1).collect());
        }
        let got = eval_lib::<f64>(func, &xs);
        cases::check(&c, &got, "IR evaluator");
    }
}

#[test]
fn f64_trig() {
    check_f64(cases::trig());
}
#[test]
fn f64_inverse_trig() {
    check_f64(cases::inverse_trig());
}
#[test]
fn f64_atan2() {
    check_f64(cases::atan2());
}
#[test]
fn f64_hyperbolic() {
    check_f64(cases::hyperbolic());
}
#[test]
fn f64_exponentials() {
    check_f64(cases::exponentials());
}
#[test]
fn f64_logarithms() {
    check_f64(cases::logarithms());
}
#[test]
fn f64_cbrt() {
    check_f64(cases::cbrt());
}
#[test]
fn f64_hypot() {
    check_f64(cases::hypot());
}
#[test]
fn f64_powf() {
    check_f64(cases::powf());
}

/// The f32 inputs of function `f` (a row of [`FUNCS`]): the f64 cases' inputs rounded to f32 (the
/// ones that stay finite), random bit patterns, and every power of two.
fn f32_inputs(f: usize) -> Vec<(f32, f32)> {
    let groups = [
        cases::trig(),
        cases::inverse_trig(),
        cases::atan2(),
        cases::hyperbolic(),
        cases::exponentials(),
        cases::logarithms(),
        cases::cbrt(),
        cases::hypot(),
        cases::powf(),
    ];
    let mut v: Vec<(f32, f32)> = groups
        .iter()
        .flatten()
        .filter(|c| c.f as usize == f)
        .flat_map(|c| c.inputs())
        .map(|(x, y)| (x as f32, y as f32))
        .collect();
    let mut s = 0x853c_49e6_748f_ea9bu64;
    for _ in 0..4000 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        v.push((f32::from_bits(s as u32), f32::from_bits((s >> 32) as u32)));
    }
    for e in -149..128 {
        let p = 2f32.powi(e);
        v.push((p, 1.5));
        v.push((-p, -0.5));
    }
    v
}

/// Rust's f32 function `f`, and the exact value (the f64 function of the widened arguments).
fn f32_refs(f: usize, x: f32, y: f32) -> (f32, f64) {
    let (xd, yd) = (x as f64, y as f64);
    let exact = cases::std_fn(f as u8, xd, yd);
    let rust = match f {
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
        15 => x.atan2(y),
        16 => x.powf(y),
        _ => x.hypot(y),
    };
    (rust, exact)
}

/// The error of `got` against the exact `want`, in ulps of f32 at `want`.
fn ulp_error(got: f32, want: f64) -> f64 {
    // Below the normal range the ulp is the subnormals' spacing, 2^-149.
    let e = want.abs().log2().floor().max(-126.0);
    ((got as f64 - want).abs()) / 2f64.powi(e as i32 - 23)
}

#[test]
fn f32_functions_are_faithful() {
    let mut failures = Vec::new();
    for (f, &func) in FUNCS.iter().enumerate() {
        if !library::implements(func, ScalarType::F32) {
            eprintln!("f32 {}: not in the IR library yet", func.name());
            continue;
        }
        let inputs = f32_inputs(f);
        let mut xs = vec![inputs.iter().map(|p| p.0).collect::<Vec<f32>>()];
        if func.arity() == 2 {
            xs.push(inputs.iter().map(|p| p.1).collect());
        }
        let got = eval_lib::<f32>(func, &xs);
        let mut worst = 0.0f64;
        for (&(x, y), &g) in inputs.iter().zip(&got) {
            let (rust, exact) = f32_refs(f, x, y);
            let special = rust.is_nan() || rust.is_infinite() || rust == 0.0;
            let ok = if special {
                g.to_bits() == rust.to_bits() || (g.is_nan() && rust.is_nan())
            } else if exact.abs() > f32::MAX as f64 {
                // Within an ulp of overflow: f32::MAX or infinity.
                g.abs() >= f32::MAX
            } else {
                let e = ulp_error(g, exact);
                worst = worst.max(e);
                e <= 1.0
            };
            if !ok && failures.len() < 20 {
                failures.push(format!(
                    "{}({x:e}, {y:e}) = {g:e}, exact {exact:e}, Rust {rust:e}",
                    func.name()
                ));
            }
        }
        eprintln!(
            "f32 {}: max {worst:.3} ulp from the exact value",
            func.name()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
