//! Reductions in CUDA C, with no floating-point atomics (the same bits run to run): each thread
//! folds its work items into its accumulators, the block joins them (warp shuffles, then one
//! value per warp through shared memory, then the first warp), thread 0 writes the block's
//! partial; the second pass (entry [`FINAL`]) joins the partials in one block into the result
//! (the host's or a device View's element). The joins are the reducers' (`ReducerKind::join`,
//! `rokkos_core::reducer::JoinKind`): float `Min`/`Max` are IEEE 754-2019 `minimum`/`maximum`
//! (a NaN wins, `-0 < +0`), `MinLoc`/`MaxLoc` prefer a NaN value and then the smaller location.

use super::target::cty;
use rokkos_core::ir::{Kernel, ReducerKind, ScalarType};
use rokkos_core::reducer::JoinKind;
use rokkos_device::emit::{names, EmitError};

/// The second pass's entry point.
pub const FINAL: &str = "rk_final";

/// `a op b` for scalar reducer `r` on type `t` (operands are names: evaluated more than once).
pub(crate) fn join_op(r: ReducerKind, t: ScalarType, a: &str, b: &str) -> String {
    let tn = cty(t);
    match r {
        ReducerKind::Sum if t.is_int() => format!("rk_wadd<{tn}>({a}, {b})"),
        ReducerKind::Prod if t.is_int() => format!("rk_wmul<{tn}>({a}, {b})"),
        ReducerKind::Sum => format!("({a} + {b})"),
        ReducerKind::Prod => format!("({a} * {b})"),
        ReducerKind::Min | ReducerKind::Max if t.is_float() => {
            let bits = |x: &str| {
                if t == ScalarType::F32 {
                    format!("__float_as_uint({x})")
                } else {
                    format!("(u64)__double_as_longlong({x})")
                }
            };
            let (better, sign) = if r == ReducerKind::Min {
                ("<", ">")
            } else {
                (">", "<")
            };
            format!(
                "(!({a} == {a}) ? {a} : !({b} == {b}) ? {b} : ({b} {better} {a} || ({b} == {a} && {} {sign} {})) ? {b} : {a})",
                bits(b),
                bits(a)
            )
        }
        ReducerKind::Min => format!("({b} < {a} ? {b} : {a})"),
        ReducerKind::Max => format!("({b} > {a} ? {b} : {a})"),
        ReducerKind::LAnd => format!("({a} && {b})"),
        ReducerKind::LOr => format!("({a} || {b})"),
        ReducerKind::BAnd => format!("(({tn})({a} & {b}))"),
        ReducerKind::BOr => format!("(({tn})({a} | {b}))"),
    }
}

/// `rk_join(a.., b..)`: the accumulators `a` (by reference) joined with `b`, per reducer.
fn join_fn(k: &Kernel, joins: &[JoinKind]) -> String {
    let fields = k.acc_fields();
    let mut params = Vec::new();
    for (i, (_, t)) in fields.iter().enumerate() {
        params.push(format!("{}& {}", cty(*t), names::acc(i)));
    }
    for (i, (_, t)) in fields.iter().enumerate() {
        params.push(format!("const {} b{i}", cty(*t)));
    }
    let mut s = format!(
        "__device__ __forceinline__ void rk_join({}) {{\n",
        params.join(", ")
    );
    let mut f0 = 0;
    for (a, jk) in k.accumulators.iter().zip(joins) {
        let t = a.shape.fields()[0].1;
        let (a0, b0) = (names::acc(f0), format!("b{f0}"));
        let (a1, b1) = (names::acc(f0 + 1), format!("b{}", f0 + 1));
        match jk {
            JoinKind::Op(r) => {
                s.push_str(&format!("    {a0} = {};\n", join_op(*r, t, &a0, &b0)));
            }
            JoinKind::MinLoc | JoinKind::MaxLoc => {
                let c = if *jk == JoinKind::MinLoc { "<" } else { ">" };
                s.push_str(&format!(
                    "    {{ const bool sn = !({b0} == {b0}); const bool dn = !({a0} == {a0});\n      if ((sn && (!dn || {b1} < {a1})) || (!sn && !dn && ({b0} {c} {a0} || ({b0} == {a0} && {b1} < {a1})))) {{ {a0} = {b0}; {a1} = {b1}; }} }}\n"
                ));
            }
            JoinKind::MinMax => {
                s.push_str(&format!(
                    "    {a0} = {};\n    {a1} = {};\n",
                    join_op(ReducerKind::Min, t, &a0, &b0),
                    join_op(ReducerKind::Max, t, &a1, &b1)
                ));
            }
        }
        f0 += a.shape.fields().len();
    }
    s.push_str("}\n");
    s
}

/// The accumulators' initial values (the reducer's identity, in the parameter block).
pub(crate) fn init_accs(k: &Kernel) -> String {
    let mut s = String::new();
    for (i, (_, t)) in k.acc_fields().iter().enumerate() {
        let v = if *t == ScalarType::Bool {
            format!("(P.init{i} != 0u)")
        } else {
            format!("P.init{i}")
        };
        s.push_str(&format!("    {} {} = {v};\n", cty(*t), names::acc(i)));
    }
    s
}

fn accs(k: &Kernel) -> Vec<String> {
    (0..k.acc_fields().len()).map(names::acc).collect()
}

/// The warp and block joins, the join function and the second pass; `block` threads per block
/// (a multiple of 32: every lane of every warp takes part in the shuffles).
pub(crate) fn helpers(k: &Kernel, joins: &[JoinKind], block: u32) -> Result<String, EmitError> {
    if block % 32 != 0 || block == 0 || block > 1024 {
        return Err(EmitError::Mismatch(format!(
            "a reduction block of {block} threads (a multiple of 32 up to 1024)"
        )));
    }
    let fields = k.acc_fields();
    let a = accs(k);
    let refs: Vec<String> = fields
        .iter()
        .enumerate()
        .map(|(i, (_, t))| format!("{}& {}", cty(*t), names::acc(i)))
        .collect();
    let mut s = join_fn(k, joins);
    s.push_str("template <class T> __device__ __forceinline__ T rk_shfl(T v, int o) { return __shfl_down_sync(0xffffffffu, v, o); }\n");
    s.push_str("template <> __device__ __forceinline__ bool rk_shfl<bool>(bool v, int o) { return __shfl_down_sync(0xffffffffu, (int)v, o) != 0; }\n");
    // Warp: lane i joins lane i + o (an earlier lane with a later one), halving each step.
    let mut w = format!(
        "__device__ __forceinline__ void rk_warp_join({}) {{\n    for (int o = 16; o > 0; o >>= 1) {{\n",
        refs.join(", ")
    );
    let bs: Vec<String> = (0..fields.len()).map(|i| format!("b{i}")).collect();
    for (i, (_, t)) in fields.iter().enumerate() {
        w.push_str(&format!(
            "        const {} b{i} = rk_shfl({}, o);\n",
            cty(*t),
            names::acc(i)
        ));
    }
    w.push_str(&format!(
        "        if ((threadIdx.x % 32u) + (unsigned)o < 32u) {{ rk_join({}, {}); }}\n    }}\n}}\n",
        a.join(", "),
        bs.join(", ")
    ));
    s.push_str(&w);
    // Block: one value per warp through shared memory, then the first warp joins those.
    let mut b = format!(
        "__device__ __forceinline__ void rk_block_join(const rk_P& P, {}) {{\n",
        refs.join(", ")
    );
    for (i, (_, t)) in fields.iter().enumerate() {
        b.push_str(&format!("    __shared__ {} sh{i}[32];\n", cty(*t)));
    }
    b.push_str(&format!(
        "    const unsigned lane = threadIdx.x % 32u, warp = threadIdx.x / 32u;\n    rk_warp_join({});\n    if (lane == 0u) {{",
        a.join(", ")
    ));
    for (i, _) in fields.iter().enumerate() {
        b.push_str(&format!(" sh{i}[warp] = {};", names::acc(i)));
    }
    b.push_str(" }\n    __syncthreads();\n    if (warp == 0u) {\n        const bool mine = lane < (blockDim.x + 31u) / 32u;\n");
    for (i, (_, t)) in fields.iter().enumerate() {
        let init = if *t == ScalarType::Bool {
            format!("(P.init{i} != 0u)")
        } else {
            format!("P.init{i}")
        };
        b.push_str(&format!(
            "        {} = mine ? sh{i}[lane] : {init};\n",
            names::acc(i)
        ));
    }
    b.push_str(&format!(
        "        rk_warp_join({});\n    }}\n}}\n",
        a.join(", ")
    ));
    s.push_str(&b);
    // The second pass: one block joins the partials into the result.
    let mut f = format!(
        "extern \"C\" __global__ void __launch_bounds__({block}) {FINAL}(const rk_P P) {{\n{}    for (u64 i = threadIdx.x; i < P.nparts; i += blockDim.x) {{\n",
        init_accs(k)
    );
    for (i, (_, t)) in fields.iter().enumerate() {
        f.push_str(&format!(
            "        const {} b{i} = {};\n",
            cty(*t),
            load_part(*t, &format!("P.out{i}[i]"))
        ));
    }
    f.push_str(&format!(
        "        rk_join({}, {});\n    }}\n    rk_block_join(P, {});\n    if (threadIdx.x == 0u) {{\n",
        a.join(", "),
        bs.join(", "),
        a.join(", ")
    ));
    for (i, (_, t)) in fields.iter().enumerate() {
        f.push_str(&format!(
            "        P.res{i}[0] = {};\n",
            store_part(*t, &names::acc(i))
        ));
    }
    f.push_str("    }\n}\n");
    s.push_str(&f);
    Ok(s)
}

/// A partial of type `t` as stored (`bool` as a `u32` 0/1).
pub(crate) fn store_part(t: ScalarType, e: &str) -> String {
    if t == ScalarType::Bool {
        format!("(u32)({e})")
    } else {
        e.to_string()
    }
}
pub(crate) fn load_part(t: ScalarType, e: &str) -> String {
    if t == ScalarType::Bool {
        format!("({e} != 0u)")
    } else {
        e.to_string()
    }
}

/// The first pass's entry: fold, block join, one partial per block at `P.outN[blockIdx.x]`.
/// `fold` is the loop over this thread's work items, calling `rk_work` with the accumulators.
pub(crate) fn first_pass(k: &Kernel, head: &str, fold: &str) -> String {
    let mut s = format!("{head}{}{fold}", init_accs(k));
    s.push_str(&format!(
        "    rk_block_join(P, {});\n    if (threadIdx.x == 0u) {{\n",
        accs(k).join(", ")
    ));
    for (i, (_, t)) in k.acc_fields().iter().enumerate() {
        s.push_str(&format!(
            "        P.out{i}[blockIdx.x] = {};\n",
            store_part(*t, &names::acc(i))
        ));
    }
    s.push_str("    }\n}\n");
    s
}

/// The entry point of the scan's second pass (exclusive prefixes of the block totals).
pub const SCAN_PARTS: &str = "rk_scan_parts";
/// The entry point of the scan's third pass (the body with `final == true`).
pub const SCAN_FINAL: &str = "rk_scan_final";

/// `parallel_scan` over a range, reduce-then-scan in three kernels of one module: each thread
/// owns `P.per` consecutive indices and each block `blockDim.x * P.per` of them, so that a
/// block's items, and a thread's, are contiguous in index order.
///
/// 1. [`super::entry::ENTRY`]: the body with `final == false` over the thread's items, the block
///    join, the block's total to `P.out0[block]`.
/// 2. [`SCAN_PARTS`]: one thread turns the totals into exclusive prefixes in order and writes
///    the grand total to `P.res0[0]` (a few thousand partials: sequential is exact and cheap).
/// 3. [`SCAN_FINAL`]: the thread totals again, their exclusive scan in the block (shared memory,
///    `blockDim.x` steps of doubling), then the body with `final == true` exactly once per index,
///    from the block's prefix joined with the thread's.
///
/// `narrow`: the 32-bit index variant (`begin` and `n` are `u32` fields; the thread's items stay
/// counted in 64 bits, each passed as a `u32` work index below the range's end).
pub(crate) fn scan(
    k: &Kernel,
    joins: &[JoinKind],
    block: u32,
    narrow: bool,
    stop: super::entry::Stop,
) -> Result<String, EmitError> {
    let (t, r) = match (k.acc_fields().as_slice(), joins) {
        ([(_, t)], [JoinKind::Op(r)]) => (*t, *r),
        _ => {
            return Err(EmitError::Mismatch(
                "a scan needs one scalar accumulator and a scalar reducer".into(),
            ))
        }
    };
    if k.work != rokkos_core::ir::WorkKind::Range {
        return Err(EmitError::Mismatch("a scan over a non-range policy".into()));
    }
    let tn = cty(t);
    let mut s = helpers(k, joins, block)?;
    let init = if t == ScalarType::Bool {
        "(P.init0 != 0u)".to_string()
    } else {
        "P.init0".to_string()
    };
    // The thread's items: [lo, hi) of the range's offsets.
    let w = if narrow {
        "(u32)(P.begin + i)"
    } else {
        "P.begin + i"
    };
    let items = |fin: &str| {
        format!(
            "    {{ const u64 lo = ((u64)blockIdx.x * blockDim.x + threadIdx.x) * P.per;\n      for (u64 i = lo; i < lo + P.per && i < P.n; ++i) {{\n{}        rk_work(P, {w}, a0, {fin});\n{}      }} }}\n",
            stop.open("        ", 0),
            stop.close("        ", 0)
        )
    };
    s.push_str(&format!(
        "extern \"C\" __global__ void __launch_bounds__({block}) {}(const rk_P P) {{\n    {tn} a0 = {init};\n{}    rk_block_join(P, a0);\n    if (threadIdx.x == 0u) {{ P.out0[blockIdx.x] = {}; }}\n}}\n",
        super::entry::ENTRY,
        items("false"),
        store_part(t, "a0")
    ));
    s.push_str(&format!(
        "extern \"C\" __global__ void __launch_bounds__({block}) {SCAN_PARTS}(const rk_P P) {{\n    if (threadIdx.x != 0u) {{ return; }}\n    {tn} a0 = {init};\n    for (u64 i = 0; i < P.nparts; ++i) {{\n        const {tn} b0 = {};\n        P.out0[i] = {};\n        rk_join(a0, b0);\n    }}\n    P.res0[0] = {};\n}}\n",
        load_part(t, "P.out0[i]"),
        store_part(t, "a0"),
        store_part(t, "a0")
    ));
    let join = join_op(r, t, "x", "y");
    s.push_str(&format!(
        "extern \"C\" __global__ void __launch_bounds__({block}) {SCAN_FINAL}(const rk_P P) {{\n    __shared__ {tn} sh[{block}];\n    {tn} a0 = {init};\n{}    sh[threadIdx.x] = a0;\n    __syncthreads();\n    for (unsigned off = 1u; off < blockDim.x; off <<= 1) {{\n        {tn} y = sh[threadIdx.x];\n        if (threadIdx.x >= off) {{ const {tn} x = sh[threadIdx.x - off]; y = {join}; }}\n        __syncthreads();\n        sh[threadIdx.x] = y;\n        __syncthreads();\n    }}\n    {{ const {tn} x = {}; const {tn} y = threadIdx.x > 0u ? sh[threadIdx.x - 1u] : {init}; a0 = {join}; }}\n{}}}\n",
        items("false"),
        load_part(t, "P.out0[blockIdx.x]"),
        items("true")
    ));
    Ok(s)
}
