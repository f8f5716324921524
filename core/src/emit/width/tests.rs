//! The 32-bit plan against kernels whose `usize` values do and do not provably fit.

use super::{launch_fits, plan, IndexWidth, ATOM_MAX};
use crate::ir::build::{Expr, KernelBuilder};
use crate::ir::tests::kernels;
use crate::ir::{Access, Kernel, WorkKind};

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
    // An escape makes the kernel need 64-bit integers even in the 32-bit variant.
    assert!(plan(&range(true, |i, n| i * n)).int64.is_some());
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
    use crate::ir::{NestedKind, ReducerKind, ScratchScope, SingleKind};
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
    use crate::ir::{NestedKind, ReducerKind};
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
