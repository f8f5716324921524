//! Sample kernels, recorded through the builder the way the macro drives it, shared by the tests of
//! the evaluator (`rokkos-core`) and of the emitters (`rokkos-device`). Each function's doc shows
//! the Rust kernel it stands for.

use crate::build::{select, KernelBuilder};
use crate::{Access, Kernel, NestedKind, ReducerKind, ScratchScope, SingleKind, WorkKind};

/// ```ignore
/// fn triad(i: usize, a: ViewMut<f64>, b: View<f64>, c: View<f64>, s: f64) { a[i] = b[i] + s * c[i]; }
/// ```
pub fn triad() -> Kernel {
    let mut k = KernelBuilder::new("triad", WorkKind::Range);
    let i = k.work_index(0);
    let a = k.view::<f64>("a", 1, Access::Writable);
    let b = k.view::<f64>("b", 1, Access::ReadOnly);
    let c = k.view::<f64>("c", 1, Access::ReadOnly);
    let s = k.scalar::<f64>("s");
    k.store(a, i.clone(), b.load(i.clone()) + s.get() * c.load(i));
    k.finish().unwrap()
}

/// ```ignore
/// fn dot(i: usize, acc: &mut f64, a: View<f64>, b: View<f64>) { *acc += a[i] * b[i]; }
/// ```
pub fn dot() -> Kernel {
    let mut k = KernelBuilder::new("dot", WorkKind::Range);
    let i = k.work_index(0);
    let acc = k.acc::<f64>("acc");
    let a = k.view::<f64>("a", 1, Access::ReadOnly);
    let b = k.view::<f64>("b", 1, Access::ReadOnly);
    k.acc_set(acc, acc.get() + a.load(i.clone()) * b.load(i));
    k.finish().unwrap()
}

/// ```ignore
/// fn min_max(i: usize, mn: &mut i64, mx: &mut i64, a: View<i64>) {
///     let x = a[i];
///     if x < *mn { *mn = x; }
///     *mx = (*mx).max(x);
/// }
/// ```
pub fn min_max() -> Kernel {
    let mut k = KernelBuilder::new("min_max", WorkKind::Range);
    let i = k.work_index(0);
    let mn = k.acc::<i64>("mn");
    let mx = k.acc::<i64>("mx");
    let a = k.view::<i64>("a", 1, Access::ReadOnly);
    let x = k.let_("x", a.load(i));
    k.if_(x.get().lt(mn));
    k.acc_set(mn, x);
    k.end();
    k.acc_set(mx, mx.get().max(x));
    k.finish().unwrap()
}

/// ```ignore
/// fn min_loc(i: usize, acc: &mut ValLoc<f32>, a: View<f32>) {
///     if a[i] < acc.val { acc.val = a[i]; acc.loc = i; }
/// }
/// ```
pub fn min_loc() -> Kernel {
    let mut k = KernelBuilder::new("min_loc", WorkKind::Range);
    let i = k.work_index(0);
    let (val, loc) = k.acc_valloc::<f32>("acc");
    let a = k.view::<f32>("a", 1, Access::ReadOnly);
    k.if_(a.load(i.clone()).lt(val));
    k.acc_set(val, a.load(i.clone()));
    k.acc_set(loc, i);
    k.end();
    k.finish().unwrap()
}

/// ```ignore
/// fn prefix(i: usize, partial: &mut u64, final_: bool, a: View<u32>, out: ViewMut<u64>) {
///     let x = a[i] as u64;
///     if final_ { out[i] = *partial; }
///     *partial += x;
/// }
/// ```
pub fn prefix_scan() -> Kernel {
    let mut k = KernelBuilder::new("prefix", WorkKind::Range);
    let i = k.work_index(0);
    let partial = k.scan_partial::<u64>("partial");
    let a = k.view::<u32>("a", 1, Access::ReadOnly);
    let out = k.view::<u64>("out", 1, Access::Writable);
    let x = k.let_("x", a.load(i.clone()).cast::<u64>());
    let fin = k.is_final();
    k.if_(fin);
    k.store(out, i, partial);
    k.end();
    k.acc_set(partial, partial.get() + x);
    k.finish().unwrap()
}

/// ```ignore
/// fn axpy_t(ij: (usize, usize), c: ViewMut<f32, 2>, a: View<f32, 2>, b: View<f32, 2>) {
///     let (i, j) = ij;
///     c[(i, j)] = a[(i, j)] * 2.0 + b[(j, i)].abs();
/// }
/// ```
pub fn md_2d() -> Kernel {
    let mut k = KernelBuilder::new("axpy_t", WorkKind::MDRange(2));
    let (i, j) = (k.work_index(0), k.work_index(1));
    let c = k.view::<f32>("c", 2, Access::Writable);
    let a = k.view::<f32>("a", 2, Access::ReadOnly);
    let b = k.view::<f32>("b", 2, Access::ReadOnly);
    let v = a.load((i.clone(), j.clone())) * 2.0 + b.load((j.clone(), i.clone())).abs();
    k.store(c, (i, j), v);
    k.finish().unwrap()
}

/// ```ignore
/// fn row_sums(team: &TeamMember, a: View<f64, 2>, out: ViewMut<f64>) {
///     let r = team.league_rank();
///     let m = a.extent(1);
///     let tmp = team.team_scratch::<f64, 1>(0, [m]);
///     for j in team.thread_range(m) { tmp[j] = a[(r, j)] * 2.0; }
///     team.team_barrier();
///     let sum = team.thread_reduce(m, Sum, |j, acc| *acc += tmp[j]);
///     let first = team.team_broadcast(tmp[0], 0);
///     team.single_team(|| { out[r] = sum + first; });
/// }
/// ```
pub fn team_rows() -> Kernel {
    let mut k = KernelBuilder::new("row_sums", WorkKind::Team);
    let a = k.view::<f64>("a", 2, Access::ReadOnly);
    let out = k.view::<f64>("out", 1, Access::Writable);
    let team = k.team();
    let r = k.let_("r", team.league_rank());
    let m = k.let_("m", a.extent(1));
    let tmp = k.scratch::<f64>(0, ScratchScope::Team, [m.get()]);
    let j = k.nested_for(NestedKind::Thread, "j", 0, m);
    k.store(tmp, j, a.load((r.get(), j.get())) * 2.0);
    k.end();
    k.barrier();
    let red = k.nested_reduce::<f64>(NestedKind::Thread, "sum", 0, m, ReducerKind::Sum);
    k.assign(red.acc, red.acc.get() + tmp.load(red.index));
    k.end();
    let first = k.broadcast("first", tmp.load(0), 0);
    k.single(SingleKind::Team);
    k.store(out, r, red.result.get() + first.get());
    k.end();
    k.finish().unwrap()
}

/// ```ignore
/// fn histogram(i: usize, a: View<f64>, h: ViewMut<u32>, nbins: usize) {
///     let b = ((a[i] * nbins as f64) as usize).min(nbins - 1);
///     h.atomic_add(b, 1);
/// }
/// ```
pub fn histogram() -> Kernel {
    let mut k = KernelBuilder::new("histogram", WorkKind::Range);
    let i = k.work_index(0);
    let a = k.view::<f64>("a", 1, Access::ReadOnly);
    let h = k.view::<u32>("h", 1, Access::Writable);
    let nbins = k.scalar::<usize>("nbins");
    let b = k.let_(
        "b",
        (a.load(i) * nbins.get().cast::<f64>())
            .cast::<usize>()
            .min(nbins.get() - 1),
    );
    k.atomic_add(h, b, 1);
    k.finish().unwrap()
}

/// ```ignore
/// #[rokkos::func] fn sq(x: f64) -> f64 { x * x }
/// #[rokkos::func] fn norm(x: f64, y: f64) -> f64 { (sq(x) + sq(y)).sqrt() }
/// fn norms(i: usize, a: View<f64>, b: View<f64>, out: ViewMut<f64>) { out[i] = norm(a[i], b[i]); }
/// ```
pub fn with_helpers() -> Kernel {
    let mut k = KernelBuilder::new("norms", WorkKind::Range);
    let i = k.work_index(0);
    let a = k.view::<f64>("a", 1, Access::ReadOnly);
    let b = k.view::<f64>("b", 1, Access::ReadOnly);
    let out = k.view::<f64>("out", 1, Access::Writable);
    let norm = k.func::<f64>("norm", |f| {
        let sq = f.func::<f64>("sq", |g| {
            let x = g.param::<f64>("x");
            g.return_value(x.get() * x);
        });
        let x = f.param::<f64>("x");
        let y = f.param::<f64>("y");
        let r = sq.call(vec![x.get().into_ir()]) + sq.call(vec![y.get().into_ir()]);
        f.return_value(r.sqrt());
    });
    let v = norm.call(vec![
        a.load(i.clone()).into_ir(),
        b.load(i.clone()).into_ir(),
    ]);
    k.store(out, i, v);
    k.finish().unwrap()
}

/// ```ignore
/// fn control(i: usize, a: View<i32>, out: ViewMut<i32>) {
///     if a[i] < 0 { return; }
///     let mut s = 0;
///     for k in 0..10 {
///         if k % 2 == 0 { continue; }
///         if k > 7 { break; }
///         s += k;
///     }
///     let mut n = a[i];
///     let mut steps = 0;
///     while n > 1 && steps < 1000 {
///         n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
///         steps += 1;
///     }
///     let mut d = [0i32; 3];
///     let mut t = 0usize;
///     loop {
///         d[t] = s << t;
///         t += 1;
///         if t == 3 { break; }
///     }
///     for k in (0..6).step_by(2).rev() { s = s * 10 + k; }
///     out[i] = s + steps + d[0] + d[2] - (-n).abs() + i32::from(n == 1);
/// }
/// ```
pub fn control() -> Kernel {
    let mut k = KernelBuilder::new("control", WorkKind::Range);
    let i = k.work_index(0);
    let a = k.view::<i32>("a", 1, Access::ReadOnly);
    let out = k.view::<i32>("out", 1, Access::Writable);
    k.if_(a.load(i.clone()).lt(0));
    k.return_();
    k.end();
    let s = k.let_("s", 0);
    let kk = k.for_range::<i32>("k", 0, 10);
    k.if_((kk.get() % 2).eq_(0));
    k.continue_();
    k.end();
    k.if_(kk.get().gt(7));
    k.break_();
    k.end();
    k.assign(s, s.get() + kk);
    k.end();
    let n = k.let_("n", a.load(i.clone()));
    let steps = k.let_("steps", 0);
    k.while_(n.get().gt(1).and(steps.get().lt(1000)));
    k.if_((n.get() % 2).eq_(0));
    k.assign(n, n.get() / 2);
    k.else_();
    k.assign(n, 3 * n.get() + 1);
    k.end();
    k.assign(steps, steps.get() + 1);
    k.end();
    let d = k.array_fill::<i32>("d", 3, 0);
    let t = k.let_("t", 0usize);
    k.loop_();
    k.array_store(d, t, s.get() << t.get());
    k.assign(t, t.get() + 1);
    k.if_(t.get().eq_(3));
    k.break_();
    k.end();
    k.end();
    let kk = k.for_range_step::<i32>("k", 0, 6, 2, true);
    k.assign(s, s.get() * 10 + kk);
    k.end();
    let one = select(n.get().eq_(1), 1, 0);
    let v = s.get() + steps + d.load(0) + d.load(2) - (-n.get()).abs() + one;
    k.store(out, i, v);
    k.finish().unwrap()
}
