//! The 32-bit plan against kernels whose `usize` values do and do not provably fit.

use super::{choose, launch_fits, launch_proof, plan, IndexWidth, LaunchAtoms, Work, ATOM_MAX};
use rokkos_core::ir::build::{Expr, KernelBuilder};
use rokkos_core::ir::samples as kernels;
use rokkos_core::ir::{Access, Kernel, WorkKind};

/// A range kernel `out[i] = f(i, n) as f32`, with `n: usize` a scalar, recorded with `checks`.
fn range(checks: bool, f: impl FnOnce(Expr<usize>, Expr<usize>) -> Expr<usize>) -> Kernel {
    let mut k = KernelBuilder::new("k", WorkKind::Range);
    k.overflow_checks(checks);
    let i = k.work_index(0);
    let out = k.view::<f32>("out", 1, Access::Writable);
    let n = k.scalar::<usize>("n");
    let v = f(i.clone(), n.get());
    k.store(out, i, v.cast::<f32>());
    k.finish().unwrap()
}

fn lit(x: u64) -> Expr<usize> {
    Expr::lit(x as usize)
}

#[test]
fn babelstream_kernels_run_32_bit_without_int64() {
    for k in [kernels::triad(), kernels::dot()] {
        let p = plan(&k);
        assert_eq!(p.index32, Ok(()), "{}", k.name);
        assert_eq!(p.int64, None, "{}", k.name);
        assert_eq!(p.width(true), IndexWidth::W32);
        assert_eq!(p.width(false), IndexWidth::W64);
    }
}

#[test]
fn small_offsets_and_products_fit() {
    for checks in [false, true] {
        assert_eq!(plan(&range(checks, |i, _| i + lit(1))).index32, Ok(()));
        assert_eq!(
            plan(&range(checks, |i, _| i * lit(2) + lit(1))).index32,
            Ok(())
        );
        assert_eq!(plan(&range(checks, |i, n| i / n)).index32, Ok(()));
        assert_eq!(plan(&range(checks, |i, n| i % n)).index32, Ok(()));
        assert_eq!(plan(&range(checks, |i, n| i.min(n))).index32, Ok(()));
        assert_eq!(plan(&range(checks, |i, _| i >> 3)).index32, Ok(()));
    }
}

#[test]
fn values_that_may_pass_32_bits_escape() {
    // `i * n` reaches 2^62 under the launch facts; `i << 5` may exceed u32::MAX.
    assert!(plan(&range(true, |i, n| i * n)).index32.is_err());
    assert!(plan(&range(true, |i, _| i << 5)).index32.is_err());
    assert!(plan(&range(true, |_, _| lit(1 << 40))).index32.is_err());
    // Escapes of the bounds alone leave the 32-bit variant to a launch's own proof; one no
    // bounds can remove makes the kernel need 64-bit integers even in the 32-bit variant.
    let p = plan(&range(true, |i, n| i * n));
    assert!(p.per_launch && p.int64.is_none());
    let mut k = KernelBuilder::new("load_index", WorkKind::Range);
    let i = k.work_index(0);
    let out = k.view::<f32>("out", 1, Access::Writable);
    let col = k.view::<usize>("col", 1, Access::ReadOnly);
    k.store(out, col.load(i.clone()), 1.0f32);
    let p = plan(&k.finish().unwrap());
    assert!(!p.per_launch && p.int64.unwrap().contains("View `col`"));
}

#[test]
fn subtraction_that_may_underflow_needs_overflow_checks() {
    // With checks both widths fail the work item on `n < i + 1`; without, they wrap differently.
    assert_eq!(plan(&range(true, |i, n| n - i)).index32, Ok(()));
    assert!(plan(&range(false, |i, n| n - i)).index32.is_err());
    assert!(plan(&range(true, |i, n| n.wrapping_sub(i)))
        .index32
        .is_err());
    // Provably non-negative: fine either way.
    assert_eq!(
        plan(&range(false, |i, _| (i + lit(5)) - lit(5))).index32,
        Ok(())
    );
}

#[test]
fn loop_counters_bounded_by_their_end_fit_and_growing_locals_do_not() {
    let mut k = KernelBuilder::new("loops", WorkKind::Range);
    k.overflow_checks(true);
    let i = k.work_index(0);
    let out = k.view::<f32>("out", 1, Access::Writable);
    let n = k.scalar::<usize>("n");
    let s = k.let_::<usize>("s", lit(0));
    let j = k.for_range::<usize>("j", lit(0), n.get());
    k.assign(s, s.get().max(j.get() + lit(1)));
    k.end();
    k.store(out, i, s.get().cast::<f32>());
    assert_eq!(plan(&k.finish().unwrap()).index32, Ok(()));

    let mut k = KernelBuilder::new("grows", WorkKind::Range);
    let i = k.work_index(0);
    let out = k.view::<f32>("out", 1, Access::Writable);
    let c = k.let_::<usize>("c", lit(0));
    k.while_(c.get().lt(i.clone()));
    k.assign(c, c.get() + lit(1));
    k.end();
    k.store(out, i, c.get().cast::<f32>());
    let p = plan(&k.finish().unwrap());
    assert!(p.index32.unwrap_err().contains("`c`"));
}

#[test]
fn values_of_the_users_own_need_int64() {
    let mut k = KernelBuilder::new("own", WorkKind::Range);
    let i = k.work_index(0);
    let out = k.view::<i64>("out", 1, Access::Writable);
    k.store(out, i.clone(), i.cast::<i64>());
    let p = plan(&k.finish().unwrap());
    // The indices still fit (an int64 device runs it 32-bit), but the values are i64.
    assert_eq!(p.index32, Ok(()));
    assert!(p.int64.unwrap().contains("View `out`"));
    // A usize accumulator (MinLoc's location) keeps the kernel 64-bit.
    assert!(plan(&kernels::min_loc()).index32.is_err());
}

#[test]
fn casts_into_usize_from_signed_or_float_escape() {
    let mut k = KernelBuilder::new("idx", WorkKind::Range);
    let i = k.work_index(0);
    let out = k.view::<f32>("out", 1, Access::Writable);
    let col = k.view::<i32>("col", 1, Access::ReadOnly);
    let j = col.load(i.clone()).cast::<usize>();
    k.store(out, i, j.cast::<f32>());
    assert!(plan(&k.finish().unwrap()).index32.is_err());

    let mut k = KernelBuilder::new("uidx", WorkKind::Range);
    let i = k.work_index(0);
    let out = k.view::<f32>("out", 1, Access::Writable);
    let col = k.view::<u32>("col", 1, Access::ReadOnly);
    let j = col.load(i.clone()).cast::<usize>();
    k.store(out, i, j.cast::<f32>());
    assert_eq!(plan(&k.finish().unwrap()).index32, Ok(()));
}

#[test]
fn launch_facts() {
    assert!(launch_fits([0, ATOM_MAX], true));
    assert!(!launch_fits([ATOM_MAX + 1], true));
    assert!(!launch_fits([1], false));
}

#[test]
fn usize_view_elements_keep_the_kernel_64_bit() {
    // A `usize` stored into memory is a 64-bit value there, whatever bounds it has.
    let mut k = KernelBuilder::new("store_index", WorkKind::Range);
    let i = k.work_index(0);
    let out = k.view::<usize>("out", 1, Access::Writable);
    k.store(out, i.clone(), i);
    let p = plan(&k.finish().unwrap());
    assert!(p.index32.unwrap_err().contains("View `out`"));
}

/// A team kernel over rows of `a`: `n` a `usize` scalar, a nested `kind` range over `0..end`,
/// a scratch View of `extent` elements.
fn team_kernel(end: fn(Expr<usize>, Expr<usize>) -> Expr<usize>, extent: Expr<usize>) -> Kernel {
    use rokkos_core::ir::{NestedKind, ReducerKind, ScratchScope, SingleKind};
    let mut k = KernelBuilder::new("team", WorkKind::Team);
    k.overflow_checks(true);
    let a = k.view::<f32>("a", 2, Access::ReadOnly);
    let out = k.view::<f32>("out", 1, Access::Writable);
    let n = k.scalar::<usize>("n");
    let team = k.team();
    let r = k.let_("r", team.league_rank());
    let tmp = k.scratch::<f32>(0, ScratchScope::Team, [extent]);
    let j = k.nested_for(
        NestedKind::TeamVector,
        "j",
        lit(0),
        end(a.extent(1), n.get()),
    );
    k.store(tmp, j.get(), a.load((r.get(), j.get())));
    k.end();
    k.barrier();
    let red = k.nested_reduce::<f32>(
        NestedKind::Thread,
        "s",
        lit(1),
        a.extent(1),
        ReducerKind::Sum,
    );
    k.assign(red.acc, red.acc.get() + tmp.load(red.index.get() - lit(1)));
    k.end();
    let sc = k.nested_scan_inclusive::<u32>(NestedKind::Vector, "c", lit(0), team.team_size());
    k.assign(sc.partial, sc.partial.get() + lit(1).cast::<u32>());
    k.end();
    let first = k.broadcast("first", red.result.get(), team.team_rank() + lit(1));
    k.single(SingleKind::Team);
    k.store(out, r, first.get() + sc.total.get().cast::<f32>());
    k.end();
    k.finish().unwrap()
}

#[test]
fn team_kernels_with_proven_bounds_run_32_bit() {
    // Team queries, extents and proven scalars bound the nested ranges and the scratch extent;
    // `j - 1` for `j >= 1` is exact; nothing of the kernel's own is 64-bit.
    let k = team_kernel(|e, _| e, lit(64));
    let p = plan(&k);
    assert_eq!(p.index32, Ok(()));
    assert_eq!(p.int64, None);
    assert_eq!(plan(&team_kernel(|e, n| e.min(n), lit(64))).index32, Ok(()));
    assert_eq!(
        plan(&team_kernel(|e, _| e, lit(1) + lit(1))).index32,
        Ok(())
    );
    assert_eq!(plan(&kernels::team_rows()).index32, Ok(()));
}

#[test]
fn team_kernels_outside_the_proof_stay_64_bit() {
    // A nested range past 2^31: its counters could pass u32::MAX.
    let e = plan(&team_kernel(|e, n| e + n, lit(64)))
        .index32
        .unwrap_err();
    assert!(e.contains("nested range bound"), "{e}");
    // A scratch extent past 2^31 - 1 (a scratch View's extent is an atom).
    let e = plan(&team_kernel(|e, _| e, lit(1 << 31)))
        .index32
        .unwrap_err();
    assert!(e.contains("scratch extent"), "{e}");
    // A usize nested reduction is a join the analysis does not follow.
    use rokkos_core::ir::{NestedKind, ReducerKind};
    let mut k = KernelBuilder::new("ured", WorkKind::Team);
    let out = k.view::<f32>("out", 1, Access::Writable);
    let team = k.team();
    let red = k.nested_reduce::<usize>(NestedKind::Thread, "s", lit(0), lit(8), ReducerKind::Sum);
    k.assign(red.acc, red.acc.get() + red.index.get());
    k.end();
    k.store(out, team.league_rank(), red.result.get().cast::<f32>());
    assert!(plan(&k.finish().unwrap()).index32.is_err());
}

#[test]
fn team_launch_facts_send_large_leagues_and_pools_to_64_bit() {
    use super::team_bounds;
    let fits =
        |league, team, vlen, arenas| launch_fits(team_bounds(league, team, vlen, arenas), true);
    assert!(fits(1000, 64, 4, [4096, 1 << 20]));
    assert!(fits(ATOM_MAX, 1, 1, [ATOM_MAX, ATOM_MAX]));
    // A league, a team size, a vector length past 2^31 - 1.
    assert!(!fits(ATOM_MAX + 1, 64, 4, [0, 0]));
    assert!(!fits(10, ATOM_MAX + 1, 1, [0, 0]));
    assert!(!fits(10, 1, ATOM_MAX + 1, [0, 0]));
    // Their product (the participants of a team-vector range).
    assert!(!fits(10, 1 << 16, 1 << 16, [0, 0]));
    // A scratch arena of 2^31 bytes at either level.
    assert!(!fits(10, 64, 1, [1 << 31, 0]));
    assert!(!fits(10, 64, 1, [0, 1 << 31]));
    // The decision: a proven team kernel takes the 32-bit variant only when the launch fits.
    let p = plan(&kernels::team_rows());
    assert_eq!(p.width(fits(1000, 64, 4, [4096, 0])), IndexWidth::W32);
    assert_eq!(p.width(fits(1 << 31, 64, 4, [4096, 0])), IndexWidth::W64);
    assert_eq!(p.width(fits(1000, 64, 4, [1 << 32, 0])), IndexWidth::W64);
}

/// The atoms of a range launch over `begin..end` of a kernel with one rank-1 View of extent
/// `extent` and the `usize` scalars `scalars`.
fn range_atoms(begin: u64, end: u64, extent: u64, scalars: &[u64]) -> LaunchAtoms {
    LaunchAtoms {
        work: Work::Ranges(vec![(begin, end)]),
        extents: vec![vec![extent]],
        scalars: scalars.iter().map(|&s| Some(s)).collect(),
    }
}

/// `a[i * n + j]` for `j in 0..n`: a 2-D array flattened by hand.
fn flattened() -> Kernel {
    let mut k = KernelBuilder::new("flat", WorkKind::Range);
    k.overflow_checks(false);
    let i = k.work_index(0);
    let a = k.view::<f32>("a", 1, Access::Writable);
    let n = k.scalar::<usize>("n");
    let j = k.for_range::<usize>("j", lit(0), n.get());
    k.store(a, i.clone() * n.get() + j.get(), 1.0f32);
    k.end();
    k.finish().unwrap()
}

#[test]
fn flattened_index_is_refused_kernel_wide_and_proven_per_launch() {
    let k = flattened();
    let p = plan(&k);
    // `i * n` reaches 2^62 under the launch facts, but only the bounds stand in the way.
    assert!(p.index32.is_err());
    assert!(p.per_launch && p.may_run_32());
    assert_eq!(p.int64, None);
    // i < 1000, n = 1000: every value below 10^6.
    assert_eq!(
        launch_proof(&k, &range_atoms(0, 1000, 1_000_000, &[1000])),
        Ok(())
    );
    // The loop counter reaches `n` itself (its exit value), so `i * n + j <= end * n`: the
    // largest launch accepted has `end * n = 2^32 - 1`, and one more row is refused.
    let (rows, n) = (65535u64, 65537u64);
    assert_eq!(rows * n, u32::MAX as u64);
    assert_eq!(launch_proof(&k, &range_atoms(0, rows, 1, &[n])), Ok(()));
    let e = launch_proof(&k, &range_atoms(0, rows + 1, 1, &[n])).unwrap_err();
    assert!(e.contains("4295032832"), "{e}");
}

#[test]
fn per_launch_boundary_is_exactly_u32_max() {
    // i <= 65535, n = 65537: `i * n` is at most 2^32 - 1, `i * n + 1` reaches 2^32.
    let atoms = range_atoms(0, 65536, 1, &[65537]);
    assert_eq!(launch_proof(&range(false, |i, n| i * n), &atoms), Ok(()));
    let e = launch_proof(&range(false, |i, n| i * n + lit(1)), &atoms).unwrap_err();
    assert!(e.contains("may reach 4294967296"), "{e}");
    // A begin above 0 raises only the lower bound: the same upper bound decides.
    assert_eq!(
        launch_proof(
            &range(false, |i, n| i * n),
            &range_atoms(60000, 65536, 1, &[65537])
        ),
        Ok(())
    );
    // An extent is an atom too (`a.extent(0)` is the View's extent for this launch).
    let mut b = KernelBuilder::new("ext", WorkKind::Range);
    let i = b.work_index(0);
    let a = b.view::<f32>("a", 1, Access::Writable);
    b.store(a, i.clone(), (i * a.extent(0)).cast::<f32>());
    let k = b.finish().unwrap();
    assert!(plan(&k).index32.is_err());
    assert_eq!(launch_proof(&k, &range_atoms(0, 65536, 65537, &[])), Ok(()));
    assert!(launch_proof(&k, &range_atoms(0, 65537, 65537, &[])).is_err());
}

/// `out[league_rank * team_size + team_rank]`: the team's rows flattened.
fn team_flat() -> Kernel {
    let mut k = KernelBuilder::new("team_flat", WorkKind::Team);
    let out = k.view::<f32>("out", 1, Access::Writable);
    let t = k.team();
    k.store(out, t.league_rank() * t.team_size() + t.team_rank(), 1.0f32);
    k.finish().unwrap()
}

#[test]
fn team_flat_index_is_proven_by_the_policy() {
    let k = team_flat();
    let p = plan(&k);
    assert!(p.index32.is_err() && p.per_launch);
    let at = |league, team| LaunchAtoms {
        work: Work::team(league, team, 1),
        extents: vec![vec![1]],
        scalars: vec![],
    };
    assert_eq!(launch_proof(&k, &at(1000, 64)), Ok(()));
    // (2^26 - 1) * 64 + 63 = 2^32 - 1; one more team reaches 2^32.
    assert_eq!(launch_proof(&k, &at(1 << 26, 64)), Ok(()));
    assert!(launch_proof(&k, &at((1 << 26) + 1, 64)).is_err());
}

#[test]
fn wrapping_and_unchecked_subtraction_are_proven_only_where_they_cannot_wrap() {
    // `n - i` without checks and `n.wrapping_sub(i)` wrap differently in 32 and 64 bits when
    // `i > n`: refused for a launch where that can happen, whatever the overflow checks.
    let small = range_atoms(0, 5, 1, &[4]);
    let past = range_atoms(0, 10, 1, &[4]);
    for k in [
        range(false, |i, n| n - i),
        range(true, |i, n| n.wrapping_sub(i)),
        range(false, |i, n| n.wrapping_sub(i)),
    ] {
        assert!(plan(&k).index32.is_err());
        assert_eq!(launch_proof(&k, &small), Ok(()));
        assert!(launch_proof(&k, &past).is_err());
    }
    // A wrapping product is exact only where it cannot wrap in 32 bits.
    let k = range(false, |i, n| i.wrapping_mul(n));
    assert_eq!(
        launch_proof(&k, &range_atoms(0, 65536, 1, &[65537])),
        Ok(())
    );
    assert!(launch_proof(&k, &range_atoms(0, 65537, 1, &[65537])).is_err());
}

#[test]
fn kernels_the_types_rule_out_are_not_tried_per_launch() {
    // A usize View element, a signed index: no launch's bounds help.
    let mut k = KernelBuilder::new("store_index", WorkKind::Range);
    let i = k.work_index(0);
    let out = k.view::<usize>("out", 1, Access::Writable);
    k.store(out, i.clone(), i);
    let k = k.finish().unwrap();
    let p = plan(&k);
    assert!(!p.per_launch && !p.may_run_32());
    assert!(p.int64.is_some());
    assert!(launch_proof(&k, &range_atoms(0, 4, 4, &[])).is_err());
    // Nor for what no bounds can fix: a local growing in a `while`, a cast from a signed
    // value, a literal past 32 bits. Those keep the kernel-wide refusal (and its message).
    let mut b = KernelBuilder::new("grows", WorkKind::Range);
    let i = b.work_index(0);
    let out = b.view::<f32>("out", 1, Access::Writable);
    let c = b.let_::<usize>("c", lit(0));
    b.while_(c.get().lt(i.clone()));
    b.assign(c, c.get() + lit(1));
    b.end();
    b.store(out, i, c.get().cast::<f32>());
    let mut b2 = KernelBuilder::new("signed", WorkKind::Range);
    let i = b2.work_index(0);
    let out = b2.view::<f32>("out", 1, Access::Writable);
    let col = b2.view::<i32>("col", 1, Access::ReadOnly);
    b2.store(out, col.load(i.clone()).cast::<usize>() * lit(2), 1.0f32);
    for k in [
        b.finish().unwrap(),
        b2.finish().unwrap(),
        range(true, |i, _| i + lit(1 << 40)),
    ] {
        let p = plan(&k);
        assert!(!p.per_launch, "{}", k.name);
        assert_eq!(p.int64, p.index32.clone().err(), "{}", k.name);
        assert!(launch_proof(&k, &range_atoms(0, 4, 4, &[1])).is_err());
    }
    // Magnitudes only, even where the subtraction may wrap or a nested range may pass 2^31:
    // a launch's bounds decide.
    assert!(plan(&range(false, |i, n| n - i)).per_launch);
    assert!(plan(&team_kernel(|e, n| e + n, lit(64))).per_launch);
}

mod evaluated {
    //! Whenever the per-launch proof accepts, the 32-bit arithmetic (the IR evaluator's own
    //! operators at `u32`) computes every value the 64-bit one does (the same operators at
    //! `u64`, the reference), failing where it fails.
    use super::*;
    use proptest::prelude::*;
    use rokkos_core::ir::eval::ops;
    use rokkos_core::ir::{ArithOp, Value};

    /// A `usize` expression over the work index `i` and the scalars `n`, `m`.
    #[derive(Clone, Debug)]
    enum T {
        I,
        N,
        M,
        Lit(u64),
        Op(ArithOp, Box<T>, Box<T>),
        Min(Box<T>, Box<T>),
        Shr(Box<T>, u32),
    }

    fn tree() -> impl Strategy<Value = T> {
        let leaf = prop_oneof![
            Just(T::I),
            Just(T::N),
            Just(T::M),
            (0u64..70_000).prop_map(T::Lit),
        ];
        leaf.prop_recursive(3, 12, 2, |t| {
            let op = prop_oneof![
                Just(ArithOp::Add),
                Just(ArithOp::Sub),
                Just(ArithOp::Mul),
                Just(ArithOp::Div),
                Just(ArithOp::Rem),
                Just(ArithOp::WrappingAdd),
                Just(ArithOp::WrappingSub),
                Just(ArithOp::WrappingMul),
            ];
            prop_oneof![
                (op, t.clone(), t.clone()).prop_map(|(o, a, b)| T::Op(o, Box::new(a), Box::new(b))),
                (t.clone(), t.clone()).prop_map(|(a, b)| T::Min(Box::new(a), Box::new(b))),
                (t, 0u32..20).prop_map(|(a, s)| T::Shr(Box::new(a), s)),
            ]
        })
    }

    fn build(t: &T, i: &Expr<usize>, n: &Expr<usize>, m: &Expr<usize>) -> Expr<usize> {
        let b = |x: &T| build(x, i, n, m);
        match t {
            T::I => i.clone(),
            T::N => n.clone(),
            T::M => m.clone(),
            T::Lit(x) => lit(*x),
            T::Op(o, a, c) => {
                let (a, c) = (b(a), b(c));
                match o {
                    ArithOp::Add => a + c,
                    ArithOp::Sub => a - c,
                    ArithOp::Mul => a * c,
                    ArithOp::Div => a / c,
                    ArithOp::Rem => a % c,
                    ArithOp::WrappingAdd => a.wrapping_add(c),
                    ArithOp::WrappingSub => a.wrapping_sub(c),
                    ArithOp::WrappingMul => a.wrapping_mul(c),
                }
            }
            T::Min(a, c) => b(a).min(b(c)),
            T::Shr(a, s) => b(a) >> (*s as i32),
        }
    }

    /// `t` at `(i, n, m)` with the evaluator's operators at the type of `wrap` (`Value::U64`
    /// or `Value::U32`); `Err` when a work item fails.
    fn eval(t: &T, x: [u64; 3], wrap: fn(u64) -> Value, checks: bool) -> Result<u64, ()> {
        let e = |y: &T| eval(y, x, wrap, checks);
        let v = match t {
            T::I => x[0],
            T::N => x[1],
            T::M => x[2],
            T::Lit(c) => *c,
            T::Op(o, a, c) => {
                let (a, c) = (e(a)?, e(c)?);
                ops::arith(*o, wrap(a), wrap(c), checks)
                    .map_err(|_| ())?
                    .to_bits()
            }
            T::Min(a, c) => e(a)?.min(e(c)?),
            T::Shr(a, s) => e(a)? >> s,
        };
        Ok(v)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn accepted_launches_compute_the_same_in_32_bits(
            t in tree(),
            checks in any::<bool>(),
            begin in 0u64..70_000,
            len in 1u64..70_000,
            n in 0u64..70_000,
            m in 0u64..70_000,
            picks in proptest::collection::vec(0.0f64..1.0, 4),
        ) {
            let mut b = KernelBuilder::new("prop", WorkKind::Range);
            b.overflow_checks(checks);
            let i = b.work_index(0);
            let out = b.view::<f32>("out", 1, Access::Writable);
            let (sn, sm) = (b.scalar::<usize>("n"), b.scalar::<usize>("m"));
            let v = build(&t, &i, &sn.get(), &sm.get());
            b.store(out, i, v.cast::<f32>());
            let k = b.finish().unwrap();
            let end = begin + len;
            if launch_proof(&k, &range_atoms(begin, end, 1, &[n, m])).is_err() {
                return Ok(());
            }
            let mut is = vec![begin, end - 1];
            is.extend(picks.iter().map(|p| begin + (p * len as f64) as u64 % len));
            for i in is {
                let w64 = eval(&t, [i, n, m], Value::U64, checks);
                let w32 = eval(&t, [i, n, m], |x| Value::U32(x as u32), checks);
                prop_assert_eq!(w64, w32, "i = {}", i);
            }
        }
    }
}

#[test]
fn the_launch_decision_names_why_a_launch_runs_64_bit() {
    let k = flattened();
    let hash = k.stable_hash();
    let go = |fits: bool, rows: u64, n: u64| {
        let mut asked = false;
        let c = choose(hash, &k, fits, || {
            asked = true;
            range_atoms(0, rows, rows * n, &[n])
        });
        (c, asked)
    };
    let (c, asked) = go(true, 1000, 1000);
    assert_eq!((c.width, c.why_64, asked), (IndexWidth::W32, None, true));
    let (c, _) = go(true, 1 << 17, 1 << 16);
    assert_eq!(c.width, IndexWidth::W64);
    let why = c.why_64.unwrap();
    assert!(
        why.contains("may reach") && why.contains("for this launch's sizes"),
        "{why}"
    );
    // Launch facts first: the atoms are not even gathered.
    let (c, asked) = go(false, 4, 4);
    assert_eq!(c.width, IndexWidth::W64);
    assert!(!asked && c.why_64.unwrap().contains("past 2^31 - 1"));
    // A kernel-wide proof needs no atoms; a kernel no launch can prove keeps plan's reason.
    let t = kernels::triad();
    let c = choose(t.stable_hash(), &t, true, || {
        unreachable!("no per-launch proof")
    });
    assert_eq!(c.width, IndexWidth::W32);
    let m = kernels::min_loc();
    let c = choose(m.stable_hash(), &m, true, || {
        unreachable!("no per-launch proof")
    });
    assert_eq!(c.why_64, plan(&m).index32.err());
}

/// A kernel with both a magnitude escape (`i * n`) and one no bounds fix (a float cast to
/// `usize`) is refused kernel-wide for the latter: naming `i * n` would suggest that smaller
/// sizes help.
#[test]
fn a_kernel_no_launch_proves_is_refused_for_the_unbounded_value() {
    let mut b = KernelBuilder::new("mixed", WorkKind::Range);
    b.overflow_checks(false);
    let i = b.work_index(0);
    let out = b.view::<f32>("out", 1, Access::Writable);
    let n = b.scalar::<usize>("n");
    let f = b.scalar::<f32>("f");
    b.store(out, i * n.get() + f.get().cast::<usize>(), 1.0f32);
    let k = b.finish().unwrap();
    let p = plan(&k);
    assert!(!p.per_launch);
    let why = p.index32.unwrap_err();
    assert!(
        why.contains("not proven") && !why.contains("may reach"),
        "{why}"
    );
    // The launch decision and the no-int64 refusal give the same reason.
    assert_eq!(p.int64.as_deref(), Some(why.as_str()));
}

/// A team kernel that stores the square of its scratch View's extent, the scratch View
/// allocated as `team_scratch(0, [side * side])` (the kernel reads the extent back, not `side`).
fn scratch_square(side: Expr<usize>) -> Kernel {
    use rokkos_core::ir::ScratchScope;
    let mut k = KernelBuilder::new("scratch_square", WorkKind::Team);
    k.overflow_checks(true);
    let out = k.view::<f32>("out", 1, Access::Writable);
    let team = k.team();
    let side = k.let_("side", side);
    let tmp = k.scratch::<f32>(0, ScratchScope::Team, [side.get() * side.get()]);
    k.store(
        out,
        team.league_rank(),
        (tmp.extent(0) * tmp.extent(0)).cast::<f32>(),
    );
    k.finish().unwrap()
}

#[test]
fn a_scratch_extent_takes_its_allocation_values() {
    // 16 * 16 = 256 elements; 256^2 fits 32 bits, which only the allocation's value shows (the
    // launch facts alone allow 2^31 - 1, whose square does not).
    assert_eq!(plan(&scratch_square(lit(16))).index32, Ok(()));
    // 300^2 = 90000 elements, whose square (8.1e9) does not fit: refused for that value.
    let e = plan(&scratch_square(lit(300))).index32.unwrap_err();
    assert!(e.contains("Scratch") && e.contains("8100000000"), "{e}");
    // Past the rank an extent is 0, whatever the allocation.
    let mut k = KernelBuilder::new("past_rank", WorkKind::Team);
    let out = k.view::<f32>("out", 1, Access::Writable);
    let team = k.team();
    let tmp = k.scratch::<f32>(0, rokkos_core::ir::ScratchScope::Team, [lit(1 << 30)]);
    k.store(
        out,
        team.league_rank() + tmp.extent(1) * tmp.extent(0),
        0.0f32,
    );
    assert_eq!(plan(&k.finish().unwrap()).index32, Ok(()));
}

#[test]
fn a_scratch_extent_from_a_launch_value_is_proven_per_launch() {
    // `side` a usize argument: only a launch's value bounds the extent's square.
    let mut k = KernelBuilder::new("scratch_arg", WorkKind::Team);
    k.overflow_checks(true);
    let out = k.view::<f32>("out", 1, Access::Writable);
    let side = k.scalar::<usize>("side");
    let team = k.team();
    let tmp = k.scratch::<f32>(1, rokkos_core::ir::ScratchScope::Team, [side.get()]);
    k.store(
        out,
        team.league_rank() + lit(0) * (tmp.extent(0) * tmp.extent(0)),
        0.0f32,
    );
    let k = k.finish().unwrap();
    let p = plan(&k);
    assert!(p.index32.is_err() && p.per_launch, "{p:?}");
    let at = |side| LaunchAtoms {
        work: Work::team(8, 4, 1),
        extents: vec![vec![8]],
        scalars: vec![Some(side)],
    };
    assert_eq!(launch_proof(&k, &at(65535)), Ok(()));
    assert!(launch_proof(&k, &at(65536)).is_err());
}

/// A 64-bit bit cast keeps the kernel 64-bit, even where its `usize` operand is a small index:
/// `f64::from_bits(i)` reads all of `i`'s 64 bits, `x.to_bits()` of an `f64` gives all of them.
/// The 32-bit ones (`f32` ↔ `u32`) are width-independent.
#[test]
fn wide_bit_casts_keep_the_kernel_64_bit() {
    let mut k = KernelBuilder::new("from_index_bits", WorkKind::Range);
    let i = k.work_index(0);
    let out = k.view::<f64>("out", 1, Access::Writable);
    k.store(out, i.clone(), Expr::<f64>::from_bits(i.cast::<u64>()));
    let k = k.finish().unwrap();
    let p = plan(&k);
    assert!(
        p.index32.as_ref().is_err_and(|e| e.contains("from_bits")),
        "{p:?}"
    );
    assert!(!p.per_launch && p.int64.is_some(), "{p:?}");

    let mut k = KernelBuilder::new("f64_exponent", WorkKind::Range);
    let i = k.work_index(0);
    let x = k.view::<f64>("x", 1, Access::ReadOnly);
    let out = k.view::<u32>("out", 1, Access::Writable);
    k.store(out, i.clone(), (x.load(i).to_bits() >> 52).cast::<u32>());
    assert!(plan(&k.finish().unwrap()).index32.is_err());

    let mut k = KernelBuilder::new("narrow_bits", WorkKind::Range);
    let i = k.work_index(0);
    let x = k.view::<f32>("x", 1, Access::ReadOnly);
    let out = k.view::<f32>("out", 1, Access::Writable);
    k.store(
        out,
        i.clone(),
        Expr::<f32>::from_bits(x.load(i).to_bits() ^ 0x8000_0000u32),
    );
    let p = plan(&k.finish().unwrap());
    assert_eq!(p.index32, Ok(()));
    assert_eq!(p.int64, None);
}
