//! Command-line arguments of the benchmark.

use rokkos_toast::kernels::Design;

/// What to run.
pub struct Args {
    /// Backend name (`serial`, `rayon`, `wgpu`, `cuda`).
    pub backend: String,
    /// One JSON object per line instead of a table.
    pub json: bool,
    /// Detectors.
    pub n_det: usize,
    /// Samples per detector.
    pub n_samp: usize,
    /// Intervals.
    pub n_view: usize,
    /// HEALPix resolution.
    pub nside: i64,
    /// Timed runs per kernel.
    pub reps: usize,
    /// Loop designs to time.
    pub designs: Vec<Design>,
}

/// The usage line.
pub const USAGE: &str = "usage: rokkos-toast [--backend serial|rayon|wgpu|cuda] [--n-det 256] \
[--n-samp 360000] [--n-view 100] [--nside 1024] [--reps 5] [--design all|team|mdrange|flat] [--json]";

/// Parses the process arguments; `Err` with a message (or the usage) on anything wrong.
pub fn parse(mut it: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut a = Args {
        backend: String::new(),
        json: false,
        n_det: 256,
        n_samp: 360_000,
        n_view: 100,
        nside: 1024,
        reps: 5,
        designs: Design::ALL.to_vec(),
    };
    // The default backend is looked up only when `--backend` is absent: a broken
    // ROKKOS_BACKEND must not refuse an explicit `--backend` or `--help`.
    let mut backend = None;
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        fn num<T: std::str::FromStr>(name: &str, v: String) -> Result<T, String>
        where
            T::Err: std::fmt::Display,
        {
            v.parse().map_err(|e| format!("{name}: {e}"))
        }
        match flag.as_str() {
            "--backend" => backend = Some(value("--backend")?),
            "--json" => a.json = true,
            "--n-det" => a.n_det = num("--n-det", value("--n-det")?)?,
            "--n-samp" => a.n_samp = num("--n-samp", value("--n-samp")?)?,
            "--n-view" => a.n_view = num("--n-view", value("--n-view")?)?,
            "--nside" => a.nside = num("--nside", value("--nside")?)?,
            "--reps" => a.reps = num("--reps", value("--reps")?)?,
            "--design" => {
                let v = value("--design")?;
                a.designs = match v.as_str() {
                    "all" => Design::ALL.to_vec(),
                    _ => vec![Design::ALL
                        .into_iter()
                        .find(|d| d.name() == v)
                        .ok_or_else(|| format!("unknown design `{v}`"))?],
                }
            }
            "--help" | "-h" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    if rokkos_toast::reference::healpix::Healpix::new(a.nside).is_none() {
        return Err(format!(
            "--nside {} is not a power of two up to 2^29",
            a.nside
        ));
    }
    if a.n_view == 0 || a.reps == 0 {
        return Err("--n-view and --reps must be positive".into());
    }
    // An observation without samples has no intervals, and the pipeline's flag buffer no rows.
    if a.n_det == 0 || a.n_samp == 0 {
        return Err("--n-det and --n-samp must be positive".into());
    }
    // The kernels name detector rows with i32 (TOAST's index type).
    if i32::try_from(a.n_det).is_err() {
        return Err(format!(
            "--n-det {} is more than the {} detectors an i32 row index can name",
            a.n_det,
            i32::MAX
        ));
    }
    if host_bytes(a.n_det, a.n_samp, a.nside).is_none() {
        return Err(format!(
            "--n-det {} x --n-samp {}: the buffers would be larger than this machine can address",
            a.n_det, a.n_samp
        ));
    }
    a.backend = match backend {
        Some(b) => b,
        None => rokkos::selected_backend().map_err(|e| e.to_string())?,
    };
    Ok(a)
}

/// Host bytes per detector sample that every run holds at once, whatever the backend: the
/// problem's timestreams and flags (9) and the reference results (quaternions 32, weights 24,
/// pixels, I weights, and four timestream-shaped results, 8 each).
const HOST_BYTES_PER_SAMPLE: usize = 9 + 32 + 24 + 6 * 8;

/// Host bytes per submap of the sky: the global-to-local table (8) and the hit flags of the
/// problem and of the reference (1 each).
const HOST_BYTES_PER_SUBMAP: usize = 8 + 2;

/// A lower bound of the run's host memory for `n_det` detectors of `n_samp` samples at
/// resolution `nside` (a power of two up to 2^29), `None` when it overflows `isize` (no
/// allocation can be that large).
pub fn host_bytes(n_det: usize, n_samp: usize, nside: i64) -> Option<usize> {
    // Submaps of 12·16² pixels, as Problem::satellite cuts the sky (one submap up to nside 16).
    let n_submap = (12 * (nside as u128).pow(2) / (12 * 16 * 16)).max(1);
    let per_submap = n_submap.checked_mul(HOST_BYTES_PER_SUBMAP as u128)?;
    let per_sample = (n_det as u128)
        .checked_mul(n_samp as u128)?
        .checked_mul(HOST_BYTES_PER_SAMPLE as u128)?;
    usize::try_from(per_sample.checked_add(per_submap)?)
        .ok()
        .filter(|&b| b <= isize::MAX as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_line(line: &str) -> Result<Args, String> {
        parse(line.split_whitespace().map(String::from))
    }

    #[test]
    fn bad_command_lines_name_the_flag() {
        for (line, names) in [
            ("--n-det 4294967298", "--n-det 4294967298 is more than"),
            ("--n-det 4611686018427387904 --n-samp 4", "--n-det"),
            (
                "--n-det 2000000000 --n-samp 100000000000",
                "larger than this machine",
            ),
            ("--n-samp 0", "--n-samp must be positive"),
            ("--n-det 0", "--n-det and --n-samp must be positive"),
            ("--n-det abc", "--n-det: invalid digit"),
            ("--n-det", "--n-det needs a value"),
            ("--nside 3", "--nside 3"),
            ("--design nope", "unknown design `nope`"),
            ("--frob", "unknown argument `--frob`"),
            ("--reps 0", "--reps"),
        ] {
            match parse_line(&format!("--backend serial {line}")) {
                Err(e) => assert!(e.contains(names), "`{line}`: {e}"),
                Ok(_) => panic!("`{line}` accepted"),
            }
        }
    }

    #[test]
    fn help_and_explicit_backend_need_no_default_backend() {
        // Whatever ROKKOS_BACKEND says, neither looks it up.
        assert_eq!(parse_line("--help").err().as_deref(), Some(USAGE));
        let a = parse_line("--backend serial --n-det 4 --n-samp 100 --design flat").unwrap();
        assert_eq!((a.backend.as_str(), a.n_det, a.n_samp), ("serial", 4, 100));
        assert_eq!(a.designs.len(), 1);
    }

    #[test]
    fn host_bytes_overflow_is_none() {
        let sky = 4 * HOST_BYTES_PER_SUBMAP; // nside 32: 12·32² / (12·16²) submaps
        assert_eq!(host_bytes(2, 3, 32), Some(6 * HOST_BYTES_PER_SAMPLE + sky));
        assert_eq!(
            host_bytes(2, 3, 1),
            Some(6 * HOST_BYTES_PER_SAMPLE + HOST_BYTES_PER_SUBMAP)
        );
        assert_eq!(host_bytes(usize::MAX, 2, 32), None);
        assert_eq!(host_bytes(1 << 31, 1 << 31, 32), None);
    }
}
