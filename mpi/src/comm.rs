//! The MPI environment and communicators: initialisation, `world`, `dup`, `split`, rank and
//! size, and the conversion of MPI's error codes into [`rokkos_core::Error`] values.

use mpi::ffi;
use rokkos_core::{Error, Result};
use std::ffi::{c_char, c_int};
use std::sync::Arc;

/// MPI itself, initialised once per process; finalised when the last [`Communicator`] made from
/// it (and this handle) is dropped, so no MPI call can run after `MPI_Finalize`.
///
/// ```
/// let mpi = rokkos_mpi::Mpi::init().unwrap();
/// let world = mpi.world().unwrap();
/// assert!(world.rank() < world.size());
/// ```
///
/// `Mpi` and every [`Communicator`] stay on the thread that initialised MPI (neither is `Send` nor
/// `Sync`): at `MPI_THREAD_FUNNELED` only that thread may call MPI, and the last handle's drop
/// calls `MPI_Finalize`.
///
/// ```compile_fail,E0277
/// let mpi = rokkos_mpi::Mpi::init().unwrap();
/// // error: `Mpi` cannot be sent to another thread (MPI was initialised for this one)
/// std::thread::spawn(move || mpi.world().unwrap().barrier());
/// ```
pub struct Mpi {
    env: Arc<mpi::environment::Universe>,
    _thread: OneThread,
}

/// Pins a handle to the thread that initialised MPI (`MPI_THREAD_FUNNELED`): not `Send`, not
/// `Sync`, whatever the MPI library's handle types are (Open MPI's are pointers, MPICH's
/// integers, and `Universe` is both).
pub(crate) type OneThread = std::marker::PhantomData<*const ()>;

impl std::fmt::Debug for Mpi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Mpi")
    }
}

impl Mpi {
    /// Initialises MPI (`MPI_Init_thread`, asking for `MPI_THREAD_FUNNELED`: rokkos' host
    /// backends run kernels on threads, while every MPI call is made by the thread that called
    /// this). `Err(InvalidArgument)` when MPI was already initialised in this process (once per
    /// process, as MPI allows).
    pub fn init() -> Result<Self> {
        let (universe, _) =
            mpi::initialize_with_threading(mpi::Threading::Funneled).ok_or_else(|| {
                Error::InvalidArgument(
                    "Mpi::init: MPI is already initialised in this process (once per process)"
                        .into(),
                )
            })?;
        Ok(Mpi {
            env: Arc::new(universe),
            _thread: std::marker::PhantomData,
        })
    }

    /// `MPI_COMM_WORLD`, with errors returned (`MPI_ERRORS_RETURN`) instead of aborting the job.
    pub fn world(&self) -> Result<Communicator> {
        // SAFETY: MPI is initialised (`self.env` alive); the constant is a plain handle.
        let raw = unsafe { ffi::RSMPI_COMM_WORLD };
        Communicator::adopt(raw, false, self.env.clone(), "MPI_COMM_WORLD")
    }

    /// The MPI library's version string (`MPI_Get_library_version`).
    pub fn library_version(&self) -> String {
        let mut buf = vec![0 as c_char; 8192];
        let mut len: c_int = 0;
        // SAFETY: the buffer holds MPI_MAX_LIBRARY_VERSION_STRING (at most 8192 in every
        // implementation) characters.
        unsafe { ffi::MPI_Get_library_version(buf.as_mut_ptr(), &mut len) };
        c_chars(&buf[..len.clamp(0, 8192) as usize])
    }
}

fn c_chars(b: &[c_char]) -> String {
    let bytes: Vec<u8> = b
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A communicator: a group of ranks that talk to each other. Every call on it that fails returns
/// an `Err` naming the rank, the call and the View; MPI's own errors are returned, not fatal.
///
/// Collective calls first agree, in one small `MPI_Allreduce`, that every rank passed matching
/// arguments (element type, per-rank element count, root) and that none failed locally (a bad
/// argument, or a View it could not hold because a host guard or a launch has it); a mismatch
/// is then an `Err` on every rank instead of a hang or a truncated message. That costs
/// one latency-bound collective per call; [`Communicator::disable_checks`] (`unsafe`: the caller
/// then promises that the arguments match) turns it off.
pub struct Communicator {
    pub(crate) raw: ffi::MPI_Comm,
    owned: bool,
    rank: usize,
    size: usize,
    pub(crate) checks: bool,
    /// The most elements one MPI call carries as a plain count of basic elements (`i32::MAX`
    /// unless [`Communicator::with_count_limit`] lowered it): longer messages are described by
    /// derived datatypes, longer reductions made as several calls.
    pub(crate) count_limit: usize,
    env: Arc<mpi::environment::Universe>,
    _thread: OneThread,
}

impl std::fmt::Debug for Communicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Communicator(rank {} of {})", self.rank, self.size)
    }
}

impl Drop for Communicator {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: a communicator this handle made (dup/split) and alone owns.
            unsafe { ffi::MPI_Comm_free(&mut self.raw) };
        }
    }
}

impl Communicator {
    pub(crate) fn adopt(
        raw: ffi::MPI_Comm,
        owned: bool,
        env: Arc<mpi::environment::Universe>,
        what: &str,
    ) -> Result<Self> {
        let mut comm = Communicator {
            raw,
            owned,
            rank: 0,
            size: 0,
            checks: true,
            count_limit: MAX_COUNT,
            env,
            _thread: std::marker::PhantomData,
        };
        // SAFETY: `raw` is a valid communicator handle.
        unsafe {
            mpi_check(
                ffi::MPI_Comm_set_errhandler(raw, ffi::RSMPI_ERRORS_RETURN),
                0,
                "MPI_Comm_set_errhandler",
                what,
            )?;
            let (mut r, mut s) = (0, 0);
            mpi_check(ffi::MPI_Comm_rank(raw, &mut r), 0, "MPI_Comm_rank", what)?;
            mpi_check(ffi::MPI_Comm_size(raw, &mut s), r, "MPI_Comm_size", what)?;
            comm.rank = r as usize;
            comm.size = s as usize;
        }
        Ok(comm)
    }

    /// The MPI environment this communicator keeps alive.
    pub(crate) fn env(&self) -> Arc<mpi::environment::Universe> {
        self.env.clone()
    }

    /// This rank's number, `0..size()`.
    pub fn rank(&self) -> usize {
        self.rank
    }
    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Turns the argument agreement of collective calls back on (it is on when a communicator
    /// is made; see [`Communicator::disable_checks`]).
    ///
    /// ```
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let mut world = mpi.world().unwrap();
    /// world.enable_checks();
    /// assert!(world.checks_enabled());
    /// ```
    pub fn enable_checks(&mut self) {
        self.checks = true;
    }

    /// Turns the argument agreement of collective calls off, saving one latency-bound
    /// `MPI_Allreduce` per collective call.
    ///
    /// # Safety
    ///
    /// Without the agreement, rokkos can no longer tell that the ranks passed matching
    /// arguments, and MPI does not check them: the MPI standard makes a collective call whose
    /// ranks disagree on the element type, the element count per rank or the root erroneous, with
    /// no defined outcome (an implementation may hang, truncate, or write past a receive buffer
    /// that is shorter than what another rank sends). The caller promises that, for as long as the
    /// checks are off, every collective call on this communicator is made by every rank with the
    /// same element type, the same per-rank element count and the same root. A local argument
    /// error (a View of the wrong length on this rank, a View held by a host guard) is still an
    /// `Err` on the rank that makes it, but the other ranks are then left inside the collective.
    ///
    /// ```
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let mut world = mpi.world().unwrap();
    /// // SAFETY: this program makes no collective call until the checks are back on.
    /// unsafe { world.disable_checks() };
    /// assert!(!world.checks_enabled());
    /// world.enable_checks();
    /// ```
    pub unsafe fn disable_checks(&mut self) {
        self.checks = false;
    }

    /// Whether collective calls first agree on their arguments (the default; see
    /// [`Communicator::disable_checks`]).
    ///
    /// ```
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// assert!(mpi.world().unwrap().checks_enabled());
    /// ```
    pub fn checks_enabled(&self) -> bool {
        self.checks
    }

    /// A new communicator with the same ranks and a separate message space (`MPI_Comm_dup`), so
    /// that a library's messages never match the caller's.
    ///
    /// ```
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let world = mpi.world().unwrap();
    /// let mine = world.dup().unwrap();
    /// assert_eq!(mine.size(), world.size());
    /// ```
    pub fn dup(&self) -> Result<Communicator> {
        let mut raw = unsafe { ffi::RSMPI_COMM_NULL };
        // SAFETY: valid communicator; `raw` receives the new handle.
        self.check(
            unsafe { ffi::MPI_Comm_dup(self.raw, &mut raw) },
            "MPI_Comm_dup",
            "",
        )?;
        let mut c = Communicator::adopt(raw, true, self.env.clone(), "MPI_Comm_dup")?;
        c.count_limit = self.count_limit;
        Ok(c)
    }

    /// A new communicator (`MPI_Comm_dup`) whose calls split messages as if MPI's `int` counts
    /// ended at `limit` elements instead of `i32::MAX`: a message of more elements goes as one
    /// element of a derived datatype made of `limit`-element blocks and a remainder, and a
    /// reduction or scan of more elements runs as several calls of at most `limit` elements.
    /// That is what every call does above `i32::MAX` elements (Open MPI 4.1 has no large-count
    /// calls); a small `limit` makes those paths testable without gigabyte Views, and results
    /// do not depend on it. Collective: every rank must pass the same `limit` (checked, as the
    /// arguments of every collective call are, unless checks are off), so that all ranks split
    /// reductions alike. `Err(InvalidArgument)` for a `limit` of 0 or above `i32::MAX`.
    ///
    /// ```
    /// use rokkos_core::{Sum, View};
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let world = mpi.world().unwrap();
    /// let small = world.with_count_limit(4).unwrap();
    /// assert_eq!(small.count_limit(), 4);
    /// let x = View::<u64, 1>::from_fn("x", [10], |[i]| i as u64).unwrap();
    /// let total = View::<u64, 1>::new("total", [10]).unwrap();
    /// small.allreduce(&x, &total, Sum).unwrap(); // three calls: 4, 4 and 2 elements
    /// assert_eq!(total.get(9), 9 * small.size() as u64);
    /// ```
    pub fn with_count_limit(&self, limit: usize) -> Result<Communicator> {
        let call = "with_count_limit";
        let local = if limit == 0 || limit > MAX_COUNT {
            Err(self.invalid(
                call,
                format!("count limit {limit} is not in 1..={MAX_COUNT}"),
            ))
        } else {
            Ok(())
        };
        self.agree(call, "(count limit)", local, [0, limit as i64, 0])?;
        let mut c = self.dup()?;
        c.count_limit = limit;
        Ok(c)
    }

    /// The most elements one MPI call of this communicator carries as a plain count (see
    /// [`Communicator::with_count_limit`]; `i32::MAX` by default).
    ///
    /// ```
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// assert_eq!(mpi.world().unwrap().count_limit(), i32::MAX as usize);
    /// ```
    pub fn count_limit(&self) -> usize {
        self.count_limit
    }

    /// Splits the ranks by `color` (`MPI_Comm_split`): ranks passing the same color form one
    /// communicator, ordered by `key` then by rank here. `None` for a rank passing `color: None`
    /// (`MPI_UNDEFINED`). Collective over this communicator.
    ///
    /// ```
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let world = mpi.world().unwrap();
    /// let half = world.split(Some((world.rank() % 2) as u32), 0).unwrap().unwrap();
    /// assert_eq!(half.size(), (world.size() + 1 - world.rank() % 2) / 2);
    /// ```
    pub fn split(&self, color: Option<u32>, key: i32) -> Result<Option<Communicator>> {
        let c = match color {
            Some(c) if c <= i32::MAX as u32 => c as c_int,
            Some(c) => {
                return Err(self.invalid("MPI_Comm_split", format!("color {c} exceeds i32::MAX")))
            }
            // SAFETY: a plain constant.
            None => unsafe { ffi::RSMPI_UNDEFINED },
        };
        let mut raw = unsafe { ffi::RSMPI_COMM_NULL };
        // SAFETY: valid communicator; `raw` receives the new handle.
        self.check(
            unsafe { ffi::MPI_Comm_split(self.raw, c, key, &mut raw) },
            "MPI_Comm_split",
            "",
        )?;
        // SAFETY: a plain constant.
        if raw == unsafe { ffi::RSMPI_COMM_NULL } {
            return Ok(None);
        }
        let mut c = Communicator::adopt(raw, true, self.env.clone(), "MPI_Comm_split")?;
        c.count_limit = self.count_limit;
        Ok(Some(c))
    }

    /// Waits until every rank has called it (`MPI_Barrier`).
    ///
    /// ```
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// mpi.world().unwrap().barrier().unwrap();
    /// ```
    pub fn barrier(&self) -> Result<()> {
        // SAFETY: valid communicator.
        self.check(unsafe { ffi::MPI_Barrier(self.raw) }, "MPI_Barrier", "")
    }

    /// `Ok` or the error of an MPI return code, naming this rank, the call and the View.
    pub(crate) fn check(&self, code: c_int, call: &str, view: &str) -> Result<()> {
        mpi_check(code, self.rank as c_int, call, view)
    }

    /// `Err(InvalidArgument)` naming this rank and the call.
    pub(crate) fn invalid(&self, call: &str, what: impl std::fmt::Display) -> Error {
        Error::InvalidArgument(format!("rank {}: {call}: {what}", self.rank))
    }

    /// `Err(ShapeMismatch)` naming this rank and the call.
    pub(crate) fn shape(&self, call: &str, what: impl std::fmt::Display) -> Error {
        Error::ShapeMismatch {
            what: format!("rank {}: {call}: {what}", self.rank),
        }
    }

    /// A peer rank as MPI's `int`, or `Err(InvalidArgument)` when it is not a rank of this
    /// communicator.
    pub(crate) fn peer(&self, call: &str, view: &str, rank: usize) -> Result<c_int> {
        if rank >= self.size {
            return Err(self.invalid(
                call,
                format!(
                    "View `{view}`: rank {rank} is not in this communicator of {} ranks",
                    self.size
                ),
            ));
        }
        Ok(rank as c_int)
    }

    /// A message tag as MPI's `int`; tags above 32767 (the least upper bound MPI promises) are
    /// refused.
    pub(crate) fn tag(&self, call: &str, tag: u16) -> Result<c_int> {
        if tag > 32767 {
            return Err(self.invalid(
                call,
                format!("tag {tag} exceeds 32767, MPI's portable maximum"),
            ));
        }
        Ok(tag as c_int)
    }

    /// The collective agreement: every rank contributes whether its own arguments were fine and
    /// its signature (element type code, per-rank count, root); all ranks then answer the same:
    /// `Ok`, or `Err` naming the (highest-numbered) rank that failed and its reason where it is
    /// this rank, or the mismatch. Without checks, the local result alone.
    pub(crate) fn agree(
        &self,
        call: &str,
        view: &str,
        local: Result<()>,
        sig: [i64; 3],
    ) -> Result<()> {
        if !self.checks {
            return local;
        }
        let bad = if local.is_err() {
            self.rank as i64 + 1
        } else {
            0
        };
        let mut v = [bad, sig[0], -sig[0], sig[1], -sig[1], sig[2], -sig[2]];
        let mut out = [0i64; 7];
        // SAFETY: 7 contiguous i64 on both sides; valid communicator.
        self.check(
            unsafe {
                ffi::MPI_Allreduce(
                    v.as_mut_ptr() as *const _,
                    out.as_mut_ptr() as *mut _,
                    7,
                    ffi::RSMPI_INT64_T,
                    ffi::RSMPI_MAX,
                    self.raw,
                )
            },
            call,
            view,
        )?;
        local?;
        if out[0] != 0 {
            return Err(self.invalid(
                call,
                format!("View `{view}`: rank {} refused its arguments", out[0] - 1),
            ));
        }
        let names = ["element type", "element count per rank", "root"];
        for (k, name) in names.iter().enumerate() {
            let (hi, lo) = (out[1 + 2 * k], -out[2 + 2 * k]);
            if hi != lo {
                return Err(self.shape(
                    call,
                    format!(
                        "View `{view}`: ranks disagree on the {name} ({lo} here or below, up to {hi} elsewhere; this rank: {})",
                        sig[k]
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// MPI's largest count (`int`), the default [`Communicator::count_limit`].
pub(crate) const MAX_COUNT: usize = c_int::MAX as usize;

/// `Ok` for `MPI_SUCCESS`, else the error: `ShapeMismatch` for a truncated message,
/// `InvalidArgument` for a bad rank, tag, count, type, root or operation, [`Error::Mpi`]
/// for the rest; each with MPI's own message.
pub(crate) fn mpi_check(code: c_int, rank: c_int, call: &str, view: &str) -> Result<()> {
    if code == ffi::MPI_SUCCESS as c_int {
        return Ok(());
    }
    let mut buf = vec![0 as c_char; 1024];
    let mut len: c_int = 0;
    let mut class: c_int = 0;
    // SAFETY: the buffer holds MPI_MAX_ERROR_STRING (256 in Open MPI and MPICH) characters.
    unsafe {
        ffi::MPI_Error_string(code, buf.as_mut_ptr(), &mut len);
        ffi::MPI_Error_class(code, &mut class);
    }
    let msg = c_chars(&buf[..len.clamp(0, 1024) as usize]);
    let on = if view.is_empty() {
        String::new()
    } else {
        format!(" on View `{view}`")
    };
    let what = format!("rank {rank}: {call}{on}: {msg}");
    let class = class as u32;
    Err(if class == ffi::MPI_ERR_TRUNCATE {
        Error::ShapeMismatch { what }
    } else if [
        ffi::MPI_ERR_RANK,
        ffi::MPI_ERR_TAG,
        ffi::MPI_ERR_COUNT,
        ffi::MPI_ERR_TYPE,
        ffi::MPI_ERR_ROOT,
        ffi::MPI_ERR_OP,
        ffi::MPI_ERR_ARG,
        ffi::MPI_ERR_BUFFER,
        ffi::MPI_ERR_COMM,
    ]
    .contains(&class)
    {
        Error::InvalidArgument(what)
    } else {
        Error::Mpi {
            rank: rank.max(0) as usize,
            call: call.into(),
            view: view.into(),
            class: class as i32,
            message: msg,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MPI's error classes land in the variants the docs name, with MPI's own message, the rank,
    /// the call and the View. (The only test of this crate's unit tests that initialises MPI:
    /// one process may initialise it once.)
    #[test]
    fn error_classes_map_to_variants() {
        let mpi = Mpi::init().unwrap();
        let _world = mpi.world().unwrap();
        let e = mpi_check(ffi::MPI_ERR_INTERN as c_int, 3, "MPI_Send", "u").unwrap_err();
        match &e {
            Error::Mpi {
                rank,
                call,
                view,
                class,
                message,
            } => {
                assert_eq!((*rank, call.as_str(), view.as_str()), (3, "MPI_Send", "u"));
                assert_eq!(*class, ffi::MPI_ERR_INTERN as i32);
                assert!(!message.is_empty());
            }
            other => panic!("expected Error::Mpi, got {other:?}"),
        }
        assert!(e
            .to_string()
            .starts_with("MPI error on rank 3 in MPI_Send on View `u`: "));
        let t = mpi_check(ffi::MPI_ERR_TRUNCATE as c_int, 0, "MPI_Recv", "v").unwrap_err();
        assert!(matches!(t, Error::ShapeMismatch { .. }), "{t:?}");
        let r = mpi_check(ffi::MPI_ERR_RANK as c_int, 0, "MPI_Send", "").unwrap_err();
        assert!(matches!(r, Error::InvalidArgument(_)), "{r:?}");
        assert_eq!(
            mpi_check(ffi::MPI_SUCCESS as c_int, 0, "MPI_Send", ""),
            Ok(())
        );
    }
}
