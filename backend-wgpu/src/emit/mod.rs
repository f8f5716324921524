//! The WGSL emitter: one walker over the kernel IR (`walk`), one module per operator family
//! (mirroring `rokkos_core::ir::ops`), and the entry points of each pattern ([`entry`]).
//!
//! The generated module has, in order: the [`crate::params`] struct, the bindings (parameter block,
//! error flag, one `array<T>` per View parameter, output/prefix buffers of reductions and scans),
//! private variables for the work index, accumulators and the scan `final` flag, helper functions
//! (bounds-checked View accessors, casts, math, atomics), the kernel's helper functions, the body as
//! `fn rk_work()`, and the `@compute` entry point.

mod arith;
mod atomic;
mod bitwise;
mod cast;
mod cmp;
pub mod entry;
pub(crate) mod join;
mod lit;
mod logic;
mod math;
mod memory;
mod packed;
pub mod team;
mod walk;

#[cfg(test)]
pub(crate) mod tests;

use crate::params::{params_layout, ParamsLayout};

pub(crate) use memory::{ERR_SLOTS, SLOT_WORDS};

/// Number of `u32` words of the out-of-bounds record buffer.
pub(crate) fn memory_err_words() -> usize {
    memory::ERR_WORDS
}
use rokkos_core::ir::valid::KernelInfo;
use rokkos_core::ir::{Kernel, ScalarType};
use rokkos_core::reducer::JoinKind;
use rokkos_device::emit::inbounds::Proven;
use rokkos_device::emit::width::{self, IndexWidth};

/// Which entry point to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Entry {
    /// `parallel_for`: one work item per invocation.
    For,
    /// `parallel_reduce`: fold, workgroup tree join, one partial per workgroup.
    Reduce,
    /// `parallel_reduce` with a reducer whose join is host code (the ordered-partials mode,
    /// `rokkos_device::runtime::ordered`): invocation `t` folds block `t` of the work items, in
    /// iteration order, and stores its accumulators as partial `t`; nothing is joined on the
    /// device. The launcher reads every partial back and joins them in order. An MDRange's
    /// blocks are runs of whole tiles, each tile walked in the policy's order (`left`: the first
    /// index fastest), as the host backends walk them.
    Ordered {
        /// `Iterate::Left` (MDRange only).
        left: bool,
    },
    /// `parallel_scan` with a reducer whose join is host code, its last step (the slow path of
    /// `rokkos_device::runtime::ordered`; the first is [`Entry::Ordered`]): invocation `t` replays
    /// block `t` of the range in order with `final == true`, from the block's exclusive prefix
    /// `pre{i}[t]`, which the host joined from the first step's partials.
    OrderedScan,
    /// `parallel_scan` pass 1: block totals (body with `final == false`).
    ScanTotals,
    /// `parallel_scan` pass 2: rescan inside the block from the block's prefix, then the body with
    /// `final == true` exactly once per index.
    ScanFinal,
    /// A team policy (`for_team` when `reduce` is false, `reduce_team` otherwise): see [`team`].
    Team {
        /// `reduce_team`: per-workgroup partials of the accumulators.
        reduce: bool,
        /// With `reduce`, a reducer whose join is host code (the ordered-partials mode for
        /// teams, `rokkos_device::runtime::ordered`): workgroup `g` runs the league ranks of league
        /// block `g` of `P.parts`, each invocation keeping its accumulators across them, and
        /// stores them as partial `g * wg + li`; no device join.
        ordered: bool,
        /// Team size, vector length, lanes and scratch pools.
        shape: team::TeamShape,
    },
}

/// What the emitter needs besides the kernel.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EmitOptions {
    /// The entry point.
    pub entry: Entry,
    /// Invocations per workgroup.
    pub wg: u32,
    /// One join per accumulator (reductions and scans).
    pub joins: Vec<JoinKind>,
    /// 32-bit address arithmetic: the launcher sets it when every View argument's elements lie
    /// below element `u32::MAX - 1` of its buffer, so `offset + Σ idx·stride` of an in-bounds
    /// index fits a `u32`. Index checks against the extents stay 64-bit and exact.
    pub addr32: bool,
    /// The accesses the launcher proved in bounds for every work item of this launch
    /// ([`rokkos_device::emit::inbounds`]: every index a work index plus or minus a literal, the
    /// policy's bounds inside the View's extents), emitted without a check (what the native
    /// path's per-chunk check achieves on the host). Only used together with `addr32`, on
    /// Views bound whole, neither packed nor atomic.
    pub in_bounds: Proven,
    /// The index width ([`rokkos_device::emit::width`]): in the 32-bit variant every IR `u64`
    /// (work indices, extents, strides, offsets, `usize` locals and scalars) is a `u32`. The
    /// launcher chooses it per launch ([`crate::runtime::launch`]); `W32` implies `addr32`.
    pub width: IndexWidth,
    /// How each View parameter is bound, by parameter number: a View whose buffer exceeds the
    /// device's storage binding limit is bound as several chunks ([`Split`]). Empty, or
    /// `chunks == 1` for a View, is one binding, and the module is then exactly what it was before
    /// splits existed. Part of the pipeline cache key, as every field here.
    pub splits: Vec<Split>,
}

/// A View bound as `chunks` bindings `v{k}_0 ..` of `2^shift` elements each (the last may be
/// shorter): consecutive chunks of its buffer from chunk `P.v{k}_base`, a parameter (0 when
/// every chunk is bound; a windowed launch, [`rokkos_device::emit::window`], binds only the
/// chunks each window reaches and passes its first). Element offset `o` of the buffer is
/// element `o & (2^shift - 1)` of binding `(o >> shift) - base`, and the accessors pick the
/// binding with a `switch`; an offset outside the bound chunks is an out-of-bounds access. The
/// launcher chooses the shift so that a chunk is a whole number of 32-bit words and of the
/// device's storage offset alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Split {
    /// Number of bindings (1: not split).
    pub chunks: u32,
    /// `log2` of the elements per binding.
    pub shift: u32,
}

impl Split {
    /// One binding.
    pub const NONE: Split = Split {
        chunks: 1,
        shift: 0,
    };
}

/// The split of View parameter `k` when it has more than one chunk.
pub(crate) fn split_of(splits: &[Split], k: usize) -> Option<Split> {
    splits.get(k).copied().filter(|s| s.chunks > 1)
}

/// Device capabilities the emitted code may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Caps {
    /// `f64` (SHADER_F64).
    pub f64: bool,
    /// `i64` / `u64` (SHADER_INT64).
    pub int64: bool,
    /// Every atomic operation on 64-bit integers (SHADER_INT64_ATOMIC_ALL_OPS): `i64` / `u64`
    /// atomics natively, `f64` ones as compare-exchange loops on the bits.
    pub atomic64: bool,
}

impl Caps {
    /// Everything (for tests that only validate WGSL).
    pub const ALL: Caps = Caps {
        f64: true,
        int64: true,
        atomic64: true,
    };
}

/// Why a kernel cannot be emitted (shared with every target of `rokkos_device::emit`).
pub use rokkos_device::emit::EmitError;

/// The generated module and how to bind it.
#[derive(Clone, Debug)]
pub struct Emitted {
    /// WGSL source.
    pub source: String,
    /// The parameter block layout.
    pub params: ParamsLayout,
    /// Whether each binding of group 0 (in binding order) is read-only: the launcher builds the
    /// bind group layout from it, so that a binding the shader does not use still matches.
    /// Binding 0 is the parameter block, a uniform buffer (constant memory on GPUs: every
    /// invocation reads the same extents and strides, so they belong in the constant cache).
    pub read_only: Vec<bool>,
    /// Whether the module can record an error (a checked View or local-array access, ...). A
    /// launch of a module that cannot lets the next fence skip reading the error record.
    pub may_fail: bool,
}

/// WGSL spelling of a scalar type.
pub fn wty(t: ScalarType) -> &'static str {
    if packed::is_signed_packed(t) {
        "i32"
    } else if packed::is_packed(t) {
        "u32"
    } else {
        t.name()
    }
}

/// A WGSL literal (or constant expression) of `v`'s type.
pub use lit::lit;

/// Accumulates helper function definitions by name (emitted once each, in name order), with the
/// options that decide how they are spelled.
#[derive(Default)]
pub(crate) struct Helpers {
    set: rokkos_device::emit::HelperSet,
    /// [`EmitOptions::addr32`].
    pub(crate) addr32: bool,
    /// [`Caps::atomic64`].
    pub(crate) atomic64: bool,
    /// [`EmitOptions::in_bounds`] (empty without `addr32`).
    pub(crate) proven: Proven,
    /// The 32-bit variant ([`EmitOptions::width`]): indices and offsets are `u32`.
    pub(crate) w32: bool,
    /// [`Caps::int64`]: helpers may use 64-bit integers.
    pub(crate) int64: bool,
    /// [`EmitOptions::splits`].
    pub(crate) splits: Vec<Split>,
}

impl Helpers {
    /// Adds `def` under `name` unless present; returns `name`.
    pub(crate) fn add(&mut self, name: &str, def: impl FnOnce() -> String) -> String {
        self.set.add(name, def)
    }
    /// A fresh number for a generated name.
    pub(crate) fn next_id(&mut self) -> u32 {
        self.set.next_id()
    }
    fn render(&self) -> String {
        self.set.render()
    }
}

/// Whether `source` can write the error record: any use of `ERR` or of the recording helpers
/// beyond their own definitions in [`memory::error_helpers`] (counted from those definitions,
/// so that a new kind of check anywhere makes the answer conservative, never wrong).
fn records_errors(source: &str, h: &Helpers) -> bool {
    let base = memory::error_helpers(h);
    ["&ERR[", "rk_oob_begin(", "rk_aix(", "rk_aok("]
        .iter()
        .any(|pat| source.matches(pat).count() > base.matches(pat).count())
}

/// Checks the device capabilities against the types the kernel uses. `why_64` is `Some(why)`
/// when the launch runs the 64-bit index variant (`why`: what keeps it from the 32-bit one).
/// Without SHADER_INT64 only the 32-bit variant of a kernel with no 64-bit integer of its own
/// ([`width::WidthPlan::int64`]) can run.
pub fn check_caps(
    kernel: &Kernel,
    info: &KernelInfo,
    caps: Caps,
    why_64: Option<&str>,
) -> Result<(), EmitError> {
    if info.uses_f64() && !caps.f64 {
        return Err(EmitError::Unsupported(format!(
            "SHADER_F64 (kernel `{}` uses f64)",
            kernel.name
        )));
    }
    if !caps.int64 {
        if let Some(why) = width::plan(kernel).int64 {
            return Err(no_int64(kernel, &why));
        }
        if let Some(why) = why_64 {
            return Err(no_int64(kernel, why));
        }
    }
    Ok(())
}

fn no_int64(kernel: &Kernel, why: &str) -> EmitError {
    EmitError::Unsupported(format!(
        "SHADER_INT64 (kernel `{}` needs 64-bit integers: {why})",
        kernel.name
    ))
}

/// Without SHADER_INT64, the generated module must not mention a 64-bit integer type: a helper
/// the kernel needs may still use one (f32 `%`, integer `clamp` bounds of 64-bit types, ...).
fn check_no_int64(kernel: &Kernel, source: &str, caps: Caps) -> Result<(), EmitError> {
    if caps.int64 {
        return Ok(());
    }
    let is_64 = |w: &str| w == "u64" || w == "i64" || w.ends_with("lu") || w.ends_with("li");
    let found = source.lines().find(|l| {
        l.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .any(|w| is_64(w) && (w.starts_with(|c: char| c.is_ascii_digit()) || w.len() == 3))
    });
    match found {
        Some(l) => Err(no_int64(
            kernel,
            &format!("its generated code uses them in `{}`", l.trim()),
        )),
        None => Ok(()),
    }
}

/// Emits the WGSL module of `kernel` (validated: `info` is its [`KernelInfo`]) for `opts`.
pub fn emit(
    kernel: &Kernel,
    info: &KernelInfo,
    opts: &EmitOptions,
    caps: Caps,
) -> Result<Emitted, EmitError> {
    let w32 = opts.width == IndexWidth::W32;
    // The launcher names this launch's escape before it gets here (`runtime::launch`).
    let why_64 = (!w32).then_some("this launch's sizes or addresses do not fit 32 bits");
    check_caps(kernel, info, caps, why_64)?;
    // The launcher proved this launch (kernel-wide or with its own sizes); a kernel no launch
    // can prove is a launcher bug, refused rather than run.
    if w32 && (!width::plan(kernel).may_run_32() || !opts.addr32) {
        return Err(EmitError::Mismatch(format!(
            "the 32-bit variant of kernel `{}` is not proven exact",
            kernel.name
        )));
    }
    // After the width plan, which the launcher made (and the check above remade) for the kernel
    // as written: the library's functions are full width whatever the variant.
    let lowered = rokkos_device::emit::softmath::lower_math(kernel, math::software)?;
    let kernel: &Kernel = &lowered;
    let params = params_layout(kernel, opts);
    let mut h = Helpers {
        addr32: opts.addr32,
        atomic64: caps.atomic64,
        proven: if opts.addr32 {
            opts.in_bounds.clone()
        } else {
            Proven::NONE
        },
        w32,
        int64: caps.int64,
        splits: opts.splits.clone(),
        ..Helpers::default()
    };
    let mut out = String::new();
    out.push_str(&params.wgsl());
    out.push_str("@group(0) @binding(0) var<uniform> P: Params;\n");
    out.push_str("@group(0) @binding(1) var<storage, read_write> ERR: array<atomic<u32>>;\n");
    let mut read_only = vec![true, false];
    for (k, v) in kernel.views.iter().enumerate() {
        let (access, elem) = memory::binding_type(v, v.used_atomically, caps.atomic64)?;
        let names: Vec<String> = match split_of(&opts.splits, k) {
            Some(sp) => (0..sp.chunks).map(|j| format!("v{k}_{j}")).collect(),
            None => vec![format!("v{k}")],
        };
        for name in names {
            out.push_str(&format!(
                "@group(0) @binding({}) var<storage, {access}> {name}: array<{elem}>;\n",
                read_only.len()
            ));
            read_only.push(access == "read");
        }
    }
    let extra = entry::extra_bindings(kernel, opts);
    for (name, access, ty) in extra.iter() {
        out.push_str(&format!(
            "@group(0) @binding({}) var<storage, {access}> {name}: array<{}>;\n",
            read_only.len(),
            ty.name()
        ));
        read_only.push(*access == "read");
    }
    let mut body = String::new();
    let shape = match opts.entry {
        Entry::Team { shape, .. } if kernel.work == rokkos_core::ir::WorkKind::Team => Some(shape),
        Entry::Team { .. } => {
            return Err(EmitError::Mismatch(
                "a team entry for a non-team kernel".into(),
            ))
        }
        _ if kernel.work == rokkos_core::ir::WorkKind::Team => {
            return Err(EmitError::Mismatch(
                "a team kernel needs a team entry".into(),
            ))
        }
        _ => None,
    };
    walk::emit_functions(kernel, &mut h, &mut body)?;
    walk::emit_work(kernel, shape, opts.width, &mut h, &mut body)?;
    // Only a kernel that can record a failure gets the early stop: the record of a launch that
    // cannot is not its own (`dispatch_window` gives it no number), and its loops pay nothing.
    let stop = entry::Stop(records_errors(
        &format!("{}{}{body}", memory::error_helpers(&h), h.render()),
        &h,
    ));
    let ep = entry::emit_entry(kernel, opts, stop, &mut h)?;
    out.push_str(&walk::private_decls(kernel, w32));
    if let Entry::Team { .. } = opts.entry {
        out.push_str(&team::private_decls(kernel, w32));
    }
    out.push_str(&memory::error_helpers(&h));
    out.push_str(&h.render());
    out.push('\n');
    out.push_str(&body);
    out.push_str(&ep);
    let may_fail = records_errors(&out, &h);
    check_no_int64(kernel, &out, caps)?;
    Ok(Emitted {
        source: out,
        params,
        read_only,
        may_fail,
    })
}
