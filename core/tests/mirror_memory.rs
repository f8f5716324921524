//! The mirror hook of `MemorySpace` (`allocate_mirror`) and deep copies between a host View and a
//! space the host cannot index, which must go straight into the host View's memory (a device
//! backend's pinned mirror is only fast when no staging copy sits in between).

use rokkos_core::{
    create_mirror, create_mirror_view_and_copy, deep_copy, HostBuffer, HostSpace, LayoutLeft,
    MemorySpace, Result, View,
};
use std::cell::{Cell, RefCell};
use std::ptr::NonNull;

thread_local! {
    /// Mirror allocations made through the hook, and those still alive.
    static MIRRORS: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    /// Host addresses `read_bytes` / `write_bytes` were handed.
    static HOST_SIDE: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
    /// Misalign the next mirror by this many bytes.
    static SKEW: Cell<usize> = const { Cell::new(0) };
}

/// Memory the host cannot index (like a device's), whose mirrors come from the hook.
#[derive(Clone, Copy, Debug, Default)]
struct Device;

/// A mirror allocation that counts itself alive.
struct Tracked {
    bytes: Vec<u8>,
    skew: usize,
}
impl AsMut<[u8]> for Tracked {
    fn as_mut(&mut self) -> &mut [u8] {
        &mut self.bytes[self.skew..]
    }
}
impl Drop for Tracked {
    fn drop(&mut self) {
        MIRRORS.with(|m| m.set((m.get().0, m.get().1 - 1)));
    }
}

impl MemorySpace for Device {
    const NAME: &'static str = "TestDevice";
    type Buffer = HostBuffer;
    fn allocate(&self, label: &str, bytes: usize, align: usize) -> Result<HostBuffer> {
        HostSpace.allocate(label, bytes, align)
    }
    fn host_ptr(_: &HostBuffer) -> Option<NonNull<u8>> {
        None
    }
    unsafe fn read_bytes(&self, b: &HostBuffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        HOST_SIDE.with(|h| h.borrow_mut().push(dst.as_ptr() as usize));
        // SAFETY: the caller's contract, passed on.
        unsafe { HostSpace.read_bytes(b, offset, dst) }
    }
    unsafe fn write_bytes(&self, b: &HostBuffer, offset: usize, src: &[u8]) -> Result<()> {
        HOST_SIDE.with(|h| h.borrow_mut().push(src.as_ptr() as usize));
        // SAFETY: the caller's contract, passed on.
        unsafe { HostSpace.write_bytes(b, offset, src) }
    }
    fn allocate_mirror(&self, _label: &str, bytes: usize, align: usize) -> Result<HostBuffer> {
        MIRRORS.with(|m| m.set((m.get().0 + 1, m.get().1 + 1)));
        // Over-allocate so that the skewed start still leaves `bytes`; a Vec<u64> is 8-aligned.
        let skew = SKEW.with(|s| s.get());
        let words = (bytes + skew + align).div_ceil(8);
        let bytes = vec![0u8; words * 8 + align];
        // Start at an aligned address (a mirror must be aligned unless the test skews it).
        let base = bytes.as_ptr() as usize;
        let pad = (align - base % align) % align;
        Ok(HostBuffer::from_owner(Tracked {
            bytes,
            skew: pad + skew,
        }))
    }
}

/// The address of element (0, 0) of a host View.
fn addr(v: &View<f64, 2, LayoutLeft>) -> usize {
    let g = v.host();
    &g[(0, 0)] as *const f64 as usize
}

#[test]
fn mirrors_come_from_the_space_and_copies_use_their_memory() {
    let d = View::<f64, 2, LayoutLeft, Device>::new_in(&Device, "d", [3, 5]).unwrap();
    let h = View::<f64, 2, LayoutLeft>::from_fn("h", [3, 5], |[i, j]| (10 * i + j) as f64).unwrap();
    deep_copy(&d, &h).unwrap();
    // Host -> device read the host View's own memory.
    let h_addr = addr(&h);
    assert_eq!(HOST_SIDE.with(|x| x.borrow().clone()), vec![h_addr]);

    let before = MIRRORS.with(|m| m.get());
    let m = create_mirror_view_and_copy(&d).unwrap();
    assert_eq!(MIRRORS.with(|m| m.get()), (before.0 + 1, before.1 + 1));
    assert_eq!(m.strides(), [1, 3]);
    assert_eq!(m.to_vec(), h.to_vec());
    // Device -> host wrote straight into the mirror.
    let m_addr = addr(&m);
    assert_eq!(HOST_SIDE.with(|x| x.borrow().last().copied()), Some(m_addr));
    drop(m);
    assert_eq!(
        MIRRORS.with(|m| m.get()).1,
        before.1,
        "the owner is dropped with the View"
    );

    // A contiguous subview at an offset copies its own elements.
    let d1 = View::<u32, 1, rokkos_core::LayoutRight, Device>::new_in(&Device, "d1", [10]).unwrap();
    let h1 = View::<u32>::from_fn("h1", [10], |[i]| i as u32 * 7).unwrap();
    deep_copy(&d1, &h1).unwrap();
    let part: View<u32, 1, rokkos_core::LayoutStride, Device> = d1.subview((2..6,)).unwrap();
    let mp = create_mirror(&part).unwrap();
    deep_copy(&mp, &part).unwrap();
    assert_eq!(mp.to_vec(), vec![14, 21, 28, 35]);
    mp.fill(1).unwrap();
    deep_copy(&part, &mp).unwrap();
    let back = create_mirror_view_and_copy(&d1).unwrap();
    assert_eq!(back.to_vec(), vec![0, 7, 1, 1, 1, 1, 42, 49, 56, 63]);
}

#[test]
fn a_misaligned_mirror_is_an_error_not_a_view() {
    let d = View::<f64, 1, rokkos_core::LayoutRight, Device>::new_in(&Device, "d", [4]).unwrap();
    SKEW.with(|s| s.set(1));
    let r = create_mirror(&d);
    SKEW.with(|s| s.set(0));
    match r {
        Err(rokkos_core::Error::InvalidArgument(msg)) => {
            assert!(msg.contains("aligned to 8"), "{msg}")
        }
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
    // Nothing leaked: the refused buffer was dropped.
    assert_eq!(MIRRORS.with(|m| m.get()).1, 0);
}

#[test]
fn from_owner_keeps_the_owner_alive_and_its_bytes_in_place() {
    // An owner holding its bytes inline: they are taken where the owner ends up.
    let mut b = HostBuffer::from_owner([7u8; 24]);
    assert_eq!(b.len_bytes(), 24);
    let d = Device.allocate("x", 24, 8).unwrap();
    // SAFETY (this block and the ones below): fresh buffers no View or host guard lends out.
    unsafe { Device.write_bytes(&d, 0, &[9u8; 24]) }.unwrap();
    // Reading through the space into the adopted buffer's memory, then back.
    let mut out = [0u8; 24];
    unsafe { HostSpace.read_bytes(&b, 0, &mut out) }.unwrap();
    assert_eq!(out, [7u8; 24]);
    unsafe { HostSpace.write_bytes(&b, 4, &[1, 2, 3]) }.unwrap();
    unsafe { HostSpace.read_bytes(&b, 0, &mut out) }.unwrap();
    assert_eq!(&out[..8], &[7, 7, 7, 7, 1, 2, 3, 7]);
    b = HostBuffer::from_owner(vec![0u8; 0]);
    assert_eq!(b.len_bytes(), 0);
}
