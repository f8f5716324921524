//! The native path compiles a stencil to a vectorised loop: a release build of a small crate with
//! the 2-D and 3-D Jacobi kernels and two team kernels (`thread_range` loops, one indexing a row it
//! looks up in the loop body) on the serial backend,
//! whose assembly must hold packed double-precision arithmetic (`addpd`/`mulpd`, or their VEX/EVEX
//! forms) in the MDRange tile runners and the team launch. A per-element bounds check, index
//! division or closure call in the inner loop stops LLVM from vectorising it, and this test fails.
//!
//! Cost: one release build of rokkos-core, rokkos-macros and rokkos-serial (no rayon, no wgpu)
//! into `target/tmp/codegen-stencil`, reused across runs (about a minute on two cores the first
//! time, seconds after). It builds offline against the workspace's own `Cargo.lock`.

#![cfg(target_arch = "x86_64")]

use std::path::Path;
use std::process::Command;

const KERNELS: &str = r#"
use rokkos::prelude::*;

#[kernel]
fn jacobi2d((i, j): (usize, usize), v: ViewMut<f64, 2>, u: View<f64, 2>) {
    v[(i, j)] = 0.25 * (u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)]);
}

#[kernel]
fn jacobi3d((i, j, k): (usize, usize, usize), v: ViewMut<f64, 3>, u: View<f64, 3>) {
    v[(i, j, k)] = (u[(i - 1, j, k)] + u[(i + 1, j, k)] + u[(i, j - 1, k)]
        + u[(i, j + 1, k)] + u[(i, j, k - 1)] + u[(i, j, k + 1)]) * (1.0 / 6.0);
}

#[kernel]
fn team_axpy(team: &TeamMember, y: ViewMut<f64, 2>, x: View<f64, 2>, a: f64) {
    let l = team.league_rank();
    for j in team.thread_range(y.extent(1)) {
        y[(l, j)] = a * x[(l, j)] + y[(l, j)];
    }
}

// TOAST's noise_weight shape: the row comes from a lookup inside the loop body, invariant over
// the loop, and the body is a `macro_rules!` fragment, as rokkos-toast writes its kernels. f32, so
// that its packed multiplies (`mulps`) tell it apart from `team_axpy`'s.
macro_rules! per_row {
    ($name:ident ($($params:tt)*) over $n:expr; |$team:ident, $l:ident, $s:ident| $body:block) => {
        #[kernel]
        fn $name($team: &TeamMember, $($params)*) {
            let $l = $team.league_rank();
            for $s in $team.thread_range($n) {
                $body
            }
        }
    };
}

per_row! {
    team_rows(y: ViewMut<f32, 2>, rows: InjectiveView<i32>, w: View<f32>)
    over y.extent(1); |team, l, s| {
        let row = rows[l] as usize;
        y[(row, s)] *= w[l];
    }
}

pub fn rows_sweep(y: &View<f32, 2>, rows: &InjectiveView<i32>, w: &View<f32>) -> rokkos::Result<()> {
    let policy = TeamPolicy::new(&Serial, y.extent(0), TeamSize::Auto);
    parallel_for("team_rows", policy, team_rows(y, rows, w))
}

pub fn team_sweep(y: &View<f64, 2>, x: &View<f64, 2>, a: f64) -> rokkos::Result<()> {
    let policy = TeamPolicy::new(&Serial, y.extent(0), TeamSize::Auto);
    parallel_for("team_axpy", policy, team_axpy(y, x, a))
}

pub fn sweep2d(v: &View<f64, 2>, u: &View<f64, 2>) -> rokkos::Result<()> {
    let n = u.extent(0);
    parallel_for("jacobi2d", MDRangePolicy::new(&Serial, [1, 1], [n - 1, n - 1]), jacobi2d(v, u))
}

pub fn sweep3d(v: &View<f64, 3>, u: &View<f64, 3>) -> rokkos::Result<()> {
    let n = u.extent(0);
    parallel_for("jacobi3d", MDRangePolicy::new(&Serial, [1, 1, 1], [n - 1, n - 1, n - 1]), jacobi3d(v, u))
}
"#;

/// The instructions of every function whose symbol contains `name` (closures inside it excluded
/// unless `closures`), from an assembly listing.
fn functions<'a>(asm: &'a str, name: &str, closures: bool) -> Vec<Vec<&'a str>> {
    let mut out = Vec::new();
    let mut cur: Option<Vec<&str>> = None;
    for line in asm.lines() {
        let is_label = !line.starts_with(char::is_whitespace) && line.ends_with(':');
        if is_label && !line.starts_with('.') {
            if let Some(f) = cur.take() {
                out.push(f);
            }
            if line.contains(name) && (closures || !line.contains("closure")) {
                cur = Some(Vec::new());
            }
        } else if let Some(f) = cur.as_mut() {
            if line.trim_start().starts_with(".cfi_endproc") {
                out.push(cur.take().unwrap_or_default());
            } else {
                f.push(line.trim());
            }
        }
    }
    out.extend(cur);
    out
}

/// Packed single-precision multiply (SSE, AVX or AVX-512 forms).
fn is_packed_f32_mul(insn: &str) -> bool {
    let op = insn.split_whitespace().next().unwrap_or("");
    op.strip_prefix('v').unwrap_or(op) == "mulps"
}

/// Packed double-precision add or multiply (SSE2, AVX or AVX-512 forms).
fn is_packed_f64_arith(insn: &str) -> bool {
    let op = insn.split_whitespace().next().unwrap_or("");
    let op = op.strip_prefix('v').unwrap_or(op);
    matches!(op, "addpd" | "mulpd") || (op.starts_with("fmadd") && op.ends_with("pd"))
}

#[test]
fn stencil_inner_loops_vectorise() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("codegen-stencil");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"codegen_stencil\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
         [lib]\npath = \"src/lib.rs\"\n\n\
         [dependencies]\nrokkos = {{ path = {:?}, default-features = false }}\n\n\
         [profile.release]\ncodegen-units = 1\n\n[workspace]\n",
        root.display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join("src/lib.rs"), KERNELS).unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(&dir)
        .args(["rustc", "--release", "--lib", "--offline", "--quiet"])
        .args(["--target-dir", "target", "--", "--emit", "asm"])
        // The build must not inherit this test's compiler flags (coverage, sanitizers).
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "release build of the codegen crate failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let deps = dir.join("target/release/deps");
    let asm_file = std::fs::read_dir(&deps)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "s")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("codegen_stencil"))
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .expect("rustc wrote the assembly");
    let asm = std::fs::read_to_string(asm_file).unwrap();
    let runners = functions(&asm, "run_for_tiles", false);
    // One tile runner per rank (2-D and 3-D).
    assert_eq!(
        runners.len(),
        2,
        "expected two MDRange tile runners in the assembly"
    );
    for (k, f) in runners.iter().enumerate() {
        let packed = f.iter().filter(|i| is_packed_f64_arith(i)).count();
        assert!(
            packed >= 4,
            "tile runner {k} has {packed} packed f64 add/mul instructions: its inner loop no longer \
             vectorises ({} instructions)",
            f.len()
        );
    }
    // The team kernel's thread range loop is versioned and vectorises where the team launch
    // inlined it (serial: the league loop in `TeamPolicy`'s launch, `for_team::run`, or the
    // closure the launch boundary in `pattern::dispatch` runs).
    let team_fns: Vec<Vec<&str>> = ["TeamPolicy", "for_team", "pattern8dispatch"]
        .iter()
        .flat_map(|n| functions(&asm, n, true))
        .collect();
    let count = |is: fn(&str) -> bool| -> usize {
        team_fns
            .iter()
            .map(|f| f.iter().filter(|i| is(i)).count())
            .sum()
    };
    let team = count(is_packed_f64_arith);
    assert!(
        team >= 2,
        "the team kernel's loop has {team} packed f64 add/mul instructions: it no longer vectorises"
    );
    // A row looked up in the loop body (`let row = rows[l] as usize;`) is invariant: the loop is
    // versioned on it and vectorises too.
    let rows = count(is_packed_f32_mul);
    assert!(
        rows >= 1,
        "the looked-up-row team kernel has {rows} packed f32 multiplies: it no longer vectorises"
    );
}
