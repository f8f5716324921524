//! The launch parameter block: ONE function ([`params_layout`]) decides which fields a launch passes
//! and where they sit, for both the emitter (the WGSL `struct Params`) and the launcher (the bytes).
//!
//! Fields are 8-byte types first, then 4-byte types, each at its natural alignment, which is exactly
//! the layout WGSL gives a uniform-buffer struct of scalars with the members in that order (the
//! block is bound as a uniform buffer: constant memory on GPUs). `bool` scalars travel
//! as `u32` (0 or 1) because `bool` is not host-shareable in WGSL.

use crate::emit::{EmitOptions, Entry};
use rokkos_core::ir::{Kernel, ScalarType, Value, WorkKind};

/// One field of the parameter block.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamField {
    /// WGSL member name.
    pub name: String,
    /// Storage type (never `bool`).
    pub ty: ScalarType,
    /// Byte offset in the block.
    pub offset: usize,
}

/// The layout of a kernel's parameter block.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ParamsLayout {
    /// The fields, in memory order.
    pub fields: Vec<ParamField>,
    /// Size of the block in bytes (a multiple of 8).
    pub size: usize,
}

/// The storage type of a value of type `t` in the parameter block and in output buffers.
pub fn storage_type(t: ScalarType) -> ScalarType {
    // `u8` / `u16` values are `u32`s in WGSL, `i8` / `i16` ones `i32`s (see `emit::packed`).
    match t {
        ScalarType::Bool | ScalarType::U8 | ScalarType::U16 => ScalarType::U32,
        ScalarType::I8 | ScalarType::I16 => ScalarType::I32,
        _ => t,
    }
}

/// The parameter block of `kernel` launched as `opts` describes.
///
/// In the 32-bit variant ([`EmitOptions::width`]) every `u64` field (work bounds, View offsets,
/// extents and strides, `usize` scalars) is a `u32`: the launch facts say their values fit.
pub fn params_layout(kernel: &Kernel, opts: &EmitOptions) -> ParamsLayout {
    use ScalarType as T;
    let w32 = opts.width == rokkos_device::emit::width::IndexWidth::W32;
    let mut f: Vec<(String, ScalarType)> = vec![("launch".into(), T::U32)];
    match kernel.work {
        WorkKind::Range => {
            f.push(("begin".into(), T::U64));
            f.push(("n".into(), T::U64));
            f.push(("stride".into(), T::U64));
            if matches!(opts.entry, Entry::Ordered { .. } | Entry::OrderedScan) {
                // The number of blocks (`rokkos_device::runtime::ordered`).
                f.push(("parts".into(), T::U64));
            }
        }
        WorkKind::MDRange(r) => {
            for k in 0..r {
                f.push((format!("b{k}"), T::U64));
                f.push((format!("e{k}"), T::U64));
                f.push((format!("t{k}"), T::U32));
                f.push((format!("nt{k}"), T::U32));
            }
            f.push(("ntiles".into(), T::U32));
            if matches!(opts.entry, Entry::Ordered { .. }) {
                f.push(("parts".into(), T::U32));
            }
        }
        WorkKind::Team => {
            f.push(("league".into(), T::U64));
            f.push(("tsize".into(), T::U64));
            f.push(("vlen".into(), T::U64));
            f.push(("l1_bytes".into(), T::U64));
            if let Entry::Team { ordered: true, .. } = opts.entry {
                // The number of league blocks (`rokkos_device::runtime::ordered::team_blocks`).
                f.push(("parts".into(), T::U64));
            }
        }
    }
    for (k, v) in kernel.views.iter().enumerate() {
        f.push((format!("v{k}_off"), T::U64));
        for d in 0..v.rank {
            f.push((format!("v{k}_e{d}"), T::U64));
            f.push((format!("v{k}_s{d}"), T::U64));
        }
        if crate::emit::split_of(&opts.splits, k).is_some() {
            // The first chunk bound (`emit::Split`): 0, or a window's first.
            f.push((format!("v{k}_base"), T::U32));
        }
    }
    for (k, s) in kernel.scalars.iter().enumerate() {
        f.push((format!("s{k}"), storage_type(s.ty)));
    }
    if opts.entry != Entry::For {
        for (k, (_, t)) in kernel.acc_fields().iter().enumerate() {
            f.push((format!("init{k}"), storage_type(*t)));
        }
    }
    for (_, t) in f.iter_mut() {
        *t = rokkos_device::emit::walk::lower(w32, *t);
    }
    ParamsLayout::of_fields(f)
}

impl ParamsLayout {
    /// The layout of a block of the fields `f` (names and storage types, in any order).
    pub fn of_fields(mut f: Vec<(String, ScalarType)>) -> ParamsLayout {
        // 8-byte fields first, then 4-byte ones: natural alignment without padding.
        f.sort_by_key(|(_, t)| std::cmp::Reverse(t.size()));
        let mut off = 0;
        let mut fields = Vec::new();
        for (name, ty) in f {
            fields.push(ParamField {
                name,
                ty,
                offset: off,
            });
            off += ty.size();
        }
        ParamsLayout {
            fields,
            // A uniform binding's size is rounded to 16 bytes.
            size: off.div_ceil(16) * 16,
        }
    }

    /// The WGSL struct declaration.
    pub fn wgsl(&self) -> String {
        let mut s = String::from("struct Params {\n");
        for f in &self.fields {
            s.push_str(&format!("    {}: {},\n", f.name, f.ty.name()));
        }
        s.push_str("}\n");
        s
    }
    /// A zeroed block to fill with [`ParamsLayout::set`].
    pub fn block(&self) -> Vec<u8> {
        vec![0; self.size.max(16)]
    }
    /// Writes `v` into field `name` of `block` (converted to the field's storage type by bits; `bool`
    /// as 0/1, `i8` / `i16` sign-extended). Unknown names are ignored (a field the layout did not include).
    pub fn set(&self, block: &mut [u8], name: &str, v: Value) {
        if let Some(f) = self.fields.iter().find(|f| f.name == name) {
            Self::put(block, f, v);
        }
    }
    /// Writes `v` into field `f` of `block` (as [`ParamsLayout::set`], the field already found).
    pub fn put(block: &mut [u8], f: &ParamField, v: Value) {
        let bytes = rokkos_device::runtime::reduce::storage_bits(v).to_le_bytes();
        block[f.offset..f.offset + f.ty.size()].copy_from_slice(&bytes[..f.ty.size()]);
    }
    /// Writes a `u64` field.
    pub fn set_u64(&self, block: &mut [u8], name: &str, v: u64) {
        self.set(block, name, Value::U64(v))
    }
    /// Writes a `u32` field.
    pub fn set_u32(&self, block: &mut [u8], name: &str, v: u32) {
        self.set(block, name, Value::U32(v))
    }
}
