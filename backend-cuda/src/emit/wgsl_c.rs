//! The software math library (`rokkos_device::emit::mathlib`, written once in WGSL) lowered to CUDA
//! C++. The library uses a small subset of WGSL, and each construct of it has a direct C++
//! spelling, so the lowering is a rewrite of tokens, not a compiler:
//!
//! | WGSL | CUDA C++ |
//! |---|---|
//! | `fn f(a: T, b: U) -> R {` | `__device__ R f(T a, U b) {` (and a prototype, [`Lowered::protos`]) |
//! | `let x = e;` / `let x: T = e;` | `const auto x = e;` / `const T x = e;` |
//! | `var x = e;` / `var x: T = e;` / `var x: T;` | `auto x = e;` / `T x = e;` / `T x{};` (WGSL zero-initialises) |
//! | `var a: array<T, N>;` | `T a[N] = {};` |
//! | `const A = array<T, N>(v, ...);` (module scope) | `__device__ const T A[N] = {v, ...};` |
//! | `loop {` | `for (;;) {` |
//! | `vec2<T>(a, b)`, `vec3<T>`, `-v` | `rk_vec2<T>(a, b)`, `rk_vec3<T>`, `-v` ([`SUPPORT`]) |
//! | `bitcast<T>(e)` | `rk_bitcast<T>(e)` |
//! | `select(f, t, c)`, `abs`, `min`, `max`, `clamp`, `floor`, `ceil`, `trunc`, `sqrt`, `fma` | `rk_select(f, t, c)`, `rk_abs`, ... ([`SUPPORT`]: WGSL's semantics, typed overloads) |
//! | `T(e)` (a conversion) | `T(e)` (C++'s functional cast) |
//! | `1i`, `2u`, `3li`, `4lu`, `1.5lf`, `1.5f` | `1`, `2u`, `3ll`, `4ull`, `1.5`, `1.5f` |
//!
//! Anything else the lowering does not know (a `ptr`, a `struct`, a `switch`, an unsuffixed float
//! literal, whose WGSL type depends on its context) is an error naming it, never C with another
//! meaning. NVRTC compiles IEEE-strict (`--fmad=false`, no fast-math), so the library's error-free
//! transformations hold as written; its opaque identity `rk_<t>_opq` stays (an integer operation
//! on the bits, cheap) and costs nothing in correctness.

use std::fmt::Write as _;

/// What every lowered helper relies on: `vec2`/`vec3`, `bitcast`, `select` and WGSL's numeric
/// built-ins with WGSL's meaning (typed overloads, so that an f32 argument never computes in
/// f64). `min`/`max` of floats are `fmin`/`fmax` (WGSL leaves a NaN operand open; the library
/// never passes one).
pub(crate) const SUPPORT: &str = "// The WGSL built-ins the math library uses.
template <class T> struct rk_vec2 { T x, y; __device__ __forceinline__ rk_vec2() : x(0), y(0) {} __device__ __forceinline__ rk_vec2(T a, T b) : x(a), y(b) {} __device__ __forceinline__ rk_vec2 operator-() const { return rk_vec2(-x, -y); } };
template <class T> struct rk_vec3 { T x, y, z; __device__ __forceinline__ rk_vec3() : x(0), y(0), z(0) {} __device__ __forceinline__ rk_vec3(T a, T b, T c) : x(a), y(b), z(c) {} __device__ __forceinline__ rk_vec3 operator-() const { return rk_vec3(-x, -y, -z); } };
template <class T> struct rk_bits_of;
template <> struct rk_bits_of<f64> { static __device__ __forceinline__ u64 to(f64 x) { return (u64)__double_as_longlong(x); } };
template <> struct rk_bits_of<f32> { static __device__ __forceinline__ u32 to(f32 x) { return __float_as_uint(x); } };
template <> struct rk_bits_of<u64> { static __device__ __forceinline__ u64 to(u64 x) { return x; } };
template <> struct rk_bits_of<i64> { static __device__ __forceinline__ u64 to(i64 x) { return (u64)x; } };
template <> struct rk_bits_of<u32> { static __device__ __forceinline__ u32 to(u32 x) { return x; } };
template <> struct rk_bits_of<i32> { static __device__ __forceinline__ u32 to(i32 x) { return (u32)x; } };
template <class T> struct rk_from_bits;
template <> struct rk_from_bits<f64> { static __device__ __forceinline__ f64 from(u64 b) { return __longlong_as_double((long long)b); } };
template <> struct rk_from_bits<f32> { static __device__ __forceinline__ f32 from(u32 b) { return __uint_as_float(b); } };
template <> struct rk_from_bits<u64> { static __device__ __forceinline__ u64 from(u64 b) { return b; } };
template <> struct rk_from_bits<i64> { static __device__ __forceinline__ i64 from(u64 b) { return (i64)b; } };
template <> struct rk_from_bits<u32> { static __device__ __forceinline__ u32 from(u32 b) { return b; } };
template <> struct rk_from_bits<i32> { static __device__ __forceinline__ i32 from(u32 b) { return (i32)b; } };
template <class T, class F> __device__ __forceinline__ T rk_bitcast(F x) { return rk_from_bits<T>::from(rk_bits_of<F>::to(x)); }
template <class T> __device__ __forceinline__ T rk_select(T f, T t, bool c) { return c ? t : f; }
template <class T> __device__ __forceinline__ T rk_min(T a, T b) { return b < a ? b : a; }
template <class T> __device__ __forceinline__ T rk_max(T a, T b) { return b > a ? b : a; }
__device__ __forceinline__ f64 rk_min(f64 a, f64 b) { return fmin(a, b); }
__device__ __forceinline__ f64 rk_max(f64 a, f64 b) { return fmax(a, b); }
__device__ __forceinline__ f32 rk_min(f32 a, f32 b) { return fminf(a, b); }
__device__ __forceinline__ f32 rk_max(f32 a, f32 b) { return fmaxf(a, b); }
template <class T> __device__ __forceinline__ T rk_clamp(T x, T lo, T hi) { return rk_min(rk_max(x, lo), hi); }
__device__ __forceinline__ i32 rk_abs(i32 x) { return x < 0 ? (i32)(0u - (u32)x) : x; }
__device__ __forceinline__ f64 rk_abs(f64 x) { return fabs(x); }
__device__ __forceinline__ f32 rk_abs(f32 x) { return fabsf(x); }
__device__ __forceinline__ f64 rk_floor(f64 x) { return floor(x); }
__device__ __forceinline__ f32 rk_floor(f32 x) { return floorf(x); }
__device__ __forceinline__ f64 rk_ceil(f64 x) { return ceil(x); }
__device__ __forceinline__ f32 rk_ceil(f32 x) { return ceilf(x); }
__device__ __forceinline__ f64 rk_trunc(f64 x) { return trunc(x); }
__device__ __forceinline__ f32 rk_trunc(f32 x) { return truncf(x); }
__device__ __forceinline__ f64 rk_sqrt(f64 x) { return sqrt(x); }
__device__ __forceinline__ f32 rk_sqrt(f32 x) { return sqrtf(x); }
__device__ __forceinline__ f64 rk_fma(f64 a, f64 b, f64 c) { return fma(a, b, c); }
__device__ __forceinline__ f32 rk_fma(f32 a, f32 b, f32 c) { return fmaf(a, b, c); }
";

/// WGSL built-in functions and their [`SUPPORT`] names.
const BUILTINS: [(&str, &str); 10] = [
    ("select", "rk_select"),
    ("abs", "rk_abs"),
    ("min", "rk_min"),
    ("max", "rk_max"),
    ("clamp", "rk_clamp"),
    ("floor", "rk_floor"),
    ("ceil", "rk_ceil"),
    ("trunc", "rk_trunc"),
    ("sqrt", "rk_sqrt"),
    ("fma", "rk_fma"),
];

/// WGSL's scalar type names, which the C prelude declares under the same names.
const SCALARS: [&str; 7] = ["bool", "i32", "u32", "i64", "u64", "f32", "f64"];

/// One lowered WGSL text.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Lowered {
    /// The definitions, in the order of the WGSL text.
    pub(crate) defs: String,
    /// `(function name, prototype)` of every function defined: C needs a declaration before a
    /// use, and the helpers are rendered in name order, not in the order they call each other.
    pub(crate) protos: Vec<(String, String)>,
}

/// A token of the WGSL text.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// A numeric literal, already in C.
    Num(String),
    Punct(String),
    /// Whitespace and comments, kept as they are.
    Space(String),
}

fn tokens(src: &str) -> Result<Vec<Tok>, String> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        let start = i;
        if c.is_whitespace() {
            while i < b.len() && (b[i] as char).is_whitespace() {
                i += 1;
            }
            out.push(Tok::Space(src[start..i].into()));
        } else if src[i..].starts_with("//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            out.push(Tok::Space(src[start..i].into()));
        } else if c.is_ascii_alphabetic() || c == '_' {
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(src[start..i].into()));
        } else if c.is_ascii_digit() || (c == '.' && i + 1 < b.len() && b[i + 1].is_ascii_digit()) {
            let (text, len) = number(&src[i..])?;
            i += len;
            out.push(Tok::Num(text));
        } else {
            // Two-character operators first, so that `->` and `<<` stay whole.
            let two = src.get(i..i + 2).unwrap_or("");
            let len = if [
                "->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=",
            ]
            .contains(&two)
            {
                2
            } else {
                c.len_utf8()
            };
            out.push(Tok::Punct(src[i..i + len].into()));
            i += len;
        }
    }
    Ok(out)
}

/// The C text of the numeric literal at the start of `s`, and its length in `s`.
fn number(s: &str) -> Result<(String, usize), String> {
    let b = s.as_bytes();
    let mut i = 0;
    let hex = s.starts_with("0x") || s.starts_with("0X");
    let mut float = false;
    if hex {
        i = 2;
        while i < b.len() && b[i].is_ascii_hexdigit() {
            i += 1;
        }
    } else {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i < b.len() && b[i] == b'.' {
            float = true;
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            float = true;
            i += 1;
            if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
                i += 1;
            }
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    let digits = &s[..i];
    let mut j = i;
    while j < b.len() && (b[j] as char).is_ascii_alphanumeric() {
        j += 1;
    }
    let suffix = &s[i..j];
    let c = match (float, suffix) {
        (false, "i") => digits.to_string(),
        (false, "u") => format!("{digits}u"),
        (false, "li") => format!("{digits}ll"),
        (false, "lu") => format!("{digits}ull"),
        // An abstract integer: C's `int` where it fits, as WGSL's i32 (the library's use).
        (false, "") if !hex => digits.to_string(),
        (true, "lf") => digits.to_string(),
        (true, "f") => format!("{digits}f"),
        _ => {
            return Err(format!(
                "literal `{}` (a type the lowering does not spell, or one that depends on context)",
                &s[..j]
            ))
        }
    };
    Ok((c, j))
}

/// A cursor over the tokens, skipping whitespace where a construct is parsed.
struct Cur<'a> {
    t: &'a [Tok],
    i: usize,
}

impl Cur<'_> {
    fn skip_space(&mut self) {
        while let Some(Tok::Space(_)) = self.t.get(self.i) {
            self.i += 1;
        }
    }
    fn next_sig(&mut self) -> Option<Tok> {
        self.skip_space();
        let t = self.t.get(self.i).cloned();
        self.i += 1;
        t
    }
    fn peek_sig(&self) -> Option<&Tok> {
        self.t[self.i..]
            .iter()
            .find(|t| !matches!(t, Tok::Space(_)))
    }
    fn expect(&mut self, p: &str) -> Result<(), String> {
        match self.next_sig() {
            Some(Tok::Punct(q)) if q == p => Ok(()),
            t => Err(format!("expected `{p}`, found {t:?}")),
        }
    }
    fn ident(&mut self) -> Result<String, String> {
        match self.next_sig() {
            Some(Tok::Ident(s)) => Ok(s),
            t => Err(format!("expected a name, found {t:?}")),
        }
    }
    /// A WGSL type (`f64`, `vec2<f64>`, `array<u32, 3>`), as C: the type and an array suffix.
    fn ty(&mut self) -> Result<(String, String), String> {
        let name = self.ident()?;
        match name.as_str() {
            "vec2" | "vec3" => {
                self.expect("<")?;
                let (inner, arr) = self.ty()?;
                self.expect(">")?;
                if !arr.is_empty() {
                    return Err(format!("{name} of an array"));
                }
                Ok((format!("rk_{name}<{inner}>"), String::new()))
            }
            "array" => {
                self.expect("<")?;
                let (inner, arr) = self.ty()?;
                self.expect(",")?;
                let n = match self.next_sig() {
                    Some(Tok::Num(n)) => n,
                    t => return Err(format!("array length {t:?}")),
                };
                self.expect(">")?;
                Ok((inner, format!("[{n}]{arr}")))
            }
            s if SCALARS.contains(&s) => Ok((name, String::new())),
            s => Err(format!("type `{s}`")),
        }
    }
}

/// C++ keywords a WGSL name could be: such a name is refused rather than renamed (the library's
/// names are all `rk_` helpers and short locals, so this only guards a future template).
const CXX_KEYWORDS: [&str; 24] = [
    "auto", "char", "class", "default", "delete", "double", "float", "goto", "int", "long", "new",
    "operator", "private", "public", "register", "short", "signed", "sizeof", "static", "template",
    "this", "typedef", "union", "unsigned",
];

/// `src` (WGSL functions and module-scope constant arrays, as the math library writes them) in
/// CUDA C++, or the construct the lowering does not know.
pub(crate) fn lower(src: &str) -> Result<Lowered, String> {
    let toks = tokens(src)?;
    let mut c = Cur { t: &toks, i: 0 };
    let mut out = String::with_capacity(src.len() * 5 / 4);
    let mut protos = Vec::new();
    while c.i < toks.len() {
        let tok = toks[c.i].clone();
        c.i += 1;
        match tok {
            Tok::Space(s) | Tok::Num(s) => out.push_str(&s),
            Tok::Punct(p) => out.push_str(&p),
            Tok::Ident(id) => match id.as_str() {
                "fn" => {
                    let name = c.ident()?;
                    c.expect("(")?;
                    let mut params = Vec::new();
                    loop {
                        if let Some(Tok::Punct(p)) = c.peek_sig() {
                            if p == ")" {
                                c.next_sig();
                                break;
                            }
                            if p == "," {
                                c.next_sig();
                                continue;
                            }
                        }
                        let pn = c.ident()?;
                        c.expect(":")?;
                        let (t, arr) = c.ty()?;
                        if !arr.is_empty() {
                            return Err(format!("array parameter `{pn}` of `{name}`"));
                        }
                        params.push(format!("{t} {}", checked_name(&pn)?));
                    }
                    let ret = match c.peek_sig() {
                        Some(Tok::Punct(p)) if p == "->" => {
                            c.next_sig();
                            let (t, arr) = c.ty()?;
                            if !arr.is_empty() {
                                return Err(format!("`{name}` returns an array"));
                            }
                            t
                        }
                        _ => "void".into(),
                    };
                    let head = format!("__device__ {ret} {name}({})", params.join(", "));
                    protos.push((name, format!("{head};")));
                    out.push_str(&head);
                }
                "let" | "var" => {
                    let name = checked_name(&c.ident()?)?;
                    let konst = if id == "let" { "const " } else { "" };
                    match c.next_sig() {
                        Some(Tok::Punct(p)) if p == "=" => {
                            write!(out, "{konst}auto {name} =").unwrap();
                        }
                        Some(Tok::Punct(p)) if p == ":" => {
                            let (t, arr) = c.ty()?;
                            match c.next_sig() {
                                Some(Tok::Punct(p)) if p == "=" && arr.is_empty() => {
                                    write!(out, "{konst}{t} {name} =").unwrap();
                                }
                                Some(Tok::Punct(p)) if p == ";" && id == "var" => {
                                    if arr.is_empty() {
                                        write!(out, "{t} {name}{{}};").unwrap();
                                    } else {
                                        write!(out, "{t} {name}{arr} = {{}};").unwrap();
                                    }
                                }
                                t => return Err(format!("declaration of `{name}` at {t:?}")),
                            }
                        }
                        t => return Err(format!("declaration of `{name}` at {t:?}")),
                    }
                }
                "const" => {
                    // Module scope: `const NAME = array<T, N>(v, ...);`.
                    let name = c.ident()?;
                    c.expect("=")?;
                    let (t, arr) = c.ty()?;
                    if arr.is_empty() {
                        return Err(format!("constant `{name}` that is not an array"));
                    }
                    c.expect("(")?;
                    let mut vals = Vec::new();
                    loop {
                        match c.next_sig() {
                            Some(Tok::Num(n)) => vals.push(n),
                            Some(Tok::Punct(p)) if p == "," => {}
                            Some(Tok::Punct(p)) if p == ")" => break,
                            t => return Err(format!("element {t:?} of constant `{name}`")),
                        }
                    }
                    c.expect(";")?;
                    write!(
                        out,
                        "__device__ const {t} {name}{arr} = {{{}}};",
                        vals.join(", ")
                    )
                    .unwrap();
                }
                "loop" => out.push_str("for (;;)"),
                "vec2" | "vec3" => out.push_str(&format!("rk_{id}")),
                "bitcast" => out.push_str("rk_bitcast"),
                "array" | "ptr" | "struct" | "switch" | "continuing" | "discard" | "override"
                | "alias" | "while" => return Err(format!("`{id}` in a function body")),
                _ => {
                    let call = matches!(c.t.get(c.i), Some(Tok::Punct(p)) if p == "(");
                    match BUILTINS.iter().find(|(w, _)| *w == id) {
                        Some((_, cname)) if call => out.push_str(cname),
                        _ => out.push_str(&checked_name(&id)?),
                    }
                }
            },
        }
    }
    Ok(Lowered { defs: out, protos })
}

fn checked_name(n: &str) -> Result<String, String> {
    if CXX_KEYWORDS.contains(&n) {
        return Err(format!("the name `{n}` is a C++ keyword"));
    }
    Ok(n.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_declarations_and_literals() {
        let src = "fn rk_f(a: f64, v: vec2<f64>) -> vec2<f64> {
    let b = bitcast<u64>(a) & 0xfffflu;
    var k: i32 = 3i;
    var m: array<u32, 3>;
    var r: f64;
    var s = 1.5e-3lf;
    loop { if (k == 0i) { break; } k = k - 1i; }
    return vec2<f64>(select(a, v.x, b != 0lu), max(r, 2.5f) + f64(-7li));
}
const RK_T = array<u32, 2>(1u, 4294967295u);
";
        let l = lower(src).unwrap();
        assert_eq!(
            l.defs,
            "__device__ rk_vec2<f64> rk_f(f64 a, rk_vec2<f64> v) {
    const auto b = rk_bitcast<u64>(a) & 0xffffull;
    i32 k = 3;
    u32 m[3] = {};
    f64 r{};
    auto s = 1.5e-3;
    for (;;) { if (k == 0) { break; } k = k - 1; }
    return rk_vec2<f64>(rk_select(a, v.x, b != 0ull), rk_max(r, 2.5f) + f64(-7ll));
}
__device__ const u32 RK_T[2] = {1u, 4294967295u};
"
        );
        assert_eq!(
            l.protos,
            vec![(
                "rk_f".to_string(),
                "__device__ rk_vec2<f64> rk_f(f64 a, rk_vec2<f64> v);".to_string()
            )]
        );
    }

    #[test]
    fn unknown_constructs_are_errors() {
        for bad in [
            "fn f(p: ptr<function, f64>) {}",
            "fn f() { let x = 0.5; }",
            "fn f() { let x = 0x10; }",
            "fn f() { switch (x) {} }",
            "fn f(int: f64) {}",
            "struct S { a: f64 }",
            "const C = 3i;",
        ] {
            assert!(lower(bad).is_err(), "{bad}");
        }
    }
}
