//! Lennard-Jones molecular dynamics, ExaMiniMD's benchmark problem, on any backend.
//!
//! ```text
//! cargo run --release --example md -- [--backend serial|rayon|wgpu|cuda] [--cells 20] [--steps 100] [--every 20] [--json]
//! ```
//!
//! The problem of ExaMiniMD's (and LAMMPS') `in.lj`: an FCC lattice of `4 cells³` atoms at
//! reduced density 0.8442, ε = σ = m = 1, cutoff 2.5, skin 0.3, time step 0.005, initial
//! temperature 1.4, a full neighbour list rebuilt every 20 steps (`--every`), velocity Verlet. The
//! neighbour list is a fixed number of slots per atom; building it bins the atoms into cells of at
//! least `cutoff + skin` (a stable counting sort on the host, so every backend and
//! `scripts/md_omp.c`, the OpenMP reference, see the same neighbour order), then each atom scans
//! the 27 cells around its own. Forces loop over each atom's neighbours and write only that atom's
//! force (no atomics: the list is full); distances are minimum images in the periodic box.
//!
//! The program fails when the conserved energy (kinetic plus the potential shifted to zero at the
//! cutoff: the plain truncated potential jumps when a pair crosses the cutoff, which the forces do
//! not see) drifts by more than 1e-3 (relative) over the run, or a neighbour list overflows its
//! slots. `--json` prints the seconds per step and the energies;
//! `scripts/bench_host.sh` runs it beside `scripts/md_omp.c` (same algorithm, same arithmetic in
//! the same order) and checks that the two agree.

#[path = "common/args.rs"]
mod args;

use rokkos::prelude::*;
use rokkos::{run_on, SpaceVisitor};
use std::process::ExitCode;
use std::time::Instant;

/// Neighbour slots per atom: the shell of radius `cutoff + skin` holds about 78 atoms at this
/// density (and a liquid at this temperature stays near that).
const MAX_NEIGH: usize = 128;
const CUTOFF: f64 = 2.5;
const SKIN: f64 = 0.3;
const DT: f64 = 0.005;
const DENSITY: f64 = 0.8442;
const TEMPERATURE: f64 = 1.4;

/// `v += dt/2 f; x += dt v` (unit mass).
#[kernel]
fn initial_integrate(i: usize, x: ViewMut<f64, 2>, v: ViewMut<f64, 2>, f: View<f64, 2>, dt: f64) {
    for d in 0..3 {
        v[(i, d)] += 0.5 * dt * f[(i, d)];
        x[(i, d)] += dt * v[(i, d)];
    }
}

/// `v += dt/2 f`.
#[kernel]
fn final_integrate(i: usize, v: ViewMut<f64, 2>, f: View<f64, 2>, dt: f64) {
    for d in 0..3 {
        v[(i, d)] += 0.5 * dt * f[(i, d)];
    }
}

/// Wraps atom `i` back into the box `[0, l)³`.
#[kernel]
fn wrap(i: usize, x: ViewMut<f64, 2>, l: f64) {
    for d in 0..3 {
        let mut p = x[(i, d)];
        if p < 0.0 {
            p += l;
        }
        if p >= l {
            p -= l;
        }
        x[(i, d)] = p;
    }
}

/// The minimum image of a coordinate difference in a periodic box of side `l`.
#[func]
fn image(dx: f64, l: f64) -> f64 {
    let mut r = dx;
    if r > 0.5 * l {
        r -= l;
    }
    if r < -0.5 * l {
        r += l;
    }
    r
}

/// The cell of a coordinate in `[0, l)` with `nc` cells per side (clamped: a position rounded
/// to exactly `l` stays in the last cell).
#[func]
fn cell_of(p: f64, inv_cell: f64, nc: usize) -> usize {
    let c = (p * inv_cell) as usize;
    c.min(nc - 1)
}

/// Atom `i`'s neighbours within `rc2` (squared cutoff plus skin): every atom of the 27 cells
/// around its own but itself, in cell order and, within a cell, in the order of `order` (the
/// atoms sorted by cell); the first `MAX_NEIGH` go into `neigh[i]`, the count into `count[i]`.
#[kernel]
fn build_neighbours(
    i: usize,
    neigh: ViewMut<u32, 2>,
    count: ViewMut<u32>,
    x: View<f64, 2>,
    start: View<u32>,
    order: View<u32>,
    nc: usize,
    inv_cell: f64,
    l: f64,
    rc2: f64,
) {
    let (xi, yi, zi) = (x[(i, 0)], x[(i, 1)], x[(i, 2)]);
    let cx = cell_of(xi, inv_cell, nc);
    let cy = cell_of(yi, inv_cell, nc);
    let cz = cell_of(zi, inv_cell, nc);
    let cap = neigh.extent(1);
    let mut n: usize = 0;
    for a in 0..3 {
        let bx = (cx + nc + a - 1) % nc;
        for b in 0..3 {
            let by = (cy + nc + b - 1) % nc;
            for c in 0..3 {
                let bz = (cz + nc + c - 1) % nc;
                let cell = (bx * nc + by) * nc + bz;
                for k in start[cell] as usize..start[cell + 1] as usize {
                    let j = order[k] as usize;
                    if j != i {
                        let dx = image(x[(j, 0)] - xi, l);
                        let dy = image(x[(j, 1)] - yi, l);
                        let dz = image(x[(j, 2)] - zi, l);
                        if dx * dx + dy * dy + dz * dz < rc2 {
                            if n < cap {
                                neigh[(i, n)] = j as u32;
                            }
                            n += 1;
                        }
                    }
                }
            }
        }
    }
    count[i] = n as u32;
}

/// The Lennard-Jones force on atom `i` from its neighbours within the cutoff.
#[kernel]
fn force(
    i: usize,
    f: ViewMut<f64, 2>,
    x: View<f64, 2>,
    neigh: View<u32, 2>,
    count: View<u32>,
    l: f64,
    cut2: f64,
) {
    let (xi, yi, zi) = (x[(i, 0)], x[(i, 1)], x[(i, 2)]);
    let (mut fx, mut fy, mut fz) = (0.0, 0.0, 0.0);
    for k in 0..count[i] as usize {
        let j = neigh[(i, k)] as usize;
        let dx = image(xi - x[(j, 0)], l);
        let dy = image(yi - x[(j, 1)], l);
        let dz = image(zi - x[(j, 2)], l);
        let r2 = dx * dx + dy * dy + dz * dz;
        if r2 < cut2 {
            let r2inv = 1.0 / r2;
            let r6inv = r2inv * r2inv * r2inv;
            let fpair = 48.0 * r6inv * (r6inv - 0.5) * r2inv;
            fx += dx * fpair;
            fy += dy * fpair;
            fz += dz * fpair;
        }
    }
    f[(i, 0)] = fx;
    f[(i, 1)] = fy;
    f[(i, 2)] = fz;
}

/// Atom `i`'s share of the potential energy: half of each pair's `4 (r⁻¹² - r⁻⁶) - shift`.
#[kernel]
fn potential(
    i: usize,
    acc: &mut f64,
    x: View<f64, 2>,
    neigh: View<u32, 2>,
    count: View<u32>,
    l: f64,
    cut2: f64,
    shift: f64,
) {
    let (xi, yi, zi) = (x[(i, 0)], x[(i, 1)], x[(i, 2)]);
    let mut e = 0.0;
    for k in 0..count[i] as usize {
        let j = neigh[(i, k)] as usize;
        let dx = image(xi - x[(j, 0)], l);
        let dy = image(yi - x[(j, 1)], l);
        let dz = image(zi - x[(j, 2)], l);
        let r2 = dx * dx + dy * dy + dz * dz;
        if r2 < cut2 {
            let r6inv = 1.0 / (r2 * r2 * r2);
            e += 2.0 * r6inv * (r6inv - 1.0) - 0.5 * shift;
        }
    }
    *acc += e;
}

/// Atom `i`'s kinetic energy `v²/2`.
#[kernel]
fn kinetic(i: usize, acc: &mut f64, v: View<f64, 2>) {
    *acc += 0.5 * (v[(i, 0)] * v[(i, 0)] + v[(i, 1)] * v[(i, 1)] + v[(i, 2)] * v[(i, 2)]);
}

/// The most neighbours any atom found.
#[kernel]
fn most(i: usize, acc: &mut u32, count: View<u32>) {
    if count[i] > *acc {
        *acc = count[i];
    }
}

struct Args {
    backend: String,
    cells: usize,
    steps: usize,
    every: usize,
    json: bool,
}

const USAGE: &str =
    "usage: md [--backend serial|rayon|wgpu|cuda] [--cells N (>= 4)] [--steps K] [--every K] [--json]";

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        backend: String::new(),
        cells: 20,
        steps: 100,
        every: 20,
        json: false,
    };
    let mut backend = None;
    let mut f = args::Flags::new(USAGE);
    while let Some(flag) = f.next_flag()? {
        match flag.as_str() {
            "--backend" => backend = Some(f.value("--backend")?),
            "--cells" => a.cells = f.parse("--cells")?,
            "--steps" => a.steps = f.parse("--steps")?,
            "--every" => a.every = f.parse("--every")?,
            "--json" => a.json = true,
            other => return Err(f.unknown(other)),
        }
    }
    a.backend = args::backend_or_default(backend)?;
    // Four lattice cells per side keep the box (6.7) above twice the list radius (2.8), which
    // the minimum image and the 27-cell scan need.
    if a.cells < 4 || a.steps == 0 || a.every == 0 {
        return Err("--cells must be at least 4, --steps and --every positive".into());
    }
    // 4 cells³ atoms, each with 3 coordinates and MAX_NEIGH neighbour slots of 4 bytes.
    let slots = a
        .cells
        .checked_pow(3)
        .and_then(|c| c.checked_mul(4 * MAX_NEIGH * 4));
    if slots.is_none() {
        return Err(format!(
            "--cells {}: the neighbour list would not fit in memory",
            a.cells
        ));
    }
    Ok(a)
}

/// splitmix64, as `scripts/md_omp.c` draws it.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The FCC lattice and its velocities: uniform in [-0.5, 0.5) per component, the centre of
/// mass at rest, scaled to the temperature over 3N - 3 degrees of freedom. Row-major `[n][3]`.
fn lattice(cells: usize) -> (f64, Vec<f64>, Vec<f64>) {
    let a = (4.0 / DENSITY).cbrt();
    let basis = [
        [0.0, 0.0, 0.0],
        [0.5, 0.5, 0.0],
        [0.5, 0.0, 0.5],
        [0.0, 0.5, 0.5],
    ];
    let mut x = Vec::with_capacity(4 * cells * cells * cells * 3);
    for i in 0..cells {
        for j in 0..cells {
            for k in 0..cells {
                for b in &basis {
                    x.push((i as f64 + b[0]) * a);
                    x.push((j as f64 + b[1]) * a);
                    x.push((k as f64 + b[2]) * a);
                }
            }
        }
    }
    let n = x.len() / 3;
    let mut s = 87287u64;
    let mut v: Vec<f64> = (0..3 * n)
        .map(|_| (splitmix(&mut s) >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
        .collect();
    for d in 0..3 {
        let mean = (0..n).map(|i| v[3 * i + d]).sum::<f64>() / n as f64;
        for i in 0..n {
            v[3 * i + d] -= mean;
        }
    }
    let ke: f64 = v.iter().map(|c| 0.5 * c * c).sum();
    let t = 2.0 * ke / (3.0 * n as f64 - 3.0);
    let scale = (TEMPERATURE / t).sqrt();
    v.iter_mut().for_each(|c| *c *= scale);
    (cells as f64 * a, x, v)
}

/// The atoms sorted by cell, stably (a counting sort): `start[c]..start[c + 1]` of `order` are
/// the atoms of cell `c`, in index order.
fn bin(x: &[f64], nc: usize, inv_cell: f64) -> (Vec<u32>, Vec<u32>) {
    let n = x.len() / 3;
    let cell = |p: f64| ((p * inv_cell) as usize).min(nc - 1);
    let of: Vec<usize> = (0..n)
        .map(|i| (cell(x[3 * i]) * nc + cell(x[3 * i + 1])) * nc + cell(x[3 * i + 2]))
        .collect();
    let mut start = vec![0u32; nc * nc * nc + 1];
    for &c in &of {
        start[c + 1] += 1;
    }
    for c in 0..nc * nc * nc {
        start[c + 1] += start[c];
    }
    let mut fill = start.clone();
    let mut order = vec![0u32; n];
    for (i, &c) in of.iter().enumerate() {
        order[fill[c] as usize] = i as u32;
        fill[c] += 1;
    }
    (start, order)
}

struct Run {
    backend: String,
    atoms: usize,
    per_step: f64,
    pe: f64,
    ke: f64,
    /// Potential energy per atom before the first step (the lattice's).
    pe0: f64,
    /// Kinetic energy per atom before the first step.
    ke0: f64,
    /// Kinetic plus shifted potential energy per atom, at the start and at the end.
    conserved0: f64,
    conserved: f64,
    max_neigh: u32,
}

struct Md<'a>(&'a Args);

impl SpaceVisitor for Md<'_> {
    type Output = rokkos::Result<Run>;
    fn visit<E: ExecutionSpace>(self, space: E) -> rokkos::Result<Run> {
        let (l, x0, v0) = lattice(self.0.cells);
        let n = x0.len() / 3;
        let rc = CUTOFF + SKIN;
        let nc = ((l / rc).floor() as usize).max(3);
        let inv_cell = nc as f64 / l;
        let (cut2, rc2) = (CUTOFF * CUTOFF, rc * rc);
        let mem = space.memory_space();
        let up2 = |label: &str, data: Vec<f64>| {
            create_mirror_view_and_copy_in(&space, &View::<f64, 2>::from_vec(label, [n, 3], data)?)
        };
        let (x, v) = (up2("x", x0)?, up2("v", v0)?);
        let f = View::<f64, 2, LayoutRight, E::Memory>::new_in(&mem, "f", [n, 3])?;
        let neigh = View::<u32, 2, LayoutRight, E::Memory>::new_in(&mem, "neigh", [n, MAX_NEIGH])?;
        let count = View::<u32, 1, LayoutRight, E::Memory>::new_in(&mem, "count", [n])?;
        let atoms = || RangePolicy::new(&space, 0..n);
        let mut max_neigh = 0;
        let rebuild = |max_neigh: &mut u32| -> rokkos::Result<()> {
            parallel_for("md::wrap", atoms(), wrap(&x, l))?;
            let (start, order) = bin(&create_mirror_view_and_copy(&x)?.to_vec(), nc, inv_cell);
            let start = create_mirror_view_and_copy_in(
                &space,
                &View::<u32>::from_vec("start", [start.len()], start)?,
            )?;
            let order = create_mirror_view_and_copy_in(
                &space,
                &View::<u32>::from_vec("order", [n], order)?,
            )?;
            parallel_for(
                "md::neighbours",
                atoms(),
                build_neighbours(&neigh, &count, &x, &start, &order, nc, inv_cell, l, rc2),
            )?;
            let most_now = parallel_reduce("md::most", atoms(), most(&count), Max)?;
            *max_neigh = (*max_neigh).max(most_now);
            if most_now as usize > MAX_NEIGH {
                return Err(rokkos::Error::InvalidArgument(format!(
                    "an atom has {most_now} neighbours, more than the list's {MAX_NEIGH} slots"
                )));
            }
            Ok(())
        };
        // The pair energy at the cutoff: the truncated potential jumps by it when a pair crosses
        // the cutoff, which the forces do not see, so the dynamics conserve the kinetic energy
        // plus the shifted potential (`U(r) - U(rc)`), not plus the plain one LAMMPS reports.
        let u_rc = {
            let r6inv = 1.0 / (cut2 * cut2 * cut2);
            4.0 * r6inv * (r6inv - 1.0)
        };
        let pe = |shift: f64| {
            let k = potential(&x, &neigh, &count, l, cut2, shift);
            parallel_reduce("md::pe", atoms(), k, Sum)
        };
        let energy = || -> rokkos::Result<[f64; 3]> {
            let ke = parallel_reduce("md::ke", atoms(), kinetic(&v), Sum)?;
            Ok([pe(0.0)?, pe(u_rc)?, ke])
        };
        rebuild(&mut max_neigh)?;
        parallel_for("md::force", atoms(), force(&f, &x, &neigh, &count, l, cut2))?;
        let [pe0, shifted0, ke0] = energy()?;
        space.fence()?;
        let t0 = Instant::now();
        for step in 1..=self.0.steps {
            parallel_for("md::initial", atoms(), initial_integrate(&x, &v, &f, DT))?;
            if step % self.0.every == 0 {
                rebuild(&mut max_neigh)?;
            }
            parallel_for("md::force", atoms(), force(&f, &x, &neigh, &count, l, cut2))?;
            parallel_for("md::final", atoms(), final_integrate(&v, &f, DT))?;
        }
        space.fence()?;
        let per_step = t0.elapsed().as_secs_f64() / self.0.steps as f64;
        let [pe, shifted, ke] = energy()?;
        let per_atom = |e: f64| e / n as f64;
        Ok(Run {
            backend: space.name().to_string(),
            atoms: n,
            per_step,
            pe: per_atom(pe),
            ke: per_atom(ke),
            pe0: per_atom(pe0),
            ke0: per_atom(ke0),
            conserved0: per_atom(shifted0 + ke0),
            conserved: per_atom(shifted + ke),
            max_neigh,
        })
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("md: {e}");
            return ExitCode::from(2);
        }
    };
    let r = match run_on(&args.backend, Md(&args)).and_then(|r| r) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("md: {e}");
            return ExitCode::FAILURE;
        }
    };
    let drift = ((r.conserved - r.conserved0) / r.conserved0).abs();
    if args.json {
        let line = serde_json::json!({
            "bench": "md", "backend": r.backend, "atoms": r.atoms, "steps": args.steps,
            "pe": r.pe, "ke": r.ke, "pe0": r.pe0, "ke0": r.ke0, "etot": r.pe + r.ke, "conserved": r.conserved,
            "conserved0": r.conserved0, "drift": drift, "max_neigh": r.max_neigh,
            "metric": "s/step", "value": r.per_step,
        });
        println!("{line}");
    } else {
        println!(
            "md on {}: {} atoms, {} steps, {:.3} ms per step; per atom PE {:.6} KE {:.6} E {:.6}; KE + shifted PE {:.8} (start {:.8}, drift {:.1e}); at most {} neighbours",
            r.backend,
            r.atoms,
            args.steps,
            r.per_step * 1e3,
            r.pe,
            r.ke,
            r.pe + r.ke,
            r.conserved,
            r.conserved0,
            drift,
            r.max_neigh
        );
    }
    if drift > 1e-3 {
        eprintln!("md: the conserved energy drifted by {drift:.2e} (relative)");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 256 atoms, 40 steps with a rebuild at 20 and 40, on `backend`; `None` where the backend
    /// has no device here (its crate panics instead when its `ROKKOS_REQUIRE_*` is set, as in CI).
    fn small(backend: &str) -> Option<Run> {
        let args = Args {
            backend: backend.into(),
            cells: 4,
            steps: 40,
            every: 20,
            json: false,
        };
        match run_on(backend, Md(&args)).and_then(|r| r) {
            Ok(r) => Some(r),
            Err(rokkos::Error::BackendUnavailable { .. }) => {
                eprintln!("md: {backend} unavailable here, not run");
                None
            }
            Err(e) => panic!("md on {backend}: {e}"),
        }
    }

    /// The lattice's potential energy per atom, by brute force over every pair's minimum image
    /// (no cells, no neighbour list).
    fn lattice_pe(cells: usize) -> f64 {
        let (l, x, _) = lattice(cells);
        let n = x.len() / 3;
        let mut e = 0.0;
        for i in 0..n {
            for j in i + 1..n {
                let d: Vec<f64> = (0..3)
                    .map(|c| image(x[3 * i + c] - x[3 * j + c], l))
                    .collect();
                let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                if r2 < CUTOFF * CUTOFF {
                    let r6inv = 1.0 / (r2 * r2 * r2);
                    e += 4.0 * r6inv * (r6inv - 1.0);
                }
            }
        }
        e / n as f64
    }

    #[test]
    fn energies_match_closed_forms_and_serial_on_every_backend() {
        let s = small("serial").expect("serial always runs");
        assert_eq!(s.atoms, 256);
        let brute = lattice_pe(4);
        assert!(
            (s.pe0 - brute).abs() <= 1e-12 * brute.abs(),
            "{} vs {brute}",
            s.pe0
        );
        // LAMMPS' own log of in.lj (step 0: PE -6.7733681 per atom): a perfect FCC lattice's
        // energy per atom does not depend on the box once it holds the cutoff sphere.
        assert!((brute + 6.7733681).abs() < 1e-7, "{brute}");
        // The velocities are scaled to T = 1.4 over 3n - 3 degrees of freedom.
        let ke0 = 1.5 * TEMPERATURE * (s.atoms - 1) as f64 / s.atoms as f64;
        assert!((s.ke0 - ke0).abs() < 1e-12, "{} vs {ke0}", s.ke0);
        let drift = ((s.conserved - s.conserved0) / s.conserved0).abs();
        assert!(drift < 1e-4, "serial drift {drift:e}");
        assert!(
            s.ke > 0.5 && s.max_neigh as usize <= MAX_NEIGH,
            "{} {}",
            s.ke,
            s.max_neigh
        );
        for backend in rokkos::available_backends() {
            let Some(r) = small(backend) else { continue };
            for (what, got, want) in [
                ("pe", r.pe, s.pe),
                ("ke", r.ke, s.ke),
                ("conserved", r.conserved, s.conserved),
                ("pe0", r.pe0, s.pe0),
            ] {
                assert!(
                    (got - want).abs() <= 1e-9 * want.abs(),
                    "{backend} {what}: {got} vs serial {want}"
                );
            }
            assert_eq!(r.max_neigh, s.max_neigh, "{backend}");
        }
    }
}
