//! What the run-time space costs per launch: the same kernels launched on a static space and on
//! `rokkos::Device` standing for it, interleaved round by round so that both see the same machine
//! load.
//!
//! ```text
//! cargo run --release --example dispatch_cost -- [--backend rayon|serial|wgpu] [--n N] [--rounds R] [--launches K]
//! cargo run --release --example dispatch_cost -- --count static|device [--launches K]
//! ```
//!
//! The first form prints, per round and then as medians, the seconds per triad over `n` elements
//! (`a = b + s c`, f64), per empty launch (a kernel over `0..0` with one View argument: the launch
//! path alone, checks and holds included) and per one-element launch (on wgpu a real dispatch) on
//! both. The second form makes `K` empty launches on
//! serial, statically or through `Device`, and nothing else, for instruction counts
//! (`valgrind --tool=callgrind`, difference between two `K` values).

use rokkos::prelude::*;
use std::time::Instant;

#[kernel]
fn triad(i: usize, a: ViewMut<f64>, b: View<f64>, c: View<f64>, s: f64) {
    a[i] = b[i] + s * c[i];
}

#[kernel]
fn empty(i: usize, a: ViewMut<f64>) {
    a[i] = 0.0;
}

/// Seconds per triad over the Views (best of `reps`), per empty launch and per one-element launch
/// (means of `launches`, one fence at the end).
fn measure<E: ExecutionSpace>(
    space: &E,
    n: usize,
    reps: usize,
    launches: usize,
) -> (f64, f64, f64) {
    let mem = space.memory_space();
    let a = View::<f64, 1, LayoutRight, E::Memory>::new_in(&mem, "a", [n]).unwrap();
    let b = View::<f64, 1, LayoutRight, E::Memory>::new_in(&mem, "b", [n]).unwrap();
    let c = View::<f64, 1, LayoutRight, E::Memory>::new_in(&mem, "c", [n]).unwrap();
    b.fill(1.0).unwrap();
    c.fill(2.0).unwrap();
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t0 = Instant::now();
        parallel_for(
            "triad",
            RangePolicy::new(space, 0..n),
            triad(&a, &b, &c, 0.5),
        )
        .unwrap();
        space.fence().unwrap();
        best = best.min(t0.elapsed().as_secs_f64());
    }
    let e = View::<f64, 1, LayoutRight, E::Memory>::new_in(&mem, "e", [1]).unwrap();
    let t0 = Instant::now();
    for _ in 0..launches {
        parallel_for("empty", RangePolicy::new(space, 0..0), empty(&e)).unwrap();
    }
    space.fence().unwrap();
    let empty_s = t0.elapsed().as_secs_f64() / launches as f64;
    let t0 = Instant::now();
    for _ in 0..launches {
        parallel_for("one", RangePolicy::new(space, 0..1), empty(&e)).unwrap();
    }
    space.fence().unwrap();
    (best, empty_s, t0.elapsed().as_secs_f64() / launches as f64)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut backend = "rayon".to_string();
    let (mut n, mut rounds, mut launches) = (1usize << 25, 9usize, 200_000usize);
    let mut count: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().expect("a value after the flag");
        match a.as_str() {
            "--backend" => backend = value(),
            "--n" => n = value().parse().expect("--n N"),
            "--rounds" => rounds = value().parse().expect("--rounds R"),
            "--launches" => launches = value().parse().expect("--launches K"),
            "--count" => count = Some(value()),
            other => panic!("unknown argument `{other}`"),
        }
    }
    if let Some(which) = count {
        let e = View::<f64>::new("e", [1]).unwrap();
        match which.as_str() {
            "static" => {
                for _ in 0..launches {
                    parallel_for("empty", RangePolicy::new(&Serial, 0..0), empty(&e)).unwrap();
                }
            }
            "device" => {
                let dev = Device::from(Serial);
                let d = DeviceView::<f64>::new_on(&dev, "e", [1]).unwrap();
                for _ in 0..launches {
                    parallel_for("empty", RangePolicy::new(&dev, 0..0), empty(&d)).unwrap();
                }
            }
            other => panic!("--count static|device, not `{other}`"),
        }
        return;
    }
    let dev = Device::with_backend(&backend).expect("backend");
    let (mut ts, mut td, mut es, mut ed, mut os, mut od) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let reps = 5;
    for r in 0..rounds {
        // Alternate which goes first, so neither always follows the other's cache state.
        let (s, d) = if r % 2 == 0 {
            let s = static_measure(&backend, n, reps, launches);
            (s, measure(&dev, n, reps, launches))
        } else {
            let d = measure(&dev, n, reps, launches);
            (static_measure(&backend, n, reps, launches), d)
        };
        println!(
            "{{\"round\":{r},\"backend\":\"{backend}\",\"n\":{n},\"triad_static_s\":{:.6},\"triad_device_s\":{:.6},\"empty_static_us\":{:.4},\"empty_device_us\":{:.4},\"one_static_us\":{:.4},\"one_device_us\":{:.4}}}",
            s.0, d.0, s.1 * 1e6, d.1 * 1e6, s.2 * 1e6, d.2 * 1e6
        );
        os.push(s.2);
        od.push(d.2);
        ts.push(s.0);
        td.push(d.0);
        es.push(s.1);
        ed.push(d.1);
    }
    let (ts, td, es, ed) = (median(ts), median(td), median(es), median(ed));
    let (os, od) = (median(os), median(od));
    println!(
        "{{\"summary\":\"median\",\"backend\":\"{backend}\",\"n\":{n},\"triad_static_s\":{ts:.6},\"triad_device_s\":{td:.6},\"triad_ratio\":{:.4},\"empty_static_us\":{:.4},\"empty_device_us\":{:.4},\"empty_extra_us\":{:.4},\"one_static_us\":{:.4},\"one_device_us\":{:.4}}}",
        td / ts,
        es * 1e6,
        ed * 1e6,
        (ed - es) * 1e6,
        os * 1e6,
        od * 1e6
    );
}

/// [`measure`] on the static space of `backend`.
fn static_measure(backend: &str, n: usize, reps: usize, launches: usize) -> (f64, f64, f64) {
    match backend {
        "serial" => measure(&Serial, n, reps, launches),
        "rayon" => measure(&Rayon::new(), n, reps, launches),
        #[cfg(feature = "wgpu")]
        "wgpu" => measure(&rokkos::Wgpu::new().expect("wgpu"), n, reps, launches),
        other => panic!("no static space `{other}` in this build"),
    }
}
