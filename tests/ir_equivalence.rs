//! The kernel IR that `#[rokkos::kernel]` records means what the native body does.
//!
//! Each property runs a kernel natively on the Serial backend and its IR (`KernelIr::ir`, validated
//! by `rokkos::ir::valid::validate`) through the reference evaluator `rokkos::ir::eval` on the same
//! proptest-drawn sizes and data, and compares: integers bit-exactly, floats within a relative
//! tolerance of `1e-12` (`f64`) / `1e-5` (`f32`) of the magnitudes involved (both paths compute the
//! same operations in the same order, so they are equal in practice; the tolerance only leaves room
//! for a backend that joins partial reductions in another order). The evaluator runs an MDRange in
//! row-major order and a league team by team with one thread, like the Serial backend.
//!
//! Also here: the IR's stable hash is the same in a child process, and the BabelStream kernels
//! (`examples/babelstream/kernels.rs`) have valid IRs in both precisions.

#[path = "ir_equivalence/kernels.rs"]
mod kernels;
#[path = "ir_equivalence/team.rs"]
mod team;

#[path = "../examples/babelstream/kernels.rs"]
#[allow(dead_code)]
mod babelstream_kernels;

use kernels::*;
use proptest::prelude::*;
use rokkos::ir::eval::{eval_for, eval_reduce, eval_scan, ArgValue, Buffer, WorkSet};
use rokkos::ir::valid::validate;
use rokkos::ir::{Kernel as IrKernel, Value};
use rokkos::prelude::*;
use rokkos::{KernelIr, Pod};

/// A host View in the evaluator's form: its elements in row-major order and its extents.
pub struct Host<T> {
    /// The elements (row-major, whatever the View's layout).
    pub data: Vec<T>,
    /// The extents.
    pub extents: Vec<usize>,
}

impl<T: Pod> Host<T> {
    /// A copy of `v`.
    pub fn of<const R: usize, L: Layout>(v: &View<T, R, L>) -> Self {
        Host {
            data: v.to_vec(),
            extents: v.extents().to_vec(),
        }
    }
}

impl<T> Host<T>
where
    for<'a> &'a mut Vec<T>: Into<Buffer<'a>>,
{
    /// The evaluator argument over these elements (`LayoutRight` strides).
    pub fn arg(&mut self) -> ArgValue<'_> {
        ArgValue::view(&mut self.data, &self.extents)
    }
}

/// The IR of kernel value `k`, validated.
pub fn ir_of<K: KernelIr>(k: &K) -> IrKernel {
    let ir = k.ir().unwrap_or_else(|e| panic!("`{}`: {e}", K::NAME));
    if let Err(e) = validate(&ir) {
        panic!("{e}\n{ir}");
    }
    ir
}

/// `a` and `b` agree within `tol` relative to `scale` (exactly when both are non-finite).
pub fn close(a: f64, b: f64, scale: f64, tol: f64) -> bool {
    a.to_bits() == b.to_bits() || a == b || (a - b).abs() <= tol * scale.abs().max(1.0)
}

/// Asserts element-wise closeness of two `f64` sequences.
pub fn assert_close(what: &str, native: &[f64], ir: &[f64], ir_kernel: &IrKernel) {
    assert_eq!(native.len(), ir.len(), "{what}");
    for (k, (a, b)) in native.iter().zip(ir).enumerate() {
        assert!(
            close(*a, *b, a.abs(), 1e-12),
            "{what}[{k}]: native {a}, IR {b}\n{ir_kernel}"
        );
    }
}

fn range(n: usize) -> WorkSet {
    WorkSet::Range {
        begin: 0,
        end: n as u64,
    }
}

fn floats(max: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-2.0f64..2.0, 0..max)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn expressions_match(xs in floats(40), k in -3i32..4, s in -1.0f64..1.0) {
        let n = xs.len();
        let x = View::<f64>::from_vec("x", [n], xs).unwrap();
        let out = View::<f64>::new("out", [n]).unwrap();
        let bits = View::<u32>::new("bits", [n]).unwrap();
        let kern = expressions(&out, &bits, &x, k, s);
        let ir = ir_of(&kern);
        parallel_for("expressions", RangePolicy::new(&Serial, 0..n), kern).unwrap();
        let (mut ho, mut hb, mut hx) = (Host::of(&out), Host::of(&bits), Host::of(&x));
        ho.data.fill(0.0);
        hb.data.fill(0);
        let mut args = [ho.arg(), hb.arg(), hx.arg(), ArgValue::Scalar(Value::I32(k)), ArgValue::Scalar(Value::F64(s))];
        eval_for(&ir, &range(n), &mut args).unwrap();
        assert_close("out", &out.to_vec(), &ho.data, &ir);
        prop_assert_eq!(bits.to_vec(), hb.data);
    }

    #[test]
    fn row_dot_sum_matches(n in 0usize..20, m in 0usize..12, seed in any::<u64>()) {
        let a = View::<f64, 2>::from_fn("a", [n, m], |[i, j]| unit(seed, i * 31 + j)).unwrap();
        let x = View::<f64>::from_fn("x", [m], |[j]| unit(seed ^ 7, j)).unwrap();
        let kern = row_dot(&a, &x);
        let ir = ir_of(&kern);
        let native: f64 = parallel_reduce("row_dot", RangePolicy::new(&Serial, 0..n), kern, Sum).unwrap();
        let (mut ha, mut hx) = (Host::of(&a), Host::of(&x));
        let out = eval_reduce(&ir, &range(n), &mut [ha.arg(), hx.arg()], &[Value::F64(0.0)]).unwrap();
        let Value::F64(got) = out[0] else { panic!("{out:?}") };
        prop_assert!(close(native, got, (n * m) as f64, 1e-12), "native {} IR {}\n{}", native, got, ir);
    }

    #[test]
    fn min_max_two_accumulators_match(xs in prop::collection::vec(-1000i64..1000, 0..50)) {
        let n = xs.len();
        let a = View::<i64>::from_vec("a", [n], xs).unwrap();
        let kern = min_max(&a);
        let ir = ir_of(&kern);
        let (lo, hi) = parallel_reduce("min_max", RangePolicy::new(&Serial, 0..n), kern, (Min, Max)).unwrap();
        let mut ha = Host::of(&a);
        let out = eval_reduce(&ir, &range(n), &mut [ha.arg()], &[Value::I64(i64::MAX), Value::I64(i64::MIN)]).unwrap();
        prop_assert_eq!(out, vec![Value::I64(lo), Value::I64(hi)]);
    }

    #[test]
    fn min_loc_matches(xs in floats(50)) {
        let n = xs.len();
        let a = View::<f64>::from_vec("a", [n], xs).unwrap();
        let kern = arg_min(&a);
        let ir = ir_of(&kern);
        let best: ValLoc<f64> = parallel_reduce("arg_min", RangePolicy::new(&Serial, 0..n), kern, MinLoc).unwrap();
        let mut ha = Host::of(&a);
        let init = [Value::F64(f64::INFINITY), Value::U64(u64::MAX)];
        let out = eval_reduce(&ir, &range(n), &mut [ha.arg()], &init).unwrap();
        prop_assert_eq!(out, vec![Value::F64(best.val), Value::U64(best.loc as u64)]);
    }

    #[test]
    fn scan_matches(xs in prop::collection::vec(-100i64..100, 0..60)) {
        let n = xs.len();
        let x = View::<i64>::from_vec("x", [n], xs).unwrap();
        let out = View::<i64>::new("out", [n]).unwrap();
        let kern = prefix(&x, &out);
        let ir = ir_of(&kern);
        let total = parallel_scan("prefix", RangePolicy::new(&Serial, 0..n), kern).unwrap();
        let (mut hx, mut ho) = (Host::of(&x), Host::of(&out));
        ho.data.fill(0);
        let got = eval_scan(&ir, 0, n as u64, &mut [hx.arg(), ho.arg()], Value::I64(0)).unwrap();
        prop_assert_eq!(got, Value::I64(total));
        prop_assert_eq!(out.to_vec(), ho.data);
    }

    #[test]
    fn mdrange_2d_matches(n in 0usize..9, m in 0usize..7, s in -2.0f64..2.0, seed in any::<u64>()) {
        let a = View::<f64, 2>::from_fn("a", [m, n], |[i, j]| unit(seed, i * 13 + j)).unwrap();
        let out = View::<f64, 2>::new("out", [n, m]).unwrap();
        let kern = md2(&out, &a, s);
        let ir = ir_of(&kern);
        parallel_for("md2", MDRangePolicy::new(&Serial, [0, 0], [n, m]), kern).unwrap();
        let (mut ho, mut ha) = (Host::of(&out), Host::of(&a));
        ho.data.fill(0.0);
        let work = WorkSet::MDRange { begin: vec![0, 0], end: vec![n as u64, m as u64] };
        eval_for(&ir, &work, &mut [ho.arg(), ha.arg(), ArgValue::Scalar(Value::F64(s))]).unwrap();
        assert_close("out", &out.to_vec(), &ho.data, &ir);
    }

    #[test]
    fn mdrange_3d_reduce_matches(p in 0usize..5, q in 0usize..5, r in 0usize..5, seed in any::<u64>()) {
        let a = View::<i64, 3>::from_fn("a", [p, q, r], |[i, j, k]| (unit(seed, i * 100 + j * 10 + k) * 1000.0) as i64).unwrap();
        let kern = md3(&a);
        let ir = ir_of(&kern);
        let native: i64 = parallel_reduce("md3", MDRangePolicy::new(&Serial, [0, 0, 0], [p, q, r]), kern, Sum).unwrap();
        let mut ha = Host::of(&a);
        let work = WorkSet::MDRange { begin: vec![0; 3], end: vec![p as u64, q as u64, r as u64] };
        let out = eval_reduce(&ir, &work, &mut [ha.arg()], &[Value::I64(0)]).unwrap();
        prop_assert_eq!(out, vec![Value::I64(native)]);
    }

    #[test]
    fn atomics_histogram_matches(xs in prop::collection::vec(0.0f64..1.0, 0..60), nb in 1usize..9) {
        let n = xs.len();
        let x = View::<f64>::from_vec("x", [n], xs).unwrap();
        let h = View::<u32>::new("h", [nb]).unwrap();
        let cnt = View::<i64>::new("cnt", [3]).unwrap();
        let kern = histogram(&h, &cnt, &x, nb);
        let ir = ir_of(&kern);
        parallel_for("histogram", RangePolicy::new(&Serial, 0..n), kern).unwrap();
        let (mut hh, mut hc, mut hx) = (Host::of(&h), Host::of(&cnt), Host::of(&x));
        hh.data.fill(0);
        hc.data.fill(0);
        eval_for(&ir, &range(n), &mut [hh.arg(), hc.arg(), hx.arg(), ArgValue::Scalar(Value::U64(nb as u64))]).unwrap();
        prop_assert_eq!(h.to_vec(), hh.data);
        prop_assert_eq!(cnt.to_vec(), hc.data);
    }

    #[test]
    fn funcs_match(xs in floats(40), seed in any::<u64>()) {
        let n = xs.len();
        let a = View::<f64>::from_vec("a", [n], xs).unwrap();
        let b = View::<f64>::from_fn("b", [n], |[i]| unit(seed, i)).unwrap();
        let out = View::<f64>::new("out", [n]).unwrap();
        let kern = with_funcs(&out, &a, &b);
        let ir = ir_of(&kern);
        parallel_for("with_funcs", RangePolicy::new(&Serial, 0..n), kern).unwrap();
        let (mut ho, mut ha, mut hb) = (Host::of(&out), Host::of(&a), Host::of(&b));
        ho.data.fill(0.0);
        eval_for(&ir, &range(n), &mut [ho.arg(), ha.arg(), hb.arg()]).unwrap();
        assert_close("out", &out.to_vec(), &ho.data, &ir);
    }

    #[test]
    fn control_flow_matches(xs in prop::collection::vec(-50i64..50, 0..60), limit in 0usize..70) {
        let n = xs.len();
        let x = View::<i64>::from_vec("x", [n], xs).unwrap();
        let out = View::<i64>::new("out", [n]).unwrap();
        let kern = control(&out, &x, limit);
        let ir = ir_of(&kern);
        parallel_for("control", RangePolicy::new(&Serial, 0..n), kern).unwrap();
        let (mut ho, mut hx) = (Host::of(&out), Host::of(&x));
        ho.data.fill(0);
        eval_for(&ir, &range(n), &mut [ho.arg(), hx.arg(), ArgValue::Scalar(Value::U64(limit as u64))]).unwrap();
        prop_assert_eq!(out.to_vec(), ho.data);
    }

    #[test]
    fn generic_kernel_matches_in_both_precisions(xs in floats(40), t in -1.0f64..1.0) {
        let n = xs.len();
        // f64
        let a = View::<f64>::from_vec("a", [n], xs.clone()).unwrap();
        let b = View::<f64>::from_fn("b", [n], |[i]| i as f64 * 0.25).unwrap();
        let y = View::<f64>::new("y", [n]).unwrap();
        let kern = lerp(&y, &a, &b, t);
        let ir = ir_of(&kern);
        parallel_for("lerp64", RangePolicy::new(&Serial, 0..n), kern).unwrap();
        let (mut hy, mut ha, mut hb) = (Host::of(&y), Host::of(&a), Host::of(&b));
        hy.data.fill(0.0);
        eval_for(&ir, &range(n), &mut [hy.arg(), ha.arg(), hb.arg(), ArgValue::Scalar(Value::F64(t))]).unwrap();
        assert_close("y", &y.to_vec(), &hy.data, &ir);
        // f32
        let a = View::<f32>::from_vec("a", [n], xs.iter().map(|&v| v as f32).collect()).unwrap();
        let b = View::<f32>::from_fn("b", [n], |[i]| i as f32 * 0.25).unwrap();
        let y = View::<f32, 1, LayoutLeft>::new("y", [n]).unwrap();
        let kern = lerp(&y, &a, &b, t as f32);
        let ir = ir_of(&kern);
        parallel_for("lerp32", RangePolicy::new(&Serial, 0..n), kern).unwrap();
        let (mut hy, mut ha, mut hb) = (Host::of(&y), Host::of(&a), Host::of(&b));
        hy.data.fill(0.0);
        eval_for(&ir, &range(n), &mut [hy.arg(), ha.arg(), hb.arg(), ArgValue::Scalar(Value::F32(t as f32))]).unwrap();
        for (k, (p, q)) in y.to_vec().iter().zip(&hy.data).enumerate() {
            prop_assert!(close(*p as f64, *q as f64, p.abs() as f64, 1e-5), "y[{}]: {} vs {}\n{}", k, p, q, ir);
        }
    }
}

/// A deterministic value in `[-1, 1)` from a seed and an index.
pub fn unit(seed: u64, k: usize) -> f64 {
    let x = (seed ^ (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

#[test]
fn recursive_func_reports_at_build_time() {
    // Non-IR types, run-time scratch levels and non-builtin nested reducers are compile errors
    // (tests/ui/ir_unsupported_types.rs); recursion through #[func]s shows only when the IR is built.
    let out = View::<u64>::new("out", [4]).unwrap();
    let err = factorials(&out).ir().unwrap_err();
    assert!(err.to_string().contains("recursive"), "{err}");
    parallel_for("fact", RangePolicy::new(&Serial, 0..4), factorials(&out)).unwrap();
    assert_eq!(out.to_vec(), [1, 1, 2, 6]);
}

/// The BabelStream kernels, in both precisions: valid IRs, and triad / dot evaluate as natively.
#[test]
fn babelstream_kernels_have_irs() {
    use babelstream_kernels as bs;
    fn all<T: Float>(v: &View<T>, w: &View<T>, x: &View<T>, s: T) -> Vec<IrKernel> {
        vec![
            ir_of(&bs::init(v, w, x, s, s, s)),
            ir_of(&bs::copy(v, w)),
            ir_of(&bs::mul(v, w, s)),
            ir_of(&bs::add(v, w, x)),
            ir_of(&bs::triad(v, w, x, s)),
            ir_of(&bs::nstream(v, w, x, s)),
            ir_of(&bs::dot(v, w)),
        ]
    }
    let n = 33;
    let v64: Vec<View<f64>> = (0..3)
        .map(|k| View::from_fn("v", [n], |[i]| unit(k, i)).unwrap())
        .collect();
    let v32: Vec<View<f32>> = (0..3)
        .map(|k| View::from_fn("v", [n], |[i]| unit(k, i) as f32).unwrap())
        .collect();
    let k64 = all(&v64[0], &v64[1], &v64[2], 0.4);
    let k32 = all(&v32[0], &v32[1], &v32[2], 0.4f32);
    let empty = ir_of(&bs::empty(&v64[0]));
    for (a, b) in k64.iter().zip(&k32) {
        assert_eq!(a.name, b.name);
        assert_ne!(a.stable_hash(), b.stable_hash(), "{a}\n{b}");
    }
    assert_eq!(empty.name, "empty");

    // triad, f64: a = b + s * c.
    let triad = bs::triad(&v64[0], &v64[1], &v64[2], 0.4);
    let ir = ir_of(&triad);
    parallel_for("triad", RangePolicy::new(&Serial, 0..n), triad).unwrap();
    let mut h: Vec<Host<f64>> = v64.iter().map(Host::of).collect();
    h[0].data.fill(0.0);
    let (h0, rest) = h.split_at_mut(1);
    let (h1, h2) = rest.split_at_mut(1);
    let mut args = [
        h0[0].arg(),
        h1[0].arg(),
        h2[0].arg(),
        ArgValue::Scalar(Value::F64(0.4)),
    ];
    eval_for(&ir, &range(n), &mut args).unwrap();
    assert_close("a", &v64[0].to_vec(), &h0[0].data, &ir);

    // dot, f32.
    let dot = bs::dot(&v32[1], &v32[2]);
    let ir = ir_of(&dot);
    let native: f32 = parallel_reduce("dot", RangePolicy::new(&Serial, 0..n), dot, Sum).unwrap();
    let (mut b, mut c) = (Host::of(&v32[1]), Host::of(&v32[2]));
    let out = eval_reduce(&ir, &range(n), &mut [b.arg(), c.arg()], &[Value::F32(0.0)]).unwrap();
    let Value::F32(got) = out[0] else {
        panic!("{out:?}")
    };
    assert!(
        close(native as f64, got as f64, n as f64, 1e-5),
        "{native} vs {got}\n{ir}"
    );
}

/// The kernels whose hashes the child process recomputes, with their IRs.
fn hashed_kernels() -> Vec<IrKernel> {
    let v = View::<f64>::new("v", [4]).unwrap();
    let w = View::<f64>::new("w", [4]).unwrap();
    let u = View::<u32>::new("u", [4]).unwrap();
    let m = View::<f64, 2>::new("m", [2, 2]).unwrap();
    let i = View::<i64>::new("i", [4]).unwrap();
    let f = View::<f32>::new("f", [4]).unwrap();
    vec![
        ir_of(&expressions(&v, &u, &w, 1, 0.5)),
        ir_of(&row_dot(&m, &v)),
        ir_of(&team_rows(&m, &m, &v)),
        ir_of(&with_funcs(&v, &w, &w)),
        ir_of(&control(&i, &i, 3)),
        ir_of(&lerp(&f, &f, &f, 0.5f32)),
        ir_of(&babelstream_kernels::triad(&v, &w, &w, 0.4)),
    ]
}

/// Golden CUDA C: the module the CUDA emitter writes for each representative kernel matches
/// `tests/snapshots/cuda/<kernel>.cu` (reductions with a `Sum` per accumulator, team kernels for
/// teams of 4 threads with vector length 2: `team_rows` is a team `parallel_for` with level-0
/// team scratch and every team construct, `team_vec` a team reduction with nested levels and
/// thread scratch, on virtual lanes for its vector reduction, `lane_sums` vector reductions and
/// scans through warp shuffles; `triad.w32` BabelStream's triad and `team_rows.w32` the team
/// kernel in the 32-bit index variant, the one a launch whose sizes fit 32 bits runs;
/// `team_vec.ordered` the team reduction in the ordered-partials mode of a reducer whose join is
/// host code, `rokkos_device::runtime::ordered`: a league block per block, a partial per thread); a kernel the
/// emitter does not implement yet has its `Unsupported` reason as the golden text, so the gap is
/// reviewable too. Regenerate with `ROKKOS_BLESS=1 cargo test --test ir_equivalence snapshots`.
#[test]
fn cuda_snapshots_match_golden_files() {
    use rokkos::ir::Pattern;
    use rokkos::JoinKind;
    use rokkos_cuda::emit::{emit, CudaOptions, Entry};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/cuda");
    let bless = std::env::var_os("ROKKOS_BLESS").is_some();
    let mut failures = Vec::new();
    let m = View::<i64, 2>::new("m", [2, 2]).unwrap();
    let mut all = hashed_kernels();
    all.push(ir_of(&team_vec(&m, &m)));
    let f = View::<f64, 2>::new("f", [2, 2]).unwrap();
    all.push(ir_of(&lane_sums(&f, &f)));
    use rokkos_cuda::emit::IndexWidth;
    let v = View::<f64>::new("v", [4]).unwrap();
    // The third element: the ordered-partials mode (a reducer whose join is host code).
    let mut all: Vec<(IrKernel, IndexWidth, bool)> = all
        .into_iter()
        .map(|k| (k, IndexWidth::W64, false))
        .collect();
    all.push((
        ir_of(&babelstream_kernels::triad(&v, &v, &v, 0.4)),
        IndexWidth::W32,
        false,
    ));
    let r = View::<f64>::new("r", [2]).unwrap();
    all.push((ir_of(&team_rows(&f, &f, &r)), IndexWidth::W32, false));
    all.push((ir_of(&team_vec(&m, &m)), IndexWidth::W64, true));
    for (k, width, ordered) in all {
        let info = validate(&k).unwrap();
        let reduce = k.pattern() == Pattern::Reduce;
        let opts = CudaOptions {
            entry: match (reduce, ordered) {
                (true, true) => Entry::Ordered { left: false },
                (true, false) => Entry::Reduce,
                _ => Entry::For,
            },
            block: 256,
            bounds_checks: true,
            joins: k
                .accumulators
                .iter()
                .filter(|_| !ordered)
                .map(|_| JoinKind::Op(rokkos::ir::ReducerKind::Sum))
                .collect(),
            in_bounds: Default::default(),
            team: Some(rokkos_cuda::emit::TeamShape { team: 4, vlen: 2 }),
            width,
        };
        let text = match emit(&k, &info, &opts) {
            Ok(src) => {
                // Every golden module compiles (where NVRTC is installed; CI requires it).
                if rokkos_cuda::compile::nvrtc_version().is_ok() {
                    let arch = rokkos_cuda::compile::Arch::SM_90;
                    if let Err(e) = rokkos_cuda::compile::compile_ptx(&src.source, &k.name, arch) {
                        failures.push(format!("{}: NVRTC refused it: {e}", k.name));
                    }
                }
                src.source
            }
            Err(e) => format!("// not emitted: {e}\n"),
        };
        let suffix = match (width, ordered) {
            (_, true) => ".ordered",
            (IndexWidth::W32, _) => ".w32",
            _ => "",
        };
        let path = dir.join(format!("{}{suffix}.cu", k.name));
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(want) if want == text => {}
            Ok(want) => failures.push(format!(
                "{}: differs from the golden file\n--- golden\n{want}\n--- now\n{text}",
                path.display()
            )),
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(regenerate with ROKKOS_BLESS=1 if the change is intended)",
        failures.join("\n")
    );
}

const HASH_CHILD: &str = "ROKKOS_IR_HASH_CHILD";

/// In the child process: prints `IRHASH <name> <hash>` per kernel.
#[test]
fn ir_hash_child() {
    if std::env::var_os(HASH_CHILD).is_none() {
        return;
    }
    for k in hashed_kernels() {
        println!("\nIRHASH {} {:016x}", k.name, k.stable_hash());
        if std::env::var_os("ROKKOS_IR_PRINT").is_some() {
            println!("{k}");
        }
    }
}

/// The stable hash of each kernel's IR is the same in another process running the same binary.
#[test]
fn ir_hash_is_stable_across_processes() {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            "ir_hash_child",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(HASH_CHILD, "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let child: Vec<(String, String)> = stdout
        .lines()
        .filter_map(|l| l.split_once("IRHASH ").map(|(_, rest)| rest))
        .map(|l| {
            let (n, h) = l.split_once(' ').unwrap();
            (n.to_string(), h.to_string())
        })
        .collect();
    let here = hashed_kernels();
    assert_eq!(child.len(), here.len(), "child printed:\n{stdout}");
    for (k, (name, hash)) in here.iter().zip(&child) {
        assert_eq!(&k.name, name);
        assert_eq!(
            format!("{:016x}", k.stable_hash()),
            *hash,
            "hash of `{name}` differs in the child process; its IR:\n{k}"
        );
        // Recording twice gives the same IR.
        assert_eq!(*k, k.clone());
    }
}

/// The three arrays and the dot product at the end of a BabelStream sequence.
type StreamResult<T> = (Vec<T>, Vec<T>, Vec<T>, T);

/// Runs the whole BabelStream sequence (init, copy, mul, add, triad, nstream, dot) on `space`, with
/// the Views in the space's own memory (host code never indexes them: `IrEval`'s memory, like a
/// GPU's, is not host accessible); the results come back through host mirrors.
fn babelstream_on<T: Float, E: ExecutionSpace>(
    space: &E,
    n: usize,
    start: [T; 3],
    s: T,
) -> rokkos::Result<StreamResult<T>> {
    use babelstream_kernels as bs;
    let mem = space.memory_space();
    let (a, b, c) = (
        View::<T, 1, LayoutRight, E::Memory>::new_in(&mem, "a", [n])?,
        View::<T, 1, LayoutRight, E::Memory>::new_in(&mem, "b", [n])?,
        View::<T, 1, LayoutRight, E::Memory>::new_in(&mem, "c", [n])?,
    );
    let p = || RangePolicy::new(space, 0..n);
    parallel_for(
        "init",
        p(),
        bs::init(&a, &b, &c, start[0], start[1], start[2]),
    )?;
    parallel_for("copy", p(), bs::copy(&c, &a))?;
    parallel_for("mul", p(), bs::mul(&b, &c, s))?;
    parallel_for("add", p(), bs::add(&c, &a, &b))?;
    parallel_for("triad", p(), bs::triad(&a, &b, &c, s))?;
    parallel_for("nstream", p(), bs::nstream(&a, &b, &c, s))?;
    let dot = parallel_reduce("dot", p(), bs::dot(&a, &b), Sum)?;
    let host =
        |v: &View<T, 1, LayoutRight, E::Memory>| create_mirror_view_and_copy(v).map(|m| m.to_vec());
    Ok((host(&a)?, host(&b)?, host(&c)?, dot))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Every BabelStream kernel, both precisions, on drawn sizes and values: the IR evaluator
    /// (`IrEval`) gives bit-for-bit the native Serial results (same operations, same order).
    #[test]
    fn babelstream_sequence_ir_matches_native(
        n in prop_oneof![Just(0usize), Just(1), 2usize..600],
        start in proptest::array::uniform3(-4.0f64..4.0),
        s in -2.0f64..2.0,
    ) {
        let native = babelstream_on(&Serial, n, start, s).unwrap();
        let ir = babelstream_on(&rokkos::ir::eval::IrEval, n, start, s).unwrap();
        prop_assert_eq!(native.3.to_bits(), ir.3.to_bits());
        prop_assert_eq!((&native.0, &native.1, &native.2), (&ir.0, &ir.1, &ir.2));
        let start32 = start.map(|x| x as f32);
        let native = babelstream_on(&Serial, n, start32, s as f32).unwrap();
        let ir = babelstream_on(&rokkos::ir::eval::IrEval, n, start32, s as f32).unwrap();
        prop_assert_eq!(native.3.to_bits(), ir.3.to_bits());
        prop_assert_eq!((&native.0, &native.1, &native.2), (&ir.0, &ir.1, &ir.2));
    }
}

/// Golden IR: the pretty-printed IR of representative kernels (and its stable hash) matches
/// `tests/snapshots/ir/<kernel>.ir`. A change to the IR recording, the printer or the hash shows up
/// as a reviewable diff; regenerate with `ROKKOS_BLESS=1 cargo test --test ir_equivalence snapshots`.
#[test]
fn ir_snapshots_match_golden_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/ir");
    let bless = std::env::var_os("ROKKOS_BLESS").is_some();
    let mut failures = Vec::new();
    for k in hashed_kernels() {
        let text = format!("// stable_hash {:016x}\n{k}", k.stable_hash());
        let path = dir.join(format!("{}.ir", k.name));
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(want) if want == text => {}
            Ok(want) => failures.push(format!(
                "{}: differs from the golden file\n--- golden\n{want}\n--- now\n{text}",
                path.display()
            )),
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(regenerate with ROKKOS_BLESS=1 if the change is intended)",
        failures.join("\n")
    );
}

/// Two `#[func]`s of one name in two modules, one imported by a glob and the other by name:
/// rustc takes the named one, and so must the IR the devices run (its recorder went by a name of
/// its own, which the glob supplied: the host ran one function and the devices the other).
mod func_imports {
    // Not called: the named import takes its place.
    #[allow(dead_code)]
    pub mod plus_one {
        #[rokkos::func]
        pub fn shift(x: f64) -> f64 {
            x + 1.0
        }
    }
    pub mod doubled {
        #[rokkos::func]
        pub fn shift(x: f64) -> f64 {
            2.0 * x
        }
    }
    pub mod kernels {
        #[allow(unused_imports)]
        use super::doubled::shift;
        #[allow(unused_imports)]
        use super::plus_one::*;
        use rokkos::prelude::*;

        #[kernel]
        pub fn shifted(i: usize, out: ViewMut<f64>) {
            out[i] = shift(i as f64);
        }
    }
}

#[test]
fn func_imports_bind_one_definition_on_every_path() {
    use rokkos::ir::eval::IrEval;
    let n = 5;
    let expect: Vec<f64> = (0..n).map(|i| 2.0 * i as f64).collect();
    let host = View::<f64>::new("out", [n]).unwrap();
    parallel_for(
        "shifted",
        RangePolicy::new(&Serial, 0..n),
        func_imports::kernels::shifted(&host),
    )
    .unwrap();
    assert_eq!(host.to_vec(), expect, "serial");
    let mem = IrEval.memory_space();
    let dev = View::<f64, 1, LayoutRight, _>::new_in(&mem, "out", [n]).unwrap();
    parallel_for(
        "shifted",
        RangePolicy::new(&IrEval, 0..n),
        func_imports::kernels::shifted(&dev),
    )
    .unwrap();
    assert_eq!(
        create_mirror_view_and_copy(&dev).unwrap().to_vec(),
        expect,
        "the IR evaluator"
    );
}
