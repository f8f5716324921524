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
        backend: rokkos::selected_backend().map_err(|e| e.to_string())?,
        json: false,
        n_det: 256,
        n_samp: 360_000,
        n_view: 100,
        nside: 1024,
        reps: 5,
        designs: Design::ALL.to_vec(),
    };
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        fn num<T: std::str::FromStr>(name: &str, v: String) -> Result<T, String>
        where
            T::Err: std::fmt::Display,
        {
            v.parse().map_err(|e| format!("{name}: {e}"))
        }
        match flag.as_str() {
            "--backend" => a.backend = value("--backend")?,
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
    Ok(a)
}
