// Views index memory through their layout's offsets and their memory space's host pointer after
// checking only the index against the extents: user layouts are refused (sealed trait), and a
// host-accessible memory space is an `unsafe` promise.
use rokkos::{HostAccessible, HostBuffer, HostSpace, Layout, LayoutKind, MemorySpace, Result};
use std::ptr::NonNull;

#[derive(Clone, Copy, Debug, Default)]
struct Everywhere;
impl Layout for Everywhere {
    const KIND: LayoutKind = LayoutKind::Stride;
    fn contiguous_strides<const R: usize>(_: &[usize; R]) -> Option<[usize; R]> {
        None
    }
    fn offset<const R: usize>(_: &[usize; R], _: &[usize; R]) -> usize {
        1 << 40
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Lying;
impl MemorySpace for Lying {
    const NAME: &'static str = "Lying";
    type Buffer = HostBuffer;
    fn allocate(&self, label: &str, _bytes: usize, align: usize) -> Result<HostBuffer> {
        HostSpace.allocate(label, 0, align)
    }
    fn host_ptr(_: &HostBuffer) -> Option<NonNull<u8>> {
        Some(NonNull::dangling())
    }
    unsafe fn read_bytes(&self, _: &HostBuffer, _: usize, _: &mut [u8]) -> Result<()> {
        Ok(())
    }
    unsafe fn write_bytes(&self, _: &HostBuffer, _: usize, _: &[u8]) -> Result<()> {
        Ok(())
    }
}
impl HostAccessible for Lying {}

fn main() {}
