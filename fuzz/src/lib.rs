//! rokkos-fuzz: differential fuzzing of rokkos' backends.
//!
//! The build script writes random `#[kernel]` functions (and the seed corpus of issue 11's known
//! divergences) with their launch code into `OUT_DIR` ([`rokkos_fuzz_gen`]); the `fuzz` test
//! compiles them, so the native path (serial, rayon) runs what the macro expanded, and the same
//! kernels run through their IR on the evaluator and on wgpu. Each kernel runs with several
//! random input sets ([`inputs`]); every backend's results are compared with serial's under the
//! precision contract ([`contract::check`]). A divergence is either on the known list
//! ([`known::KNOWN_DIVERGENCES`], reported separately) or a failure, printed as a reproducer:
//! the kernel's source, the (reduced) input, and each backend's results.
//!
//! Environment (read by the build script and the test):
//!
//! - `ROKKOS_FUZZ_SEED` (default [`rokkos_fuzz_gen::DEFAULT_SEED`]) and `ROKKOS_FUZZ_KERNELS`
//!   (default [`rokkos_fuzz_gen::DEFAULT_KERNELS`]): the random kernels compiled in.
//! - `ROKKOS_FUZZ_CASES=<spec>,<spec>..`: exactly these kernels instead (specs as printed in a
//!   reproducer; the shrinker uses it).
//! - `ROKKOS_FUZZ_INPUTS` (default 6): input sets per random kernel.
//! - `ROKKOS_FUZZ_INPUT=<k>`: only input set `k` (with `ROKKOS_FUZZ_CASES`, to reproduce).
//! - `ROKKOS_FUZZ_BACKENDS=serial,rayon,ir-eval,wgpu,cuda`: the backends to compare (serial
//!   always; a GPU backend only where it is compiled in and has a device).
//!
//! `scripts/fuzz.sh` runs long campaigns and shrinks a failure.

pub mod contract;
pub mod inputs;
pub mod known;
pub mod rt;

use contract::{Backend, Meta, Reassoc, Verdict};
use rokkos::ir::Value;
use rokkos::{ExecutionSpace, SpaceVisitor};
use rokkos_fuzz_gen::analyze::{analyze, taint, Analysis};
use rokkos_fuzz_gen::ast::{Family, Kernel, Reducer};
use rokkos_fuzz_gen::{corpus, render, Spec};
use rt::{Failure, Input, Outputs, Run, Runner};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::time::Instant;

/// Settings of a run, from the environment.
#[derive(Clone, Debug)]
pub struct Config {
    /// Input sets per random kernel.
    pub inputs: u64,
    /// Only this input set.
    pub only_input: Option<u64>,
    /// Backends compared with serial.
    pub backends: Vec<Backend>,
    /// Case-name filter (a test-harness positional argument).
    pub filter: Option<String>,
    /// Print one machine-readable line per case (for the shrinker).
    pub signatures: bool,
    /// Print each case's time per backend.
    pub verbose: bool,
}

impl Config {
    /// The configuration the environment and `args` describe.
    pub fn from_env(args: &[String]) -> Config {
        let num = |k: &str| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
        };
        let backends = match std::env::var("ROKKOS_FUZZ_BACKENDS") {
            Ok(v) => Backend::ALL[1..]
                .iter()
                .copied()
                .filter(|b| v.split(',').any(|n| n.trim() == b.name()))
                .collect(),
            Err(_) => Backend::ALL[1..].to_vec(),
        };
        Config {
            inputs: num("ROKKOS_FUZZ_INPUTS").unwrap_or(6).max(1),
            only_input: num("ROKKOS_FUZZ_INPUT"),
            backends,
            filter: case_filter(args),
            signatures: std::env::var("ROKKOS_FUZZ_SIGNATURES").is_ok(),
            verbose: std::env::var("ROKKOS_FUZZ_VERBOSE").is_ok(),
        }
    }
}

/// The positional argument of a libtest-style command line (`cargo test -- NAME`), skipping
/// the options libtest knows, and the values of those that take one.
fn case_filter(args: &[String]) -> Option<String> {
    const WITH_VALUE: [&str; 6] = [
        "--test-threads",
        "--skip",
        "--format",
        "--color",
        "--logfile",
        "-Z",
    ];
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        if WITH_VALUE.contains(&a.as_str()) {
            it.next();
        } else if !a.starts_with('-') {
            return Some(a.clone());
        }
    }
    None
}

/// Runs `case` on `backend`.
fn run_case<R: Runner>(runner: &R, backend: Backend, case: usize, inp: &Input) -> Run {
    struct Visit<'a, R> {
        runner: &'a R,
        case: usize,
        inp: &'a Input,
    }
    impl<R: Runner> SpaceVisitor for Visit<'_, R> {
        type Output = Run;
        fn visit<E: ExecutionSpace>(self, space: E) -> Run {
            let r = self.runner.run(self.case, &space, self.inp);
            // A device reports a failed kernel at the next synchronisation at the latest.
            match (r, space.fence()) {
                (Ok(o), Ok(())) => Ok(o),
                (Ok(_), Err(e)) => Err(e.into()),
                (Err(f), _) => Err(f),
            }
        }
    }
    let v = Visit { runner, case, inp };
    match backend {
        Backend::IrEval => v.visit(rokkos::ir::eval::IrEval),
        b => match rokkos::run_on(b.name(), v) {
            Ok(r) => r,
            Err(e) => Err(Failure::Setup(format!("backend unavailable: {e}"))),
        },
    }
}

/// Whether `backend` can run here: a GPU backend needs its feature compiled in and a device
/// (its [`Backend::require_env`] variable set to 1 makes a missing one an error).
pub fn available(backend: Backend) -> Result<bool, String> {
    let Some(require) = backend.require_env() else {
        return Ok(backend != Backend::Rayon || rokkos::available_backends().contains(&"rayon"));
    };
    let name = backend.name();
    let required = std::env::var(require).as_deref() == Ok("1");
    if !rokkos::available_backends().contains(&name) {
        return if required {
            Err(format!("{require}=1 but {name} is not compiled in"))
        } else {
            Ok(false)
        };
    }
    struct Probe;
    impl SpaceVisitor for Probe {
        type Output = ();
        fn visit<E: ExecutionSpace>(self, _: E) {}
    }
    match rokkos::run_on(name, Probe) {
        Ok(()) => Ok(true),
        Err(e) if required => Err(format!("{require}=1 but {e}")),
        Err(e) => {
            eprintln!("fuzz: {name} skipped: {e}");
            Ok(false)
        }
    }
}

/// One divergence of a backend from serial.
#[derive(Clone, Debug)]
pub struct Divergence {
    /// The backend.
    pub backend: Backend,
    /// What differs.
    pub what: String,
    /// Its class, for shrinking (kind and backend; the same class must persist).
    pub class: String,
    /// The known entry it falls under.
    pub known: Option<&'static known::Known>,
}

/// Running counts of a run.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Kernels run.
    pub kernels: u64,
    /// (kernel, input) pairs run.
    pub inputs: u64,
    /// Launches per backend.
    pub launches: BTreeMap<&'static str, u64>,
    /// Seconds spent per backend (launches, copies, read-backs).
    pub seconds: BTreeMap<&'static str, f64>,
    /// Values compared within the contract.
    pub compared: u64,
    /// Values not checkable, by reason.
    pub unchecked: BTreeMap<&'static str, u64>,
    /// Inputs where serial failed (and the others were compared on failing too).
    pub serial_failed: u64,
    /// Serial's failures by kind.
    pub serial_kinds: BTreeMap<String, u64>,
    /// Both failed, with different kinds (not a divergence: a parallel backend may report
    /// another work item's failure first), by `serial kind -> backend kind`.
    pub kind_mismatches: BTreeMap<String, u64>,
    /// Known divergences seen, by item.
    pub known: BTreeMap<String, u64>,
    /// New divergences.
    pub new: u64,
}

/// Compares backend `b`'s run with serial's.
fn compare(
    k: &Kernel,
    an: &Analysis,
    b: Backend,
    serial: &Run,
    other: &Run,
    stats: &mut Stats,
) -> Vec<Divergence> {
    let mut out = Vec::new();
    let relaxed = if b.relaxed_float() {
        taint::FUSABLE | taint::GPU_RELAXED
    } else {
        0
    };
    let gpu_gate = b.is_gpu() && an.kernel & (taint::GPU_APPROX | taint::TEAM_SHAPE | relaxed) != 0;
    let mut push = |what: String, class: String, seen: known::Observed<'_>| {
        let known = known::find(b.name(), &seen);
        out.push(Divergence {
            backend: b,
            what,
            class,
            known,
        });
    };
    match (serial, other) {
        (_, Err(Failure::Unsupported(m))) if adapter_limit(b, m) => {
            // An adapter's documented limit, named in the error as the contract asks: the
            // generator's largest kernels take more Views than lavapipe binds per shader stage.
            *stats
                .unchecked
                .entry("refused for an adapter limit (storage bindings per shader stage)")
                .or_default() += 1;
        }
        (Ok(s), Ok(o)) => compare_outputs(k, an, b, s, o, stats, &mut push),
        (Ok(_), Err(f)) => {
            if gpu_gate && matches!(f, Failure::Kernel { .. }) {
                *stats
                    .unchecked
                    .entry("failure under approximate values")
                    .or_default() += 1;
            } else {
                push(
                    format!("serial succeeds, {} {}", b.name(), f.describe()),
                    format!("{}:fails:{}", b.name(), fail_class(f)),
                    known::Observed::Failed(f),
                );
            }
        }
        (Err(f @ Failure::Kernel { .. }), Ok(_)) => {
            if gpu_gate {
                *stats
                    .unchecked
                    .entry("failure under approximate values")
                    .or_default() += 1;
            } else {
                push(
                    format!("serial {}, {} succeeds", f.describe(), b.name()),
                    format!("{}:succeeds", b.name()),
                    known::Observed::SerialFailed {
                        serial: f,
                        taint: an.kernel,
                    },
                );
            }
        }
        (Err(Failure::Kernel { kind: ka, .. }), Err(Failure::Kernel { kind: kb, .. })) => {
            if ka != kb {
                *stats
                    .kind_mismatches
                    .entry(format!("serial {ka:?}, {} {kb:?}", b.name()))
                    .or_default() += 1;
            }
        }
        (Err(Failure::Kernel { .. }), Err(f)) => push(
            format!("serial fails in the kernel, {} {}", b.name(), f.describe()),
            format!("{}:fails:{}", b.name(), fail_class(f)),
            known::Observed::Failed(f),
        ),
        (Err(f), _) => push(
            format!("serial itself: {}", f.describe()),
            "serial:setup".to_string(),
            known::Observed::Failed(f),
        ),
    }
    out
}

/// Whether `Err(Unsupported(message))` from `b` is a limit of its adapter that rokkos names, not a
/// construct the backend lacks: wgpu's storage bindings per shader stage, past what windowed
/// launches can bring under it.
fn adapter_limit(b: Backend, message: &str) -> bool {
    b == Backend::Wgpu && message.contains("max_storage_buffers_per_shader_stage")
}

fn fail_class(f: &Failure) -> String {
    match f {
        Failure::Kernel { kind, .. } => format!("{kind:?}"),
        Failure::Unsupported(_) => "unsupported".to_string(),
        Failure::Compile(_) => "compile".to_string(),
        Failure::Setup(_) => "setup".to_string(),
    }
}

/// Whether backend `b` combines the partial results of a reduction or scan of family `f` in
/// another order than serial.
fn reassociates(b: Backend, f: Family) -> bool {
    match b {
        Backend::Serial => false,
        Backend::IrEval => matches!(f, Family::MdReduce(_)),
        Backend::Rayon | Backend::Wgpu | Backend::Cuda => true,
    }
}

fn float_of(v: Value) -> f64 {
    match v {
        Value::F32(x) => x as f64,
        Value::F64(x) => x,
        _ => 0.0,
    }
}

/// Every result of two successful runs.
fn compare_outputs(
    k: &Kernel,
    an: &Analysis,
    b: Backend,
    s: &Outputs,
    o: &Outputs,
    stats: &mut Stats,
    push: &mut impl FnMut(String, String, known::Observed<'_>),
) {
    if s.views.len() != o.views.len() || s.accs.len() != o.accs.len() {
        push(
            "result shapes differ".to_string(),
            format!("{}:shape", b.name()),
            known::Observed::Shape,
        );
        return;
    }
    let mut reported = 0;
    for (v, (sv, ov)) in s.views.iter().zip(&o.views).enumerate() {
        let is_out = v < k.outputs.len();
        let cols = if is_out {
            k.outputs[v].cols.max(1) as usize
        } else {
            1
        };
        if sv.len() != ov.len() {
            push(
                format!("view {v} has {} elements on serial, {}", sv.len(), ov.len()),
                format!("{}:shape", b.name()),
                known::Observed::Shape,
            );
            continue;
        }
        for (e, (&want, &got)) in sv.iter().zip(ov).enumerate() {
            let col = e % cols;
            let info = if is_out {
                an.cols[v][col].clone()
            } else {
                an.atomics[v - k.outputs.len()].clone()
            };
            let mut meta = Meta {
                taint: info.taint,
                direct: info.direct,
                reassoc: None,
            };
            if let (Some(term), true) = (info.prefix_of, reassociates(b, k.family)) {
                let row = e / cols;
                // A row whose body returned before the scan step wrote neither its term nor its
                // prefix (the generator keeps the two stores together): its prefix cell keeps
                // the start value, compared exactly.
                let stepped = !rt::is_unwritten(sv[row * cols + term as usize]);
                if want.ty().is_float() && stepped {
                    let terms = (0..row)
                        .map(|r| sv[r * cols + term as usize])
                        .filter(|&x| !rt::is_unwritten(x))
                        .map(float_of)
                        .collect();
                    meta.reassoc = Some(Reassoc {
                        product: false,
                        terms,
                        single: matches!(want, Value::F32(_)),
                    });
                }
            }
            match contract::check(b, &meta, want, got) {
                Verdict::Agree => stats.compared += 1,
                Verdict::Unchecked(why) => *stats.unchecked.entry(why).or_default() += 1,
                Verdict::Differ => {
                    reported += 1;
                    if reported <= 4 {
                        let place = if is_out {
                            let row = e / cols;
                            format!("o{v}[row {row}, col {col}]")
                        } else {
                            format!("a{}[{e}]", v - k.outputs.len())
                        };
                        push(
                            format!(
                                "{place}: serial {} vs {} {} (taint {:?})",
                                show(want),
                                b.name(),
                                show(got),
                                taint::names(info.taint)
                            ),
                            format!("{}:value", b.name()),
                            known::Observed::Value {
                                want,
                                got,
                                taint: info.taint,
                            },
                        );
                    }
                }
            }
        }
    }
    for (f, (&want, &got)) in s.accs.iter().zip(&o.accs).enumerate() {
        let info = &an.accs[f];
        let mut meta = Meta {
            taint: info.taint,
            direct: None,
            reassoc: None,
        };
        let float_fold = info.ty.is_float() && matches!(info.reducer, Reducer::Sum | Reducer::Prod);
        if float_fold && reassociates(b, k.family) {
            let terms = match info.term {
                Some((out, col)) => {
                    let cols = k.outputs[out as usize].cols.max(1) as usize;
                    s.views[out as usize]
                        .iter()
                        .skip(col as usize)
                        .step_by(cols)
                        .filter(|&&x| !rt::is_unwritten(x))
                        .map(|&x| float_of(x))
                        .collect()
                }
                // The scan's total: its terms are the term column of its step.
                None => scan_terms(k, an, s),
            };
            meta.reassoc = Some(Reassoc {
                product: info.reducer == Reducer::Prod,
                terms,
                single: info.ty == rokkos_fuzz_gen::ty::Ty::F32,
            });
        }
        match contract::check(b, &meta, want, got) {
            Verdict::Agree => stats.compared += 1,
            Verdict::Unchecked(why) => *stats.unchecked.entry(why).or_default() += 1,
            Verdict::Differ => push(
                format!(
                    "accumulator field {f} ({}): serial {} vs {} {} (taint {:?})",
                    info.reducer.name(),
                    show(want),
                    b.name(),
                    show(got),
                    taint::names(info.taint)
                ),
                format!("{}:acc", b.name()),
                known::Observed::Value {
                    want,
                    got,
                    taint: info.taint,
                },
            ),
        }
    }
}

/// The terms of a scan kernel's total: the term column of its step.
fn scan_terms(k: &Kernel, an: &Analysis, s: &Outputs) -> Vec<f64> {
    for (v, cols) in an.cols.iter().enumerate() {
        for c in cols {
            if let Some(term) = c.prefix_of {
                let n = k.outputs[v].cols.max(1) as usize;
                return s.views[v]
                    .iter()
                    .skip(term as usize)
                    .step_by(n)
                    .filter(|&&x| !rt::is_unwritten(x))
                    .map(|&x| float_of(x))
                    .collect();
            }
        }
    }
    Vec::new()
}

/// A value as Rust would print it, with its type.
pub fn show(v: Value) -> String {
    match v {
        Value::F32(x) => format!("{x:?}f32 ({:#010x})", x.to_bits()),
        Value::F64(x) => format!("{x:?}f64 ({:#018x})", x.to_bits()),
        other => other.to_string(),
    }
}

fn show_values(vals: &[Value], limit: usize) -> String {
    let mut s: Vec<String> = vals.iter().take(limit).map(|&v| short(v)).collect();
    if vals.len() > limit {
        s.push(format!("... ({} in all)", vals.len()));
    }
    format!("[{}]", s.join(", "))
}

fn short(v: Value) -> String {
    match v {
        Value::F32(x) => format!("{x:?}"),
        Value::F64(x) => format!("{x:?}"),
        other => other.to_string(),
    }
}

/// The input, written out for a reproducer.
pub fn show_input(inp: &Input) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "  ends {:?}, begins {:?}, tiles {:?}, chunk {}, iterate_left {}",
        inp.ends, inp.begins, inp.tiles, inp.chunk, inp.iterate_left
    );
    for (n, v) in inp.scalars.iter().enumerate() {
        let _ = writeln!(s, "  s{n} = {}", show(*v));
    }
    for (n, d) in inp.inputs.iter().enumerate() {
        let _ = writeln!(s, "  x{n} = {}", show_values(d, 24));
    }
    for (n, d) in inp.atomics.iter().enumerate() {
        let _ = writeln!(s, "  a{n} (initial) = {}", show_values(d, 24));
    }
    s
}

fn show_run(r: &Run) -> String {
    match r {
        Ok(o) => {
            let mut s = String::new();
            for (n, v) in o.views.iter().enumerate() {
                let _ = write!(s, "view{n} = {}; ", show_values(v, 16));
            }
            if !o.accs.is_empty() {
                let _ = write!(s, "result = {}", show_values(&o.accs, 8));
            }
            s
        }
        Err(f) => f.describe(),
    }
}

/// Everything one case did with one input on every backend.
struct Trial {
    serial: Run,
    others: Vec<(Backend, Run)>,
    divergences: Vec<Divergence>,
}

fn trial<R: Runner>(
    runner: &R,
    case: usize,
    k: &Kernel,
    an: &Analysis,
    inp: &Input,
    backends: &[Backend],
    stats: &mut Stats,
) -> Trial {
    let t0 = Instant::now();
    let serial = run_case(runner, Backend::Serial, case, inp);
    *stats.seconds.entry("serial").or_default() += t0.elapsed().as_secs_f64();
    *stats.launches.entry("serial").or_default() += 1;
    if let Err(Failure::Kernel { kind, .. }) = &serial {
        stats.serial_failed += 1;
        *stats.serial_kinds.entry(format!("{kind:?}")).or_default() += 1;
    }
    let mut others = Vec::new();
    let mut divergences = Vec::new();
    for &b in backends {
        let t0 = Instant::now();
        let r = run_case(runner, b, case, inp);
        *stats.seconds.entry(b.name()).or_default() += t0.elapsed().as_secs_f64();
        *stats.launches.entry(b.name()).or_default() += 1;
        divergences.extend(compare(k, an, b, &serial, &r, stats));
        others.push((b, r));
    }
    Trial {
        serial,
        others,
        divergences,
    }
}

/// The result of a whole run.
pub struct Report {
    /// Counts.
    pub stats: Stats,
    /// Reproducers of new divergences.
    pub failures: Vec<String>,
    /// Corpus cases: (name, item, diverged, attributed to their item).
    pub corpus: Vec<(String, u32, bool, bool)>,
}

/// Runs every case of `cases` (name, spec) with `runner`.
pub fn run_all<R: Runner>(runner: &R, cases: &[(&str, &str)], cfg: &Config) -> Report {
    let mut stats = Stats::default();
    let mut failures = Vec::new();
    let mut corpus_report = Vec::new();
    for (case, &(name, spec_text)) in cases.iter().enumerate() {
        if let Some(f) = &cfg.filter {
            if !name.contains(f.as_str()) && !spec_text.contains(f.as_str()) {
                continue;
            }
        }
        let Some(spec) = Spec::parse(spec_text) else {
            failures.push(format!("{name}: bad spec `{spec_text}` (harness bug)"));
            continue;
        };
        let Some(k) = spec.kernel(name) else {
            failures.push(format!(
                "{name}: spec `{spec_text}` names no kernel (harness bug)"
            ));
            continue;
        };
        let an = analyze(&k);
        stats.kernels += 1;
        let corpus_case = match &spec {
            Spec::Corpus(c) => corpus::CASES.iter().find(|x| x.name == c),
            _ => None,
        };
        let input_sets: Vec<(u64, Input)> = match (&spec, corpus_case) {
            (Spec::Corpus(c), Some(_)) => match corpus::fixed(c) {
                Some(f) => vec![(0, inputs::fixed(&k, &f))],
                None => Vec::new(),
            },
            _ => {
                let range: Vec<u64> = match cfg.only_input {
                    Some(i) => vec![i],
                    None => (0..cfg.inputs).collect(),
                };
                range
                    .into_iter()
                    .map(|i| (i, inputs::random(&k, spec.input_seed(), i)))
                    .collect()
            }
        };
        let before = stats.seconds.clone();
        let mut case_diverged = false;
        let mut case_attributed = true;
        let mut signature = String::from("none");
        let mut reported_classes: Vec<String> = Vec::new();
        for (idx, inp) in input_sets {
            stats.inputs += 1;
            let t = trial(runner, case, &k, &an, &inp, &cfg.backends, &mut stats);
            for d in &t.divergences {
                case_diverged = true;
                if signature == "none" {
                    signature = format!(
                        "{}{}",
                        d.class,
                        d.known.map(|k| format!("@{}", k.item)).unwrap_or_default()
                    );
                }
                match d.known {
                    Some(kn) => {
                        *stats.known.entry(kn.item.to_string()).or_default() += 1;
                        if let Some(c) = corpus_case {
                            case_attributed &= kn.item == format!("11/{}", c.item);
                        }
                    }
                    None => {
                        case_attributed = false;
                        stats.new += 1;
                        if reported_classes.contains(&d.class) {
                            continue;
                        }
                        reported_classes.push(d.class.clone());
                        // Only a failure that depends on the data is worth smaller data.
                        let (small, st) = if d.class.contains(":fails:compile")
                            || d.class.contains(":fails:unsupported")
                            || d.class.contains(":fails:setup")
                        {
                            (inp.clone(), None)
                        } else {
                            shrink_input(runner, case, &k, &an, &inp, d, &cfg.backends)
                        };
                        failures.push(reproducer(name, &spec, idx, &k, &inp, &small, &st, d));
                    }
                }
            }
        }
        if cfg.signatures {
            println!("SIGNATURE {spec_text} {signature}");
        }
        if cfg.verbose {
            let t: Vec<String> = stats
                .seconds
                .iter()
                .map(|(b, s)| format!("{b} {:.2}", s - before.get(b).copied().unwrap_or(0.0)))
                .collect();
            println!(
                "fuzz: {name} ({spec_text}, {:?}): {}",
                k.family,
                t.join(", ")
            );
        }
        if let Some(c) = corpus_case {
            corpus_report.push((name.to_string(), c.item, case_diverged, case_attributed));
        }
    }
    Report {
        stats,
        failures,
        corpus: corpus_report,
    }
}

/// A smaller input with a divergence of the same class, and that input's trial.
fn shrink_input<R: Runner>(
    runner: &R,
    case: usize,
    k: &Kernel,
    an: &Analysis,
    inp: &Input,
    d: &Divergence,
    backends: &[Backend],
) -> (Input, Option<Trial>) {
    let mut cur = inp.clone();
    let mut best = None;
    let mut scratch = Stats::default();
    for _ in 0..24 {
        let mut progressed = false;
        for cand in inputs::smaller(k, &cur) {
            let t = trial(runner, case, k, an, &cand, backends, &mut scratch);
            if t.divergences
                .iter()
                .any(|x| x.class == d.class && x.known.is_none())
            {
                cur = cand;
                best = Some(t);
                progressed = true;
                break;
            }
        }
        if !progressed {
            break;
        }
    }
    (cur, best)
}

#[allow(clippy::too_many_arguments)]
fn reproducer(
    name: &str,
    spec: &Spec,
    input_index: u64,
    k: &Kernel,
    original: &Input,
    small: &Input,
    small_trial: &Option<Trial>,
    d: &Divergence,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "=== NEW DIVERGENCE in {name} on {}: {}",
        d.backend.name(),
        d.what
    );
    let _ = writeln!(
        s,
        "reproduce: ROKKOS_FUZZ_CASES='{}' ROKKOS_FUZZ_INPUT={input_index} cargo test -p rokkos-fuzz --features wgpu --test fuzz",
        spec.to_text()
    );
    let _ = writeln!(
        s,
        "shrink:    scripts/fuzz.sh shrink '{}' {input_index}",
        spec.to_text()
    );
    let _ = writeln!(s, "--- kernel ---\n{}", render::kernel_source(k));
    if !small.same(original) {
        let _ = writeln!(
            s,
            "--- reduced input (original: input set {input_index}) ---"
        );
    } else {
        let _ = writeln!(s, "--- input set {input_index} ---");
    }
    s.push_str(&show_input(small));
    if let Some(t) = small_trial {
        let _ = writeln!(s, "--- results ---");
        let _ = writeln!(s, "  serial: {}", show_run(&t.serial));
        for (b, r) in &t.others {
            let _ = writeln!(s, "  {}: {}", b.name(), show_run(r));
        }
        for x in &t.divergences {
            let _ = writeln!(s, "  diverges: {} {}", x.backend.name(), x.what);
        }
    }
    s
}

/// The `fuzz` test's main: runs `cases`, prints the report, returns the exit code.
pub fn main<R: Runner>(runner: &R, cases: &[(&str, &str)]) -> i32 {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--list") {
        return 0;
    }
    let mut cfg = Config::from_env(&args);
    let mut keep = Vec::new();
    for b in cfg.backends {
        match available(b) {
            Ok(true) => keep.push(b),
            Ok(false) => {}
            Err(e) => {
                eprintln!("fuzz: {e}");
                return 1;
            }
        }
    }
    cfg.backends = keep;
    // Kernel panics are expected (and compared): keep them off stderr.
    std::panic::set_hook(Box::new(|_| {}));
    let start = Instant::now();
    let report = run_all(runner, cases, &cfg);
    let _ = std::panic::take_hook();
    let secs = start.elapsed().as_secs_f64();
    let st = &report.stats;
    for f in &report.failures {
        println!("{f}");
    }
    println!(
        "fuzz: {} kernels x inputs = {} input sets on serial + {:?} in {secs:.1} s",
        st.kernels,
        st.inputs,
        cfg.backends.iter().map(|b| b.name()).collect::<Vec<_>>()
    );
    let secs_per: BTreeMap<&str, String> = st
        .seconds
        .iter()
        .map(|(k, v)| (*k, format!("{v:.1} s")))
        .collect();
    println!(
        "fuzz: launches {:?} taking {:?}; {} values compared; serial failed on {} input sets {:?} (failure agreement compared)",
        st.launches, secs_per, st.compared, st.serial_failed, st.serial_kinds
    );
    if !st.kind_mismatches.is_empty() {
        println!(
            "fuzz: both failed, with other kinds (another work item's failure may come first): {:?}",
            st.kind_mismatches
        );
    }
    if !st.unchecked.is_empty() {
        println!("fuzz: not checkable under the contract: {:?}", st.unchecked);
    }
    if !st.known.is_empty() {
        println!(
            "fuzz: KNOWN divergences (known::KNOWN_DIVERGENCES, not failures): {:?}",
            st.known
        );
    }
    for (name, item, diverged, attributed) in &report.corpus {
        let listed = known::KNOWN_DIVERGENCES
            .iter()
            .any(|k| k.item == format!("11/{item}"));
        match (diverged, listed) {
            (true, true) if *attributed => {
                println!("fuzz: corpus {name}: item {item} still diverges (known)")
            }
            (false, true) => println!(
                "fuzz: corpus {name}: item {item} no longer diverges: remove it from KNOWN_DIVERGENCES"
            ),
            (false, false) => println!("fuzz: corpus {name}: item {item} agrees"),
            _ => {}
        }
    }
    if report.failures.is_empty() {
        println!("fuzz: no new divergences");
        0
    } else {
        println!(
            "fuzz: {} NEW divergences (reproducers above)",
            report.failures.len()
        );
        1
    }
}

#[cfg(test)]
mod tests {
    use super::case_filter;

    #[test]
    fn the_case_filter_skips_libtest_options() {
        let a = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(case_filter(&a(&["fuzz"])), None);
        assert_eq!(case_filter(&a(&["fuzz", "--test-threads", "2"])), None);
        assert_eq!(
            case_filter(&a(&["fuzz", "--nocapture", "fz3"])),
            Some("fz3".into())
        );
        assert_eq!(
            case_filter(&a(&["fuzz", "--skip", "x", "r:1:2"])),
            Some("r:1:2".into())
        );
    }
}
