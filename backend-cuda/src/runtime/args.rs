//! A launch's parameter block, written at the offsets the emitter declared
//! ([`crate::emit::ParamsLayout`]): per View its buffer's address, element offset, extents and
//! strides; the scalars; the reducer's identity; then the work bounds and the reduction buffers,
//! which each pattern sets by field name. Every field is looked up by the name the emitter gave
//! it and every value checked against the field's type, so a launcher and an emitter that
//! disagree fail with `Err(InvalidArgument)` instead of launching a kernel with a wrong block.

use super::launch::ParamBlock;
use crate::emit::{FieldType, ParamsLayout};
use rokkos_core::ir::{ScalarType, Value};
use rokkos_core::kernel::ViewBinding;
use rokkos_core::{Error, MemorySpace, Result};
use rokkos_device::emit::names;

/// Where field `name` lies and what it holds.
fn field(layout: &ParamsLayout, name: &str) -> Result<(FieldType, usize)> {
    layout
        .fields
        .iter()
        .find(|(n, ..)| n == name)
        .map(|(_, t, at)| (*t, *at))
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "the kernel's parameter block has no field `{name}`"
            ))
        })
}

/// Writes `v` into scalar field `name` (a `bool` as a `u32` 0/1, as the emitter declares it). A
/// `usize` value (`u64`) goes into a `u32` field of the 32-bit index variant only when it fits;
/// the launcher chose that variant because it does, so a value that does not is a disagreement
/// between launcher and emitter, `Err(InvalidArgument)`.
pub(crate) fn set_value<B>(
    block: &mut ParamBlock<'_, B>,
    layout: &ParamsLayout,
    name: &str,
    v: Value,
) -> Result<()> {
    put_value(block, field(layout, name)?, v, || name.to_string())
}

/// [`set_value`] at a field already looked up; `name` names it in errors (formatted only then).
fn put_value<B>(
    block: &mut ParamBlock<'_, B>,
    (t, at): (FieldType, usize),
    v: Value,
    name: impl Fn() -> String,
) -> Result<()> {
    let v = match (t, v) {
        (FieldType::Scalar(ScalarType::U32), Value::U64(x)) => {
            Value::U32(u32::try_from(x).map_err(|_| {
                Error::InvalidArgument(format!(
                    "parameter `{}` of the 32-bit index variant given {x}, past u32",
                    name()
                ))
            })?)
        }
        _ => v,
    };
    if t != FieldType::Scalar(v.ty()) {
        return Err(Error::InvalidArgument(format!(
            "parameter `{}` is {t:?}, given a {} value",
            name(),
            v.ty()
        )));
    }
    let bits = v.to_bits().to_le_bytes();
    block.put_bytes(at, &bits[..t.size()])
}

/// Writes `v` into the index field `name` (work bounds, counts, View offsets, extents and
/// strides): a `u64` field, or a `u32` one of the 32-bit index variant when `v` fits.
pub(crate) fn set_u64<B>(
    block: &mut ParamBlock<'_, B>,
    layout: &ParamsLayout,
    name: &str,
    v: u64,
) -> Result<()> {
    set_value(block, layout, name, Value::U64(v))
}

/// Points the pointer field `name` at byte `offset` of `buffer` (`buffer_len` bytes), which the
/// kernel uses within `offset .. offset + len` (writing it when `write`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn set_buffer<'a, B>(
    block: &mut ParamBlock<'a, B>,
    layout: &ParamsLayout,
    name: &str,
    buffer: &'a B,
    buffer_len: usize,
    offset: usize,
    len: usize,
    write: bool,
) -> Result<()> {
    match field(layout, name)? {
        (FieldType::Ptr(..), at) => block.put_buffer(at, buffer, buffer_len, offset, len, write),
        (t, _) => Err(Error::InvalidArgument(format!(
            "parameter `{name}` is {t:?}, not a buffer"
        ))),
    }
}

/// The block of a launch of a kernel with parameter block `layout`: every View argument (in IR
/// parameter order) as its buffer's address, element offset, extents and strides, every scalar,
/// and `init` (the reducer's identity per accumulator field). `len_of` gives a buffer's size.
#[cfg(test)]
pub(crate) fn fill<'a, M: MemorySpace>(
    layout: &ParamsLayout,
    views: &[ViewBinding<'a, M>],
    scalars: &[Value],
    init: &[Value],
    len_of: impl Fn(&M::Buffer) -> usize,
) -> Result<ParamBlock<'a, M::Buffer>> {
    Slots::of(layout)?.fill(layout, views, scalars, init, len_of)
}

/// Where [`Slots::fill`] writes each argument of a launch: the fields of every View, scalar and
/// reducer identity, looked up by name once per variant, so that a launch formats and searches
/// no names (a launch's host cost is part of what it costs: issue 16's launch bars).
#[derive(Debug)]
pub(crate) struct Slots {
    views: Vec<ViewSlots>,
    scalars: Vec<(FieldType, usize)>,
    init: Vec<(FieldType, usize)>,
}

#[derive(Debug)]
struct ViewSlots {
    ptr: usize,
    offset: (FieldType, usize),
    /// Extent and stride per dimension.
    dims: Vec<[(FieldType, usize); 2]>,
}

impl Slots {
    /// The argument fields `layout` declares: Views `v0, v1, ..` with their offset, extents and
    /// strides, scalars `s0, s1, ..`, identities `init0, init1, ..`.
    pub(crate) fn of(layout: &ParamsLayout) -> Result<Slots> {
        let has = |name: &str| layout.fields.iter().any(|(n, ..)| n == name);
        let mut views = Vec::new();
        while has(&names::view(views.len())) {
            let k = views.len();
            let ptr = match field(layout, &names::view(k))? {
                (FieldType::Ptr(..), at) => at,
                (t, _) => {
                    return Err(Error::InvalidArgument(format!(
                        "parameter `{}` is {t:?}, not a buffer",
                        names::view(k)
                    )))
                }
            };
            let mut dims = Vec::new();
            while has(&names::extent(k, dims.len())) {
                let d = dims.len();
                dims.push([
                    field(layout, &names::extent(k, d))?,
                    field(layout, &names::stride(k, d))?,
                ]);
            }
            views.push(ViewSlots {
                ptr,
                offset: field(layout, &names::offset(k))?,
                dims,
            });
        }
        let numbered = |name: &dyn Fn(usize) -> String| {
            let mut v = Vec::new();
            while has(&name(v.len())) {
                v.push(field(layout, &name(v.len()))?);
            }
            Ok::<_, Error>(v)
        };
        Ok(Slots {
            views,
            scalars: numbered(&|p| names::scalar(p as u32))?,
            init: numbered(&|i| format!("init{i}"))?,
        })
    }

    /// The block of a launch of `layout` (whose slots these are): every View argument (in IR
    /// parameter order) as its buffer, element offset, extents and strides, every scalar and
    /// `init` (the reducer's identity per accumulator field). Arguments the layout has no fields
    /// for, or lacks, are `Err(InvalidArgument)`: launcher and emitter disagree.
    pub(crate) fn fill<'a, M: MemorySpace>(
        &self,
        layout: &ParamsLayout,
        views: &[ViewBinding<'a, M>],
        scalars: &[Value],
        init: &[Value],
        len_of: impl Fn(&M::Buffer) -> usize,
    ) -> Result<ParamBlock<'a, M::Buffer>> {
        let count = |what: &str, given: usize, declared: usize| {
            if given == declared {
                Ok(())
            } else {
                Err(Error::InvalidArgument(format!(
                    "the launch gives {given} {what}, the kernel's parameter block has {declared}"
                )))
            }
        };
        count("Views", views.len(), self.views.len())?;
        count("scalars", scalars.len(), self.scalars.len())?;
        count("reducer identities", init.len(), self.init.len())?;
        let mut b = ParamBlock::zeroed(layout.size);
        for (k, (v, s)) in views.iter().zip(&self.views).enumerate() {
            count("extents", v.extents.len(), s.dims.len())?;
            let len = len_of(v.buffer);
            // The pointer is the buffer's start: the element offset is a field of its own, so
            // one compiled kernel serves every subview.
            b.put_buffer(s.ptr, v.buffer, len, 0, len, v.writable)?;
            put_value(&mut b, s.offset, Value::U64(v.offset as u64), || {
                names::offset(k)
            })?;
            for (d, [e, st]) in s.dims.iter().enumerate() {
                put_value(&mut b, *e, Value::U64(v.extents[d] as u64), || {
                    names::extent(k, d)
                })?;
                put_value(&mut b, *st, Value::U64(v.strides[d] as u64), || {
                    names::stride(k, d)
                })?;
            }
        }
        for (p, (v, at)) in scalars.iter().zip(&self.scalars).enumerate() {
            put_value(&mut b, *at, *v, || names::scalar(p as u32))?;
        }
        for (i, (v, at)) in init.iter().zip(&self.init).enumerate() {
            put_value(&mut b, *at, *v, || format!("init{i}"))?;
        }
        Ok(b)
    }
}

/// The bytes one partial (or result) of an accumulator field of type `t` takes on the device
/// (`bool` is stored as a `u32`).
pub(crate) fn stored_size(t: ScalarType) -> usize {
    if t == ScalarType::Bool {
        4
    } else {
        t.size()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::params::params_layout;
    use crate::emit::IndexWidth;
    use rokkos_core::ir::build::KernelBuilder;
    use rokkos_core::ir::{Access, WorkKind};
    use rokkos_core::{HostBuffer, HostSpace};

    fn word(b: &[u8], at: usize, size: usize) -> u64 {
        let mut w = [0u8; 8];
        w[..size].copy_from_slice(&b[at..at + size]);
        u64::from_le_bytes(w)
    }

    /// Every argument lands at the offset the emitter declared for its field, with its own bits,
    /// and every View's buffer is listed with its field and write access; the declared fields
    /// follow C's layout rules (naturally aligned, disjoint, inside the block).
    #[test]
    fn arguments_land_at_the_emitters_offsets() {
        let mut kb = KernelBuilder::new("marshal", WorkKind::Range);
        let i = kb.work_index(0);
        let a = kb.view::<f64>("a", 1, Access::Writable);
        let m = kb.view::<f32>("m", 2, Access::ReadOnly);
        let s = kb.scalar::<f64>("s");
        let flag = kb.scalar::<bool>("flag");
        let k = kb.scalar::<i32>("k");
        let _ = (m, flag, k);
        kb.store(a, i.clone(), s.get());
        let ir = kb.finish().unwrap();
        let layout = params_layout(&ir, IndexWidth::W64);
        let mut end = 0;
        for (n, t, at) in &layout.fields {
            assert_eq!(at % t.size(), 0, "{n} misaligned");
            assert!(*at >= end, "{n} overlaps the field before it");
            end = at + t.size();
        }
        assert!(end <= layout.size && layout.size % 8 == 0);

        let (ba, bm) = (
            HostBuffer::from_owner(vec![0u8; 80]),
            HostBuffer::from_owner(vec![0u8; 400]),
        );
        let views = vec![
            ViewBinding::<HostSpace> {
                param: "a",
                label: "A",
                buffer: &ba,
                elem: ScalarType::F64,
                offset: 3,
                extents: &[7],
                strides: &[1],
                writable: true,
            },
            ViewBinding::<HostSpace> {
                param: "m",
                label: "M",
                buffer: &bm,
                elem: ScalarType::F32,
                offset: 11,
                extents: &[4, 5],
                strides: &[1, 9],
                writable: false,
            },
        ];
        let scalars = [Value::F64(-2.5), Value::Bool(true), Value::I32(-7)];
        let len = |b: &HostBuffer| if std::ptr::eq(b, &ba) { 80 } else { 400 };
        let b = fill(&layout, &views, &scalars, &[], len).unwrap();
        let bytes = b.bytes();
        let at = |n: &str| layout.offset(n).unwrap_or_else(|| panic!("no field {n}"));
        for (name, size, want) in [
            ("v0_off", 8, 3u64),
            ("v0_e0", 8, 7),
            ("v0_s0", 8, 1),
            ("v1_off", 8, 11),
            ("v1_e0", 8, 4),
            ("v1_s0", 8, 1),
            ("v1_e1", 8, 5),
            ("v1_s1", 8, 9),
            ("s0", 8, (-2.5f64).to_bits()),
            ("s1", 4, 1),
            ("s2", 4, (-7i32) as u32 as u64),
            // The pointers hold the byte offset into their buffer until the launch adds the
            // buffer's address: the View's start is its own field.
            ("v0", 8, 0),
            ("v1", 8, 0),
        ] {
            assert_eq!(word(bytes, at(name), size), want, "field {name}");
        }
        let bufs: Vec<(bool, bool, usize)> = b
            .buffers()
            .iter()
            .map(|(buf, w, off)| (std::ptr::eq(*buf, &ba), *w, *off))
            .collect();
        assert_eq!(bufs, vec![(true, true, at("v0")), (false, false, at("v1"))]);
    }

    #[test]
    fn a_disagreement_with_the_emitter_is_an_error_not_a_launch() {
        let mut kb = KernelBuilder::new("sum", WorkKind::Range);
        let acc = kb.acc::<f64>("sum");
        kb.acc_set(acc, 1.0f64);
        let ir = kb.finish().unwrap();
        let layout = params_layout(&ir, IndexWidth::W64);
        // The reducer's identity goes to `init0` with its bits.
        let b = fill::<HostSpace>(&layout, &[], &[], &[Value::F64(-0.0)], |_| 0).unwrap();
        let at = layout.offset("init0").unwrap();
        assert_eq!(word(b.bytes(), at, 8), (-0.0f64).to_bits());
        // A value of the wrong type, an unknown field, a scalar where a buffer goes, and an
        // argument the kernel has no parameter for are refused.
        let mut b = b;
        assert!(matches!(
            set_value(&mut b, &layout, "init0", Value::F32(1.0)),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            set_u64(&mut b, &layout, "no_such_field", 1),
            Err(Error::InvalidArgument(_))
        ));
        let buf = HostBuffer::from_owner(vec![0u8; 8]);
        assert!(matches!(
            set_buffer(&mut b, &layout, "nparts", &buf, 8, 0, 8, true),
            Err(Error::InvalidArgument(_))
        ));
        // A range past the buffer's end is refused before anything is written.
        assert!(set_buffer(&mut b, &layout, "out0", &buf, 8, 4, 8, true).is_err());
        assert!(matches!(
            fill::<HostSpace>(&layout, &[], &[Value::I32(1)], &[], |_| 0),
            Err(Error::InvalidArgument(_))
        ));
        for f in ["out0", "res0", "nparts", "begin", "n", "err", "launch"] {
            assert!(
                layout.offset(f).is_some(),
                "the reduction's block has no `{f}`"
            );
        }
    }

    /// In the 32-bit index variant the View's offset, extents and strides, a `usize` scalar and
    /// the range bounds are 4-byte fields holding the values; a value past `u32` is refused
    /// instead of being truncated into a wrong launch.
    #[test]
    fn the_32_bit_variant_writes_4_byte_index_fields_and_refuses_wider_values() {
        let mut kb = KernelBuilder::new("narrow", WorkKind::Range);
        let i = kb.work_index(0);
        let a = kb.view::<f32>("a", 1, Access::Writable);
        let n = kb.scalar::<usize>("n");
        let _ = n;
        kb.store(a, i, 1.0f32);
        let ir = kb.finish().unwrap();
        let layout = params_layout(&ir, IndexWidth::W32);
        let buf = HostBuffer::from_owner(vec![0u8; 64]);
        let views = vec![ViewBinding::<HostSpace> {
            param: "a",
            label: "A",
            buffer: &buf,
            elem: ScalarType::F32,
            offset: 2,
            extents: &[9],
            strides: &[1],
            writable: true,
        }];
        let mut b = fill(&layout, &views, &[Value::U64(12)], &[], |_| 64).unwrap();
        set_u64(&mut b, &layout, "begin", 1).unwrap();
        set_u64(&mut b, &layout, "n", 8).unwrap();
        for (name, want) in [
            ("v0_off", 2u64),
            ("v0_e0", 9),
            ("v0_s0", 1),
            ("s0", 12),
            ("begin", 1),
            ("n", 8),
        ] {
            let (_, t, at) = layout.fields.iter().find(|(f, ..)| f == name).unwrap();
            assert_eq!(*t, FieldType::Scalar(ScalarType::U32), "field {name}");
            assert_eq!(word(b.bytes(), *at, 4), want, "field {name}");
        }
        assert!(matches!(
            set_u64(&mut b, &layout, "n", 1 << 32),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            fill(&layout, &views, &[Value::U64(u64::MAX)], &[], |_| 64),
            Err(Error::InvalidArgument(_))
        ));
    }
}
