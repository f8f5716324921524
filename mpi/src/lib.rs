//! rokkos-mpi: Views as MPI buffers, over the `mpi` crate (rsmpi) and the system's MPI library.
//!
//! Everything here is behind this crate's `mpi` feature (the facade's `mpi` feature turns it
//! on); without it the crate is empty and needs no MPI library.
//!
//! - [`Mpi::init`] initialises MPI; [`Mpi::world`] is `MPI_COMM_WORLD` as a [`Communicator`]
//!   (`dup`, `split`, `rank`, `size`, `barrier`), with MPI's errors returned as
//!   [`rokkos_core::Error`] values naming the rank, the call and the View, instead of aborting.
//! - Point to point: [`Communicator::send`], [`Communicator::recv`],
//!   [`Communicator::exchange`] (sendrecv), and the non-blocking [`Communicator::isend`] /
//!   [`Communicator::irecv`], whose [`Request`] borrows the View until it completes.
//! - Collectives over Views: broadcast, gather, allgather, scatter, alltoall, reduce,
//!   allreduce, scan, exscan (element-wise operators: [`ViewOp`]).
//! - Halo exchange: [`Communicator::cartesian`] makes a [`CartComm`] (`MPI_Cart_create`), whose
//!   [`CartComm::halo_exchange`] fills the ghost layers of a block-decomposed rank-1/2/3 View;
//!   [`CartComm::halo_exchange_start`] is its split-phase form (faces only, through private
//!   buffers, so that kernels can compute the interior while the messages travel).
//! - Reductions of values: [`Communicator::allreduce_value`] with any rokkos reducer and
//!   tuples of them, and the rank-count-independent [`Communicator::deterministic_sum`].
//!
//! A View of any element type kernels take ([`Element`]), any rank and any layout is a buffer;
//! its elements travel in row-major index order, so a `LayoutLeft` View can be received into a
//! `LayoutRight` one of the same extents. Host Views are used in place: a strided one (a
//! subview, `LayoutLeft`, `LayoutStride`) is described to MPI by a derived datatype built from
//! its strides, not packed. The exceptions, packed into a row-major temporary: the side of a
//! gather, scatter or alltoall that holds all ranks' blocks, and both sides of the element-wise
//! reductions, when that View is not row-major contiguous.
//!
//! # Device Views
//!
//! A View outside host memory (wgpu, cuda, a `Device` of either) is staged through its host
//! mirror (pinned memory where the space gives it): `deep_copy` into the mirror before a send,
//! out of it after a receive (for a non-blocking receive: when the request completes).
//! `deep_copy` orders itself after the work queued on the View's space, so what is sent is what
//! the kernels before the call wrote. CUDA-aware MPI (handing device pointers to MPI) is not
//! used, and staging is not chunked: a message is copied whole, then sent.
//!
//! The example on [`Mpi`] is a whole program; the examples of the calls run on one rank as
//! doctests and the same calls run on 1, 2 and 4 ranks in `tests/ranks.rs` (under `mpirun`).

#![warn(missing_docs)]
// Without the `mpi` feature the items the docs above link to do not exist.
#![cfg_attr(not(feature = "mpi"), allow(rustdoc::broken_intra_doc_links))]

#[cfg(feature = "mpi")]
mod buffer;
#[cfg(feature = "mpi")]
mod cart;
#[cfg(feature = "mpi")]
mod collective;
#[cfg(feature = "mpi")]
mod comm;
#[cfg(feature = "mpi")]
mod datatype;
#[cfg(feature = "mpi")]
mod halo;
#[cfg(feature = "mpi")]
mod p2p;
#[cfg(feature = "mpi")]
mod reduce;

#[cfg(feature = "mpi")]
pub use cart::CartComm;
#[cfg(feature = "mpi")]
pub use collective::ViewOp;
#[cfg(feature = "mpi")]
pub use comm::{Communicator, Mpi};
#[cfg(feature = "mpi")]
pub use datatype::Element;
#[cfg(feature = "mpi")]
pub use halo::HaloExchange;
#[cfg(feature = "mpi")]
pub use p2p::Request;
#[cfg(feature = "mpi")]
pub use reduce::{global_loc, pairwise_sum, DetFloat, Wire};
