//! `parallel_for` over an `MDRangePolicy`: tiles (the rule every device backend shares,
//! `rokkos_device::runtime::shape`) strided over a grid of resident blocks, a block's threads
//! strided over its tile's points. [`launch`] also serves `reduce_mdrange` (with a reducer: one
//! partial per block, joined by a second pass).

use crate::emit::{entry::ENTRY, reduce::FINAL, CudaOptions, Entry};
use crate::runtime::args::set_u64;
use crate::runtime::device::Instance;
use crate::runtime::reduction::{init_values, Buffers};
use crate::runtime::run::{
    enqueue, index_width, params, prepare, resident_blocks, unsupported, variant, BLOCK,
};
use crate::{Cuda, CudaBuffer, CudaSpace};
use rokkos_core::kernel::KernelIr;
use rokkos_core::reducer::AccValue;
use rokkos_core::{MDRangePolicy, Reducer, Result, Sum};
use rokkos_device::emit::width::Work;
use rokkos_device::runtime::limits;
use rokkos_device::runtime::shape::{mdrange_tiles, tile_counts};
use std::sync::Arc;

/// `parallel_for` over `policy`.
pub(crate) fn run<const N: usize, K: KernelIr<Space = CudaSpace>>(
    inst: &Arc<Instance>,
    label: &str,
    policy: &MDRangePolicy<Cuda, N>,
    kernel: &K,
) -> Result<()> {
    launch::<N, K, i32, Sum>(inst, label, policy, kernel, None, None).map(|_| ())
}

/// The work fields of an MDRange launch: per dimension the begin, the extent (the emitter
/// compares tile-relative coordinates with it), the tile and the tile count; then the number of
/// tiles and the points per tile.
pub(crate) fn work_fields<const N: usize>(
    begin: [usize; N],
    end: [usize; N],
    tiles: [usize; N],
) -> Vec<(String, u64)> {
    let (nt, ntiles) = tile_counts(begin, end, tiles);
    let mut f = Vec::new();
    for d in 0..N {
        f.push((format!("b{d}"), begin[d] as u64));
        f.push((format!("e{d}"), end[d].saturating_sub(begin[d]) as u64));
        f.push((format!("t{d}"), tiles[d] as u64));
        f.push((format!("nt{d}"), nt[d]));
    }
    f.push(("ntiles".into(), ntiles));
    f.push((
        "tvol".into(),
        tiles.iter().map(|&t| t as u64).product::<u64>(),
    ));
    f
}

/// The bounds of an MDRange launch the 32-bit variant's launch facts cover: the begin and end of
/// each dimension and every work field (`work_fields`), since the entry point does its tile
/// arithmetic in the variant's width.
pub(crate) fn width_bounds<const N: usize>(
    begin: [usize; N],
    end: [usize; N],
    work: &[(String, u64)],
) -> Vec<u64> {
    begin
        .iter()
        .chain(end.iter())
        .map(|&x| x as u64)
        .chain(work.iter().map(|(_, x)| *x))
        .collect()
}

/// `parallel_for`, or with `reducer` the two passes of `parallel_reduce`, over an MDRange; a
/// reduction's result goes to `into` (a buffer and byte offset) or to the returned buffers.
/// `None` when the range is empty.
pub(crate) fn launch<
    const N: usize,
    K: KernelIr<Space = CudaSpace>,
    V: AccValue,
    Rd: Reducer<V>,
>(
    inst: &Arc<Instance>,
    label: &str,
    policy: &MDRangePolicy<Cuda, N>,
    kernel: &K,
    reducer: Option<&Rd>,
    into: Option<(&CudaBuffer, usize)>,
) -> Result<Option<Buffers>> {
    let (begin, end, req) = (policy.begin(), policy.end(), policy.tiles());
    let p = prepare(inst, kernel)?;
    let max = inst.device.info.max_threads_per_block.min(BLOCK) as usize;
    let tiles = mdrange_tiles(label, begin, end, req, max)?;
    let fields = p.ir.acc_fields();
    let (entry, joins, init) = match reducer {
        Some(r) => {
            let (j, i) = init_values(r, &fields)?;
            (Entry::Reduce, j, i)
        }
        None => (Entry::For, Vec::new(), Vec::new()),
    };
    let work = work_fields(begin, end, tiles);
    let width = index_width(&p, Work::md(&begin, &end), &width_bounds(begin, end, &work));
    let opts = CudaOptions {
        entry,
        block: BLOCK,
        bounds_checks: true,
        joins,
        in_bounds: p.proven(&begin.into_iter().zip(end).collect::<Vec<_>>()),
        team: None,
        width,
    };
    let entries: &[&str] = if reducer.is_some() {
        &[ENTRY, FINAL]
    } else {
        &[ENTRY]
    };
    let v = variant(inst, &p, &opts, entries)?;
    let ntiles = work[work.len() - 2].1;
    if ntiles == 0 {
        return Ok(None);
    }
    if ntiles > u32::MAX as u64 {
        return Err(unsupported(format!(
            "{ntiles} MDRange tiles (more than 2^32)"
        )));
    }
    // Tiles strided over the resident blocks, or more where a thread would otherwise walk
    // more than `TRIPS_MAX` points.
    let points = limits::mdrange_items(label, begin, end)?;
    let cap = resident_blocks(inst, &v.entries[0])?.max(limits::min_groups(points, BLOCK as u64));
    let blocks = ntiles.min(cap);
    let mut b = params(&v, &p, &init)?;
    for (name, x) in &work {
        set_u64(&mut b, &v.layout, name, *x)?;
    }
    match reducer {
        None => {
            enqueue(inst, &p, &v, b, &[(0, blocks)])?;
            Ok(None)
        }
        Some(_) => {
            let bufs = Buffers::new(inst, &fields, blocks)?;
            bufs.bind(&mut b, &v.layout, into)?;
            enqueue(inst, &p, &v, b, &[(0, blocks), (1, 1)])?;
            Ok(Some(bufs))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::params::params_layout;
    use crate::emit::IndexWidth;
    use rokkos_core::ir::build::KernelBuilder;
    use rokkos_core::ir::{Access, WorkKind};

    /// The work fields are the ones the emitter declares, and `e{d}` is the extent: the entry
    /// point compares tile-relative coordinates with it and adds the begin itself.
    #[test]
    fn work_fields_match_the_entry_points_reading() {
        let mut kb = KernelBuilder::new("md", WorkKind::MDRange(2));
        let (i, j) = (kb.work_index(0), kb.work_index(1));
        let a = kb.view::<f32>("a", 2, Access::Writable);
        kb.store(a, vec![i, j], 2.0f32);
        let k = kb.finish().unwrap();
        let info = rokkos_core::ir::valid::validate(&k).unwrap();
        let opts = CudaOptions {
            entry: Entry::For,
            block: BLOCK,
            bounds_checks: true,
            joins: vec![],
            in_bounds: Default::default(),
            team: None,
            width: IndexWidth::W64,
        };
        let src = crate::emit::emit(&k, &info, &opts).unwrap().source;
        assert!(src.contains("x0 < P.e0 && x1 < P.e1"), "{src}");
        assert!(src.contains("rk_work(P, P.b0 + x0, P.b1 + x1)"), "{src}");
        let layout = params_layout(&k, IndexWidth::W64);
        let f = work_fields([3, 10], [20, 11], [16, 16]);
        for (name, _) in &f {
            assert!(layout.offset(name).is_some(), "no field {name}");
        }
        let get = |n: &str| f.iter().find(|(m, _)| m == n).unwrap().1;
        assert_eq!(
            (get("b0"), get("e0"), get("t0"), get("nt0")),
            (3, 17, 16, 2)
        );
        assert_eq!(
            (get("b1"), get("e1"), get("t1"), get("nt1")),
            (10, 1, 16, 1)
        );
        assert_eq!((get("ntiles"), get("tvol")), (2, 256));
    }
}
