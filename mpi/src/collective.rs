//! Collective calls over Views: every rank of the communicator calls them with matching
//! arguments, which they first agree on ([`Communicator::disable_checks`]).
//!
//! Buffers that MPI reads or writes as `size()` consecutive blocks (the gathered side of
//! gather/allgather, the scattered side of scatter, both sides of alltoall) and both sides of a
//! reduction must be row-major contiguous host memory for MPI; a View that is not (a strided
//! subview, `LayoutLeft`) is packed into a row-major temporary there. Broadcast and the
//! per-rank block of gather/scatter use derived datatypes and need no copy.

use crate::buffer::Held;
use crate::comm::Communicator;
use crate::datatype::{elements, row_major_contiguous, Element};
use mpi::ffi;
use rokkos_core::{
    create_mirror_view, create_mirror_view_and_copy, deep_copy, fill, BAnd, BOr, HostSpace, Layout,
    LayoutRight, Max, MemorySpace, Min, Prod, Reducer, Result, Scalar, Sum, View,
};
use std::ffi::c_void;

mod sealed {
    pub trait Sealed {}
}

/// An element-wise operation of a View reduction, mapped to MPI's predefined operator: the
/// rokkos reducers [`Sum`], [`Prod`], [`Min`], [`Max`], [`BAnd`], [`BOr`] (the bitwise ones on
/// integer elements only, as their `Reducer` impls say). NaN handling of `Min`/`Max` is the MPI
/// library's (`MPI_MIN`/`MPI_MAX`), not IEEE `minimum`/`maximum`; for rokkos' own semantics reduce
/// values with [`Communicator::allreduce_value`].
pub trait ViewOp: sealed::Sealed {
    /// The MPI operator.
    fn op() -> ffi::MPI_Op;
}
macro_rules! view_op {
    ($($r:ident => $op:ident),*) => {$(
        impl sealed::Sealed for $r {}
        impl ViewOp for $r {
            fn op() -> ffi::MPI_Op {
                // SAFETY: a plain constant handle.
                unsafe { ffi::$op }
            }
        }
    )*};
}
view_op!(Sum => RSMPI_SUM, Prod => RSMPI_PROD, Min => RSMPI_MIN, Max => RSMPI_MAX,
         BAnd => RSMPI_BAND, BOr => RSMPI_BOR);

/// A row-major contiguous host copy of a View's elements for MPI to read: its mirror itself
/// when that is contiguous, else a packed temporary.
fn packed_send<T: Element, const R: usize, L: Layout, S: MemorySpace>(
    comm: &Communicator,
    call: &str,
    v: &View<T, R, L, S>,
) -> Result<Packed<T, R, L>> {
    let m = create_mirror_view_and_copy(v)?;
    if row_major_contiguous(&m.extents(), &m.strides()) {
        return Ok(Packed::Direct(Held::hold(comm, call, m, false)?));
    }
    let t =
        View::<T, R, LayoutRight, HostSpace>::new(&format!("{}_packed", v.label()), v.extents())?;
    deep_copy(&t, &m)?;
    Ok(Packed::Temp(Held::hold(comm, call, t.clone(), false)?, t))
}

/// A row-major contiguous host buffer for MPI to write a View's elements into: its mirror
/// itself when that is contiguous, else a temporary; [`Packed::finish`] copies it into the View
/// where it is not the View's own memory.
fn packed_recv<T: Element, const R: usize, L: Layout, S: MemorySpace>(
    comm: &Communicator,
    call: &str,
    v: &View<T, R, L, S>,
) -> Result<Packed<T, R, L>> {
    let m = create_mirror_view(v)?;
    if row_major_contiguous(&m.extents(), &m.strides()) {
        return Ok(Packed::Direct(Held::hold(comm, call, m, true)?));
    }
    let t =
        View::<T, R, LayoutRight, HostSpace>::new(&format!("{}_packed", v.label()), v.extents())?;
    Ok(Packed::Temp(Held::hold(comm, call, t.clone(), true)?, t))
}

/// A held contiguous host buffer ([`packed_send`], [`packed_recv`]).
enum Packed<T: Element, const R: usize, L: Layout> {
    Direct(Held<T, R, L>),
    Temp(Held<T, R, LayoutRight>, View<T, R, LayoutRight, HostSpace>),
}

impl<T: Element, const R: usize, L: Layout> Packed<T, R, L> {
    fn ptr(&self) -> *mut c_void {
        match self {
            Packed::Direct(h) => h.ptr,
            Packed::Temp(h, _) => h.ptr,
        }
    }
    /// Releases the buffer, copying a receive buffer into `v` where it is not `v`'s memory.
    fn finish<S: MemorySpace>(self, v: &View<T, R, L, S>) -> Result<()> {
        match self {
            Packed::Direct(h) => h.finish(v),
            Packed::Temp(h, t) => {
                drop(h);
                deep_copy(v, &t)
            }
        }
    }
}

/// The local outcome of a collective's preparation, for the agreement: `Ok(())` or a copy of
/// the error (the original is returned after the agreement).
fn outcome<X>(r: &Result<X>) -> Result<()> {
    r.as_ref().map(|_| ()).map_err(Clone::clone)
}

fn root_ok(comm: &Communicator, call: &str, view: &str, root: usize) -> Result<()> {
    comm.peer(call, view, root).map(|_| ())
}

impl Communicator {
    /// Copies root's `v` into every other rank's `v` (`MPI_Bcast`); `v` must have the same number
    /// of elements on every rank.
    ///
    /// ```
    /// use rokkos_core::View;
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let world = mpi.world().unwrap();
    /// let v = View::<u32, 1>::from_fn("v", [3], |[i]| if world.rank() == 0 { i as u32 + 1 } else { 0 }).unwrap();
    /// world.broadcast(&v, 0).unwrap();
    /// assert_eq!(v.to_vec(), vec![1, 2, 3]);
    /// ```
    pub fn broadcast<T: Element, const R: usize, L: Layout, S: MemorySpace>(
        &self,
        v: &View<T, R, L, S>,
        root: usize,
    ) -> Result<()> {
        let call = "MPI_Bcast";
        let is_root = self.rank() == root;
        // Every buffer is held before the agreement: a rank that cannot hold its View says so
        // there, instead of leaving the others in the collective.
        let h = root_ok(self, call, v.label(), root).and_then(|_| {
            if is_root {
                Held::send(self, call, v)
            } else {
                Held::recv(self, call, v)
            }
        });
        let sig = [T::CODE, v.size() as i64, root as i64];
        self.agree(call, v.label(), outcome(&h), sig)?;
        let h = h?;
        // SAFETY: `h` holds the memory (exclusively where MPI writes it) and describes it.
        let code = unsafe {
            ffi::MPI_Bcast(
                h.ptr,
                h.shape.count,
                h.shape.datatype.raw,
                root as i32,
                self.raw,
            )
        };
        self.check(code, call, v.label())?;
        if is_root {
            Ok(())
        } else {
            h.finish(v)
        }
    }

    /// Gathers every rank's `send` into root's `recv` (`MPI_Gather`), rank `r`'s elements at
    /// `r * send.size()` in `recv`'s row-major order; `recv` must hold `size() * send.size()`
    /// elements on root and is not touched elsewhere.
    ///
    /// ```
    /// use rokkos_core::View;
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let world = mpi.world().unwrap();
    /// let mine = View::<i32, 1>::from_fn("mine", [2], |[i]| (10 * world.rank() + i) as i32).unwrap();
    /// let all = View::<i32, 2>::new("all", [world.size(), 2]).unwrap();
    /// world.gather(&mine, &all, 0).unwrap();
    /// if world.rank() == 0 {
    ///     assert_eq!(all.get((world.size() - 1, 1)), 10 * (world.size() as i32 - 1) + 1);
    /// }
    /// ```
    pub fn gather<T, const R1: usize, L1, S1, const R2: usize, L2, S2>(
        &self,
        send: &View<T, R1, L1, S1>,
        recv: &View<T, R2, L2, S2>,
        root: usize,
    ) -> Result<()>
    where
        T: Element,
        L1: Layout,
        S1: MemorySpace,
        L2: Layout,
        S2: MemorySpace,
    {
        let call = "MPI_Gather";
        let n = send.size();
        let is_root = self.rank() == root;
        let local = root_ok(self, call, send.label(), root)
            .and_then(|_| self.total(call, recv.label(), n, recv.size(), is_root));
        let held = local.and_then(|_| {
            let s = Held::send(self, call, send)?;
            let r = if is_root {
                Some(packed_recv(self, call, recv)?)
            } else {
                None
            };
            Ok((s, r, elements::<T>(self, call, recv.label(), n)?))
        });
        self.agree(
            call,
            send.label(),
            outcome(&held),
            [T::CODE, n as i64, root as i64],
        )?;
        let (s, r, block) = held?;
        let gather = |p: *mut c_void| {
            // SAFETY: `s` is held shared; `p` is `size()` blocks of `n` contiguous elements held
            // exclusively on root (null elsewhere, where MPI ignores it).
            let code = unsafe {
                ffi::MPI_Gather(
                    s.ptr,
                    s.shape.count,
                    s.shape.datatype.raw,
                    p,
                    block.count,
                    block.datatype.raw,
                    root as i32,
                    self.raw,
                )
            };
            self.check(code, call, send.label())
        };
        match r {
            Some(r) => {
                gather(r.ptr())?;
                r.finish(recv)
            }
            None => gather(std::ptr::null_mut()),
        }
    }

    /// Gathers every rank's `send` into every rank's `recv` (`MPI_Allgather`), laid out as in
    /// [`Communicator::gather`].
    pub fn allgather<T, const R1: usize, L1, S1, const R2: usize, L2, S2>(
        &self,
        send: &View<T, R1, L1, S1>,
        recv: &View<T, R2, L2, S2>,
    ) -> Result<()>
    where
        T: Element,
        L1: Layout,
        S1: MemorySpace,
        L2: Layout,
        S2: MemorySpace,
    {
        let call = "MPI_Allgather";
        let n = send.size();
        let held = self
            .total(call, recv.label(), n, recv.size(), true)
            .and_then(|_| {
                Ok((
                    Held::send(self, call, send)?,
                    packed_recv(self, call, recv)?,
                    elements::<T>(self, call, recv.label(), n)?,
                ))
            });
        self.agree(call, send.label(), outcome(&held), [T::CODE, n as i64, 0])?;
        let (s, r, block) = held?;
        // SAFETY: as in `gather`, on every rank.
        let code = unsafe {
            ffi::MPI_Allgather(
                s.ptr,
                s.shape.count,
                s.shape.datatype.raw,
                r.ptr(),
                block.count,
                block.datatype.raw,
                self.raw,
            )
        };
        self.check(code, call, send.label())?;
        r.finish(recv)
    }

    /// Scatters root's `send` (`size() * recv.size()` elements, rank `r`'s block at
    /// `r * recv.size()` in row-major order) into every rank's `recv` (`MPI_Scatter`); `send` is
    /// not read elsewhere.
    ///
    /// ```
    /// use rokkos_core::View;
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let world = mpi.world().unwrap();
    /// let all = View::<u64, 1>::from_fn("all", [2 * world.size()], |[i]| i as u64).unwrap();
    /// let mine = View::<u64, 1>::new("mine", [2]).unwrap();
    /// world.scatter(&all, &mine, 0).unwrap();
    /// assert_eq!(mine.to_vec(), vec![2 * world.rank() as u64, 2 * world.rank() as u64 + 1]);
    /// ```
    pub fn scatter<T, const R1: usize, L1, S1, const R2: usize, L2, S2>(
        &self,
        send: &View<T, R1, L1, S1>,
        recv: &View<T, R2, L2, S2>,
        root: usize,
    ) -> Result<()>
    where
        T: Element,
        L1: Layout,
        S1: MemorySpace,
        L2: Layout,
        S2: MemorySpace,
    {
        let call = "MPI_Scatter";
        let n = recv.size();
        let is_root = self.rank() == root;
        let local = root_ok(self, call, recv.label(), root)
            .and_then(|_| self.total(call, send.label(), n, send.size(), is_root));
        let held = local.and_then(|_| {
            let r = Held::recv(self, call, recv)?;
            let s = if is_root {
                Some(packed_send(self, call, send)?)
            } else {
                None
            };
            Ok((r, s, elements::<T>(self, call, send.label(), n)?))
        });
        self.agree(
            call,
            recv.label(),
            outcome(&held),
            [T::CODE, n as i64, root as i64],
        )?;
        let (r, s, block) = held?;
        let scatter = |p: *mut c_void| {
            // SAFETY: `r` is held exclusively; `p` is `size()` blocks of `n` contiguous elements
            // held on root (null elsewhere, where MPI ignores it).
            let code = unsafe {
                ffi::MPI_Scatter(
                    p,
                    block.count,
                    block.datatype.raw,
                    r.ptr,
                    r.shape.count,
                    r.shape.datatype.raw,
                    root as i32,
                    self.raw,
                )
            };
            self.check(code, call, recv.label())
        };
        scatter(s.as_ref().map_or(std::ptr::null_mut(), |s| s.ptr()))?;
        drop(s);
        r.finish(recv)
    }

    /// Every rank sends block `r` of its `send` to rank `r`, which stores it as block `s` of its
    /// `recv` (`MPI_Alltoall`); both hold `size()` equal blocks in row-major order.
    ///
    /// ```
    /// use rokkos_core::View;
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let world = mpi.world().unwrap();
    /// let (me, p) = (world.rank() as i32, world.size());
    /// let send = View::<i32, 1>::from_fn("send", [p], |[r]| 100 * me + r as i32).unwrap();
    /// let recv = View::<i32, 1>::new("recv", [p]).unwrap();
    /// world.alltoall(&send, &recv).unwrap();
    /// assert_eq!(recv.get(0), me);
    /// ```
    pub fn alltoall<T, const R1: usize, L1, S1, const R2: usize, L2, S2>(
        &self,
        send: &View<T, R1, L1, S1>,
        recv: &View<T, R2, L2, S2>,
    ) -> Result<()>
    where
        T: Element,
        L1: Layout,
        S1: MemorySpace,
        L2: Layout,
        S2: MemorySpace,
    {
        let call = "MPI_Alltoall";
        let p = self.size();
        let n = send.size() / p;
        let local = if send.size() % p != 0 || recv.size() != send.size() {
            Err(self.shape(
                call,
                format!(
                    "Views `{}` ({} elements) and `{}` ({} elements) must both hold {p} equal blocks",
                    send.label(),
                    send.size(),
                    recv.label(),
                    recv.size()
                ),
            ))
        } else {
            Ok(())
        };
        let held = local.and_then(|_| {
            Ok((
                packed_send(self, call, send)?,
                packed_recv(self, call, recv)?,
                elements::<T>(self, call, send.label(), n)?,
            ))
        });
        self.agree(call, send.label(), outcome(&held), [T::CODE, n as i64, 0])?;
        let (s, r, block) = held?;
        // SAFETY: both buffers contiguous, `p` blocks of `n` elements, held.
        let code = unsafe {
            ffi::MPI_Alltoall(
                s.ptr(),
                block.count,
                block.datatype.raw,
                r.ptr(),
                block.count,
                block.datatype.raw,
                self.raw,
            )
        };
        self.check(code, call, send.label())?;
        drop(s);
        r.finish(recv)
    }

    /// Reduces every rank's `send` element-wise with `op` into root's `recv` (`MPI_Reduce`);
    /// `recv` has as many elements as `send` on root and is not touched elsewhere.
    pub fn reduce<T, Op, const R1: usize, L1, S1, const R2: usize, L2, S2>(
        &self,
        send: &View<T, R1, L1, S1>,
        recv: &View<T, R2, L2, S2>,
        op: Op,
        root: usize,
    ) -> Result<()>
    where
        T: Element + Scalar,
        Op: ViewOp + Reducer<T>,
        L1: Layout,
        S1: MemorySpace,
        L2: Layout,
        S2: MemorySpace,
    {
        let _ = op;
        let call = "MPI_Reduce";
        let n = send.size();
        let is_root = self.rank() == root;
        let local = root_ok(self, call, send.label(), root)
            .and_then(|_| self.same_size(call, send, recv, is_root));
        let held = local.and_then(|_| {
            let s = packed_send(self, call, send)?;
            let r = if is_root {
                Some(packed_recv(self, call, recv)?)
            } else {
                None
            };
            Ok((s, r))
        });
        self.agree(
            call,
            send.label(),
            outcome(&held),
            [T::CODE, n as i64, root as i64],
        )?;
        let (s, r) = held?;
        let rp = r.as_ref().map_or(std::ptr::null_mut(), |r| r.ptr());
        self.chunked::<T>(call, send.label(), s.ptr(), rp, n, |sp, rp, k| {
            // SAFETY: contiguous buffers of `k` elements, held (the receive one on root only,
            // where MPI writes it; null elsewhere, where MPI ignores it).
            unsafe { ffi::MPI_Reduce(sp, rp, k, T::datatype(), Op::op(), root as i32, self.raw) }
        })?;
        drop(s);
        match r {
            Some(r) => r.finish(recv),
            None => Ok(()),
        }
    }

    /// Reduces every rank's `send` element-wise with `op` into every rank's `recv`
    /// (`MPI_Allreduce`).
    ///
    /// ```
    /// use rokkos_core::{Sum, View};
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let world = mpi.world().unwrap();
    /// let x = View::<i64, 1>::from_fn("x", [3], |[i]| (world.rank() + i) as i64).unwrap();
    /// let total = View::<i64, 1>::new("total", [3]).unwrap();
    /// world.allreduce(&x, &total, Sum).unwrap();
    /// let p = world.size() as i64;
    /// assert_eq!(total.get(2), p * (p - 1) / 2 + 2 * p);
    /// ```
    pub fn allreduce<T, Op, const R1: usize, L1, S1, const R2: usize, L2, S2>(
        &self,
        send: &View<T, R1, L1, S1>,
        recv: &View<T, R2, L2, S2>,
        op: Op,
    ) -> Result<()>
    where
        T: Element + Scalar,
        Op: ViewOp + Reducer<T>,
        L1: Layout,
        S1: MemorySpace,
        L2: Layout,
        S2: MemorySpace,
    {
        self.reduce_like("MPI_Allreduce", send, recv, op, |sp, rp, n| {
            // SAFETY: contiguous buffers of `n` elements, held.
            unsafe { ffi::MPI_Allreduce(sp, rp, n, T::datatype(), Op::op(), self.raw) }
        })
    }

    /// Inclusive prefix reduction over ranks (`MPI_Scan`): rank `r`'s `recv` is `op` over the
    /// `send` of ranks `0..=r`, element-wise.
    ///
    /// ```
    /// use rokkos_core::{Sum, View};
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let world = mpi.world().unwrap();
    /// let one = View::<u32, 1>::from_fn("one", [1], |_| 1).unwrap();
    /// let upto = View::<u32, 1>::new("upto", [1]).unwrap();
    /// world.scan(&one, &upto, Sum).unwrap();
    /// assert_eq!(upto.get(0), world.rank() as u32 + 1);
    /// ```
    pub fn scan<T, Op, const R1: usize, L1, S1, const R2: usize, L2, S2>(
        &self,
        send: &View<T, R1, L1, S1>,
        recv: &View<T, R2, L2, S2>,
        op: Op,
    ) -> Result<()>
    where
        T: Element + Scalar,
        Op: ViewOp + Reducer<T>,
        L1: Layout,
        S1: MemorySpace,
        L2: Layout,
        S2: MemorySpace,
    {
        self.reduce_like("MPI_Scan", send, recv, op, |sp, rp, n| {
            // SAFETY: contiguous buffers of `n` elements, held.
            unsafe { ffi::MPI_Scan(sp, rp, n, T::datatype(), Op::op(), self.raw) }
        })
    }

    /// Exclusive prefix reduction over ranks (`MPI_Exscan`): rank `r`'s `recv` is `op` over the
    /// `send` of ranks `0..r`; rank 0 receives `op`'s identity (MPI leaves it undefined).
    pub fn exscan<T, Op, const R1: usize, L1, S1, const R2: usize, L2, S2>(
        &self,
        send: &View<T, R1, L1, S1>,
        recv: &View<T, R2, L2, S2>,
        op: Op,
    ) -> Result<()>
    where
        T: Element + Scalar,
        Op: ViewOp + Reducer<T>,
        L1: Layout,
        S1: MemorySpace,
        L2: Layout,
        S2: MemorySpace,
    {
        let identity = op.init();
        self.reduce_like("MPI_Exscan", send, recv, op, |sp, rp, n| {
            // SAFETY: contiguous buffers of `n` elements, held.
            unsafe { ffi::MPI_Exscan(sp, rp, n, T::datatype(), Op::op(), self.raw) }
        })?;
        if self.rank() == 0 {
            fill(recv, identity)?;
        }
        Ok(())
    }

    fn reduce_like<T, Op, const R1: usize, L1, S1, const R2: usize, L2, S2>(
        &self,
        call: &str,
        send: &View<T, R1, L1, S1>,
        recv: &View<T, R2, L2, S2>,
        _op: Op,
        run: impl FnMut(*const c_void, *mut c_void, i32) -> i32,
    ) -> Result<()>
    where
        T: Element + Scalar,
        Op: ViewOp + Reducer<T>,
        L1: Layout,
        S1: MemorySpace,
        L2: Layout,
        S2: MemorySpace,
    {
        let n = send.size();
        let held = self.same_size(call, send, recv, true).and_then(|_| {
            Ok((
                packed_send(self, call, send)?,
                packed_recv(self, call, recv)?,
            ))
        });
        self.agree(call, send.label(), outcome(&held), [T::CODE, n as i64, 0])?;
        let (s, r) = held?;
        self.chunked::<T>(call, send.label(), s.ptr(), r.ptr(), n, run)?;
        drop(s);
        r.finish(recv)
    }

    /// Runs an element-wise reduction of `n` contiguous elements as calls of at most
    /// [`Communicator::count_limit`] elements each, in order (every rank splits alike: the limit
    /// is the same on every rank of a communicator). A null `rp` (a rank that receives nothing)
    /// stays null.
    fn chunked<T: Element>(
        &self,
        call: &str,
        view: &str,
        sp: *mut c_void,
        rp: *mut c_void,
        n: usize,
        mut run: impl FnMut(*const c_void, *mut c_void, i32) -> i32,
    ) -> Result<()> {
        let sz = std::mem::size_of::<T>();
        let mut done = 0;
        loop {
            let k = (n - done).min(self.count_limit());
            let at = |p: *mut c_void| {
                if p.is_null() {
                    p
                } else {
                    // SAFETY: `done < n` elements into a buffer of `n` (or `done == n == 0`).
                    unsafe { p.cast::<u8>().add(done * sz).cast() }
                }
            };
            // `k` is at most the count limit, which fits an `int`.
            self.check(run(at(sp) as *const c_void, at(rp), k as i32), call, view)?;
            done += k;
            if done >= n {
                return Ok(());
            }
        }
    }

    /// Checks that `recv` holds as many elements as `send` (where `active`).
    fn same_size<
        T: Element,
        const R1: usize,
        L1: Layout,
        S1: MemorySpace,
        const R2: usize,
        L2: Layout,
        S2: MemorySpace,
    >(
        &self,
        call: &str,
        send: &View<T, R1, L1, S1>,
        recv: &View<T, R2, L2, S2>,
        active: bool,
    ) -> Result<()> {
        if active && send.size() != recv.size() {
            return Err(self.shape(
                call,
                format!(
                    "View `{}` holds {} elements but `{}` holds {}",
                    recv.label(),
                    recv.size(),
                    send.label(),
                    send.size()
                ),
            ));
        }
        Ok(())
    }

    /// Checks that a View of `have` elements holds `size() * block` (where `active`).
    fn total(&self, call: &str, view: &str, block: usize, have: usize, active: bool) -> Result<()> {
        if !active {
            return Ok(());
        }
        let want = block.checked_mul(self.size());
        if want != Some(have) {
            return Err(self.shape(
                call,
                format!(
                    "View `{view}` holds {have} elements, needs {} ({} ranks x {block})",
                    want.map_or("too many".to_string(), |w| w.to_string()),
                    self.size()
                ),
            ));
        }
        Ok(())
    }
}
