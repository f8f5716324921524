//! `#[rokkos::kernel]` and `#[rokkos::func]`: the procedural macros of rokkos.
//!
//! The user-facing documentation lives on the two attributes below (the `rokkos` facade re-exports
//! them). The crate is organised like a small compiler:
//!
//! * `parse`: the kernel signature model (`parse::signature`), the accepted-subset check
//!   (`parse::subset`) and the owner-computes soundness check (`parse::ownership`);
//! * `native`: the host code generator: body rewriting (`native::rewrite`) and the generated items
//!   (`native::generate`);
//! * `ir`: the device generator: the same body replayed against `rokkos::ir::build`, recording
//!   the kernel IR (`ir::generate` for the items, `ir::stmt` / `ir::expr` / `ir::range` /
//!   `ir::team` for the body);
//! * [`func`][]: `#[rokkos::func]`.

use proc_macro::TokenStream;

mod func;
mod ir;
mod native;
mod parse;

/// Turns a function into a rokkos kernel.
///
/// # Signature
///
/// ```text
/// #[kernel] fn NAME(WORK, ACCUMULATORS..., ARGUMENTS...) { BODY }
/// #[kernel(scan)] fn NAME(i: usize, partial: &mut T, is_final: bool, ARGUMENTS...) { BODY }
/// ```
///
/// * **Work item** (first parameter):
///   * `i: usize`: one index of a `RangePolicy`;
///   * `(i, j): (usize, usize)` (2 to 6 names): one multi-index of an `MDRangePolicy`;
///   * `team: &TeamMember`: one team of a `TeamPolicy`.
/// * **Accumulators** (`acc: &mut T`, right after the work item): none makes a `parallel_for` kernel;
///   one or more make a `parallel_reduce` kernel whose value is `T` (one accumulator) or the tuple
///   `(T1, T2, ..)` (several; reduce it with a tuple of reducers such as `(Min, Max)`).
///   `#[kernel(scan)]` takes exactly one accumulator followed by the `is_final: bool` flag
///   (`RangePolicy` only).
/// * **Arguments**: `View<T>` / `View<T, R>` (read-only View of rank `R`, default 1), `ViewMut<T>` /
///   `ViewMut<T, R>` (writable View), or a scalar passed by value (`f64`, `i32`, `usize`, `bool`, a type
///   parameter, ...). `View` and `ViewMut` are kernel syntax: the kernel accepts any layout and the
///   caller passes `&rokkos::View<T, R, L, S>`, all in one memory space. `InjectiveView<T>`
///   (`T` = `i32` or `u32`) is a read-only rank-1 index map whose entries are pairwise distinct
///   (the caller passes `&rokkos::InjectiveView<T, S>`): writes through it are owned (below).
///   `DisjointRanges<T>` (`T` = `i32` or `u32`) is a read-only `[n, 2]` View of inclusive ranges
///   (`r[(v, 0)]` first, `r[(v, 1)]` last) that are pairwise disjoint (the caller passes
///   `&rokkos::DisjointRanges<T, S>`): a sample of an owned range is owned (below).
/// * Type and const parameters and where clauses are passed through (bound element types by
///   `rokkos::Float` or similar); lifetime parameters, `self`, `async`, `const` and `unsafe` kernels
///   are rejected.
///
/// The macro replaces the function by a constructor of the same name taking `&View`s and the scalars,
/// returning the *kernel value* (`NameKernel`), which `parallel_for` / `parallel_reduce` /
/// `parallel_scan` launch:
///
/// ```text
/// #[kernel]
/// fn triad<T: rokkos::Float>(i: usize, a: ViewMut<T>, b: View<T>, c: View<T>, s: T) {
///     a[i] = b[i] + s * c[i];
/// }
/// parallel_for("triad", RangePolicy::new(&space, 0..n), triad(&a, &b, &c, 0.4))?;
/// ```
///
/// # The body
///
/// Kernel bodies are a subset of Rust that every backend (including GPU backends) can run:
///
/// * `let` / `let mut` with a name or a tuple of names (initializer required), assignment and compound
///   assignment, `*acc op= e`, `acc.field` on accumulators;
/// * arithmetic, bit, comparison and logical operators, unary `-` and `!`, `as` casts between `bool`,
///   `u8`, `u16`, `i8`, `i16`, `i32`, `u32`, `i64`, `u64`, `f32`, `f64`, `usize`, `isize` (8- and
///   16-bit arithmetic as Rust's: it overflows at the type's bounds);
/// * `if` / `else` (also as expressions), `while`, `loop`, `break`, `continue`, `return` (no value),
///   `for x in a..b` / `a..=b`, also with `.step_by(k)`, `.rev()`, `.rev().step_by(k)` and, where
///   Rust's iterators allow it, `.step_by(k).rev()`; an inclusive range may end at its type's
///   maximum (`for x in n..=u32::MAX`);
/// * literals (no strings), constants and paths such as `std::f64::consts::PI`, `f64::MAX`, `T::ZERO`;
///   associated functions of scalar types and type parameters (`T::from_f64(x)`, `f64::max(a, b)`),
///   called through the type (not `<f64 as Trait>::max(a, b)`, whose host function could differ
///   from the built-in one the IR records);
/// * math methods: `sqrt cbrt sin cos tan asin acos atan atan2 sinh cosh tanh exp exp2 ln log2 log10
///   powf powi abs min max clamp floor ceil round trunc fract mul_add signum hypot recip is_nan
///   is_finite to_bits to_radians to_degrees wrapping_add wrapping_sub wrapping_mul rem_euclid
///   count_ones leading_zeros trailing_zeros`;
/// * bit casts, with Rust's meaning (every bit kept: the sign of zero, subnormals, infinities, NaN
///   payloads): `x.to_bits()` (`f32` → `u32`, `f64` → `u64`; also `f32::to_bits(x)`), and
///   `f32::from_bits(b)` / `f64::from_bits(b)`; in a kernel generic over `T: Float`, `x.to_bits()`
///   is a `<T as rokkos::ir::build::IrFloat>::Bits` (`u32` or `u64`; leave a local of it to type
///   inference: the bit operators and comparisons apply) and `T::from_bits(b)` takes one. Between integers of one width (`i32` / `u32`, `i64` / `u64`) the
///   bit cast is `as`. E.g. the exponent field, and negation by the sign bit:
///   `let e = (x.to_bits() >> 23) & 0xff;`, `f32::from_bits(x.to_bits() ^ 0x8000_0000)`;
/// * View access `v[i]`, `v[(i, j)]`, and the View methods `extent(k)`, `size()`, `atomic_add/sub/min/
///   max/and/or/xor/mul/div/mod/nand/lshift/rshift/inc_mod/dec_mod(idx, v)`, `atomic_inc/dec(idx)`,
///   their `atomic_fetch_*` (old value) and `atomic_*_fetch` (new value) forms, `atomic_load`,
///   `atomic_store`, `atomic_exchange`, `atomic_compare_exchange`;
/// * team methods: `league_rank league_size team_rank team_size vector_length team_barrier
///   team_broadcast team_broadcast_with thread_range vector_range team_vector_range thread_reduce
///   vector_reduce team_vector_reduce thread_scan vector_scan team_vector_scan single_team
///   single_thread team_scratch thread_scratch`; closures are accepted only as their arguments, e.g.
///   `team.thread_reduce(n, Sum, |j, acc: &mut f64| *acc += a[(l, j)])`, and nested ranges are written
///   `for j in team.thread_range(n) { .. }`; a nested range (and the range of a nested reduction or
///   scan) is `n` (meaning `0..n`), `a..b` or `a..=b` (which reaches `usize::MAX`);
/// * Kokkos' nested MD ranges `for [i, j] in team.thread_md_range([n0, n1]) { .. }` (`TeamThreadMDRange`),
///   `vector_md_range` (`ThreadVectorMDRange`) and `team_vector_md_range` (`TeamVectorMDRange`, at
///   least two extents), and their reductions `team.thread_md_reduce([n0, n1], Max, |[i, j], m: &mut f64| ..)`,
///   `vector_md_reduce` and `team_vector_md_reduce` (a `Sum` only, as in Kokkos). They are written,
///   before any check, as Kokkos' own backends run them: the first extent split across the threads
///   (lanes for `vector_md_range`; threads and lanes for the first two of `team_vector_md_range`),
///   a plain loop in each thread over the others, whose extents are evaluated once, first;
///   `let s = team.team_scratch::<f64, 1>(0, [n]);` binds a writable scratch View;
/// * local arrays `[0.0; 4]`, `[x, y, z]` and their indexing; calls of `#[rokkos::func]` functions
///   (`foo(x)`, `module::foo(x)`);
/// * constants declared in the body (or a `#[func]`'s), as Kokkos kernels use `constexpr`: a scalar
///   `const K: u32 = 3;`, and a *constant table* `const C: [f64; 4] = [1.0, 0.5, 0.25, 1.0 / 3.0];`
///   of a scalar element type, read as `C[k]` (device backends emit it once per kernel module,
///   every bit of every element kept; a read past its end fails the work item as an out-of-bounds
///   read naming the table). Any constant expression rustc evaluates may give the values; the
///   items are in scope in their whole block. A table cannot be assigned, nor used other than
///   indexed;
/// * `ScatterSum<T, R>`, `ScatterProd`, `ScatterMin` and `ScatterMax` parameters (a
///   `rokkos_containers::ScatterView`): contributions only, with the `atomic_*` method of their
///   operation (`h.atomic_add(bin, 1)`, `h.atomic_min(i, x)`), at any index; reading or indexing
///   one is a compile error. Host backends with several threads give each thread its own copy,
///   devices update atomically.
///
/// Anything else (macros such as `println!`, `match`, `if let`, closures elsewhere, references,
/// other method calls, struct literals, strings, `?`, other nested items) is a compile error that says what
/// to write instead. Calling a function that is not a `#[rokkos::func]` fails with "cannot find
/// module or crate `NAME` in this scope: function `NAME` is not a crate or module" (kernels reach
/// a `#[func]` through the hidden type of the same name that `#[func]` defines beside it): mark
/// the function `#[rokkos::func]`.
///
/// # `#[func]`s as values
///
/// A kernel may take a `#[rokkos::func]` as a *value*: a type parameter bounded by
/// `rokkos::ir::build::Func1<A, Output = R>` (`Func2<A, B, ..>`, `Func3<A, B, C, ..>` for two or
/// three parameters), named like a function and called like one in the body. So that the
/// body can call it by name, give it a lowercase name (`#[allow(non_camel_case_types)]` on the
/// kernel silences rustc's naming lint); the constructor then takes it as a type argument:
///
/// ```text
/// #[kernel]
/// #[allow(non_camel_case_types)]
/// fn count_k<T: rokkos::Float, pred: Func1<T, Output = bool>>(i: usize, acc: &mut usize, v: View<T>) {
///     if pred(v[i]) { *acc += 1; }
/// }
/// fn count_if<P: Func1<f64, Output = bool>>(v: &View<f64>, _pred: P) -> rokkos::Result<usize> {
///     parallel_reduce("count", RangePolicy::new(&Serial, 0..v.extent(0)), count_k::<f64, P, _, _>(v), Sum)
/// }
/// #[rokkos::func]
/// fn positive(x: f64) -> bool { x > 0.0 }
/// let n = count_if(&v, positive {})?;   // `positive {}`: the function's marker value (below)
/// ```
///
/// `pred(x)` calls `<pred as Func1<_>>::native(x)` on the host and records
/// `<pred as Func1<_>>::ir(..)` for the devices (`Func2`, `Func3` by the number of arguments),
/// only ever through these traits, so that a bound of another trait with a `native` and an `ir`
/// of its own (safe to implement, free to disagree) is refused where the body calls it: `#[func]`
/// implements `Func1`..`Func3` for the hidden marker type of every function of one to three
/// scalar parameters and one scalar result (see [`macro@func`]), and the traits are `unsafe`
/// with `FuncMarker`'s contract, so only a `#[func]` expansion stands behind one. A caller passes
/// the marker, a braced struct of the function's name: `positive {}` (a bare `positive` is the
/// Rust function item, whose type cannot carry the IR). Everything is checked at compile time: a
/// function of another signature (`fn(i32) -> bool` for `Func1<f64, Output = bool>`, another
/// arity, another result) or a type that is no `#[func]` fails the bound where it is passed. In
/// the IR the function is recorded under its own name, so the kernel's IR (and its cache entry)
/// differs per function passed. A type parameter the body calls is not a scalar type: the macro
/// does not require `IrScalar` of it as it does of the other type parameters.
///
/// # The IR (device backends)
///
/// Besides the native body, the macro implements `rokkos::KernelIr` for the kernel value: its
/// `build_ir()` replays the same body, statement by statement, against the typed builder
/// `rokkos::ir::build`, so `rustc` type-checks the recorded IR as it type-checks the native body. It
/// adds nothing to the native path. Because every backend must run a kernel the same way, the
/// constructs above that device backends cannot run are compile errors too:
///
/// * assigning a local (or local array) declared outside a team construct from inside it
///   (`let mut s = 0.0; for j in team.thread_range(n) { s += .. }`): use a nested reduction;
/// * `break` / `continue` inside a nested team range or closure, labelled `break` / `continue` to
///   an outer loop, `return` inside a team construct;
/// * `count_ones`, `leading_zeros`, `trailing_zeros`.
///
/// So are *types and values* the IR lacks: View elements, scalars, locals, literals or casts of types
/// other than `bool i32 u32 i64 u64 f32 f64 usize isize` (and the kernel's type parameters); a
/// scratch level that is not a constant; a nested reduction with a reducer other than `Sum Prod Min
/// Max LAnd LOr BAnd BOr` (e.g. `MinLoc`: reduce the value with `Min`, then the index). These are
/// reported at the kernel's name. A recursive `#[rokkos::func]` is only visible when the IR is built:
/// `build_ir()` returns `BuildError::Unsupported`.
///
/// # Soundness: owner computes
///
/// Work items run in parallel, so every plain (non-atomic) read or write of a writable View
/// (`ViewMut`) must use an index that contains, as a bare name, every variable the work item owns:
///
/// * range kernels: the work index (`a[i]`, `a[(i, k)]`, `a[(k, i)]`);
/// * MDRange kernels: all work indices (`b[(j, i)]` under `(i, j)`);
/// * team kernels: the league rank bound by `let l = team.league_rank();` plus the index of every
///   enclosing nested range (`for j in team.thread_range(..)`, `vector_range`, `team_vector_range`,
///   or the index parameter of a nested reduce / scan closure), e.g. `out[(l, j)]`. Writes to team
///   scratch need the indices of the enclosing nested ranges; writes to thread scratch those of the
///   enclosing vector ranges. Which thread of the team may run the access is the team rules'
///   business (below).
///
/// A component may also hold a work index (or the league rank) through an `InjectiveView`
/// parameter: `a[idx[i] as usize]`, `m[(rows[d] as usize, cols[s] as usize)]`, or an immutable
/// local bound to exactly such a lookup (`let r = idx[i] as usize; a[r] = ..`). The map is
/// injective (checked when the `InjectiveView` is made; nothing can write it), so distinct work
/// items still reach distinct elements. Nothing else about the lookup is known:
/// `idx[i] as usize + 1`, `idx[k]` with `k` not owned, `idx[idx2[i] as usize]`, a lookup in a
/// plain `View`, or one of a nested range's index are not owned, and a local holding a lookup may
/// not be rebound.
///
/// A component may hold a range index `v` (itself owned: a work index, the league rank, or a
/// part of one as below) as a sample of range `v` of a `DisjointRanges` parameter `r`: the
/// range's bounds `r[(v, 0)] as usize` / `r[(v, 1)] as usize`; the index `s` of
/// `for s in team.thread_range(r[(v, 0)] as usize..=r[(v, 1)] as usize)` (inclusive, as written);
/// or `let s = r[(v, 0)] as usize + k;` (`k` owned too, and then held as well) once a statement
/// `if s > r[(v, 1)] as usize { return; }` of an enclosing block, outside any closure, has run
/// (a guard under a condition, after the access, or with another range is not one). Bounds may
/// go through immutable locals (`let f = r[(v, 0)]; .. f as usize`). The ranges are disjoint
/// (checked when the `DisjointRanges` is made; nothing can write it), so the sample determines
/// its range (and `k = s - first`). An owned name `o` is also held by an index that holds both
/// `o / x` and `o % x` (immutable locals; `x` the same integer literal or View parameter's
/// `extent(k)`, an immutable scalar parameter, arithmetic on those, or a local holding one): a
/// team per (row, range) owns both with `let d = l / r.extent(0); let v = l % r.extent(0);`.
///
/// A component may also hold an owned name `o` through an affine map `a * o + b`: `a` a non-zero
/// integer literal, `b` any sum and difference of launch constants (integer literals, immutable
/// scalar parameters no binding shadows, View parameters' extents, `+ - * / %` and casts of
/// those, or immutable locals holding one), in any arrangement: `flags[i - offset]` (Kokkos'
/// OffsetTag), `y[i + k]`, `y[2 * i + 1]`, `y[n - 1 - i]`, `rows[(2 * l + 1, t)]`, or an
/// immutable local bound to one (`let e = 2 * i + 1;`). Index arithmetic wraps modulo 2^64 in
/// release builds, where adding a constant and multiplying by an odd `a` are bijections; an
/// even `a` is not (`2 * 2^63` wraps to `0`), so the macro replaces such a component by
/// `v.extent(p)` (out of bounds) when `a * o` wraps: that work item fails with
/// `OutOfBounds` instead of meeting another. A multiplier that is not a literal (`y[k * i]`
/// could be `y[0 * i]`), a loop counter or mutable local as offset, and `o * o` are not owned.
///
/// A component may hold `o` as the high digit of `a * o + d` (or `d + a * o`, `o * a + d`): `a`
/// a power-of-two literal of at least 2, `d` a digit below `a` (a literal, or the index of a
/// `for` loop or nested range over `0..K` / `0..=K'` or of count `K`, `K` a literal at most `a`):
/// `o = c / a` whatever the digit, so work item `i` owns the block `y[4 * i..4 * i + 4]` written
/// as `for c in 0..4 { y[4 * i + c] = .. }`. In a nested range the same component also tells the
/// threads (or lanes) apart, with the range's index as the digit (`32 * o + r` for
/// `r` in `team.thread_range(32)`, whatever `o` is) or as the high part over a digit (`16 * r +
/// c`, `r` in `team.thread_range(16)` and `c` in `0..16`). With both, a team per tile owns its
/// transposed tile without `unsafe` (the quotient and remainder of the league rank by the tile
/// count, each the high part of one component):
///
/// ```text
/// let tiles = a.extent(1) / 32;
/// let (ti, tj) = (team.league_rank() / tiles, team.league_rank() % tiles);
/// for r in team.thread_range(32) {
///     for c in 0..32 {
///         at[(tj * 32 + r, ti * 32 + c)] = s[(c, r)];   // owned: (tj, r) and (ti, c) per row, column
///     }
/// }
/// ```
///
/// `a * o` gets the even multiplier's guard above; past it, adding `d < a` cannot wrap (`a`
/// divides 2^64). Digits that may reach `a` (`for c in 0..9` with `a = 8`), a run-time bound,
/// a rebound or `mut` index and radices that are not powers of two are not owned.
///
/// A team owns a block of rows, as in Kokkos' rows-per-team SpMV: the index `r` of a nested range
/// over `first..end`, `first` being `o * R` or `R * o` (inline or an immutable local; `R` a
/// launch constant as above) and `end` being `first + R` or its `min` with anything
/// (`(first + R).min(n)`, `n.min(first + R)`), holds `o`: the blocks `[o·R, o·R + R)` are
/// disjoint. The macro empties the range where `o * R` or `first + R` would wrap.
///
/// ```text
/// let first = l * rows_per_team;
/// for r in team.thread_range(first..(first + rows_per_team).min(n)) {
///     let s = team.vector_reduce(row_ptr[r] as usize..row_ptr[r + 1] as usize, Sum, |k, acc: &mut f64| {
///         *acc += vals[k] * x[cols[k] as usize];
///     });
///     team.single_thread(|| { y[r] = s; });   // owned: r lies in block l
/// }
/// ```
///
/// `first + k` determines `k` only if the sum does not wrap, and release builds do not check
/// overflow (an MDRange may start near `usize::MAX`): after each guarded `let s = first + k;` the
/// macro adds `if s < k { return; }` (true exactly when the sum wrapped), on every backend, so a
/// work item whose sample wrapped writes nothing. A `k` that mentions the name `s` binds would
/// read the sample itself there, so `let q = r[(v, 0)] as usize + q;` is not a sample.
///
/// ```text
/// let s = r[(v, 0)] as usize + k;       // work item (d, v, k)
/// if s > r[(v, 1)] as usize { return; }  // a statement of the body: s lies in range v now
/// out[(rows[d] as usize, s)] = ..;        // owned: rows is injective, s determines (v, k)
/// ```
///
/// (the guide's "What is there" section, `docs/guide.md`, runs the whole kernel).
///
/// An owned name must also sit at the same index position, in the same form (itself, through
/// the same `InjectiveView`, as a sample of the same `DisjointRanges`, through the same affine
/// map, with the same multiplier and constant terms, or as the high digit of the same radix), in
/// every access to a
/// View (`m[(i, k)]` and `m[(k, i)]` in one kernel
/// would let work items `1` and `2` both reach `m[(1, 2)]`; `a[i]` and `a[idx[i] as usize]` would
/// let work items `idx[0]` and `0` meet; `a[i]` and `a[i + 1]` work items `1` and `0`).
///
/// Reads of read-only `View`s are free. A writable View used with any `atomic_*` method must be
/// accessed only atomically in that kernel. Owned names may not be rebound (`let i = ..`), and the
/// work parameter may not be `mut`. Writing a read-only `View` is an error (declare it `ViewMut`).
/// Raw identifiers (`r#i`) are refused in kernels and `#[func]`s: rustc reads `r#i` as `i`, and
/// these checks compare names as written.
///
/// These checks, and the IR translation, know variables by spelling; rustc knows them by
/// spelling *and hygiene*: in a `macro_rules!` expansion, a name the macro writes and the same
/// name passed by its caller are two variables. So a kernel (or `#[func]`) is refused when a
/// variable or loop label of it is spelled in more than one macro expansion (rustc decides, and
/// the error says "this name comes from another macro expansion than the kernel's other uses of
/// it"), and two parameters spelled alike are refused outright. A macro that writes every name
/// itself, or takes each from its caller (`$i:ident`, then `$i` at every use), is fine.
///
/// Nested team reductions and the `#[func]`s a kernel calls are bound to one definition on every
/// path: the reducer of `team.thread_reduce(n, Sum, ..)` must be rokkos' own `Sum` (the IR joins
/// by the reducer's name, so a user type called `Sum` is a type error), and a call `f(x)` of a
/// `#[func]` reaches, on the host as in the IR, the function of the hidden type `f` beside it
/// (whose `use` comes with the function's), never a host function from one import and a device
/// function from another.
///
/// # Team kernels: threads, barriers and convergence
///
/// On a GPU the threads of a team run at once and meet at barriers; on the host a team has one
/// thread. So that a team kernel means the same everywhere, `#[kernel]` checks, on the kernel's
/// syntax, the rules the IR validator checks at launch (they are one piece of code,
/// `rokkos_rules`, so a kernel that compiles is never refused by a backend), and the race rules
/// of team-shared memory (the team's elements of writable Views, and team scratch):
///
/// * **One thread per write.** A write to a writable View or to team scratch must be run by one
///   thread of the team: inside `team.single_team(|| ..)` (one thread per team), or at an index
///   that contains the index of the enclosing `thread_range` / `team_vector_range` (each index goes
///   to one thread), or the team rank (`team.team_rank()` or an immutable local holding it). A write
///   every thread runs is refused: outside nested ranges, in a top-level `vector_range` (every
///   thread runs all of it; the index only tells a thread's lanes apart), or in
///   `team.single_thread(|| ..)` (once per *thread*) without the enclosing range's index or the
///   team rank, e.g. `team.single_thread(|| o[(l, r)] = x)` with `let r = team.team_rank();`.
/// * **A barrier between threads.** Two accesses to one element of that memory, one of them a
///   write, that different threads may run need a `team.team_barrier()` between them, on every
///   path. They are in one thread when their indices hold, at the same position, the team rank, or
///   the index of one run of an enclosing `thread_range` / `team_vector_range` (or reduction, or
///   scan); or when both are in one run of a `single_team`. So a thread may read back what it wrote
///   at its own index (`s[j] = x; let y = s[j];`) with no barrier, but reading `s[n - 1 - j]`
///   after the loop that wrote `s[j]` needs one; a `thread_range` run again in a loop with no
///   barrier in the loop may give an index to another thread the second time. Team scratch reads
///   are checked like this too. Indices that differ in a literal component (`s[0]`, `s[1]`) never
///   meet. Only `team_barrier` orders accesses (not a reduction or a `single`'s result).
/// * **Convergence.** Every thread of a team must reach each `team_barrier`, `thread_range` /
///   `team_vector_range` (and their reductions and scans), `single_team`, `team_broadcast` and
///   `team_scratch` together, with the same bounds: not under a condition, loop, `break` or early
///   `return` that depends on a value that differs between threads. The same in every thread
///   (*uniform*) are literals, scalar parameters, the league rank and size, team size, vector
///   length, View extents, loads of read-only Views at uniform indices (a read-only View cannot
///   change during a launch, so `let first = iv[(l, 0)];` can bound a `thread_range`), `#[func]`
///   calls and operators on uniform values, the results of team-wide reductions and scans,
///   `single_team` and `team_broadcast`, and locals only ever assigned uniform values in uniform
///   control. Not uniform: the team rank, loads of writable Views and scratch, atomics,
///   accumulators, nested indices, thread scratch extents, `vector_*` reductions and
///   `single_thread` results. The error says which value is to blame and what to write instead
///   (a read-only View, `team.single_team(|| ..)` or `team.team_broadcast(x, 0)`).
/// * **Nesting.** No team-wide construct inside a nested range, reduction, scan or `single` body
///   (`thread_range` in `thread_range`: nest a `vector_range`); no `vector_*` construct,
///   `single_thread` or `thread_scratch` inside a vector-level body or a `single`.
/// * Scratch levels are `0` or `1` (a literal, or a constant checked when a launch instantiates the
///   kernel), View ranks `0` to `8`.
///
/// # `unsafe` blocks
///
/// Accesses inside an `unsafe { }` block in the body are exempt from the owner-computes rule and
/// from the race rules of team kernels: the author promises that concurrent work items touch
/// disjoint elements (and order team-shared accesses with barriers). The block stays an `unsafe`
/// block, with the author's own `unsafe` token, in the native code, so the `unsafe_code` lint
/// (`#![forbid(unsafe_code)]` refuses such a kernel) and audits that look for `unsafe` see it where
/// it was written. The unsafe code the macro generates itself (binding the Views' accessors) is the
/// expansion's, which the lint does not report: a crate that forbids unsafe code compiles kernels
/// without `unsafe` blocks.
///
/// # Errors
///
/// A kernel the macro rejects produces exactly its errors: the kernel value, the constructor and
/// the kernel's traits are still generated, typed as usual with empty bodies, so that calls and
/// launches of the kernel add no errors of their own. The checks run in order (the accepted subset,
/// owner-computes and the scan bodies' final-pass rule together, then the IR translation, then the
/// team rules), and a later one only
/// once the earlier passed, so that one mistake gives one error. A mistake in the *signature*
/// generates nothing (the constructor's parameters are unknown).
///
/// # Scan bodies: writes in the final pass
///
/// A parallel scan runs its body more than once per index: rayon in two passes over chunks,
/// wgpu and CUDA in up to three, the earlier ones with `is_final == false`; the serial loop runs
/// it once with `is_final == true`. So in a `#[kernel(scan)]` body, and in the closure of a
/// nested `thread_scan` / `vector_scan` / `team_vector_scan` (its third parameter is the flag),
/// a write that outlives the work item (a `ViewMut` or scratch element, an atomic, another
/// accumulator than the scan's own partial) must sit under `if is_final { .. }` (or a condition
/// `is_final && ..`, or the `else` of `if !is_final`): elsewhere it would happen once on serial
/// and two or three times on the other backends. The scan's own partial and locals declared in
/// the body are redone each pass and may be written anywhere, but the partial must be folded
/// alike in every pass (not under a condition on the flag, nor with the flag in its value: the
/// earlier passes compute the block totals), and an element the final pass wrote may not be read
/// after it outside the final pass. Inside `unsafe { }` the rule is the author's business, as
/// owner-computes is.
///
/// # Options
///
/// `#[kernel(scan)]` makes a scan kernel; `#[kernel(debug)]` prints the expansion at compile time;
/// they combine: `#[kernel(scan, debug)]`.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    native::generate::expand_kernel(attr.into(), item.into()).into()
}

/// Marks a function callable from kernels (and from other `#[rokkos::func]` functions).
///
/// Parameters are scalars passed by value (`x: f64`, `n: i32`, `x: T`) or arrays of them with a
/// literal length up to 16 (`v: [f64; 3]`, below), the return type is a scalar
/// (or nothing, or several scalars: below), and the body is restricted to the kernel subset documented on [`macro@kernel`], with
/// `return value` allowed. The function stays an ordinary (`#[inline(always)]`) Rust function, usable
/// from host code too. A hidden braced struct of the same name beside it (the type namespace,
/// so `use m::NAME` brings both) carries what kernels call: `NAME::native`, the function, and
/// `NAME::ir`, which records the function into the IR of the kernels that call it (a generic
/// function once per instantiation, named `NAME_f32`, ...); it implements the `unsafe` trait
/// `FuncMarker`, which both require, so that the two come from one `#[func]`.
///
/// ```text
/// #[rokkos::func]
/// fn sq(x: f64) -> f64 { x * x }
/// ```
///
/// A function may also return several scalars: a tuple (`-> (f64, i32)`) or an array with a
/// literal length up to 16 (`-> [f64; 3]`), written as a literal in every `return` and at the end
/// (`return (a, b);`, `[x, y, z]`; an `if` / `else` ending in two literals is refused: return
/// from the branches). Callers bind the values to names, `let (a, b) = f(..);` or
/// `let [x, y, z] = f(..);` (in kernels and functions; `_` for a value not needed). In the IR
/// each component is its own function (`NAME.k`) and a call evaluates each of them on the same
/// arguments (bound once): the IR, its validator and evaluator and the GPU emitters stay
/// scalar-valued, and the results are those of the native function (it has no side effects),
/// at the cost of computing the shared part once per component unless the GPU compiler merges
/// the inlined copies.
///
/// ```text
/// #[rokkos::func]
/// fn divmod(a: i32, b: i32) -> (i32, i32) { (a / b, a % b) }
/// // in a kernel:  let (q, r) = divmod(x[i], 7);
/// ```
///
/// An array parameter `[T; N]` is, in the IR, `N` scalar parameters that the function's body
/// gathers into its own local array, so it is passed by value as in Rust (the function may write
/// to its copy). A caller passes an array literal (`f([a, b, c])`, `f([0.0; 3])`) or a local array
/// (`let w = [..]; f(w)`), taken at its place in the argument list. Other forms (a length that is
/// not a literal, nested arrays, references) are refused at compile time.
///
/// ```text
/// #[rokkos::func]
/// fn dot3(a: [f64; 3], b: [f64; 3]) -> f64 { a[0] * b[0] + a[1] * b[1] + a[2] * b[2] }
/// // in a kernel:  let d = dot3(u, [x[i], y[i], z[i]]);
/// ```
///
/// A function of one to three scalar parameters (scalar types, or type parameters that appear as
/// parameter types) and one scalar result is also a *value* kernels can take: its marker type
/// implements `rokkos::ir::build::Func1<A, Output = R>` (`Func2`, `Func3`), so a kernel generic
/// over `pred: Func1<i64, Output = bool>` runs whichever function a caller passes as `is_even {}`
/// (see "`#[func]`s as values" on [`macro@kernel`]). Generic functions implement it for every
/// instantiation their bounds allow.
#[proc_macro_attribute]
pub fn func(attr: TokenStream, item: TokenStream) -> TokenStream {
    func::expand_func(attr.into(), item.into()).into()
}
