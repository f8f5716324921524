//! The reference evaluator computes what the native Rust bodies compute.

use super::kernels;
use crate::ir::build::KernelBuilder;
use crate::ir::eval::{eval_for, eval_reduce, eval_scan, ArgValue, EvalError, WorkSet};
use crate::ir::{Access, Value, WorkKind};

fn range(n: u64) -> WorkSet {
    WorkSet::Range { begin: 0, end: n }
}

fn data(n: usize, seed: u64) -> Vec<f64> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

#[test]
fn triad() {
    let n = 37;
    let (b, c, s) = (data(n, 1), data(n, 2), 0.4f64);
    let mut a = vec![0.0f64; n];
    let (mut b2, mut c2) = (b.clone(), c.clone());
    let mut args = [
        ArgValue::view(&mut a, &[n]),
        ArgValue::view(&mut b2, &[n]),
        ArgValue::view(&mut c2, &[n]),
        ArgValue::Scalar(Value::F64(s)),
    ];
    eval_for(&kernels::triad(), &range(n as u64), &mut args).unwrap();
    for i in 0..n {
        assert_eq!(a[i].to_bits(), (b[i] + s * c[i]).to_bits());
    }
}

#[test]
fn dot() {
    let n = 100;
    let (mut a, mut b) = (data(n, 3), data(n, 4));
    let mut native = 0.0f64;
    for i in 0..n {
        native += a[i] * b[i];
    }
    let mut args = [ArgValue::view(&mut a, &[n]), ArgValue::view(&mut b, &[n])];
    let out = eval_reduce(
        &kernels::dot(),
        &range(n as u64),
        &mut args,
        &[Value::F64(0.0)],
    )
    .unwrap();
    assert_eq!(out, [Value::F64(native)]);
}

#[test]
fn min_max_two_accumulators() {
    let mut a: Vec<i64> = data(50, 5).iter().map(|x| (x * 1000.0) as i64).collect();
    let (mn, mx) = (*a.iter().min().unwrap(), *a.iter().max().unwrap());
    let mut args = [ArgValue::view(&mut a, &[50])];
    let out = eval_reduce(
        &kernels::min_max(),
        &range(50),
        &mut args,
        &[Value::I64(i64::MAX), Value::I64(i64::MIN)],
    )
    .unwrap();
    assert_eq!(out, [Value::I64(mn), Value::I64(mx)]);
}

#[test]
fn min_loc() {
    let mut a: Vec<f32> = data(64, 6).iter().map(|&x| x as f32).collect();
    a[40] = -5.0;
    let mut args = [ArgValue::view(&mut a, &[64])];
    let out = eval_reduce(
        &kernels::min_loc(),
        &range(64),
        &mut args,
        &[Value::F32(f32::INFINITY), Value::U64(u64::MAX)],
    )
    .unwrap();
    assert_eq!(out, [Value::F32(-5.0), Value::U64(40)]);
}

#[test]
fn exclusive_prefix_scan() {
    let mut a: Vec<u32> = (0..20).map(|i| (i * 7 % 5) as u32).collect();
    let mut out = vec![0u64; 20];
    let mut expect = vec![0u64; 20];
    let mut acc = 0u64;
    for i in 0..20 {
        expect[i] = acc;
        acc += a[i] as u64;
    }
    let mut args = [
        ArgValue::view(&mut a, &[20]),
        ArgValue::view(&mut out, &[20]),
    ];
    let total = eval_scan(&kernels::prefix_scan(), 0, 20, &mut args, Value::U64(0)).unwrap();
    assert_eq!(total, Value::U64(acc));
    assert_eq!(out, expect);
}

#[test]
fn md_range_any_layout() {
    let (n, m) = (3usize, 4usize);
    let a: Vec<f32> = data(n * m, 7).iter().map(|&x| x as f32).collect();
    let b: Vec<f32> = data(n * m, 8).iter().map(|&x| x as f32).collect();
    // a and c row-major n x m; b is m x n stored column-major (LayoutLeft).
    let (mut a2, mut b2) = (a.clone(), b.clone());
    let mut c = vec![0.0f32; n * m];
    let mut args = [
        ArgValue::view(&mut c, &[n, m]),
        ArgValue::view(&mut a2, &[n, m]),
        ArgValue::view_left(&mut b2, &[m, n]),
    ];
    let work = WorkSet::MDRange {
        begin: vec![0, 0],
        end: vec![n as u64, m as u64],
    };
    eval_for(&kernels::md_2d(), &work, &mut args).unwrap();
    for i in 0..n {
        for j in 0..m {
            let bji = b[j + i * m]; // LayoutLeft: index (j, i) at j + i * extent0
            assert_eq!(c[i * m + j], a[i * m + j] * 2.0 + bji.abs());
        }
    }
}

/// A tiled MDRange (explicit tiles, either order) is evaluated in the host backends' order
/// (`TileGrid`), which a reduction with a non-commutative accumulator (`h = h * 31 + code`)
/// tells apart from the row-major order of an untiled box.
#[test]
fn tiled_md_range_runs_in_the_host_order() {
    use crate::host_iter::TileGrid;
    use crate::policy::{Iterate, MDRangePolicy};
    let mut k = KernelBuilder::new("order_hash", WorkKind::MDRange(2));
    let (i, j) = (k.work_index(0), k.work_index(1));
    let h = k.acc::<u64>("h");
    let code = (i * crate::ir::build::Expr::lit(100usize) + j).cast::<u64>();
    k.acc_set(h, h.get().wrapping_mul(31u64) + code);
    let kernel = k.finish().unwrap();
    let hash = |points: &[[usize; 2]]| {
        points.iter().fold(0u64, |h, p| {
            h.wrapping_mul(31).wrapping_add((p[0] * 100 + p[1]) as u64)
        })
    };
    let (b, e) = ([1usize, 2usize], [9usize, 7usize]);
    let row_major: Vec<[usize; 2]> = (b[0]..e[0])
        .flat_map(|x| (b[1]..e[1]).map(move |y| [x, y]))
        .collect();
    for order in [Iterate::Right, Iterate::Left] {
        for tile in [[3, 2], [2, 4], [0, 0]] {
            let grid = TileGrid::new(&MDRangePolicy::new(&(), b, e).tile(tile).iterate(order));
            let mut host = Vec::new();
            for t in 0..grid.len() {
                grid.for_each_in_tile(t, |p| host.push(p));
            }
            let work = WorkSet::TiledMDRange {
                begin: b.iter().map(|&x| x as u64).collect(),
                end: e.iter().map(|&x| x as u64).collect(),
                tile: tile.iter().map(|&x| x as u64).collect(),
                order,
            };
            let got = eval_reduce(&kernel, &work, &mut [], &[Value::U64(0)]).unwrap();
            assert_eq!(got, vec![Value::U64(hash(&host))], "{tile:?} {order:?}");
            // Only default tiles in the row-major order visit the rows in order; elsewhere the
            // row-major walk (what the evaluator did for every MDRange) folds another value.
            let rows = tile == [0, 0] && order == Iterate::Right;
            assert_eq!(host == row_major, rows, "{tile:?} {order:?}");
            assert_eq!(hash(&host) == hash(&row_major), rows, "{tile:?} {order:?}");
        }
    }
    let work = WorkSet::MDRange {
        begin: vec![1, 2],
        end: vec![9, 7],
    };
    let got = eval_reduce(&kernel, &work, &mut [], &[Value::U64(0)]).unwrap();
    assert_eq!(got, vec![Value::U64(hash(&row_major))]);
}

#[test]
fn team_kernel_with_scratch_reduce_single() {
    let (teams, m) = (5usize, 6usize);
    let a = data(teams * m, 9);
    let mut a2 = a.clone();
    let mut out = vec![0.0; teams];
    let mut args = [
        ArgValue::view(&mut a2, &[teams, m]),
        ArgValue::view(&mut out, &[teams]),
    ];
    let work = WorkSet::League {
        league_size: teams as u64,
        vector_length: 1,
        scratch_bytes: None,
    };
    eval_for(&kernels::team_rows(), &work, &mut args).unwrap();
    for r in 0..teams {
        let tmp: Vec<f64> = (0..m).map(|j| a[r * m + j] * 2.0).collect();
        let mut sum = 0.0;
        for t in &tmp {
            sum += t;
        }
        assert_eq!(out[r], sum + tmp[0]);
    }
}

#[test]
fn atomic_histogram() {
    let a: Vec<f64> = data(200, 10).iter().map(|x| x.abs()).collect();
    let nbins = 7usize;
    let mut native = vec![0u32; nbins];
    for x in &a {
        native[((x * nbins as f64) as usize).min(nbins - 1)] += 1;
    }
    let mut a2 = a.clone();
    let mut h = vec![0u32; nbins];
    let mut args = [
        ArgValue::view(&mut a2, &[200]),
        ArgValue::view(&mut h, &[nbins]),
        ArgValue::Scalar(Value::U64(nbins as u64)),
    ];
    eval_for(&kernels::histogram(), &range(200), &mut args).unwrap();
    assert_eq!(h, native);
}

#[test]
fn helper_functions() {
    let (a, b) = (data(10, 11), data(10, 12));
    let (mut a2, mut b2) = (a.clone(), b.clone());
    let mut out = vec![0.0; 10];
    let mut args = [
        ArgValue::view(&mut a2, &[10]),
        ArgValue::view(&mut b2, &[10]),
        ArgValue::view(&mut out, &[10]),
    ];
    eval_for(&kernels::with_helpers(), &range(10), &mut args).unwrap();
    let sq = |x: f64| x * x;
    for i in 0..10 {
        assert_eq!(out[i], (sq(a[i]) + sq(b[i])).sqrt());
    }
}

/// The native body of `kernels::control`, verbatim.
fn control_native(i: usize, a: &[i32], out: &mut [i32]) {
    if a[i] < 0 {
        return;
    }
    let mut s = 0;
    for k in 0..10 {
        if k % 2 == 0 {
            continue;
        }
        if k > 7 {
            break;
        }
        s += k;
    }
    let mut n = a[i];
    let mut steps = 0;
    while n > 1 && steps < 1000 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    let mut d = [0i32; 3];
    let mut t = 0usize;
    loop {
        d[t] = s << t;
        t += 1;
        if t == 3 {
            break;
        }
    }
    for k in (0..6).step_by(2).rev() {
        s = s * 10 + k;
    }
    out[i] = s + steps + d[0] + d[2] - (-n).abs() + i32::from(n == 1);
}

#[test]
fn loops_break_continue_early_return() {
    let a: Vec<i32> = vec![7, -3, 1, 27, 0, 12, -1, 97];
    let mut native = vec![-99; a.len()];
    for i in 0..a.len() {
        control_native(i, &a, &mut native);
    }
    let mut a2 = a.clone();
    let mut out = vec![-99; a.len()];
    let mut args = [
        ArgValue::view(&mut a2, &[a.len()]),
        ArgValue::view(&mut out, &[a.len()]),
    ];
    eval_for(&kernels::control(), &range(a.len() as u64), &mut args).unwrap();
    assert_eq!(out, native);
}

#[test]
fn out_of_bounds_and_division_by_zero_are_errors() {
    let mut a = vec![0.0; 4];
    let (mut b, mut c) = (vec![0.0; 4], vec![0.0; 4]);
    let mut args = [
        ArgValue::view(&mut a, &[4]),
        ArgValue::view(&mut b, &[4]),
        ArgValue::view(&mut c, &[4]),
        ArgValue::Scalar(Value::F64(1.0)),
    ];
    let e = eval_for(&kernels::triad(), &range(5), &mut args).unwrap_err();
    assert_eq!(
        e,
        EvalError::OutOfBounds {
            view: "b".into(),
            index: vec![4],
            extents: vec![4]
        }
    );

    let mut k = KernelBuilder::new("div", WorkKind::Range);
    let i = k.work_index(0);
    let out = k.view::<i32>("out", 1, Access::Writable);
    let d = k.scalar::<i32>("d");
    k.store(out, i.clone(), (i.cast::<i32>() + i32::MAX) / d.get() % 7);
    let k = k.finish().unwrap();
    let mut o = vec![0; 3];
    let mut args = [
        ArgValue::view(&mut o, &[3]),
        ArgValue::Scalar(Value::I32(0)),
    ];
    assert_eq!(
        eval_for(&k, &range(3), &mut args).unwrap_err(),
        EvalError::Failed("attempt to divide by zero".into())
    );
    // Without overflow checks `i + MAX` wraps to MIN at i = 1, and MIN / -1 fails in every build
    // (Rust panics on it in release builds too); item 0 ran before.
    let mut args = [
        ArgValue::view(&mut o, &[3]),
        ArgValue::Scalar(Value::I32(-1)),
    ];
    assert_eq!(
        eval_for(&k, &range(3), &mut args).unwrap_err(),
        EvalError::Failed("attempt to divide with overflow".into())
    );
    assert_eq!(o[0], (i32::MAX / -1) % 7);
    let mut args = [
        ArgValue::view(&mut o, &[3]),
        ArgValue::Scalar(Value::I32(3)),
    ];
    eval_for(&k, &range(3), &mut args).unwrap();
    let native: Vec<i32> = (0..3)
        .map(|i: i32| i.wrapping_add(i32::MAX) / 3 % 7)
        .collect();
    assert_eq!(o, native);
}

/// `+ - *`, negation, `abs` and shifts fail on overflow in a kernel recorded with overflow checks,
/// with Rust's panic messages, and wrap without them; the wrapping methods wrap in both modes.
#[test]
fn overflow_fails_with_checks_and_wraps_without() {
    use crate::ir::build::Expr;
    type Build = fn(Expr<i32>, Expr<i32>) -> Expr<i32>;
    /// Name, operation, operands, the wrapped result (`None`: fails in every build), the failure.
    type Case = (
        &'static str,
        Build,
        i32,
        i32,
        Option<i32>,
        Option<&'static str>,
    );
    let cases: [Case; 9] = [
        (
            "add",
            |a, b| a + b,
            i32::MAX,
            1,
            Some(i32::MIN),
            Some("attempt to add with overflow"),
        ),
        (
            "sub",
            |a, b| a - b,
            i32::MIN,
            1,
            Some(i32::MAX),
            Some("attempt to subtract with overflow"),
        ),
        (
            "mul",
            |a, b| a * b,
            1 << 16,
            1 << 16,
            Some(0),
            Some("attempt to multiply with overflow"),
        ),
        (
            "neg",
            |a, _| -a,
            i32::MIN,
            0,
            Some(i32::MIN),
            Some("attempt to negate with overflow"),
        ),
        (
            "abs",
            |a, _| a.abs(),
            i32::MIN,
            0,
            Some(i32::MIN),
            Some("attempt to negate with overflow"),
        ),
        (
            "shl",
            |a, b| a << b,
            1,
            33,
            Some(2),
            Some("attempt to shift left with overflow"),
        ),
        (
            "shr",
            |a, b| a >> b,
            -16,
            -1,
            Some(-1),
            Some("attempt to shift right with overflow"),
        ),
        (
            "wrapping_add",
            |a, b| a.wrapping_add(b),
            i32::MAX,
            1,
            Some(i32::MIN),
            None,
        ),
        (
            "rem_min",
            |a, b| a % b,
            i32::MIN,
            -1,
            None,
            Some("attempt to calculate the remainder with overflow"),
        ),
    ];
    for (name, build, a, b, wrapped, message) in cases {
        for checks in [false, true] {
            let mut k = KernelBuilder::new(name, WorkKind::Range);
            k.overflow_checks(checks);
            let i = k.work_index(0);
            let out = k.view::<i32>("out", 1, Access::Writable);
            let (x, y) = (k.scalar::<i32>("a"), k.scalar::<i32>("b"));
            k.store(out, i, build(x.get(), y.get()));
            let k = k.finish().unwrap();
            let mut o = vec![7];
            let mut args = [
                ArgValue::view(&mut o, &[1]),
                ArgValue::Scalar(Value::I32(a)),
                ArgValue::Scalar(Value::I32(b)),
            ];
            let r = eval_for(&k, &range(1), &mut args);
            match (checks, wrapped, message) {
                (false, Some(w), _) | (true, Some(w), None) => {
                    assert_eq!(r, Ok(()), "{name} checks={checks}");
                    assert_eq!(o, [w], "{name} checks={checks}");
                }
                (_, _, Some(m)) => {
                    assert_eq!(
                        r,
                        Err(EvalError::Failed(m.into())),
                        "{name} checks={checks}"
                    );
                    assert_eq!(o, [7], "{name}: nothing stored");
                }
                _ => unreachable!(),
            }
        }
    }
}

#[test]
fn casts_shifts_and_float_min_match_rust() {
    use crate::ir::eval::ops;
    use crate::ir::{BitwiseOp, MathFn, ScalarType};
    assert_eq!(
        ops::cast(Value::F64(1e20), ScalarType::I32),
        Ok(Value::I32(i32::MAX))
    );
    assert_eq!(
        ops::cast(Value::F64(f64::NAN), ScalarType::U64),
        Ok(Value::U64(0))
    );
    assert_eq!(
        ops::cast(Value::F32(-3.9), ScalarType::U32),
        Ok(Value::U32(0))
    );
    assert_eq!(
        ops::cast(Value::I64(-1), ScalarType::U32),
        Ok(Value::U32(u32::MAX))
    );
    assert_eq!(
        ops::cast(Value::Bool(true), ScalarType::I64),
        Ok(Value::I64(1))
    );
    assert_eq!(
        ops::cast(Value::U64(u64::MAX), ScalarType::F32),
        Ok(Value::F32(u64::MAX as f32))
    );
    assert_eq!(
        ops::bitwise(BitwiseOp::Shl, Value::U32(1), Value::I32(33), false),
        Ok(Value::U32(1u32.wrapping_shl(33)))
    );
    assert_eq!(
        ops::bitwise(BitwiseOp::Shr, Value::I64(-16), Value::U64(2), false),
        Ok(Value::I64(-4))
    );
    assert_eq!(
        ops::math(MathFn::Min, &[Value::F64(f64::NAN), Value::F64(2.0)], false),
        Ok(Value::F64(2.0))
    );
    assert_eq!(
        ops::math(MathFn::Powi, &[Value::F32(1.5), Value::I32(3)], false),
        Ok(Value::F32(1.5f32.powi(3)))
    );
    assert_eq!(
        ops::math(MathFn::Abs, &[Value::I32(i32::MIN)], false),
        Ok(Value::I32(i32::MIN))
    );
    assert_eq!(
        ops::math(MathFn::Round, &[Value::F64(-2.5)], false),
        Ok(Value::F64(-3.0))
    );
    assert_eq!(
        ops::math(MathFn::Fract, &[Value::F64(-2.25)], false),
        Ok(Value::F64(-0.25))
    );
    assert_eq!(
        ops::math(MathFn::Signum, &[Value::I64(-9)], false),
        Ok(Value::I64(-1))
    );
    assert!(matches!(
        ops::math(
            MathFn::Clamp,
            &[Value::I32(1), Value::I32(5), Value::I32(2)],
            false
        ),
        Err(EvalError::Failed(m)) if m == "min > max. min = 5, max = 2"
    ));
}

#[test]
fn bad_arguments_are_errors() {
    let mut a = vec![0.0f32; 4];
    let mut args = [ArgValue::view(&mut a, &[4])];
    assert!(matches!(
        eval_reduce(&kernels::dot(), &range(4), &mut args, &[Value::F64(0.0)]),
        Err(EvalError::BadArguments(_))
    ));
    assert!(matches!(
        eval_for(&kernels::dot(), &range(4), &mut args),
        Err(EvalError::BadArguments(_))
    ));
}

#[test]
fn nested_scan_vector_range_single_result_and_atomics() {
    use crate::ir::{AtomicOp, NestedKind, SingleKind};
    // fn k(team: &TeamMember, a: View<i64, 2>, out: ViewMut<i64, 2>, cnt: ViewMut<u64>) {
    //     let r = team.league_rank();
    //     let n = a.extent(1);
    //     let total = team.thread_scan(n, |j, partial, is_final| {
    //         if is_final { out[(r, j)] = *partial; }
    //         *partial += a[(r, j)];
    //     });
    //     let big = team.single_team(|| if total > 10 { 1u64 } else { 0u64 });
    //     for j in team.thread_range(n) {
    //         for l in team.vector_range(1) { out[(r, j)] += l as i64 * 2; }
    //     }
    //     let old = cnt.atomic_fetch_add(0, big);
    //     cnt.atomic_compare_exchange(1, old, old + 100);
    // }
    let mut k = KernelBuilder::new("scan_team", WorkKind::Team);
    let a = k.view::<i64>("a", 2, Access::ReadOnly);
    let out = k.view::<i64>("out", 2, Access::Writable);
    let cnt = k.view::<u64>("cnt", 1, Access::Writable);
    let team = k.team();
    let r = k.let_("r", team.league_rank());
    let n = k.let_("n", a.extent(1));
    let sc = k.nested_scan::<i64>(NestedKind::Thread, "total", 0, n);
    k.if_(sc.is_final.get());
    k.store(out, (r, sc.index), sc.partial);
    k.end();
    k.assign(sc.partial, sc.partial.get() + a.load((r, sc.index)));
    k.end();
    let big = k.single_with::<u64>(SingleKind::Team, "big");
    k.if_(sc.total.get().gt(10));
    k.assign(big, 1);
    k.else_();
    k.assign(big, 0);
    k.end();
    k.end();
    let j = k.nested_for(NestedKind::Thread, "j", 0, n);
    let l = k.nested_for(NestedKind::Vector, "l", 0, 1);
    k.store(out, (r, j), out.load((r, j)) + l.get().cast::<i64>() * 2);
    k.end();
    k.end();
    let old = k.atomic_fetch(AtomicOp::Add, cnt, 0, vec![big.get()]);
    let old = k.let_("old", old);
    k.atomic(
        AtomicOp::CompareExchange,
        cnt,
        1,
        vec![old.get(), old.get() + 100],
    );
    let kernel = k.finish().unwrap();
    crate::ir::valid::validate(&kernel).unwrap_or_else(|e| panic!("{e}\n{kernel}"));

    let a: Vec<i64> = vec![1, 2, 3, 4, 5, 6, -7, 8, 9];
    let mut a2 = a.clone();
    let mut out = vec![0i64; 9];
    let mut cnt = vec![0u64, 0];
    let mut args = [
        ArgValue::view(&mut a2, &[3, 3]),
        ArgValue::view(&mut out, &[3, 3]),
        ArgValue::view(&mut cnt, &[2]),
    ];
    let work = WorkSet::League {
        league_size: 3,
        vector_length: 1,
        scratch_bytes: None,
    };
    eval_for(&kernel, &work, &mut args).unwrap();
    assert_eq!(out, [0, 1, 3, 0, 4, 9, 0, -7, 1]);
    // Row totals 6, 15, 10: one is > 10. Team 0: old = 0 → cnt[1]: 0 == 0 → 100.
    // Team 1: cnt[0] 0 → 1, old 0, cnt[1] = 100 != 0. Team 2: old = 1, 100 != 1.
    assert_eq!(cnt, [1, 100]);
}

/// The atomics beyond add ... xor in the evaluator: each operation's old value (fetch form),
/// new value (`_fetch` form) and element, against Rust's own operations; a zero divisor fails
/// without writing.
#[test]
fn every_atomic_op_and_form() {
    use crate::ir::build::Expr as BExpr;
    use crate::ir::eval::ops::atomic;
    use crate::ir::AtomicOp;
    let i = Value::I32;
    let u = Value::U32;
    let new_of = |op, old, args: &[Value]| atomic(op, old, args).unwrap().unwrap();
    assert_eq!(new_of(AtomicOp::Mul, i(-3), &[i(7)]), i(-21));
    assert_eq!(new_of(AtomicOp::Mul, i(i32::MAX), &[i(2)]), i(-2), "wraps");
    assert_eq!(new_of(AtomicOp::Div, i(-7), &[i(2)]), i(-3), "truncates");
    assert_eq!(
        new_of(AtomicOp::Div, i(i32::MIN), &[i(-1)]),
        i(i32::MIN),
        "wraps"
    );
    assert_eq!(
        new_of(AtomicOp::Mod, i(-7), &[i(3)]),
        i(-1),
        "sign of the dividend"
    );
    assert_eq!(new_of(AtomicOp::Mod, i(i32::MIN), &[i(-1)]), i(0));
    assert_eq!(new_of(AtomicOp::Nand, u(0b1100), &[u(0b1010)]), u(!0b1000));
    assert_eq!(
        new_of(AtomicOp::Lshift, u(1), &[u(33)]),
        u(2),
        "amount masked"
    );
    assert_eq!(
        new_of(AtomicOp::Rshift, i(-8), &[i(1)]),
        i(-4),
        "arithmetic"
    );
    assert_eq!(
        new_of(AtomicOp::Rshift, i(-8), &[i(-1)]),
        i(-1),
        "-1 masks to 31"
    );
    assert_eq!(new_of(AtomicOp::Inc, u(u32::MAX), &[]), u(0));
    assert_eq!(new_of(AtomicOp::Dec, Value::U8(0), &[]), Value::U8(255));
    assert_eq!(new_of(AtomicOp::Inc, Value::F64(1.5), &[]), Value::F64(2.5));
    assert_eq!(
        new_of(AtomicOp::Div, Value::F32(1.0), &[Value::F32(0.0)]),
        Value::F32(f32::INFINITY)
    );
    assert_eq!(new_of(AtomicOp::IncMod, u(4), &[u(5)]), u(5));
    assert_eq!(new_of(AtomicOp::IncMod, u(5), &[u(5)]), u(0));
    assert_eq!(new_of(AtomicOp::IncMod, u(9), &[u(5)]), u(0));
    assert_eq!(new_of(AtomicOp::DecMod, u(0), &[u(5)]), u(5));
    assert_eq!(new_of(AtomicOp::DecMod, u(9), &[u(5)]), u(5));
    assert_eq!(new_of(AtomicOp::DecMod, u(3), &[u(5)]), u(2));
    for (op, msg) in [
        (AtomicOp::Div, "attempt to divide by zero"),
        (
            AtomicOp::Mod,
            "attempt to calculate the remainder with a divisor of zero",
        ),
    ] {
        match atomic(op, i(5), &[i(0)]) {
            Err(EvalError::Failed(m)) => assert_eq!(m, msg),
            other => panic!("{op:?} by zero: {other:?}"),
        }
    }

    // Through a kernel: out[3i] = fetch form, out[3i + 1] = `_fetch` form, c = the element.
    //     out[0] = c.atomic_fetch_mul(0, 3); out[1] = c.atomic_mul_fetch(1, 3); ...
    let ops = [
        (AtomicOp::Mul, Some(3i32)),
        (AtomicOp::Div, Some(-2)),
        (AtomicOp::Mod, Some(4)),
        (AtomicOp::Nand, Some(6)),
        (AtomicOp::Lshift, Some(35)),
        (AtomicOp::Rshift, Some(1)),
        (AtomicOp::Inc, None),
        (AtomicOp::Dec, None),
        (AtomicOp::Max, Some(100)),
    ];
    let mut k = KernelBuilder::new("forms", WorkKind::Range);
    let c = k.view::<i32>("c", 1, Access::Writable);
    let out = k.view::<i32>("out", 1, Access::Writable);
    for (j, &(op, v)) in ops.iter().enumerate() {
        let args = || v.map(BExpr::lit).into_iter().collect::<Vec<_>>();
        let old = k.atomic_fetch(op, c, 2 * j, args());
        k.store(out, 2 * j, old);
        let new = k.atomic_new_fetch(op, c, 2 * j + 1, args());
        k.store(out, 2 * j + 1, new);
    }
    let kernel = k.finish().unwrap();
    crate::ir::valid::validate(&kernel).unwrap_or_else(|e| panic!("{e}\n{kernel}"));
    let text = kernel.to_string();
    assert!(
        text.contains("atomic_mul_fetch(c[") && text.contains("atomic_inc(c["),
        "{text}"
    );
    let start = -13i32;
    let mut cv = vec![start; 2 * ops.len()];
    let mut ov = vec![0i32; 2 * ops.len()];
    let mut args = [
        ArgValue::view(&mut cv, &[2 * ops.len()]),
        ArgValue::view(&mut ov, &[2 * ops.len()]),
    ];
    eval_for(&kernel, &range(1), &mut args).unwrap();
    let want: Vec<i32> = ops
        .iter()
        .map(|&(op, v)| {
            let v = v.unwrap_or(0);
            match op {
                AtomicOp::Mul => start.wrapping_mul(v),
                AtomicOp::Div => start / v,
                AtomicOp::Mod => start % v,
                AtomicOp::Nand => !(start & v),
                AtomicOp::Lshift => start.wrapping_shl(v as u32),
                AtomicOp::Rshift => start >> v,
                AtomicOp::Inc => start + 1,
                AtomicOp::Dec => start - 1,
                _ => start.max(v),
            }
        })
        .collect();
    for (j, w) in want.iter().enumerate() {
        assert_eq!((ov[2 * j], ov[2 * j + 1]), (start, *w), "{:?}", ops[j].0);
        assert_eq!((cv[2 * j], cv[2 * j + 1]), (*w, *w), "{:?}", ops[j].0);
    }
}
