//! Front end: the kernel signature model and the checks on kernel bodies.

pub mod broadcast;
pub mod env;
pub mod hygiene;
pub mod md_range;
pub mod model;
pub mod ownership;
pub mod raw_ident;
pub mod scan_effects;
pub mod signature;
pub mod subset;
pub mod team_rules;

/// Scalar type names usable as `as` targets and as the first segment of associated-function paths.
pub const SCALAR_TYPES: &[&str] = &[
    "bool", "i32", "u32", "u8", "u16", "i8", "i16", "i64", "u64", "f32", "f64", "usize", "isize",
];

/// Methods accepted on any scalar value.
pub const MATH_METHODS: &[&str] = &[
    "sqrt",
    "cbrt",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "exp",
    "exp2",
    "ln",
    "log2",
    "log10",
    "powf",
    "powi",
    "abs",
    "min",
    "max",
    "clamp",
    "floor",
    "ceil",
    "round",
    "trunc",
    "fract",
    "mul_add",
    "signum",
    "hypot",
    "recip",
    "is_nan",
    "is_finite",
    "to_bits",
    "to_radians",
    "to_degrees",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "rem_euclid",
    "count_ones",
    "leading_zeros",
    "trailing_zeros",
];

/// Methods accepted on Views (writable or read-only; the atomics only on writable ones).
pub const VIEW_METHODS: &[&str] = &["extent", "size"];

/// Atomic methods of writable Views.
pub const ATOMIC_METHODS: &[&str] = &[
    "atomic_add",
    "atomic_sub",
    "atomic_min",
    "atomic_max",
    "atomic_and",
    "atomic_or",
    "atomic_xor",
    "atomic_mul",
    "atomic_div",
    "atomic_mod",
    "atomic_nand",
    "atomic_lshift",
    "atomic_rshift",
    "atomic_inc",
    "atomic_dec",
    "atomic_inc_mod",
    "atomic_dec_mod",
    "atomic_fetch_add",
    "atomic_fetch_sub",
    "atomic_fetch_min",
    "atomic_fetch_max",
    "atomic_fetch_and",
    "atomic_fetch_or",
    "atomic_fetch_xor",
    "atomic_fetch_mul",
    "atomic_fetch_div",
    "atomic_fetch_mod",
    "atomic_fetch_nand",
    "atomic_fetch_lshift",
    "atomic_fetch_rshift",
    "atomic_fetch_inc",
    "atomic_fetch_dec",
    "atomic_fetch_inc_mod",
    "atomic_fetch_dec_mod",
    "atomic_add_fetch",
    "atomic_sub_fetch",
    "atomic_min_fetch",
    "atomic_max_fetch",
    "atomic_and_fetch",
    "atomic_or_fetch",
    "atomic_xor_fetch",
    "atomic_mul_fetch",
    "atomic_div_fetch",
    "atomic_mod_fetch",
    "atomic_nand_fetch",
    "atomic_lshift_fetch",
    "atomic_rshift_fetch",
    "atomic_inc_fetch",
    "atomic_dec_fetch",
    "atomic_inc_mod_fetch",
    "atomic_dec_mod_fetch",
    "atomic_load",
    "atomic_store",
    "atomic_exchange",
    "atomic_compare_exchange",
];

/// Team methods that take no closure.
pub const TEAM_PLAIN_METHODS: &[&str] = &[
    "league_rank",
    "league_size",
    "team_rank",
    "team_size",
    "vector_length",
    "team_barrier",
    "team_broadcast",
    "thread_range",
    "vector_range",
    "team_vector_range",
    "team_scratch",
    "thread_scratch",
];

/// Kind of a nested range (loop or nested reduce / scan closure) in a team kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NestedKind {
    /// `thread_range`, `thread_reduce`, `thread_scan`.
    Thread,
    /// `vector_range`, `vector_reduce`, `vector_scan`.
    Vector,
    /// `team_vector_range`, `team_vector_reduce`, `team_vector_scan`.
    TeamVector,
}

impl NestedKind {
    /// The nested-range kind of a team method producing indices (`thread_range` ...).
    pub fn of_range(method: &str) -> Option<NestedKind> {
        match method {
            "thread_range" => Some(NestedKind::Thread),
            "vector_range" => Some(NestedKind::Vector),
            "team_vector_range" => Some(NestedKind::TeamVector),
            _ => None,
        }
    }
    /// The kind of a nested reduction / scan method, and whether it is a scan.
    pub fn of_nested_reduce(method: &str) -> Option<(NestedKind, bool)> {
        match method {
            "thread_reduce" => Some((NestedKind::Thread, false)),
            "vector_reduce" => Some((NestedKind::Vector, false)),
            "team_vector_reduce" => Some((NestedKind::TeamVector, false)),
            "thread_scan" => Some((NestedKind::Thread, true)),
            "vector_scan" => Some((NestedKind::Vector, true)),
            "team_vector_scan" => Some((NestedKind::TeamVector, true)),
            _ => None,
        }
    }
    /// Whether it splits across vector lanes (relevant to thread scratch).
    pub fn is_vector(self) -> bool {
        matches!(self, NestedKind::Vector | NestedKind::TeamVector)
    }
}

/// The single identifier of a path expression `x` (no `::`, no generics), looking through parens.
pub fn expr_ident(e: &syn::Expr) -> Option<&syn::Ident> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        syn::Expr::Paren(p) => expr_ident(&p.expr),
        syn::Expr::Group(g) => expr_ident(&g.expr),
        _ => None,
    }
}

/// Collects `Err`s into one combined error.
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    /// Records an error.
    pub fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }
    /// Records an error at `span` with `msg`.
    pub fn at(&mut self, span: proc_macro2::Span, msg: impl std::fmt::Display) {
        self.push(syn::Error::new(span, msg));
    }
    /// Records an error spanning `tokens` with `msg`.
    pub fn spanned(&mut self, tokens: impl quote::ToTokens, msg: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, msg));
    }
    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }
    /// `Ok(())` when nothing was recorded.
    pub fn finish(self) -> syn::Result<()> {
        match self.0 {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
