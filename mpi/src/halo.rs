//! The split-phase halo exchange: [`CartComm::halo_exchange_start`] sends the faces and posts
//! the receives of the ghost layers, and returns a [`HaloExchange`]; the caller computes what
//! does not need the ghosts (the block's interior) meanwhile; [`HaloExchange::finish`] waits and
//! writes the ghost layers.
//!
//! Overlap needs the View to stay usable while messages are in flight, which MPI on the View's
//! own memory would forbid (the exchange would have to hold its allocation, as the blocking
//! calls do, and every kernel on it would be refused). So the faces are packed into private
//! row-major host buffers when the exchange starts (a `deep_copy` each, which also stages a
//! device View), and the ghost layers are received into private buffers and copied into the
//! View only in `finish`. The View itself is never touched by MPI: kernels and host code may
//! read and write all of it while the exchange is in flight; what they write into the faces
//! after the start is not sent, and what they write into the ghost layers is overwritten by
//! `finish`.

use crate::buffer::Held;
use crate::cart::CartComm;
use crate::datatype::Element;
use crate::p2p::{received_count, Pending, Request, SendDone};
use mpi::ffi;
use rokkos_core::{
    deep_copy, HostSpace, Layout, LayoutRight, LayoutStride, MemorySpace, Result, SliceArg, View,
};
use std::ffi::c_int;

/// Tags of the split-phase exchange's messages: apart from the blocking exchange's (`2 * d` and
/// `2 * d + 1`), so that a blocking exchange on the same grid never matches them.
const TAG_BASE: c_int = 0x4000;

/// A split-phase halo exchange in flight, from [`CartComm::halo_exchange_start`]: the faces
/// have been copied out and are on their way, the ghost layers are being received into private
/// buffers. [`HaloExchange::finish`] waits for every message and writes the ghost layers;
/// dropping it unfinished waits too (so no buffer is freed while MPI may use it) and leaves the
/// ghost layers as they were.
///
/// # Why private buffers
///
/// Overlap needs the View to stay usable while messages are in flight, which MPI on the View's
/// own memory would forbid (the exchange would have to hold its allocation, as the blocking
/// calls do, and every kernel on it would be refused). So the faces are packed into private
/// row-major host buffers when the exchange starts (a `deep_copy` each, which also stages a
/// device View), and the ghost layers are received into private buffers and copied into the
/// View only in `finish`. MPI never touches the View itself: kernels and host code may read and
/// write all of it while the exchange is in flight; what they write into the faces after the
/// start is not sent, and what they write into the ghost layers is overwritten by `finish`.
#[must_use = "the ghost layers are written only by finish(); dropping the exchange waits and discards them"]
pub struct HaloExchange<T: Element, const R: usize, S: MemorySpace> {
    // Declared first: dropped (waited for) before anything else here goes.
    sends: Vec<Request<'static>>,
    recvs: Vec<Request<'static>>,
    // The View's label, for `Debug`.
    label: String,
    _view: std::marker::PhantomData<View<T, R, LayoutStride, S>>,
}

impl<T: Element, const R: usize, S: MemorySpace> std::fmt::Debug for HaloExchange<T, R, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "HaloExchange(View `{}`, {} sends, {} receives)",
            self.label,
            self.sends.len(),
            self.recvs.len()
        )
    }
}

impl<T: Element, const R: usize, S: MemorySpace> HaloExchange<T, R, S> {
    /// Waits for every message and copies the received ghost layers into the View. The first
    /// error is returned after every message has completed (none is left in flight); the ghost
    /// layers whose messages arrived are written even then.
    pub fn finish(mut self) -> Result<()> {
        let mut first = Ok(());
        for r in self.sends.drain(..).chain(self.recvs.drain(..)) {
            let done = r.wait();
            if first.is_ok() {
                first = done;
            }
        }
        first
    }
}

/// Completes one ghost layer's receive: checks the message, then copies the private buffer
/// into the ghost layer's subview of the View.
struct GhostDone<T: Element, const R: usize, S: MemorySpace> {
    held: Option<Held<T, R, LayoutRight>>,
    ghost: View<T, R, LayoutStride, S>,
}

impl<T: Element, const R: usize, S: MemorySpace> Pending for GhostDone<T, R, S> {
    fn complete(&mut self, rank: usize, status: &ffi::MPI_Status) -> Result<()> {
        let held = self.held.take();
        let label = self.ghost.label().to_string();
        received_count::<T>(rank, "halo_exchange", &label, status, self.ghost.size())?;
        match held {
            Some(h) => h.unstage(&self.ghost),
            None => Ok(()),
        }
    }
}

impl CartComm {
    /// Starts filling the `ghost`-wide ghost layers of `v` from the neighbours' faces, and
    /// returns at once; [`HaloExchange::finish`] completes it. The View stays free meanwhile
    /// (see [`HaloExchange`]): compute the interior, then finish and
    /// compute the cells next to the ghosts.
    ///
    /// Unlike the blocking [`CartComm::halo_exchange`], every dimension's messages are in flight
    /// at once, so only the **faces** are exchanged: a ghost cell in a corner or on an edge
    /// (outside the interior range along two or more dimensions) is not written. That is what
    /// a stencil without diagonal neighbours (the 5-point and 7-point Laplacians) reads; use
    /// the blocking exchange for a stencil that reads corners. Ghost layers past a
    /// non-periodic boundary are left untouched.
    ///
    /// Collective over the grid, like the blocking exchange, with the same checks (`Err` on
    /// every rank for a rank or extent mismatch). Every rank must start its split-phase
    /// exchanges on this grid in the same order (messages between two ranks match in the order
    /// they are posted).
    ///
    /// ```
    /// use rokkos_core::View;
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let world = mpi.world().unwrap();
    /// let grid = world.cartesian(&[0], &[true]).unwrap();
    /// let me = grid.rank() as f64;
    /// let u = View::<f64, 1>::from_fn("u", [6], |[i]| if (1..5).contains(&i) { me } else { -1.0 }).unwrap();
    /// let x = grid.halo_exchange_start(&u, 1).unwrap();
    /// // The interior stays usable while the messages travel.
    /// u.set(2, 10.0 + me);
    /// x.finish().unwrap();
    /// let p = grid.size();
    /// assert_eq!(u.get(0), ((grid.rank() + p - 1) % p) as f64);
    /// assert_eq!(u.get(5), ((grid.rank() + 1) % p) as f64);
    /// ```
    pub fn halo_exchange_start<T: Element, const R: usize, L: Layout, S: MemorySpace>(
        &self,
        v: &View<T, R, L, S>,
        ghost: usize,
    ) -> Result<HaloExchange<T, R, S>> {
        let call = "halo_exchange_start";
        self.agree_halo(call, v, ghost)?;
        let mut x = HaloExchange {
            sends: Vec::new(),
            recvs: Vec::new(),
            label: v.label().to_string(),
            _view: std::marker::PhantomData,
        };
        if ghost == 0 {
            return Ok(x);
        }
        let e = v.extents();
        for d in 0..R {
            let (lo, hi) = self.neighbors(d)?;
            let n = e[d];
            // Along `d`: the layer `a..b`; along every other dimension: the interior only.
            let layer = |a: usize, b: usize| {
                let mut spec = [SliceArg::Range(ghost, None); R];
                for (k, s) in spec.iter_mut().enumerate() {
                    *s = if k == d {
                        SliceArg::Range(a, Some(b))
                    } else {
                        SliceArg::Range(ghost, Some(e[k] - ghost))
                    };
                }
                v.subview::<R>(spec)
            };
            let tag = TAG_BASE + (2 * d) as c_int;
            // Receives first, so that a neighbour's send finds its receive posted.
            if let Some(src) = lo {
                x.recvs.push(self.ghost_recv(layer(0, ghost)?, src, tag)?);
            }
            if let Some(src) = hi {
                x.recvs
                    .push(self.ghost_recv(layer(n - ghost, n)?, src, tag + 1)?);
            }
            // Upward: the top interior layer to the rank above; downward: the bottom one below.
            if let Some(dst) = hi {
                x.sends
                    .push(self.face_send(&layer(n - 2 * ghost, n - ghost)?, dst, tag)?);
            }
            if let Some(dst) = lo {
                x.sends
                    .push(self.face_send(&layer(ghost, 2 * ghost)?, dst, tag + 1)?);
            }
        }
        Ok(x)
    }

    /// Packs `face` into a private host buffer and starts sending it.
    fn face_send<T: Element, const R: usize, S: MemorySpace>(
        &self,
        face: &View<T, R, LayoutStride, S>,
        dest: usize,
        tag: c_int,
    ) -> Result<Request<'static>> {
        let call = "MPI_Isend";
        let label = format!("{} (face sent)", face.label());
        let buf = View::<T, R, LayoutRight, HostSpace>::new_uninit(&label, face.extents())?;
        deep_copy(&buf, face)?;
        let h = Held::hold(self, call, buf, false)?;
        let mut raw = std::mem::MaybeUninit::<ffi::MPI_Request>::uninit();
        // SAFETY: `h` holds its private buffer and describes it exactly; the request keeps `h`
        // until MPI is done with it.
        let code = unsafe {
            ffi::MPI_Isend(
                h.ptr,
                h.shape.count,
                h.shape.datatype.raw,
                dest as c_int,
                tag,
                self.raw,
                raw.as_mut_ptr(),
            )
        };
        self.check(code, call, &label)?;
        // SAFETY: MPI_Isend succeeded and set the request.
        let raw = unsafe { raw.assume_init() };
        Ok(Request::started(
            self,
            raw,
            call,
            &label,
            Box::new(SendDone(h)),
        ))
    }

    /// Starts receiving the ghost layer `ghost` into a private host buffer, copied in when the
    /// request completes.
    fn ghost_recv<T: Element, const R: usize, S: MemorySpace>(
        &self,
        ghost: View<T, R, LayoutStride, S>,
        source: usize,
        tag: c_int,
    ) -> Result<Request<'static>> {
        let call = "MPI_Irecv";
        let label = format!("{} (ghost layer)", ghost.label());
        let buf = View::<T, R, LayoutRight, HostSpace>::new(&label, ghost.extents())?;
        let h = Held::hold(self, call, buf, true)?;
        let mut raw = std::mem::MaybeUninit::<ffi::MPI_Request>::uninit();
        // SAFETY: `h` holds its private buffer exclusively and describes it exactly; the
        // request keeps `h` until MPI is done with it.
        let code = unsafe {
            ffi::MPI_Irecv(
                h.ptr,
                h.shape.count,
                h.shape.datatype.raw,
                source as c_int,
                tag,
                self.raw,
                raw.as_mut_ptr(),
            )
        };
        self.check(code, call, &label)?;
        // SAFETY: MPI_Irecv succeeded and set the request.
        let raw = unsafe { raw.assume_init() };
        let pending = Box::new(GhostDone {
            held: Some(h),
            ghost,
        });
        Ok(Request::started(self, raw, call, &label, pending))
    }
}
