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

#[macro_use]
#[path = "common/say.rs"]
mod say;

use rokkos::prelude::*;
use std::process::ExitCode;
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
/// (means of `launches`, one fence at the end). `Err` when the Views do not fit (a large `--n`)
/// or a launch fails.
fn measure<E: ExecutionSpace>(
    space: &E,
    n: usize,
    reps: usize,
    launches: usize,
) -> rokkos::Result<(f64, f64, f64)> {
    let mem = space.memory_space();
    let a = View::<f64, 1, LayoutRight, E::Memory>::new_in(&mem, "a", [n])?;
    let b = View::<f64, 1, LayoutRight, E::Memory>::new_in(&mem, "b", [n])?;
    let c = View::<f64, 1, LayoutRight, E::Memory>::new_in(&mem, "c", [n])?;
    b.fill(1.0)?;
    c.fill(2.0)?;
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t0 = Instant::now();
        parallel_for(
            "triad",
            RangePolicy::new(space, 0..n),
            triad(&a, &b, &c, 0.5),
        )?;
        space.fence()?;
        best = best.min(t0.elapsed().as_secs_f64());
    }
    let e = View::<f64, 1, LayoutRight, E::Memory>::new_in(&mem, "e", [1])?;
    let t0 = Instant::now();
    for _ in 0..launches {
        parallel_for("empty", RangePolicy::new(space, 0..0), empty(&e))?;
    }
    space.fence()?;
    let empty_s = t0.elapsed().as_secs_f64() / launches as f64;
    let t0 = Instant::now();
    for _ in 0..launches {
        parallel_for("one", RangePolicy::new(space, 0..1), empty(&e))?;
    }
    space.fence()?;
    Ok((best, empty_s, t0.elapsed().as_secs_f64() / launches as f64))
}

/// The middle element of `v`, which [`parse_args`] keeps non-empty (`--rounds` is positive).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The static spaces [`static_measure`] knows in this build.
const STATIC_BACKENDS: &[&str] = &[
    "serial",
    #[cfg(feature = "rayon")]
    "rayon",
    #[cfg(feature = "wgpu")]
    "wgpu",
];

const USAGE: &str = "usage: dispatch_cost [--backend serial|rayon|wgpu] [--n N] [--rounds R] [--launches K]\n       \
dispatch_cost --count static|device [--launches K]";

/// What to run: the comparison on `backend`, or with `count` only the empty launches of one side.
struct Args {
    backend: String,
    n: usize,
    rounds: usize,
    launches: usize,
    /// `Some("static" | "device")` for the instruction-count form.
    count: Option<String>,
}

/// Parses the command line (without the program name); `Err` names the flag at fault, or is the
/// usage for `--help`.
fn parse_args(mut it: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut a = Args {
        backend: if cfg!(feature = "rayon") {
            "rayon"
        } else {
            "serial"
        }
        .into(),
        n: 1 << 25,
        rounds: 9,
        launches: 200_000,
        count: None,
    };
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        // A count of zero has no median and no mean: every number must be positive.
        let positive = |name: &str, v: String| match v.parse::<usize>() {
            Ok(0) => Err(format!("{name} must be positive, not 0")),
            Ok(k) => Ok(k),
            Err(e) => Err(format!("{name}: {e} (`{v}`)")),
        };
        match flag.as_str() {
            "--backend" => a.backend = value("--backend")?,
            "--n" => a.n = positive("--n", value("--n")?)?,
            "--rounds" => a.rounds = positive("--rounds", value("--rounds")?)?,
            "--launches" => a.launches = positive("--launches", value("--launches")?)?,
            "--count" => a.count = Some(value("--count")?),
            "--help" | "-h" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument `{other}` (try --help)")),
        }
    }
    if !STATIC_BACKENDS.contains(&a.backend.as_str()) {
        return Err(format!(
            "--backend: no static space `{}` in this build (one of {})",
            a.backend,
            STATIC_BACKENDS.join(", ")
        ));
    }
    if let Some(c) = &a.count {
        if c != "static" && c != "device" {
            return Err(format!("--count must be static or device, not `{c}`"));
        }
    }
    Ok(a)
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
            eprintln!("dispatch_cost: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> rokkos::Result<()> {
    let Args {
        ref backend,
        n,
        rounds,
        launches,
        ..
    } = *args;
    if let Some(which) = &args.count {
        let e = View::<f64>::new("e", [1])?;
        if which == "static" {
            for _ in 0..launches {
                parallel_for("empty", RangePolicy::new(&Serial, 0..0), empty(&e))?;
            }
        } else {
            let dev = Device::from(Serial);
            let d = DeviceView::<f64>::new_on(&dev, "e", [1])?;
            for _ in 0..launches {
                parallel_for("empty", RangePolicy::new(&dev, 0..0), empty(&d))?;
            }
        }
        return Ok(());
    }
    let dev = Device::with_backend(backend)?;
    let (mut ts, mut td, mut es, mut ed, mut os, mut od) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let reps = 5;
    for r in 0..rounds {
        // Alternate which goes first, so neither always follows the other's cache state.
        let (s, d) = if r % 2 == 0 {
            let s = static_measure(backend, n, reps, launches)?;
            (s, measure(&dev, n, reps, launches)?)
        } else {
            let d = measure(&dev, n, reps, launches)?;
            (static_measure(backend, n, reps, launches)?, d)
        };
        say!(
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
    say!(
        "{{\"summary\":\"median\",\"backend\":\"{backend}\",\"n\":{n},\"triad_static_s\":{ts:.6},\"triad_device_s\":{td:.6},\"triad_ratio\":{:.4},\"empty_static_us\":{:.4},\"empty_device_us\":{:.4},\"empty_extra_us\":{:.4},\"one_static_us\":{:.4},\"one_device_us\":{:.4}}}",
        td / ts,
        es * 1e6,
        ed * 1e6,
        (ed - es) * 1e6,
        os * 1e6,
        od * 1e6
    );
    Ok(())
}

/// [`measure`] on the static space of `backend` (one of [`STATIC_BACKENDS`], which
/// [`parse_args`] checks).
fn static_measure(
    backend: &str,
    n: usize,
    reps: usize,
    launches: usize,
) -> rokkos::Result<(f64, f64, f64)> {
    match backend {
        "serial" => measure(&Serial, n, reps, launches),
        #[cfg(feature = "rayon")]
        "rayon" => measure(&Rayon::new(), n, reps, launches),
        #[cfg(feature = "wgpu")]
        "wgpu" => measure(&rokkos::Wgpu::new()?, n, reps, launches),
        other => unreachable!("parse_args admits no static space `{other}`"),
    }
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
            ("--n abc", "--n"),
            ("--n", "--n needs a value"),
            ("--frob", "`--frob`"),
            ("--rounds 0", "--rounds"),
            ("--launches 0", "--launches"),
            ("--backend nope", "--backend"),
            ("--count nope", "--count"),
        ] {
            match parse(line) {
                Err(e) => assert!(e.contains(names), "`{line}`: {e}"),
                Ok(_) => panic!("`{line}` accepted"),
            }
        }
    }

    #[test]
    fn good_command_lines() {
        let a = parse("--backend serial --n 10 --rounds 3 --launches 7").unwrap();
        assert_eq!(
            (a.backend.as_str(), a.n, a.rounds, a.launches),
            ("serial", 10, 3, 7)
        );
        assert_eq!(
            parse("--count device").unwrap().count.as_deref(),
            Some("device")
        );
    }
}
