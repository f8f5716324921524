//! Waits that poll the queue before blocking ([`rokkos_wgpu::SPIN_ENV`]) are the default on GPUs
//! but off on CPU adapters such as lavapipe, so CI would never run them: this test binary turns
//! them on before its device exists and checks fences, host reads and blocking reductions with it,
//! several threads waiting at once.
#![cfg(feature = "wgpu")]

use rokkos::prelude::*;

#[kernel]
fn fill_scaled(i: usize, out: ViewMut<f64>, s: f64) {
    out[i] = s * i as f64;
}

#[kernel]
fn total(i: usize, acc: &mut f64, x: View<f64>) {
    *acc += x[i];
}

#[test]
fn polling_waits_give_the_same_results() {
    // The only test in this binary: nothing else reads the environment concurrently.
    std::env::set_var(rokkos_wgpu::SPIN_ENV, "300");
    let space = match rokkos::Wgpu::new() {
        Ok(s) => s,
        Err(e) if std::env::var("ROKKOS_REQUIRE_WGPU").as_deref() == Ok("1") => {
            panic!("ROKKOS_REQUIRE_WGPU=1 but {e}")
        }
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    std::thread::scope(|scope| {
        for t in 0..3u32 {
            let space = space.clone();
            scope.spawn(move || {
                let n = 10_000 + 1000 * t as usize;
                let x = View::<f64, 1, LayoutRight, _>::new_in(&space.memory_space(), "x", [n])
                    .unwrap();
                for round in 0..20u32 {
                    let s = f64::from(round + t);
                    parallel_for("fill", RangePolicy::new(&space, 0..n), fill_scaled(&x, s))
                        .unwrap();
                    if round % 2 == 0 {
                        space.fence().unwrap();
                    }
                    let sum: f64 =
                        parallel_reduce("total", RangePolicy::new(&space, 0..n), total(&x), Sum)
                            .unwrap();
                    // Integers below 2^53: exact in any order.
                    let want = s * (n * (n - 1) / 2) as f64;
                    assert_eq!(sum, want, "thread {t}, round {round}");
                }
                let h = View::<f64, 1>::new("h", [n]).unwrap();
                deep_copy(&h, &x).unwrap();
                let s = f64::from(19 + t);
                assert!(h
                    .to_vec()
                    .iter()
                    .enumerate()
                    .all(|(i, &v)| v == s * i as f64));
            });
        }
    });
}
