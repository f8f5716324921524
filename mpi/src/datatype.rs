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

/// An element type a View sent through MPI may have: the types kernels take (`u8`, `u16`, `i32`,
/// `u32`, `i64`, `u64`, `isize`, `usize`, `f32`, `f64`), each with its MPI basic datatype.
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

/// The largest count one MPI call takes (`int`; Open MPI 4.1 has no large-count calls).
fn count_of(comm: &Communicator, call: &str, view: &str, n: usize) -> Result<c_int> {
    c_int::try_from(n).map_err(|_| {
        comm.invalid(
            call,
            format!(
                "View `{view}`: {n} elements exceed MPI's count limit of {} per message; split it",
                c_int::MAX
            ),
        )
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
    let basic = Datatype {
        raw: T::datatype(),
        owned: false,
    };
    if n == 0 || row_major_contiguous(extents, strides) {
        return Ok(Shape {
            count: count_of(comm, call, view, n)?,
            datatype: basic,
        });
    }
    let sz = std::mem::size_of::<T>();
    let mut t = basic;
    let mut innermost = true;
    for k in (0..extents.len()).rev() {
        if extents[k] == 1 {
            continue;
        }
        let e = count_of(comm, call, view, extents[k])?;
        let mut new = unsafe { ffi::RSMPI_DATATYPE_NULL };
        // SAFETY: `t` is a valid datatype; `new` receives the result.
        let code = unsafe {
            if innermost && strides[k] == 1 {
                ffi::MPI_Type_contiguous(e, t.raw, &mut new)
            } else {
                let stride = strides[k]
                    .checked_mul(sz)
                    .and_then(|b| ffi::MPI_Aint::try_from(b).ok())
                    .ok_or_else(|| {
                        comm.invalid(call, format!("View `{view}`: stride overflows"))
                    })?;
                ffi::MPI_Type_create_hvector(e, 1, stride, t.raw, &mut new)
            }
        };
        comm.check(code, "MPI_Type_create_hvector", view)?;
        // The previous level is freed when `t` is replaced: MPI keeps what `new` needs.
        t = Datatype {
            raw: new,
            owned: true,
        };
        innermost = false;
    }
    // SAFETY: `t` is a valid, uncommitted derived datatype.
    comm.check(
        unsafe { ffi::MPI_Type_commit(&mut t.raw) },
        "MPI_Type_commit",
        view,
    )?;
    Ok(Shape {
        count: 1,
        datatype: t,
    })
}
