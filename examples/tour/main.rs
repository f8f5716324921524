//! A tour of rokkos in nine programs, each written once against the run-time execution space
//! `rokkos::Device` (no generic parameter, no visitor) and checking its own result:
//!
//! ```sh
//! cargo run --example tour                      # all nine on ROKKOS_BACKEND or the best backend
//! ROKKOS_BACKEND=serial cargo run --example tour jacobi
//! cargo run --features wgpu --example tour -- --n 100000 axpy_dot
//! ROKKOS_BACKEND=cuda cargo run --features cuda --example tour   # on an NVIDIA GPU
//! ```
//!
//! The test suite runs all nine on serial, rayon and wgpu (`tests/tour.rs`).

#[macro_use]
#[path = "../common/say.rs"]
mod say;

mod programs;

use rokkos::Device;
use std::process::ExitCode;

/// What to run.
struct Args {
    n: usize,
    /// Program names, each one of [`programs::ALL`]; empty for all of them.
    wanted: Vec<String>,
    help: bool,
}

/// The names of [`programs::ALL`], comma-separated.
fn program_names() -> String {
    let names: Vec<_> = programs::ALL.iter().map(|(name, _)| *name).collect();
    names.join(", ")
}

/// Parses the command line (without the program name); `Err` names the flag or the word at
/// fault.
fn parse_args(mut it: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut a = Args {
        n: 4096,
        wanted: Vec::new(),
        help: false,
    };
    while let Some(word) = it.next() {
        match word.as_str() {
            "--n" => {
                let v = it.next().ok_or("--n needs a number")?;
                a.n = v.parse().map_err(|e| format!("--n: {e} (`{v}`)"))?;
            }
            "-h" | "--help" => a.help = true,
            flag if flag.starts_with('-') => {
                return Err(format!("unknown argument `{flag}` (try --help)"))
            }
            // A misspelt name would otherwise select nothing and pass silently.
            name if programs::ALL.iter().any(|(p, _)| *p == name) => a.wanted.push(word),
            name => {
                return Err(format!(
                    "no program `{name}`; the programs are {}",
                    program_names()
                ))
            }
        }
    }
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("tour: {e}");
            return ExitCode::from(2);
        }
    };
    if args.help {
        say!(
            "usage: tour [--n N] [PROGRAM ...]; programs: {}",
            program_names()
        );
        return ExitCode::SUCCESS;
    }
    let dev = match Device::new() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("tour: {e}");
            return ExitCode::FAILURE;
        }
    };
    say!("device: {}", rokkos::ExecutionSpace::name(&dev));
    for (name, run) in programs::ALL {
        if args.wanted.is_empty() || args.wanted.iter().any(|w| w == name) {
            match run(&dev, args.n) {
                Ok(check) => say!("{name}: {check}"),
                Err(e) => {
                    eprintln!("tour: {name}: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Args, String> {
        parse_args(line.split_whitespace().map(String::from))
    }

    #[test]
    fn bad_command_lines_name_the_word() {
        for (line, names) in [
            (
                "nonsense",
                "no program `nonsense`; the programs are axpy_dot, jacobi",
            ),
            ("--n abc", "--n: invalid digit"),
            ("--n", "--n needs a number"),
            ("--frob", "`--frob`"),
        ] {
            match parse(line) {
                Err(e) => assert!(e.contains(names), "`{line}`: {e}"),
                Ok(_) => panic!("`{line}` accepted"),
            }
        }
    }

    #[test]
    fn good_command_line() {
        let a = parse("--n 100 jacobi axpy_dot").unwrap();
        assert_eq!((a.n, a.wanted.len(), a.help), (100, 2, false));
        assert!(parse("--help").unwrap().help);
    }
}
