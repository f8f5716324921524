//! The View API on `CudaSpace`: layouts, subviews, mirrors (pinned), deep_copy host<->device and
//! device<->device, fill, resize, realloc, and Views shared by two streams. Needs a GPU: without
//! one the tests print why and pass, unless `ROKKOS_REQUIRE_CUDA=1`.

use rokkos_core::{
    create_mirror, create_mirror_view, create_mirror_view_and_copy, deep_copy, LayoutLeft,
    LayoutRight, LayoutStride, View,
};
use rokkos_cuda::{Cuda, CudaSpace};

fn gpu() -> Option<Cuda> {
    match Cuda::new() {
        Ok(c) => Some(c),
        Err(e) if std::env::var("ROKKOS_REQUIRE_CUDA").as_deref() == Ok("1") => {
            panic!("ROKKOS_REQUIRE_CUDA=1 but: {e}")
        }
        Err(e) => {
            eprintln!("skipping: {e}");
            None
        }
    }
}

#[test]
fn view_api_round_trips_through_device_memory() {
    let Some(gpu) = gpu() else { return };
    let space = gpu.memory_space();
    let h = View::<f64, 2>::from_fn("h", [37, 53], |[i, j]| (i * 1000 + j) as f64).unwrap();
    // Host (right) -> device (left): a layout change goes element by element.
    let d = View::<f64, 2, LayoutLeft, CudaSpace>::new_in(&space, "d", [37, 53]).unwrap();
    deep_copy(&d, &h).unwrap();
    let m = create_mirror_view_and_copy(&d).unwrap();
    assert_eq!(m.to_vec(), h.to_vec());
    // Device -> device, same layout: the space's own copy.
    let d2 = View::<f64, 2, LayoutLeft, CudaSpace>::new_in(&space, "d2", [37, 53]).unwrap();
    deep_copy(&d2, &d).unwrap();
    let m2 = create_mirror(&d2).unwrap();
    deep_copy(&m2, &d2).unwrap();
    assert_eq!(m2.to_vec(), h.to_vec());
    // A strided subview of the device View, copied out and back in.
    let col: View<f64, 1, LayoutStride, CudaSpace> = d.subview((.., 7)).unwrap();
    let hc = create_mirror_view_and_copy(&col).unwrap();
    assert_eq!(
        hc.to_vec(),
        (0..37).map(|i| (i * 1000 + 7) as f64).collect::<Vec<_>>()
    );
    hc.fill(-1.0).unwrap();
    deep_copy(&col, &hc).unwrap();
    deep_copy(&m, &d).unwrap();
    assert_eq!(m.get((5, 7)), -1.0);
    assert_eq!(m.get((5, 8)), 5008.0);
    // Fill, resize (keeps the overlap), realloc (zero).
    let mut v = View::<i32, 1, LayoutRight, CudaSpace>::new_in(&space, "v", [10]).unwrap();
    v.fill(4).unwrap();
    v.resize([15]).unwrap();
    let hv = create_mirror_view_and_copy(&v).unwrap();
    assert_eq!(hv.to_vec(), [vec![4; 10], vec![0; 5]].concat());
    v.realloc([3]).unwrap();
    assert_eq!(
        create_mirror_view_and_copy(&v).unwrap().to_vec(),
        vec![0; 3]
    );
    // Mirrors of a device View are new host allocations; of a host View, the View itself.
    assert!(!create_mirror_view(&v).unwrap().shares_allocation_with(&hv));
    // Empty Views are fine.
    let e = View::<u8, 1, LayoutRight, CudaSpace>::new_in(&space, "e", [0]).unwrap();
    assert!(create_mirror_view_and_copy(&e).unwrap().to_vec().is_empty());
    gpu.fence().unwrap();
}

#[test]
fn views_move_between_streams_in_order() {
    let Some(gpu) = gpu() else { return };
    let parts = gpu.partition(2).unwrap();
    let (a, b) = (parts[0].memory_space(), parts[1].memory_space());
    let n = 1 << 20;
    let h = View::<u32>::from_fn("h", [n], |[i]| i as u32).unwrap();
    let x = View::<u32, 1, LayoutRight, CudaSpace>::new_in(&a, "x", [n]).unwrap();
    let y = View::<u32, 1, LayoutRight, CudaSpace>::new_in(&b, "y", [n]).unwrap();
    for _ in 0..10 {
        deep_copy(&x, &h).unwrap(); // on a's stream
        deep_copy(&y, &x).unwrap(); // on b's stream (y's space), after a's write of x
        assert_eq!(
            create_mirror_view_and_copy(&y).unwrap().to_vec(),
            h.to_vec()
        );
        x.fill(0).unwrap();
    }
    parts[0].fence().unwrap();
    parts[1].fence().unwrap();
}

/// `deep_copy_on` orders the copy on the given instance's stream: a copy between two Views made
/// on instance `a`, asked on instance `b`, runs after `a`'s writes and is waited for by `b`'s
/// fence alone.
#[test]
fn deep_copy_on_uses_the_instance_stream() {
    let Some(gpu) = gpu() else { return };
    let parts = gpu.partition(2).unwrap();
    let a = parts[0].memory_space();
    let n = 1 << 16;
    let h = View::<u32>::from_fn("h", [n], |[i]| 3 * i as u32).unwrap();
    let x = View::<u32, 1, LayoutRight, CudaSpace>::new_in(&a, "x", [n]).unwrap();
    let y = View::<u32, 1, LayoutRight, CudaSpace>::new_in(&a, "y", [n]).unwrap();
    for round in 0..4u32 {
        x.fill(round).unwrap(); // on a's stream
        deep_copy(&x, &h).unwrap();
        rokkos_core::deep_copy_on(&parts[1], &y, &x).unwrap(); // on b's stream
        parts[1].fence().unwrap();
        assert_eq!(
            create_mirror_view_and_copy(&y).unwrap().to_vec(),
            h.to_vec()
        );
        // A fill on b's stream, after b's copy out of x.
        rokkos_core::fill_on(&parts[1], &x, round + 100).unwrap();
        assert_eq!(
            create_mirror_view_and_copy(&x).unwrap().to_vec(),
            vec![round + 100; n]
        );
    }
    parts[0].fence().unwrap();
}

#[test]
fn a_huge_allocation_is_out_of_memory() {
    let Some(gpu) = gpu() else { return };
    let bytes = gpu.device_info().total_memory;
    let r = View::<u8, 1, LayoutRight, CudaSpace>::new_in(&gpu.memory_space(), "huge", [bytes + 1]);
    match r {
        Err(rokkos_core::Error::OutOfMemory { label, bytes: b }) => {
            assert_eq!((label.as_str(), b), ("huge", bytes + 1))
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    // The space is still usable.
    let v =
        View::<u8, 1, LayoutRight, CudaSpace>::new_in(&gpu.memory_space(), "after", [8]).unwrap();
    v.fill(1).unwrap();
    assert_eq!(
        create_mirror_view_and_copy(&v).unwrap().to_vec(),
        vec![1; 8]
    );
}
