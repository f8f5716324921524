//! The launch token: what core hands an execution space, and the only way to reach one.
//!
//! A [`Launch`] is created only here, by `crate::pattern`, after the policy passed its
//! `validate` (against the space's limits) and the kernel's View arguments passed the aliasing
//! checks. It borrows an `ArgHold`, which holds every argument allocation's borrow flag
//! (`crate::borrow`) for the whole launch: exclusively when the kernel may write the allocation
//! (or a `parallel_reduce_into` result lives in it), shared otherwise. While a launch is in
//! progress no `host()` / `host_mut()` guard, `set`, `deep_copy`, `fill` or other launch can
//! touch what the kernel reads or writes, so what the checks found stays true until the backend
//! returns. The hold is released when the launch call returns, whether it succeeded, failed or
//! unwound.
//! Once every hold is taken, the access watch of each argument allocation that has one
//! (`crate::watch`) is asked whether the launch may proceed, and told when it does.
//!
//! The token is typed by the policy of the space it was made for (`Launch<'_, RangePolicy<E>, K>`
//! reaches `E` only), so an execution space cannot hand it to another one, except through
//! [`Launch::delegate`] (`crate::delegate`), which validates the policy built for the other space
//! against that space's limits, projects the kernel's buffers onto its memory and calls that
//! space's pattern method itself with a token keeping this one's hold. The token is neither
//! `Clone` nor `Copy`, and `delegate` consumes it, so one launch has one token at a time, and a
//! token for a [`HostBackend`] space's policy only ever reaches that space's own pattern method
//! (from `crate::pattern` or from `delegate`), never user code. Host backends turn it into the
//! kernel's native body with [`Launch::for_body`], [`Launch::reduce_body`] or
//! [`Launch::scan_body`], which exist for spaces that implement the `unsafe` marker
//! [`HostBackend`] over host-accessible memory.

use crate::borrow::{BorrowFlag, Hold};
use crate::error::{Error, Result};
use crate::kernel::{ForKernel, Kernel, ReduceKernel, ScanKernel};
use crate::policy::Policy;
use crate::space::{HostAccessible, HostBackend};
use crate::view::ResultArg;
use crate::watch::{Access, AccessKind, WatchRef};

/// How many View arguments a launch checks and holds without a heap allocation (this runs once
/// per launch; more arguments spill into a `Vec`).
const FEW: usize = 4;

/// What the checks need of one View argument: its allocation (by its borrow flag), the bytes it
/// can touch, and whether the kernel writes through it. `flag` is `None` only in unused slots.
#[derive(Clone, Copy, Default)]
struct Arg<'v> {
    flag: Option<&'v BorrowFlag>,
    bytes: (usize, usize),
    writable: bool,
    param: &'static str,
    label: &'v str,
    watch: Option<WatchRef<'v>>,
}

impl Arg<'_> {
    fn same_allocation(&self, other: &Arg<'_>) -> bool {
        match (self.flag, other.flag) {
            (Some(a), Some(b)) => std::ptr::eq(a, b),
            _ => false,
        }
    }
    fn is(&self, flag: &BorrowFlag) -> bool {
        self.flag.is_some_and(|f| std::ptr::eq(f, flag))
    }
}

/// Every argument allocation of one launch, held for as long as the launch runs.
pub(crate) struct ArgHold<'v> {
    // One hold per distinct allocation (plus the result's, when it is not an argument's): the
    // first `FEW` inline, the rest in `_more`.
    _held: [Option<Hold<'v>>; FEW],
    _more: Vec<Hold<'v>>,
}

/// `Err(Aliasing)` for kernel `K`, naming its View arguments `i` and `j` (`j` optional) by parameter
/// and label: looked up again only on this cold path, so the checks carry no strings.
#[cold]
fn conflict<K: Kernel>(kernel: &K, i: usize, j: Option<usize>) -> Error {
    let mut args = Vec::new();
    kernel.visit_views(&mut |a| args.push((a.param, a.label.to_string())));
    // `visit_views` reports the same arguments every time; a kernel value that does not still
    // gets its error, with less detail.
    let name = |k: usize| args.get(k).cloned().unwrap_or(("?", "?".to_string()));
    let (pa, la) = name(i);
    let reason = match j {
        Some(j) => {
            let (pb, lb) = name(j);
            format!(
                "parameters `{pa}` (View `{la}`) and `{pb}` (View `{lb}`) overlap in memory and one of them is written; \
                 pass the View once as a writable parameter instead"
            )
        }
        None => format!(
            "View `{la}` (parameter `{pa}`) is borrowed on the host by a live host()/host_mut() guard \
             (or by a launch in progress)"
        ),
    };
    Error::Aliasing {
        kernel: K::NAME.to_string(),
        reason,
    }
}

impl<'v> ArgHold<'v> {
    /// Holds nothing yet.
    pub(crate) fn new() -> Self {
        ArgHold {
            _held: [const { None }; FEW],
            _more: Vec::new(),
        }
    }

    /// Checks `kernel`'s View arguments and holds their allocations (and the allocation of
    /// `result`, exclusively): `Err(Aliasing)` when a writable argument overlaps another argument
    /// byte range, or an allocation is borrowed by a live host guard or another launch, and the
    /// error of an argument's access watch that refuses the launch (`crate::watch`). Filled in
    /// place (this runs once per launch; moving the holds around costs time); after an `Err`, the
    /// holds taken so far are released when `self` is dropped, before any kernel runs.
    pub(crate) fn acquire<K: Kernel>(
        &mut self,
        kernel: &'v K,
        result: Option<ResultArg<'v>>,
    ) -> Result<()> {
        let mut inline = [Arg::default(); FEW];
        let mut spill: Vec<Arg<'v>> = Vec::new();
        let mut n = 0;
        kernel.visit_views(&mut |a| {
            let arg = Arg {
                flag: Some(a.borrow),
                bytes: a.bytes,
                writable: a.writable,
                param: a.param,
                label: a.label,
                watch: a.watch,
            };
            if n < FEW {
                inline[n] = arg;
            } else {
                if spill.is_empty() {
                    spill.extend_from_slice(&inline);
                }
                spill.push(arg);
            }
            n += 1;
        });
        let args: &[Arg<'v>] = if n <= FEW { &inline[..n] } else { &spill };

        for (i, a) in args.iter().enumerate() {
            for (j, b) in args.iter().enumerate().skip(i + 1) {
                let overlap =
                    a.same_allocation(b) && a.bytes.0 < b.bytes.1 && b.bytes.0 < a.bytes.1;
                if overlap && (a.writable || b.writable) {
                    return Err(conflict(kernel, i, Some(j)));
                }
            }
        }
        // The result element is written (by the space, once, through its `ResultSlot`), so like
        // a writable argument it may not overlap any argument: then nothing the kernel reaches is
        // ever the slot's bytes, whenever the slot is written.
        if let Some(r) = result {
            let hit = args
                .iter()
                .position(|a| a.is(r.borrow) && a.bytes.0 < r.bytes.1 && r.bytes.0 < a.bytes.1);
            if let Some(i) = hit {
                let mut params = Vec::new();
                kernel.visit_views(&mut |a| params.push(a.param));
                return Err(Error::Aliasing {
                    kernel: K::NAME.to_string(),
                    reason: format!(
                        "the result View `{}` of parallel_reduce_into overlaps parameter `{}` in memory; \
                         store the result in a View the kernel does not take",
                        r.label,
                        params.get(i).copied().unwrap_or("?")
                    ),
                });
            }
        }

        let mut taken = 0;
        let mut keep = |h: Hold<'v>| {
            match self._held.get_mut(taken) {
                Some(slot) => *slot = Some(h),
                None => self._more.push(h),
            }
            taken += 1;
        };
        for (i, a) in args.iter().enumerate() {
            let Some(flag) = a.flag else { continue };
            if args[..i].iter().any(|b| b.same_allocation(a)) {
                continue;
            }
            let exclusive = result.is_some_and(|r| a.is(r.borrow))
                || args[i..].iter().any(|b| b.same_allocation(a) && b.writable);
            match Hold::take(flag, exclusive) {
                Some(h) => keep(h),
                None if flag.is_read_only() => {
                    return Err(Error::Aliasing {
                        kernel: K::NAME.to_string(),
                        reason: format!(
                            "View `{}` (a writable parameter) {}",
                            a.label,
                            crate::view::READ_ONLY
                        ),
                    })
                }
                None => return Err(conflict(kernel, i, None)),
            }
        }
        if let Some(r) = result {
            if !args.iter().any(|a| a.is(r.borrow)) {
                let h = Hold::exclusive(r.borrow).ok_or_else(|| Error::Aliasing {
                    kernel: K::NAME.to_string(),
                    reason: format!(
                        "the result View `{}` is borrowed on the host by a host()/host_mut() guard \
                         (or by a launch in progress)",
                        r.label
                    ),
                })?;
                keep(h);
            }
        }
        watch_launch::<K>(args, result)
    }
}

/// Asks the watches of a launch's arguments (and result) whether it may run, then, when all
/// agree, commits it to each ([`crate::watch`]): after the holds are taken, so that nothing
/// touches the memory between the answer and the kernel, and before anything runs.
#[inline]
fn watch_launch<K: Kernel>(args: &[Arg<'_>], result: Option<ResultArg<'_>>) -> Result<()> {
    if args.iter().all(|a| a.watch.is_none()) && result.is_none_or(|r| r.watch.is_none()) {
        return Ok(());
    }
    watch_launch_cold::<K>(args, result)
}

#[cold]
#[inline(never)]
fn watch_launch_cold<K: Kernel>(args: &[Arg<'_>], result: Option<ResultArg<'_>>) -> Result<()> {
    let each = |commit: bool| -> Result<()> {
        let results = result
            .iter()
            .filter_map(|r| Some((r.watch?, "result", r.label, true)));
        let params = args
            .iter()
            .filter_map(|a| Some((a.watch?.0, a.param, a.label, a.writable)));
        for (w, param, label, write) in params.chain(results) {
            let access = Access {
                kind: AccessKind::Launch {
                    kernel: K::NAME,
                    param,
                },
                write,
                label,
            };
            if commit {
                w.commit(&access);
            } else {
                w.check(&access)?;
            }
        }
        Ok(())
    };
    each(false)?;
    each(true)
}

/// One launch of kernel `K` under policy `P`, as core hands it to an execution space: the label,
/// the validated policy, and the kernel whose arguments passed the aliasing checks and are held
/// until the launch call returns (see the module documentation).
///
/// Only core creates one (its fields are private and it has no public constructor), and only
/// for the space `P` names. It is neither `Clone` nor `Copy`: [`Launch::delegate`] consumes it.
pub struct Launch<'a, P, K> {
    label: &'a str,
    policy: &'a P,
    kernel: &'a K,
    // Borrowed, not owned: the hold outlives the token and every body made from it, and is
    // released by `crate::pattern` once the space's method has returned.
    _hold: &'a ArgHold<'a>,
}

impl<'a, P, K> Launch<'a, P, K> {
    /// Made by `crate::pattern` only, after `validate` and [`ArgHold::acquire`].
    pub(crate) fn new(label: &'a str, policy: &'a P, kernel: &'a K, hold: &'a ArgHold<'a>) -> Self {
        Launch {
            label,
            policy,
            kernel,
            _hold: hold,
        }
    }
    /// The token for the same launch (label and hold) with another policy and kernel value, in
    /// place of this one (consumed: a launch has one token at a time): for `Launch::delegate`
    /// only, which checks that they describe the same work on the arguments this launch holds.
    pub(crate) fn reissue<'b, P2, K2>(self, policy: &'b P2, kernel: &'b K2) -> Launch<'b, P2, K2>
    where
        'a: 'b,
    {
        Launch {
            label: self.label,
            policy,
            kernel,
            _hold: self._hold,
        }
    }
    /// The label of the parallel call.
    pub fn label(&self) -> &'a str {
        self.label
    }
    /// The policy, already validated against the space's limits.
    pub fn policy(&self) -> &'a P {
        self.policy
    }
    /// The kernel value (its IR and arguments, for device backends).
    pub fn kernel(&self) -> &'a K {
        self.kernel
    }
}

impl<P, K> std::fmt::Debug for Launch<'_, P, K>
where
    P: std::fmt::Debug,
    K: Kernel,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Launch")
            .field("label", &self.label)
            .field("policy", self.policy)
            .field("kernel", &K::NAME)
            .finish()
    }
}

impl<'a, P, K> Launch<'a, P, K>
where
    P: Policy,
    P::Space: HostBackend,
    K: Kernel,
    K::Space: HostAccessible,
{
    /// The native body of a `parallel_for` kernel, for a host backend to run.
    pub fn for_body(&self) -> <K as ForKernel<P::Work>>::Body<'a>
    where
        K: ForKernel<P::Work>,
    {
        // SAFETY: `K::Space` is host accessible; the arguments passed the aliasing checks and are
        // held until after the space's method returns, which every body made here cannot outlive
        // (`'a` borrows the hold); `P::Space: HostBackend` promises to run it as that trait says.
        unsafe { <K as ForKernel<P::Work>>::bind(self.kernel) }
    }
    /// The native body of a `parallel_reduce` kernel, for a host backend to run.
    pub fn reduce_body(&self) -> <K as ReduceKernel<P::Work>>::Body<'a>
    where
        K: ReduceKernel<P::Work>,
    {
        // SAFETY: as in `for_body`.
        unsafe { <K as ReduceKernel<P::Work>>::bind(self.kernel) }
    }
    /// The native body of a `parallel_scan` kernel, for a host backend to run.
    pub fn scan_body(&self) -> <K as ScanKernel<P::Work>>::Body<'a>
    where
        K: ScanKernel<P::Work>,
    {
        // SAFETY: as in `for_body`.
        unsafe { <K as ScanKernel<P::Work>>::bind(self.kernel) }
    }
    /// Runs `bind` (which makes the body: [`Launch::for_body`], [`Launch::reduce_body`] or
    /// [`Launch::scan_body`]) for a backend that runs every work item on the calling thread, one
    /// after the other: the body's atomic operations become plain read-modify-writes, with the
    /// same results (`crate::access`). The serial backend binds its bodies this way.
    ///
    /// # Safety
    /// The caller must call the body made here, and anything made from it, on the calling thread
    /// only, never while another call of it runs (no work item starts before the previous one
    /// has returned), and only while its pattern method runs.
    pub unsafe fn sequential<B>(&self, bind: impl FnOnce(&Self) -> B) -> B {
        // SAFETY: the caller's promise is the one `bind_sequential` asks for; nothing else can
        // access a writable argument's memory meanwhile, since the launch holds every writable
        // allocation exclusively until the pattern method returns.
        unsafe { crate::access::bind_sequential(|| bind(self)) }
    }
}
