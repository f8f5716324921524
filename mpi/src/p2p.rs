//! Point-to-point messages between two ranks: blocking [`Communicator::send`] /
//! [`Communicator::recv`] / [`Communicator::exchange`], and non-blocking
//! [`Communicator::isend`] / [`Communicator::irecv`] returning a [`Request`] that borrows the
//! View until the message completes.
//!
//! A message carries the View's elements in row-major index order, whatever its layout; the
//! receiving View must have exactly as many elements as were sent (its extents and layout may
//! differ), else the receive is `Err(ShapeMismatch)`. The element types must agree: MPI cannot
//! tell a `f64` message from an `i64` one.

use crate::buffer::{disjoint, Held};
use crate::comm::Communicator;
use crate::datatype::Element;
use mpi::ffi;
use rokkos_core::{Layout, MemorySpace, Result, View};
use std::ffi::c_int;
use std::marker::PhantomData;

impl Communicator {
    /// Sends `v`'s elements to rank `dest` with `tag` (`MPI_Send`); returns once `v` may be
    /// reused.
    ///
    /// ```
    /// use rokkos_core::View;
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let world = mpi.world().unwrap();
    /// let (me, n) = (world.rank(), world.size());
    /// let out = View::<f64, 1>::from_fn("out", [4], |[i]| (10 * me + i) as f64).unwrap();
    /// let back = View::<f64, 1>::new("in", [4]).unwrap();
    /// // A ring: everyone sends to the next rank and receives from the previous one.
    /// world.exchange(&out, (me + 1) % n, &back, (me + n - 1) % n, 7).unwrap();
    /// assert_eq!(back.get(3), (10 * ((me + n - 1) % n) + 3) as f64);
    /// ```
    pub fn send<T: Element, const R: usize, L: Layout, S: MemorySpace>(
        &self,
        v: &View<T, R, L, S>,
        dest: usize,
        tag: u16,
    ) -> Result<()> {
        let call = "MPI_Send";
        let dest = self.peer(call, v.label(), dest)?;
        let tag = self.tag(call, tag)?;
        let h = Held::send(self, call, v)?;
        // SAFETY: `h` holds the memory shared and describes it exactly.
        let code = unsafe {
            ffi::MPI_Send(
                h.ptr,
                h.shape.count,
                h.shape.datatype.raw,
                dest,
                tag,
                self.raw,
            )
        };
        self.check(code, call, v.label())
    }

    /// Receives a message from rank `source` with `tag` into `v` (`MPI_Recv`).
    /// `Err(ShapeMismatch)` when the message holds another number of elements than `v` (a longer
    /// one is discarded, a shorter one leaves `v` partly written).
    pub fn recv<T: Element, const R: usize, L: Layout, S: MemorySpace>(
        &self,
        v: &View<T, R, L, S>,
        source: usize,
        tag: u16,
    ) -> Result<()> {
        let call = "MPI_Recv";
        let source = self.peer(call, v.label(), source)?;
        let tag = self.tag(call, tag)?;
        let h = Held::recv(self, call, v)?;
        let mut status = std::mem::MaybeUninit::<ffi::MPI_Status>::zeroed();
        // SAFETY: `h` holds the memory exclusively and describes it exactly.
        let code = unsafe {
            ffi::MPI_Recv(
                h.ptr,
                h.shape.count,
                h.shape.datatype.raw,
                source,
                tag,
                self.raw,
                status.as_mut_ptr(),
            )
        };
        self.check(code, call, v.label())?;
        // SAFETY: MPI_Recv filled the status.
        let status = unsafe { status.assume_init() };
        self.received::<T>(call, v.label(), &status, v.size())?;
        h.finish(v)
    }

    /// Sends `send` to `dest` and receives `recv` from `source` at once (`MPI_Sendrecv`), the
    /// deadlock-free exchange of a ring or a halo. Both carry `tag`. The two may be Views of one
    /// host allocation (a face and a ghost layer of one array) when their elements are disjoint;
    /// `Err(Aliasing)` when they may overlap. (Open MPI 4.1 does not report a truncated message
    /// a rank sends to itself through this call; [`Communicator::recv`] does.)
    pub fn exchange<T, const R1: usize, L1, S1, const R2: usize, L2, S2>(
        &self,
        send: &View<T, R1, L1, S1>,
        dest: usize,
        recv: &View<T, R2, L2, S2>,
        source: usize,
        tag: u16,
    ) -> Result<()>
    where
        T: Element,
        L1: Layout,
        S1: MemorySpace,
        L2: Layout,
        S2: MemorySpace,
    {
        let call = "MPI_Sendrecv";
        let dest = self.peer(call, send.label(), dest)?;
        let source = self.peer(call, recv.label(), source)?;
        let tag = self.tag(call, tag)?;
        self.sendrecv_opt(
            call,
            send,
            Some(dest as usize),
            recv,
            Some(source as usize),
            tag,
        )
    }

    /// `MPI_Sendrecv` where either side may be absent (`MPI_PROC_NULL`: nothing sent, or `recv`
    /// left untouched); peers already checked.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn sendrecv_opt<T, const R1: usize, L1, S1, const R2: usize, L2, S2>(
        &self,
        call: &str,
        send: &View<T, R1, L1, S1>,
        dest: Option<usize>,
        recv: &View<T, R2, L2, S2>,
        source: Option<usize>,
        tag: c_int,
    ) -> Result<()>
    where
        T: Element,
        L1: Layout,
        S1: MemorySpace,
        L2: Layout,
        S2: MemorySpace,
    {
        // SAFETY: a plain constant.
        let null = unsafe { ffi::RSMPI_PROC_NULL };
        let (s, r) = self.pair(call, send, recv)?;
        let mut status = std::mem::MaybeUninit::<ffi::MPI_Status>::zeroed();
        // SAFETY: both buffers are held (the receive exclusively, and the send too unless its
        // elements are disjoint from the receive's under that one hold) and described exactly.
        let code = unsafe {
            ffi::MPI_Sendrecv(
                s.ptr,
                s.shape.count,
                s.shape.datatype.raw,
                dest.map_or(null, |d| d as c_int),
                tag,
                r.ptr,
                r.shape.count,
                r.shape.datatype.raw,
                source.map_or(null, |d| d as c_int),
                tag,
                self.raw,
                status.as_mut_ptr(),
            )
        };
        self.check(code, call, recv.label())?;
        drop(s);
        if source.is_none() {
            return Ok(());
        }
        // SAFETY: MPI_Sendrecv filled the status.
        let status = unsafe { status.assume_init() };
        self.received::<T>(call, recv.label(), &status, recv.size())?;
        r.finish(recv)
    }

    /// Starts sending `v` to `dest` (`MPI_Isend`). The returned [`Request`] borrows `v` until
    /// it completes ([`Request::wait`], or dropping it, which waits): host code may read `v`
    /// meanwhile, and nothing may write it (the borrow checker refuses `&mut` uses of `v`; a
    /// kernel or `host_mut` through a clone of it is refused at run time, as while any host
    /// guard is alive).
    ///
    /// ```
    /// use rokkos_core::View;
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let world = mpi.world().unwrap();
    /// let me = world.rank();
    /// let out = View::<i64, 2>::from_fn("out", [2, 3], |[i, j]| (me * 6 + 3 * i + j) as i64).unwrap();
    /// let mut back = View::<i64, 2>::new("back", [2, 3]).unwrap();
    /// let r = world.irecv(&mut back, me, 1).unwrap();
    /// let s = world.isend(&out, me, 1).unwrap();
    /// s.wait().unwrap();
    /// r.wait().unwrap();
    /// assert_eq!(back.to_vec(), out.to_vec());
    /// ```
    ///
    /// While a receive is pending, host code cannot read its View:
    ///
    /// ```compile_fail,E0502
    /// use rokkos_core::View;
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let world = mpi.world().unwrap();
    /// let mut back = View::<i64, 1>::new("back", [3]).unwrap();
    /// let r = world.irecv(&mut back, world.rank(), 1).unwrap();
    /// let early = back.get(0); // error: `back` is mutably borrowed by `r`
    /// r.wait().unwrap();
    /// ```
    pub fn isend<'v, T: Element, const R: usize, L: Layout, S: MemorySpace>(
        &self,
        v: &'v View<T, R, L, S>,
        dest: usize,
        tag: u16,
    ) -> Result<Request<'v>> {
        let call = "MPI_Isend";
        let dest = self.peer(call, v.label(), dest)?;
        let tag = self.tag(call, tag)?;
        let h = Held::send(self, call, v)?;
        let mut raw = std::mem::MaybeUninit::<ffi::MPI_Request>::uninit();
        // SAFETY: `h` holds the memory shared and describes it exactly; the request keeps `h`
        // until MPI is done with it.
        let code = unsafe {
            ffi::MPI_Isend(
                h.ptr,
                h.shape.count,
                h.shape.datatype.raw,
                dest,
                tag,
                self.raw,
                raw.as_mut_ptr(),
            )
        };
        self.check(code, call, v.label())?;
        // SAFETY: MPI_Isend succeeded and set the request.
        let raw = unsafe { raw.assume_init() };
        Ok(Request::started(
            self,
            raw,
            call,
            v.label(),
            Box::new(SendDone(h)),
        ))
    }

    /// Starts receiving a message from `source` into `v` (`MPI_Irecv`). The returned
    /// [`Request`] borrows `v` mutably until it completes: host code cannot read it before the
    /// data is there (see [`Communicator::isend`]'s compile-fail example), and kernels or guards
    /// on clones of it are refused at run time. A View outside host memory is received into its
    /// host mirror and copied in when the request completes.
    pub fn irecv<'v, T: Element, const R: usize, L: Layout, S: MemorySpace>(
        &self,
        v: &'v mut View<T, R, L, S>,
        source: usize,
        tag: u16,
    ) -> Result<Request<'v>> {
        let call = "MPI_Irecv";
        let source = self.peer(call, v.label(), source)?;
        let tag = self.tag(call, tag)?;
        let h = Held::recv(self, call, &*v)?;
        let mut raw = std::mem::MaybeUninit::<ffi::MPI_Request>::uninit();
        // SAFETY: `h` holds the memory exclusively and describes it exactly; the request keeps
        // `h` until MPI is done with it.
        let code = unsafe {
            ffi::MPI_Irecv(
                h.ptr,
                h.shape.count,
                h.shape.datatype.raw,
                source,
                tag,
                self.raw,
                raw.as_mut_ptr(),
            )
        };
        self.check(code, call, v.label())?;
        let expect = v.size();
        // SAFETY: MPI_Irecv succeeded and set the request.
        let raw = unsafe { raw.assume_init() };
        let pending = Box::new(RecvDone {
            held: Some(h),
            dst: &*v,
            expect,
        });
        Ok(Request::started(self, raw, call, v.label(), pending))
    }

    /// Holds a send and a receive View at once. Two Views of one host allocation (faces and
    /// ghost layers of one array) are held together by one exclusive hold when their elements
    /// are disjoint, else `Err(Aliasing)`.
    pub(crate) fn pair<T, const R1: usize, L1, S1, const R2: usize, L2, S2>(
        &self,
        call: &str,
        send: &View<T, R1, L1, S1>,
        recv: &View<T, R2, L2, S2>,
    ) -> Result<(Held<T, R1, L1>, Held<T, R2, L2>)>
    where
        T: Element,
        L1: Layout,
        S1: MemorySpace,
        L2: Layout,
        S2: MemorySpace,
    {
        let sm = rokkos_core::create_mirror_view_and_copy(send)?;
        let rm = rokkos_core::create_mirror_view(recv)?;
        // One memory, whether one allocation or two host aliases of a `Device` View's buffer
        // (which share its borrow flag): the same base address.
        if crate::buffer::base(&sm) != crate::buffer::base(&rm) {
            return Ok((
                Held::hold(self, call, sm, false)?,
                Held::recv_mirror(self, call, rm)?,
            ));
        }
        if disjoint(&sm, &rm) != Some(true) {
            return Err(rokkos_core::Error::Aliasing {
                kernel: format!("rank {}: {call}", self.rank()),
                reason: format!(
                    "the send View `{}` and the receive View `{}` may share elements",
                    send.label(),
                    recv.label()
                ),
            });
        }
        let r = Held::recv_mirror(self, call, rm)?;
        // SAFETY: `r` holds the allocation exclusively until both are dropped (the caller drops
        // `s` no later than `r`), and the send View's elements are disjoint from its own.
        let s = unsafe { Held::unheld(self, call, sm)? };
        Ok((s, r))
    }

    /// Checks a receive's element count against the View's.
    fn received<T: Element>(
        &self,
        call: &str,
        view: &str,
        status: &ffi::MPI_Status,
        expect: usize,
    ) -> Result<()> {
        received_count::<T>(self.rank(), call, view, status, expect)
    }
}

/// What a request does once MPI is done with its buffer.
pub(crate) trait Pending {
    /// Checks the completion status and releases (or copies in) the buffer.
    fn complete(&mut self, rank: usize, status: &ffi::MPI_Status) -> Result<()>;
}

pub(crate) struct SendDone<T: Element, const R: usize, L: Layout>(
    #[allow(dead_code)] pub(crate) Held<T, R, L>,
);
impl<T: Element, const R: usize, L: Layout> Pending for SendDone<T, R, L> {
    fn complete(&mut self, _: usize, _: &ffi::MPI_Status) -> Result<()> {
        Ok(())
    }
}

struct RecvDone<'v, T: Element, const R: usize, L: Layout, S: MemorySpace> {
    held: Option<Held<T, R, L>>,
    dst: &'v View<T, R, L, S>,
    expect: usize,
}
impl<T: Element, const R: usize, L: Layout, S: MemorySpace> Pending for RecvDone<'_, T, R, L, S> {
    fn complete(&mut self, rank: usize, status: &ffi::MPI_Status) -> Result<()> {
        let held = self.held.take();
        received_count::<T>(rank, "MPI_Irecv", self.dst.label(), status, self.expect)?;
        match held {
            Some(h) => h.finish(self.dst),
            None => Ok(()),
        }
    }
}

/// Checks a completed receive's status: no MPI error, and exactly `expect` elements of `T`.
pub(crate) fn received_count<T: Element>(
    rank: usize,
    call: &str,
    label: &str,
    status: &ffi::MPI_Status,
    expect: usize,
) -> Result<()> {
    // Some calls (Open MPI's `MPI_Sendrecv` to itself) report a truncation only in the status.
    crate::comm::mpi_check(status.MPI_ERROR, rank as c_int, call, label)?;
    let mut count: ffi::MPI_Count = 0;
    // SAFETY: a status MPI filled; the basic datatype of the message's elements. The `_x` form
    // counts past `i32::MAX` (`MPI_Get_count` answers `MPI_UNDEFINED` there).
    let code = unsafe { ffi::MPI_Get_elements_x(status, T::datatype(), &mut count) };
    crate::comm::mpi_check(code, rank as c_int, "MPI_Get_elements_x", label)?;
    if count < 0 || count as usize != expect {
        return Err(rokkos_core::Error::ShapeMismatch {
            what: format!(
                "rank {rank}: {call}: View `{label}` has {expect} elements but the message held {count}"
            ),
        });
    }
    Ok(())
}

/// A message in flight, borrowing its View for `'v` (shared for a send, exclusive for a
/// receive). [`Request::wait`] completes it and reports its errors; dropping an incomplete
/// request waits too (and drops its errors), so the View is never released while MPI may still
/// touch it.
#[must_use = "a request completes (and reports its errors) only through wait(); dropping it waits"]
pub struct Request<'v> {
    raw: ffi::MPI_Request,
    rank: usize,
    call: &'static str,
    label: String,
    pending: Option<Box<dyn Pending + 'v>>,
    // Keeps MPI initialised until the request has completed, even when every communicator is
    // dropped first (`MPI_Finalize` runs when the last handle goes).
    _env: std::sync::Arc<mpi::environment::Universe>,
    _borrow: PhantomData<&'v mut ()>,
}

impl std::fmt::Debug for Request<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Request({} of View `{}`)", self.call, self.label)
    }
}

impl Request<'_> {
    /// Waits until the message completes (`MPI_Wait`) and releases the View: `Err` for an MPI
    /// failure or, for a receive, a message of another element count than the View's.
    pub fn wait(mut self) -> Result<()> {
        self.finish()
    }

    /// Whether the message has completed (`MPI_Test`); a completed request's [`Request::wait`]
    /// returns at once.
    pub fn test(&mut self) -> Result<bool> {
        if self.pending.is_none() {
            return Ok(true);
        }
        let mut flag: c_int = 0;
        let mut status = std::mem::MaybeUninit::<ffi::MPI_Status>::zeroed();
        // SAFETY: a request MPI handed out and not yet completed.
        let code = unsafe { ffi::MPI_Test(&mut self.raw, &mut flag, status.as_mut_ptr()) };
        crate::comm::mpi_check(code, self.rank as c_int, "MPI_Test", &self.label)?;
        if flag == 0 {
            return Ok(false);
        }
        // SAFETY: MPI_Test filled the status of the completed request.
        let status = unsafe { status.assume_init() };
        let mut p = self.pending.take().expect("pending checked above");
        p.complete(self.rank, &status)?;
        Ok(true)
    }

    fn finish(&mut self) -> Result<()> {
        let Some(mut p) = self.pending.take() else {
            return Ok(());
        };
        let mut status = std::mem::MaybeUninit::<ffi::MPI_Status>::zeroed();
        // SAFETY: a request MPI handed out and not yet completed.
        let code = unsafe { ffi::MPI_Wait(&mut self.raw, status.as_mut_ptr()) };
        let r = crate::comm::mpi_check(code, self.rank as c_int, "MPI_Wait", &self.label);
        if r.is_err() {
            // MPI may still own the buffer after a failed wait: keep the View held (leak the
            // hold) rather than hand memory MPI may write back to safe code.
            std::mem::forget(p);
            return r;
        }
        // SAFETY: MPI_Wait filled the status.
        let status = unsafe { status.assume_init() };
        p.complete(self.rank, &status)
    }
}

impl<'v> Request<'v> {
    /// A request MPI handed out for `call` on the View labelled `label`, which `pending` completes.
    pub(crate) fn started(
        comm: &Communicator,
        raw: ffi::MPI_Request,
        call: &'static str,
        label: &str,
        pending: Box<dyn Pending + 'v>,
    ) -> Self {
        Request {
            raw,
            rank: comm.rank(),
            call,
            label: label.to_string(),
            pending: Some(pending),
            _env: comm.env(),
            _borrow: PhantomData,
        }
    }
}

impl Drop for Request<'_> {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}
