//! Allocations on wgpu either exist, every buffer of them, or are `Err(OutOfMemory)` at once
//! (issue 28, item 9): wgpu makes buffers without saying whether their memory exists, and
//! lavapipe backs device memory lazily, so before this a View of 8 TiB on a 24 GiB machine was
//! `Ok` (4096 buffers of 2 GiB) and failed later. The device counts the bytes its Views hold
//! against the adapter's memory (`Wgpu::device_memory`, `runtime::budget`). Without an adapter
//! each test prints why and passes, unless `ROKKOS_REQUIRE_WGPU=1`.

use rokkos_core::{create_mirror_view_and_copy, Error, ExecutionSpace, LayoutRight, View};
use rokkos_wgpu::{Wgpu, WgpuSpace};

// `common::NoBody` serves the tests that launch hand-built kernels; these only allocate.
#[allow(dead_code)]
mod common;

type DView<T, const R: usize = 1> = View<T, R, LayoutRight, WgpuSpace>;

fn oom_of(r: rokkos_core::Result<impl std::fmt::Debug>) -> (String, usize) {
    match r {
        Err(Error::OutOfMemory { label, bytes }) => (label, bytes),
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
}

/// The adapter's memory is known on Vulkan and on a CPU adapter (lavapipe: the host's), a
/// View larger than it is refused before any buffer exists, and one within it is made and
/// counted until it is dropped.
#[test]
fn views_past_the_adapters_memory_are_refused_at_once() {
    let Some(gpu) = common::space() else { return };
    let mem = gpu.memory_space();
    if gpu.adapter_name().contains("llvmpipe") {
        let cap = gpu
            .device_memory()
            .expect("lavapipe's memory is the host's, which Linux reports");
        assert!(cap >= 1 << 30, "{cap} bytes");
    }
    let before = gpu.memory_in_use();
    // 8 TiB: far past any adapter, and past `max_buffer_size`, so thousands of buffers.
    let huge = DView::<f64>::new_in(&mem, "huge", [1 << 40]);
    assert_eq!(oom_of(huge), ("huge".to_string(), 8 << 40));
    assert_eq!(gpu.memory_in_use(), before, "a refusal holds nothing");
    if let Some(cap) = gpu.device_memory() {
        // Just past the adapter's memory, in bytes (not elements).
        let n = (cap / 4 + 1) as usize;
        let (label, bytes) = oom_of(DView::<u32>::new_in(&mem, "past", [n]));
        assert_eq!((label.as_str(), bytes), ("past", 4 * n));
    }
    let v = DView::<f64>::new_in(&mem, "small", [1000]).unwrap();
    assert_eq!(gpu.memory_in_use(), before + 8000);
    v.fill(3.0).unwrap();
    assert!(create_mirror_view_and_copy(&v)
        .unwrap()
        .to_vec()
        .iter()
        .all(|&x| x == 3.0));
    drop(v);
    assert_eq!(gpu.memory_in_use(), before);
}

/// A View held in several buffers (a device whose buffers hold 1 MiB) is made whole or not at
/// all: at a memory limit of 4 MiB, a second View of 3 MiB is refused and nothing of it is held,
/// a View of exactly the remaining bytes fits, and dropping Views gives their bytes back.
#[test]
fn split_views_are_all_or_nothing() {
    if common::space().is_none() {
        return;
    }
    let gpu = Wgpu::with_max_memory(4 << 20, Some(1 << 20)).unwrap();
    assert_eq!(gpu.device_memory(), Some(4 << 20));
    assert_eq!(gpu.max_buffer(), 1 << 20);
    let mem = gpu.memory_space();
    let three = 3 << 18; // 3 MiB of f32: three buffers
    let a = DView::<f32>::new_in(&mem, "a", [three]).unwrap();
    assert_eq!(gpu.memory_in_use(), 3 << 20);
    let (label, bytes) = oom_of(DView::<f32>::new_in(&mem, "b", [three]));
    assert_eq!((label.as_str(), bytes), ("b", 3 << 20));
    assert_eq!(
        gpu.memory_in_use(),
        3 << 20,
        "the refused View holds nothing"
    );
    // The last MiB is there to take, and the first View still works across its buffers.
    let c = DView::<f32>::new_in(&mem, "c", [1 << 18]).unwrap();
    assert_eq!(gpu.memory_in_use(), 4 << 20);
    assert!(matches!(
        DView::<u8>::new_in(&mem, "d", [1]),
        Err(Error::OutOfMemory { .. })
    ));
    a.fill(1.5).unwrap();
    c.fill(2.5).unwrap();
    let ha = create_mirror_view_and_copy(&a).unwrap().to_vec();
    assert_eq!(ha.len(), three);
    assert!(ha.iter().all(|&x| x == 1.5));
    drop(a);
    assert_eq!(gpu.memory_in_use(), 1 << 20);
    // With the bytes back, a View of 3 MiB is made after all.
    let b = DView::<f32>::new_in(&mem, "b", [three]).unwrap();
    b.fill(4.0).unwrap();
    assert!(create_mirror_view_and_copy(&b)
        .unwrap()
        .to_vec()
        .iter()
        .all(|&x| x == 4.0));
    assert!(create_mirror_view_and_copy(&c)
        .unwrap()
        .to_vec()
        .iter()
        .all(|&x| x == 2.5));
    drop((b, c));
    assert_eq!(gpu.memory_in_use(), 0);
}
