//! [`KernelInfo`]: the facts about a valid kernel that emitters and launchers need up front.

use super::Body;
use crate::expr::{Expr, FuncId};
use crate::ops::{AtomicOp, MathFn, ScratchDecl, ViewRef};
use crate::stmt::{Block, Stmt};
use crate::{AccShape, Kernel, Pattern, ScalarType};
use std::collections::{BTreeMap, BTreeSet};

/// The atomics applied to one View.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AtomicUse {
    /// The element type.
    pub elem: ScalarType,
    /// The operations used.
    pub ops: BTreeSet<AtomicOp>,
}

/// What a valid kernel uses, from [`super::validate`].
#[derive(Clone, Debug, PartialEq)]
pub struct KernelInfo {
    /// For, reduce or scan.
    pub pattern: Pattern,
    /// Every math intrinsic called (the emitters' helper preludes).
    pub math_fns: BTreeSet<MathFn>,
    /// Every scalar type of a parameter, element, accumulator, local or expression (device features:
    /// f64, 64-bit integers).
    pub types: BTreeSet<ScalarType>,
    /// The atomics applied to each View (binding types, emulated CAS paths).
    pub atomics: BTreeMap<ViewRef, AtomicUse>,
    /// Deepest nesting of blocks (`if`, loops, team constructs) in the kernel body or a function.
    pub max_nesting: u32,
    /// The scratch Views, as declared.
    pub scratch: Vec<ScratchDecl>,
    /// Whether the kernel has a team barrier.
    pub uses_barrier: bool,
    /// Whether the kernel uses nested team constructs, `single` or broadcast.
    pub uses_team_constructs: bool,
    /// The helper functions called (directly or through another function).
    pub calls: BTreeSet<FuncId>,
    /// For a team kernel, whether its vector lanes may run in parallel with the effect of running
    /// them in order ([`super::lanes_independent`]; computed once here, not per launch).
    pub lanes_independent: bool,
}

impl KernelInfo {
    /// Whether any value of type `ty` occurs.
    pub fn uses(&self, ty: ScalarType) -> bool {
        self.types.contains(&ty)
    }
    /// Whether `f64` occurs (needs SHADER_F64 on wgpu).
    pub fn uses_f64(&self) -> bool {
        self.uses(ScalarType::F64)
    }
    /// Whether `i64` occurs (needs SHADER_INT64 on wgpu).
    pub fn uses_i64(&self) -> bool {
        self.uses(ScalarType::I64)
    }
    /// Whether `u64` (Rust `usize`) occurs.
    pub fn uses_u64(&self) -> bool {
        self.uses(ScalarType::U64)
    }
    /// Whether any 64-bit atomic occurs.
    pub fn uses_64bit_atomics(&self) -> bool {
        self.atomics.values().any(|a| a.elem.bits() == 64)
    }
}

/// Describes `kernel`, which must have passed the checks.
pub fn analyze(kernel: &Kernel) -> KernelInfo {
    let mut info = KernelInfo {
        pattern: kernel.pattern(),
        math_fns: BTreeSet::new(),
        types: BTreeSet::new(),
        atomics: BTreeMap::new(),
        max_nesting: 0,
        scratch: kernel.scratch.clone(),
        uses_barrier: false,
        uses_team_constructs: false,
        calls: BTreeSet::new(),
        lanes_independent: super::lanes_independent(kernel),
    };
    info.types.extend(kernel.views.iter().map(|v| v.elem));
    info.types.extend(kernel.scalars.iter().map(|s| s.ty));
    info.types.extend(kernel.scratch.iter().map(|s| s.elem));
    for a in &kernel.accumulators {
        match a.shape {
            AccShape::Scalar(t) | AccShape::MinMaxVal(t) => {
                info.types.insert(t);
            }
            AccShape::ValLoc(t) => {
                info.types.insert(t);
                info.types.insert(ScalarType::U64);
            }
        }
    }
    for body in Body::all(kernel) {
        info.types.extend(body.locals.iter().map(|d| d.ty));
        info.max_nesting = info.max_nesting.max(depth(body.block));
        for s in body.block {
            s.walk(&mut |st| {
                match st {
                    Stmt::Barrier => info.uses_barrier = true,
                    Stmt::NestedFor { .. }
                    | Stmt::NestedReduce { .. }
                    | Stmt::NestedScan { .. }
                    | Stmt::Single { .. }
                    | Stmt::Broadcast { .. } => info.uses_team_constructs = true,
                    Stmt::Atomic(a) => note_atomic(&mut info, kernel, a.view, a.op),
                    _ => {}
                }
                for e in st.exprs() {
                    e.walk(&mut |x| {
                        if let Some(t) = x.ty(kernel, body.locals) {
                            info.types.insert(t);
                        }
                        match x {
                            Expr::Math { func, .. } => {
                                info.math_fns.insert(*func);
                            }
                            Expr::Atomic(a) => note_atomic(&mut info, kernel, a.view, a.op),
                            Expr::Call { func, .. } => {
                                info.calls.insert(*func);
                            }
                            _ => {}
                        }
                    });
                }
            });
        }
    }
    info
}

fn note_atomic(info: &mut KernelInfo, kernel: &Kernel, view: ViewRef, op: AtomicOp) {
    let elem = kernel.view_elem(view).unwrap_or(ScalarType::U32);
    info.atomics
        .entry(view)
        .or_insert_with(|| AtomicUse {
            elem,
            ops: BTreeSet::new(),
        })
        .ops
        .insert(op);
}

fn depth(b: &Block) -> u32 {
    b.iter()
        .map(|s| {
            s.blocks()
                .into_iter()
                .map(|inner| 1 + depth(inner))
                .max()
                .unwrap_or(0)
        })
        .max()
        .unwrap_or(0)
}
