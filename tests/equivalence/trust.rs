//! What backends must not take on trust, on every backend: a reducer defined by the user is joined
//! with its own `join` (it cannot claim a device join or a reorderable one: those methods are
//! rokkos-core's own), counter-based random draws stay distinct over the whole range of their
//! draw number, and `create_mirror_view` of a View kept in host memory is that memory (on the
//! host backends, the run-time `Device` included), while on a device it is a copy.

use crate::{check, dev, dev_from_fn, dev_from_vec, floats_match, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;
use rokkos::{random, Reducer};
use std::any::Any;

/// The reducer: its join takes the maximum. (It once could also say `describe` →
/// `Sum`, and wgpu and CUDA then summed the partial maxima; `describe` can no longer be written
/// outside rokkos, so every backend calls this `join`.)
struct TakeMax;
impl Reducer<i32> for TakeMax {
    fn init(&self) -> i32 {
        i32::MIN
    }
    fn join(&self, dst: &mut i32, src: i32) {
        *dst = (*dst).max(src);
    }
}

/// A join that is not commutative (the later non-negative value wins): joined out of order, as a
/// reducer trusted to be commutative may be, it gives another result.
struct LastSet;
impl Reducer<i32> for LastSet {
    fn init(&self) -> i32 {
        -1
    }
    fn join(&self, dst: &mut i32, src: i32) {
        if src >= 0 {
            *dst = src;
        }
    }
}

#[kernel]
fn fold_max(i: usize, acc: &mut i32, x: View<i32>) {
    if x[i] > *acc {
        *acc = x[i];
    }
}

#[kernel]
fn fold_last(i: usize, acc: &mut i32, x: View<i32>) {
    if x[i] >= 0 {
        *acc = x[i];
    }
}

#[kernel]
fn fold_max_2d((i, j): (usize, usize), acc: &mut i32, x: View<i32, 2>) {
    if x[(i, j)] > *acc {
        *acc = x[(i, j)];
    }
}

/// User reducers (implementing `Reducer` themselves, not `Custom`) give serial's result on every
/// backend: the maximum, and the last set value, over ranges and MDRanges of every size.
fn user_reducers_join_as_written<E: ExecutionSpace>(space: E) {
    check(
        8,
        (crate::sizes(), crate::chunk_sizes(), any::<u64>()),
        |(n, chunk, seed)| {
            let xs: Vec<i32> = crate::ints(seed, n, -1000, 1000)
                .into_iter()
                .map(|v| v as i32)
                .collect();
            let x: DevView<E, i32> = dev_from_vec(&space, "x", [n], xs.clone())?;
            let policy = || RangePolicy::new(&space, 0..n).chunk_size(chunk);
            let got = parallel_reduce("take_max", policy(), fold_max(&x), TakeMax)?;
            prop_assert_eq!(got, xs.iter().copied().fold(i32::MIN, i32::max));
            let got = parallel_reduce("last_set", policy(), fold_last(&x), LastSet)?;
            let want = xs.iter().copied().rfind(|&v| v >= 0).unwrap_or(-1);
            prop_assert_eq!(got, want);

            let (r, c) = (n % 37, n / 37 + 1);
            let g: DevView<E, i32, 2> = dev_from_fn(&space, "g", [r, c], |[i, j]| {
                ((i * 7919 + j * 104729) % 2001) as i32
            })?;
            let got = parallel_reduce(
                "take_max_2d",
                MDRangePolicy::new(&space, [0, 0], [r, c]),
                fold_max_2d(&g),
                TakeMax,
            )?;
            let want = (0..r)
                .flat_map(|i| (0..c).map(move |j| ((i * 7919 + j * 104729) % 2001) as i32))
                .fold(i32::MIN, i32::max);
            prop_assert_eq!(got, want);
            Ok(())
        },
    );
}
per_backend!(user_reducers_join_as_written);

/// Draw numbers at the edges of their type, where `2 * k` and `4 * k` used to wrap in `u32`
/// (and panic in a debug build's native path): 2^30 - 1, 2^30, 2^31 - 1, 2^31, 2^31 + 1 and
/// 2^32 - 1, next to the small ones they wrapped onto.
const WIDE_KS: [u32; 10] = [
    0,
    1,
    2,
    (1 << 30) - 1,
    1 << 30,
    (1 << 30) + 1,
    (1 << 31) - 1,
    1 << 31,
    (1 << 31) + 1,
    u32::MAX,
];

#[kernel]
fn wide_draws_f32(
    i: usize,
    bits: ViewMut<u32>,
    uf: ViewMut<f32>,
    nf: ViewMut<f32>,
    ks: View<u32>,
    seed: u64,
    stream: u64,
) {
    bits[i] = random::rand_u32(seed, stream, ks[i]);
    uf[i] = random::uniform_f32(seed, stream, ks[i]);
    nf[i] = random::normal_f32(seed, stream, ks[i]);
}

#[kernel]
fn wide_draws_f64(
    i: usize,
    ud: ViewMut<f64>,
    nd: ViewMut<f64>,
    ks: View<u32>,
    seed: u64,
    stream: u64,
) {
    ud[i] = random::uniform_f64(seed, stream, ks[i]);
    nd[i] = random::normal_f64(seed, stream, ks[i]);
}

/// Distinct draw numbers give distinct numbers on every backend, the device ones included
/// (their IR is the same `#[func]`s), and the same numbers as the host's own calls: exactly for
/// the integer and uniform draws, within the backend's math accuracy for normals.
fn wide_draw_numbers_stay_distinct<E: ExecutionSpace>(space: E) {
    let (seed, stream) = (7u64, 3u64);
    let n = WIDE_KS.len();
    let ks: DevView<E, u32> = dev_from_vec(&space, "ks", [n], WIDE_KS.to_vec()).unwrap();
    let bits: DevView<E, u32> = dev(&space, "bits", [n]).unwrap();
    let uf: DevView<E, f32> = dev(&space, "uf", [n]).unwrap();
    let nf: DevView<E, f32> = dev(&space, "nf", [n]).unwrap();
    parallel_for(
        "wide_draws_f32",
        RangePolicy::new(&space, 0..n),
        wide_draws_f32(&bits, &uf, &nf, &ks, seed, stream),
    )
    .unwrap();
    let (bits, uf, nf) = (to_host(&bits), to_host(&uf), to_host(&nf));
    let host_bits: Vec<u32> = WIDE_KS
        .iter()
        .map(|&k| random::rand_u32(seed, stream, k))
        .collect();
    let host_uf: Vec<f32> = WIDE_KS
        .iter()
        .map(|&k| random::uniform_f32(seed, stream, k))
        .collect();
    let host_nf: Vec<f32> = WIDE_KS
        .iter()
        .map(|&k| random::normal_f32(seed, stream, k))
        .collect();
    assert_eq!(bits, host_bits);
    assert_eq!(uf, host_uf);
    floats_match(&space, &nf, &host_nf).unwrap();
    // Every draw number its own number: normal_f32 at 2^31 + k used to be the one at k.
    assert_distinct(&bits, "rand_u32");
    assert_distinct(&uf, "uniform_f32");
    assert_distinct(&nf, "normal_f32");

    let ud: DevView<E, f64> = dev(&space, "ud", [n]).unwrap();
    let nd: DevView<E, f64> = dev(&space, "nd", [n]).unwrap();
    parallel_for(
        "wide_draws_f64",
        RangePolicy::new(&space, 0..n),
        wide_draws_f64(&ud, &nd, &ks, seed, stream),
    )
    .unwrap();
    let (ud, nd) = (to_host(&ud), to_host(&nd));
    let host_ud: Vec<f64> = WIDE_KS
        .iter()
        .map(|&k| random::uniform_f64(seed, stream, k))
        .collect();
    let host_nd: Vec<f64> = WIDE_KS
        .iter()
        .map(|&k| random::normal_f64(seed, stream, k))
        .collect();
    assert_eq!(ud, host_ud);
    floats_match(&space, &nd, &host_nd).unwrap();
    // random::uniform_f64(7, 3, 2^31) used to equal random::uniform_f64(7, 3, 0), and normal_f64 at 2^30 the one
    // at 0.
    assert_distinct(&ud, "uniform_f64");
    assert_distinct(&nd, "normal_f64");
}
per_backend!(wide_draw_numbers_stay_distinct);

#[track_caller]
fn assert_distinct<T: PartialEq + std::fmt::Debug>(xs: &[T], what: &str) {
    for a in 0..xs.len() {
        for b in 0..a {
            assert_ne!(
                xs[a], xs[b],
                "{what} at k = {} and k = {}",
                WIDE_KS[a], WIDE_KS[b]
            );
        }
    }
}

#[kernel]
fn add_one(i: usize, y: ViewMut<i32>) {
    y[i] += 1;
}

/// Whether `space`'s Views are host memory, so that their host mirror is their own memory: a host
/// backend's, or those of a `Device` standing for one.
pub(crate) fn mirrors_alias<E: ExecutionSpace>(space: &E) -> bool {
    (&space.memory_space() as &dyn Any).is::<HostSpace>()
        || (space as &dyn Any)
            .downcast_ref::<Device>()
            .is_some_and(|d| d.is_host())
}

/// `create_mirror_view` of a View kept in host memory is that memory, as in Kokkos: writes through
/// the mirror are seen by the View without a copy, a guard on the mirror keeps launches off the
/// View (they share one borrow flag), and `create_mirror_view_and_copy` copies nothing. Where the
/// View is device memory the mirror is a separate allocation, filled only by a copy.
fn mirror_view_is_host_memory_itself<E: ExecutionSpace>(space: E) {
    let alias = mirrors_alias(&space);
    let n = 17;
    let v: DevView<E, i32> = dev_from_fn(&space, "v", [n], |[i]| i as i32).unwrap();
    let m = create_mirror_view(&v).unwrap();
    // A fresh copy of what `v` holds (`create_mirror` always allocates).
    let held = |v: &DevView<E, i32>| {
        let c = create_mirror(v).unwrap();
        deep_copy(&c, v).unwrap();
        c.to_vec()
    };
    m.host_mut().as_mut_slice().unwrap()[3] = -5;
    assert_eq!(
        held(&v)[3],
        if alias { -5 } else { 3 },
        "write through the mirror"
    );
    assert_eq!(
        m.to_vec()[4],
        if alias { 4 } else { 0 },
        "the mirror's contents"
    );
    // A guard on the mirror and a launch on the View exclude each other exactly when they are
    // one memory.
    {
        let _guard = m.host();
        let r = parallel_for("add_one", RangePolicy::new(&space, 0..n), add_one(&v));
        space.fence().unwrap();
        assert_eq!(
            matches!(r, Err(rokkos::Error::Aliasing { .. })),
            alias,
            "launch under a guard on the mirror: {r:?}"
        );
    }
    // After a deep_copy (a no-op between one memory and itself), mirror and View agree.
    deep_copy(&v, &m).unwrap();
    let before = held(&v);
    let c = create_mirror_view_and_copy(&v).unwrap();
    assert_eq!(c.to_vec(), before);
    parallel_for("add_one", RangePolicy::new(&space, 0..n), add_one(&v)).unwrap();
    space.fence().unwrap();
    let after: Vec<i32> = before.iter().map(|x| x + 1).collect();
    assert_eq!(held(&v), after);
    // The copy taken before the launch follows the View only when it is the View's memory.
    assert_eq!(c.to_vec(), if alias { after } else { before });
    // `create_mirror` is always a new allocation.
    let fresh = create_mirror(&v).unwrap();
    fresh.host_mut().as_mut_slice().unwrap()[0] = 99;
    assert_ne!(held(&v)[0], 99);
}
per_backend!(mirror_view_is_host_memory_itself);
