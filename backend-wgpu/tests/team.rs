//! End-to-end team policies on the wgpu space: hand-written kernel values compared with the
//! reference evaluator (`rokkos_core::ir::eval`, teams of one thread) or closed forms, across team
//! sizes and vector lengths. Without an adapter each test prints why and passes, unless
//! `ROKKOS_REQUIRE_WGPU=1`.

use rokkos_core::ir::build::{BuildError, Expr as BE, KernelBuilder};
use rokkos_core::ir::eval::{eval_for, eval_reduce, ArgValue, WorkSet};
use rokkos_core::ir::{self, Access, NestedKind, ReducerKind, ScratchScope, SingleKind, Value};
use rokkos_core::kernel::*;
use rokkos_core::*;
use rokkos_wgpu::{Wgpu, WgpuSpace};

mod common;
use common::{space, NoBody};

type DView<T, const R: usize = 1> = View<T, R, LayoutRight, WgpuSpace>;

fn zeros<T: Pod, const R: usize>(s: &Wgpu, extents: [usize; R]) -> DView<T, R> {
    DView::<T, R>::new_in(&s.memory_space(), "d", extents).unwrap()
}
fn download<T: Pod, const R: usize>(d: &DView<T, R>) -> Vec<T> {
    let h = View::<T, R>::new("h", d.extents()).unwrap();
    deep_copy(&h, d).unwrap();
    let n: usize = d.extents().iter().product();
    let mut out = Vec::with_capacity(n);
    let mut idx = [0usize; R];
    for _ in 0..n {
        out.push(h.get(idx));
        for k in (0..R).rev() {
            idx[k] += 1;
            if idx[k] < d.extents()[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    out
}

macro_rules! team_kernel {
    ($name:ident, $label:literal, [$($view:ident : $t:ty, $r:literal, $w:literal);*], [$($sc:ident : $sv:ident);*]) => {
        struct $name<'k> {
            $($view: &'k DView<$t, $r>,)*
            $($sc: $sv,)*
        }
        impl Kernel for $name<'_> {
            const NAME: &'static str = $label;
            type Space = WgpuSpace;
            fn visit_views<'a>(&'a self, f: &mut dyn FnMut(ViewArg<'a>)) {
                $(f(self.$view.__kernel_arg(stringify!($view), $w));)*
            }
        }
        impl ForKernel<TeamWork> for $name<'_> {
            type Body<'a> = NoBody where Self: 'a;
            unsafe fn bind(&self) -> NoBody { NoBody }
        }
        impl KernelIr for $name<'_> {
            fn build_ir() -> Result<ir::Kernel, BuildError> { $name::ir() }
            fn visit_args<'a>(&'a self, f: &mut dyn FnMut(KernelArg<'a, WgpuSpace>)) {
                $(f(KernelArg::View(self.$view.__binding(stringify!($view), $w)));)*
                $(f(KernelArg::Scalar(Value::U64(self.$sc)));)*
            }
        }
    };
}

// ---- every team-wide construct, results independent of the team shape ----
team_kernel!(Basic, "team_basic", [out: i64, 2, true; pre: i64, 2, true; rev: i64, 2, true], [n: u64]);
impl Basic<'_> {
    fn ir() -> Result<ir::Kernel, BuildError> {
        let mut k = KernelBuilder::new("team_basic", ir::WorkKind::Team);
        let out = k.view::<i64>("out", 2, Access::Writable);
        let pre = k.view::<i64>("pre", 2, Access::Writable);
        let rev = k.view::<i64>("rev", 2, Access::Writable);
        let n = k.scalar::<usize>("n");
        let t = k.team();
        let l = k.let_::<usize>("l", t.league_rank());
        let li = l.get().cast::<i64>();
        // thread_reduce Sum of l*n + j
        let r = k.nested_reduce::<i64>(NestedKind::Thread, "s", 0usize, n.get(), ReducerKind::Sum);
        k.assign(
            r.acc,
            r.acc.get() + li.clone() * BE::lit(1000) + r.index.get().cast::<i64>(),
        );
        k.end();
        let s = r.result;
        // team_vector_reduce Max of (j * 7919 + l) % 1000
        let r = k.nested_reduce::<i64>(
            NestedKind::TeamVector,
            "m",
            0usize,
            n.get(),
            ReducerKind::Max,
        );
        let v = (r.index.get().cast::<i64>() * BE::lit(7919) + li.clone()) % BE::lit(1000);
        k.assign(r.acc, r.acc.get().max(v));
        k.end();
        let m = r.result;
        // thread_scan of j + l, prefixes stored in the final pass
        let sc = k.nested_scan::<i64>(NestedKind::Thread, "tot", 0usize, n.get());
        k.if_(sc.is_final.get());
        k.store(pre, (l.get(), sc.index.get()), sc.partial.get());
        k.end();
        k.assign(
            sc.partial,
            sc.partial.get() + sc.index.get().cast::<i64>() + li.clone(),
        );
        k.end();
        let tot = sc.total;
        // team_vector scan of 1: the total is n
        let sc = k.nested_scan::<i64>(NestedKind::TeamVector, "cnt", 0usize, n.get());
        k.assign(sc.partial, sc.partial.get() + BE::lit(1));
        k.end();
        let cnt = sc.total;
        // broadcast from thread 0 of team_rank + l
        let b = k.broadcast::<i64>("b", t.team_rank().cast::<i64>() + li.clone(), 0usize);
        // single_team with a result
        let w = k.single_with::<i64>(SingleKind::Team, "w");
        k.assign(w, li.clone() * BE::lit(5) + BE::lit(1));
        k.end();
        // level-0 team scratch, filled by a team-vector range, read reversed after a barrier
        let sv = k.scratch::<i64>(0, ScratchScope::Team, n.get().cast::<usize>());
        let j = k.nested_for(NestedKind::TeamVector, "j", 0usize, n.get());
        k.store(sv, j.get(), j.get().cast::<i64>() * BE::lit(3) + li.clone());
        k.end();
        k.barrier();
        let j = k.nested_for(NestedKind::Thread, "j", 0usize, n.get());
        let jj = k.nested_for(NestedKind::Vector, "jj", 0usize, 1usize);
        let src = n.get().cast::<usize>() - BE::lit(1usize) - j.get() + jj.get();
        k.store(rev, (l.get(), j.get()), sv.load(src));
        k.end();
        k.end();
        k.single(SingleKind::Team);
        for (c, e) in [s, m, tot, cnt, b, w].into_iter().enumerate() {
            k.store(out, (l.get(), BE::lit(c)), e.get());
        }
        k.store(
            out,
            (l.get(), BE::lit(6usize)),
            t.league_size().cast::<i64>(),
        );
        k.end();
        k.finish()
    }
}

fn eval_basic(league: usize, n: usize) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
    let kir = Basic::ir().unwrap();
    let (mut out, mut pre, mut rev) = (
        vec![0i64; league * 7],
        vec![0i64; league * n],
        vec![0i64; league * n],
    );
    let mut args = vec![
        ArgValue::view(&mut out, &[league, 7]),
        ArgValue::view(&mut pre, &[league, n]),
        ArgValue::view(&mut rev, &[league, n]),
        ArgValue::Scalar(Value::U64(n as u64)),
    ];
    let work = WorkSet::League {
        league_size: league as u64,
        vector_length: 1,
        scratch_bytes: Some([8 * n as u64, 0]),
    };
    eval_for(&kir, &work, &mut args).unwrap();
    (out, pre, rev)
}

#[test]
fn team_constructs_match_the_evaluator() {
    let Some(s) = space() else { return };
    for (league, n) in [(1usize, 1usize), (5, 17), (13, 64), (3, 200)] {
        let want = eval_basic(league, n);
        for (ts, vl) in [(1usize, 1usize), (3, 1), (4, 2), (8, 4), (32, 8), (2, 32)] {
            let out = zeros::<i64, 2>(&s, [league, 7]);
            let pre = zeros::<i64, 2>(&s, [league, n]);
            let rev = zeros::<i64, 2>(&s, [league, n]);
            let policy = TeamPolicy::new(&s, league, TeamSize::Exactly(ts))
                .vector_length(vl)
                .scratch(0, 8 * n, 0);
            parallel_for(
                "basic",
                policy,
                Basic {
                    out: &out,
                    pre: &pre,
                    rev: &rev,
                    n: n as u64,
                },
            )
            .unwrap();
            let got = (download(&out), download(&pre), download(&rev));
            assert_eq!(got, want, "league {league} n {n} team {ts} vector {vl}");
        }
    }
}

#[test]
fn team_league_past_the_grid_dimension_limit() {
    let Some(s) = space() else { return };
    let (league, n) = (70_001usize, 3usize);
    let want = eval_basic(league, n);
    let out = zeros::<i64, 2>(&s, [league, 7]);
    let pre = zeros::<i64, 2>(&s, [league, n]);
    let rev = zeros::<i64, 2>(&s, [league, n]);
    let policy = TeamPolicy::new(&s, league, TeamSize::Exactly(4)).scratch(0, 8 * n, 0);
    parallel_for(
        "basic",
        policy,
        Basic {
            out: &out,
            pre: &pre,
            rev: &rev,
            n: n as u64,
        },
    )
    .unwrap();
    assert_eq!((download(&out), download(&pre), download(&rev)), want);
}

// ---- vector reductions, scans and thread singles (virtual lanes), level-1 thread scratch ----
team_kernel!(Vec2, "team_vec", [w: i64, 2, true], [m: u64]);
impl Vec2<'_> {
    fn ir() -> Result<ir::Kernel, BuildError> {
        let mut k = KernelBuilder::new("team_vec", ir::WorkKind::Team);
        let w = k.view::<i64>("w", 2, Access::Writable);
        let m = k.scalar::<usize>("m");
        let t = k.team();
        let l = k.let_::<usize>("l", t.league_rank());
        let sc = k.scratch::<f64>(1, ScratchScope::Thread, m.get().cast::<usize>());
        let r = k.nested_for(NestedKind::Thread, "r", 0usize, 4usize);
        let base = (l.get() * BE::lit(4usize) + r.get()).cast::<i64>();
        let red =
            k.nested_reduce::<i64>(NestedKind::Vector, "vs", 0usize, m.get(), ReducerKind::Sum);
        k.assign(
            red.acc,
            red.acc.get() + base.clone() * red.index.get().cast::<i64>(),
        );
        k.end();
        let mn =
            k.nested_reduce::<f64>(NestedKind::Vector, "vm", 0usize, m.get(), ReducerKind::Min);
        k.assign(
            mn.acc,
            mn.acc
                .get()
                .min(BE::lit(100.0) - mn.index.get().cast::<f64>()),
        );
        k.end();
        let scn = k.nested_scan::<i64>(NestedKind::Vector, "vt", 0usize, m.get());
        k.if_(scn.is_final.get());
        k.store(sc, scn.index.get(), scn.partial.get().cast::<f64>());
        k.end();
        k.assign(scn.partial, scn.partial.get() + BE::lit(2));
        k.end();
        let one = k.single_with::<i64>(SingleKind::Thread, "one");
        k.assign(one, red.result.get() + scn.total.get());
        k.end();
        k.single(SingleKind::Thread);
        k.store(
            w,
            (l.get(), r.get()),
            one.get() + mn.result.get().cast::<i64>() * BE::lit(1000),
        );
        let last = m.get().cast::<usize>() - BE::lit(1usize);
        k.store(
            w,
            (l.get(), r.get() + BE::lit(4usize)),
            sc.load(last).cast::<i64>(),
        );
        k.end();
        k.end();
        k.finish()
    }
}

#[test]
fn team_vector_constructs_and_level1_scratch() {
    let Some(s) = space() else { return };
    for m in [1usize, 5, 33] {
        let league = 6;
        let kir = Vec2::ir().unwrap();
        let mut want = vec![0i64; league * 8];
        let mut args = vec![
            ArgValue::view(&mut want, &[league, 8]),
            ArgValue::Scalar(Value::U64(m as u64)),
        ];
        let work = WorkSet::League {
            league_size: league as u64,
            vector_length: 1,
            scratch_bytes: Some([0, 8 * m as u64]),
        };
        eval_for(&kir, &work, &mut args).unwrap();
        for (ts, vl) in [(1usize, 1usize), (2, 4), (4, 8), (3, 2)] {
            let w = zeros::<i64, 2>(&s, [league, 8]);
            let policy = TeamPolicy::new(&s, league, TeamSize::Exactly(ts))
                .vector_length(vl)
                .scratch(1, 0, 8 * m);
            parallel_for("vec", policy, Vec2 { w: &w, m: m as u64 }).unwrap();
            assert_eq!(download(&w), want, "m {m} team {ts} vector {vl}");
        }
    }
    // An allocation past the reservation is an error at the fence, not a wrong answer.
    let w = zeros::<i64, 2>(&s, [2, 8]);
    let policy = TeamPolicy::new(&s, 2, TeamSize::Exactly(2)).scratch(1, 0, 8 * 3);
    let r = parallel_for("vec", policy, Vec2 { w: &w, m: 4 }).and_then(|_| s.fence());
    let e = r
        .expect_err("scratch overflow must be reported")
        .to_string();
    assert!(
        e.contains("thread scratch of 4 elements of 8 bytes at level 1 exceeds"),
        "{e}"
    );
    s.fence().unwrap();
}

// ---- reduce_team with several reducers ----
struct TeamRed<'k> {
    a: &'k DView<i64, 2>,
}
impl Kernel for TeamRed<'_> {
    const NAME: &'static str = "team_red";
    type Space = WgpuSpace;
    fn visit_views<'a>(&'a self, f: &mut dyn FnMut(ViewArg<'a>)) {
        f(self.a.__kernel_arg("a", false));
    }
}
impl ReduceKernel<TeamWork> for TeamRed<'_> {
    type Value = (i64, i64, ValLoc<i64>);
    type Body<'a>
        = NoBody
    where
        Self: 'a;
    unsafe fn bind(&self) -> NoBody {
        NoBody
    }
}
impl KernelIr for TeamRed<'_> {
    fn build_ir() -> Result<ir::Kernel, BuildError> {
        let mut k = KernelBuilder::new("team_red", ir::WorkKind::Team);
        let a = k.view::<i64>("a", 2, Access::ReadOnly);
        let sum = k.acc::<i64>("sum");
        let mx = k.acc::<i64>("mx");
        let (mv, ml) = k.acc_valloc::<i64>("mn");
        let t = k.team();
        let l = k.let_::<usize>("l", t.league_rank());
        let r = k.nested_reduce::<i64>(
            NestedKind::TeamVector,
            "s",
            0usize,
            a.extent(1),
            ReducerKind::Sum,
        );
        k.assign(r.acc, r.acc.get() + a.load((l.get(), r.index.get())));
        k.end();
        let s = r.result;
        k.single(SingleKind::Team);
        k.acc_set(sum, sum.get() + s.get());
        k.if_(s.get().gt(mx.get()));
        k.acc_set(mx, s.get());
        k.end();
        k.if_(s.get().lt(mv.get()));
        k.acc_set(mv, s.get());
        k.acc_set(ml, l.get());
        k.end();
        k.end();
        k.finish()
    }
    fn visit_args<'a>(&'a self, f: &mut dyn FnMut(KernelArg<'a, WgpuSpace>)) {
        f(KernelArg::View(self.a.__binding("a", false)));
    }
}

#[test]
fn reduce_team_with_several_reducers() {
    let Some(s) = space() else { return };
    for (league, w) in [(0usize, 3usize), (1, 1), (37, 9), (2000, 40)] {
        let val = |i: usize, j: usize| ((i * 7919 + j * 104_729) % 2001) as i64 - 1000;
        let h = View::<i64, 2>::from_fn("a", [league, w], |[i, j]| val(i, j)).unwrap();
        let a = zeros::<i64, 2>(&s, [league, w]);
        deep_copy(&a, &h).unwrap();
        let rows: Vec<i64> = (0..league)
            .map(|i| (0..w).map(|j| val(i, j)).sum())
            .collect();
        let mut want_loc = ValLoc {
            val: i64::MAX,
            loc: usize::MAX,
        };
        for (i, &r) in rows.iter().enumerate() {
            if r < want_loc.val {
                want_loc = ValLoc { val: r, loc: i };
            }
        }
        for (ts, vl) in [(1usize, 1usize), (4, 4), (16, 2)] {
            let policy = TeamPolicy::new(&s, league, TeamSize::Exactly(ts)).vector_length(vl);
            let (sum, mx, mn) =
                parallel_reduce("red", policy, TeamRed { a: &a }, (Sum, Max, MinLoc)).unwrap();
            assert_eq!(sum, rows.iter().sum::<i64>(), "league {league} team {ts}");
            assert_eq!(mx, rows.iter().copied().max().unwrap_or(i64::MIN));
            if league > 0 {
                assert_eq!((mn.val, mn.loc), (want_loc.val, want_loc.loc));
            }
        }
        // The evaluator agrees on the sum.
        let kir = TeamRed::build_ir().unwrap();
        let mut data: Vec<i64> = (0..league * w)
            .map(|x| val(x / w.max(1), x % w.max(1)))
            .collect();
        let mut args = vec![ArgValue::view(&mut data, &[league, w])];
        let work = WorkSet::League {
            league_size: league as u64,
            vector_length: 1,
            scratch_bytes: None,
        };
        let init = vec![
            Value::I64(0),
            Value::I64(i64::MIN),
            Value::I64(i64::MAX),
            Value::U64(u64::MAX),
        ];
        let got = eval_reduce(&kir, &work, &mut args, &init).unwrap();
        assert_eq!(got[0], Value::I64(rows.iter().sum::<i64>()));
    }
}

#[test]
fn team_limits_are_honest() {
    let Some(s) = space() else { return };
    let lim = s.team_limits();
    assert!(lim.vector_length_max.is_power_of_two());
    assert!(lim.team_size_auto * lim.vector_length_max <= lim.team_size_max);
    assert!(lim.scratch_max[0] > 0 && lim.scratch_max[1] > 0);
    // Auto with the largest vector length fits.
    let out = zeros::<i64, 2>(&s, [2, 7]);
    let pre = zeros::<i64, 2>(&s, [2, 4]);
    let rev = zeros::<i64, 2>(&s, [2, 4]);
    let policy = TeamPolicy::new(&s, 2, TeamSize::Auto)
        .vector_length(lim.vector_length_max)
        .scratch(0, 32, 0);
    parallel_for(
        "basic",
        policy,
        Basic {
            out: &out,
            pre: &pre,
            rev: &rev,
            n: 4,
        },
    )
    .unwrap();
    assert_eq!(
        (download(&out), download(&pre), download(&rev)),
        eval_basic(2, 4)
    );
    // team x vector beyond the workgroup: an error naming it.
    let policy = TeamPolicy::new(&s, 2, TeamSize::Exactly(lim.team_size_max))
        .vector_length(2)
        .scratch(0, 32, 0);
    let e = parallel_for(
        "basic",
        policy,
        Basic {
            out: &out,
            pre: &pre,
            rev: &rev,
            n: 4,
        },
    );
    assert!(e.is_err());
}
