//! Entry points: how work items map onto invocations, and the workgroup joins of reductions and
//! scans (in workgroup memory, with the reducers' [`JoinKind`] operations spelled in WGSL).

use super::math::nan_bits_test;
use super::{wty, EmitError, EmitOptions, Entry, Helpers};
use crate::params::storage_type;
use rokkos_core::ir::{Kernel, ReducerKind, ScalarType, WorkKind};
use rokkos_core::reducer::JoinKind;
use rokkos_device::emit::width::IndexWidth;

type R<T> = Result<T, EmitError>;

/// Whether the entry's loops leave early once the launch has recorded a failure (the kernel can
/// record one: see `emit`). Each loop trip reads the launch's error word as it starts and tests
/// it as it ends, so that the read's latency overlaps the trip's work; an invocation then runs
/// at most one trip after the failure is visible to it (`rokkos_device::runtime::limits`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stop(pub bool);

impl Stop {
    /// The start of a trip at nesting `depth` (its own name, so nested loops do not shadow).
    pub(crate) fn open(self, pad: &str, depth: usize) -> String {
        if self.0 {
            format!("{pad}let rk_st{depth} = rk_stopped();\n")
        } else {
            String::new()
        }
    }
    /// The end of a trip opened by [`Stop::open`] at the same `depth`.
    pub(crate) fn close(self, pad: &str, depth: usize) -> String {
        if self.0 {
            format!("{pad}if (rk_st{depth}) {{ break; }}\n")
        } else {
            String::new()
        }
    }
}

/// Bindings after the View parameters: `(name, access, element type)`.
pub(crate) fn extra_bindings(
    k: &Kernel,
    opts: &EmitOptions,
) -> Vec<(String, &'static str, ScalarType)> {
    let fields = k.acc_fields();
    match opts.entry {
        Entry::For => Vec::new(),
        Entry::Reduce | Entry::ScanTotals | Entry::Ordered { .. } => fields
            .iter()
            .enumerate()
            .map(|(i, (_, t))| (format!("out{i}"), "read_write", storage_type(*t)))
            .collect(),
        Entry::Team { reduce, shape, .. } => {
            let mut v: Vec<(String, &'static str, ScalarType)> = if reduce {
                fields
                    .iter()
                    .enumerate()
                    .map(|(i, (_, t))| (format!("out{i}"), "read_write", storage_type(*t)))
                    .collect()
            } else {
                Vec::new()
            };
            if shape.arena(1) > 0 || super::team::uses_level(k, 1) {
                v.push(("scr1".into(), "read_write", ScalarType::U32));
            }
            v
        }
        Entry::ScanFinal | Entry::OrderedScan => fields
            .iter()
            .enumerate()
            .map(|(i, (_, t))| (format!("pre{i}"), "read", storage_type(*t)))
            .collect(),
    }
}

/// Checks that the reducer's joins fit the kernel's accumulators (shared with every target).
pub use rokkos_device::emit::joins::check_joins;

fn from_storage(t: ScalarType, e: &str) -> String {
    if t == ScalarType::Bool {
        format!("({e} != 0u)")
    } else {
        e.to_string()
    }
}
pub(crate) fn to_storage(t: ScalarType, e: &str) -> String {
    if t == ScalarType::Bool {
        format!("select(0u, 1u, {e})")
    } else {
        e.to_string()
    }
}

/// `a op b` for a scalar reducer on values of type `t`, as `ReducerKind::join` defines it (`a` and
/// `b` are evaluated more than once: pass names or array elements). Float `Min`/`Max` are IEEE
/// 754-2019 `minimum`/`maximum`: a NaN operand wins (tested on its bits, [`nan_bits_test`]), and of equal operands the one with the sign bit (`minimum`) or without (`maximum`),
/// found by comparing the bits, which differ only for `±0`.
pub(crate) fn join_op(r: ReducerKind, t: ScalarType, a: &str, b: &str) -> String {
    match r {
        // Integer joins wrap; a packed type's (`emit::packed`) is brought back into its range,
        // since a join's value can reach the kernel again (a scan's prefix, a nested reduction).
        ReducerKind::Sum | ReducerKind::Prod if super::packed::is_packed(t) => {
            let op = if r == ReducerKind::Sum { "+" } else { "*" };
            let x = format!("({a} {op} {b})");
            if super::packed::is_signed_packed(t) {
                super::packed::wrap_signed(t, &x)
            } else {
                format!("({x} & {})", super::packed::max_lit(t))
            }
        }
        ReducerKind::Sum => format!("({a} + {b})"),
        ReducerKind::Prod => format!("({a} * {b})"),
        ReducerKind::Min | ReducerKind::Max if t.is_float() => {
            let bits = if t == ScalarType::F32 { "u32" } else { "u64" };
            let (better, sign) = if r == ReducerKind::Min {
                ("<", ">")
            } else {
                (">", "<")
            };
            let (a_nan, b_nan) = (nan_bits_test(t, a), nan_bits_test(t, b));
            format!(
                "select(select(select({a}, {b}, {b} {better} {a} || ({b} == {a} && bitcast<{bits}>({b}) {sign} bitcast<{bits}>({a}))), {b}, {b_nan}), {a}, {a_nan})"
            )
        }
        ReducerKind::Min => format!("select({a}, {b}, {b} < {a})"),
        ReducerKind::Max => format!("select({a}, {b}, {b} > {a})"),
        ReducerKind::LAnd => format!("({a} && {b})"),
        ReducerKind::LOr => format!("({a} || {b})"),
        ReducerKind::BAnd => format!("({a} & {b})"),
        ReducerKind::BOr => format!("({a} | {b})"),
    }
}

/// Joins element `j` of the shared arrays into element `i`, accumulator by accumulator.
/// Element type of a reduction tree's workgroup array for a field of type `t`: `bool` fields are
/// kept as `u32` 0/1 (bool arrays in workgroup memory miscompute on NVIDIA's Vulkan driver).
pub(crate) fn sh_elem(t: ScalarType) -> &'static str {
    if t == ScalarType::Bool {
        "u32"
    } else {
        wty(t)
    }
}

/// `sh{i}[li] = a{i};` for a field of type `t`.
pub(crate) fn sh_store(i: usize, t: ScalarType) -> String {
    if t == ScalarType::Bool {
        format!("    sh{i}[li] = select(0u, 1u, a{i});\n")
    } else {
        format!("    sh{i}[li] = a{i};\n")
    }
}

/// The joined value of field `i` (of type `t`) in its storage type.
pub(crate) fn sh_result(i: usize, t: ScalarType) -> String {
    if t == ScalarType::Bool {
        format!("sh{i}[0]")
    } else {
        to_storage(t, &format!("sh{i}[0]"))
    }
}

pub(crate) fn tree_join(k: &Kernel, joins: &[JoinKind], i: &str, j: &str) -> String {
    let mut s = String::new();
    let mut f0 = 0;
    for (a, jk) in k.accumulators.iter().zip(joins) {
        match jk {
            JoinKind::Op(r) => {
                let joined = match (a.shape.fields()[0].1, r) {
                    // `bool` fields are 0/1 words in the tree (see `sh_elem`).
                    (ScalarType::Bool, rokkos_core::ir::ReducerKind::LAnd) => {
                        format!("(sh{f0}[{i}] & sh{f0}[{j}])")
                    }
                    (ScalarType::Bool, _) => format!("(sh{f0}[{i}] | sh{f0}[{j}])"),
                    (t, _) => join_op(*r, t, &format!("sh{f0}[{i}]"), &format!("sh{f0}[{j}]")),
                };
                s.push_str(&format!("            sh{f0}[{i}] = {joined};\n"));
            }
            JoinKind::MinLoc | JoinKind::MaxLoc => {
                // A NaN value wins over a number; equal values (and two NaNs) go to the smaller
                // location (`rokkos_core::reducer::MinLoc`). For integers the NaN tests are false.
                let c = if *jk == JoinKind::MinLoc { "<" } else { ">" };
                let f1 = f0 + 1;
                let t = a.shape.fields()[0].1;
                let (sn, dn) = (nan_bits_test(t, "sv"), nan_bits_test(t, "dv"));
                s.push_str(&format!(
                    "            {{ let sv = sh{f0}[{j}]; let dv = sh{f0}[{i}]; let sl = sh{f1}[{j}]; let dl = sh{f1}[{i}];\n              let sn = {sn}; let dn = {dn};\n              if ((sn && (!dn || sl < dl)) || (!sn && !dn && (sv {c} dv || (sv == dv && sl < dl)))) {{ sh{f0}[{i}] = sv; sh{f1}[{i}] = sl; }} }}\n"
                ));
            }
            JoinKind::MinMax => {
                let (f1, t) = (f0 + 1, a.shape.fields()[0].1);
                let (d0, s0) = (format!("sh{f0}[{i}]"), format!("sh{f0}[{j}]"));
                let (d1, s1) = (format!("sh{f1}[{i}]"), format!("sh{f1}[{j}]"));
                s.push_str(&format!(
                    "            {{ let mn = {}; let mx = {};\n              {d0} = mn; {d1} = mx; }}\n",
                    join_op(ReducerKind::Min, t, &d0, &s0),
                    join_op(ReducerKind::Max, t, &d1, &s1)
                ));
            }
        }
        f0 += a.shape.fields().len();
    }
    s
}

/// The ordered-partials fold of a range (`rokkos_device::runtime::ordered`): invocation `lin`
/// folds the items `block_bounds(P.n, P.parts, lin)` in order, from `P.begin`, and stores its
/// accumulators as partial `lin`; or, `replay` (a scan's last step), starts from the block's
/// prefix `pre{i}[lin]` with `final == true` and stores nothing. `l` is the index type's literal
/// suffix. The block arithmetic stays below `P.n`, so the 32-bit variant computes it exactly.
fn ordered_range(k: &Kernel, l: &str, replay: bool, stop: Stop) -> String {
    let mut s = String::from("    if (lin < P.parts) {\n");
    if replay {
        for (i, (_, t)) in k.acc_fields().iter().enumerate() {
            s.push_str(&format!(
                "        a{i} = {};\n",
                from_storage(*t, &format!("pre{i}[lin]"))
            ));
        }
        s.push_str("        rk_fin = true;\n");
    }
    s.push_str(&format!(
        "        let base = P.n / P.parts;\n        let rem = P.n % P.parts;\n        let lo = lin * base + select(rem, lin, lin < rem);\n        var hi = lo + base;\n        if (lin < rem) {{ hi = hi + 1{l}; }}\n        for (var idx = lo; idx < hi; idx = idx + 1{l}) {{\n{}            w0 = P.begin + idx; rk_work();\n{}        }}\n",
        stop.open("            ", 0),
        stop.close("            ", 0)
    ));
    let stores = if replay { 0 } else { k.acc_fields().len() };
    for (i, (_, t)) in k.acc_fields().iter().enumerate().take(stores) {
        s.push_str(&format!(
            "        out{i}[lin] = {};\n",
            to_storage(*t, &format!("a{i}"))
        ));
    }
    s.push_str("    }\n");
    s
}

/// The ordered-partials fold of an MDRange of rank `r`: invocation `lin` walks the tiles
/// `block_bounds(P.ntiles, P.parts, lin)` in order (tile `q`'s coordinates are its digits in
/// the tile counts `P.nt{d}`, the fastest dimension least significant), each tile's points in
/// the policy's order (`left`: the first index fastest), as the host backends do; then it
/// stores its accumulators as partial `lin`. `ity` is the index type. A tile's end is
/// `lo + min(t, e - lo)`, which cannot overflow.
fn ordered_mdrange(
    k: &Kernel,
    r: u32,
    left: bool,
    wg: u32,
    (ity, l): (&str, &str),
    stop: Stop,
) -> String {
    let dims: Vec<u32> = if left {
        (0..r).rev().collect()
    } else {
        (0..r).collect()
    };
    let mut s = format!(
        "    let lin = g * {wg}u + li;\n    if (lin < P.parts) {{\n        let base = P.ntiles / P.parts;\n        let rem = P.ntiles % P.parts;\n        let first = lin * base + select(rem, lin, lin < rem);\n        var last = first + base;\n        if (lin < rem) {{ last = last + 1u; }}\n        for (var q = first; q < last; q = q + 1u) {{\n{}            var rest = q;\n",
        stop.open("            ", 0)
    );
    for &d in dims.iter().rev() {
        s.push_str(&format!(
            "            let c{d} = rest % P.nt{d}; rest = rest / P.nt{d};\n            let lo{d} = P.b{d} + {ity}(c{d}) * {ity}(P.t{d});\n            let hi{d} = lo{d} + min({ity}(P.t{d}), P.e{d} - lo{d});\n"
        ));
    }
    let mut close = String::new();
    for (depth, &d) in dims.iter().enumerate() {
        let pad = " ".repeat(12 + 4 * depth);
        let inner = format!("{pad}    ");
        s.push_str(&format!(
            "{pad}for (var x{d} = lo{d}; x{d} < hi{d}; x{d} = x{d} + 1{l}) {{\n{}{inner}w{d} = x{d};\n",
            stop.open(&inner, depth + 1)
        ));
        close = format!("{}{pad}}}\n{close}", stop.close(&inner, depth + 1));
    }
    s.push_str(&format!(
        "{}rk_work();\n",
        " ".repeat(16 + 4 * (dims.len() - 1))
    ));
    s.push_str(&close);
    s.push_str(&stop.close("            ", 0));
    s.push_str("        }\n");
    for (i, (_, t)) in k.acc_fields().iter().enumerate() {
        s.push_str(&format!(
            "        out{i}[lin] = {};\n",
            to_storage(*t, &format!("a{i}"))
        ));
    }
    s.push_str("    }\n");
    s
}

fn header(wg: u32) -> String {
    format!(
        "@compute @workgroup_size({wg})\nfn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {{\n    let g = wid.x + wid.y * nw.x;\n"
    )
}

/// The entry point (and its workgroup arrays).
pub(crate) fn emit_entry(
    k: &Kernel,
    opts: &EmitOptions,
    stop: Stop,
    _h: &mut Helpers,
) -> R<String> {
    let wg = opts.wg;
    let fields = k.acc_fields();
    if let Entry::Team {
        reduce,
        ordered,
        shape,
    } = opts.entry
    {
        let red = match (reduce, ordered) {
            (false, _) => None,
            (true, true) => Some(super::team::TeamReduce::Ordered),
            (true, false) => {
                check_joins(k, &opts.joins)?;
                Some(super::team::TeamReduce::Tree(opts.joins.as_slice()))
            }
        };
        return super::team::entry(k, &shape, red, opts.width == IndexWidth::W32, stop);
    }
    // The ordered mode joins nothing on the device: it has no joins and no workgroup tree.
    let tree = !matches!(
        opts.entry,
        Entry::For | Entry::Ordered { .. } | Entry::OrderedScan
    );
    if tree {
        check_joins(k, &opts.joins)?;
    }
    let p2 = wg.next_power_of_two();
    let mut s = String::new();
    let scan_pass = matches!(opts.entry, Entry::ScanTotals | Entry::ScanFinal);
    if stop.0 && scan_pass {
        s.push_str("var<workgroup> rk_stop: array<u32, 2>;\n");
    }
    if tree {
        for (i, (_, t)) in fields.iter().enumerate() {
            s.push_str(&format!(
                "var<workgroup> sh{i}: array<{}, {p2}>;\n",
                sh_elem(*t)
            ));
        }
    }
    s.push_str(&header(wg));
    if opts.entry != Entry::For {
        for (i, (_, t)) in fields.iter().enumerate() {
            s.push_str(&format!(
                "    a{i} = {};\n",
                from_storage(*t, &format!("P.init{i}"))
            ));
        }
        s.push_str("    rk_fin = false;\n");
    }
    // Where this invocation's work item is, and whether it has one. In the 32-bit variant the
    // sums stay below `end + 4 * stride` (at most 2^31 + 2^20), which a `u32` holds.
    let (ity, l) = if opts.width == IndexWidth::W32 {
        ("u32", "u")
    } else {
        ("u64", "lu")
    };
    match k.work {
        WorkKind::Range => {
            if !scan_pass {
                s.push_str(&format!("    let lin = {ity}(g) * {wg}{l} + {ity}(li);\n"));
            }
            let pad = "        ";
            if matches!(opts.entry, Entry::Ordered { .. } | Entry::OrderedScan) {
                s.push_str(&ordered_range(k, l, opts.entry == Entry::OrderedScan, stop));
            } else if opts.entry == Entry::Reduce {
                // Grid-stride fold, four items per trip so that their loads are in flight
                // together; the items are still folded one by one in index order.
                s.push_str(
                    &format!(
                        concat!(
                            "    var idx = lin;\n    let st = P.stride;\n",
                            "    loop {{\n        if (idx + 3lu * st >= P.n) {{ break; }}\n{open}",
                            "        w0 = P.begin + idx;\n        rk_work();\n",
                            "        w0 = P.begin + idx + st;\n        rk_work();\n",
                            "        w0 = P.begin + idx + 2lu * st;\n        rk_work();\n",
                            "        w0 = P.begin + idx + 3lu * st;\n        rk_work();\n{close}",
                            "        idx = idx + 4lu * st;\n    }}\n",
                            "    loop {{\n        if (idx >= P.n) {{ break; }}\n{open}        w0 = P.begin + idx;\n        rk_work();\n{close}        idx = idx + st;\n    }}\n",
                        ),
                        open = stop.open(pad, 0),
                        close = stop.close(pad, 0)
                    )
                    .replace("lu ", &format!("{l} ")),
                );
            } else if opts.entry == Entry::For {
                // Grid-stride over the dispatched invocations (`P.stride` of them: a bounded
                // grid, so that an early stop leaves few invocations to start). In the 32-bit
                // variant `idx + P.stride` stays below 2^31 + 2^24.
                s.push_str(&format!(
                    "    for (var idx = lin; idx < P.n; idx = idx + P.stride) {{\n{}{pad}w0 = P.begin + idx;\n{pad}rk_work();\n{}    }}\n",
                    stop.open(pad, 0),
                    stop.close(pad, 0)
                ));
            } else {
                // The scan's passes: blocks of one item per invocation, the blocks strided over
                // the dispatched workgroups.
                s.push_str(&scan_blocks(k, opts, stop, (ity, l))?);
                s.push_str("}\n");
                return Ok(s);
            }
        }
        WorkKind::MDRange(r) if matches!(opts.entry, Entry::Ordered { .. }) => {
            let left = matches!(opts.entry, Entry::Ordered { left: true });
            s.push_str(&ordered_mdrange(k, r, left, wg, (ity, l), stop));
        }
        WorkKind::MDRange(r) => {
            // The tiles strided over the dispatched workgroups (a bounded grid, so that an
            // early stop leaves few workgroups to start); a tile with more points than
            // invocations is walked in strides of the workgroup size (each invocation's points
            // in increasing order). `P.ntiles - tile <= ng` ends the walk before `tile + ng`
            // could pass 2^32.
            let tp: Vec<String> = (0..r).map(|d| format!("P.t{d}")).collect();
            s.push_str(&format!(
                "    let tp = {};\n    let ng = nw.x * nw.y;\n    var tile = g;\n    loop {{\n    if (tile >= P.ntiles) {{ break; }}\n{}    for (var q = li; q < tp; q = q + {wg}u) {{\n{}    var rem = tile; var lrem = q; var act = true;\n",
                tp.join(" * "),
                stop.open("    ", 0),
                stop.open("    ", 1)
            ));
            for d in (0..r).rev() {
                s.push_str(&format!(
                    "    {{ let tc = rem % P.nt{d}; rem = rem / P.nt{d}; let lo = lrem % P.t{d}; lrem = lrem / P.t{d};\n      w{d} = P.b{d} + {ity}(tc) * {ity}(P.t{d}) + {ity}(lo); act = act && w{d} < P.e{d}; }}\n"
                ));
            }
            if opts.entry != Entry::For && opts.entry != Entry::Reduce {
                return Err(EmitError::Mismatch("scan over an MDRange".into()));
            }
            s.push_str(&format!(
                "    if (act) {{ rk_work(); }}\n{}    }}\n{}    if (P.ntiles - tile <= ng) {{ break; }}\n    tile = tile + ng;\n    }}\n",
                stop.close("    ", 1),
                stop.close("    ", 0)
            ));
        }
        WorkKind::Team => unreachable!(),
    }
    match opts.entry {
        Entry::For | Entry::Team { .. } | Entry::Ordered { .. } | Entry::OrderedScan => {}
        Entry::Reduce | Entry::ScanTotals => s.push_str(&tree_tail(k, opts, "g")),
        Entry::ScanFinal => s.push_str(&scan_tail(k, opts, "g")?),
    }
    s.push_str("}\n");
    Ok(s)
}

/// The workgroup's accumulators joined in a tree in workgroup memory, the result stored as
/// partial `idx` by invocation 0.
fn tree_tail(k: &Kernel, opts: &EmitOptions, idx: &str) -> String {
    let (wg, fields) = (opts.wg, k.acc_fields());
    let mut s = String::new();
    for (i, (_, t)) in fields.iter().enumerate() {
        s.push_str(&sh_store(i, *t));
    }
    s.push_str(&format!(
        "    workgroupBarrier();\n    for (var st = {}u; st > 0u; st = st >> 1u) {{\n        if (li < st && li + st < {wg}u) {{\n{}        }}\n        workgroupBarrier();\n    }}\n    if (li == 0u) {{\n",
        wg.next_power_of_two() / 2,
        tree_join(k, &opts.joins, "li", "li + st")
    ));
    for (i, (_, t)) in fields.iter().enumerate() {
        s.push_str(&format!("        out{i}[{idx}] = {};\n", sh_result(i, *t)));
    }
    s.push_str("    }\n");
    s
}

/// The scan's second pass over block `idx`: the invocations' partials scanned in workgroup
/// memory, each invocation's exclusive prefix joined onto the block's (`pre0[idx]`), then the
/// body with `final == true` for the invocation's item.
fn scan_tail(k: &Kernel, opts: &EmitOptions, idx: &str) -> R<String> {
    let wg = opts.wg;
    let fields = k.acc_fields();
    let (t, r) = match (fields.as_slice(), opts.joins.as_slice()) {
        ([(_, t)], [JoinKind::Op(r)]) => (*t, *r),
        _ => {
            return Err(EmitError::Mismatch(
                "a scan needs one scalar accumulator and a scalar reducer".into(),
            ))
        }
    };
    Ok(format!(
        "    sh0[li] = a0;\n    workgroupBarrier();\n    for (var off = 1u; off < {wg}u; off = off << 1u) {{\n        var t = sh0[li];\n        if (li >= off) {{ t = {}; }}\n        workgroupBarrier();\n        sh0[li] = t;\n        workgroupBarrier();\n    }}\n    var ex = {};\n    if (li > 0u) {{ ex = sh0[li - 1u]; }}\n    a0 = {};\n    rk_fin = true;\n    if (act) {{ rk_work(); }}\n",
        join_op(r, t, "sh0[li - off]", "t"),
        from_storage(t, "P.init0"),
        join_op(r, t, &from_storage(t, &format!("pre0[{idx}]")), "ex"),
    ))
}

/// A pass of the scan ([`Entry::ScanTotals`]: the block totals; [`Entry::ScanFinal`]: the
/// body with `final == true` from each block's prefix): block `blk` is the `wg` items from
/// `blk * wg`, one per invocation; workgroup `g` takes blocks `g, g + ng, ...` (a bounded grid,
/// so that an early stop leaves few workgroups to start), its accumulators from the identity
/// for each. The loop holds barriers, so its early stop is the league loop's
/// (`team::entry`): invocation 0 reads the error word as a block starts and publishes it in
/// workgroup memory, alternating two words, read back uniformly after the block's last
/// barrier. The block count `ceil(n / wg)` fits a `u32`: the launcher keeps the totals within
/// one storage binding.
fn scan_blocks(k: &Kernel, opts: &EmitOptions, stop: Stop, (ity, l): (&str, &str)) -> R<String> {
    let wg = opts.wg;
    let mut s = String::new();
    if stop.0 {
        s.push_str(
            "    var rk_par = 0u;\n    if (li == 0u) { rk_stop[1] = select(0u, 1u, rk_stopped()); }\n    let rk_late = workgroupUniformLoad(&rk_stop[1]) != 0u;\n",
        );
    } else {
        s.push_str("    let rk_late = false;\n");
    }
    s.push_str(&format!(
        "    let ng = nw.x * nw.y;\n    let nb = u32(P.n / {wg}{l}) + select(0u, 1u, P.n % {wg}{l} != 0{l});\n    var blk = select(g, nb, rk_late);\n    loop {{\n    if (blk >= nb) {{ break; }}\n"
    ));
    if stop.0 {
        s.push_str(
            "    var rk_seen = 0u;\n    if (li == 0u) { rk_seen = select(0u, 1u, rk_stopped()); }\n",
        );
    }
    for (i, (_, t)) in k.acc_fields().iter().enumerate() {
        s.push_str(&format!(
            "    a{i} = {};\n",
            from_storage(*t, &format!("P.init{i}"))
        ));
    }
    s.push_str(&format!(
        "    rk_fin = false;\n    let lin = {ity}(blk) * {wg}{l} + {ity}(li);\n    let act = lin < P.n;\n    if (act) {{ w0 = P.begin + lin; rk_work(); }}\n"
    ));
    match opts.entry {
        Entry::ScanTotals => s.push_str(&tree_tail(k, opts, "blk")),
        Entry::ScanFinal => s.push_str(&scan_tail(k, opts, "blk")?),
        _ => {
            return Err(EmitError::Mismatch(
                "a scan pass entry for another pattern".into(),
            ))
        }
    }
    if stop.0 {
        s.push_str("    if (li == 0u) { rk_stop[rk_par] = rk_seen; }\n");
    }
    // The next block reuses the workgroup arrays.
    s.push_str("    workgroupBarrier();\n");
    if stop.0 {
        s.push_str(
            "    if (workgroupUniformLoad(&rk_stop[rk_par]) != 0u) { break; }\n    rk_par = 1u - rk_par;\n",
        );
    }
    s.push_str("    if (nb - blk <= ng) { break; }\n    blk = blk + ng;\n    }\n");
    Ok(s)
}
