use super::*;
use proptest::prelude::*;
use rokkos_core::ir::build::KernelBuilder;
use rokkos_core::ir::{Access, WorkKind};

fn w(offset: i64) -> Term {
    Term::Work(Shifted { dim: 0, offset })
}

/// Shifted and literal indices (loads, stores, atomics, any rank) are bounded; a scaled or
/// indirect index makes its View `Other`, naming the first such access; a View whose elements
/// the body never touches has no accesses.
#[test]
fn reaches_sorts_each_views_accesses() {
    let mut kb = KernelBuilder::new("reach", WorkKind::Range);
    let i = kb.work_index(0);
    let x = kb.view::<f64>("x", 1, Access::ReadOnly);
    let y = kb.view::<f64>("y", 1, Access::Writable);
    let a = kb.view::<i32>("a", 2, Access::Writable);
    let z = kb.view::<f64>("z", 1, Access::ReadOnly);
    let idx = kb.view::<u32>("idx", 1, Access::ReadOnly);
    let g = kb.view::<f64>("g", 1, Access::ReadOnly);
    let unused = kb.view::<f64>("unused", 1, Access::ReadOnly);
    let v = x.load(i.clone() + 1usize)
        + x.load(i.clone() - 2usize)
        + x.load(i.clone() + 1usize)
        + z.load(i.clone() * 2usize)
        + g.load(idx.load(&i).cast::<usize>());
    kb.store(y, &i, v);
    kb.atomic_add(a, (i.clone(), 3usize), 1i32);
    let _ = unused.extent(0);
    let k = kb.finish().unwrap();
    let r = reaches(&k);
    assert_eq!(r[0], Reach::Terms(vec![vec![w(-2)], vec![w(1)]]));
    assert_eq!(r[1], Reach::Terms(vec![vec![w(0)]]));
    assert_eq!(r[2], Reach::Terms(vec![vec![w(0), Term::Lit(3)]]));
    match &r[3] {
        Reach::Other(s) => assert!(s.starts_with("z[") && s.contains('2'), "{s}"),
        o => panic!("{o:?}"),
    }
    assert_eq!(r[4], Reach::Terms(vec![vec![w(0)]]));
    assert!(matches!(&r[5], Reach::Other(s) if s.starts_with("g[") && s.contains("idx")));
    assert_eq!(r[6], Reach::Terms(vec![]));
}

/// Only indices inside the extent count: `x[i - 2]` and `x[i + 2]` over `0..3` of an extent-10
/// View reach elements 0 (from `i = 2`) to 4, placed by offset and stride.
#[test]
fn span_counts_only_in_extent_indices() {
    let terms = vec![vec![w(-2)], vec![w(2)]];
    let at = Placement {
        offset: 0,
        extents: &[10],
        strides: &[1],
    };
    assert_eq!(span(&terms, &at, &[(0, 3)]), Some((0, 4)));
    assert_eq!(span(&terms, &at, &[(0, 2)]), Some((2, 3)));
    assert_eq!(span(&terms, &at, &[(9, 12)]), Some((7, 9)));
    assert_eq!(span(&terms, &at, &[(12, 20)]), None);
    let placed = Placement {
        offset: 100,
        extents: &[10],
        strides: &[3],
    };
    assert_eq!(span(&terms, &placed, &[(0, 3)]), Some((100, 112)));
    // A literal past its extent reaches nothing.
    let lit = vec![vec![w(0), Term::Lit(4)]];
    let rank2 = Placement {
        offset: 0,
        extents: &[5, 4],
        strides: &[4, 1],
    };
    assert_eq!(span(&lit, &rank2, &[(0, 5)]), None);
    let lit = vec![vec![w(0), Term::Lit(3)]];
    assert_eq!(span(&lit, &rank2, &[(1, 3)]), Some((7, 11)));
}

/// A View reached `c` away from the work index on both sides needs a few chunks per step;
/// a budget below the sum of those is refused with the reason.
#[test]
fn plan_refuses_a_budget_below_one_step() {
    let terms = vec![vec![w(-40)], vec![w(40)]];
    let v = Chunked {
        name: "x",
        terms: &terms,
        at: Placement {
            offset: 0,
            extents: &[1000],
            strides: &[1],
        },
        shift: 4,
        chunks: 63,
    };
    // 80 elements apart: at most 80 / 16 + 2 = 7 chunks per step.
    let p = plan(&[v], 7, &[(0, 1000)], 0).unwrap();
    assert_eq!(p.bound, vec![7]);
    let e = plan(&[v], 6, &[(0, 1000)], 0).unwrap_err();
    assert!(
        e.contains("`x` 7 of its 63") && e.contains("6 bindings"),
        "{e}"
    );
    // Enough for every chunk: one window.
    let p = plan(&[v], 100, &[(0, 1000)], 0).unwrap();
    assert_eq!(p.bound, vec![63]);
    assert_eq!(p.windows.len(), 1);
    // Nothing to run: no window.
    assert!(plan(&[v], 7, &[(5, 5)], 0).unwrap().windows.is_empty());
}

/// Brute force: every in-extent access of every work item of a window lies in the chunks the
/// window binds, the windows cover the range in order, and the bindings stay in the budget.
fn check_plan(views: &[Chunked], budget: u64, begin: u64, end: u64) -> Result<(), TestCaseError> {
    let p = plan(views, budget, &[(begin, end)], 0).map_err(TestCaseError::fail)?;
    prop_assert!(p.bound.iter().map(|&b| u64::from(b)).sum::<u64>() <= budget);
    let mut next = begin;
    for win in &p.windows {
        prop_assert_eq!(win.begin, next);
        prop_assert!(win.end > win.begin);
        next = win.end;
        for ((v, &k), &base) in views.iter().zip(&p.bound).zip(&win.bases) {
            prop_assert!(base + k <= v.chunks);
            for i in win.begin..win.end {
                for index in v.terms {
                    let mut off = v.at.offset as i128;
                    let mut inside = true;
                    for ((t, &e), &s) in index.iter().zip(v.at.extents).zip(v.at.strides) {
                        let x = match *t {
                            Term::Lit(l) => l as i128,
                            Term::Work(x) => i as i128 + x.offset as i128,
                        };
                        inside &= x >= 0 && x < e as i128;
                        off += x * s as i128;
                    }
                    if inside {
                        let c = (off as u64 >> v.shift) as u32;
                        prop_assert!(
                            c >= base && c < base + k,
                            "`{}` item {} reaches chunk {} outside {}..{}",
                            v.name,
                            i,
                            c,
                            base,
                            base + k
                        );
                    }
                }
            }
        }
    }
    prop_assert_eq!(next, end.max(begin));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Rank-1 and rank-2 (a literal column) Views at offsets and strides, shifts -2..=2, any
    /// sub-range of the extents and beyond them (out-of-bounds work items reach nothing). One
    /// step needs at most 12 / 4 + 2 = 5 chunks of each View, so 10 bindings always suffice.
    #[test]
    fn windows_bind_every_element_they_reach(
        n in 1usize..600,
        shifts in proptest::collection::vec(-2i64..=2, 1..4),
        col in 0u64..3,
        offset in 0u64..50,
        stride in 1usize..4,
        shift in 2u32..7,
        lo in 0u64..40,
        extra in 0u64..40,
        budget in 10u64..24,
    ) {
        let t1: Vec<Vec<Term>> = shifts.iter().map(|&c| vec![w(c)]).collect();
        let t2: Vec<Vec<Term>> = shifts.iter().map(|&c| vec![w(c), Term::Lit(col)]).collect();
        let e1 = [n];
        let s1 = [stride];
        let e2 = [n, 3];
        let s2 = [3, 1];
        let elems1 = offset + ((n - 1) * stride) as u64 + 1;
        let elems2 = 3 * n as u64;
        let chunks = |e: u64| e.div_ceil(1 << shift) as u32;
        let views = [
            Chunked {
                name: "a",
                terms: &t1,
                at: Placement { offset, extents: &e1, strides: &s1 },
                shift,
                chunks: chunks(elems1),
            },
            Chunked {
                name: "b",
                terms: &t2,
                at: Placement { offset: 0, extents: &e2, strides: &s2 },
                shift,
                chunks: chunks(elems2),
            },
        ];
        let end = (n as u64 + extra).min(lo + n as u64 + 5);
        check_plan(&views, budget, lo.min(end), end)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// A 2-D stencil over a sub-box of an `n × m` View (LayoutRight or LayoutLeft strides),
    /// windowed along either dimension: every in-extent access of every work point of a window
    /// lies in the chunks it binds, and the windows tile the dimension in order.
    #[test]
    fn windows_of_either_dimension_bind_what_they_reach(
        n in 2usize..30,
        m in 2usize..30,
        left in any::<bool>(),
        dim in 0usize..2,
        shift in 2u32..6,
        lo in (0u64..3, 0u64..3),
        budget in 8u64..24,
    ) {
        let s = |d: u32, c: i64| Term::Work(Shifted { dim: d, offset: c });
        let terms = vec![
            vec![s(0, 0), s(1, 0)],
            vec![s(0, -1), s(1, 0)],
            vec![s(0, 1), s(1, 0)],
            vec![s(0, 0), s(1, -1)],
            vec![s(0, 0), s(1, 1)],
        ];
        let extents = [n, m];
        let strides = if left { [1, n] } else { [m, 1] };
        let at = Placement { offset: 0, extents: &extents, strides: &strides };
        let chunks = (n * m).div_ceil(1 << shift) as u32;
        let v = Chunked { name: "u", terms: &terms, at, shift, chunks };
        let bounds = [(lo.0, n as u64), (lo.1, m as u64)];
        let Ok(p) = plan(&[v], budget, &bounds, dim) else {
            // Refused only when the budget cannot bind every chunk at once.
            prop_assert!(u64::from(chunks) > budget);
            return Ok(());
        };
        if bounds.iter().any(|&(b, e)| b >= e) {
            prop_assert!(p.windows.is_empty());
            return Ok(());
        }
        let mut next = bounds[dim].0;
        for w in &p.windows {
            prop_assert_eq!(w.begin, next);
            next = w.end;
            let (k, base) = (p.bound[0], w.bases[0]);
            prop_assert!(base + k <= chunks);
            let mut b = bounds;
            b[dim] = (w.begin, w.end);
            for i in b[0].0..b[0].1 {
                for j in b[1].0..b[1].1 {
                    for index in &terms {
                        let x: Vec<i64> = index
                            .iter()
                            .map(|t| match *t {
                                Term::Work(x) => [i, j][x.dim as usize] as i64 + x.offset,
                                Term::Lit(l) => l as i64,
                            })
                            .collect();
                        if x[0] < 0 || x[0] >= n as i64 || x[1] < 0 || x[1] >= m as i64 {
                            continue;
                        }
                        let off = x[0] as usize * strides[0] + x[1] as usize * strides[1];
                        let c = (off >> shift) as u32;
                        prop_assert!(c >= base && c < base + k, "({}, {}) chunk {}", i, j, c);
                    }
                }
            }
        }
        prop_assert_eq!(next, bounds[dim].1);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Windows of whole steps (an MDRange's tiles of the windowed dimension): every window but
    /// the last is a whole number of steps from the dimension's begin, the windows tile it in
    /// order, and every in-extent access of every work point of a window (a 2-D stencil, either
    /// layout) lies in the chunks it binds.
    #[test]
    fn windows_of_whole_steps_bind_what_they_reach(
        n in 2usize..30,
        m in 2usize..30,
        left in any::<bool>(),
        dim in 0usize..2,
        step in 1u64..9,
        shift in 2u32..6,
        lo in (0u64..3, 0u64..3),
        budget in 8u64..24,
    ) {
        let s = |d: u32, c: i64| Term::Work(Shifted { dim: d, offset: c });
        let terms = vec![
            vec![s(0, 0), s(1, 0)],
            vec![s(0, -1), s(1, 0)],
            vec![s(0, 1), s(1, 1)],
        ];
        let extents = [n, m];
        let strides = if left { [1, n] } else { [m, 1] };
        let at = Placement { offset: 0, extents: &extents, strides: &strides };
        let chunks = (n * m).div_ceil(1 << shift) as u32;
        let v = Chunked { name: "u", terms: &terms, at, shift, chunks };
        let bounds = [(lo.0, n as u64), (lo.1, m as u64)];
        let Ok(p) = plan_steps(&[v], budget, &bounds, dim, step) else {
            prop_assert!(u64::from(chunks) > budget);
            return Ok(());
        };
        if bounds.iter().any(|&(b, e)| b >= e) {
            prop_assert!(p.windows.is_empty());
            return Ok(());
        }
        let (begin, end) = bounds[dim];
        let mut next = begin;
        for w in &p.windows {
            prop_assert_eq!(w.begin, next);
            prop_assert!(w.end == end || (w.end - begin) % step == 0, "{:?}", w);
            next = w.end;
            let (k, base) = (p.bound[0], w.bases[0]);
            let mut b = bounds;
            b[dim] = (w.begin, w.end);
            for i in b[0].0..b[0].1 {
                for j in b[1].0..b[1].1 {
                    for index in &terms {
                        let x: Vec<i64> = index
                            .iter()
                            .map(|t| match *t {
                                Term::Work(x) => [i, j][x.dim as usize] as i64 + x.offset,
                                Term::Lit(l) => l as i64,
                            })
                            .collect();
                        if x[0] < 0 || x[0] >= n as i64 || x[1] < 0 || x[1] >= m as i64 {
                            continue;
                        }
                        let off = x[0] as usize * strides[0] + x[1] as usize * strides[1];
                        let c = (off >> shift) as u32;
                        prop_assert!(c >= base && c < base + k, "({}, {}) chunk {}", i, j, c);
                    }
                }
            }
        }
        prop_assert_eq!(next, end.max(begin));
    }
}

/// A step wider than one slice needs the chunks the whole step reaches: 8 rows of 16 `f64`s
/// (128 elements, 8 chunks of 16) is 9 chunks at least, and a budget of 8 is refused for
/// steps of 8 rows but not of 1 (windows of 8 rows, each row one chunk).
#[test]
fn a_step_needs_what_all_its_slices_reach() {
    let terms = vec![vec![
        Term::Work(Shifted { dim: 0, offset: 0 }),
        Term::Work(Shifted { dim: 1, offset: 0 }),
    ]];
    let v = Chunked {
        name: "u",
        terms: &terms,
        at: Placement {
            offset: 0,
            extents: &[64, 16],
            strides: &[16, 1],
        },
        shift: 4,
        chunks: 64,
    };
    let bounds = [(0, 64), (0, 16)];
    assert!(plan_steps(&[v], 8, &bounds, 0, 8).is_err());
    let p = plan_steps(&[v], 10, &bounds, 0, 8).unwrap();
    assert!(p.windows.iter().all(|w| w.begin % 8 == 0));
    assert_eq!(plan(&[v], 8, &bounds, 0).unwrap().windows.len(), 8);
}
