//! The part of a GPU source writer that does not depend on the target language: one walk over the
//! kernel IR ([`walk`]), the names of everything the generated source declares ([`names`]), the
//! index arithmetic of View accesses ([`index`]) and the accumulator of helper definitions
//! ([`HelperSet`]). A target (WGSL in `rokkos-wgpu`, CUDA C in `rokkos-cuda`) implements
//! [`walk::Target`]: the spelling of each construct and its operator families; the walk decides
//! what is evaluated in which order, which temporaries exist and what a `for` loop must check, so
//! that every target computes the same thing the IR evaluator computes.

pub mod codes;
pub mod inbounds;
pub mod index;
pub mod joins;
pub mod names;
pub mod rules;
pub mod softmath;
pub mod team;
pub mod walk;
pub mod width;
pub mod window;

use std::collections::BTreeMap;

/// Why a kernel cannot be emitted for a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmitError {
    /// The device or the target language cannot express this construct: `feature` names it.
    Unsupported(String),
    /// The kernel does not fit the pattern (accumulator count or shapes against the reducer).
    Mismatch(String),
}

impl std::fmt::Display for EmitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmitError::Unsupported(s) => write!(f, "unsupported: {s}"),
            EmitError::Mismatch(s) => write!(f, "mismatch: {s}"),
        }
    }
}

/// Helper function definitions by name, each emitted once, in name order (so that the output does
/// not depend on the order in which the walk first needed them).
#[derive(Default)]
pub struct HelperSet {
    defs: BTreeMap<String, String>,
    decls: BTreeMap<String, String>,
    next: u32,
}

impl HelperSet {
    /// Adds `def` under `name` unless present; returns `name`.
    pub fn add(&mut self, name: &str, def: impl FnOnce() -> String) -> String {
        if !self.defs.contains_key(name) {
            let d = def();
            self.defs.insert(name.to_string(), d);
        }
        name.to_string()
    }
    /// A fresh number for a generated name.
    pub fn next_id(&mut self) -> u32 {
        self.next += 1;
        self.next
    }
    /// Declares `decl` (a prototype, by its name `name`) before every definition: a target that
    /// must declare a function before its use (C) can then define helpers in name order, whatever
    /// calls what.
    pub fn declare(&mut self, name: &str, decl: String) {
        self.decls.entry(name.to_string()).or_insert(decl);
    }
    /// Every declaration, then every definition, in name order, separated by blank lines.
    pub fn render(&self) -> String {
        let defs = self.defs.values().cloned().collect::<Vec<_>>().join("\n");
        if self.decls.is_empty() {
            return defs;
        }
        let decls: String = self.decls.values().map(|d| format!("{d}\n")).collect();
        format!("{decls}\n{defs}")
    }
}
