//! # rokkos: the Kokkos programming model for Rust
//!
//! Write a kernel once, in Rust, over layout-generic multidimensional [`View`]s, and run it on the
//! serial, rayon (CPU threads), wgpu (GPUs through Vulkan, Metal and DX12) and CUDA (feature
//! `cuda`: NVIDIA GPUs, every pattern and policy) backends. A program is
//! written once against [`Device`], the execution space chosen when it starts: `ROKKOS_BACKEND`,
//! or the best backend compiled in and usable (CUDA with a GPU, driver and NVRTC, then wgpu when
//! it finds an adapter, then rayon, then serial). Its
//! Views ([`DeviceView`]) live in the device's memory and are reached from the host through
//! mirrors, as in Kokkos, so the program below runs unchanged on a GPU or on the CPU:
//!
//! ```
//! use rokkos::prelude::*;
//!
//! #[kernel]
//! fn axpy(i: usize, y: ViewMut<f64>, x: View<f64>, a: f64) {
//!     y[i] = a * x[i] + y[i];
//! }
//! #[kernel]
//! fn dot(i: usize, acc: &mut f64, x: View<f64>, y: View<f64>) {
//!     *acc += x[i] * y[i];
//! }
//!
//! fn main() -> rokkos::Result<()> {
//!     let dev = Device::new()?;
//!     let n = 1000;
//!     let x = create_mirror_view_and_copy_in(&dev, &View::<f64>::from_fn("x", [n], |[i]| i as f64)?)?;
//!     let y = DeviceView::<f64>::new_on(&dev, "y", [n])?;
//!     y.fill(1.0)?;
//!     parallel_for("axpy", RangePolicy::new(&dev, 0..n), axpy(&y, &x, 2.0))?;
//!     let s: f64 = parallel_reduce("dot", RangePolicy::new(&dev, 0..n), dot(&y, &x), Sum)?;
//!     let expect: f64 = (0..n).map(|i| (2.0 * i as f64 + 1.0) * i as f64).sum();
//!     assert!((s - expect).abs() < 1e-9 * expect);
//!     let hy = create_mirror_view_and_copy(&y)?; // a copy from a GPU; on the CPU, `y`'s own memory
//!     assert_eq!(hy.get(3), 7.0);
//!     Ok(())
//! }
//! ```
//!
//! The statically typed spaces ([`Serial`], `Rayon`, `Wgpu`) stay for code that wants no run-time
//! dispatch: Views typed by their memory space, and [`DefaultExecutionSpace`], the default host
//! space, whose Views host code indexes directly (`View::new`, `get`, `host()`). A cargo feature
//! compiles each backend in (`rayon` by default, `wgpu`, `cuda`), and `ndarray` adds zero-copy
//! conversions between host Views and `ndarray` arrays. The guide (`docs/guide.md`) maps every
//! Kokkos construct to its rokkos spelling; [`random`] has Kokkos-style random numbers for kernels.
//!
//! ## Soundness
//!
//! Safe code cannot cause undefined behaviour or a data race through rokkos, on any backend. The
//! mechanisms, each with its limits:
//!
//! 1. **Owner computes** (checked at compile time by [`#[kernel]`](macro@kernel)): a plain read or
//!    write of a writable View (`ViewMut`) must use an index that contains the work item's own
//!    index, e.g. `a[i]`, `a[(i, k)]` under a range over `i`, `b[(j, i)]` under an MDRange over
//!    `(i, j)`, or the league rank plus the nested range indices in a team kernel. Distinct work
//!    items therefore touch distinct elements, because every View's strides are injective
//!    ([`View::new_strided`] checks that; the other constructors make contiguous strides). A
//!    writable View used with atomics must be accessed only atomically in that kernel. Anything
//!    else is a compile error unless it sits in an `unsafe { }` block, where the kernel's author
//!    promises that concurrent work items access disjoint elements. Reads of read-only Views are
//!    free. The macro turns each owned access into a call of an `unsafe fn` of the accessor
//!    (`WriteAccess::__store` and friends) inside an `unsafe` block it generates with its own span,
//!    so lints such as `unsafe_code` on the user's crate see only the author's own `unsafe`.
//!
//!    **Names** are what these checks (and the IR translation) compare, so a name must mean one
//!    binding to them and to rustc. Raw identifiers (`r#i`) are refused. A kernel or `#[func]` in
//!    which a local name or loop label is spelled in two `macro_rules!` expansions (which rustc's
//!    hygiene keeps apart: the caller's `$w` and the macro's own `i`) does not compile: hidden
//!    items beside it bind each pair of occurrences so that rustc itself refuses a pair from two
//!    contexts; two parameters spelled alike are refused outright. The reducer of a nested team
//!    reduction is typed as rokkos' own (`Sum` ..., which the IR joins by name), and a `#[func]`
//!    call reaches the host function and its IR through one item, the hidden type of the
//!    function's own name, which an `unsafe` trait ties to the one `#[func]` expansion (a glob
//!    import and an explicit one can no longer pick a host function and a device function from
//!    two modules). *Limit*: a function imported by name that is *not* a `#[func]`, while a glob
//!    import brings a `#[func]` of that name, is not called: the `#[func]` is, on every backend.
//!    A name a kernel rebinds to team or thread scratch is that scratch View from then on for
//!    every rule: an `InjectiveView` or `DisjointRanges` parameter of the same name no longer
//!    owns writes through lookups in it, nor counts as read-only for the loop hoisting below.
//!
//!    **Team kernels** (checked at compile time by `#[kernel]`, with the same rules the IR
//!    validator checks at launch: one implementation, the `rokkos-rules` crate): a write to a
//!    writable View or team scratch belongs to one thread of the team (inside `single_team`, or at
//!    an index holding the enclosing `thread_range` / `team_vector_range` index or the team rank);
//!    two accesses to one element of team-shared memory (team scratch, the team's elements of
//!    writable Views), one a write, that different threads may run need a `team_barrier` between
//!    them; barriers and team-wide constructs are reached by every thread with the same bounds
//!    (loads of read-only Views at uniform indices count as uniform). Vector lanes behave as if run
//!    in order: a backend runs them in parallel only when that gives the same result. An
//!    `unsafe { }` block in a kernel exempts its accesses from these rules and from owner computes,
//!    and stays a real `unsafe` block with the author's own token, so `#![forbid(unsafe_code)]`
//!    refuses it. *Limit*: the ordering rules are conservative (two separate thread ranges, or a
//!    range re-run in a loop without a barrier, count as possibly different threads), since Kokkos
//!    promises no fixed mapping of indices to threads.
//!
//! 2. **Launch checks, held until the launch is done** (run time, `Err(Aliasing)`): before a
//!    kernel runs, a writable View argument may not overlap (by byte range) any other argument, and
//!    no argument's allocation may be borrowed by a live host guard or another launch. The launch
//!    then *holds* every argument allocation, exclusively when the kernel writes it (or a
//!    [`parallel_reduce_into`] result lives in it) and shared otherwise, until the backend has
//!    returned: a [`View::host`] / [`View::host_mut`] guard, [`View::get`] / [`View::set`],
//!    [`deep_copy`], [`fill`] or another launch that would touch the allocation in a conflicting
//!    way is refused meanwhile (guards and `get`/`set` panic like `RefCell`; copies and launches
//!    answer `Err(Aliasing)`). One allocation may be passed as a writable subview and a disjoint
//!    read-only subview of it: the hold is per allocation, the overlap check per byte range.
//!    Backends receive the launch as a [`Launch`] token that only rokkos makes (after validating
//!    the policy against the space's limits and checking the arguments), typed with the space's own
//!    policy type: the [`ExecutionSpace`] pattern methods cannot be called directly, with an
//!    unvalidated policy, or with a token made for another space. A token is neither `Clone` nor
//!    `Copy`. A [`parallel_reduce_into`] result is written once, through a [`ResultSlot`] that
//!    `write` consumes, and may not overlap any argument of the kernel (`Err(Aliasing)`), so that
//!    write never races with the kernel.
//!    *Limit*: a device launch is asynchronous; its hold covers the submission, and the device queue
//!    orders later copies after it.
//!
//! 3. **Host backends run each work item at most once at a time**: a native body comes only from
//!    a token ([`Launch::for_body`] and siblings), for a space that implements the `unsafe` trait
//!    [`HostBackend`], whose implementor promises exactly that ([`Serial`] and `Rayon` do), over
//!    memory that is [`HostAccessible`]. Together with owner computes this is the whole
//!    race-freedom argument for plain accesses.
//!
//!    **The run-time space** [`Device`] is neither, and neither is an [`ExecutionSpace`] a user
//!    writes (a safe trait): their pattern methods hand each launch to another space through
//!    [`Launch::delegate`], which consumes the token, validates the policy again against that
//!    space's own limits, checks that every View argument's buffer projects onto that space's
//!    memory (the `unsafe` trait [`ProjectMemory`]: a projection is the buffer's own storage, so
//!    the aliasing checks and the hold cover exactly what the backend receives; a View of another
//!    backend is `Err(InvalidArgument)`), and then calls that space's pattern method itself, named
//!    by a sealed value (`delegate::For`, `Reduce`, `ReduceInto`, `Scan`), with a token for the
//!    same hold. The delegated token never passes through the delegating space's code, so a token
//!    of a [`HostBackend`] space, and any native body made from it, is only held by that space's
//!    own pattern method, called by rokkos, once per launch. A native body therefore still runs
//!    only over host memory, by a [`HostBackend`], each work item at most once at a time.
//!    *Limit*: a delegating space chooses the policy it delegates with (of the same work kind), so
//!    it may run other work items than its caller asked for; each still runs once, bounds checked.
//!
//! 4. **Bounds and sizes**: every View access inside a kernel is bounds checked (range kernels check
//!    the accesses at the bare work index once per chunk instead of once per element, and an
//!    innermost loop over a range checks the accesses its index moves once before it runs, with
//!    the names fixed meanwhile: those bound outside the loop and the leading `let`s of its body
//!    that are the same in every iteration, such as `let row = rows[l] as usize;` read from a
//!    read-only View; those `let`s are then evaluated once, before the loop, when it runs). A failed
//!    check, like any other failure of a running kernel, is an `Err` of the launch:
//!    `Err(OutOfBounds)` naming the kernel, the View, the index and the extents, or
//!    `Err(KernelFailed)` (division by zero, overflow in builds that check it, a non-positive loop
//!    step, scratch beyond the policy's reservation, a panic in a reducer the launch calls). Every
//!    size product is checked or saturating: View constructors refuse element counts, spans and
//!    byte sizes that overflow (`Err(OutOfMemory)`), subview ranges (inclusive ends up to
//!    `usize::MAX` included) are checked (`Err(ShapeMismatch)`), team scratch requests whose element
//!    count or bytes overflow are scratch beyond the reservation, and [`scratch_size`] saturates.
//!    View shapes whose non-zero extents multiply past `isize::MAX` are `Err(OutOfMemory)`, even
//!    when another extent is 0. Counter-based random draws ([`random`]) take the whole range of
//!    their draw number: distinct numbers are distinct Philox counters, with no product that wraps.
//!    *Limit*: host code outside kernels keeps Rust's conventions (indexing panics like slices,
//!    guard conflicts like `RefCell`), and a build with `panic = "abort"` aborts on a failing host
//!    kernel instead of returning `Err`.
//!
//!    **Device launches are bounded.** A launch on a device backend (wgpu, CUDA) runs at most
//!    2^40 range indices or MDRange points (`rokkos_device::runtime::limits::ITEMS_MAX`) and at most
//!    2^31 - 1 teams (`LEAGUE_MAX`), and no device thread or team in flight runs more than 2^24 of
//!    them one after another (`TRIPS_MAX`: the backends size their grids for it and refuse a team
//!    launch whose level-1 scratch leaves too few teams in flight). A policy past these is
//!    `Err(InvalidPolicy)` naming the limit, before anything is compiled or launched, so every
//!    accepted launch finishes in bounded time and the fence after it returns. Every loop the GPU
//!    backends generate reads the launch's error record between trips and leaves once a failure
//!    is recorded (uniformly, through workgroup or shared memory, where the loop holds barriers),
//!    so a launch whose first item fails returns its `Err` after about one trip per thread in
//!    flight. *Limit*: loops written in the kernel body (`for`, `while`, nested team ranges) run
//!    to their end, and work before a late failure still runs.
//!
//!    **Allocations exist or are refused.** A View's allocation on a device either exists, every
//!    buffer of it, or is `Err(OutOfMemory { label, bytes })` at once. wgpu counts the bytes each
//!    device's Views hold and refuses, before making any buffer, an allocation past the adapter's
//!    memory (`Wgpu::device_memory`: the largest device-local Vulkan heap, or the host's physical
//!    memory for a CPU adapter such as lavapipe); it asks wgpu to refuse buffers past the driver's
//!    memory budget, and makes each buffer of a View larger than one buffer under error scopes,
//!    destroying those already made at the first refusal. CUDA refuses sizes past the device's
//!    total memory and reports the driver's out-of-memory as `Err(OutOfMemory)`. *Limit*: where
//!    wgpu reports no memory size (Metal, DX12, OpenGL) only the driver refuses; memory other
//!    processes take is seen only through the driver's budget; launches' short-lived buffers
//!    (partials, staging, level-1 scratch) are not counted.
//!
//! 5. **Handles across threads**: a `View` handle is `Send` and `Sync` (for `Send`/`Sync` element
//!    types and memory spaces). Every host access claims the allocation's borrow flag, an atomic,
//!    with one read-modify-write before touching memory: guards ([`View::host`],
//!    [`View::host_mut`], [`View::try_host`], [`View::try_host_mut`]) for their lifetime,
//!    [`View::get`] / [`View::set`] for the one access, `deep_copy` / `fill` for the copy, and a
//!    launch for its whole duration. A guard on one thread and a launch on another therefore
//!    exclude each other: whichever claims the flag first wins; the other panics like `RefCell`
//!    (`host()`, `get`), answers `Err(Aliasing)` (`try_host`, launches, copies). A guard leaked
//!    with `std::mem::forget` keeps its allocation borrowed for good (launches on it then answer
//!    `Err(Aliasing)`): never unsound. A host mirror of a [`Device`] View on serial or rayon
//!    ([`create_mirror_view`]) is a host View of the same memory that shares its allocation's
//!    borrow flag, so guards on one and launches or copies on the other exclude each other as on
//!    one View. *Profiling hooks* are user code and run with no lock of rokkos held (each event
//!    calls a snapshot of the registered hooks; `deep_copy` reports before it holds its Views), so
//!    a hook may register or unregister hooks, allocate, copy or launch.
//!
//! 6. **What backends take on trust is rokkos' own to say**: device backends join partial results
//!    by [`Reducer::describe`], and rayon regroups and reorders joins when [`Reducer::commutative`]
//!    says so; both take a last parameter of a type private to rokkos-core, so only rokkos'
//!    reducers (the built-ins and tuples of them) answer anything but "host join, in order", and
//!    every other reducer, a user's own `Reducer` impl included, is joined with its own `join`, in
//!    iteration order, on every backend (the path [`Custom`] documents). [`Scalar`] and [`Bits`]
//!    (whose operations the built-in reducers' descriptions stand for), [`AccValue`] (the IR layout
//!    of accumulators that device backends read back), [`IntoNestedRange`] / [`NestedIndices`]
//!    (whose `first_last` the kernel macro's hoisted bounds check trusts), [`Layout`] and
//!    [`Policy`] are sealed; [`Float`] is too, through the IR's sealed scalar traits. Calls into
//!    other crates' `unsafe` APIs keep their documented preconditions, each tested: ndarray's
//!    `ArrayView(Mut)::from_shape_ptr` (never-used strides become 0, so all are non-negative;
//!    offsets and the product of non-zero extents within `isize::MAX`; a mutable view's strides
//!    injective), std's `alloc_zeroed` / `dealloc`, `slice::from_raw_parts(_mut)` (non-null,
//!    aligned, at most `isize::MAX` bytes), `Atomic*::from_ptr` (a build error where an element
//!    type is less aligned than its atomic twin) and `Box::from_raw`. *Limit*: a user reducer's
//!    `init` must be an identity and its `join` associative (as for [`Custom`]); otherwise its
//!    result depends on the partition, which differs between backends.
//!
//! **What is `unsafe` in the public API, and why** (everything else a user can call is safe
//! because it is checked): the `unsafe` trait [`HostBackend`] (run each work item at most once at a
//! time), the `unsafe` trait [`HostAccessible`] (a memory space whose host pointer is valid for
//! its whole allocation: Views dereference it after an index check only), the `unsafe` trait
//! [`ProjectMemory`] (a run-time space's buffer projects onto its own storage in a backend's
//! memory), the `unsafe` trait [`AtomicScalar`] (really atomic operations), [`MemorySpace`]'s
//! `read_bytes` / `write_bytes` / `copy_bytes` (raw copies into memory a host guard may have lent
//! out as `&T`: callers hold the allocation, as `deep_copy` does), [`TeamMember::new`] (a backend
//! keeps the member and its scratch on one thread, one team at a time), [`HostStorage::new`] (a
//! memory space's buffer is, itself, that host buffer: what lets a host mirror alias it), the
//! `#[doc(hidden)]` trait `FuncMarker` (a `#[func]`'s host function and its IR are one function:
//! only `#[func]`'s expansion implements it), and the `#[doc(hidden)]`
//! items `#[kernel]`'s expansion calls: `View::__read_access` / `__write_access` (accessors
//! without a launch's checks), `ReadAccess::new` / `WriteAccess::new` (raw pointers),
//! `WriteAccess::__load` / `__store` (plain accesses: the owner-computes proof),
//! `__get_unchecked` / `__load_unchecked` / `__store_unchecked` (no bounds check), the kernel
//! traits' `bind` (a native body without a launch; rokkos calls it from the token only) and
//! `__call_unchecked` (after the chunk's bounds check). Sealed instead of `unsafe`: [`Layout`]
//! (its offsets are trusted), [`Policy`], `delegate::DelegatePattern` (what a delegated token is
//! handed to), [`Scalar`] / [`Bits`], [`AccValue`], [`IntoNestedRange`] / [`NestedIndices`], and
//! the methods [`Reducer::describe`] / [`Reducer::commutative`] (see 6). Private: the
//! check-and-hold step itself, the launch token's constructor, [`ResultSlot`]'s constructor, the
//! borrow flag, `ScratchArena`'s reset, and the seal values of `Reducer::describe` /
//! `commutative` and of `DelegatePattern`. Safe because checked: [`HostBuffer::from_owner`] (its bytes come from an
//! exclusive `AsMut` borrow of an owner the buffer keeps until it is dropped) and a space's
//! `allocate_mirror` (a mirror View refuses memory that is too short or misaligned).
//!
//! None of this costs the native path its speed: owned accesses compile to plain loads and stores,
//! the hold is taken once per launch, and catching a failing kernel costs nothing until one fails.

#![warn(missing_docs)]

// `#[func]`s defined in this crate (`random`) name it `::rokkos`, as user code does.
extern crate self as rokkos;

mod backend;
mod device_space;
pub mod random;

pub use backend::{
    available_backends, run_on, run_on_selected, selected_backend, DefaultExecutionSpace,
    SpaceVisitor, KNOWN_BACKENDS,
};
pub use device_space::{Device, DeviceBuffer, DeviceMemory, DeviceView, HostView};
pub use rokkos_core::*;
/// The CUDA backend (feature `cuda`): the execution space [`Cuda`], device memory, streams,
/// NVRTC.
#[cfg(feature = "cuda")]
pub use rokkos_cuda as cuda;
#[cfg(feature = "cuda")]
pub use rokkos_cuda::{Cuda, CudaSpace};
pub use rokkos_macros::{func, kernel};
/// Views as MPI buffers, distributed reductions and halo exchange over MPI (the crate
/// `rokkos-mpi`; feature `mpi`).
#[cfg(feature = "mpi")]
pub use rokkos_mpi as mpi;
#[cfg(feature = "rayon")]
pub use rokkos_rayon::Rayon;
pub use rokkos_serial::Serial;
#[cfg(feature = "wgpu")]
pub use rokkos_wgpu::{
    adapters as wgpu_adapters, AdapterSummary as WgpuAdapter, Wgpu, WgpuSpace,
    HIDE_ENV as WGPU_HIDE_ENV,
};

/// Everything a kernel author usually needs.
pub mod prelude {
    #[cfg(feature = "rayon")]
    pub use crate::Rayon;
    pub use crate::{
        create_mirror, create_mirror_in, create_mirror_view, create_mirror_view_and_copy,
        create_mirror_view_and_copy_in, create_mirror_view_in, deep_copy, deep_copy_on, fill,
        fill_on, func, kernel, parallel_for, parallel_reduce, parallel_reduce_into, parallel_scan,
        parallel_scan_into, parallel_scan_with, parallel_scan_with_into, scratch_size, BAnd, BOr,
        Custom, DefaultExecutionSpace, Device, DeviceMemory, DeviceView, DisjointRanges, Error,
        ExecutionSpace, Float, HostSpace, HostView, InjectiveView, Iterate, LAnd, LOr, Layout,
        LayoutKind, LayoutLeft, LayoutRight, LayoutStride, MDRangePolicy, Max, MaxLoc, Min, MinLoc,
        MinMax, MinMaxLoc, MinMaxLocVal, MinMaxVal, Pod, Prod, RangePolicy, ReducerExt, Schedule,
        Serial, SliceArg, Sum, TeamMember, TeamPattern, TeamPolicy, TeamSize, ValLoc, View,
    };
}

/// The README's examples, run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The guide's examples, run as doctests.
#[doc = include_str!("../docs/guide.md")]
#[cfg(doctest)]
pub struct GuideDoctests;

/// Items the code generated by `#[kernel]` refers to. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use rokkos_core::kernel::{
        func_marker, ForBody, ForKernel, FuncMarker, Kernel, KernelArg, KernelIr, MDWork,
        RangeWork, ReduceBody, ReduceKernel, ScanBody, ScanKernel, TeamWork, ViewArg, ViewBinding,
        WorkKind,
    };
    pub use rokkos_core::kernel_math;
    pub use rokkos_core::{
        BAnd, BOr, DisjointRanges, InjectiveView, LAnd, LOr, Layout, LayoutRight, Max, MemorySpace,
        Min, Pod, Prod, ReadAccess, Sum, TeamMember, View, WriteAccess,
    };
}
