//! Cartesian communicators (`MPI_Cart_create`) and the halo exchange of a block-decomposed
//! View with ghost layers.

use crate::comm::Communicator;
use crate::datatype::Element;
use mpi::ffi;
use rokkos_core::{Layout, MemorySpace, Result, SliceArg, View};
use std::ffi::c_int;

/// A communicator whose ranks form a grid (`MPI_Cart_create`, ranks not reordered: rank `r`
/// keeps its number), each with its coordinates and its neighbours along every dimension;
/// dereferences to the [`Communicator`] for every other call.
///
/// ```
/// # let mpi = rokkos_mpi::Mpi::init().unwrap();
/// let world = mpi.world().unwrap();
/// // Let MPI choose a 2-D grid of all ranks; periodic along the first dimension.
/// let grid = world.cartesian(&[0, 0], &[true, false]).unwrap();
/// assert_eq!(grid.dims().iter().product::<usize>(), world.size());
/// let (below, above) = grid.neighbors(1).unwrap();
/// assert_eq!(below.is_none(), grid.coords()[1] == 0);
/// # let _ = above;
/// ```
pub struct CartComm {
    comm: Communicator,
    dims: Vec<usize>,
    periodic: Vec<bool>,
    coords: Vec<usize>,
}

impl std::fmt::Debug for CartComm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CartComm(rank {} at {:?} of {:?}, periodic {:?})",
            self.comm.rank(),
            self.coords,
            self.dims,
            self.periodic
        )
    }
}

impl std::ops::Deref for CartComm {
    type Target = Communicator;
    fn deref(&self) -> &Communicator {
        &self.comm
    }
}

impl Communicator {
    /// The ranks of this communicator as a grid of `dims` (a `0` entry: chosen by
    /// `MPI_Dims_create`), periodic along the dimensions `periodic` marks. Collective.
    /// `Err(InvalidArgument)` when the grid does not hold exactly `size()` ranks or the two
    /// slices differ in length.
    pub fn cartesian(&self, dims: &[usize], periodic: &[bool]) -> Result<CartComm> {
        let call = "MPI_Cart_create";
        if dims.len() != periodic.len() || dims.is_empty() {
            return Err(self.invalid(
                call,
                format!(
                    "{} dimensions but {} periodic flags",
                    dims.len(),
                    periodic.len()
                ),
            ));
        }
        let mut d: Vec<c_int> = dims
            .iter()
            .map(|&x| c_int::try_from(x).map_err(|_| self.invalid(call, "dimension too large")))
            .collect::<Result<_>>()?;
        let fixed: usize = dims.iter().filter(|&&x| x != 0).product();
        if fixed == 0 || self.size() % fixed != 0 || (!dims.contains(&0) && fixed != self.size()) {
            return Err(self.invalid(
                call,
                format!(
                    "a grid of {dims:?} cannot hold exactly this communicator's {} ranks",
                    self.size()
                ),
            ));
        }
        // SAFETY: `d` holds `d.len()` ints.
        let code =
            unsafe { ffi::MPI_Dims_create(self.size() as c_int, d.len() as c_int, d.as_mut_ptr()) };
        self.check(code, "MPI_Dims_create", "")?;
        let p: Vec<c_int> = periodic.iter().map(|&b| b as c_int).collect();
        // SAFETY: a plain constant.
        let mut raw = unsafe { ffi::RSMPI_COMM_NULL };
        // SAFETY: `d` and `p` hold `d.len()` ints; `raw` receives the new communicator.
        let code = unsafe {
            ffi::MPI_Cart_create(
                self.raw,
                d.len() as c_int,
                d.as_ptr(),
                p.as_ptr(),
                0,
                &mut raw,
            )
        };
        self.check(code, call, "")?;
        let mut comm = Communicator::adopt(raw, true, self.env(), call)?;
        comm.count_limit = self.count_limit();
        let mut c = vec![0 as c_int; d.len()];
        // SAFETY: `c` holds `d.len()` ints.
        let code = unsafe {
            ffi::MPI_Cart_coords(
                comm.raw,
                comm.rank() as c_int,
                c.len() as c_int,
                c.as_mut_ptr(),
            )
        };
        comm.check(code, "MPI_Cart_coords", "")?;
        Ok(CartComm {
            comm,
            dims: d.iter().map(|&x| x as usize).collect(),
            periodic: periodic.to_vec(),
            coords: c.iter().map(|&x| x as usize).collect(),
        })
    }
}

impl CartComm {
    /// The number of ranks along each dimension.
    pub fn dims(&self) -> &[usize] {
        &self.dims
    }
    /// Which dimensions wrap around.
    pub fn periodic(&self) -> &[bool] {
        &self.periodic
    }
    /// This rank's coordinates in the grid.
    pub fn coords(&self) -> &[usize] {
        &self.coords
    }

    /// The ranks one step below and above this one along `dim` (`MPI_Cart_shift`); `None` past
    /// a non-periodic boundary.
    pub fn neighbors(&self, dim: usize) -> Result<(Option<usize>, Option<usize>)> {
        if dim >= self.dims.len() {
            return Err(self.invalid(
                "MPI_Cart_shift",
                format!("dimension {dim} of a {}-dimensional grid", self.dims.len()),
            ));
        }
        let (mut lo, mut hi) = (0, 0);
        // SAFETY: valid Cartesian communicator and dimension.
        let code = unsafe { ffi::MPI_Cart_shift(self.comm.raw, dim as c_int, 1, &mut lo, &mut hi) };
        self.check(code, "MPI_Cart_shift", "")?;
        let opt = |r: c_int| (r >= 0).then_some(r as usize);
        Ok((opt(lo), opt(hi)))
    }

    /// Fills the `ghost`-wide ghost layers of this rank's block `v` from its neighbours'
    /// boundary layers, dimension after dimension (`MPI_Sendrecv` of faces described as
    /// subviews: derived datatypes on host memory, no packing; device Views staged per face),
    /// so that edges and corners arrive too. `v` holds the block with its ghost layers on both
    /// sides of every dimension (extent `interior + 2 * ghost`); ghost layers past a
    /// non-periodic boundary are left untouched. Collective over the grid; the rank of `v` must
    /// be the grid's, and each interior at least `ghost` wide (`Err(ShapeMismatch)`, on every
    /// rank). Neighbours' faces must hold matching element counts (a consistent decomposition),
    /// else the receiving rank answers `Err(ShapeMismatch)`.
    ///
    /// ```
    /// use rokkos_core::View;
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let world = mpi.world().unwrap();
    /// let grid = world.cartesian(&[0], &[true]).unwrap();
    /// let me = grid.rank() as f64;
    /// // Four interior cells and one ghost cell on each side.
    /// let u = View::<f64, 1>::from_fn("u", [6], |[i]| if (1..5).contains(&i) { me } else { -1.0 }).unwrap();
    /// grid.halo_exchange(&u, 1).unwrap();
    /// let p = grid.size();
    /// assert_eq!(u.get(0), ((grid.rank() + p - 1) % p) as f64);
    /// assert_eq!(u.get(5), ((grid.rank() + 1) % p) as f64);
    /// ```
    pub fn halo_exchange<T: Element, const R: usize, L: Layout, S: MemorySpace>(
        &self,
        v: &View<T, R, L, S>,
        ghost: usize,
    ) -> Result<()> {
        let call = "halo_exchange";
        self.agree_halo(call, v, ghost)?;
        let e = v.extents();
        if ghost == 0 {
            return Ok(());
        }
        for d in 0..R {
            let (lo, hi) = self.neighbors(d)?;
            let n = e[d];
            let layer = |a: usize, b: usize| {
                let mut spec = [SliceArg::Range(0, None); R];
                spec[d] = SliceArg::Range(a, Some(b));
                v.subview::<R>(spec)
            };
            let tag = (2 * d) as c_int;
            // Upward: the top interior layer to the rank above, the bottom ghost from below.
            self.sendrecv_opt(
                call,
                &layer(n - 2 * ghost, n - ghost)?,
                hi,
                &layer(0, ghost)?,
                lo,
                tag,
            )?;
            // Downward: the bottom interior layer below, the top ghost from above.
            self.sendrecv_opt(
                call,
                &layer(ghost, 2 * ghost)?,
                lo,
                &layer(n - ghost, n)?,
                hi,
                tag + 1,
            )?;
        }
        Ok(())
    }

    /// The checks both halo exchanges make, agreed on by every rank: the View's rank is the
    /// grid's, and every dimension holds an interior at least `ghost` wide between its ghost
    /// layers.
    pub(crate) fn agree_halo<T: Element, const R: usize, L: Layout, S: MemorySpace>(
        &self,
        call: &str,
        v: &View<T, R, L, S>,
        ghost: usize,
    ) -> Result<()> {
        let e = v.extents();
        let local = if R != self.dims.len() {
            Err(self.shape(
                call,
                format!(
                    "View `{}` has rank {R}, the grid {} dimensions",
                    v.label(),
                    self.dims.len()
                ),
            ))
        } else if let Some(k) = (0..R).find(|&k| e[k] < 3 * ghost) {
            Err(self.shape(
                call,
                format!(
                    "View `{}`: extent {} of dimension {k} holds no interior of at least {ghost} between two ghost layers of {ghost}",
                    v.label(),
                    e[k]
                ),
            ))
        } else {
            Ok(())
        };
        self.agree(call, v.label(), local, [T::CODE, ghost as i64, R as i64])
    }
}
