//! The partials join: a small module, generated per accumulator shape and reducer (not per
//! kernel), that folds the per-workgroup partials of a reduction into fewer partials or into the
//! result View, on the device.
//!
//! It joins with the same workgroup tree as the reductions themselves ([`super::entry::tree_join`]):
//! each workgroup array has a second half where an incoming partial is placed before it is joined
//! into the invocation's running value, so the fold and the tree share one spelling of every join.

use super::entry::{check_joins, sh_elem, tree_join};
use super::{wty, EmitError};
use crate::params::{storage_type, ParamsLayout};
use rokkos_core::ir::Kernel;
use rokkos_core::reducer::JoinKind;

/// A generated partials join and how to bind it.
#[derive(Clone, Debug)]
pub(crate) struct JoinModule {
    /// WGSL source. Bindings: 0 the parameter block (`n` partials in, `stride` between an
    /// invocation's partials, output element offset `off`, `init{i}`), then one read-only input
    /// array per accumulator field, then one output array per field.
    pub source: String,
    /// The parameter block layout.
    pub params: ParamsLayout,
    /// Number of accumulator fields (input and output arrays each).
    pub fields: usize,
}

/// The join of `k`'s accumulators by `joins`, `wg` invocations per workgroup: workgroup `g` folds
/// partials `g·wg + li`, stepping by `P.stride`, and writes its result to element `P.off + g` of
/// each output array.
pub(crate) fn join_module(
    k: &Kernel,
    joins: &[JoinKind],
    wg: u32,
) -> Result<JoinModule, EmitError> {
    check_joins(k, joins)?;
    let fields = k.acc_fields();
    let mut pf = vec![
        ("n".to_string(), rokkos_core::ir::ScalarType::U32),
        ("stride".to_string(), rokkos_core::ir::ScalarType::U32),
        ("off".to_string(), rokkos_core::ir::ScalarType::U32),
    ];
    for (i, (_, t)) in fields.iter().enumerate() {
        pf.push((format!("init{i}"), storage_type(*t)));
    }
    let params = ParamsLayout::of_fields(pf);
    let p2 = wg.next_power_of_two();
    let nf = fields.len();
    let mut s = params.wgsl();
    s.push_str("@group(0) @binding(0) var<uniform> P: Params;\n");
    for (i, (_, t)) in fields.iter().enumerate() {
        let st = wty(storage_type(*t));
        s.push_str(&format!(
            "@group(0) @binding({}) var<storage, read> in{i}: array<{st}>;\n",
            1 + i
        ));
        s.push_str(&format!(
            "@group(0) @binding({}) var<storage, read_write> out{i}: array<{st}>;\n",
            1 + nf + i
        ));
        s.push_str(&format!(
            "var<workgroup> sh{i}: array<{}, {}>;\n",
            sh_elem(*t),
            2 * p2
        ));
    }
    s.push_str(&format!(
        "@compute @workgroup_size({wg})\nfn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {{\n    let g = wid.x + wid.y * nw.x;\n"
    ));
    // Storage, workgroup and parameter representations agree (`bool` is a 0/1 `u32` in all
    // three), so partials move without conversion.
    for i in 0..nf {
        s.push_str(&format!("    sh{i}[li] = P.init{i};\n"));
    }
    s.push_str(&format!(
        "    var q = g * {wg}u + li;\n    loop {{\n        if (q >= P.n) {{ break; }}\n"
    ));
    for i in 0..nf {
        s.push_str(&format!("        sh{i}[li + {p2}u] = in{i}[q];\n"));
    }
    s.push_str(&tree_join(k, joins, "li", &format!("li + {p2}u")));
    // `q + stride` could pass u32::MAX when `n` is close to it.
    s.push_str("        if (P.n - q <= P.stride) { break; }\n        q = q + P.stride;\n    }\n");
    s.push_str(&format!(
        "    workgroupBarrier();\n    for (var st = {}u; st > 0u; st = st >> 1u) {{\n        if (li < st && li + st < {wg}u) {{\n{}        }}\n        workgroupBarrier();\n    }}\n    if (li == 0u) {{\n",
        p2 / 2,
        tree_join(k, joins, "li", "li + st")
    ));
    for i in 0..nf {
        s.push_str(&format!("        out{i}[P.off + g] = sh{i}[0];\n"));
    }
    s.push_str("    }\n}\n");
    Ok(JoinModule {
        source: s,
        params,
        fields: nf,
    })
}
