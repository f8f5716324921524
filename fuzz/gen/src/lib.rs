//! rokkos-fuzz-gen: random well-typed `#[kernel]` functions for rokkos' differential fuzzer.
//!
//! The fuzzer (`rokkos-fuzz`) compiles generated kernels with rustc, so that the native path
//! (serial, rayon) runs what the macro expands, and runs the same kernels through the IR on the
//! evaluator and wgpu. This crate has no rokkos dependency because the fuzzer's build script uses
//! it to write the kernels' source; the fuzzer's tests use it again at run time to rebuild each
//! kernel's AST from its [`Spec`] and analyse what its results depend on ([`analyze`]).
//!
//! * [`gen`] builds a random [`ast::Kernel`] from `(seed, index)`;
//! * [`funcs`] moves pure subexpressions into `#[func]` helpers the kernel calls;
//! * [`corpus`] holds the fixed kernels of the audit's known divergences;
//! * [`render`] writes its source and launch code;
//! * [`analyze`] computes per-result taints for the comparison;
//! * [`shrink`] lists the one-step reductions of a kernel, for minimising a failure.

pub mod analyze;
pub mod ast;
pub mod corpus;
pub mod funcs;
pub mod gen;
pub mod render;
pub mod rng;
pub mod shrink;
pub mod ty;
pub mod values;

use ast::Kernel;
use std::fmt::Write;

/// Default seed of the run in `cargo test` (CI): fixed, so that CI is reproducible.
pub const DEFAULT_SEED: u64 = 0x5EED_0011;
/// Default number of random kernels in `cargo test`: sized so that compiling and running them
/// stays within about a minute on two cores.
pub const DEFAULT_KERNELS: u64 = 20;

/// Which kernel: a random one, a corpus entry, or either with shrink edits applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Spec {
    /// Kernel `index` of seed `seed`.
    Random {
        /// The run's seed.
        seed: u64,
        /// The kernel's index.
        index: u64,
    },
    /// A fixed kernel of [`corpus`].
    Corpus(String),
    /// `base` with `edits` applied in order ([`shrink::apply`]).
    Edited {
        /// The kernel before the edits.
        base: Box<Spec>,
        /// The edits.
        edits: Vec<shrink::Edit>,
    },
}

impl Spec {
    /// The text form: `r:<seed>:<index>`, `c:<name>`, followed by `/<edit>` per edit.
    pub fn to_text(&self) -> String {
        match self {
            Spec::Random { seed, index } => format!("r:{seed}:{index}"),
            Spec::Corpus(name) => format!("c:{name}"),
            Spec::Edited { base, edits } => {
                let mut s = base.to_text();
                for e in edits {
                    let _ = write!(s, "/{}", e.to_text());
                }
                s
            }
        }
    }
    /// Parses [`Spec::to_text`]'s form.
    pub fn parse(text: &str) -> Option<Spec> {
        let mut parts = text.trim().split('/');
        let head = parts.next()?;
        let base = if let Some(rest) = head.strip_prefix("r:") {
            let (s, i) = rest.split_once(':')?;
            Spec::Random {
                seed: s.parse().ok()?,
                index: i.parse().ok()?,
            }
        } else if let Some(name) = head.strip_prefix("c:") {
            Spec::Corpus(name.to_string())
        } else {
            return None;
        };
        let edits: Option<Vec<shrink::Edit>> = parts.map(shrink::Edit::parse).collect();
        let edits = edits?;
        Some(if edits.is_empty() {
            base
        } else {
            Spec::Edited {
                base: Box::new(base),
                edits,
            }
        })
    }
    /// The kernel, named `name`; `None` for an unknown corpus entry or an edit that does not
    /// apply.
    pub fn kernel(&self, name: &str) -> Option<Kernel> {
        let mut k = match self {
            Spec::Random { seed, index } => gen::kernel(*seed, *index),
            Spec::Corpus(c) => corpus::kernel(c)?,
            Spec::Edited { base, edits } => {
                let mut k = base.kernel(name)?;
                for e in edits {
                    k = shrink::apply(&k, e)?;
                }
                k
            }
        };
        k.name = name.to_string();
        Some(k)
    }
    /// A seed for this kernel's input sets.
    pub fn input_seed(&self) -> u64 {
        match self {
            Spec::Random { seed, index } => seed.wrapping_mul(31).wrapping_add(*index),
            Spec::Corpus(c) => c
                .bytes()
                .fold(7u64, |h, b| h.wrapping_mul(131).wrapping_add(b as u64)),
            Spec::Edited { base, .. } => base.input_seed(),
        }
    }
}

/// The Rust source of a test module holding `cases` (named `fz0`, `fz1`, ... in order): the
/// kernels, their launch functions, a `CASES` table of their specs and a `Runner` dispatching
/// on the case number. The file is meant to be `include!`d inside a module of the fuzzer's test
/// (see `rokkos-fuzz`), which brings `rokkos::prelude::*` and `rokkos_fuzz::rt` into scope.
pub fn source_file(cases: &[Spec], header: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "// Generated by rokkos-fuzz-gen. {header}");
    let mut names = Vec::new();
    for (n, spec) in cases.iter().enumerate() {
        let name = format!("fz{n}");
        let Some(k) = spec.kernel(&name) else {
            let _ = writeln!(s, "// {}: does not apply", spec.to_text());
            continue;
        };
        let _ = writeln!(s, "\n// {name}: {}", spec.to_text());
        s.push_str(&render::kernel_source(&k));
        s.push_str(&render::launch_source(&k));
        names.push((n, name, spec.to_text()));
    }
    let _ = writeln!(s, "\n/// The generated cases: (name, spec).");
    let _ = writeln!(s, "pub const CASES: &[(&str, &str)] = &[");
    for (_, name, spec) in &names {
        let _ = writeln!(s, "    (\"{name}\", \"{spec}\"),");
    }
    let _ = writeln!(s, "];");
    let _ = writeln!(s, "\n/// Launches case `case` (an index into `CASES`).");
    let _ = writeln!(s, "pub struct Runner;");
    let _ = writeln!(s, "impl rt::Runner for Runner {{");
    let _ = writeln!(
        s,
        "    fn run<E: rokkos::ExecutionSpace>(&self, case: usize, space: &E, inp: &rt::Input) -> rt::Run {{"
    );
    let _ = writeln!(s, "        match case {{");
    for (k, (_, name, _)) in names.iter().enumerate() {
        let _ = writeln!(s, "            {k} => run_{name}(space, inp),");
    }
    let _ = writeln!(
        s,
        "            _ => Err(rt::Failure::setup(\"no such case\")),"
    );
    let _ = writeln!(s, "        }}");
    let _ = writeln!(s, "    }}");
    let _ = writeln!(s, "}}");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip() {
        for t in ["r:5:17", "c:item6_cast", "r:1:2/d3/x4.1"] {
            let s = Spec::parse(t).unwrap();
            assert_eq!(s.to_text(), t);
        }
        assert!(Spec::parse("q:1").is_none());
    }

    #[test]
    fn generation_is_deterministic() {
        for i in 0..50 {
            let a = gen::kernel(9, i);
            let b = gen::kernel(9, i);
            assert_eq!(render::kernel_source(&a), render::kernel_source(&b));
        }
    }
}
