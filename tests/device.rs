//! `Device`, the execution space chosen at run time: every backend compiled in runs the same
//! program, Views of one backend are refused by another, mirrors go both ways, and View handles
//! cross threads with their borrow tracking intact.

use rokkos::prelude::*;

#[kernel]
fn axpy(i: usize, y: ViewMut<f64>, x: View<f64>, a: f64) {
    y[i] = a * x[i] + y[i];
}

#[kernel]
fn dot(i: usize, acc: &mut f64, x: View<f64>, y: View<f64>) {
    *acc += x[i] * y[i];
}

/// Every backend compiled in (and usable here) as a `Device`.
fn devices() -> Vec<Device> {
    let mut out = vec![Device::from(Serial)];
    #[cfg(feature = "rayon")]
    out.push(Device::from(rokkos::Rayon::with_threads(2).unwrap()));
    #[cfg(feature = "wgpu")]
    match Device::with_backend("wgpu") {
        Ok(d) => out.push(d),
        Err(e) if std::env::var_os("ROKKOS_REQUIRE_WGPU").is_some() => panic!("wgpu: {e}"),
        Err(e) => eprintln!("skipping wgpu: {e}"),
    }
    #[cfg(feature = "cuda")]
    match Device::with_backend("cuda") {
        Ok(d) => out.push(d),
        Err(e) if std::env::var("ROKKOS_REQUIRE_CUDA").as_deref() == Ok("1") => {
            panic!("cuda: {e}")
        }
        Err(e) => eprintln!("skipping cuda: {e}"),
    }
    out
}

#[test]
fn axpy_and_dot_on_every_device() {
    for dev in devices() {
        let n = 1000;
        let hx = View::<f64>::from_fn("x", [n], |[i]| i as f64).unwrap();
        let x = create_mirror_view_and_copy_in(&dev, &hx).unwrap();
        let y = DeviceView::<f64>::new_on(&dev, "y", [n]).unwrap();
        y.fill(1.0).unwrap();
        parallel_for("axpy", RangePolicy::new(&dev, 0..n), axpy(&y, &x, 2.0)).unwrap();
        let s: f64 =
            parallel_reduce("dot", RangePolicy::new(&dev, 0..n), dot(&y, &x), Sum).unwrap();
        let expect: f64 = (0..n).map(|i| (2.0 * i as f64 + 1.0) * i as f64).sum();
        assert!(
            (s - expect).abs() <= 1e-12 * expect,
            "{}: {s} vs {expect}",
            dev.name()
        );
        let hy = create_mirror_view_and_copy(&y).unwrap();
        assert!(!hy.shares_allocation_with(&hx));
        assert_eq!(hy.get(10), 21.0, "{}", dev.name());
    }
}

/// A View allocated for one backend, launched on another: refused by name, nothing runs.
#[test]
fn a_view_of_another_backend_is_refused() {
    let devs = devices();
    for a in &devs {
        for b in &devs {
            if a.is_host() == b.is_host() {
                continue;
            }
            let x = DeviceView::<f64>::new_on(a, "elsewhere", [4]).unwrap();
            let y = DeviceView::<f64>::new_on(b, "here", [4]).unwrap();
            let e = parallel_for("axpy", RangePolicy::new(b, 0..4), axpy(&y, &x, 1.0)).unwrap_err();
            assert!(
                matches!(&e, Error::InvalidArgument(m) if m.contains("elsewhere")),
                "{e}"
            );
            // The hold was released: the Views are usable again.
            y.fill(2.0).unwrap();
            assert_eq!(
                create_mirror_view_and_copy(&y).unwrap().to_vec(),
                vec![2.0; 4]
            );
        }
    }
}

#[test]
fn mirrors_share_only_within_one_memory() {
    for dev in devices() {
        let d = DeviceView::<i32, 2>::new_on(&dev, "d", [3, 2]).unwrap();
        let same = create_mirror_view_in(&dev, &d).unwrap();
        assert!(same.shares_allocation_with(&d));
        let h = create_mirror_view(&d).unwrap();
        h.set((2, 1), 7);
        let back = create_mirror_view_and_copy_in(&dev, &h).unwrap();
        assert!(!back.shares_allocation_with(&d));
        assert_eq!(create_mirror_view_and_copy(&back).unwrap().get((2, 1)), 7);
    }
}

#[test]
fn policy_limits_of_the_backend_apply() {
    for dev in devices() {
        let lim = dev.team_limits();
        let y = DeviceView::<f64>::new_on(&dev, "y", [4]).unwrap();
        #[kernel]
        fn team_fill(t: &TeamMember, y: ViewMut<f64>) {
            let l = t.league_rank();
            t.single_team(|| y[l] = 1.0);
        }
        let p = TeamPolicy::new(&dev, 4, TeamSize::Exactly(lim.team_size_max + 1));
        let e = parallel_for("team_fill", p, team_fill(&y)).unwrap_err();
        assert!(matches!(e, Error::InvalidPolicy { .. }), "{e}");
    }
}

struct CountName;
impl rokkos::SpaceVisitor for CountName {
    type Output = &'static str;
    fn visit<E: ExecutionSpace>(self, space: E) -> &'static str {
        space.name()
    }
}

#[test]
fn selected_backend_checks_the_name() {
    // Only this test touches ROKKOS_BACKEND in this binary.
    std::env::set_var("ROKKOS_BACKEND", "bogus");
    assert!(matches!(
        rokkos::selected_backend(),
        Err(Error::InvalidArgument(_))
    ));
    assert!(Device::new().is_err());
    std::env::set_var("ROKKOS_BACKEND", "cuda");
    if cfg!(feature = "cuda") {
        // Compiled in, the name is taken; the device then runs or says what is missing.
        assert_eq!(rokkos::selected_backend().unwrap(), "cuda");
        match Device::new() {
            Ok(d) => assert_eq!(d.name(), "cuda"),
            Err(e) => assert!(
                matches!(&e, Error::BackendUnavailable { backend, .. } if backend == "cuda"),
                "{e}"
            ),
        }
    } else {
        assert!(matches!(
            rokkos::selected_backend(),
            Err(Error::BackendUnavailable { .. })
        ));
    }
    std::env::set_var("ROKKOS_BACKEND", " Serial ");
    assert_eq!(rokkos::selected_backend().unwrap(), "serial");
    assert_eq!(Device::new().unwrap().name(), "serial");
    std::env::remove_var("ROKKOS_BACKEND");
    let best = Device::new().unwrap();
    if cfg!(feature = "cuda") && rokkos::run_on("cuda", CountName).is_err() {
        // No usable GPU: the best device is the next backend compiled in.
        assert_ne!(best.name(), "cuda");
    }
    assert_eq!(rokkos::selected_backend().unwrap(), best.name());
}

#[kernel]
fn bump(i: usize, y: ViewMut<u64>) {
    y[i] += 1;
}

fn assert_send_sync<T: Send + Sync>() {}

/// View handles (host and device) are `Send` and `Sync`; a host guard held on one thread and a
/// launch on another exclude each other through the allocation's atomic borrow flag.
#[test]
fn views_cross_threads_and_guards_still_exclude_launches() {
    assert_send_sync::<View<f64>>();
    assert_send_sync::<DeviceView<f32, 3, LayoutLeft>>();
    assert_send_sync::<Device>();
    let v = View::<u64>::new("shared", [64]).unwrap();
    let (to_main, from_thread) = std::sync::mpsc::channel();
    let (to_thread, from_main) = std::sync::mpsc::channel::<()>();
    let w = v.clone();
    let t = std::thread::spawn(move || {
        let g = w.host_mut();
        to_main.send(()).unwrap();
        from_main.recv().unwrap();
        drop(g);
        w // moves back
    });
    from_thread.recv().unwrap();
    let space = DefaultExecutionSpace::default();
    // The guard lives on the other thread: the launch is refused and nothing ran.
    let e = parallel_for("bump", RangePolicy::new(&space, 0..64), bump(&v)).unwrap_err();
    assert!(matches!(e, Error::Aliasing { .. }), "{e}");
    assert!(v.try_host().is_err());
    to_thread.send(()).unwrap();
    let w = t.join().unwrap();
    parallel_for("bump", RangePolicy::new(&space, 0..64), bump(&w)).unwrap();
    assert_eq!(v.to_vec(), vec![1; 64]);
}

/// Many threads launching on, reading and writing one View at once: every launch and every guard
/// either runs alone on the allocation or is refused; the count of accepted increments is exact.
#[test]
fn racing_launches_and_guards_never_overlap() {
    let v = View::<u64>::new("raced", [256]).unwrap();
    let accepted = std::sync::atomic::AtomicU64::new(0);
    std::thread::scope(|s| {
        for t in 0..4 {
            let (v, accepted) = (&v, &accepted);
            s.spawn(move || {
                let space = Serial;
                for k in 0..200 {
                    if (t + k) % 2 == 0 {
                        if parallel_for("bump", RangePolicy::new(&space, 0..256), bump(v)).is_ok() {
                            accepted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    } else if let Ok(g) = v.try_host() {
                        // A launch writing the View would change it under this shared guard.
                        let first = g[0];
                        assert!(g.as_slice().unwrap().iter().all(|&x| x == first));
                    }
                }
            });
        }
    });
    let n = accepted.load(std::sync::atomic::Ordering::Relaxed);
    assert!(n > 0);
    assert_eq!(v.to_vec(), vec![n; 256]);
}

/// Without a usable GPU every way to ask for CUDA answers `Err(BackendUnavailable)` naming what
/// is missing (libcuda, NVRTC, a device), and nothing panics: `Cuda::new`, `run_on`, `Device`,
/// the memory space. (`selected_backend_checks_the_name` covers `ROKKOS_BACKEND=cuda`, and that
/// `Device::new()` then falls through to the next backend.)
#[cfg(feature = "cuda")]
#[test]
fn cuda_without_a_gpu_is_backend_unavailable_everywhere() {
    let Err(e) = rokkos::Cuda::new() else {
        rerun_without_libcuda("cuda_without_a_gpu_is_backend_unavailable_everywhere");
        return;
    };
    let names_cause = |e: &Error| match e {
        Error::BackendUnavailable { backend, reason } => {
            backend == "cuda"
                && ["libcuda", "NVRTC", "device", "driver"]
                    .iter()
                    .any(|w| reason.contains(w))
        }
        _ => false,
    };
    assert!(names_cause(&e), "{e}");
    assert!(names_cause(&Device::with_backend("cuda").unwrap_err()));
    struct Name;
    impl rokkos::SpaceVisitor for Name {
        type Output = String;
        fn visit<E: ExecutionSpace>(self, space: E) -> String {
            space.name().to_string()
        }
    }
    assert!(names_cause(&rokkos::run_on("cuda", Name).unwrap_err()));
    let v = View::<f32, 1, LayoutRight, rokkos::CudaSpace>::new_in(
        &rokkos::CudaSpace::default(),
        "v",
        [4],
    );
    assert!(matches!(v, Err(Error::BackendUnavailable { .. })));
}

/// A process that found a CUDA driver (a GPU, or the host emulator `tools/cuda-emu` on
/// `LD_LIBRARY_PATH`, as in CI) cannot see the answers without one, since the driver is loaded
/// once per process: runs the test `name` again in a child whose loader path leaves out every
/// folder holding a `libcuda.so.1`. Where a libcuda is installed system-wide the child finds it
/// too and says so; this is then a skip, as on any machine with a GPU.
#[cfg(feature = "cuda")]
fn rerun_without_libcuda(name: &str) {
    const CHILD: &str = "ROKKOS_TEST_WITHOUT_LIBCUDA";
    if std::env::var_os(CHILD).is_some() {
        eprintln!("skipping: libcuda is installed outside LD_LIBRARY_PATH");
        return;
    }
    let path = std::env::var_os("LD_LIBRARY_PATH").unwrap_or_default();
    let kept: Vec<_> = std::env::split_paths(&path)
        .filter(|d| !d.join("libcuda.so.1").exists())
        .collect();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("LD_LIBRARY_PATH", std::env::join_paths(kept).unwrap())
        .env(CHILD, "1")
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the run without libcuda failed:\n{log}"
    );
    assert!(
        log.contains("1 passed"),
        "the run without libcuda ran nothing:\n{log}"
    );
    if log.contains("skipping: libcuda is installed") {
        eprintln!("skipping: this machine has a usable CUDA device");
    }
}
