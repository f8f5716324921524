//! The multi-rank tests. Run by `cargo test`, this program is the launcher: it starts itself
//! under `mpirun -n 1`, `-n 2` and `-n 4` (oversubscribed, loopback only, with a hard timeout
//! so that a deadlock fails instead of hanging) and fails when any rank fails. Under `mpirun`
//! it is one rank: it runs every check on every backend compiled in, each against expectations
//! computed here in closed form from the rank numbers.

use rokkos::ir::eval::IrEval;
use rokkos::{
    deep_copy, kernel, parallel_for, parallel_reduce, BAnd, BOr, Error, ExecutionSpace, LAnd, LOr,
    LayoutLeft, LayoutStride, MDRangePolicy, Max, MaxLoc, Min, MinLoc, MinMax, MinMaxVal, Prod,
    RangePolicy, ReducerExt, Serial, Sum, ValLoc, View,
};
use rokkos_mpi::{global_loc, pairwise_sum, CartComm, Communicator, Element, Mpi};
use rokkos_testing::{dev, dev_from_vec, to_host, DevView};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

type R<T = ()> = rokkos::Result<T>;

fn main() -> ExitCode {
    if std::env::var_os("OMPI_COMM_WORLD_SIZE").is_some() || std::env::var_os("PMI_SIZE").is_some()
    {
        return rank_main();
    }
    launcher()
}

// ---------------------------------------------------------------------------------------------
// The launcher.

/// Seconds one `mpirun` may take before it is killed (mpirun's own `--timeout` first, then ours).
const TIMEOUT_S: u64 = 90;

/// Runs `exe args` under `mpirun -n n` with the time limit; `None` when it timed out (killed).
fn mpirun(
    n: usize,
    exe: &std::path::Path,
    args: &[&str],
) -> Option<(std::process::ExitStatus, String)> {
    let mut child = match Command::new(std::env::var("MPIRUN").unwrap_or("mpirun".into()))
        .args([
            "-n",
            &n.to_string(),
            "--oversubscribe",
            "--timeout",
            &TIMEOUT_S.to_string(),
        ])
        // Loopback only: shared memory and TCP over `lo`.
        .args([
            "--mca",
            "btl",
            "self,vader,tcp",
            "--mca",
            "btl_tcp_if_include",
            "lo",
        ])
        .args(["--mca", "oob_tcp_if_include", "lo"])
        .arg(exe)
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => panic!("mpi ranks: cannot start mpirun ({e}); install Open MPI (openmpi-bin)"),
    };
    // Read stdout on a thread so that a chatty child cannot block on a full pipe.
    let mut out = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut out, &mut s);
        s
    });
    let deadline = Instant::now() + Duration::from_secs(TIMEOUT_S + 30);
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => panic!("waiting for mpirun: {e}"),
        }
    };
    let text = reader.join().unwrap_or_default();
    print!("{text}");
    status.map(|s| (s, text))
}

fn launcher() -> ExitCode {
    let exe = std::env::current_exe().expect("the test program's path");
    let mut failed = Vec::new();
    for n in [1, 2, 4] {
        let t0 = Instant::now();
        let status = mpirun(n, &exe, &[]);
        let secs = t0.elapsed().as_secs_f64();
        match status {
            Some((s, _)) if s.success() => println!("mpirun -n {n}: ok ({secs:.1} s)"),
            Some((s, _)) => {
                println!("mpirun -n {n}: FAILED ({s}, {secs:.1} s)");
                failed.push(format!("{n} ranks"));
            }
            None => {
                println!("mpirun -n {n}: TIMED OUT after {secs:.1} s (killed)");
                failed.push(format!("{n} ranks (timeout)"));
            }
        }
    }
    examples(&exe, &mut failed);
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        println!("mpi ranks: failed: {failed:?}");
        ExitCode::FAILURE
    }
}

/// The value of `"key":` in a one-line JSON object, unquoted.
fn field(json: &str, key: &str) -> Option<String> {
    let rest = json.split(&format!("\"{key}\":")).nth(1)?;
    let v = rest.split([',', '}']).next()?;
    Some(v.trim_matches('"').to_string())
}

/// The examples (built by a plain `cargo test`, next to this program) on 1, 2 and 4 ranks
/// against their 1-rank runs: the heat equation's checksum bit for bit; CG's iteration count
/// within one, and bit for bit (iterations and checksum) with `--deterministic`.
fn examples(exe: &std::path::Path, failed: &mut Vec<String>) {
    let dir = exe
        .parent()
        .and_then(|d| d.parent())
        .map(|d| d.join("examples"));
    let find = |name: &str| dir.as_ref().map(|d| d.join(name)).filter(|p| p.exists());
    let (Some(heat), Some(cg)) = (find("mpi_heat"), find("mpi_cg")) else {
        println!("examples: not built (`cargo test --test ranks` builds no examples); skipped");
        return;
    };
    let runs = |prog: &std::path::Path, args: &[&str], failed: &mut Vec<String>| -> Vec<String> {
        let mut outs = Vec::new();
        for n in [1, 2, 4] {
            match mpirun(n, prog, args) {
                Some((s, out)) if s.success() => outs.push(out),
                _ => failed.push(format!("{} {args:?} on {n} ranks", prog.display())),
            }
        }
        outs
    };
    let same = |outs: &[String], keys: &[&str]| -> bool {
        outs.len() == 3
            && keys.iter().all(|k| {
                let v: Vec<_> = outs.iter().map(|o| field(o, k)).collect();
                v[0].is_some() && v.iter().all(|x| *x == v[0])
            })
    };
    let small = ["--backend", "serial", "--n", "32", "--json"];
    let heat_out = runs(&heat, &[&small[..], &["--steps", "20"]].concat(), failed);
    if !same(&heat_out, &["checksum_bits"]) {
        failed.push("heat: checksums differ between rank counts".into());
    }
    // The split-phase exchange with the interior update in flight: the same bits.
    let overlap = runs(
        &heat,
        &[&small[..], &["--steps", "20", "--overlap"]].concat(),
        failed,
    );
    let both: Vec<String> = heat_out.iter().take(1).chain(&overlap).cloned().collect();
    if overlap.len() != 3
        || !same(&overlap, &["checksum_bits"])
        || !same(&both[..3], &["checksum_bits"])
    {
        failed.push("heat --overlap: checksums differ from the blocking exchange's".into());
    }
    let det = runs(&cg, &[&small[..], &["--deterministic"]].concat(), failed);
    if !same(&det, &["iterations", "checksum_bits"]) {
        failed.push("cg --deterministic: iterations or bits differ between rank counts".into());
    }
    let plain = runs(&cg, &small, failed);
    let iters: Vec<Option<i64>> = plain
        .iter()
        .map(|o| field(o, "iterations").and_then(|v| v.parse().ok()))
        .collect();
    let ok = iters.len() == 3
        && iters
            .iter()
            .all(|x| matches!((x, iters[0]), (Some(a), Some(b)) if (a - b).abs() <= 1))
        && plain.iter().all(|o| {
            field(o, "residual")
                .and_then(|v| v.parse::<f64>().ok())
                .is_some_and(|r| r < 1e-10)
        });
    if !ok {
        failed.push(format!(
            "cg: iteration counts {iters:?} differ by more than one, or no convergence"
        ));
    } else {
        println!("examples: heat (blocking and --overlap) bit for bit, cg iterations {iters:?}, cg --deterministic bit for bit on 1, 2, 4 ranks");
    }
}

// ---------------------------------------------------------------------------------------------
// One rank.

fn rank_main() -> ExitCode {
    let mpi = Mpi::init().expect("MPI initialises");
    let world = mpi.world().expect("MPI_COMM_WORLD");
    let me = world.rank();
    let mut checks = 0usize;
    let mut ran = Vec::new();
    let mut run = |backend: &'static str, r: R<usize>| match r {
        Ok(k) => {
            checks += k;
            ran.push(backend);
        }
        Err(e) => {
            eprintln!("rank {me}, backend {backend}: {e}");
            // Abort the whole job: the other ranks may be waiting for this one.
            std::process::exit(1);
        }
    };
    run("serial", all(Serial, &world));
    run(
        "rayon",
        all(rokkos::Rayon::with_threads(2).expect("rayon pool"), &world),
    );
    // Memory that is not host accessible: every call goes through the host mirror.
    run("ir_eval", all(IrEval, &world));
    run("device", all(rokkos_testing::host_device(), &world));
    run("host-only", host_only(&world));
    #[cfg(feature = "wgpu")]
    if let Some(s) = rokkos_testing::wgpu_space() {
        run("wgpu", all(s, &world));
    }
    #[cfg(feature = "cuda")]
    if let Some(s) = rokkos_testing::cuda_space() {
        run("cuda", all(s, &world));
    }
    // Every check again on a communicator that splits messages at 3 elements, as it does above
    // `i32::MAX`: derived datatypes of blocks and a remainder, reductions in several calls.
    let small = world.with_count_limit(3).expect("count limit");
    run("serial, count limit 3", all(Serial, &small));
    run(
        "rayon, count limit 3",
        all(rokkos::Rayon::with_threads(2).expect("rayon pool"), &small),
    );
    run("count limit", count_limit(&world));
    run("unchecked", unchecked(&world));
    world.barrier().expect("barrier");
    println!(
        "rank {me} of {}: {checks} checks passed on {ran:?}",
        world.size()
    );
    ExitCode::SUCCESS
}

/// Collectives with the argument agreement off (every rank passes matching arguments, as
/// `disable_checks` requires) give the same results, and the agreement comes back on.
fn unchecked(world: &Communicator) -> R<usize> {
    let mut w = world.dup()?;
    // SAFETY: every rank makes the same calls below, with the same types, counts and root.
    unsafe { w.disable_checks() };
    let (me, p) = (w.rank(), w.size());
    let x = View::<u64, 1>::from_fn("x", [4], |[i]| (me * 10 + i) as u64)?;
    let y = View::<u64, 1>::new("y", [4])?;
    w.allreduce(&x, &y, Sum)?;
    let want: Vec<u64> = (0..4)
        .map(|i| (0..p).map(|r| (r * 10 + i) as u64).sum())
        .collect();
    let mut k = expect("allreduce without checks", to_host(&y), want)?;
    let b = View::<u64, 1>::from_fn("b", [3], |[i]| if me == 0 { 5 + i as u64 } else { 0 })?;
    w.broadcast(&b, 0)?;
    k += expect("broadcast without checks", to_host(&b), vec![5, 6, 7])?;
    w.enable_checks();
    k += expect("checks back on", w.checks_enabled(), true)?;
    Ok(k)
}

/// `with_count_limit`: inherited by `dup`, `split` and Cartesian communicators, refused out of
/// range, and a strided 1-D subview longer than the limit (a nested block datatype with a
/// remainder) sent and gathered whole.
fn count_limit(world: &Communicator) -> R<usize> {
    let (me, p) = (world.rank(), world.size());
    let mut k = expect("default limit", world.count_limit(), i32::MAX as usize)?;
    let small = world.with_count_limit(2)?;
    k += expect("dup keeps the limit", small.dup()?.count_limit(), 2)?;
    let half = small.split(Some(0), 0)?.expect("every rank has color 0");
    k += expect("split keeps the limit", half.count_limit(), 2)?;
    let cart = small.cartesian(&[0], &[true])?;
    k += expect("a Cartesian communicator keeps it", cart.count_limit(), 2)?;
    for bad in [0, i32::MAX as usize + 1] {
        let refused = matches!(world.with_count_limit(bad), Err(Error::InvalidArgument(_)));
        k += expect(&format!("limit {bad} refused"), refused, true)?;
    }
    // A column of a rank-2 View (stride 3): 12 elements are 6 blocks of 2 in 3 blocks of 2
    // blocks; 11 elements leave a remainder at both levels.
    for m in [12, 11] {
        let base =
            View::<f64, 2>::from_fn("base", [m, 3], |[i, j]| (1000 * me + 3 * i + j) as f64)?;
        let every3: View<f64, 1, LayoutStride> = base.subview((0..m, 0))?;
        let back = View::<f64, 1>::new("back", [m])?;
        small.exchange(&every3, (me + 1) % p, &back, (me + p - 1) % p, 3)?;
        let from = (me + p - 1) % p;
        let want: Vec<f64> = (0..m).map(|j| (1000 * from + 3 * j) as f64).collect();
        k += expect(&format!("strided exchange of {m}"), back.to_vec(), want)?;
        let all = View::<f64, 2>::new("all", [p, m])?;
        small.allgather(&every3, &all)?;
        let want: Vec<f64> = (0..p)
            .flat_map(|r| (0..m).map(move |j| (1000 * r + 3 * j) as f64))
            .collect();
        k += expect(&format!("strided allgather of {m}"), all.to_vec(), want)?;
    }
    Ok(k)
}

/// Fails with a message naming what differs.
fn expect<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> R<usize> {
    if got != want {
        return Err(Error::InvalidArgument(format!(
            "check `{what}` failed: got {got:?}, want {want:?}"
        )));
    }
    Ok(1)
}

/// Small values every element type holds exactly.
trait Num: Element + PartialEq + std::fmt::Debug {
    fn of(x: usize) -> Self;
}
macro_rules! num {
    ($($t:ty),*) => {$(impl Num for $t { fn of(x: usize) -> Self { (x % 251) as $t } })*};
}
num!(u8, u16, i8, i16, i32, u32, i64, u64, isize, usize, f32, f64);

/// The value element `(i, j)` of rank `r`'s buffer holds.
fn val(r: usize, i: usize, j: usize) -> usize {
    r * 61 + i * 7 + j
}

fn all<E: ExecutionSpace>(space: E, w: &Communicator) -> R<usize> {
    let mut k = 0;
    macro_rules! each_type {
        ($($t:ty),*) => {$(k += ring::<E, $t>(&space, w)?;)*};
    }
    each_type!(u8, u16, i8, i16, i32, u32, i64, u64, isize, usize, f32, f64);
    k += nonblocking(&space, w)?;
    k += collectives(&space, w)?;
    k += reductions(&space, w)?;
    k += errors(&space, w)?;
    k += halo::<E, 2>(&space, w, [8, 6], [true, false])?;
    k += halo::<E, 3>(&space, w, [4, 4, 6], [false, true, true])?;
    k += heat(&space, w)?;
    k += shapes(&space, w)?;
    Ok(k)
}

/// A ring of blocking sends and exchanges of rank-2 Views, between layouts.
fn ring<E: ExecutionSpace, T: Num>(space: &E, w: &Communicator) -> R<usize> {
    let (me, p) = (w.rank(), w.size());
    let (next, prev) = ((me + 1) % p, (me + p - 1) % p);
    let data = |r: usize| -> Vec<T> {
        (0..3)
            .flat_map(|i| (0..5).map(move |j| T::of(val(r, i, j))))
            .collect()
    };
    let send: DevView<E, T, 2> = dev_from_vec(space, "send", [3, 5], data(me))?;
    let recv: DevView<E, T, 2, LayoutLeft> = dev(space, "recv_left", [3, 5])?;
    w.exchange(&send, next, &recv, prev, 3)?;
    let mut k = expect("exchange into LayoutLeft", to_host(&recv), data(prev))?;
    // Blocking send / recv: even ranks send first (a ring of blocking calls must alternate).
    let back: DevView<E, T, 2> = dev(space, "back", [3, 5])?;
    if p == 1 {
        w.exchange(&recv, me, &back, me, 4)?;
    } else if me % 2 == 0 {
        w.send(&recv, prev, 4)?;
        w.recv(&back, next, 4)?;
    } else {
        w.recv(&back, next, 4)?;
        w.send(&recv, prev, 4)?;
    }
    // `back` on rank r is what rank next received: rank r's own data (odd ring sizes other than
    // 1 never occur here: 1, 2 and 4 ranks).
    k += expect("send/recv back", to_host(&back), data(me))?;
    Ok(k)
}

/// Non-blocking calls, strided subviews, and the borrow a request holds.
fn nonblocking<E: ExecutionSpace>(space: &E, w: &Communicator) -> R<usize> {
    let (me, p) = (w.rank(), w.size());
    let (next, prev) = ((me + 1) % p, (me + p - 1) % p);
    let grid = |r: usize| -> Vec<f64> {
        (0..4 * 6 * 2)
            .map(|x| val(r, x / 12, x % 12) as f64)
            .collect()
    };
    let a: DevView<E, f64, 3> = dev_from_vec(space, "a", [4, 6, 2], grid(me))?;
    // A strided interior block and a column of another View.
    let block: View<f64, 2, LayoutStride, E::Memory> = a.subview((1..3, 2..5, 1))?;
    let mut dst: DevView<E, f64, 2> = dev(space, "dst", [2, 3])?;
    let r = w.irecv(&mut dst, prev, 9)?;
    let s = w.isend(&block, next, 9)?;
    s.wait()?;
    r.wait()?;
    let want: Vec<f64> = (1..3)
        .flat_map(|i| (2..5).map(move |j| val(prev, i, 2 * j + 1) as f64))
        .collect();
    let mut k = expect("isend of a strided subview", to_host(&dst), want.clone())?;

    // Into a strided subview, polling with test(); a clone cannot be read meanwhile.
    let mut c: DevView<E, f64, 2> = dev(space, "c", [3, 4])?;
    let mut col: View<f64, 2, LayoutStride, E::Memory> = c.subview((0..2, 1..4))?;
    let peek = c.clone();
    let mut req = w.irecv(&mut col, prev, 10)?;
    let probe: DevView<E, f64, 2> = dev(space, "probe", [3, 4])?;
    let blocked = rokkos::deep_copy(&probe, &peek).is_err();
    let s = w.isend(&dst, next, 10)?;
    while !req.test()? {}
    drop(s);
    drop(req);
    if <E::Memory as rokkos::MemorySpace>::NAME == "HostSpace" {
        k += expect(
            "a clone is refused while the receive is pending",
            blocked,
            true,
        )?;
    }
    let got = to_host(&c);
    let prev2 = (prev + p - 1) % p;
    let mut want2 = vec![0.0; 12];
    for i in 0..2 {
        for j in 1..4 {
            want2[i * 4 + j] = val(prev2, 1 + i, 2 * (2 + j - 1) + 1) as f64;
        }
    }
    k += expect("irecv into a strided subview", got, want2)?;
    let _ = &mut c;

    // Dropping requests waits for them.
    let mut e: DevView<E, i32, 1> = dev(space, "e", [5])?;
    let f: DevView<E, i32, 1> = dev_from_vec(
        space,
        "f",
        [5],
        (0..5).map(|i| (10 * me + i) as i32).collect(),
    )?;
    {
        let _r = w.irecv(&mut e, prev, 11)?;
        let _s = w.isend(&f, next, 11)?;
    }
    k += expect(
        "dropped requests completed",
        to_host(&e),
        (0..5).map(|i| (10 * prev + i) as i32).collect::<Vec<_>>(),
    )?;
    Ok(k)
}

fn collectives<E: ExecutionSpace>(space: &E, w: &Communicator) -> R<usize> {
    let (me, p) = (w.rank(), w.size());
    let mut k = 0;
    // Broadcast from the last rank, into a LayoutLeft View.
    let root = p - 1;
    let b: DevView<E, u32, 2, LayoutLeft> = if me == root {
        let h = View::<u32, 2, LayoutLeft>::from_fn("b", [2, 3], |[i, j]| (7 * i + j) as u32)?;
        rokkos::create_mirror_view_and_copy_in(space, &h)?
    } else {
        dev(space, "b", [2, 3])?
    };
    w.broadcast(&b, root)?;
    k += expect("broadcast", to_host(&b), vec![0, 1, 2, 7, 8, 9])?;

    // Gather / allgather into LayoutRight and LayoutLeft (packed) Views.
    let mine: DevView<E, i64, 1> = dev_from_vec(
        space,
        "mine",
        [3],
        (0..3).map(|i| (100 * me + i) as i64).collect(),
    )?;
    let want: Vec<i64> = (0..p)
        .flat_map(|r| (0..3).map(move |i| (100 * r + i) as i64))
        .collect();
    let g: DevView<E, i64, 2> = dev(space, "g", [p, 3])?;
    w.gather(&mine, &g, 0)?;
    if me == 0 {
        k += expect("gather", to_host(&g), want.clone())?;
    }
    let gl: DevView<E, i64, 2, LayoutLeft> = dev(space, "gl", [p, 3])?;
    w.allgather(&mine, &gl)?;
    k += expect("allgather into LayoutLeft", to_host(&gl), want.clone())?;

    // Scatter from rank 0 and alltoall.
    let all: DevView<E, i64, 1> = dev_from_vec(space, "all", [3 * p], want.clone())?;
    let part: DevView<E, i64, 1> = dev(space, "part", [3])?;
    w.scatter(&all, &part, 0)?;
    k += expect(
        "scatter",
        to_host(&part),
        (0..3).map(|i| (100 * me + i) as i64).collect(),
    )?;
    let s: DevView<E, i32, 2> = dev_from_vec(
        space,
        "a2a_send",
        [p, 2],
        (0..2 * p).map(|x| (1000 * me + x) as i32).collect(),
    )?;
    let r: DevView<E, i32, 2> = dev(space, "a2a_recv", [p, 2])?;
    w.alltoall(&s, &r)?;
    let want: Vec<i32> = (0..p)
        .flat_map(|src| (0..2).map(move |c| (1000 * src + 2 * me + c) as i32))
        .collect();
    k += expect("alltoall", to_host(&r), want)?;

    // Element-wise reductions.
    let x: DevView<E, i64, 1> = dev_from_vec(
        space,
        "x",
        [4],
        (0..4).map(|i| (me + 1) as i64 * (i as i64 - 1)).collect(),
    )?;
    let y: DevView<E, i64, 1> = dev(space, "y", [4])?;
    let tri = (p * (p + 1) / 2) as i64;
    w.allreduce(&x, &y, Sum)?;
    k += expect(
        "allreduce Sum",
        to_host(&y),
        (0..4).map(|i| tri * (i - 1)).collect(),
    )?;
    w.allreduce(&x, &y, Max)?;
    k += expect(
        "allreduce Max",
        to_host(&y),
        (0..4)
            .map(|i| if i >= 1 { p as i64 * (i - 1) } else { -1 })
            .collect(),
    )?;
    w.allreduce(&x, &y, Min)?;
    k += expect(
        "allreduce Min",
        to_host(&y),
        (0..4)
            .map(|i| if i >= 1 { i - 1 } else { -(p as i64) })
            .collect(),
    )?;
    w.allreduce(&x, &y, Prod)?;
    let fact: i64 = (1..=p as i64).product();
    k += expect(
        "allreduce Prod",
        to_host(&y),
        (0..4).map(|i: i64| (i - 1).pow(p as u32) * fact).collect(),
    )?;
    let bits: DevView<E, u64, 1> =
        dev_from_vec(space, "bits", [2], vec![1u64 << me, !(1u64 << me)])?;
    let out: DevView<E, u64, 1> = dev(space, "out", [2])?;
    w.allreduce(&bits, &out, BOr)?;
    let or = (1u64 << p) - 1;
    k += expect("allreduce BOr", to_host(&out)[0], or)?;
    w.allreduce(&bits, &out, BAnd)?;
    k += expect(
        "allreduce BAnd",
        to_host(&out)[1],
        if p == 1 { !1u64 } else { !or },
    )?;
    let fx: DevView<E, f64, 1> = dev_from_vec(space, "fx", [2], vec![0.5 * me as f64, 1.0])?;
    let fy: DevView<E, f64, 1> = dev(space, "fy", [2])?;
    w.reduce(&fx, &fy, Sum, 0)?;
    if me == 0 {
        k += expect(
            "reduce Sum to root",
            to_host(&fy),
            vec![0.25 * ((p * (p - 1)) as f64), p as f64],
        )?;
    }
    w.scan(&fx, &fy, Sum)?;
    k += expect(
        "scan",
        to_host(&fy),
        vec![0.25 * ((me * (me + 1)) as f64), (me + 1) as f64],
    )?;
    w.exscan(&fx, &fy, Sum)?;
    k += expect(
        "exscan",
        to_host(&fy),
        vec![0.25 * ((me * me.saturating_sub(1)) as f64), me as f64],
    )?;
    // A strided View in a reduction (packed there).
    let m: DevView<E, f64, 2> =
        dev_from_vec(space, "m", [3, 3], (0..9).map(|v| v as f64).collect())?;
    let diag_src: View<f64, 1, LayoutStride, E::Memory> = m.subview((.., 1))?;
    let col: DevView<E, f64, 1> = dev(space, "col", [3])?;
    w.allreduce(&diag_src, &col, Sum)?;
    k += expect(
        "allreduce of a strided column",
        to_host(&col),
        vec![p as f64, 4.0 * p as f64, 7.0 * p as f64],
    )?;
    Ok(k)
}

#[kernel]
fn sum_k(i: usize, acc: &mut f64, x: rokkos::View<f64>) {
    *acc += x[i];
}
#[kernel]
fn minloc_k(i: usize, acc: &mut ValLoc<f64>, x: rokkos::View<f64>) {
    if x[i] < acc.val {
        acc.val = x[i];
        acc.loc = i;
    }
}
#[kernel]
fn maxloc_k(i: usize, acc: &mut ValLoc<f64>, x: rokkos::View<f64>) {
    if x[i] > acc.val {
        acc.val = x[i];
        acc.loc = i;
    }
}

/// A global array of `N` values split into contiguous parts, one per rank.
const N: usize = 1000;
fn global(g: usize) -> f64 {
    ((g * 37) % 101) as f64 - 50.0
}

/// `parallel_reduce` on each rank's part, then over the ranks, against one loop over the whole.
fn reductions<E: ExecutionSpace>(space: &E, w: &Communicator) -> R<usize> {
    let (me, p) = (w.rank(), w.size());
    let (lo, hi) = (me * N / p, (me + 1) * N / p);
    let x: DevView<E, f64> = dev_from_vec(space, "x", [hi - lo], (lo..hi).map(global).collect())?;
    let pol = || RangePolicy::new(space, 0..hi - lo);
    let mut k = 0;
    let s: f64 = parallel_reduce("sum", pol(), sum_k(&x), Sum)?;
    let total = w.allreduce_value(s, &Sum)?;
    k += expect(
        "Sum of parallel_reduce",
        total,
        (0..N).map(global).sum::<f64>(),
    )?;
    // A final hook runs once, on the global value: the mean over ranks of `me + 1`.
    let mean = w.allreduce_value(
        me as f64 + 1.0,
        &Sum.with_final(|s: &mut f64| *s /= p as f64),
    )?;
    k += expect("Sum with a final hook", mean, (p as f64 + 1.0) / 2.0)?;
    let mn: ValLoc<f64> = parallel_reduce("minloc", pol(), minloc_k(&x), MinLoc)?;
    let mx: ValLoc<f64> = parallel_reduce("maxloc", pol(), maxloc_k(&x), MaxLoc)?;
    let (gmn, gmx) =
        w.allreduce_value((global_loc(mn, lo), global_loc(mx, lo)), &(MinLoc, MaxLoc))?;
    let vals: Vec<f64> = (0..N).map(global).collect();
    let lo_v = vals.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi_v = vals.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    k += expect(
        "MinLoc global",
        (gmn.val, gmn.loc),
        (lo_v, vals.iter().position(|&v| v == lo_v).unwrap()),
    )?;
    k += expect(
        "MaxLoc global",
        (gmx.val, gmx.loc),
        (hi_v, vals.iter().position(|&v| v == hi_v).unwrap()),
    )?;

    // The other reducers on per-rank values (closed forms over ranks).
    let r = me as i64;
    let pi = p as i64;
    let got = w.allreduce_value((r + 1, r - 1, r * 3, 1i64 << r), &(Prod, Min, Max, BOr))?;
    k += expect(
        "Prod, Min, Max, BOr",
        got,
        ((1..=pi).product(), -1, 3 * (pi - 1), (1i64 << pi) - 1),
    )?;
    let mm = w.allreduce_value(
        MinMaxVal {
            min: me as f32,
            max: me as f32,
        },
        &MinMax,
    )?;
    k += expect("MinMax", (mm.min, mm.max), (0.0f32, (p - 1) as f32))?;
    let l = w.allreduce_value((me != 1, me == 1, 0xF0u32 | (1 << me)), &(LAnd, LOr, BAnd))?;
    k += expect(
        "LAnd, LOr, BAnd",
        l,
        (p < 2, p >= 2, if p == 1 { 0xF1 } else { 0xF0 }),
    )?;

    // Deterministic sums: 16 fixed blocks of the global array, spread over the ranks in order;
    // the same bits for any rank count, and equal to the one-process pairwise sum.
    let blocks = 16;
    let block_sum = |b: usize| -> f64 {
        (b * N / blocks..(b + 1) * N / blocks)
            .map(|g| global(g) * 0.1)
            .sum()
    };
    let mine: Vec<f64> = (0..blocks)
        .filter(|b| b * p / blocks == me)
        .map(block_sum)
        .collect();
    let d = w.deterministic_sum(&mine)?;
    let alone = pairwise_sum(&(0..blocks).map(block_sum).collect::<Vec<_>>());
    k += expect("deterministic sum bits", d.to_bits(), alone.to_bits())?;
    Ok(k)
}

/// Mismatches are errors on every rank, not hangs.
fn errors<E: ExecutionSpace>(space: &E, w: &Communicator) -> R<usize> {
    let (me, p) = (w.rank(), w.size());
    let mut k = 0;
    let v: DevView<E, f64> = dev(space, "v", [3 + me % 2])?;
    let e = w.broadcast(&v, 0);
    if p > 1 {
        k += expect(
            "broadcast of mismatched sizes",
            matches!(&e, Err(Error::ShapeMismatch { what }) if what.contains("MPI_Bcast") && what.contains("`v`")),
            true,
        )?;
    } else {
        e?;
    }
    let e = w.send(&v, p + 3, 0);
    k += expect(
        "send to a rank outside",
        matches!(&e, Err(Error::InvalidArgument(m)) if m.contains(&format!("rank {}", p + 3)) && m.contains("MPI_Send")),
        true,
    )?;
    // Ranks passing different element types to a collective: refused on every rank.
    let e = if me % 2 == 0 {
        w.broadcast(&dev::<f64, 1, rokkos::LayoutRight, E>(space, "t", [2])?, 0)
    } else {
        w.broadcast(&dev::<i64, 1, rokkos::LayoutRight, E>(space, "t", [2])?, 0)
    };
    if p > 1 {
        k += expect(
            "collective of mismatched element types",
            matches!(&e, Err(Error::ShapeMismatch { what }) if what.contains("element type")),
            true,
        )?;
    } else {
        e?;
    }
    let big: DevView<E, f64> = dev(space, "big", [4])?;
    let small: DevView<E, f64> = dev(space, "small", [2])?;
    // A longer message than the View: sent to the next rank, received from the previous.
    let (next, prev) = ((me + 1) % p, (me + p - 1) % p);
    let s = w.isend(&big, next, 5)?;
    let e = w.recv(&small, prev, 5);
    s.wait()?;
    k += expect(
        "truncated receive",
        format!("{e:?}").contains("ShapeMismatch"),
        true,
    )
    .map_err(|x| Error::InvalidArgument(format!("{x}: {e:?}")))?;
    let g: DevView<E, f64> = dev(space, "g", [p + 1])?;
    let e = w.allgather(&big, &g);
    k += expect(
        "allgather into a View of the wrong size",
        matches!(e, Err(Error::ShapeMismatch { .. })),
        true,
    )?;
    let e = w.gather(&big, &g, p);
    k += expect(
        "gather to a root outside",
        matches!(e, Err(Error::InvalidArgument(_))),
        true,
    )?;
    Ok(k)
}

/// Host-only checks: no staging allocation for strided host subviews; derived datatypes carry
/// them straight from and into the Views' own memory.
fn host_only(w: &Communicator) -> R<usize> {
    struct Count(AtomicUsize, AtomicUsize);
    impl rokkos::profiling::ProfilingHooks for Count {
        fn allocate(&self, _: &str, _: &str, _: usize) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
        fn deep_copy(&self, _: &str, _: &str, _: usize) {
            self.1.fetch_add(1, Ordering::SeqCst);
        }
    }
    let (me, p) = (w.rank(), w.size());
    let (next, prev) = ((me + 1) % p, (me + p - 1) % p);
    let a = View::<f64, 2>::from_fn("a", [5, 8], |[i, j]| val(me, i, j) as f64)?;
    let b = View::<f64, 2>::new("b", [5, 8])?;
    let src: View<f64, 2, LayoutStride> = a.subview((1..4, 2..6))?;
    let dst: View<f64, 2, LayoutStride> = b.subview((0..3, 4..8))?;
    let mut left = View::<f64, 2, LayoutLeft>::new("left", [3, 4])?;
    let halo = View::<i64, 2>::from_fn("halo", [9, 6], |[i, j]| {
        if (2..7).contains(&i) {
            (100 * me + 10 * i + j) as i64
        } else {
            -1
        }
    })?;
    let counter = Arc::new(Count(AtomicUsize::new(0), AtomicUsize::new(0)));
    let hooks: Arc<dyn rokkos::profiling::ProfilingHooks> = counter.clone();
    rokkos::profiling::register(hooks.clone());
    let r = (|| -> R {
        w.exchange(&src, next, &dst, prev, 20)?;
        let req = w.irecv(&mut left, prev, 21)?;
        w.send(&src, next, 21)?;
        req.wait()?;
        // A halo exchange of a host View: faces and ghosts straight from and into it.
        let grid = w.cartesian(&[0, 1], &[true, false])?;
        grid.halo_exchange(&halo, 2)
    })();
    rokkos::profiling::unregister(&hooks);
    r?;
    let mut k = expect("no staging allocation", counter.0.load(Ordering::SeqCst), 0)?;
    k += expect("no staging copy", counter.1.load(Ordering::SeqCst), 0)?;
    for i in 0..3 {
        for j in 0..4 {
            let want = val(prev, 1 + i, 2 + j) as f64;
            k += expect("strided into strided", b.get((i, 4 + j)), want)?;
            k += expect("strided into LayoutLeft", left.get((i, j)), want)?;
        }
    }
    k += expect("rest untouched", b.get((4, 0)), 0.0)?;
    // A rank that cannot hold its View (a host guard on it) fails the collective on every rank,
    // instead of leaving the others inside it.
    let held = View::<f64, 1>::new("held", [3])?;
    let e = {
        let _guard = (me == 0).then(|| held.host_mut());
        w.broadcast(&held, 0)
    };
    let refused = if me == 0 {
        matches!(e, Err(Error::Aliasing { .. }))
    } else {
        matches!(&e, Err(Error::InvalidArgument(m)) if m.contains("rank 0 refused"))
    };
    k += expect("a refused collective fails everywhere", refused, true)?;
    // Ghost rows 0..2 hold the previous rank's rows 5..7, rows 7..9 the next rank's rows 2..4;
    // along the second dimension there is no neighbour (one rank, not periodic).
    for j in 0..6 {
        for (i, from, row) in [(0, prev, 5), (1, prev, 6), (7, next, 2), (8, next, 3)] {
            k += expect(
                "1-D halo",
                halo.get((i, j)),
                (100 * from + 10 * row + j) as i64,
            )?;
        }
    }
    Ok(k)
}

/// The halo exchange of a block of a global grid `g` with one ghost layer, against the closed
/// form: every cell of the padded block holds the global value at its global coordinates
/// (wrapped along periodic dimensions), or stays 0 past a non-periodic boundary.
fn halo<E: ExecutionSpace, const D: usize>(
    space: &E,
    w: &Communicator,
    g: [usize; D],
    periodic: [bool; D],
) -> R<usize> {
    let grid: CartComm = w.cartesian(&[0; D], &periodic)?;
    let dims = grid.dims().to_vec();
    let coords = grid.coords().to_vec();
    let inner: [usize; D] = std::array::from_fn(|d| g[d] / dims[d]);
    let padded: [usize; D] = std::array::from_fn(|d| inner[d] + 2);
    let value = |gc: [usize; D]| -> f64 { gc.iter().fold(0.0, |a, &c| a * 16.0 + c as f64 + 1.0) };
    // The global coordinate of padded index `i` along `d`, or None past a boundary.
    let global = |d: usize, i: usize| -> Option<usize> {
        let x = (coords[d] * inner[d] + i) as isize - 1;
        if (0..g[d] as isize).contains(&x) {
            Some(x as usize)
        } else if periodic[d] {
            Some(x.rem_euclid(g[d] as isize) as usize)
        } else {
            None
        }
    };
    let interior = |idx: [usize; D]| (0..D).all(|d| (1..=inner[d]).contains(&idx[d]));
    let mut init = Vec::new();
    let mut want = Vec::new();
    let mut idx = [0usize; D];
    loop {
        let gc: Option<Vec<usize>> = (0..D).map(|d| global(d, idx[d])).collect();
        init.push(if interior(idx) {
            value(std::array::from_fn(|d| gc.as_ref().unwrap()[d]))
        } else {
            0.0
        });
        want.push(gc.map_or(0.0, |gc| value(std::array::from_fn(|d| gc[d]))));
        let mut d = D;
        loop {
            if d == 0 {
                break;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < padded[d] {
                break;
            }
            idx[d] = 0;
        }
        if idx.iter().all(|&i| i == 0) {
            break;
        }
    }
    let u: DevView<E, f64, D> = dev_from_vec(space, "u", padded, init.clone())?;
    grid.halo_exchange(&u, 1)?;
    let mut k = expect(&format!("halo exchange {D}-D"), to_host(&u), want.clone())?;
    let e = grid.halo_exchange(&u, padded[0]);
    k += expect(
        "halo wider than the block",
        matches!(e, Err(Error::ShapeMismatch { .. })),
        true,
    )?;

    // Split phase: the faces are packed when the exchange starts, so overwriting the whole View
    // while it is in flight (here with 7.0) changes neither what is sent nor what arrives; the
    // ghost cells of a face (outside the interior along exactly one dimension, with a
    // neighbour there) get the neighbour's face, every other cell keeps the 7.0.
    let u2: DevView<E, f64, D> = dev_from_vec(space, "u2", padded, init)?;
    let x = grid.halo_exchange_start(&u2, 1)?;
    rokkos::fill(&u2, 7.0)?;
    x.finish()?;
    let mut split_want = Vec::new();
    let mut idx = [0usize; D];
    for &full in &want {
        let outside = (0..D)
            .filter(|&d| !(1..=inner[d]).contains(&idx[d]))
            .count();
        // `want` holds 0.0 exactly past a non-periodic boundary (every value is at least 1).
        split_want.push(if outside == 1 && full != 0.0 {
            full
        } else {
            7.0
        });
        for d in (0..D).rev() {
            idx[d] += 1;
            if idx[d] < padded[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    k += expect(
        &format!("split-phase halo exchange {D}-D"),
        to_host(&u2),
        split_want,
    )?;
    // Dropped unfinished: waits for its messages, leaves the ghost layers alone.
    let x = grid.halo_exchange_start(&u2, 1)?;
    drop(x);
    let e = grid.halo_exchange_start(&u2, padded[0]);
    k += expect(
        "split-phase halo wider than the block",
        matches!(e, Err(Error::ShapeMismatch { .. })),
        true,
    )?;
    Ok(k)
}

#[kernel]
fn heat_step((i, j): (usize, usize), out: ViewMut<f64, 2>, u: View<f64, 2>, a: f64) {
    out[(i, j)] = u[(i, j)]
        + a * (u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)] - 4.0 * u[(i, j)]);
}

/// Explicit steps of the 2-D heat equation on a padded block (ghost layer of 1, halo exchanged
/// before each step when `grid` is given; zero Dirichlet ghosts at the global boundary).
fn heat_run<E: ExecutionSpace>(
    space: &E,
    grid: Option<&CartComm>,
    init: Vec<f64>,
    padded: [usize; 2],
    steps: usize,
) -> R<Vec<f64>> {
    let mut u: DevView<E, f64, 2> = dev_from_vec(space, "u", padded, init)?;
    let mut next: DevView<E, f64, 2> = dev(space, "next", padded)?;
    deep_copy(&next, &u)?;
    for _ in 0..steps {
        if let Some(g) = grid {
            g.halo_exchange(&u, 1)?;
        }
        let pol = MDRangePolicy::new(space, [1, 1], [padded[0] - 1, padded[1] - 1]);
        parallel_for("heat", pol, heat_step(&next, &u, 0.2))?;
        std::mem::swap(&mut u, &mut next);
    }
    Ok(to_host(&u))
}

/// The distributed heat equation is bit for bit the one-process one, for any rank count.
fn heat<E: ExecutionSpace>(space: &E, w: &Communicator) -> R<usize> {
    let g = [12usize, 8];
    let grid = w.cartesian(&[0, 0], &[false, false])?;
    let (d, c) = (grid.dims().to_vec(), grid.coords().to_vec());
    let inner = [g[0] / d[0], g[1] / d[1]];
    let f =
        |gi: usize, gj: usize| ((gi * 7 + gj * 3) % 11) as f64 * 0.1 + 1.0 / (1 + gi + gj) as f64;
    let padded_init = |n0: usize, n1: usize, o0: usize, o1: usize| -> Vec<f64> {
        let mut v = vec![0.0; (n0 + 2) * (n1 + 2)];
        for i in 0..n0 {
            for j in 0..n1 {
                v[(i + 1) * (n1 + 2) + j + 1] = f(o0 + i, o1 + j);
            }
        }
        v
    };
    let steps = 12;
    let (o0, o1) = (c[0] * inner[0], c[1] * inner[1]);
    let mine = heat_run(
        space,
        Some(&grid),
        padded_init(inner[0], inner[1], o0, o1),
        [inner[0] + 2, inner[1] + 2],
        steps,
    )?;
    let alone = heat_run(
        space,
        None,
        padded_init(g[0], g[1], 0, 0),
        [g[0] + 2, g[1] + 2],
        steps,
    )?;
    let mut got = Vec::new();
    let mut want = Vec::new();
    for i in 0..inner[0] {
        for j in 0..inner[1] {
            got.push(mine[(i + 1) * (inner[1] + 2) + j + 1].to_bits());
            want.push(alone[(o0 + i + 1) * (g[1] + 2) + o1 + j + 1].to_bits());
        }
    }
    expect("distributed heat bit for bit", got, want)
}

/// Shapes drawn from a fixed-seed generator (the same on every rank, so that the ranks agree on
/// them: proptest's own draws and shrinking would differ between processes): a strided subview
/// of a random rank-3 View (empty ones included) around the ring, received into a `LayoutLeft`
/// View, and broadcast into a subview of another View.
fn shapes<E: ExecutionSpace>(space: &E, w: &Communicator) -> R<usize> {
    let (me, p) = (w.rank(), w.size());
    let (next, prev) = ((me + 1) % p, (me + p - 1) % p);
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut draw = |m: usize| -> usize {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) as usize) % m
    };
    let mut k = 0;
    for case in 0..6 {
        let ext: [usize; 3] = std::array::from_fn(|_| 1 + draw(5));
        let lo: [usize; 3] = std::array::from_fn(|d| draw(ext[d] + 1));
        let hi: [usize; 3] = std::array::from_fn(|d| lo[d] + draw(ext[d] - lo[d] + 1));
        let v = |r: usize, [i, j, l]: [usize; 3]| (r * 1000 + i * 100 + j * 10 + l) as i64;
        let full: Vec<i64> = (0..ext.iter().product::<usize>())
            .map(|x| v(me, [x / (ext[1] * ext[2]), x / ext[2] % ext[1], x % ext[2]]))
            .collect();
        let a: DevView<E, i64, 3> = dev_from_vec(space, "a", ext, full)?;
        let sub: View<i64, 3, LayoutStride, E::Memory> =
            a.subview((lo[0]..hi[0], lo[1]..hi[1], lo[2]..hi[2]))?;
        let se = sub.extents();
        let dst: DevView<E, i64, 3, LayoutLeft> = dev(space, "dst", se)?;
        w.exchange(&sub, next, &dst, prev, 30)?;
        let mut want = Vec::new();
        for i in 0..se[0] {
            for j in 0..se[1] {
                for l in 0..se[2] {
                    want.push(v(prev, [lo[0] + i, lo[1] + j, lo[2] + l]));
                }
            }
        }
        k += expect(
            &format!("shape case {case}: {ext:?} [{lo:?}, {hi:?})"),
            to_host(&dst),
            want.clone(),
        )?;
        // Broadcast the last rank's block into the same block of a zeroed View.
        let b: DevView<E, i64, 3> = dev(space, "b", ext)?;
        let bsub: View<i64, 3, LayoutStride, E::Memory> =
            b.subview((lo[0]..hi[0], lo[1]..hi[1], lo[2]..hi[2]))?;
        let src = if me == p - 1 { &sub } else { &bsub };
        w.broadcast(src, p - 1)?;
        if me != p - 1 {
            let got = to_host(&bsub);
            let want: Vec<i64> = want
                .iter()
                .map(|x| x - (prev * 1000) as i64 + ((p - 1) * 1000) as i64)
                .collect();
            k += expect(&format!("broadcast case {case}"), got, want)?;
            let nonzero = to_host(&b).iter().filter(|&&x| x != 0).count();
            k += expect(
                "broadcast writes only the block",
                nonzero,
                se.iter().product::<usize>(),
            )?;
        }
    }
    Ok(k)
}
