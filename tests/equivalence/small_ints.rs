//! `u8`, `u16`, `i8` and `i16` elements in kernels (flags, masks, quantised samples): loads,
//! stores, arithmetic as Rust has it (wrapping where the kernel wraps), casts to and from wider
//! types, scalar arguments, neighbouring elements of one 32-bit word written by different work
//! items, and atomic OR / AND / XOR / add / min / max on single elements, on every backend (wgpu
//! packs them into 32-bit words; signed ones are read back sign-extended).

use crate::{check, dev, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

/// Each work item writes its own element of byte and half-word Views: adjacent elements share a
/// 32-bit word on backends that pack them.
#[kernel]
fn small_mix(
    i: usize,
    a: View<u8>,
    b: View<u16>,
    bytes: ViewMut<u8>,
    halves: ViewMut<u16>,
    wide: ViewMut<u32>,
) {
    let x = a[i];
    let y = b[i];
    bytes[i] = x.wrapping_add(17) ^ (i as u8);
    halves[i] = y.wrapping_mul(3).wrapping_sub(x as u16);
    let s = (x as u32) + (y as u32) + ((x >> 3) as u32) + ((y << 2) as u32);
    wide[i] = if x > 128 { s } else { s + 1000 };
}

/// Work item `i` sets bit `i % 8` of flag `i / 8` (eight work items per byte, four bytes per word)
/// and clears and toggles bits of two masks with the other atomic bitwise forms; `counts` gathers
/// wrapping byte sums (a compare-exchange loop on the word on wgpu).
#[kernel]
fn byte_atomics(
    i: usize,
    flags: ViewMut<u8>,
    masks: ViewMut<u16>,
    toggles: ViewMut<u16>,
    counts: ViewMut<u8>,
    old: ViewMut<u8>,
) {
    let bit = (1u32 << (i % 8)) as u8;
    old[i] = flags.atomic_fetch_or(i / 8, bit) & bit;
    masks.atomic_and(i / 16, !((1u32 << (i % 16)) as u16));
    toggles.atomic_xor((i / 16) + 1, (1u32 << (i % 16)) as u16);
    counts.atomic_add(i % 3, (i % 5) as u8);
}

fn u8_u16_elements<E: ExecutionSpace>(space: E) {
    check(12, (crate::sizes(), any::<u64>()), |(n, seed)| {
        let raw = crate::splitmix(seed, n);
        let av: Vec<u8> = raw.iter().map(|&r| r as u8).collect();
        let bv: Vec<u16> = raw.iter().map(|&r| (r >> 8) as u16).collect();
        let a: DevView<E, u8> = dev_from_vec(&space, "a", [n], av.clone())?;
        let b: DevView<E, u16> = dev_from_vec(&space, "b", [n], bv.clone())?;
        let bytes: DevView<E, u8> = dev(&space, "bytes", [n])?;
        let halves: DevView<E, u16> = dev(&space, "halves", [n])?;
        let wide: DevView<E, u32> = dev(&space, "wide", [n])?;
        parallel_for(
            "small_mix",
            RangePolicy::new(&space, 0..n),
            small_mix(&a, &b, &bytes, &halves, &wide),
        )?;
        let mut wb = Vec::new();
        let mut wh = Vec::new();
        let mut ww = Vec::new();
        for i in 0..n {
            let (x, y) = (av[i], bv[i]);
            wb.push(x.wrapping_add(17) ^ (i as u8));
            wh.push(y.wrapping_mul(3).wrapping_sub(x as u16));
            let s = (x as u32) + (y as u32) + ((x >> 3) as u32) + ((y << 2) as u32);
            ww.push(if x > 128 { s } else { s + 1000 });
        }
        prop_assert_eq!(to_host(&bytes), wb);
        prop_assert_eq!(to_host(&halves), wh);
        prop_assert_eq!(to_host(&wide), ww);

        let nf = n.div_ceil(8);
        let nm = n.div_ceil(16) + 1;
        let fl: Vec<u8> = raw
            .iter()
            .take(nf)
            .map(|&r| (r >> 16) as u8)
            .chain(std::iter::repeat(0))
            .take(nf)
            .collect();
        let mk: Vec<u16> = (0..nm)
            .map(|k| raw.get(k).map_or(0xffff, |&r| (r >> 24) as u16))
            .collect();
        let flags: DevView<E, u8> = dev_from_vec(&space, "flags", [nf], fl.clone())?;
        let masks: DevView<E, u16> = dev_from_vec(&space, "masks", [nm], mk.clone())?;
        let toggles: DevView<E, u16> = dev_from_vec(&space, "toggles", [nm], mk.clone())?;
        let counts: DevView<E, u8> = dev(&space, "counts", [3])?;
        let old: DevView<E, u8> = dev(&space, "old", [n])?;
        parallel_for(
            "byte_atomics",
            RangePolicy::new(&space, 0..n),
            byte_atomics(&flags, &masks, &toggles, &counts, &old),
        )?;
        let mut wf = fl.clone();
        let mut wm = mk.clone();
        let mut wt = mk.clone();
        let mut wc = [0u8; 3];
        let mut wo = Vec::new();
        for i in 0..n {
            let bit = (1u32 << (i % 8)) as u8;
            // The bit was set before only if the initial flags had it: each bit has one setter.
            wo.push(fl[i / 8] & bit);
            wf[i / 8] |= bit;
            wm[i / 16] &= !((1u32 << (i % 16)) as u16);
            wc[i % 3] = wc[i % 3].wrapping_add((i % 5) as u8);
        }
        for i in 0..n {
            wt[i / 16 + 1] ^= (1u32 << (i % 16)) as u16;
        }
        prop_assert_eq!(to_host(&flags), wf);
        prop_assert_eq!(to_host(&masks), wm);
        prop_assert_eq!(to_host(&toggles), wt);
        prop_assert_eq!(to_host(&counts), wc.to_vec());
        prop_assert_eq!(to_host(&old), wo);
        Ok(())
    });
}
per_backend!(u8_u16_elements);

/// Signed narrow values through every kind of operation: negative scalar arguments and literals,
/// arithmetic shifts, signed comparisons, division and remainder of negative operands, and
/// neighbouring elements of one word written by different work items.
#[kernel]
fn signed_mix(
    i: usize,
    a: View<i8>,
    b: View<i16>,
    k: i8,
    m: i16,
    bytes: ViewMut<i8, 2>,
    halves: ViewMut<i16, 2>,
    wide: ViewMut<i32>,
) {
    let x = a[i];
    let y = b[i];
    let d: i8 = if i % 3 == 0 { -3 } else { 7 };
    bytes[(i, 0)] = x.wrapping_add(k);
    bytes[(i, 1)] = x.wrapping_mul(x) ^ (i as i8);
    bytes[(i, 2)] = x >> 3;
    bytes[(i, 3)] = x << ((i % 8) as u32);
    bytes[(i, 4)] = !x;
    bytes[(i, 5)] = if x < -3 { x.max(-100) } else { x.min(k) };
    bytes[(i, 6)] = x / d;
    bytes[(i, 7)] = x % d;
    halves[(i, 0)] = y.wrapping_mul(3).wrapping_sub(x as i16);
    halves[(i, 1)] = y % 1000;
    halves[(i, 2)] = y >> 5;
    halves[(i, 3)] = y.wrapping_add(m);
    halves[(i, 4)] = (x as i16) * -200;
    halves[(i, 5)] = y.signum() * (y / 100).abs().max(1);
    wide[i] = x as i32 + (y as i32) * 3 + if (x as i16) > y { 1 } else { 0 };
}

/// Signed atomics on words shared by neighbouring elements: wrapping sums of negative values,
/// min / max across the sign, OR of the sign bit.
#[kernel]
fn signed_atomics(
    i: usize,
    sums: ViewMut<i8>,
    lows: ViewMut<i16>,
    highs: ViewMut<i8>,
    flags: ViewMut<i8>,
    old: ViewMut<i8>,
) {
    let v = (i % 7) as i8 - 3;
    sums.atomic_add(i % 3, v * 40);
    lows.atomic_min(i % 2, (i as i16).wrapping_mul(-331));
    highs.atomic_max(i % 4, (i as i8).wrapping_mul(37));
    let bit = (1u32 << (i % 8)) as i8;
    old[i] = flags.atomic_fetch_or(i / 8, bit) & bit;
}

fn i8_i16_elements<E: ExecutionSpace>(space: E) {
    check(12, (crate::sizes(), any::<u64>()), |(n, seed)| {
        let raw = crate::splitmix(seed, n);
        let av: Vec<i8> = raw.iter().map(|&r| r as i8).collect();
        let bv: Vec<i16> = raw.iter().map(|&r| (r >> 8) as i16).collect();
        let (k, m) = ((seed >> 40) as i8, (seed >> 48) as i16);
        let a: DevView<E, i8> = dev_from_vec(&space, "a", [n], av.clone())?;
        let b: DevView<E, i16> = dev_from_vec(&space, "b", [n], bv.clone())?;
        let bytes: DevView<E, i8, 2> = dev(&space, "bytes", [n, 8])?;
        let halves: DevView<E, i16, 2> = dev(&space, "halves", [n, 6])?;
        let wide: DevView<E, i32> = dev(&space, "wide", [n])?;
        parallel_for(
            "signed_mix",
            RangePolicy::new(&space, 0..n),
            signed_mix(&a, &b, k, m, &bytes, &halves, &wide),
        )?;
        let (mut wb, mut wh, mut ww) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..n {
            let (x, y) = (av[i], bv[i]);
            let d: i8 = if i % 3 == 0 { -3 } else { 7 };
            wb.extend([
                x.wrapping_add(k),
                x.wrapping_mul(x) ^ (i as i8),
                x >> 3,
                x << ((i % 8) as u32),
                !x,
                if x < -3 { x.max(-100) } else { x.min(k) },
                x / d,
                x % d,
            ]);
            wh.extend([
                y.wrapping_mul(3).wrapping_sub(x as i16),
                y % 1000,
                y >> 5,
                y.wrapping_add(m),
                (x as i16) * -200,
                y.signum() * (y / 100).abs().max(1),
            ]);
            ww.push(x as i32 + (y as i32) * 3 + if (x as i16) > y { 1 } else { 0 });
        }
        prop_assert_eq!(to_host(&bytes), wb);
        prop_assert_eq!(to_host(&halves), wh);
        prop_assert_eq!(to_host(&wide), ww);

        let nf = n.div_ceil(8);
        let fl: Vec<i8> = (0..nf).map(|j| raw[j] as i8 & 0x11).collect();
        let sums: DevView<E, i8> = dev(&space, "sums", [3])?;
        let lows: DevView<E, i16> = dev_from_vec(&space, "lows", [2], vec![i16::MAX, 5])?;
        let highs: DevView<E, i8> = dev_from_vec(&space, "highs", [4], vec![i8::MIN; 4])?;
        let flags: DevView<E, i8> = dev_from_vec(&space, "flags", [nf], fl.clone())?;
        let old: DevView<E, i8> = dev(&space, "old", [n])?;
        parallel_for(
            "signed_atomics",
            RangePolicy::new(&space, 0..n),
            signed_atomics(&sums, &lows, &highs, &flags, &old),
        )?;
        let (mut ws, mut wl, mut whi) = ([0i8; 3], [i16::MAX, 5], [i8::MIN; 4]);
        let (mut wf, mut wo) = (fl.clone(), Vec::new());
        for i in 0..n {
            let v = (i % 7) as i8 - 3;
            ws[i % 3] = ws[i % 3].wrapping_add(v * 40);
            wl[i % 2] = wl[i % 2].min((i as i16).wrapping_mul(-331));
            whi[i % 4] = whi[i % 4].max((i as i8).wrapping_mul(37));
            let bit = (1u32 << (i % 8)) as i8;
            wo.push(fl[i / 8] & bit);
            wf[i / 8] |= bit;
        }
        prop_assert_eq!(to_host(&sums), ws.to_vec());
        prop_assert_eq!(to_host(&lows), wl.to_vec());
        prop_assert_eq!(to_host(&highs), whi.to_vec());
        prop_assert_eq!(to_host(&flags), wf);
        prop_assert_eq!(to_host(&old), wo);
        Ok(())
    });
}
per_backend!(i8_i16_elements);

/// A wrapping prefix sum of `i8` values whose prefix the kernel compares: a device join that
/// left a narrow value out of its range would show in `neg`.
#[kernel(scan)]
fn i8_prefix(
    i: usize,
    partial: &mut i8,
    is_final: bool,
    x: View<i8>,
    out: ViewMut<i8>,
    neg: ViewMut<u8>,
) {
    if is_final {
        out[i] = *partial;
        neg[i] = (*partial < 0) as u8;
    }
    *partial = (*partial).wrapping_add(x[i]);
}

fn i8_scan<E: ExecutionSpace>(space: E) {
    check(
        8,
        (crate::sizes(), any::<u64>(), crate::chunk_sizes()),
        |(n, seed, chunk)| {
            let xs: Vec<i8> = crate::splitmix(seed, n).iter().map(|&r| r as i8).collect();
            let x: DevView<E, i8> = dev_from_vec(&space, "x", [n], xs.clone())?;
            let out: DevView<E, i8> = dev(&space, "out", [n])?;
            let neg: DevView<E, u8> = dev(&space, "neg", [n])?;
            let p = RangePolicy::new(&space, 0..n).chunk_size(chunk);
            let total: i8 = parallel_scan("i8_prefix", p, i8_prefix(&x, &out, &neg))?;
            let (mut want, mut wneg, mut run) = (Vec::new(), Vec::new(), 0i8);
            for &v in &xs {
                want.push(run);
                wneg.push((run < 0) as u8);
                run = run.wrapping_add(v);
            }
            prop_assert_eq!(total, run);
            prop_assert_eq!(to_host(&out), want);
            prop_assert_eq!(to_host(&neg), wneg);
            Ok(())
        },
    );
}
per_backend!(i8_scan);

/// Nested reductions of narrow values in a team: each row's `i8` minimum and maximum (the
/// identities are the type's extremes) and its wrapping `i16` sum, joined across the team's
/// threads.
#[kernel]
fn narrow_row_stats(
    team: &TeamMember,
    a: View<i8, 2>,
    lo: ViewMut<i8>,
    hi: ViewMut<i8>,
    s: ViewMut<i16>,
) {
    let l = team.league_rank();
    let mn = team.thread_reduce(a.extent(1), Min, |j, t: &mut i8| {
        if a[(l, j)] < *t {
            *t = a[(l, j)];
        }
    });
    let mx = team.thread_reduce(a.extent(1), Max, |j, t: &mut i8| {
        if a[(l, j)] > *t {
            *t = a[(l, j)];
        }
    });
    let sum = team.thread_reduce(a.extent(1), Sum, |j, t: &mut i16| {
        *t = (*t).wrapping_add((a[(l, j)] as i16) * 200);
    });
    team.single_team(|| {
        lo[l] = mn;
        hi[l] = mx;
        s[l] = sum;
    });
}

fn narrow_nested_reductions<E: ExecutionSpace>(space: E) {
    let leagues = proptest::sample::select(vec![0usize, 1, 3, 64, 257]);
    check(
        8,
        (leagues, 0usize..40, any::<u64>()),
        |(league, w, seed)| {
            let data: Vec<i8> = crate::splitmix(seed, league * w)
                .iter()
                .map(|&r| r as i8)
                .collect();
            let a: DevView<E, i8, 2> = dev_from_vec(&space, "a", [league, w], data.clone())?;
            let lo: DevView<E, i8> = dev(&space, "lo", [league])?;
            let hi: DevView<E, i8> = dev(&space, "hi", [league])?;
            let s: DevView<E, i16> = dev(&space, "s", [league])?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto);
            parallel_for("narrow_row_stats", p, narrow_row_stats(&a, &lo, &hi, &s))?;
            let rows = |l: usize| &data[l * w..(l + 1) * w];
            let wl: Vec<i8> = (0..league)
                .map(|l| rows(l).iter().copied().min().unwrap_or(i8::MAX))
                .collect();
            let wh: Vec<i8> = (0..league)
                .map(|l| rows(l).iter().copied().max().unwrap_or(i8::MIN))
                .collect();
            let ws: Vec<i16> = (0..league)
                .map(|l| {
                    rows(l)
                        .iter()
                        .fold(0i16, |x, &v| x.wrapping_add(v as i16 * 200))
                })
                .collect();
            prop_assert_eq!(to_host(&lo), wl);
            prop_assert_eq!(to_host(&hi), wh);
            prop_assert_eq!(to_host(&s), ws);
            Ok(())
        },
    );
}
per_backend!(narrow_nested_reductions);
