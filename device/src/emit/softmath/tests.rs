//! The library run on the IR evaluator, as the pass adds it to a kernel: against Rust's `std`.

use super::float::LibFloat;
use super::lower_math;
use rokkos_core::ir::build::{Expr, KernelBuilder};
use rokkos_core::ir::eval::{eval_for, ArgValue, Buffer, WorkSet};
use rokkos_core::ir::{Access, Expr as IrExpr, MathFn, WorkKind};

/// `out[i] = func(xs[0][i], xs[1][i], ..)` on the evaluator, with `func` taken from the library.
pub(crate) fn eval_lib<T>(func: MathFn, xs: &[Vec<T>]) -> Vec<T>
where
    T: LibFloat + Default,
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
    assert!(
        lowered.functions.iter().any(|f| f.name.starts_with("rk_")),
        "the pass added the library"
    );
    let mut res = vec![T::default(); n];
    let mut ins: Vec<Vec<T>> = xs.to_vec();
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

/// A small deterministic generator (xorshift64*), so failures reproduce.
pub(crate) struct Rng(pub u64);
impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Floats of every kind for fma: random bit patterns (all binades, subnormals, specials), values
/// near 1, and products that nearly cancel against the addend.
fn fma_cases_f64(n: usize) -> [Vec<f64>; 3] {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let special = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
    ];
    let mut v = [Vec::new(), Vec::new(), Vec::new()];
    for a in special {
        for b in special {
            for c in special {
                v[0].push(a);
                v[1].push(b);
                v[2].push(c);
            }
        }
    }
    while v[0].len() < n {
        let kind = r.next() % 3;
        let (a, b, c) = match kind {
            0 => (
                f64::from_bits(r.next()),
                f64::from_bits(r.next()),
                f64::from_bits(r.next()),
            ),
            1 => {
                let a = 1.0 + (r.next() >> 12) as f64 * 2f64.powi(-52);
                let b = 1.0 + (r.next() >> 12) as f64 * 2f64.powi(-52);
                (a, b, -(a * b))
            }
            _ => {
                // Around the subnormal boundary.
                let a = f64::from_bits((r.next() >> 12) | (600u64 << 52));
                let b = f64::from_bits((r.next() >> 12) | (400u64 << 52));
                let c = -f64::from_bits((r.next() >> 12) | ((r.next() % 3) << 52));
                (a, b, c)
            }
        };
        v[0].push(a);
        v[1].push(b);
        v[2].push(c);
    }
    v
}

/// The library's fma on `a`, `b`, `c` against Rust's `mul_add`, bit for bit (any NaN for a NaN).
fn check_fma<T>(a: Vec<T>, b: Vec<T>, c: Vec<T>)
where
    T: LibFloat + Default + std::fmt::LowerExp,
    for<'a> Buffer<'a>: From<&'a mut Vec<T>>,
{
    let got = eval_lib::<T>(MathFn::MulAdd, &[a.clone(), b.clone(), c.clone()]);
    for i in 0..a.len() {
        let (g, want) = (got[i], a[i].n_mul_add(b[i], c[i]));
        assert!(
            g.n_to_bits() == want.n_to_bits() || (g.n_is_nan() && want.n_is_nan()),
            "fma({:e}, {:e}, {:e}) = {g:e}, want {want:e}",
            a[i],
            b[i],
            c[i],
        );
    }
}

#[test]
fn fma_f64_is_correctly_rounded() {
    let [a, b, c] = fma_cases_f64(6000);
    check_fma(a, b, c);
}

#[test]
fn fma_f32_is_correctly_rounded() {
    let [a, b, c] = fma_cases_f64(6000);
    let narrow = |v: &[f64]| -> Vec<f32> {
        v.iter()
            .enumerate()
            .map(|(i, &x)| {
                // Bit patterns of the random third become random f32 patterns.
                if i % 3 == 0 {
                    f32::from_bits(x.to_bits() as u32)
                } else {
                    x as f32
                }
            })
            .collect()
    };
    check_fma(narrow(&a), narrow(&b), narrow(&c));
}

/// The pass on a kernel with a helper function and a table of its own: the helper's `sin` and
/// the body's `cos` and `exp` become library calls, the library's functions come first (so the
/// kernel's helper, which now calls one, still calls only earlier functions) and its tables
/// after the kernel's, the lowered kernel validates, and it computes what `std` does (within
/// an ulp) with the kernel's table read where it was.
#[test]
fn the_pass_renumbers_functions_and_tables() {
    const T64: rokkos_core::ir::ScalarType = rokkos_core::ir::ScalarType::F64;
    let mut k = KernelBuilder::new("mixed", WorkKind::Range);
    let out = k.view::<f64>("out", 1, Access::Writable);
    let x = k.view::<f64>("x", 1, Access::ReadOnly);
    let scale = k.table::<f64>("scale", &[2.0, 3.0]);
    let twice_sin = k.func::<f64>("twice_sin", |f| {
        let a = f.param::<f64>("a");
        f.return_value(a.get().sin() * 2.0);
    });
    let i = k.work_index(0);
    let xi = x.load(i.clone());
    let v = twice_sin.call(vec![xi.clone().into_ir()])
        + xi.clone().cos() * scale.load(1usize)
        + xi.exp();
    k.store(out, i, v);
    let kernel = k.finish().expect("kernel");
    let lowered = lower_math(&kernel, |f, t| f.is_transcendental() && t == T64).expect("lowered");
    let n = lowered.functions.len();
    assert_eq!(lowered.functions[n - 1].name, "twice_sin");
    assert!(lowered.functions[..n - 1]
        .iter()
        .all(|f| f.name.starts_with("rk_f64_")));
    assert_eq!(lowered.tables[0].name, "scale");
    // No transcendental call is left in the kernel's own code (the library's may call others).
    let mut left = Vec::new();
    let bodies = std::iter::once(&lowered.body).chain([&lowered.functions[n - 1].body]);
    for s in bodies.flatten() {
        s.walk(&mut |s| {
            for e in s.exprs() {
                e.walk(&mut |e| {
                    if let IrExpr::Math { func, .. } = e {
                        if func.is_transcendental() {
                            left.push(func.name());
                        }
                    }
                });
            }
        });
    }
    assert!(left.is_empty(), "{left:?}");
    let xs: Vec<f64> = (0..200).map(|j| j as f64 * 0.37 - 30.0).collect();
    let mut res = vec![0.0; xs.len()];
    let mut xv = xs.clone();
    let mut args = vec![
        ArgValue::view(&mut res, &[xs.len()]),
        ArgValue::view(&mut xv, &[xs.len()]),
    ];
    eval_for(
        &lowered,
        &WorkSet::Range {
            begin: 0,
            end: xs.len() as u64,
        },
        &mut args,
    )
    .expect("the lowered kernel validates and runs");
    for (&x, &g) in xs.iter().zip(&res) {
        let want = x.sin() * 2.0 + x.cos() * 3.0 + x.exp();
        assert!(
            (g - want).abs() <= 4.0 * f64::EPSILON * (want.abs() + 5.0),
            "x = {x}: {g} against {want}"
        );
    }
}
