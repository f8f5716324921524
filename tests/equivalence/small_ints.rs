//! `u8` and `u16` elements in kernels (flags and masks): loads, stores, arithmetic as Rust has it
//! (wrapping where the kernel wraps), casts to and from wider types, neighbouring elements of one
//! 32-bit word written by different work items, and atomic OR / AND / XOR / add on single elements,
//! on every backend (wgpu packs them into 32-bit words).

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
