//! A launched reduction and how it completes: its per-workgroup partials joined for the host
//! (a value) or into a device View's element (`parallel_reduce_into`, without waiting). The
//! bookkeeping every device backend shares is `rokkos_device::runtime::reduce`.

use super::ctx::Ctx;
use super::launch::unsupported;
use super::memory::WgpuSpace;
use super::partials::{into_element, read_all, to_host, JoinSpec, Partials};
use rokkos_core::ir::{AccField, ScalarType, Value};
use rokkos_core::reducer::{AccValue, JoinKind};
use rokkos_core::space::ResultSlot;
use rokkos_core::{Reducer, Result};
use rokkos_device::runtime::reduce::device_result_element;
use std::sync::Arc;

/// The reducer's identity for the kernel's accumulator `fields` and its device joins (`None`:
/// a host-only join, for the ordered-partials mode).
pub(crate) fn plan_values<V: AccValue, Rd: Reducer<V>>(
    reducer: &Rd,
    fields: &[(AccField, ScalarType)],
) -> Result<(Option<Vec<JoinKind>>, Vec<Value>)> {
    rokkos_device::runtime::reduce::plan_values(reducer, fields)
}

/// The reducer's joins and identity for the kernel's accumulator `fields`.
pub(crate) fn init_values<V: AccValue, Rd: Reducer<V>>(
    reducer: &Rd,
    fields: &[(AccField, ScalarType)],
) -> Result<(Vec<JoinKind>, Vec<Value>)> {
    rokkos_device::runtime::reduce::init_values(reducer, fields, |f| unsupported(f))
}

/// A launched reduction: its per-workgroup partials (none when there was no work item) and how
/// they join. [`finish_host`] or [`finish_into`] completes it.
pub(crate) struct Reduction {
    ir: Arc<rokkos_core::ir::Kernel>,
    joins: Vec<JoinKind>,
    pub init: Vec<Value>,
    pub parts: Option<Partials>,
    /// The ordered-partials mode (`rokkos_device::runtime::ordered`): the reducer's join is host
    /// code, so every partial is read back and joined on the host, in order.
    pub ordered: bool,
}

impl Reduction {
    /// A reduction of `ir`'s accumulators by `joins` from `init`, before its launch.
    pub(crate) fn new(
        ir: &Arc<rokkos_core::ir::Kernel>,
        joins: Vec<JoinKind>,
        init: &[Value],
    ) -> Self {
        Reduction {
            ir: ir.clone(),
            joins,
            init: init.to_vec(),
            parts: None,
            ordered: false,
        }
    }
    /// An ordered-partials reduction of `ir`'s accumulators from `init`, before its launch.
    pub(crate) fn ordered(ir: &Arc<rokkos_core::ir::Kernel>, init: &[Value]) -> Self {
        Reduction {
            ordered: true,
            ..Reduction::new(ir, Vec::new(), init)
        }
    }
    fn spec(&self) -> JoinSpec<'_> {
        JoinSpec {
            ir: &self.ir,
            joins: &self.joins,
            init: &self.init,
        }
    }
}

/// The reduction's value on the host (waits for the device).
pub(crate) fn finish_host<V: AccValue, Rd: Reducer<V>>(
    ctx: &Ctx,
    mut red: Reduction,
    reducer: &Rd,
) -> Result<V> {
    let Some(parts) = red.parts.take() else {
        return Ok(reducer.init());
    };
    if red.ordered {
        return read_all(ctx, &red.ir, &parts)?.join(reducer);
    }
    to_host(ctx, &red.spec(), parts)?.join(reducer)
}

/// The value of a reduction launched as windows (`runtime::window`), one [`Reduction`] per
/// window in window order: each completed on the host, and the values joined in that order
/// with the reducer's join (a join in host code sees the items in the order of the launch
/// that is not windowed). The identity when there is no window.
pub(crate) fn join_windows<V: AccValue, Rd: Reducer<V>>(
    ctx: &Ctx,
    reds: Vec<Reduction>,
    reducer: &Rd,
) -> Result<V> {
    let mut value: Option<V> = None;
    for red in reds {
        let v = finish_host(ctx, red, reducer)?;
        match &mut value {
            None => value = Some(v),
            Some(acc) => reducer.join(acc, v),
        }
    }
    Ok(value.unwrap_or_else(|| reducer.init()))
}

/// Stores the reduction's value into `slot`. A single scalar accumulator whose Rust value is its
/// device representation is joined into the slot on the device, without waiting; anything else
/// (several fields, `bool`, an element the device cannot address, a reducer whose join is host
/// code) goes through the host, waiting for the device.
pub(crate) fn finish_into<V: AccValue + bytemuck::Pod, Rd: Reducer<V>>(
    ctx: &Ctx,
    mut red: Reduction,
    reducer: &Rd,
    slot: ResultSlot<'_, WgpuSpace>,
) -> Result<()> {
    let fields = red.ir.acc_fields();
    let size = std::mem::size_of::<V>();
    let buf = slot.buffer();
    // The element's buffer (of a View held in several, the segment holding it) and its index
    // there.
    let seg = buf.within(slot.byte_offset() as u64, size as u64);
    let elem =
        seg.and_then(|(b, at)| Some((b, device_result_element(&fields, size, at as usize)?)));
    let same_device = std::ptr::eq(&*buf.ctx, ctx);
    match (elem, red.parts.take()) {
        (Some((seg, elem)), Some(parts)) if same_device && !red.ordered => {
            rokkos_core::space::check_byte_range(buf.bytes, slot.byte_offset(), size)?;
            into_element(ctx, &red.spec(), parts, seg, elem)
        }
        (_, parts) => {
            red.parts = parts;
            slot.write(finish_host::<V, Rd>(ctx, red, reducer)?)
        }
    }
}
