use super::*;
use proptest::prelude::*;
use rokkos_core::ir::build::KernelBuilder;
use rokkos_core::ir::{Access, WorkKind};

/// The five-point stencil over an MDRange, with a transposed read: the analysis finds each
/// distinct access once, with its offsets, and nothing that is not a shifted work index.
fn stencil() -> Kernel {
    let mut kb = KernelBuilder::new("five", WorkKind::MDRange(2));
    let (i, j) = (kb.work_index(0), kb.work_index(1));
    let out = kb.view::<f64>("out", 2, Access::Writable);
    let u = kb.view::<f64>("u", 2, Access::ReadOnly);
    let n = kb.scalar::<usize>("n");
    let sum = u.load(vec![i.clone() - 1usize, j.clone()])
        + u.load(vec![i.clone() + 1usize, j.clone()])
        + u.load(vec![i.clone(), j.clone() - 1usize])
        + u.load(vec![i.clone(), 1usize + j.clone()])
        + u.load(vec![j.clone(), i.clone()])
        // Not a shifted work index: stays checked whatever the launch.
        + u.load(vec![i.clone() * 2usize, j.clone()])
        + u.load(vec![i.clone() + n.get(), j.clone()]);
    kb.store(out, vec![i, j], sum);
    kb.finish().unwrap()
}

fn s(dim: u32, offset: i64) -> Shifted {
    Shifted { dim, offset }
}

#[test]
fn the_analysis_finds_every_shifted_access_once() {
    let k = stencil();
    let got = sites(&k);
    let want = vec![
        Site {
            view: 0,
            index: vec![s(0, 0), s(1, 0)],
        },
        Site {
            view: 1,
            index: vec![s(0, -1), s(1, 0)],
        },
        Site {
            view: 1,
            index: vec![s(0, 0), s(1, -1)],
        },
        Site {
            view: 1,
            index: vec![s(0, 0), s(1, 1)],
        },
        Site {
            view: 1,
            index: vec![s(0, 1), s(1, 0)],
        },
        Site {
            view: 1,
            index: vec![s(1, 0), s(0, 0)],
        },
    ];
    assert_eq!(got, want);
    // A literal on the left of `-` (`1 - i`) is not one, nor a literal past i64.
    let w = Expr::WorkIndex(0);
    let lit = |c: u64| Expr::Lit(Value::U64(c));
    let bin = |op, a: &Expr, b: &Expr| Expr::Binary {
        op: BinaryOp::Arith(op),
        lhs: Box::new(a.clone()),
        rhs: Box::new(b.clone()),
    };
    assert_eq!(shifted(&bin(ArithOp::Sub, &lit(1), &w)), None);
    assert_eq!(shifted(&bin(ArithOp::Add, &w, &lit(u64::MAX))), None);
    assert_eq!(
        shifted(&bin(ArithOp::WrappingSub, &w, &lit(3))),
        Some(s(0, -3))
    );
    assert_eq!(
        shifted(&bin(ArithOp::WrappingAdd, &lit(3), &w)),
        Some(s(0, 3))
    );
}

/// The interior of an `n × m` grid proves every access of the stencil; `[0, n)` in dimension 0
/// keeps the `i - 1` and `i + 1` reads (and the transposed read where `n ≠ m`) checked.
#[test]
fn the_launch_proves_the_interior_not_the_edge() {
    let k = stencil();
    let all = sites(&k);
    let ext: &[usize] = &[10, 10];
    let interior = Proven::prove(&all, &[(1, 9), (1, 9)], &[ext, ext]);
    assert_eq!(interior.sites(), &all[..]);
    let edge = Proven::prove(&all, &[(0, 10), (1, 9)], &[ext, ext]);
    let kept: Vec<_> = all.iter().filter(|s| !edge.sites().contains(s)).collect();
    assert_eq!(
        kept,
        vec![
            &Site {
                view: 1,
                index: vec![s(0, -1), s(1, 0)]
            },
            &Site {
                view: 1,
                index: vec![s(0, 1), s(1, 0)]
            },
        ]
    );
    // The transposed read `u[(j, i)]` needs dimension 1's range inside extent 0.
    let wide: &[usize] = &[5, 20];
    let t = Proven::prove(&all, &[(1, 4), (1, 19)], &[ext, wide]);
    assert!(!t.sites().contains(&Site {
        view: 1,
        index: vec![s(1, 0), s(0, 0)]
    }));
    // Rank mismatch or a missing dimension proves nothing.
    assert!(Proven::prove(&all, &[(1, 9)], &[ext, ext])
        .sites()
        .iter()
        .all(|s| s.index.iter().all(|x| x.dim == 0)));
}

/// The emitters' question: a proven access gets wrapping indices, anything else `None`.
#[test]
fn index_of_answers_only_for_proven_accesses() {
    let k = stencil();
    let all = sites(&k);
    let ext: &[usize] = &[10, 10];
    let p = Proven::prove(&all, &[(1, 9), (1, 9)], &[ext, ext]);
    let w = |d| Expr::WorkIndex(d);
    let sub = Expr::Binary {
        op: BinaryOp::Arith(ArithOp::Sub),
        lhs: Box::new(w(0)),
        rhs: Box::new(Expr::Lit(Value::U64(1))),
    };
    let u = ViewRef::Param(rokkos_core::ir::ViewId(1));
    let got = p.index_of(u, &[sub.clone(), w(1)]).unwrap();
    assert_eq!(
        got,
        vec![
            Expr::Binary {
                op: BinaryOp::Arith(ArithOp::WrappingSub),
                lhs: Box::new(w(0)),
                rhs: Box::new(Expr::Lit(Value::U64(1))),
            },
            w(1)
        ]
    );
    assert_eq!(Proven::NONE.index_of(u, &[sub.clone(), w(1)]), None);
    let out = ViewRef::Param(rokkos_core::ir::ViewId(0));
    assert_eq!(p.index_of(out, &[sub, w(1)]), None);
}

proptest! {
    /// The decision against every index of the range.
    #[test]
    fn covers_agrees_with_every_index(
        begin in 0u64..40, len in 0u64..40, offset in -45i64..45, extent in 0u64..80,
    ) {
        let end = begin + len;
        let brute = (begin..end).all(|w| {
            let x = w as i64 + offset;
            x >= 0 && (x as u64) < extent
        });
        prop_assert_eq!(covers(begin, end, offset, extent), brute);
    }

    /// Near the ends of `u64` (where `end - 1 + offset` and `begin + offset` would wrap in 64
    /// bits): only the first and last index decide.
    #[test]
    fn covers_does_not_wrap(
        begin in (u64::MAX - 8)..=u64::MAX, len in 0u64..8, offset in prop_oneof![Just(i64::MIN), Just(i64::MAX), -9i64..9],
        extent in prop_oneof![Just(u64::MAX), 0u64..16],
    ) {
        let end = begin.saturating_add(len);
        let brute = (begin..end).all(|w| {
            let x = i128::from(w) + i128::from(offset);
            x >= 0 && x < i128::from(extent)
        });
        prop_assert_eq!(covers(begin, end, offset, extent), brute);
    }

    /// A whole access (rank 1 to 6, any work dimension at any position) is proven exactly when
    /// every multi-index of the launch is inside the extents.
    #[test]
    fn prove_agrees_with_every_multi_index(
        rank in 1usize..=6,
        bounds in proptest::collection::vec((0u64..4, 0u64..4), 1..=3),
        picks in proptest::collection::vec((0u32..3, -3i64..4, 0usize..7), 6),
    ) {
        let bounds: Vec<(u64, u64)> = bounds.into_iter().map(|(b, l)| (b, b + l)).collect();
        let index: Vec<Shifted> = picks[..rank]
            .iter()
            .map(|&(d, c, _)| s(d % bounds.len() as u32, c))
            .collect();
        let extents: Vec<usize> = picks[..rank].iter().map(|p| p.2).collect();
        let site = Site { view: 0, index: index.clone() };
        let proven = !Proven::prove(std::slice::from_ref(&site), &bounds, &[&extents]).is_empty();
        // Every work multi-index of the launch.
        let mut points: Vec<Vec<u64>> = vec![vec![]];
        for &(b, e) in &bounds {
            points = points
                .into_iter()
                .flat_map(|p| (b..e).map(move |w| [p.clone(), vec![w]].concat()))
                .collect();
        }
        let brute = points.iter().all(|w| {
            index.iter().zip(&extents).all(|(x, &e)| {
                let v = w[x.dim as usize] as i64 + x.offset;
                v >= 0 && (v as usize) < e
            })
        });
        prop_assert_eq!(proven, brute);
    }
}
