//! The native kernel path against hand-written Rust, same process, interleaved rounds:
//! BabelStream triad on the serial backend vs an indexed slice loop and a zip-iterator loop.
//!
//! ```text
//! cargo run --release --example native_vs_plain -- [--n N] [--rounds R] [--json]
//! ```
//! Inputs are hidden behind `black_box` so that the compiler cannot fold the constant start values
//! (an all-zero `c` otherwise lets it skip a whole input stream).

#[path = "babelstream/kernels.rs"]
#[allow(dead_code)]
mod kernels;

use rokkos::prelude::*;
use std::hint::black_box;
use std::time::Instant;

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|p| args.get(p + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() -> rokkos::Result<()> {
    let n = arg("--n", 1 << 25);
    let rounds = arg("--rounds", 30).max(1);
    let json = std::env::args().any(|a| a == "--json");
    let (mut pa, pb, pc) = black_box((vec![0.1f64; n], vec![0.2f64; n], vec![0.0f64; n]));
    let a = View::<f64>::from_vec("a", [n], black_box(vec![0.1; n]))?;
    let b = View::<f64>::from_vec("b", [n], black_box(vec![0.2; n]))?;
    let c = View::<f64>::from_vec("c", [n], black_box(vec![0.0; n]))?;
    let mut best = [f64::INFINITY; 3];
    for round in 0..rounds {
        for k in 0..3 {
            // Rotate the order so that no variant always runs after the same one.
            let which = (k + round) % 3;
            let s = black_box(kernels::SCALAR);
            let t = Instant::now();
            match which {
                0 => parallel_for(
                    "triad",
                    RangePolicy::new(&Serial, 0..n),
                    kernels::triad(&a, &b, &c, s),
                )?,
                1 => {
                    for i in 0..pa.len() {
                        pa[i] = pb[i] + s * pc[i];
                    }
                }
                _ => {
                    for ((x, y), z) in pa.iter_mut().zip(&pb).zip(&pc) {
                        *x = y + s * z;
                    }
                }
            }
            black_box(&mut pa);
            best[which] = best[which].min(t.elapsed().as_secs_f64());
        }
    }
    let names = ["rokkos_serial", "indexed_loop", "zip_loop"];
    for (k, name) in names.iter().enumerate() {
        let gbs = 24.0 * n as f64 / best[k] / 1e9;
        if json {
            let line = serde_json::json!({
                "bench": "native_vs_plain", "kernel": "triad", "variant": name, "backend": "serial", "dtype": "f64",
                "n": n, "best_s": best[k], "metric": "GB/s", "value": gbs, "time_ratio_vs_rokkos": best[k] / best[0],
            });
            println!("{line}");
        } else {
            println!(
                "{name:<14} {:>9.3} ms {gbs:>7.1} GB/s  time / rokkos {:.3}",
                best[k] * 1e3,
                best[k] / best[0]
            );
        }
    }
    Ok(())
}
