//! The CUDA C emitter: a target of the shared walk (`rokkos_device::emit`), as the WGSL writer of
//! `rokkos-wgpu` is another. What is CUDA's own lives here: the spelling ([`target`]), the
//! operator families ([`ops`]), the parameter block ([`params`]), the fixed prelude and the entry
//! points ([`entry`]).
//!
//! The module has, in order: the IR's type names, the parameter block `struct rk_P`, the error
//! record helpers and wrapping operations, the helpers the kernel needs (accessors, checked
//! arithmetic, casts, math; each once, in name order), prototypes and bodies of the kernel's
//! functions, the body `rk_work`, and the entry point [`entry::ENTRY`].
//!
//! Implemented: `parallel_for` and `parallel_reduce` (every built-in reducer) over Range, MDRange
//! and TeamPolicy, `parallel_reduce` with a user-defined (`Custom`) reducer over Range and
//! MDRange (the ordered-partials mode, [`entry::ordered`]) (with every team construct and scratch, [`team`]), `parallel_scan` over Range,
//! atomics (on u8/u16/i8/i16 Views through the enclosing 32-bit word), every math function (the
//! f64 transcendental functions CUDA's own library cannot give within the precision contract from
//! the shared software library, `rokkos_device::emit::softmath`, whose IR functions the pass in
//! [`emit`] adds to the kernel's own).
//! Atomics on scratch Views are `Err(EmitError::Unsupported)` naming the construct.

mod atomic;
pub mod entry;
mod ops;
pub mod params;
mod prelude;
pub mod reduce;
mod target;
pub mod team;

pub use atomic::narrow_atomic_library;
pub use params::{FieldType, ParamsLayout};
pub use rokkos_device::emit::width::IndexWidth;
pub use rokkos_device::emit::EmitError;
pub use team::{TeamLaunch, TeamShape};

use rokkos_core::ir::valid::KernelInfo;
use rokkos_core::ir::{Kernel, MathFn, Pattern, ScalarType, WorkKind};
use rokkos_core::reducer::JoinKind;
use rokkos_device::emit::inbounds::Proven;
use rokkos_device::emit::{joins, names, walk, HelperSet};
use target::{cty, CudaC};

/// Which entry point to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Entry {
    /// `parallel_for`: each work item once.
    For,
    /// `parallel_reduce`: entry [`entry::ENTRY`] folds into one partial per block, entry
    /// [`reduce::FINAL`] joins the partials into the result.
    Reduce,
    /// `parallel_reduce` with a reducer whose join is host code (the ordered-partials mode,
    /// `rokkos_device::runtime::ordered`): entry [`entry::ENTRY`] only, thread `t` folding block
    /// `t` of the work items in iteration order into partial `t` ([`entry::ordered`]); the
    /// launcher reads every partial back and joins them in order on the host. A team kernel:
    /// block `g` runs league block `g` of `P.nparts / threads`, thread `i` storing partial
    /// `g * threads + i` ([`team::entry`]).
    Ordered {
        /// MDRange: `Iterate::Left` (the first index fastest).
        left: bool,
    },
    /// `parallel_scan`: entries [`entry::ENTRY`], [`reduce::SCAN_PARTS`] and
    /// [`reduce::SCAN_FINAL`] (see [`reduce::scan`]).
    Scan,
    /// `parallel_scan` with a reducer whose join is host code (the slow path of
    /// `rokkos_device::runtime::ordered`): entries [`entry::ENTRY`] (thread `t` folds block `t`
    /// into partial `t`) and [`entry::ORDERED_REPLAY`] (thread `t` replays block `t` with
    /// `final == true` from the prefix the host wrote over partial `t`; see
    /// [`entry::ordered_scan`]).
    OrderedScan,
}

/// What the emitter needs besides the kernel: the launch variant (part of the module cache key).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CudaOptions {
    /// The entry point.
    pub entry: Entry,
    /// Threads per block (`__launch_bounds__`).
    pub block: u32,
    /// Check every View index against its extent (`Err(OutOfBounds)` at the next
    /// synchronisation). Every launcher sets it, in every build (`rokkos_device::runtime::bounds`
    /// says why no setting turns device checks off); off, the module indexes Views unchecked,
    /// which is only for reading what the emitter makes.
    pub bounds_checks: bool,
    /// One join per accumulator (reductions).
    pub joins: Vec<JoinKind>,
    /// The accesses the launcher proved in bounds for every work item of this launch
    /// ([`rokkos_device::emit::inbounds`]: every index a work index plus or minus a literal, the
    /// policy's bounds inside the View's extents), emitted without a check (from
    /// `Prepared::proven`: none under `ROKKOS_DEVICE_BOUNDS_CHECKS=all`).
    pub in_bounds: Proven,
    /// Team kernels: the policy's team size and vector length (required for them, ignored
    /// otherwise). [`CudaOptions::block`] is then the block of a reduction's second pass only.
    pub team: Option<TeamShape>,
    /// The index variant ([`rokkos_device::emit::width`]): [`IndexWidth::W32`] spells work
    /// indices, View offsets, extents and strides, `usize` scalars, locals and loop counters as
    /// `u32` (the parameter block's fields too). Only for a kernel whose width plan accepts it
    /// and a launch that satisfies the launch facts (for a team launch also its league,
    /// team and scratch sizes, `rokkos_device::emit::width::team_bounds`; the team queries,
    /// nested-range counters and scratch pools are then `u32` too).
    pub width: IndexWidth,
}

/// The generated module.
#[derive(Clone, Debug)]
pub struct CudaSource {
    /// CUDA C source for NVRTC.
    pub source: String,
    /// The parameter block the entry point takes by value.
    pub params: ParamsLayout,
    /// Whether the module can record an error: a launch of one that cannot needs no error record.
    pub may_fail: bool,
    /// Team kernels: what the launcher must pass besides the parameter block.
    pub team: Option<TeamLaunch>,
}

/// What the target accumulates: helper definitions and the options that shape them.
#[derive(Default)]
pub(crate) struct Helpers {
    set: HelperSet,
    /// [`CudaOptions::bounds_checks`].
    pub(crate) bounds_checks: bool,
    /// [`CudaOptions::in_bounds`].
    pub(crate) proven: Proven,
    /// The 32-bit variant ([`CudaOptions::width`]).
    pub(crate) narrow: bool,
}

impl Helpers {
    /// Adds `def` under `name` unless present; returns `name`.
    pub(crate) fn add(&mut self, name: &str, def: impl FnOnce() -> String) -> String {
        self.set.add(name, def)
    }
    /// Declares `decl` (the prototype of helper `name`) ahead of every definition, for a helper
    /// called by one whose name sorts before it.
    pub(crate) fn declare(&mut self, name: &str, decl: String) {
        self.set.declare(name, decl)
    }
    /// A fresh number for a generated name.
    pub(crate) fn next_id(&mut self) -> u32 {
        self.set.next_id()
    }
}

/// The software math library's helpers behind the f64 functions `funcs` (each a transcendental
/// [`MathFn`]), as a kernel module has them, standalone: the scalar type names, the parameter
/// block `rk_P` of a kernel without Views and the fixed helpers (the library's functions take the
/// block, as every helper function does; `rk_lib_P()` gives one with an error record of its own),
/// then the functions; with the call of each function on `x`
/// (and `y`), in the order of `funcs`. For checking the library's CUDA C without a GPU:
/// compiled by NVRTC, or by a host C++ compiler with `__device__` and CUDA's bit-cast
/// intrinsics defined for the host.
pub fn f64_math_library(funcs: &[MathFn]) -> Result<(String, Vec<String>), EmitError> {
    use rokkos_core::ir::build::FunctionSet;
    use rokkos_device::emit::softmath::library;
    let mut h = Helpers::default();
    let mut lib = FunctionSet::default();
    let mut calls = Vec::new();
    for &f in funcs {
        let args: Vec<String> = ["x", "y"][..f.arity()]
            .iter()
            .map(|a| a.to_string())
            .collect();
        let id = library::define(&mut lib, f, ScalarType::F64).ok_or_else(|| {
            EmitError::Unsupported(format!("f64 `{}` is not in the math library", f.name()))
        })?;
        let mut a = vec!["rk_lib_P()".to_string()];
        a.extend(args);
        calls.push(format!(
            "{}({})",
            names::function(id.0 as usize),
            a.join(", ")
        ));
    }
    let (functions, tables) = lib
        .finish()
        .map_err(|e| EmitError::Unsupported(format!("the software math library: {e}")))?;
    let mut k = rokkos_core::ir::build::KernelBuilder::new("math_library", WorkKind::Range)
        .finish()
        .map_err(|e| EmitError::Unsupported(e.to_string()))?;
    k.functions = functions;
    k.tables = tables;
    let mut fns = String::new();
    walk::emit_functions::<CudaC>(&k, &mut h, &mut fns)?;
    // The parameter block of a kernel without Views, and an error record of its own: the
    // library's functions take the block as every helper function does, and record nothing.
    let params = params::params_layout(&k, IndexWidth::W64);
    let words =
        rokkos_device::runtime::errors::RECORDS * rokkos_device::runtime::errors::RECORD_WORDS;
    Ok((
        format!(
            "{}{}{}__device__ u32 rk_lib_err[{words}];\n\
             __device__ __forceinline__ rk_P rk_lib_P() {{ rk_P p = {{}}; p.err = rk_lib_err; return p; }}\n{}\n{fns}",
            prelude::TYPES,
            params.c_struct(),
            prelude::helpers(),
            h.set.render()
        ),
        calls,
    ))
}

/// Whether `kernel` calls a math function CUDA takes from the software library
/// (`rokkos_device::emit::softmath`).
pub fn uses_math_library(kernel: &Kernel) -> bool {
    matches!(
        rokkos_device::emit::softmath::lower_math(kernel, ops::software),
        Ok(std::borrow::Cow::Owned(_))
    )
}

/// Emits the CUDA C module of `kernel` (validated: `info` is its [`KernelInfo`]) for `opts`.
pub fn emit(
    kernel: &Kernel,
    info: &KernelInfo,
    opts: &CudaOptions,
) -> Result<CudaSource, EmitError> {
    let team = match (kernel.work, opts.team) {
        (WorkKind::Team, Some(shape)) => Some(team::dims(kernel, info, shape)?),
        (WorkKind::Team, None) => {
            return Err(EmitError::Mismatch(format!(
                "team kernel `{}` emitted without its team shape",
                kernel.name
            )))
        }
        _ => None,
    };
    match (kernel.pattern(), kernel.work) {
        (Pattern::Scan, WorkKind::Team) => {
            return Err(EmitError::Mismatch(
                "a scan over a team policy (the IR has none)".into(),
            ))
        }
        (Pattern::Reduce, _) if opts.entry == Entry::Reduce => {
            joins::check_joins(kernel, &opts.joins)?
        }
        (Pattern::Reduce, _) if matches!(opts.entry, Entry::Ordered { .. }) => {}
        (Pattern::Reduce, _) | (Pattern::For, _)
            if matches!(opts.entry, Entry::Reduce | Entry::Ordered { .. }) =>
        {
            return Err(EmitError::Mismatch(format!(
                "a reduction entry for kernel `{}`, which has no accumulator",
                kernel.name
            )))
        }
        (Pattern::Reduce, _) => {
            return Err(EmitError::Mismatch(format!(
                "kernel `{}` is a reduction: it needs the reduction entry",
                kernel.name
            )))
        }
        (Pattern::Scan, _) if opts.entry == Entry::Scan => joins::check_joins(kernel, &opts.joins)?,
        (Pattern::Scan, _) if opts.entry == Entry::OrderedScan => {}
        (_, _) if opts.entry == Entry::OrderedScan => {
            return Err(EmitError::Mismatch(format!(
                "a scan entry for kernel `{}`, which is not a scan",
                kernel.name
            )))
        }
        (_, _) if opts.entry == Entry::Scan => {
            return Err(EmitError::Mismatch(format!(
                "a scan entry for kernel `{}`, which is not a scan",
                kernel.name
            )))
        }
        (Pattern::Scan, _) => {
            return Err(EmitError::Mismatch(format!(
                "kernel `{}` is a scan: it needs the scan entry",
                kernel.name
            )))
        }
        (Pattern::For, _) => {}
    }
    check_types(kernel)?;
    let narrow = opts.width == IndexWidth::W32;
    if narrow {
        // Emitting the 32-bit variant of a kernel no launch can prove (kernel-wide or with its
        // own sizes, which the launcher checks) would compute something else than the 64-bit
        // one: a launcher bug, refused here rather than run.
        let plan = rokkos_device::emit::width::plan(kernel);
        if !plan.may_run_32() {
            return Err(EmitError::Mismatch(format!(
                "the 32-bit index variant of kernel `{}`, whose width plan refuses it: {}",
                kernel.name,
                plan.index32.err().unwrap_or_default()
            )));
        }
    }
    // After the width plan, made for the kernel as written: the library's functions are full
    // width whatever the variant.
    let ir_hash = kernel.stable_hash();
    let lowered = rokkos_device::emit::softmath::lower_math(kernel, ops::software)?;
    let kernel: &Kernel = &lowered;
    let params = params::params_layout(kernel, opts.width);
    let mut h = Helpers {
        bounds_checks: opts.bounds_checks,
        proven: opts.in_bounds.clone(),
        narrow,
        ..Helpers::default()
    };
    let mut funcs = String::new();
    walk::emit_functions::<CudaC>(kernel, &mut h, &mut funcs)?;
    let mut body = String::new();
    let mut shared = 0;
    // Only a kernel that can record a failure gets the early stop: the record of a launch that
    // cannot is not its own, and its loops pay nothing.
    let stop = |h: &Helpers, body: &str| {
        entry::Stop(records_errors(&format!(
            "{}{}{funcs}{body}",
            prelude::helpers(),
            h.set.render()
        )))
    };
    let ep = match (team, opts.entry) {
        (Some(d), e) => {
            body = team::work(kernel, d, &mut h)?;
            let red = match e {
                Entry::Reduce => Some(team::TeamReduce::Tree(opts.joins.as_slice())),
                Entry::Ordered { .. } => Some(team::TeamReduce::Ordered),
                _ => None,
            };
            let st = stop(&h, &body);
            let (ep, sh) = team::entry(kernel, &d, red, opts.block, narrow, st)?;
            shared = sh;
            ep
        }
        (None, e) => {
            walk::emit_work_at::<CudaC>(kernel, None, opts.width, &mut h, &mut body)?;
            let st = stop(&h, &body);
            let b = opts.block;
            match e {
                Entry::For => entry::entry(kernel, b, None, narrow, st)?,
                Entry::Reduce => entry::entry(kernel, b, Some(&opts.joins), narrow, st)?,
                Entry::Ordered { left } => entry::ordered(kernel, b, narrow, left, st)?,
                Entry::Scan => reduce::scan(kernel, &opts.joins, b, narrow, st)?,
                Entry::OrderedScan => entry::ordered_scan(kernel, b, narrow, st)?,
            }
        }
    };
    let mut out = String::new();
    out.push_str(&format!(
        "// rokkos kernel `{}` (IR hash {:016x})\n",
        kernel.name.replace('\n', " "),
        ir_hash
    ));
    out.push_str(prelude::TYPES);
    out.push_str(&params.c_struct());
    out.push_str(&prelude::helpers());
    out.push_str(&h.set.render());
    out.push('\n');
    // Prototypes first: a kernel function may call one defined after it.
    for (n, f) in kernel.functions.iter().enumerate() {
        let mut ps = vec!["const rk_P& P".to_string()];
        ps.extend(f.params.iter().map(|p| {
            format!(
                "{} {}",
                cty(f.locals[p.0 as usize].ty),
                names::fn_param(p.0)
            )
        }));
        out.push_str(&format!(
            "__device__ __forceinline__ {} {}({});\n",
            cty(f.ret),
            names::function(n),
            ps.join(", ")
        ));
    }
    out.push_str(&funcs);
    out.push_str(&body);
    out.push_str(&ep);
    let may_fail = records_errors(&out);
    let team = team.map(|d| TeamLaunch {
        block: (d.vp, d.team),
        static_shared_bytes: shared + team::exchange_bytes(&out, &d),
        level1: rokkos_device::emit::team::uses_level(kernel, 1),
        level0: rokkos_device::emit::team::uses_level(kernel, 0),
    });
    Ok(CudaSource {
        source: out,
        params,
        may_fail,
        team,
    })
}

/// `Err(Unsupported)` naming the first scalar type of `k` the prelude has no C type for (a type
/// added to the IR later is refused here until the CUDA target spells it, never emitted wrong).
fn check_types(k: &Kernel) -> Result<(), EmitError> {
    use rokkos_core::ir::ScalarType as T;
    let known = |t: T| {
        matches!(
            t,
            T::Bool
                | T::U8
                | T::U16
                | T::I8
                | T::I16
                | T::I32
                | T::U32
                | T::I64
                | T::U64
                | T::F32
                | T::F64
        )
    };
    let used = k
        .views
        .iter()
        .map(|v| v.elem)
        .chain(k.scalars.iter().map(|s| s.ty))
        .chain(k.locals.iter().map(|l| l.ty))
        .chain(
            k.functions
                .iter()
                .flat_map(|f| f.locals.iter().map(|l| l.ty)),
        )
        .chain(k.acc_fields().into_iter().map(|(_, t)| t))
        .chain(k.scratch.iter().map(|d| d.elem))
        .chain(expr_types(k));
    for t in used {
        if !known(t) {
            return Err(EmitError::Unsupported(format!(
                "{t} values in CUDA kernels"
            )));
        }
    }
    Ok(())
}

/// The types of every literal and every cast's target in `k`'s bodies: a value of a type no
/// declaration has can still appear inside an expression (`x as u8`).
fn expr_types(k: &Kernel) -> Vec<rokkos_core::ir::ScalarType> {
    use rokkos_core::ir::Expr;
    let mut out = Vec::new();
    let bodies = std::iter::once(&k.body).chain(k.functions.iter().map(|f| &f.body));
    for b in bodies {
        for s in b {
            s.walk(&mut |s| {
                for e in s.exprs() {
                    e.walk(&mut |e| match e {
                        Expr::Lit(v) => out.push(v.ty()),
                        Expr::Cast { ty, .. } => out.push(*ty),
                        _ => {}
                    });
                }
            });
        }
    }
    out
}

/// Whether `source` can write the error record: a use of the recording helpers beyond their own
/// definitions in the prelude (counted, so that any new kind of check makes the answer
/// conservative, never wrong).
fn records_errors(source: &str) -> bool {
    let base = prelude::helpers();
    ["rk_oob_begin(", "rk_fail(", "rk_aix(", "rk_aok("]
        .iter()
        .any(|pat| source.matches(pat).count() > base.matches(pat).count())
}

#[cfg(test)]
mod tests;
