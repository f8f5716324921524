//! Random inputs for a kernel: work extents (empty, tiny, chunk boundaries), begins, tiles and
//! chunk sizes, and data drawn with edge values over-represented ([`rokkos_fuzz_gen::values`]).

use crate::rt::Input;
use rokkos::ir::Value;
use rokkos_fuzz_gen::ast::{Extent, Family, Kernel};
use rokkos_fuzz_gen::corpus::Fixed;
use rokkos_fuzz_gen::rng::Rng;
use rokkos_fuzz_gen::ty::{Lit, Ty};
use rokkos_fuzz_gen::values::random_lit;

/// The salt of input streams.
pub const INPUT_SALT: u64 = 2;

/// An IR value of a generator constant (`usize` as `U64`, `isize` as `I64`).
pub fn value(l: Lit) -> Value {
    match l.ty {
        Ty::Bool => Value::Bool(l.bits != 0),
        Ty::I32 => Value::I32(l.bits as i32),
        Ty::U32 => Value::U32(l.bits as u32),
        Ty::I64 | Ty::Isize => Value::I64(l.bits as i64),
        Ty::U64 | Ty::Usize => Value::U64(l.bits),
        Ty::F32 => Value::F32(f32::from_bits(l.bits as u32)),
        Ty::F64 => Value::F64(f64::from_bits(l.bits)),
    }
}

fn extent(e: &Extent, ends: &[usize]) -> usize {
    match e {
        Extent::Work(k) => ends[*k as usize],
        Extent::Fixed(n) => *n as usize,
    }
}

/// Input set `index` of kernel `k` whose inputs are seeded by `seed`.
pub fn random(k: &Kernel, seed: u64, index: u64) -> Input {
    let mut rng = Rng::derive(seed, INPUT_SALT, index);
    let rank = k.family.rank();
    let size = |rng: &mut Rng, big: bool| -> usize {
        if big && rng.chance(15) {
            *rng.pick(&[255, 256, 257, 300, 1025])
        } else {
            *rng.pick(&[0, 1, 1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 33, 64])
        }
    };
    let (ends, begins, tiles) = match k.family {
        Family::TeamFor | Family::TeamReduce => {
            let league = *rng.pick(&[0, 1, 1, 2, 3, 4, 5, 7, 9]);
            let inner = *rng.pick(&[0, 1, 2, 3, 5, 8, 12]);
            (vec![league, inner], vec![0, 0], Vec::new())
        }
        _ if rank == 1 => {
            let n = size(&mut rng, true);
            let b = if rng.chance(20) { rng.range(0, n) } else { 0 };
            (vec![n], vec![b], Vec::new())
        }
        _ => {
            let ends: Vec<usize> = (0..rank).map(|_| rng.range(0, 9)).collect();
            let begins = ends
                .iter()
                .map(|&e| if rng.chance(25) { rng.range(0, e) } else { 0 })
                .collect();
            let tiles = (0..rank)
                .map(|_| *rng.pick(&[0, 0, 1, 2, 3, 4, 16]))
                .collect();
            (ends, begins, tiles)
        }
    };
    let iterate_left = rng.chance(30);
    let chunk = if rng.chance(30) {
        *rng.pick(&[1, 2, 7, 64])
    } else {
        0
    };
    let inputs = k
        .inputs
        .iter()
        .map(|x| {
            let n: usize = x.dims.iter().map(|d| extent(d, &ends)).product();
            (0..n).map(|_| value(random_lit(&mut rng, x.ty))).collect()
        })
        .collect();
    let atomics = k
        .atomics
        .iter()
        .map(|v| {
            let n = extent(&v.len, &ends);
            (0..n)
                .map(|_| {
                    if v.ty.is_float() {
                        // Float atomic sums of small integers are exact in any order only from
                        // an integer, or a value no finite sum changes (NaN, infinities).
                        let c = [0.0, -0.0, 3.0, -8.0, f64::NAN, f64::INFINITY];
                        value(Lit::float(v.ty, *rng.pick(&c)))
                    } else {
                        value(random_lit(&mut rng, v.ty))
                    }
                })
                .collect()
        })
        .collect();
    let scalars = k
        .scalars
        .iter()
        .map(|&t| value(random_lit(&mut rng, t)))
        .collect();
    Input {
        ends,
        begins,
        tiles,
        chunk,
        iterate_left,
        inputs,
        atomics,
        scalars,
    }
}

/// The input of a corpus case.
pub fn fixed(k: &Kernel, f: &Fixed) -> Input {
    Input {
        ends: vec![f.n],
        begins: vec![0],
        tiles: Vec::new(),
        chunk: 0,
        iterate_left: false,
        inputs: f
            .inputs
            .iter()
            .map(|v| v.iter().map(|&l| value(l)).collect())
            .collect(),
        atomics: k.atomics.iter().map(|_| Vec::new()).collect(),
        scalars: Vec::new(),
    }
}

/// Smaller versions of a failing input, most reduced first: fewer work items, and data set to
/// zero, for the reproducer.
pub fn smaller(k: &Kernel, inp: &Input) -> Vec<Input> {
    let mut out: Vec<Input> = Vec::new();
    for (d, &e) in inp.ends.iter().enumerate() {
        for cut in [1, e / 2, e.saturating_sub(1)] {
            if cut >= e || cut < inp.begins.get(d).copied().unwrap_or(0) {
                continue;
            }
            let mut s = inp.clone();
            s.ends[d] = cut;
            // Per-work-item data shrinks with the extent: rebuild it by index.
            resize(k, inp, &mut s);
            if !out.iter().any(|o| o.same(&s)) {
                out.push(s);
            }
        }
    }
    out
}

/// Rewrites the per-item data of `s` (whose extents shrank from `orig`'s) by logical index.
fn resize(k: &Kernel, orig: &Input, s: &mut Input) {
    let dims_of = |dims: &[Extent], ends: &[usize]| -> Vec<usize> {
        dims.iter().map(|d| extent(d, ends)).collect()
    };
    let remap = |data: &[Value], from: &[usize], to: &[usize]| -> Vec<Value> {
        let n: usize = to.iter().product();
        let mut out = Vec::with_capacity(n);
        for flat in 0..n {
            let mut rem = flat;
            let mut idx = vec![0; to.len()];
            for d in (0..to.len()).rev() {
                idx[d] = rem % to[d];
                rem /= to[d];
            }
            let mut src = 0;
            for d in 0..from.len() {
                src = src * from[d] + idx[d];
            }
            out.push(data[src]);
        }
        out
    };
    for (x, v) in k.inputs.iter().zip(s.inputs.iter_mut()) {
        let (from, to) = (dims_of(&x.dims, &orig.ends), dims_of(&x.dims, &s.ends));
        *v = remap(v, &from, &to);
    }
    for (a, v) in k.atomics.iter().zip(s.atomics.iter_mut()) {
        let (from, to) = (dims_of(&[a.len], &orig.ends), dims_of(&[a.len], &s.ends));
        if !v.is_empty() {
            *v = remap(v, &from, &to);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rokkos_fuzz_gen::ast::{InView, Layout};

    #[test]
    fn smaller_inputs_keep_the_elements_of_the_remaining_work_items() {
        let mut k = rokkos_fuzz_gen::corpus::kernel("item6_u32_to_i64").unwrap();
        k.family = Family::MdFor(2);
        k.inputs = vec![InView {
            ty: Ty::U32,
            dims: vec![Extent::Work(0), Extent::Work(1)],
            layout: Layout::Right,
        }];
        let inp = Input {
            ends: vec![2, 3],
            begins: vec![0, 0],
            tiles: vec![0, 0],
            chunk: 0,
            iterate_left: false,
            inputs: vec![(0..6).map(Value::U32).collect()],
            atomics: Vec::new(),
            scalars: Vec::new(),
        };
        let small = smaller(&k, &inp);
        let one_row = small.iter().find(|s| s.ends == vec![1, 3]).unwrap();
        assert_eq!(
            one_row.inputs[0],
            vec![Value::U32(0), Value::U32(1), Value::U32(2)]
        );
        let one_col = small.iter().find(|s| s.ends == vec![2, 1]).unwrap();
        assert_eq!(one_col.inputs[0], vec![Value::U32(0), Value::U32(3)]);
    }

    #[test]
    fn random_inputs_fit_the_kernel() {
        for i in 0..60 {
            let k = rokkos_fuzz_gen::gen::kernel(3, i);
            let inp = random(&k, 5, i);
            assert_eq!(inp.inputs.len(), k.inputs.len());
            assert_eq!(inp.scalars.len(), k.scalars.len());
            for (d, x) in inp.inputs.iter().zip(&k.inputs) {
                let n: usize = x.dims.iter().map(|e| extent(e, &inp.ends)).product();
                assert_eq!(d.len(), n);
            }
            assert!(inp.same(&random(&k, 5, i)), "input sets are reproducible");
        }
    }
}
