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
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage: native_vs_plain [--n N] [--rounds R] [--json]";

/// What to run.
struct Args {
    n: usize,
    rounds: usize,
    json: bool,
}

/// Parses the command line (without the program name); `Err` names the flag at fault, or is the
/// usage for `--help`.
fn parse_args(mut it: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut a = Args {
        n: 1 << 25,
        rounds: 30,
        json: false,
    };
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        // Zero elements has no bandwidth and zero rounds no best time.
        let positive = |name: &str, v: String| match v.parse::<usize>() {
            Ok(0) => Err(format!("{name} must be positive, not 0")),
            Ok(k) => Ok(k),
            Err(e) => Err(format!("{name}: {e} (`{v}`)")),
        };
        match flag.as_str() {
            "--n" => a.n = positive("--n", value("--n")?)?,
            "--rounds" => a.rounds = positive("--rounds", value("--rounds")?)?,
            "--json" => a.json = true,
            "--help" | "-h" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument `{other}` (try --help)")),
        }
    }
    Ok(a)
}

/// `n` copies of `x`, `Err(OutOfMemory)` rather than an abort when they do not fit (`vec!`
/// aborts the process on a failed allocation).
fn filled(label: &str, n: usize, x: f64) -> rokkos::Result<Vec<f64>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| rokkos::Error::OutOfMemory {
            label: label.into(),
            bytes: n.saturating_mul(std::mem::size_of::<f64>()),
        })?;
    v.resize(n, x);
    Ok(v)
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("native_vs_plain: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> rokkos::Result<()> {
    let Args { n, rounds, json } = *args;
    let a = View::<f64>::from_vec("a", [n], black_box(filled("a", n, 0.1)?))?;
    let b = View::<f64>::from_vec("b", [n], black_box(filled("b", n, 0.2)?))?;
    let c = View::<f64>::from_vec("c", [n], black_box(filled("c", n, 0.0)?))?;
    let (mut pa, pb, pc) = black_box((
        filled("plain a", n, 0.1)?,
        filled("plain b", n, 0.2)?,
        filled("plain c", n, 0.0)?,
    ));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Args, String> {
        parse_args(line.split_whitespace().map(String::from))
    }

    #[test]
    fn bad_command_lines_name_the_flag() {
        for (line, names) in [
            ("--n abc --frob", "--n"),
            ("--frob", "`--frob`"),
            ("--n", "--n needs a value"),
            ("--rounds 0", "--rounds"),
            ("--n 0", "--n"),
        ] {
            match parse(line) {
                Err(e) => assert!(e.contains(names), "`{line}`: {e}"),
                Ok(_) => panic!("`{line}` accepted"),
            }
        }
    }

    #[test]
    fn good_command_line() {
        let a = parse("--n 10 --json --rounds 2").unwrap();
        assert_eq!((a.n, a.rounds, a.json), (10, 2, true));
    }
}
