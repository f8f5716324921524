//! The examples' kernels through the CUDA checking space (`rokkos_cuda::check::CudaCheck`): each
//! launch runs on the IR evaluator and its CUDA C is compiled by NVRTC and assembled by ptxas for
//! sm_90 and sm_80, where a register spill in BabelStream's kernels fails the launch. The
//! equivalence suite does the same for every kernel it launches (`<test>::cuda_check`). Skips
//! without NVRTC or ptxas, unless `ROKKOS_REQUIRE_NVRTC=1` (CI).

#[path = "../examples/babelstream/kernels.rs"]
#[allow(dead_code)]
mod babelstream_kernels;

use babelstream_kernels::*;
use rokkos::ir::eval::EvalMemory;
use rokkos::prelude::*;
use rokkos::{create_mirror_view_and_copy, Float, LayoutRight};
use rokkos_cuda::check::CudaCheck;

fn space() -> Option<CudaCheck> {
    match CudaCheck::new() {
        Ok(s) => Some(s),
        Err(e) if std::env::var("ROKKOS_REQUIRE_NVRTC").as_deref() == Ok("1") => {
            panic!("ROKKOS_REQUIRE_NVRTC=1 but: {e}")
        }
        Err(e) => {
            eprintln!("skipping: {e}");
            None
        }
    }
}

/// Every BabelStream kernel once in precision `T`, checked against the closed forms.
fn babelstream<T: Float + From<f32>>(space: &CudaCheck) {
    let n = 1000;
    let v = |label: &str| {
        View::<T, 1, LayoutRight, EvalMemory>::new_in(&EvalMemory, label, [n]).unwrap()
    };
    let (a, b, c) = (v("a"), v("b"), v("c"));
    let all = || RangePolicy::new(space, 0..n);
    let t = |x: f64| T::from(x as f32);
    let s = t(SCALAR);
    parallel_for(
        "init",
        all(),
        init(&a, &b, &c, t(START_A), t(START_B), t(START_C)),
    )
    .unwrap();
    parallel_for("copy", all(), copy(&c, &a)).unwrap();
    parallel_for("mul", all(), mul(&b, &c, s)).unwrap();
    parallel_for("add", all(), add(&c, &a, &b)).unwrap();
    parallel_for("triad", all(), triad(&a, &b, &c, s)).unwrap();
    parallel_for("nstream", all(), nstream(&a, &b, &c, s)).unwrap();
    let dot_ab: T = parallel_reduce("dot", all(), dot(&a, &b), Sum).unwrap();
    // The closed forms of one round (BabelStream's own check), evaluated in T as the kernels do.
    let ga = t(START_A);
    let gb = s * ga; // mul after copy (c = a)
    let gc = ga + gb; // add
    let ga = gb + s * gc; // triad
    let ga = ga + (gb + s * gc); // nstream
    let host =
        |x: &View<T, 1, LayoutRight, EvalMemory>| create_mirror_view_and_copy(x).unwrap().to_vec();
    assert!(host(&a).iter().all(|&x| x == ga));
    assert!(host(&b).iter().all(|&x| x == gb));
    assert!(host(&c).iter().all(|&x| x == gc));
    let want = ga * gb;
    let dot_want: f64 = (0..n).map(|_| want.to_f64()).sum();
    assert!(
        (dot_ab.to_f64() - dot_want).abs() <= 1e-3 * dot_want.abs(),
        "{dot_ab:?} vs {dot_want}"
    );
}

#[test]
fn babelstream_kernels_compile_for_cuda_without_spills() {
    let Some(space) = space() else { return };
    babelstream::<f64>(&space);
    babelstream::<f32>(&space);
    let emp = View::<f64, 1, LayoutRight, EvalMemory>::new_in(&EvalMemory, "e", [4]).unwrap();
    parallel_for("empty", RangePolicy::new(&space, 0..4), empty(&emp)).unwrap();
    let (compiled, _) = rokkos_cuda::check::counts();
    // init, copy, mul, add, triad, nstream, dot in two precisions, and empty.
    assert!(compiled >= 15, "{compiled} kernels compiled");
}

#[path = "../examples/cg.rs"]
#[allow(dead_code)]
mod cg;
#[path = "../examples/launch.rs"]
#[allow(dead_code)]
mod launch;
#[path = "../examples/stencil.rs"]
#[allow(dead_code)]
mod stencil;
#[path = "../examples/yax.rs"]
#[allow(dead_code)]
mod yax;

/// The CG example's kernels (MDRange Laplacian, dot products into device Views, the updates):
/// a small solve converges to its known solution through the checking space.
#[test]
fn cg_kernels_compile_for_cuda() {
    use rokkos::SpaceVisitor;
    let Some(space) = space() else { return };
    let args = cg::Args {
        backend: "cuda-check".into(),
        n: 6,
        iters: 200,
        json: false,
    };
    let solve = cg::Cg(&args).visit(space).unwrap();
    // CG on the 36 unknowns converges in at most 36 steps in exact arithmetic.
    assert!(solve.steps <= 60, "{} steps", solve.steps);
    assert!(solve.residual < 1e-10, "residual {}", solve.residual);
    assert!(solve.error < 1e-6, "error {}", solve.error);
}

/// The stencil example's 2-D and 3-D sweeps: the grid after two sweeps equals the plain loop's
/// bit for bit.
#[test]
fn stencil_kernels_compile_for_cuda() {
    let Some(space) = space() else { return };
    for (kernel, n) in [("jacobi2d", 9), ("jacobi3d", 6)] {
        let got = stencil::run_rokkos(&space, kernel, n, 2).unwrap().grid;
        let want = stencil::run_plain(kernel, n, 2, false).grid;
        assert_eq!(got, want, "{kernel}");
    }
}

/// The launch example's kernels (empty, for, reduce, scan), with the example's own checks of
/// the sums and prefix sums.
#[test]
fn launch_kernels_compile_for_cuda() {
    use rokkos::SpaceVisitor;
    let Some(space) = space() else { return };
    let args = launch::Args {
        backend: "cuda-check".into(),
        sizes: vec![300],
        reps: 2,
        rounds: 1,
        plain: false,
        json: false,
    };
    let (figures, check, _) = launch::Visit(&args).visit(space).unwrap();
    assert_eq!(figures.len(), 4);
    assert_eq!(check, Ok(()));
}

/// The yAx example's TeamPolicy reduction (a team per row, `team_vector_reduce` over the
/// columns), at shapes that leave partial warps and vector lanes idle: the exact integer result
/// of the example's own host loop, every repetition.
#[test]
fn yax_team_kernel_compiles_for_cuda() {
    use rokkos::SpaceVisitor;
    let Some(space) = space() else { return };
    for (rows, cols, vector) in [(5, 37, 32), (33, 8, 4)] {
        let args = yax::Args {
            backend: "cuda-check".into(),
            rows,
            cols,
            vector,
            reps: 2,
            json: false,
        };
        let run = yax::Yax(&args).visit(space.clone()).unwrap();
        assert_eq!(run.result, yax::expected(rows, cols), "{rows} x {cols}");
        assert_eq!(run.secs.len(), 2);
    }
}
