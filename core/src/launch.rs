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
//!
//! The token is typed by the policy of the space it was made for (`Launch<'_, RangePolicy<E>, K>`
//! reaches `E` only), so an execution space cannot forward it to another one. Host backends turn it
//! into the kernel's native body with [`Launch::for_body`], [`Launch::reduce_body`] or
//! [`Launch::scan_body`], which exist for spaces that implement the `unsafe` marker
//! [`HostBackend`] over host-accessible memory.

use crate::borrow::Hold;
use crate::error::{Error, Result};
use crate::kernel::{ForKernel, Kernel, ReduceKernel, ScanKernel, ViewArg};
use crate::policy::Policy;
use crate::space::{HostAccessible, HostBackend};
use crate::view::ResultArg;

/// Every argument allocation of one launch, held for as long as the launch runs.
pub(crate) struct ArgHold<'v> {
    // One entry per View argument; the first argument of each allocation carries its hold.
    _args: Vec<(ViewArg<'v>, Option<Hold<'v>>)>,
    _result: Option<Hold<'v>>,
}

fn conflict(kernel: &str, reason: String) -> Error {
    Error::Aliasing {
        kernel: kernel.to_string(),
        reason,
    }
}

impl<'v> ArgHold<'v> {
    /// Checks `kernel`'s View arguments and holds their allocations (and the allocation of
    /// `result`, exclusively): `Err(Aliasing)` when a writable argument overlaps another argument
    /// byte range, or an allocation is borrowed by a live host guard or another launch. Nothing is
    /// held after an `Err`.
    pub(crate) fn acquire<K: Kernel>(kernel: &'v K, result: Option<ResultArg<'v>>) -> Result<Self> {
        let mut args: Vec<(ViewArg<'v>, Option<Hold<'v>>)> = Vec::new();
        kernel.visit_views(&mut |a| args.push((a, None)));
        for (i, (a, _)) in args.iter().enumerate() {
            for (b, _) in &args[i + 1..] {
                let overlap =
                    a.allocation == b.allocation && a.bytes.0 < b.bytes.1 && b.bytes.0 < a.bytes.1;
                if overlap && (a.writable || b.writable) {
                    return Err(conflict(
                        K::NAME,
                        format!(
                            "parameters `{}` (View `{}`) and `{}` (View `{}`) overlap in memory and one of them is written; \
                             pass the View once as a writable parameter instead",
                            a.param, a.label, b.param, b.label
                        ),
                    ));
                }
            }
        }
        let same = |x: &ViewArg<'_>, y: &ViewArg<'_>| std::ptr::eq(x.borrow, y.borrow);
        let is_result = |x: &ViewArg<'_>| result.is_some_and(|r| std::ptr::eq(r.borrow, x.borrow));
        for i in 0..args.len() {
            let a = args[i].0;
            if args[..i].iter().any(|(b, _)| same(b, &a)) {
                continue;
            }
            let exclusive =
                is_result(&a) || args[i..].iter().any(|(b, _)| same(b, &a) && b.writable);
            match Hold::take(a.borrow, exclusive) {
                Some(h) => args[i].1 = Some(h),
                None => {
                    return Err(conflict(
                        K::NAME,
                        format!(
                            "View `{}` (parameter `{}`) is borrowed on the host by a live host()/host_mut() guard \
                             (or by a launch in progress)",
                            a.label, a.param
                        ),
                    ))
                }
            }
        }
        let mut result_hold = None;
        if let Some(r) = result {
            if !args.iter().any(|(a, _)| std::ptr::eq(r.borrow, a.borrow)) {
                result_hold = Some(Hold::exclusive(r.borrow).ok_or_else(|| {
                    conflict(
                        K::NAME,
                        format!(
                            "the result View `{}` is borrowed on the host by a host()/host_mut() guard \
                             (or by a launch in progress)",
                            r.label
                        ),
                    )
                })?);
            }
        }
        Ok(ArgHold {
            _args: args,
            _result: result_hold,
        })
    }
}

/// One launch of kernel `K` under policy `P`, as core hands it to an execution space: the label,
/// the validated policy, and the kernel whose arguments passed the aliasing checks and are held
/// until the launch call returns (see the module documentation).
///
/// Only core creates one (its fields are private and it has no public constructor), and only
/// for the space `P` names.
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
}
