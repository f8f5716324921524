//! Minimises a failing fuzz case: `rokkos-fuzz-shrink <spec> <input-index>`.
//!
//! The native path exists only for compiled kernels, so each step builds the fuzz test with the
//! current kernel's one-step reductions ([`rokkos_fuzz_gen::shrink::candidates`]) as its cases
//! (`ROKKOS_FUZZ_CASES`), runs them on the failing input, and keeps the first (largest)
//! reduction whose divergence has the same class as the original's. It stops when no reduction
//! keeps it, and prints the minimal kernel. Run it from the workspace root (`scripts/fuzz.sh
//! shrink` does); `ROKKOS_FUZZ_FEATURES` (default `wgpu`) are the cargo features of the build.

use rokkos_fuzz_gen::{render, shrink, Spec};
use std::collections::BTreeMap;
use std::process::Command;

/// Candidates built and run at once (one compilation per batch).
const BATCH: usize = 16;

/// Runs the fuzz test on `specs` with input `input`; each spec's divergence signature, or
/// `None` when the build failed.
fn signatures(specs: &[String], input: u64) -> Option<BTreeMap<String, String>> {
    let features = std::env::var("ROKKOS_FUZZ_FEATURES").unwrap_or_else(|_| "wgpu".into());
    let out = Command::new("cargo")
        .args(["test", "-q", "-p", "rokkos-fuzz", "--test", "fuzz"])
        .args(if features.is_empty() {
            vec![]
        } else {
            vec!["--features".to_string(), features]
        })
        .env("ROKKOS_FUZZ_CASES", specs.join(","))
        .env("ROKKOS_FUZZ_INPUT", input.to_string())
        .env("ROKKOS_FUZZ_SIGNATURES", "1")
        .output()
        .expect("running cargo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut m = BTreeMap::new();
    for line in stdout.lines() {
        if let Some(rest) = line.strip_prefix("SIGNATURE ") {
            if let Some((spec, sig)) = rest.split_once(' ') {
                m.insert(spec.to_string(), sig.to_string());
            }
        }
    }
    if m.is_empty() {
        eprintln!(
            "build or run failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .rev()
                .take(30)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join("\n")
        );
        return None;
    }
    Some(m)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(spec), Some(input)) = (
        args.get(1).and_then(|s| Spec::parse(s)),
        args.get(2).and_then(|s| s.parse::<u64>().ok()),
    ) else {
        eprintln!("usage: rokkos-fuzz-shrink <spec> <input-index>");
        std::process::exit(2);
    };
    let Some(base) = signatures(&[spec.to_text()], input) else {
        std::process::exit(1);
    };
    let target = base
        .values()
        .next()
        .cloned()
        .unwrap_or_else(|| "none".into());
    if target == "none" {
        eprintln!("{} does not diverge on input {input}", spec.to_text());
        std::process::exit(1);
    }
    eprintln!("shrinking {} (divergence {target})", spec.to_text());
    let mut cur = spec;
    let mut rounds = 0;
    'outer: loop {
        let k = cur.kernel("fz0").expect("a kernel");
        let cands: Vec<String> = shrink::candidates(&k)
            .into_iter()
            .map(|e| {
                let mut edits = match &cur {
                    Spec::Edited { edits, .. } => edits.clone(),
                    _ => Vec::new(),
                };
                edits.push(e);
                let base = match &cur {
                    Spec::Edited { base, .. } => base.clone(),
                    other => Box::new(other.clone()),
                };
                Spec::Edited { base, edits }.to_text()
            })
            .collect();
        for batch in cands.chunks(BATCH) {
            rounds += 1;
            let sigs = match signatures(batch, input) {
                Some(s) => s,
                // A batch that does not build: try its candidates alone.
                None => {
                    let mut m = BTreeMap::new();
                    for c in batch {
                        if let Some(s) = signatures(std::slice::from_ref(c), input) {
                            m.extend(s);
                        }
                    }
                    m
                }
            };
            if let Some(c) = batch.iter().find(|c| sigs.get(*c) == Some(&target)) {
                eprintln!("round {rounds}: kept {c}");
                cur = Spec::parse(c).expect("a spec");
                continue 'outer;
            }
        }
        break;
    }
    let k = cur.kernel("fz0").expect("a kernel");
    println!(
        "minimal case: {} (input {input}, divergence {target})",
        cur.to_text()
    );
    println!("{}", render::kernel_source(&k));
    println!(
        "reproduce: ROKKOS_FUZZ_CASES='{}' ROKKOS_FUZZ_INPUT={input} cargo test -p rokkos-fuzz --features wgpu --test fuzz",
        cur.to_text()
    );
}
