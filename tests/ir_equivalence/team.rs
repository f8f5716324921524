//! Team kernels: the league on the Serial backend against the evaluator's league (team size 1).

use super::kernels::{team_rows, team_vec};
use super::{assert_close, ir_of, unit, Host};
use proptest::prelude::*;
use rokkos::ir::eval::{eval_for, eval_reduce, WorkSet};
use rokkos::ir::Value;
use rokkos::prelude::*;

fn league(l: usize) -> WorkSet {
    WorkSet::League {
        league_size: l as u64,
        vector_length: 1,
        scratch_bytes: None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn team_rows_match(l in 0usize..6, n in 1usize..20, seed in any::<u64>()) {
        let a = View::<f64, 2>::from_fn("a", [l, n], |[i, j]| unit(seed, i * 64 + j)).unwrap();
        let out = View::<f64, 2>::new("out", [l, n]).unwrap();
        let sums = View::<f64>::new("sums", [l]).unwrap();
        let kern = team_rows(&a, &out, &sums);
        let ir = ir_of(&kern);
        let policy = TeamPolicy::new(&Serial, l, TeamSize::Auto).scratch(0, scratch_size::<f64>(n), 0);
        parallel_for("team_rows", policy, kern).unwrap();
        let (mut ha, mut ho, mut hs) = (Host::of(&a), Host::of(&out), Host::of(&sums));
        ho.data.fill(0.0);
        hs.data.fill(0.0);
        eval_for(&ir, &league(l), &mut [ha.arg(), ho.arg(), hs.arg()]).unwrap();
        assert_close("out", &out.to_vec(), &ho.data, &ir);
        assert_close("sums", &sums.to_vec(), &hs.data, &ir);
    }

    #[test]
    fn team_vector_reduce_matches(l in 0usize..6, n in 1usize..20, seed in any::<u64>()) {
        let a = View::<i64, 2>::from_fn("a", [l, n], |[i, j]| (unit(seed, i * 64 + j) * 100.0) as i64).unwrap();
        let out = View::<i64, 2>::new("out", [l, n]).unwrap();
        let kern = team_vec(&a, &out);
        let ir = ir_of(&kern);
        let policy = TeamPolicy::new(&Serial, l, TeamSize::Auto).scratch(0, 0, scratch_size::<i64>(n));
        let native: i64 = parallel_reduce("team_vec", policy, kern, Sum).unwrap();
        let (mut ha, mut ho) = (Host::of(&a), Host::of(&out));
        ho.data.fill(0);
        let got = eval_reduce(&ir, &league(l), &mut [ha.arg(), ho.arg()], &[Value::I64(0)]).unwrap();
        prop_assert_eq!(got, vec![Value::I64(native)]);
        prop_assert_eq!(out.to_vec(), ho.data);
    }
}
