//! The device side of a reduction's result: per-block partials and the result element of each
//! accumulator field in pooled buffers, joined on the device by the second pass; the result read
//! back for the host (blocking) or left in the View of `parallel_reduce_into` (asynchronous).
//! The host-side bookkeeping every device backend shares is `rokkos_device::runtime::reduce`.

use super::args::{set_buffer, set_u64, stored_size};
use super::device::Instance;
use super::launch::ParamBlock;
use super::memory::{CudaBuffer, CudaSpace};
use super::run::unsupported;
use rokkos_core::ir::{AccField, ScalarType, Value};
use rokkos_core::reducer::{AccValue, JoinKind};
use rokkos_core::space::ResultSlot;
use rokkos_core::{MemorySpace, Reducer, Result};
use rokkos_device::runtime::pool::Pooled;
use rokkos_device::runtime::reduce::{
    decode_column, device_result_element, encode_column, to_value, Columns,
};
use std::sync::Arc;

/// The reducer's joins and identity for the kernel's accumulator `fields`.
pub(crate) fn init_values<V: AccValue, Rd: Reducer<V>>(
    reducer: &Rd,
    fields: &[(AccField, ScalarType)],
) -> Result<(Vec<JoinKind>, Vec<Value>)> {
    rokkos_device::runtime::reduce::init_values(reducer, fields, |f| unsupported(f))
}

/// The reducer's identity for the kernel's accumulator `fields` and its device joins (`None`:
/// a host-only join, for the ordered-partials mode).
pub(crate) fn plan_values<V: AccValue, Rd: Reducer<V>>(
    reducer: &Rd,
    fields: &[(AccField, ScalarType)],
) -> Result<(Option<Vec<JoinKind>>, Vec<Value>)> {
    rokkos_device::runtime::reduce::plan_values(reducer, fields)
}

/// A reduction's device buffers: `nparts` partials and one result element per field.
pub(crate) struct Buffers {
    parts: Vec<Pooled<(), CudaBuffer>>,
    res: Vec<Pooled<(), CudaBuffer>>,
    fields: Vec<(AccField, ScalarType)>,
    nparts: u64,
    /// The ordered-partials mode (`rokkos_device::runtime::ordered`): no device join; the result
    /// is every partial read back and joined on the host, in order.
    ordered: bool,
}

pub(crate) fn take(inst: &Instance, bytes: usize) -> Result<Pooled<(), CudaBuffer>> {
    let dev = &inst.device;
    dev.pool.take((), bytes, |size| {
        let home = CudaSpace {
            inst: Ok(dev.default_instance()?),
        };
        home.allocate("rokkos reduction", size as usize, 8)
    })
}

impl Buffers {
    /// Buffers for `nparts` partials of each of `fields` (and the results).
    pub(crate) fn new(
        inst: &Instance,
        fields: &[(AccField, ScalarType)],
        nparts: u64,
    ) -> Result<Buffers> {
        let count = usize::try_from(nparts).map_err(|_| unsupported("that many partials"))?;
        let mut parts = Vec::new();
        let mut res = Vec::new();
        for (_, t) in fields {
            parts.push(take(inst, count.max(1) * stored_size(*t))?);
            res.push(take(inst, stored_size(*t))?);
        }
        Ok(Buffers {
            parts,
            res,
            fields: fields.to_vec(),
            nparts,
            ordered: false,
        })
    }

    /// Buffers for the `nparts` partials of an ordered-partials reduction, whose result the host
    /// joins ([`Buffers::value`]).
    pub(crate) fn ordered(
        inst: &Instance,
        fields: &[(AccField, ScalarType)],
        nparts: u64,
    ) -> Result<Buffers> {
        Ok(Buffers {
            ordered: true,
            ..Buffers::new(inst, fields, nparts)?
        })
    }

    /// Points the block's partials, results and count at these buffers; the result of field 0
    /// goes to `into` (a buffer and byte offset) instead when given.
    pub(crate) fn bind<'a>(
        &'a self,
        block: &mut ParamBlock<'a>,
        layout: &crate::emit::ParamsLayout,
        into: Option<(&'a CudaBuffer, usize)>,
    ) -> Result<()> {
        for (i, (_, t)) in self.fields.iter().enumerate() {
            let sz = stored_size(*t);
            let p: &CudaBuffer = &self.parts[i];
            set_buffer(
                block,
                layout,
                &format!("out{i}"),
                p,
                p.len_bytes(),
                0,
                self.nparts as usize * sz,
                true,
            )?;
            let (r, off): (&CudaBuffer, usize) = match into {
                Some(slot) if i == 0 => slot,
                _ => (&self.res[i], 0),
            };
            set_buffer(
                block,
                layout,
                &format!("res{i}"),
                r,
                r.len_bytes(),
                off,
                sz,
                true,
            )?;
        }
        set_u64(block, layout, "nparts", self.nparts)
    }

    /// The reduction's value (waits for the stream; a kernel failure of this thread's is the
    /// error): the device's result, or in the ordered mode every partial joined by `reducer`
    /// in order.
    pub(crate) fn value<V: AccValue, Rd: Reducer<V>>(
        &self,
        inst: &Arc<Instance>,
        reducer: &Rd,
    ) -> Result<V> {
        if !self.ordered {
            return self.read(inst);
        }
        self.partials(inst)?.join(reducer)
    }

    /// Every partial, read back in order (waits for the stream; a kernel failure of this
    /// thread's is the error).
    pub(crate) fn partials(&self, inst: &Arc<Instance>) -> Result<Columns> {
        let space = CudaSpace {
            inst: Ok(inst.clone()),
        };
        let count = usize::try_from(self.nparts).map_err(|_| unsupported("that many partials"))?;
        let mut cols = Vec::with_capacity(self.fields.len());
        for (i, (_, t)) in self.fields.iter().enumerate() {
            let mut bytes = vec![0u8; count * stored_size(*t)];
            // SAFETY: a pooled buffer this reduction holds exclusively; no View refers to it.
            unsafe { space.read_bytes(&self.parts[i], 0, &mut bytes) }?;
            cols.push(decode_column(*t, stored_size(*t), &bytes, count));
        }
        Ok(Columns::new(count, cols))
    }

    /// Overwrites the partials with `cols` (one column of `nparts` values per field: an ordered
    /// scan's block prefixes), in stream order after the work enqueued so far.
    pub(crate) fn write_partials(&self, inst: &Arc<Instance>, cols: &[Vec<Value>]) -> Result<()> {
        let space = CudaSpace {
            inst: Ok(inst.clone()),
        };
        for (i, ((_, t), col)) in self.fields.iter().zip(cols).enumerate() {
            let bytes = encode_column(col, stored_size(*t));
            // SAFETY: a pooled buffer this reduction holds exclusively; no View refers to it,
            // and `bytes` holds at most `nparts` elements, the buffer's size.
            unsafe { space.write_bytes(&self.parts[i], 0, &bytes) }?;
        }
        Ok(())
    }

    /// The result, read back (waits for the stream; a kernel failure of this thread's is the
    /// error).
    fn read<V: AccValue>(&self, inst: &Arc<Instance>) -> Result<V> {
        let space = CudaSpace {
            inst: Ok(inst.clone()),
        };
        let mut vals = Vec::with_capacity(self.fields.len());
        for (i, (_, t)) in self.fields.iter().enumerate() {
            let mut bytes = vec![0u8; stored_size(*t)];
            // SAFETY: a pooled buffer this reduction holds exclusively; no View refers to it.
            unsafe { space.read_bytes(&self.res[i], 0, &mut bytes) }?;
            vals.extend(decode_column(*t, stored_size(*t), &bytes, 1));
        }
        to_value::<V>(&vals)
    }
}

/// Where the device writes the result of `parallel_reduce_into` `slot`: the slot's element when
/// the second pass can write the Rust value there (a single non-`bool` field of the value's
/// size, an aligned element, a buffer of this device), else `None` (the result comes back to the
/// host, which writes it).
pub(crate) fn device_target<'s>(
    inst: &Instance,
    fields: &[(AccField, ScalarType)],
    value_size: usize,
    slot: &ResultSlot<'s, CudaSpace>,
) -> Option<(&'s CudaBuffer, usize)> {
    (slot.buffer().on_device_of(inst)
        && device_result_element(fields, value_size, slot.byte_offset()).is_some())
    .then(|| (slot.buffer(), slot.byte_offset()))
}

/// Completes a reduction launched by `launch` (given where the device writes the result, it
/// returns the buffers, or `None` when there was no work item) into `slot`: asynchronously when
/// the device writes the slot itself, else through the host (always for a reducer whose join is
/// host code: the host joins, then writes the element, waiting for the device).
pub(crate) fn finish_into<'s, V: AccValue + bytemuck::Pod, Rd: Reducer<V>>(
    inst: &Arc<Instance>,
    fields: &[(AccField, ScalarType)],
    reducer: &Rd,
    slot: ResultSlot<'s, CudaSpace>,
    launch: impl FnOnce(Option<(&'s CudaBuffer, usize)>) -> Result<Option<Buffers>>,
) -> Result<()> {
    // A join that is host code (the ordered mode) cannot write the slot on the device.
    let host_join = rokkos_core::reducer::describe_reducer::<V, Rd>(reducer).is_none();
    let target =
        device_target(inst, fields, std::mem::size_of::<V>(), &slot).filter(|_| !host_join);
    if let Some((b, off)) = target {
        rokkos_core::space::check_byte_range(b.len_bytes(), off, std::mem::size_of::<V>())?;
    }
    match launch(target)? {
        None => slot.write(reducer.init()),
        Some(_) if target.is_some() => Ok(()),
        Some(bufs) => slot.write(bufs.value(inst, reducer)?),
    }
}

/// Completes a reduction launched by `launch` (see [`finish_into`]) as a host value.
pub(crate) fn finish_host<V: AccValue, Rd: Reducer<V>>(
    inst: &Arc<Instance>,
    reducer: &Rd,
    launch: Option<Buffers>,
) -> Result<V> {
    match launch {
        None => Ok(reducer.init()),
        Some(bufs) => bufs.value(inst, reducer),
    }
}
