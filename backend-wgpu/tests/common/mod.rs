//! Helpers shared by the wgpu integration tests.

use rokkos_core::kernel::{ForBody, ReduceBody, ScanBody, WorkKind};
use rokkos_wgpu::Wgpu;

/// The wgpu space, or `None` (after saying why) without an adapter; with `ROKKOS_REQUIRE_WGPU=1`
/// a missing adapter fails the test instead.
pub fn space() -> Option<Wgpu> {
    match Wgpu::new() {
        Ok(s) => Some(s),
        Err(e) => {
            if std::env::var("ROKKOS_REQUIRE_WGPU").as_deref() == Ok("1") {
                panic!("ROKKOS_REQUIRE_WGPU=1 but: {e}");
            }
            eprintln!("skipping wgpu test: {e}");
            None
        }
    }
}

/// The native body of the hand-written kernel values: never called, device kernels run their IR.
pub struct NoBody;
impl<W: WorkKind> ForBody<W> for NoBody {
    fn call(&self, _: W::Item<'_>) {
        unreachable!("device kernels have no native body")
    }
}
impl<W: WorkKind, A> ReduceBody<W, A> for NoBody {
    fn call(&self, _: W::Item<'_>, _: &mut A) {
        unreachable!("device kernels have no native body")
    }
}
impl<W: WorkKind, A> ScanBody<W, A> for NoBody {
    fn call(&self, _: W::Item<'_>, _: &mut A, _: bool) {
        unreachable!("device kernels have no native body")
    }
}
