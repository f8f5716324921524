//! Sorting on the default backend (`rokkos::Device`: `--backend NAME` or `ROKKOS_BACKEND`, else
//! the best one compiled in): particles' cell indices sorted with their positions, binned by
//! `x` with `BinSort` and their rows reordered. Then a table: rokkos' `sort` of random `u32` and
//! `f64` and `sort_by_key` of (`u32` key, `f64` value) pairs, on `Serial`, on
//! `Rayon::with_threads(2)` and on the `Device`, next to std's `slice::sort` /
//! `sort_unstable` on one thread and rayon's `par_sort` / `par_sort_unstable` on a pool of two
//! threads, on the same data: the best of 5 runs of each, and each time's ratio to the stable
//! sort of its kind (`slice::sort` for one thread, `par_sort` for two).
//!
//! `cargo run --release -p rokkos-algorithms --example sort -- [--backend NAME] [--n N[,N...]] [--json]`
//!
//! `--n` takes the sizes to time (default `1000000,10000000`); the particle demo uses the
//! smallest.

use rayon::prelude::*;
use rokkos::prelude::*;
use rokkos::random;
use rokkos_algorithms::{sort, sort_by_key, BinOp1D, BinSort, Permute, SortKey};
use std::time::{Duration, Instant};

#[kernel]
fn init(i: usize, cell: ViewMut<u32>, x: ViewMut<f64>, xyz: ViewMut<f64, 2>, seed: u64) {
    let u = random::uniform_f64(seed, i as u64, 0);
    cell[i] = (u * 64.0) as u32;
    x[i] = u;
    xyz[(i, 0)] = u;
    xyz[(i, 1)] = random::uniform_f64(seed, i as u64, 1);
}

struct Args {
    backend: Option<String>,
    sizes: Vec<usize>,
    json: bool,
}

fn args() -> rokkos::Result<Args> {
    let mut a = Args {
        backend: None,
        sizes: vec![1_000_000, 10_000_000],
        json: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .ok_or_else(|| Error::InvalidArgument(format!("{name} needs a value")))
        };
        match arg.as_str() {
            "--backend" => a.backend = Some(value("--backend")?),
            "--n" => {
                let v = value("--n")?;
                a.sizes = v
                    .split(',')
                    .map(|s| {
                        s.trim()
                            .parse()
                            .map_err(|e| Error::InvalidArgument(format!("--n `{s}`: {e}")))
                    })
                    .collect::<rokkos::Result<_>>()?;
                if a.sizes.is_empty() || a.sizes.contains(&0) {
                    return Err(Error::InvalidArgument(format!(
                        "--n `{v}`: sizes must be positive"
                    )));
                }
            }
            "--json" => a.json = true,
            other => {
                return Err(Error::InvalidArgument(format!(
                    "unknown argument `{other}` (--backend NAME, --n N[,N...], --json)"
                )))
            }
        }
    }
    Ok(a)
}

const ROUNDS: usize = 5;

/// Best and median of `ROUNDS` runs of `refill` (untimed) then `run` (timed, fenced).
fn time<E: ExecutionSpace>(
    space: &E,
    mut refill: impl FnMut() -> rokkos::Result<()>,
    mut run: impl FnMut() -> rokkos::Result<()>,
) -> rokkos::Result<(Duration, Duration)> {
    let mut t = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        refill()?;
        space.fence()?;
        let start = Instant::now();
        run()?;
        space.fence()?;
        t.push(start.elapsed());
    }
    t.sort();
    Ok((t[0], t[ROUNDS / 2]))
}

/// Best and median of `ROUNDS` runs of `sort_fn` on a fresh copy of `data`; checks the result
/// against `want`.
fn time_slice<T: Copy + PartialEq + std::fmt::Debug>(
    data: &[T],
    want: &[T],
    sort_fn: impl Fn(&mut [T]),
) -> (Duration, Duration) {
    let mut t = Vec::with_capacity(ROUNDS);
    let mut v = data.to_vec();
    for _ in 0..ROUNDS {
        v.copy_from_slice(data);
        let start = Instant::now();
        sort_fn(&mut v);
        t.push(start.elapsed());
    }
    assert!(v == want, "the baseline's result differs");
    t.sort();
    (t[0], t[ROUNDS / 2])
}

/// A splitmix64 stream: the benchmark's data, the same on every run.
fn splitmix(seed: u64, n: usize) -> Vec<u64> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
        .collect()
}

/// One measured sort: its name, the execution space or thread count, and its best and median.
struct Row {
    what: String,
    on: String,
    t: (Duration, Duration),
    /// The stable sort this one is compared with (index into the table).
    base: Option<usize>,
}

fn print_table(a: &Args, dtype: &str, n: usize, rows: &[Row]) {
    for r in rows {
        let (best, median) = r.t;
        let ratio = r
            .base
            .map(|b| best.as_secs_f64() / rows[b].t.0.as_secs_f64());
        let rate = n as f64 / best.as_secs_f64() / 1e6;
        if a.json {
            println!(
                "{{\"bench\":\"sort\",\"kernel\":\"{}\",\"backend\":\"{}\",\"dtype\":\"{dtype}\",\
                 \"n\":{n},\"best_s\":{:e},\"median_s\":{:e},\"metric\":\"Melem/s\",\
                 \"value\":{rate:.3},\"ratio_to_stable_std\":{}}}",
                r.what,
                r.on,
                best.as_secs_f64(),
                median.as_secs_f64(),
                ratio.map_or("null".to_string(), |x| format!("{x:.3}"))
            );
        } else {
            println!(
                "{dtype:>9} n={n:<9} {:<28} {:<22} best {:9.3} ms  median {:9.3} ms  {rate:8.1} Melem/s  {}",
                r.what,
                r.on,
                best.as_secs_f64() * 1e3,
                median.as_secs_f64() * 1e3,
                ratio.map_or(String::new(), |x| format!("x{x:.2} of {}", rows[r.base.unwrap_or(0)].what))
            );
        }
    }
}

/// rokkos' `sort` of `data` on `space`, checked against `want`.
fn time_rokkos_sort<E: ExecutionSpace, K: SortKey + PartialEq + std::fmt::Debug>(
    space: &E,
    data: &[K],
    want: &[K],
) -> rokkos::Result<(Duration, Duration)> {
    let h = View::<K>::from_vec("data", [data.len()], data.to_vec())?;
    // A View of its own (a mirror of a host View on a host space would be `h` itself).
    let v = View::<K, 1, LayoutRight, E::Memory>::new_in(&space.memory_space(), "v", [data.len()])?;
    let t = time(space, || deep_copy(&v, &h), || sort(space, &v))?;
    assert!(
        create_mirror_view_and_copy(&v)?.to_vec() == want,
        "rokkos' result differs"
    );
    Ok(t)
}

/// rokkos' `sort_by_key` of the pairs `data` on `space`, checked against `want`.
fn time_rokkos_by_key<E: ExecutionSpace, K: SortKey + PartialEq, V: Permute + PartialEq>(
    space: &E,
    data: &[(K, V)],
    want: &[(K, V)],
) -> rokkos::Result<(Duration, Duration)> {
    let n = data.len();
    let hk = View::<K>::from_vec("keys", [n], data.iter().map(|p| p.0).collect())?;
    let hv = View::<V>::from_vec("values", [n], data.iter().map(|p| p.1).collect())?;
    let k = View::<K, 1, LayoutRight, E::Memory>::new_in(&space.memory_space(), "k", [n])?;
    let v = View::<V, 1, LayoutRight, E::Memory>::new_in(&space.memory_space(), "v", [n])?;
    let refill = || {
        deep_copy(&k, &hk)?;
        deep_copy(&v, &hv)
    };
    let t = time(space, refill, || sort_by_key(space, &k, &v))?;
    let gk = create_mirror_view_and_copy(&k)?.to_vec();
    let gv = create_mirror_view_and_copy(&v)?.to_vec();
    assert!(
        gk.iter()
            .zip(&gv)
            .zip(want)
            .all(|((&k, &v), w)| (k, v) == *w),
        "rokkos' result differs"
    );
    Ok(t)
}

fn rokkos_rows<K: SortKey + PartialEq + std::fmt::Debug>(
    spaces: &Spaces,
    data: &[K],
    want: &[K],
    rows: &mut Vec<Row>,
) -> rokkos::Result<()> {
    let row = |on: &str, t, base| Row {
        what: "rokkos sort".into(),
        on: on.into(),
        t,
        base,
    };
    rows.push(row(
        "Serial",
        time_rokkos_sort(&Serial, data, want)?,
        Some(0),
    ));
    rows.push(row(
        "Rayon::with_threads(2)",
        time_rokkos_sort(&spaces.rayon, data, want)?,
        Some(2),
    ));
    let on = format!("Device ({})", spaces.dev.name());
    rows.push(row(&on, time_rokkos_sort(&spaces.dev, data, want)?, None));
    Ok(())
}

fn rokkos_pair_rows<K: SortKey + PartialEq, V: Permute + PartialEq>(
    spaces: &Spaces,
    data: &[(K, V)],
    want: &[(K, V)],
    rows: &mut Vec<Row>,
) -> rokkos::Result<()> {
    let row = |on: &str, t, base| Row {
        what: "rokkos sort_by_key".into(),
        on: on.into(),
        t,
        base,
    };
    rows.push(row(
        "Serial",
        time_rokkos_by_key(&Serial, data, want)?,
        Some(0),
    ));
    rows.push(row(
        "Rayon::with_threads(2)",
        time_rokkos_by_key(&spaces.rayon, data, want)?,
        Some(2),
    ));
    let on = format!("Device ({})", spaces.dev.name());
    rows.push(row(&on, time_rokkos_by_key(&spaces.dev, data, want)?, None));
    Ok(())
}

struct Spaces {
    dev: Device,
    rayon: Rayon,
    pool: rayon::ThreadPool,
}

/// std's and rayon's sorts of `data` (rows 0 to 3: `slice::sort`, `sort_unstable`, `par_sort`,
/// `par_sort_unstable`), stable ones by `cmp`, checked against the first.
fn std_rows<T: Copy + Send + Sync + PartialEq + std::fmt::Debug>(
    spaces: &Spaces,
    data: &[T],
    cmp: impl Fn(&T, &T) -> std::cmp::Ordering + Sync,
    unstable_ok: impl Fn(&[T], &[T]) -> bool,
    rows: &mut Vec<Row>,
) -> Vec<T> {
    let mut want = data.to_vec();
    want.sort_by(&cmp);
    let row = |what: &str, on: &str, t, base| Row {
        what: what.into(),
        on: on.into(),
        t,
        base,
    };
    rows.push(row(
        "slice::sort",
        "1 thread",
        time_slice(data, &want, |v| v.sort_by(&cmp)),
        None,
    ));
    let unstable = |f: &dyn Fn(&mut [T])| {
        let mut t = Vec::with_capacity(ROUNDS);
        let mut v = data.to_vec();
        for _ in 0..ROUNDS {
            v.copy_from_slice(data);
            let start = Instant::now();
            f(&mut v);
            t.push(start.elapsed());
        }
        assert!(
            unstable_ok(&v, &want),
            "an unstable baseline's result differs"
        );
        t.sort();
        (t[0], t[ROUNDS / 2])
    };
    let t = unstable(&|v| v.sort_unstable_by(&cmp));
    rows.push(row("slice::sort_unstable", "1 thread", t, Some(0)));
    let pool = &spaces.pool;
    let t = time_slice(data, &want, |v| pool.install(|| v.par_sort_by(&cmp)));
    rows.push(row("rayon par_sort", "pool of 2 threads", t, None));
    let t = unstable(&|v| pool.install(|| v.par_sort_unstable_by(&cmp)));
    rows.push(row(
        "rayon par_sort_unstable",
        "pool of 2 threads",
        t,
        Some(2),
    ));
    want
}

fn main() -> rokkos::Result<()> {
    let a = args()?;
    let dev = match &a.backend {
        Some(b) => Device::with_backend(b)?,
        None => Device::new()?,
    };
    let n = *a.sizes.iter().min().unwrap_or(&1);
    let cell = DeviceView::<u32>::new_on(&dev, "cell", [n])?;
    let x = DeviceView::<f64>::new_on(&dev, "x", [n])?;
    let xyz = DeviceView::<f64, 2>::new_on(&dev, "xyz", [n, 2])?;
    parallel_for(
        "init",
        RangePolicy::new(&dev, 0..n),
        init(&cell, &x, &xyz, 7),
    )?;

    // Cell indices ascending, each particle's x moved with its cell (stable).
    sort_by_key(&dev, &cell, &x)?;
    let hc = create_mirror_view_and_copy(&cell)?.to_vec();
    let hx = create_mirror_view_and_copy(&x)?.to_vec();
    assert!(hc.windows(2).all(|w| w[0] <= w[1]), "cells sorted");
    assert!(
        hc.iter().zip(&hx).all(|(&c, &x)| (x * 64.0) as u32 == c),
        "x moved with its cell"
    );

    // Ten bins in x (the rows' first column, a strided View), sorted within the bins; the rows
    // (x, y) reordered by that permutation.
    let xs = xyz.subview::<1>((.., 0))?;
    let mut bins = BinSort::new(&dev, &xs, BinOp1D::new(10, 0.0, 1.0)?, true)?;
    bins.create_permute_vector()?;
    bins.sort_rows(&xyz)?;
    let counts = create_mirror_view_and_copy(bins.get_bin_count()?)?.to_vec();
    let rows = create_mirror_view_and_copy(&xyz)?.to_vec();
    assert!(rows
        .chunks(2)
        .zip(rows.chunks(2).skip(1))
        .all(|(p, q)| p[0] <= q[0]));
    assert_eq!(counts.iter().map(|&c| c as usize).sum::<usize>(), n);
    if !a.json {
        println!("{n} particles on {}: per x bin {counts:?}", dev.name());
    }

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .map_err(|e| Error::InvalidArgument(format!("a rayon pool of 2 threads: {e}")))?;
    let spaces = Spaces {
        dev,
        rayon: Rayon::with_threads(2)?,
        pool,
    };
    for &n in &a.sizes {
        let raw = splitmix(1, n);
        let u: Vec<u32> = raw.iter().map(|&r| r as u32).collect();
        let mut rows = Vec::new();
        let want = std_rows(&spaces, &u, u32::cmp, |a, b| a == b, &mut rows);
        rokkos_rows(&spaces, &u, &want, &mut rows)?;
        print_table(&a, "u32", n, &rows);

        // Finite doubles of every sign and magnitude; `total_cmp` is their order.
        let f: Vec<f64> = splitmix(2, n)
            .iter()
            .map(|&r| ((r >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 2e6)
            .collect();
        let mut rows = Vec::new();
        let want = std_rows(&spaces, &f, f64::total_cmp, |a, b| a == b, &mut rows);
        rokkos_rows(&spaces, &f, &want, &mut rows)?;
        print_table(&a, "f64", n, &rows);

        // Keys with ties (a tenth of n distinct values), so that stability shows.
        let pairs: Vec<(u32, f64)> = u
            .iter()
            .zip(&f)
            .map(|(&k, &v)| (k % (n as u32 / 10).max(1), v))
            .collect();
        let mut rows = Vec::new();
        let keys_equal =
            |a: &[(u32, f64)], b: &[(u32, f64)]| a.iter().zip(b).all(|(x, y)| x.0 == y.0);
        let want = std_rows(&spaces, &pairs, |x, y| x.0.cmp(&y.0), keys_equal, &mut rows);
        rokkos_pair_rows(&spaces, &pairs, &want, &mut rows)?;
        print_table(&a, "u32+f64", n, &rows);
    }
    Ok(())
}
