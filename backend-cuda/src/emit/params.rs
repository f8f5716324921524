//! The parameter block of a generated kernel: one C struct passed by value (it lands in the
//! constant bank, which every thread reads at the speed of a register), holding the error record
//! pointer and launch number, each View's pointer, offset, extents and strides, the scalars and
//! the work bounds. Helpers take it by `const` reference. The launcher writes the same bytes at
//! the offsets [`ParamsLayout`] computes with C's layout rules.

use rokkos_core::ir::{Access, Kernel, ScalarType, WorkKind};
use rokkos_device::emit::names;
use rokkos_device::emit::walk::lower;
use rokkos_device::emit::width::IndexWidth;

/// The C type of a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldType {
    /// A scalar of this type (`bool` is stored as `u32`).
    Scalar(ScalarType),
    /// A device pointer to elements of this type (`const` when read-only).
    Ptr(ScalarType, bool),
    /// `u32*`: the error records.
    ErrPtr,
}

impl FieldType {
    /// Size and alignment in bytes.
    pub fn size(self) -> usize {
        match self {
            FieldType::Scalar(ScalarType::Bool) => 4,
            FieldType::Scalar(t) => t.bits() as usize / 8,
            FieldType::Ptr(..) | FieldType::ErrPtr => 8,
        }
    }
    fn c(self) -> String {
        match self {
            FieldType::Scalar(ScalarType::Bool) => "u32".into(),
            FieldType::Scalar(t) => t.name().into(),
            FieldType::Ptr(t, true) => format!("const {}*", t.name()),
            FieldType::Ptr(t, false) => format!("{}*", t.name()),
            FieldType::ErrPtr => "u32*".into(),
        }
    }
}

/// The fields of the parameter block, with their byte offsets.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParamsLayout {
    /// `(name, type, offset)` in declaration order.
    pub fields: Vec<(String, FieldType, usize)>,
    /// Total size in bytes (a multiple of 8).
    pub size: usize,
}

impl ParamsLayout {
    /// The byte offset of field `name`.
    pub fn offset(&self, name: &str) -> Option<usize> {
        self.fields
            .iter()
            .find(|(n, ..)| n == name)
            .map(|(_, _, o)| *o)
    }
    /// The C declaration `struct rk_P { ... };`.
    pub fn c_struct(&self) -> String {
        let mut s = String::from("struct rk_P {\n");
        for (n, t, _) in &self.fields {
            s.push_str(&format!("    {} {n};\n", t.c()));
        }
        s.push_str("};\n");
        s
    }
}

/// The work-bound fields of a kernel of kind `work` with index rank `rank`.
fn work_fields(work: WorkKind, rank: u32) -> Vec<String> {
    match work {
        WorkKind::Range => vec!["begin".into(), "n".into()],
        // The league, each level's team and thread pools and the level-1 slot (see
        // `super::team::TeamLaunch`).
        WorkKind::Team => ["league", "tp0", "tq0", "tp1", "tq1", "l1s"]
            .map(String::from)
            .to_vec(),
        _ => {
            let mut v = Vec::new();
            for d in 0..rank {
                // Begin, extent, tile size and tile count per dimension.
                v.extend([
                    format!("b{d}"),
                    format!("e{d}"),
                    format!("t{d}"),
                    format!("nt{d}"),
                ]);
            }
            v.extend(["ntiles".into(), "tvol".into()]);
            v
        }
    }
}

/// The parameter block of `k` in the index variant `width`.
///
/// In the 32-bit variant every index field the kernel's body and entry point read as an index is
/// a `u32`: View offsets, extents and strides, `usize` scalars, and the work bounds of range and
/// MDRange launches and the league and scratch pool sizes of team launches (the launcher passes
/// those bounds to the launch facts, so they fit). The
/// reduction and scan bookkeeping (`nparts`, `per`) stays 64-bit: only the entry points read it.
pub fn params_layout(k: &Kernel, width: IndexWidth) -> ParamsLayout {
    let ix = |t: ScalarType| lower(width == IndexWidth::W32, t);
    let mut fields: Vec<(String, FieldType)> = vec![
        ("err".into(), FieldType::ErrPtr),
        ("launch".into(), FieldType::Scalar(ScalarType::U32)),
    ];
    for (i, v) in k.views.iter().enumerate() {
        fields.push((
            names::view(i),
            FieldType::Ptr(v.elem, v.access == Access::ReadOnly && !v.used_atomically),
        ));
        fields.push((names::offset(i), FieldType::Scalar(ix(ScalarType::U64))));
        for d in 0..v.rank as usize {
            fields.push((names::extent(i, d), FieldType::Scalar(ix(ScalarType::U64))));
            fields.push((names::stride(i, d), FieldType::Scalar(ix(ScalarType::U64))));
        }
    }
    for (p, s) in k.scalars.iter().enumerate() {
        fields.push((names::scalar(p as u32), FieldType::Scalar(ix(s.ty))));
    }
    // Reductions: the identity per field, the partials (one per block), the result and the
    // number of partials the second pass joins. `bool` fields are stored as `u32` 0/1.
    for (i, (_, t)) in k.acc_fields().iter().enumerate() {
        let st = if *t == ScalarType::Bool {
            ScalarType::U32
        } else {
            *t
        };
        fields.push((format!("init{i}"), FieldType::Scalar(*t)));
        fields.push((format!("out{i}"), FieldType::Ptr(st, false)));
        fields.push((format!("res{i}"), FieldType::Ptr(st, false)));
    }
    if !k.acc_fields().is_empty() {
        fields.push(("nparts".into(), FieldType::Scalar(ScalarType::U64)));
    }
    if k.is_scan {
        // Consecutive indices per thread.
        fields.push(("per".into(), FieldType::Scalar(ScalarType::U64)));
    }
    // A team kernel's league and pool sizes are launch facts (`width::team_bounds`): they
    // narrow with the rest.
    for w in work_fields(k.work, k.work.index_rank()) {
        fields.push((w, FieldType::Scalar(ix(ScalarType::U64))));
    }
    if k.work == WorkKind::Team {
        // The level-1 scratch pool (8-byte aligned; null when the kernel allocates none there).
        fields.push(("scr1".into(), FieldType::Ptr(ScalarType::U64, false)));
    }
    let mut at = 0usize;
    let fields = fields
        .into_iter()
        .map(|(n, t)| {
            let a = t.size();
            at = at.div_ceil(a) * a;
            let f = (n, t, at);
            at += a;
            f
        })
        .collect();
    ParamsLayout {
        fields,
        size: at.div_ceil(8) * 8,
    }
}
