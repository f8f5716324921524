//! The error records of one stream: the device buffer the kernels write their failures into
//! (`rokkos_device::runtime::errors` fixes its layout, the emitter's prelude writes it) and the host's
//! book of the launches that may fail. A launch that may fail gets a number from the book under
//! the lock, and is enqueued before the lock is released, so that a synchronisation never settles
//! a launch it did not wait for. A synchronisation (fence, host read, blocking result) copies the
//! records back behind the stream's work when such a launch ran since the last copy, waits, and
//! settles the book: each failure goes to the mailbox of the thread that launched the kernel.

use super::device::Instance;
use super::driver::{self, unavailable};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use rokkos_core::Result;
use rokkos_device::runtime::errors::{error_words, ErrorBook, LaunchRecord, RECORDS, RECORD_WORDS};
use std::sync::{Mutex, MutexGuard};

/// Bytes of the record buffer.
pub(crate) const RECORD_BYTES: usize = RECORDS * RECORD_WORDS * 4;

/// A stream's record buffer and book.
pub(crate) struct ErrorRecords {
    buf: CudaSlice<u8>,
    state: Mutex<State>,
}

struct State {
    book: ErrorBook,
    /// Launches numbered so far (the book's batch of each is its position).
    numbered: u64,
    /// Whether a launch that may fail was enqueued since the records were last copied back.
    unchecked: bool,
}

impl ErrorRecords {
    /// Zeroed records, allocated on `stream` (which orders the fill before its later work).
    pub(crate) fn new(stream: &std::sync::Arc<CudaStream>) -> Result<ErrorRecords> {
        let buf = stream
            .alloc_zeros::<u8>(RECORD_BYTES)
            .map_err(|e| driver::error("cuMemAllocAsync (error records)", e))?;
        Ok(ErrorRecords {
            buf,
            state: Mutex::new(State {
                book: ErrorBook::new(rokkos_device::emit::codes::ERROR_CODES),
                numbered: 0,
                unchecked: false,
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Instance {
    /// The device address of this stream's error records (used only by this stream's kernels).
    pub(crate) fn records_ptr(&self) -> CUdeviceptr {
        // Event tracking is off (see `device::open`), so the guard records nothing.
        let (ptr, _guard) = self.errors.buf.device_ptr(&self.stream);
        ptr
    }

    /// Enqueues a launch through `enqueue(number)`: with `rec` (a launch that may record an
    /// error) under a number from the book, which picks its record; without, under number 0.
    pub(crate) fn numbered_launch(
        &self,
        rec: Option<LaunchRecord>,
        enqueue: impl FnOnce(u32) -> Result<()>,
    ) -> Result<()> {
        let Some(rec) = rec else { return enqueue(0) };
        let mut st = self.errors.lock();
        let id = match st.book.number(rec) {
            Ok(id) => id,
            Err(rec) => {
                // Every record is held by a launch not read yet: read them all first.
                self.sync_locked(&mut st, false)?;
                st.book.number(rec).map_err(|_| {
                    unavailable("every error record is still held after reading them")
                })?
            }
        };
        st.numbered += 1;
        let batch = st.numbered;
        st.book.set_batch(id, batch);
        st.unchecked = true;
        enqueue(id)
    }

    /// Waits for this stream's work and settles its error records; `take_mine`: the calling
    /// thread's first unreported kernel failure is the result (a host write leaves it for the
    /// next fence or read).
    pub(crate) fn sync(&self, take_mine: bool) -> Result<()> {
        let mut st = self.errors.lock();
        self.sync_locked(&mut st, take_mine)
    }

    fn sync_locked(&self, st: &mut State, take_mine: bool) -> Result<()> {
        let covered = st.numbered;
        let words = if st.unchecked {
            let mut host = vec![0u8; RECORD_BYTES];
            self.bind()?;
            // SAFETY: the source is this stream's whole record buffer; `host` is written by the
            // copy, which `wait` below has finished before `host` is read or dropped.
            unsafe {
                cudarc::driver::result::memcpy_dtoh_async(
                    &mut host,
                    self.records_ptr(),
                    self.stream.cu_stream(),
                )
            }
            .map_err(|e| driver::error("cuMemcpyDtoHAsync (error records)", e))?;
            self.wait()?;
            st.unchecked = false;
            Some(error_words(&host))
        } else {
            self.wait()?;
            None
        };
        let mut cleared = Ok(());
        let base = self.records_ptr();
        st.book.settle(words.as_deref(), covered, |slot| {
            let at = base + (slot * RECORD_WORDS * 4) as CUdeviceptr;
            // SAFETY: one record inside the buffer; ordered on this stream before any later
            // launch that could reuse the record.
            let r = unsafe {
                cudarc::driver::result::memset_d8_async(
                    at,
                    0,
                    RECORD_WORDS * 4,
                    self.stream.cu_stream(),
                )
            };
            if let Err(e) = r {
                cleared = Err(driver::error("cuMemsetD8Async (error record)", e));
            }
        });
        cleared?;
        if take_mine {
            st.book.take_mine()
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rokkos_core::ir::build::KernelBuilder;
    use rokkos_core::ir::{Access, Failure, WorkKind};
    use rokkos_core::Error;
    use rokkos_device::emit::codes;
    use std::sync::Arc;

    /// The record words of `launch` as the prelude's `rk_oob_begin` / `rk_oob_idx` leave them.
    fn recorded(launch: u32, code: u32, index: &[u64]) -> Vec<u32> {
        let mut w = vec![0u32; RECORDS * RECORD_WORDS];
        let s = (launch as usize % RECORDS) * RECORD_WORDS;
        w[s] = 1;
        w[s + 1] = launch;
        w[s + 2] = code;
        w[s + 3] = index.len() as u32;
        for (d, i) in index.iter().enumerate() {
            w[s + 4 + 2 * d] = *i as u32;
            w[s + 5 + 2 * d] = (*i >> 32) as u32;
        }
        w
    }

    fn record(ir: &Arc<rokkos_core::ir::Kernel>) -> LaunchRecord {
        LaunchRecord {
            ir: ir.clone(),
            views: vec![("grid".into(), vec![4, 6])],
            thread: std::thread::current().id(),
            batch: u64::MAX,
        }
    }

    /// What a kernel writes comes back as the error the host backends give, for the thread
    /// that launched it, once; then the record is free again.
    #[test]
    fn records_decode_to_out_of_bounds_and_kernel_failures() {
        // The prelude addresses the records with the layout the book reads.
        let mut kb = KernelBuilder::new("k", WorkKind::Range);
        let i = kb.work_index(0);
        let g = kb.view::<f32>("g", 1, Access::Writable);
        kb.store(g, i, 1.0f32);
        let k = kb.finish().unwrap();
        let opts = crate::emit::CudaOptions {
            entry: crate::emit::Entry::For,
            block: 256,
            bounds_checks: true,
            joins: vec![],
            in_bounds: Default::default(),
            team: None,
            width: crate::emit::IndexWidth::W64,
        };
        let info = rokkos_core::ir::valid::validate(&k).unwrap();
        let emitted = crate::emit::emit(&k, &info, &opts).unwrap();
        assert!(emitted.may_fail);
        let prelude = emitted.source;
        assert!(
            prelude.contains(&format!(
                "P.err + (P.launch % {RECORDS}u) * {RECORD_WORDS}u"
            )),
            "{prelude}"
        );

        let mut kb = KernelBuilder::new("stencil", WorkKind::MDRange(2));
        let (i, j) = (kb.work_index(0), kb.work_index(1));
        let g = kb.view::<f64>("grid", 2, Access::Writable);
        kb.store(g, vec![i, j], 0.0f64);
        let ir = Arc::new(kb.finish().unwrap());
        let mut book = ErrorBook::new(codes::ERROR_CODES);
        let a = book.number(record(&ir)).ok().unwrap();
        book.set_batch(a, 1);
        let b = book.number(record(&ir)).ok().unwrap();
        book.set_batch(b, 2);
        let mut words = recorded(a, 0, &[3, (1 << 33) + 5]);
        let fail = recorded(b, codes::failure(Failure::DivByZero), &[]);
        let s = (b as usize % RECORDS) * RECORD_WORDS;
        words[s..s + RECORD_WORDS].copy_from_slice(&fail[s..s + RECORD_WORDS]);
        let mut cleared = Vec::new();
        book.settle(Some(&words), 2, |slot| cleared.push(slot));
        cleared.sort();
        let mut want = vec![a as usize % RECORDS, b as usize % RECORDS];
        want.sort();
        assert_eq!(cleared, want);
        // The first failure of this thread's launches is its error; the second is dropped
        // (one error per synchronisation, as on wgpu).
        match book.take_mine() {
            Err(Error::OutOfBounds {
                kernel,
                view,
                index,
                extents,
            }) => {
                assert_eq!(kernel, "stencil");
                assert_eq!(view, "grid");
                assert_eq!(index, format!("(3, {})", (1u64 << 33) + 5));
                assert_eq!(extents, "(4, 6)");
            }
            other => panic!("{other:?}"),
        }
        assert!(book.take_mine().is_ok());
        // Both records are free: a failure alone is reported with Rust's message.
        let c = book.number(record(&ir)).ok().unwrap();
        book.set_batch(c, 3);
        book.settle(
            Some(&recorded(c, codes::failure(Failure::DivByZero), &[])),
            3,
            |_| {},
        );
        match book.take_mine() {
            Err(Error::KernelFailed { kernel, reason }) => {
                assert_eq!(kernel, "stencil");
                assert_eq!(reason, "attempt to divide by zero");
            }
            other => panic!("{other:?}"),
        }
        // No record set: nothing to report.
        book.settle(Some(&[]), 3, |_| panic!("nothing to clear"));
        assert!(book.take_mine().is_ok());
    }
}
