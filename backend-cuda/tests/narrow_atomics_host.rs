//! The atomics on u8, u16, i8 and i16 Views as the CUDA target emits them (`rk_nat_<t>_<op>`, a
//! compare-and-swap loop or a word instruction on the aligned 32-bit word holding the element),
//! tested without a GPU: compiled by the host C++ compiler (`c++`, or `ROKKOS_CXX`) with
//! `__device__` defined empty and CUDA's `atomicCAS`, `atomicAnd`, `atomicOr` and `atomicXor`
//! defined for one thread, then run on every element position of a word against Rust's own
//! operations on the narrow type (wrapping add, sub and mul, min, max, the bitwise ones, div,
//! mod, nand, the masked shifts, inc, dec, inc_mod, dec_mod, exchange, compare-exchange, load,
//! store; each where the type supports it: inc_mod and dec_mod are unsigned only), with the
//! word's other elements left as they were; the read-modify-writes also in their form returning
//! the value stored (`rk_nat_<t>_<op>_new`). The values tried include each type's edges (0, 1,
//! `MAX`, `MIN`, -1 and -2 as bits), so that the signed types' min, max, div, mod and right shift
//! show whether they sign-extend, and `MIN / -1` whether it wraps.
//!
//! The host `atomicCAS` can change the word before its first comparison (`I`, xored in), as
//! another thread's write would: the loop must then retry from the value it was told about and
//! keep the other thread's bits.
//!
//! Without a host compiler the test says so and passes, unless `ROKKOS_REQUIRE_NVRTC=1` (CI sets
//! it; the emitted helpers' NVRTC and ptxas check is the emitter test
//! `atomics_on_narrow_views_compile`).

use rokkos_core::ir::{AtomicOp, ScalarType};
use rokkos_cuda::emit::narrow_atomic_library;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn required() -> bool {
    std::env::var("ROKKOS_REQUIRE_NVRTC").as_deref() == Ok("1")
}

/// CUDA's word atomics for one thread; `rk_interfere` is xored into the word by the next
/// `atomicCAS` before it compares (then cleared), standing for another thread's write.
const HOST_SHIMS: &str = "#include <stdio.h>
#define __device__
#define __forceinline__ inline
static unsigned int rk_interfere = 0u;
static unsigned int atomicCAS(unsigned int* a, unsigned int cmp, unsigned int val) {
    *a ^= rk_interfere;
    rk_interfere = 0u;
    const unsigned int old = *a;
    if (old == cmp) { *a = val; }
    return old;
}
static unsigned int atomicAnd(unsigned int* a, unsigned int v) { const unsigned int o = *a; *a = o & v; return o; }
static unsigned int atomicOr(unsigned int* a, unsigned int v) { const unsigned int o = *a; *a = o | v; return o; }
static unsigned int atomicXor(unsigned int* a, unsigned int v) { const unsigned int o = *a; *a = o ^ v; return o; }
";

const TYPES: [ScalarType; 4] = [
    ScalarType::U8,
    ScalarType::U16,
    ScalarType::I8,
    ScalarType::I16,
];

/// The unsigned type of `t`'s width, in C: a returned value is written as its bits.
fn bits_type(t: ScalarType) -> &'static str {
    if t.bits() == 8 {
        "u8"
    } else {
        "u16"
    }
}

/// The host program: reads lines `t op byte word x y interfere` (`t` the type's position in
/// [`TYPES`], `op` the operation's in [`AtomicOp::ALL`] plus 100 for the form returning the value
/// stored, the rest hex), runs the operation on the element at byte `byte` of `word` and writes
/// `returned word` (hex, the returned value as its bits; a store returns 0).
fn program() -> String {
    let mut lib = String::new();
    let mut cases = String::new();
    for (ti, t) in TYPES.into_iter().enumerate() {
        lib.push_str(&narrow_atomic_library(t).expect("a narrow type"));
        let (tn, bn) = (t.name(), bits_type(t));
        for (oi, op) in AtomicOp::ALL.into_iter().enumerate() {
            if !op.supports(t) {
                continue;
            }
            for new in [false, true] {
                if new && !op.has_new_value() {
                    continue;
                }
                let args = ["x", "y"][..op.arg_count()]
                    .iter()
                    .map(|a| format!(", ({tn}){a}"))
                    .collect::<String>();
                let suffix = if new { "_new" } else { "" };
                let call = format!("rk_nat_{tn}_{}{suffix}(({tn}*)(b + byte){args})", op.name());
                let body = if op.yields_value() {
                    format!("r = (unsigned int)({bn}){call};")
                } else {
                    format!("{call};")
                };
                cases.push_str(&format!(
                    "        case {}: {{ {body} break; }}\n",
                    ti * 1000 + oi + if new { 100 } else { 0 }
                ));
            }
        }
    }
    format!(
        "{HOST_SHIMS}{lib}
int main() {{
    unsigned int t, op, byte, word, x, y, interfere;
    while (scanf(\"%x %x %x %x %x %x %x\", &t, &op, &byte, &word, &x, &y, &interfere) == 7) {{
        unsigned int w = word;
        unsigned char* b = (unsigned char*)&w;
        unsigned int r = 0u;
        rk_interfere = interfere;
        switch (t * 1000u + op) {{
{cases}        default: return 2;
        }}
        printf(\"%x %x\\n\", r, w);
    }}
    return 0;
}}
"
    )
}

/// The compiled host program; `None` (skip) without a compiler.
fn binary() -> Option<PathBuf> {
    let cxx = std::env::var("ROKKOS_CXX").unwrap_or_else(|_| "c++".into());
    let dir = std::env::temp_dir().join(format!("rokkos-narrow-atomics-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("narrow.cpp");
    std::fs::write(&src, program()).unwrap();
    let bin = dir.join("narrow");
    let out = Command::new(&cxx)
        .args(["-std=c++17", "-O2", "-Wall", "-Werror", "-o"])
        .arg(&bin)
        .arg(&src)
        .output();
    match out {
        Ok(o) if o.status.success() => Some(bin),
        Ok(o) => panic!(
            "{cxx} refused the narrow atomics ({}):\n{}",
            src.display(),
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) if required() => panic!("ROKKOS_REQUIRE_NVRTC=1 but no host compiler `{cxx}`: {e}"),
        Err(e) => {
            eprintln!("skipping: no host compiler `{cxx}`: {e}");
            None
        }
    }
}

/// One operation on one element of a word.
#[derive(Clone, Copy, Debug)]
struct Case {
    t: usize,
    op: AtomicOp,
    byte: u32,
    word: u32,
    x: u32,
    y: u32,
    interfere: u32,
    /// The form returning the value stored.
    new: bool,
}

impl Case {
    fn bits(&self) -> u32 {
        TYPES[self.t].bits()
    }
    fn mask(&self) -> u32 {
        (1u32 << self.bits()) - 1
    }
    fn get(&self, w: u32) -> u32 {
        (w >> (8 * self.byte)) & self.mask()
    }
    fn put(&self, w: u32, v: u32) -> u32 {
        (w & !(self.mask() << (8 * self.byte))) | (v << (8 * self.byte))
    }

    /// Rust's result of the operation on element value `old`: the new value.
    fn apply(&self, old: u32) -> u32 {
        use AtomicOp as A;
        // Through the narrow Rust type itself (`$t`; `$u` the unsigned one of its width), so that
        // wrapping and signedness are Rust's. The shift amount is the operand's bits, `self.x`.
        macro_rules! on {
            ($t:ty, $u:ty) => {{
                let (o, x, y) = (old as $u as $t, self.x as $u as $t, self.y as $u as $t);
                (match self.op {
                    A::Add => o.wrapping_add(x),
                    A::Sub => o.wrapping_sub(x),
                    A::Min => o.min(x),
                    A::Max => o.max(x),
                    A::And => o & x,
                    A::Or => o | x,
                    A::Xor => o ^ x,
                    A::Mul => o.wrapping_mul(x),
                    A::Div => o.wrapping_div(x),
                    A::Mod => o.wrapping_rem(x),
                    A::Nand => !(o & x),
                    A::Lshift => o.wrapping_shl(self.x),
                    A::Rshift => o.wrapping_shr(self.x),
                    A::Inc => o.wrapping_add(1),
                    A::Dec => o.wrapping_sub(1),
                    A::IncMod => {
                        if o >= x {
                            0
                        } else {
                            o + 1
                        }
                    }
                    A::DecMod => {
                        if o == 0 || o > x {
                            x
                        } else {
                            o - 1
                        }
                    }
                    A::Exchange | A::Store => x,
                    A::CompareExchange => {
                        if o == x {
                            y
                        } else {
                            o
                        }
                    }
                    A::Load => o,
                }) as $u as u32
            }};
        }
        match TYPES[self.t] {
            ScalarType::U8 => on!(u8, u8),
            ScalarType::U16 => on!(u16, u16),
            ScalarType::I8 => on!(i8, u8),
            _ => on!(i16, u16),
        }
    }

    /// The returned value and the word afterwards. An operation that reaches `atomicCAS` sees
    /// the interfering write there first and retries from the word it now holds; one that
    /// changes nothing (or a word instruction) never calls it.
    fn expected(&self) -> (u32, u32) {
        use AtomicOp as A;
        let uses_cas = !matches!(self.op, A::And | A::Or | A::Xor | A::Load);
        let mut w = self.word;
        if uses_cas && self.apply(self.get(w)) != self.get(w) {
            w ^= self.interfere;
        }
        let old = self.get(w);
        let ret = match (self.op.yields_value(), self.new) {
            (false, _) => 0,
            (true, false) => old,
            (true, true) => self.apply(old),
        };
        (ret, self.put(w, self.apply(old)))
    }
}

/// The element values tried: the edges of wrapping, min and max, and a few inside.
fn values(bits: u32) -> Vec<u32> {
    let max = (1u32 << bits) - 1;
    let half = 1u32 << (bits - 1);
    vec![0, 1, 2, 0x5a & max, half - 1, half, max - 1, max]
}

fn cases() -> Vec<Case> {
    // The word's other bytes are a pattern, so that a write to the wrong bits shows.
    const BACKGROUND: u32 = 0xa53c_96e1;
    let mut v = Vec::new();
    for (t, ty) in TYPES.into_iter().enumerate() {
        let c0 = Case {
            t,
            op: AtomicOp::Add,
            byte: 0,
            word: 0,
            x: 0,
            y: 0,
            interfere: 0,
            new: false,
        };
        let step = c0.bits() / 8;
        let vals = values(c0.bits());
        let forms = AtomicOp::ALL
            .into_iter()
            .filter(|op| op.supports(ty))
            .flat_map(|op| {
                let new = op.has_new_value().then_some((op, true));
                [(op, false)].into_iter().chain(new)
            });
        for (op, new) in forms {
            for byte in (0..4).step_by(step as usize) {
                let c1 = Case {
                    op,
                    byte,
                    new,
                    ..c0
                };
                // Another thread's write: to a neighbour only, or to this element too.
                let neighbour = !(c1.mask() << (8 * byte)) & 0x0f0f_0f0f;
                for interfere in [0, neighbour, 0x0101_0101] {
                    for &old in &vals {
                        // A zero divisor never reaches the word helper (the View helper fails
                        // the work item first).
                        let divides = matches!(op, AtomicOp::Div | AtomicOp::Mod);
                        for &x in vals.iter().filter(|&&x| !(divides && x == 0)) {
                            let ys: &[u32] = if op == AtomicOp::CompareExchange {
                                &vals
                            } else {
                                &[0]
                            };
                            for &y in ys {
                                let c = Case {
                                    word: c1.put(BACKGROUND, old),
                                    x,
                                    y,
                                    interfere,
                                    ..c1
                                };
                                v.push(c);
                            }
                        }
                    }
                }
            }
        }
    }
    v
}

#[test]
fn narrow_atomics_match_rust_on_every_element_position() {
    let Some(bin) = binary() else { return };
    let cases = cases();
    let text: String = cases
        .iter()
        .map(|c| {
            let op = AtomicOp::ALL.iter().position(|&o| o == c.op).unwrap() + 100 * c.new as usize;
            format!(
                "{:x} {op:x} {:x} {:x} {:x} {:x} {:x}\n",
                c.t, c.byte, c.word, c.x, c.y, c.interfere
            )
        })
        .collect();
    let mut child = Command::new(&bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "the host program failed");
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), cases.len());
    for (c, l) in cases.iter().zip(&lines) {
        let got: Vec<u32> = l
            .split(' ')
            .map(|s| u32::from_str_radix(s, 16).unwrap())
            .collect();
        let (ret, word) = c.expected();
        assert_eq!(
            (got[0], got[1]),
            (ret, word),
            "{c:x?}: got {:#x} and word {:#x}, Rust gives {ret:#x} and word {word:#x}",
            got[0],
            got[1]
        );
    }
}
