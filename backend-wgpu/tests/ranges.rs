//! Counted `for` loops in WGSL against the reference evaluator: inclusive (`a..=b`) and half-open
//! ranges with `.step_by(k)`, `.rev()` in both orders, `continue` and `break`, over bounds at the
//! extremes of `i32`, `u32`, `i64` and `u64`. Covers `(a..=b).step_by(k).rev()`, which the IR has
//! although `#[kernel]` cannot record it (Rust's `StepBy<RangeInclusive<u32>>` is not
//! double-ended). Without an adapter each test prints why and passes, unless
//! `ROKKOS_REQUIRE_WGPU=1`.

use rokkos_core::ir::build::{BuildError, Expr, IrInt, KernelBuilder};
use rokkos_core::ir::eval::{eval_for, ArgValue, Buffer, WorkSet};
use rokkos_core::ir::{self, Access};
use rokkos_core::kernel::*;
use rokkos_core::*;
use rokkos_wgpu::WgpuSpace;

mod common;
use common::{space, NoBody};

type DView<T, const R: usize = 1> = View<T, R, LayoutRight, WgpuSpace>;

/// The loops per work item: inclusive then half-open, each as `.step_by(k)`,
/// `.step_by(k).rev()` and `.rev().step_by(k)`.
const LOOPS: usize = 6;

/// Values a loop fingerprints before it `break`s, so ranges spanning a whole type end quickly.
const CAP: u32 = 20;

/// Work item `i` runs the [`LOOPS`] loops over `a[i]..=b[i]` (or `a[i]..b[i]`) with step `k[i]`;
/// `out(i, loop)` is `h = h * 31 + v as u64` over the values visited, skipping (`continue`) those
/// with `v % 3 == 1`, stopping (`break`) after [`CAP`] values. The step is of the counter's type
/// `T`, or a `u64` (Rust's `usize` argument of `step_by`, as `#[kernel]` records a run-time step)
/// when `S` is `u64` and `T` is not.
struct Loops<'k, T: Pod, S: Pod = T> {
    a: &'k DView<T>,
    b: &'k DView<T>,
    k: &'k DView<S>,
    out: &'k DView<u64, 2>,
}
impl<T: Pod, S: Pod> Kernel for Loops<'_, T, S> {
    const NAME: &'static str = "loops";
    type Space = WgpuSpace;
    fn visit_views<'a>(&'a self, f: &mut dyn FnMut(ViewArg<'a>)) {
        f(self.a.__kernel_arg("a", false));
        f(self.b.__kernel_arg("b", false));
        f(self.k.__kernel_arg("k", false));
        f(self.out.__kernel_arg("out", true));
    }
}
impl<T: Pod, S: Pod> ForKernel<RangeWork> for Loops<'_, T, S> {
    type Body<'a>
        = NoBody
    where
        Self: 'a;
    unsafe fn bind(&self) -> NoBody {
        NoBody
    }
}
impl<T: Pod + IrInt, S: Pod + IrInt> KernelIr for Loops<'_, T, S> {
    fn build_ir() -> Result<ir::Kernel, BuildError> {
        let mut kb = KernelBuilder::new("loops", ir::WorkKind::Range);
        let i = kb.work_index(0);
        let a = kb.view::<T>("a", 1, Access::ReadOnly);
        let b = kb.view::<T>("b", 1, Access::ReadOnly);
        let k = kb.view::<S>("k", 1, Access::ReadOnly);
        let by_usize = S::TYPE != T::TYPE;
        let out = kb.view::<u64>("out", 2, Access::Writable);
        let lit = |x: u32| Expr::<u32>::lit(x).cast::<T>();
        for col in 0..LOOPS {
            let inclusive = col < 3;
            let lo = kb.let_("lo", a.load(i.clone()));
            let hi = kb.let_("hi", b.load(i.clone()));
            let st = kb.let_("st", k.load(i.clone()));
            let (h, c) = (kb.let_("h", 0u64), kb.let_("c", 0u32));
            let open = |kb: &mut KernelBuilder, name, s: Expr<T>, e: Expr<T>, rev| {
                let step = st.get().into_ir();
                match (inclusive, by_usize) {
                    (true, false) => {
                        kb.for_range_step_inclusive(name, s, e, Expr::<T>::from_ir(step), rev)
                    }
                    (false, false) => kb.for_range_step(name, s, e, Expr::<T>::from_ir(step), rev),
                    (true, true) => {
                        kb.for_range_step_by_inclusive(name, s, e, Expr::from_ir(step), rev)
                    }
                    (false, true) => kb.for_range_step_by(name, s, e, Expr::from_ir(step), rev),
                }
            };
            let v = match col % 3 {
                0 => open(&mut kb, "v", lo.get(), hi.get(), false),
                1 => open(&mut kb, "v", lo.get(), hi.get(), true),
                // `.rev().step_by(k)` as `#[kernel]` records it.
                _ => {
                    let j = open(&mut kb, "j", lo.get(), hi.get(), false);
                    let top = if inclusive {
                        hi.get()
                    } else {
                        hi.get() - lit(1)
                    };
                    kb.let_("v", top - (j.get() - lo.get()))
                }
            };
            kb.assign(c, c.get() + 1u32);
            kb.if_(c.get().gt(CAP));
            kb.break_();
            kb.end();
            kb.if_((v.get() % lit(3)).eq_(lit(1)));
            kb.continue_();
            kb.end();
            kb.assign(h, h.get() * 31u64 + v.get().cast::<u64>());
            kb.end();
            kb.store(out, (i.clone(), col), h.get());
        }
        kb.finish()
    }
    fn visit_args<'a>(&'a self, f: &mut dyn FnMut(KernelArg<'a, WgpuSpace>)) {
        f(KernelArg::View(self.a.__binding("a", false)));
        f(KernelArg::View(self.b.__binding("b", false)));
        f(KernelArg::View(self.k.__binding("k", false)));
        f(KernelArg::View(self.out.__binding("out", true)));
    }
}

/// Every `(a, b, k)` from bounds near the type's minimum, zero and maximum and steps up to the
/// maximum: runs [`Loops`] on wgpu and in the evaluator, and compares all fingerprints.
fn case<T, S>(name: &str, points: &[T], steps: &[S])
where
    T: Pod + IrInt + std::fmt::Debug,
    S: Pod + IrInt + std::fmt::Debug,
    for<'x> &'x mut Vec<T>: Into<Buffer<'x>>,
    for<'x> &'x mut Vec<S>: Into<Buffer<'x>>,
{
    let Some(s) = space() else { return };
    let mut cases = Vec::new();
    for &a in points {
        for &b in points {
            for &k in steps {
                cases.push((a, b, k));
            }
        }
    }
    let n = cases.len();
    let col = |f: fn(&(T, T, S)) -> T| cases.iter().map(f).collect::<Vec<T>>();
    let (mut av, mut bv) = (col(|c| c.0), col(|c| c.1));
    let mut kv: Vec<S> = cases.iter().map(|c| c.2).collect();
    fn upload<E: Pod>(s: &rokkos_wgpu::Wgpu, label: &str, data: &[E]) -> DView<E> {
        let h = View::<E, 1>::from_vec(label, [data.len()], data.to_vec()).unwrap();
        let d = DView::<E>::new_in(&s.memory_space(), label, [data.len()]).unwrap();
        deep_copy(&d, &h).unwrap();
        d
    }
    let (a, b, k) = (
        upload(&s, "a", &av),
        upload(&s, "b", &bv),
        upload(&s, "k", &kv),
    );
    let out = DView::<u64, 2>::new_in(&s.memory_space(), "out", [n, LOOPS]).unwrap();
    let r = parallel_for(
        "loops",
        RangePolicy::new(&s, 0..n),
        Loops {
            a: &a,
            b: &b,
            k: &k,
            out: &out,
        },
    );
    if let Err(Error::Unsupported { feature, .. }) = &r {
        assert!(
            !s.has_int64(),
            "{name}: refused with 64-bit integers: {feature}"
        );
        eprintln!("skipping {name}: {feature}");
        return;
    }
    r.unwrap();
    let h = View::<u64, 2>::new("h", [n, LOOPS]).unwrap();
    deep_copy(&h, &out).unwrap();
    let got = h.to_vec();

    let kernel = Loops::<T, S>::build_ir().unwrap();
    let mut want = vec![0u64; n * LOOPS];
    let mut args = vec![
        ArgValue::view(&mut av, &[n]),
        ArgValue::view(&mut bv, &[n]),
        ArgValue::view(&mut kv, &[n]),
        ArgValue::view(&mut want, &[n, LOOPS]),
    ];
    let work = WorkSet::Range {
        begin: 0,
        end: n as u64,
    };
    eval_for(&kernel, &work, &mut args).unwrap();
    drop(args);
    for (c, (a, b, k)) in cases.iter().enumerate() {
        for l in 0..LOOPS {
            assert_eq!(
                got[c * LOOPS + l],
                want[c * LOOPS + l],
                "{name}: loop {l} ({}, {}) over {a:?}, {b:?} step {k:?}",
                if l < 3 { "inclusive" } else { "half-open" },
                ["step_by", "step_by.rev", "rev.step_by"][l % 3]
            );
        }
    }
}

#[test]
fn u32_loops_match_the_evaluator() {
    let m = u32::MAX;
    case::<u32, u32>(
        "u32",
        &[0, 1, 2, 3, m - 4, m - 3, m - 1, m],
        &[1, 2, 3, m / 2 + 1, m],
    );
}

#[test]
fn i32_loops_match_the_evaluator() {
    let (lo, hi) = (i32::MIN, i32::MAX);
    case::<i32, i32>(
        "i32",
        &[lo, lo + 1, lo + 3, -1, 0, 2, hi - 3, hi - 1, hi],
        &[1, 2, 3, hi / 2 + 1, hi],
    );
}

#[test]
fn u64_loops_match_the_evaluator() {
    let m = u64::MAX;
    case::<u64, u64>("u64", &[0, 1, 3, m - 4, m - 1, m], &[1, 2, 3, m / 2 + 1, m]);
}

#[test]
fn i64_loops_match_the_evaluator() {
    let (lo, hi) = (i64::MIN, i64::MAX);
    case::<i64, i64>(
        "i64",
        &[lo, lo + 1, lo + 3, -1, 0, 2, hi - 3, hi - 1, hi],
        &[1, 2, 3, hi / 2 + 1, hi],
    );
}

/// Run-time `usize` steps (a `u64` in the IR) on 32-bit counters: steps beyond the counter's
/// range visit the first value only, as in Rust, where a cast to the counter's type would wrap.
#[test]
fn usize_steps_on_32_bit_counters_match_the_evaluator() {
    let steps = [
        1u64,
        3,
        (1 << 31) - 1,
        1 << 31,
        (1 << 32) - 1,
        1 << 32,
        (1 << 32) + 1,
        1 << 63,
        u64::MAX,
    ];
    let m = u32::MAX;
    case::<u32, u64>("u32, usize steps", &[0, 1, 3, m - 4, m - 1, m], &steps);
    let (lo, hi) = (i32::MIN, i32::MAX);
    case::<i32, u64>(
        "i32, usize steps",
        &[lo, lo + 1, -1, 0, 2, hi - 1, hi],
        &steps,
    );
}

#[test]
fn usize_steps_on_64_bit_counters_match_the_evaluator() {
    let steps = [1u64, 3, 1 << 32, 1 << 63, u64::MAX];
    let (lo, hi) = (i64::MIN, i64::MAX);
    case::<i64, u64>("i64, usize steps", &[lo, lo + 1, -1, 0, hi - 1, hi], &steps);
}
