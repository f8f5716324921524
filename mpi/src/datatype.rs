//! Element types and the MPI datatypes that describe a View's elements where they lie: a
//! contiguous row-major View is `count` elements of the basic type; any other (a strided
//! subview, `LayoutLeft`, `LayoutStride`) is one element of a derived datatype, nested
//! `MPI_Type_create_hvector`s built from the View's strides, outermost dimension first, so that
//! MPI reads and writes the View's own memory in row-major index order with no packing copy.

use crate::comm::Communicator;
use mpi::ffi;
use rokkos_core::ir::build::IrScalar;
use rokkos_core::{Pod, Result};
use std::ffi::c_int;

mod sealed {
    pub trait Sealed {}
}

/// An element type a View sent through MPI may have: the types kernels take (`u8`, `u16`, `i8`,
/// `i16`, `i32`, `u32`, `i64`, `u64`, `isize`, `usize`, `f32`, `f64`), each with its MPI basic
/// datatype.
pub trait Element: Pod + IrScalar + sealed::Sealed {
    /// A code naming the type, the same on every rank (for the argument agreement).
    const CODE: i64;
    /// Whether bitwise reductions apply.
    const INTEGER: bool;
    /// The MPI basic datatype.
    fn datatype() -> ffi::MPI_Datatype;
}

macro_rules! element {
    ($($t:ty => $code:literal, $int:literal, $dt:ident;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const CODE: i64 = $code;
            const INTEGER: bool = $int;
            fn datatype() -> ffi::MPI_Datatype {
                // SAFETY: a plain constant handle.
                unsafe { ffi::$dt }
            }
        }
    )*};
}
element! {
    u8 => 1, true, RSMPI_UINT8_T;
    u16 => 2, true, RSMPI_UINT16_T;
    i32 => 3, true, RSMPI_INT32_T;
    u32 => 4, true, RSMPI_UINT32_T;
    i64 => 5, true, RSMPI_INT64_T;
    u64 => 6, true, RSMPI_UINT64_T;
    f32 => 9, false, RSMPI_FLOAT;
    f64 => 10, false, RSMPI_DOUBLE;
    i8 => 11, true, RSMPI_INT8_T;
    i16 => 12, true, RSMPI_INT16_T;
}
#[cfg(target_pointer_width = "64")]
element! {
    isize => 5, true, RSMPI_INT64_T;
    usize => 6, true, RSMPI_UINT64_T;
}
#[cfg(target_pointer_width = "32")]
element! {
    isize => 3, true, RSMPI_INT32_T;
    usize => 4, true, RSMPI_UINT32_T;
}

/// A datatype handle, freed on drop when it is a derived one.
pub(crate) struct Datatype {
    pub(crate) raw: ffi::MPI_Datatype,
    owned: bool,
}

impl Drop for Datatype {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: a derived datatype this handle alone owns; MPI keeps it alive for pending
            // operations that use it.
            unsafe { ffi::MPI_Type_free(&mut self.raw) };
        }
    }
}

/// How MPI sees a View's elements: `count` items of `datatype` from the View's origin.
pub(crate) struct Shape {
    pub(crate) count: c_int,
    pub(crate) datatype: Datatype,
}

/// `n` copies of `t`, `step` bytes apart from the first one's origin. Counts above the
/// communicator's limit (MPI's `int`) become nested blocks: `q` copies of a block of `limit`
/// copies, then a block of the remaining `r` at displacement `q * limit * step`, joined by
/// `MPI_Type_create_struct` (the large-count technique of MPI 3.0's own rationale, for MPI
/// libraries without the `_c` calls). `unit` says `t` is a basic type and `step` its size, where
/// a plain `MPI_Type_contiguous` describes the copies.
fn repeat(
    comm: &Communicator,
    call: &str,
    view: &str,
    t: &Datatype,
    n: usize,
    step: usize,
    unit: bool,
) -> Result<Datatype> {
    let aint = |bytes: Option<usize>| {
        bytes
            .and_then(|b| ffi::MPI_Aint::try_from(b).ok())
            .ok_or_else(|| comm.invalid(call, format!("View `{view}`: stride overflows")))
    };
    let limit = comm.count_limit;
    let mut new = unsafe { ffi::RSMPI_DATATYPE_NULL };
    if n <= limit {
        let stride = aint(Some(step))?;
        // SAFETY: `t` is a valid datatype; `new` receives the result; `n` fits an `int`.
        let code = unsafe {
            if unit {
                ffi::MPI_Type_contiguous(n as c_int, t.raw, &mut new)
            } else {
                ffi::MPI_Type_create_hvector(n as c_int, 1, stride, t.raw, &mut new)
            }
        };
        let name = if unit {
            "MPI_Type_contiguous"
        } else {
            "MPI_Type_create_hvector"
        };
        comm.check(code, name, view)?;
        return Ok(Datatype {
            raw: new,
            owned: true,
        });
    }
    let (q, r) = (n / limit, n % limit);
    let block = repeat(comm, call, view, t, limit, step, unit)?;
    let block_step = limit.checked_mul(step);
    let blocks = repeat(
        comm,
        call,
        view,
        &block,
        q,
        aint(block_step)? as usize,
        false,
    )?;
    if r == 0 {
        return Ok(blocks);
    }
    let rest = repeat(comm, call, view, t, r, step, unit)?;
    let disp = aint(block_step.and_then(|b| b.checked_mul(q)))?;
    let lens: [c_int; 2] = [1, 1];
    let disps: [ffi::MPI_Aint; 2] = [0, disp];
    let types = [blocks.raw, rest.raw];
    // SAFETY: two valid datatypes with their lengths and displacements; `new` receives the
    // result, which MPI keeps valid after `blocks` and `rest` are freed.
    let code = unsafe {
        ffi::MPI_Type_create_struct(2, lens.as_ptr(), disps.as_ptr(), types.as_ptr(), &mut new)
    };
    comm.check(code, "MPI_Type_create_struct", view)?;
    Ok(Datatype {
        raw: new,
        owned: true,
    })
}

/// Commits a derived datatype for use in communication.
fn commit(comm: &Communicator, view: &str, mut t: Datatype) -> Result<Datatype> {
    // SAFETY: `t` is a valid, uncommitted derived datatype.
    comm.check(
        unsafe { ffi::MPI_Type_commit(&mut t.raw) },
        "MPI_Type_commit",
        view,
    )?;
    Ok(t)
}

/// `n` contiguous elements of `T`: a count of the basic datatype where `n` is within the
/// communicator's count limit, else one element of a derived datatype (see [`repeat`]) whose
/// extent is still `n` elements, so that a gather's or an alltoall's rank blocks stay `n`
/// elements apart.
pub(crate) fn elements<T: Element>(
    comm: &Communicator,
    call: &str,
    view: &str,
    n: usize,
) -> Result<Shape> {
    let basic = Datatype {
        raw: T::datatype(),
        owned: false,
    };
    if n <= comm.count_limit {
        return Ok(Shape {
            count: n as c_int,
            datatype: basic,
        });
    }
    let t = repeat(comm, call, view, &basic, n, std::mem::size_of::<T>(), true)?;
    Ok(Shape {
        count: 1,
        datatype: commit(comm, view, t)?,
    })
}

/// Whether the strides are row-major contiguous for the extents (dimensions of extent 1 are
/// never stepped along, so their strides do not matter).
pub(crate) fn row_major_contiguous(extents: &[usize], strides: &[usize]) -> bool {
    let mut expect = 1usize;
    for k in (0..extents.len()).rev() {
        if extents[k] > 1 && strides[k] != expect {
            return false;
        }
        expect = expect.saturating_mul(extents[k]);
    }
    true
}

/// The datatype and count addressing a View with these extents and strides (in elements of `T`)
/// from its origin, in row-major index order.
pub(crate) fn shape_of<T: Element>(
    comm: &Communicator,
    call: &str,
    view: &str,
    extents: &[usize],
    strides: &[usize],
) -> Result<Shape> {
    let n: usize = extents.iter().product();
    if n == 0 || row_major_contiguous(extents, strides) {
        return elements::<T>(comm, call, view, n);
    }
    let sz = std::mem::size_of::<T>();
    let mut t = Datatype {
        raw: T::datatype(),
        owned: false,
    };
    let mut innermost = true;
    for k in (0..extents.len()).rev() {
        if extents[k] == 1 {
            continue;
        }
        let step = strides[k]
            .checked_mul(sz)
            .ok_or_else(|| comm.invalid(call, format!("View `{view}`: stride overflows")))?;
        // The previous level is freed when `t` is replaced: MPI keeps what the new one needs.
        t = repeat(
            comm,
            call,
            view,
            &t,
            extents[k],
            step,
            innermost && strides[k] == 1,
        )?;
        innermost = false;
    }
    Ok(Shape {
        count: 1,
        datatype: commit(comm, view, t)?,
    })
}
