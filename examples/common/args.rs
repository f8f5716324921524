//! The examples' command-line flags: one loop shape for every program (`--name value` pairs,
//! `--help`, an error naming an unknown flag or a bad value), and the backend lookup that runs
//! only when `--backend` is absent, so that a broken `ROKKOS_BACKEND` does not refuse an explicit
//! `--backend` or `--help`. Included by path (`#[path = "common/args.rs"] mod args;`), as the
//! examples are separate programs.

use std::fmt::Display;
use std::str::FromStr;

/// The process arguments after the program name, read flag by flag.
pub struct Flags {
    it: std::iter::Skip<std::env::Args>,
    usage: &'static str,
}

impl Flags {
    /// The process's flags; `usage` is the text `--help` and errors print.
    pub fn new(usage: &'static str) -> Self {
        Flags {
            it: std::env::args().skip(1),
            usage,
        }
    }

    /// The next flag, `None` after the last; `Err(usage)` for `--help` / `-h`.
    pub fn next_flag(&mut self) -> Result<Option<String>, String> {
        match self.it.next() {
            Some(f) if f == "--help" || f == "-h" => Err(self.usage.into()),
            f => Ok(f),
        }
    }

    /// The value after flag `name`.
    pub fn value(&mut self, name: &str) -> Result<String, String> {
        self.it.next().ok_or(format!("{name} needs a value"))
    }

    /// The value after flag `name`, parsed.
    pub fn parse<T: FromStr>(&mut self, name: &str) -> Result<T, String>
    where
        T::Err: Display,
    {
        self.value(name)?
            .parse()
            .map_err(|e| format!("{name}: {e}"))
    }

    /// The error for a flag the program does not know.
    pub fn unknown(&self, flag: &str) -> String {
        format!("unknown argument `{flag}` (try --help)")
    }
}

/// `--backend`'s value, or the backend `ROKKOS_BACKEND` or the build selects.
pub fn backend_or_default(given: Option<String>) -> Result<String, String> {
    match given {
        Some(b) => Ok(b),
        None => rokkos::selected_backend().map_err(|e| e.to_string()),
    }
}
