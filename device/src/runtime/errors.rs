//! Errors a kernel records on the device, and who hears of them.
//!
//! A device kernel that fails (an out-of-bounds index, a division by zero, ...) records its first
//! failure in an **error record** of device memory and carries on; the host reads the records at
//! its next synchronisation. There are [`RECORDS`] records of [`RECORD_WORDS`] `u32` words each
//! (flag, launch number, code, rank, then up to eight 64-bit indices as low/high word pairs), so
//! that kernels launched by different threads between two synchronisations all keep theirs. The
//! host side ([`ErrorBook`]) numbers each launch that may fail with a free record (its number's
//! low bits pick it), remembers what it needs to describe the failure ([`LaunchRecord`]), and
//! turns a set record into an error in the **mailbox** of the thread that launched the kernel,
//! whichever thread's synchronisation read it: that thread's next fence, host read or blocking
//! result returns it.

use rokkos_core::error::Error;
use rokkos_core::ir;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::thread::ThreadId;

/// `u32` words of one launch's error record: flag, launch number, code, rank, then up to eight
/// 64-bit indices.
pub const RECORD_WORDS: usize = 4 + 16;
/// Error records on the device.
pub const RECORDS: usize = 64;

/// What the host remembers of a launch that may record an error, until its work is known to be
/// complete and its record read.
pub struct LaunchRecord {
    /// The kernel's IR (its name and locals name the failing access).
    pub ir: Arc<ir::Kernel>,
    /// Label and extents of each View parameter.
    pub views: Vec<(String, Vec<usize>)>,
    /// The thread that launched it: its synchronisation is the one that reports the error.
    pub thread: ThreadId,
    /// The submission that carries it (`u64::MAX` until it is submitted): once the records have
    /// been read after that submission completed, this record is no longer needed.
    pub batch: u64,
}

/// How a backend's kernels encode failures other than View indices (which use the View
/// parameter's position as the code).
#[derive(Clone, Copy)]
pub struct ErrorCodes {
    /// Codes from here on are local arrays (`code - array_code` is the local's index).
    pub array_code: u32,
    /// Codes from here on are constant tables (`code - table_code` is the table's index); above
    /// `array_code`, so checked first.
    pub table_code: u32,
    /// The error a code of the backend's own stands for, given the kernel's name and the
    /// recorded indices, or `None`.
    pub decode: fn(&str, u32, &[u64]) -> Option<Error>,
}

/// The host's book of launches that may fail, their device records and the per-thread mailboxes.
pub struct ErrorBook {
    codes: ErrorCodes,
    launches: HashMap<u32, LaunchRecord>,
    /// Launch numbers handed out so far (the high bits of the next one).
    seq: u32,
    /// The launch holding each record on the device (0: free).
    slots: [u32; RECORDS],
    /// Launches whose record was already taken off the device (and cleared): a copy of the
    /// record made before the clear took effect must not be reported twice.
    reported: VecDeque<u32>,
    mailbox: HashMap<ThreadId, Error>,
}

impl ErrorBook {
    /// An empty book for kernels encoding errors as `codes` says.
    pub fn new(codes: ErrorCodes) -> Self {
        ErrorBook {
            codes,
            launches: HashMap::new(),
            seq: 0,
            slots: [0; RECORDS],
            reported: VecDeque::new(),
            mailbox: HashMap::new(),
        }
    }

    /// Numbers a launch that may record an error and remembers it; its number's low bits pick a
    /// free record. `Err(rec)` when every record is held by a launch not read yet: the caller
    /// synchronises (reading the records, [`ErrorBook::settle`]) and asks again.
    #[allow(clippy::result_large_err)]
    pub fn number(&mut self, rec: LaunchRecord) -> Result<u32, LaunchRecord> {
        let Some(slot) = self.slots.iter().position(|&l| l == 0) else {
            return Err(rec);
        };
        let rounds = u32::MAX / RECORDS as u32;
        self.seq = self.seq % (rounds - 1) + 1;
        let id = self.seq * RECORDS as u32 + slot as u32;
        self.slots[slot] = id;
        self.launches.insert(id, rec);
        Ok(id)
    }

    /// Notes that launch `id` is carried by submission `batch`.
    pub fn set_batch(&mut self, id: u32, batch: u64) {
        if let Some(r) = self.launches.get_mut(&id) {
            r.batch = batch;
        }
    }

    /// Settles a synchronisation. `words`: the records, read back after every submission up to
    /// `covered` completed (`None` when they were not read); a new failure there goes to the
    /// mailbox of the thread that launched the kernel (its first one stays), and `clear(record)`
    /// is called to clear that record on the device. Then the launches of the submissions up to
    /// `covered` are complete and read: they are forgotten and their records freed.
    pub fn settle(&mut self, words: Option<&[u32]>, covered: u64, mut clear: impl FnMut(usize)) {
        let me = std::thread::current().id();
        // In launch order, so that a thread with several failed launches gets its first.
        let mut new: Vec<&[u32]> = words
            .unwrap_or_default()
            .chunks_exact(RECORD_WORDS)
            .filter(|r| r[0] != 0 && !self.reported.contains(&r[1]))
            .collect();
        new.sort_by_key(|r| r[1]);
        for r in new {
            clear(r[1] as usize % RECORDS);
            let rec = self.launches.get(&r[1]);
            let owner = rec.map_or(me, |x| x.thread);
            let err = describe(self.codes, rec, r);
            self.mailbox.entry(owner).or_insert(err);
            self.reported.push_back(r[1]);
            if self.reported.len() > 4 * RECORDS {
                self.reported.pop_front();
            }
        }
        let ErrorBook {
            launches, slots, ..
        } = self;
        launches.retain(|&id, r| {
            let keep = r.batch > covered;
            if !keep && slots[id as usize % RECORDS] == id {
                slots[id as usize % RECORDS] = 0;
            }
            keep
        });
    }

    /// The calling thread's mailbox: its first unreported failure, taken out.
    pub fn take_mine(&mut self) -> Result<(), Error> {
        match self.mailbox.remove(&std::thread::current().id()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The records in `bytes` as words, or none when no record is set (the common case: only the
/// flag of each is read).
pub fn error_words(bytes: &[u8]) -> Vec<u32> {
    let word =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    if (0..bytes.len() / (RECORD_WORDS * 4)).all(|k| word(k * RECORD_WORDS * 4) == 0) {
        return Vec::new();
    }
    (0..bytes.len() / 4).map(|k| word(k * 4)).collect()
}

/// The error of record `w` (flag, launch, code, rank, index words) left by the launch `rec`.
fn describe(codes: ErrorCodes, rec: Option<&LaunchRecord>, w: &[u32]) -> Error {
    let (code, rank) = (w[2], (w[3] as usize).min(8));
    let index: Vec<u64> = (0..rank)
        .map(|d| w[4 + 2 * d] as u64 | ((w[5 + 2 * d] as u64) << 32))
        .collect();
    if let Some(e) = rec.and_then(|r| (codes.decode)(&r.ir.name, code, &index)) {
        return e;
    }
    let (kernel, view, extents) = match rec {
        Some(r) if (code as usize) < r.views.len() => (
            r.ir.name.clone(),
            r.views[code as usize].0.clone(),
            tuple(&r.views[code as usize].1),
        ),
        Some(r)
            if code >= codes.table_code
                && ((code - codes.table_code) as usize) < r.ir.tables.len() =>
        {
            let t = &r.ir.tables[(code - codes.table_code) as usize];
            (
                r.ir.name.clone(),
                format!("constant table `{}`", t.name),
                tuple(&[t.values.len()]),
            )
        }
        Some(r) if code >= codes.array_code => {
            let l = (code - codes.array_code) as usize;
            (
                r.ir.name.clone(),
                format!(
                    "local array `{}`",
                    r.ir.locals
                        .get(l)
                        .map(|d| d.name.clone())
                        .unwrap_or_default()
                ),
                "(its length)".into(),
            )
        }
        _ => ("?".into(), "?".into(), "?".into()),
    };
    Error::OutOfBounds {
        kernel,
        view,
        index: tuple(&index),
        extents,
    }
}

/// `(a, b, c)`: indices and extents as the host backends' messages print them.
fn tuple<T: std::fmt::Display>(xs: &[T]) -> String {
    let parts: Vec<String> = xs.iter().map(|x| x.to_string()).collect();
    format!("({})", parts.join(", "))
}
