//! The pattern methods of a device backend's `ExecutionSpace` impl, written once.
//!
//! Every device backend's pattern method does the same two things: check the policy against
//! what a device launch may run ([`super::limits`]) and hand the policy and kernel to the
//! backend's file of that (pattern, policy) — `for_range::run`, `reduce_team::run_into`, ... —
//! with the backend's runtime handle. [`device_launches!`](crate::device_launches) writes those
//! ten methods, so a new device backend writes only its runtime and its per-pattern files.

/// Writes the ten pattern methods of `ExecutionSpace` (`for_range` ... `scan_range`) inside a
/// device backend's `impl ExecutionSpace for S` block.
///
/// `memory` is the backend's memory space type and `runtime` the field of `self` that its
/// per-pattern functions take first. The backend must have, at the expansion site, modules
/// `for_range`, `for_mdrange`, `for_team`, `reduce_range`, `reduce_mdrange`, `reduce_team` and
/// `scan_range` with the `run` (and, for reductions, `run_into`) functions these methods call,
/// and the kernel traits and policy types in scope under their `rokkos_core` names (the
/// expansion spells them out, as the backend's own code would).
///
/// ```ignore
/// impl ExecutionSpace for Cuda {
///     type Memory = CudaSpace;
///     fn name(&self) -> &'static str { "cuda" }
///     // concurrency, fence, memory_space, team_limits ...
///     rokkos_device::device_launches!(memory = CudaSpace, runtime = inst);
/// }
/// ```
#[macro_export]
macro_rules! device_launches {
    (memory = $mem:ty, runtime = $rt:ident) => {
        fn for_range<K>(
            &self,
            l: $crate::__core::Launch<'_, $crate::__core::RangePolicy<Self>, K>,
        ) -> $crate::__core::Result<()>
        where
            K: $crate::__core::ForKernel<$crate::__core::RangeWork, Space = $mem>
                + $crate::__core::KernelIr,
        {
            $crate::runtime::limits::check_range(l.label(), l.policy())?;
            for_range::run(&self.$rt, l.policy(), l.kernel())
        }
        fn for_mdrange<const N: usize, K>(
            &self,
            l: $crate::__core::Launch<'_, $crate::__core::MDRangePolicy<Self, N>, K>,
        ) -> $crate::__core::Result<()>
        where
            K: $crate::__core::ForKernel<$crate::__core::MDWork<N>, Space = $mem>
                + $crate::__core::KernelIr,
        {
            $crate::runtime::limits::check_mdrange(l.label(), l.policy())?;
            for_mdrange::run(&self.$rt, l.label(), l.policy(), l.kernel())
        }
        fn for_team<K>(
            &self,
            l: $crate::__core::Launch<'_, $crate::__core::TeamPolicy<Self>, K>,
        ) -> $crate::__core::Result<()>
        where
            K: $crate::__core::ForKernel<$crate::__core::TeamWork, Space = $mem>
                + $crate::__core::KernelIr,
        {
            $crate::runtime::limits::check_team(l.label(), l.policy())?;
            for_team::run(&self.$rt, l.label(), l.policy(), l.kernel())
        }
        fn reduce_range<K, Rd>(
            &self,
            l: $crate::__core::Launch<'_, $crate::__core::RangePolicy<Self>, K>,
            reducer: &Rd,
        ) -> $crate::__core::Result<K::Value>
        where
            K: $crate::__core::ReduceKernel<$crate::__core::RangeWork, Space = $mem>
                + $crate::__core::KernelIr,
            Rd: $crate::__core::Reducer<K::Value>,
        {
            $crate::runtime::limits::check_range(l.label(), l.policy())?;
            reduce_range::run(&self.$rt, l.policy(), l.kernel(), reducer)
        }
        fn reduce_range_into<K, Rd>(
            &self,
            l: $crate::__core::Launch<'_, $crate::__core::RangePolicy<Self>, K>,
            reducer: &Rd,
            slot: $crate::__core::ResultSlot<'_, $mem>,
        ) -> $crate::__core::Result<()>
        where
            K: $crate::__core::ReduceKernel<$crate::__core::RangeWork, Space = $mem>
                + $crate::__core::KernelIr,
            K::Value: $crate::__core::Pod,
            Rd: $crate::__core::Reducer<K::Value>,
        {
            $crate::runtime::limits::check_range(l.label(), l.policy())?;
            reduce_range::run_into(&self.$rt, l.policy(), l.kernel(), reducer, slot)
        }
        fn reduce_mdrange<const N: usize, K, Rd>(
            &self,
            l: $crate::__core::Launch<'_, $crate::__core::MDRangePolicy<Self, N>, K>,
            reducer: &Rd,
        ) -> $crate::__core::Result<K::Value>
        where
            K: $crate::__core::ReduceKernel<$crate::__core::MDWork<N>, Space = $mem>
                + $crate::__core::KernelIr,
            Rd: $crate::__core::Reducer<K::Value>,
        {
            $crate::runtime::limits::check_mdrange(l.label(), l.policy())?;
            reduce_mdrange::run(&self.$rt, l.label(), l.policy(), l.kernel(), reducer)
        }
        fn reduce_mdrange_into<const N: usize, K, Rd>(
            &self,
            l: $crate::__core::Launch<'_, $crate::__core::MDRangePolicy<Self, N>, K>,
            reducer: &Rd,
            slot: $crate::__core::ResultSlot<'_, $mem>,
        ) -> $crate::__core::Result<()>
        where
            K: $crate::__core::ReduceKernel<$crate::__core::MDWork<N>, Space = $mem>
                + $crate::__core::KernelIr,
            K::Value: $crate::__core::Pod,
            Rd: $crate::__core::Reducer<K::Value>,
        {
            $crate::runtime::limits::check_mdrange(l.label(), l.policy())?;
            reduce_mdrange::run_into(&self.$rt, l.label(), l.policy(), l.kernel(), reducer, slot)
        }
        fn reduce_team<K, Rd>(
            &self,
            l: $crate::__core::Launch<'_, $crate::__core::TeamPolicy<Self>, K>,
            reducer: &Rd,
        ) -> $crate::__core::Result<K::Value>
        where
            K: $crate::__core::ReduceKernel<$crate::__core::TeamWork, Space = $mem>
                + $crate::__core::KernelIr,
            Rd: $crate::__core::Reducer<K::Value>,
        {
            $crate::runtime::limits::check_team(l.label(), l.policy())?;
            reduce_team::run(&self.$rt, l.label(), l.policy(), l.kernel(), reducer)
        }
        fn reduce_team_into<K, Rd>(
            &self,
            l: $crate::__core::Launch<'_, $crate::__core::TeamPolicy<Self>, K>,
            reducer: &Rd,
            slot: $crate::__core::ResultSlot<'_, $mem>,
        ) -> $crate::__core::Result<()>
        where
            K: $crate::__core::ReduceKernel<$crate::__core::TeamWork, Space = $mem>
                + $crate::__core::KernelIr,
            K::Value: $crate::__core::Pod,
            Rd: $crate::__core::Reducer<K::Value>,
        {
            $crate::runtime::limits::check_team(l.label(), l.policy())?;
            reduce_team::run_into(&self.$rt, l.label(), l.policy(), l.kernel(), reducer, slot)
        }
        fn scan_range<K, Rd>(
            &self,
            l: $crate::__core::Launch<'_, $crate::__core::RangePolicy<Self>, K>,
            reducer: &Rd,
        ) -> $crate::__core::Result<K::Value>
        where
            K: $crate::__core::ScanKernel<$crate::__core::RangeWork, Space = $mem>
                + $crate::__core::KernelIr,
            Rd: $crate::__core::Reducer<K::Value>,
        {
            $crate::runtime::limits::check_range(l.label(), l.policy())?;
            scan_range::run(&self.$rt, l.policy(), l.kernel(), reducer)
        }
    };
}
