//! The IR generator: kernel bodies become calls of `rokkos::ir::build` that record the kernel IR.
//!
//! Beside the native items, `#[kernel]` emits `impl KernelIr for NameKernel` whose `build_ir()`
//! replays the *same* (un-rewritten) body statement by statement against the typed builder, and
//! `#[func]` emits a hidden `NAME::ir(scope, args..)` (on the type `NAME`) that defines the function in the IR and
//! returns the call expression. Values are `Expr<T>` handles, so `rustc` type-checks the recording
//! exactly as it type-checks the native body (`x * 2.0` records a literal of `x`'s type).
//!
//! How the translation works ([`Tx`]): an expression becomes a Rust expression of type `Expr<T>`
//! that does not borrow the builder; everything that needs the builder (`let`, `if`, atomics, calls,
//! team constructs) is emitted as a Rust statement before it. When an operand records IR statements
//! (an `if` expression, a nested reduction), the operands evaluated before it are first bound to IR
//! locals, so the recorded IR evaluates in Rust's order. Rust blocks mirror the kernel's blocks, so
//! shadowing and scopes of handles follow the source.
//!
//! Two kinds of failure ([`Fail`]), both compile errors, because a kernel must run the same way on
//! every backend: a construct the IR cannot express is reported at its span; a *type or value* the IR
//! lacks (a `View<u8>`, a run-time scratch level, a `MinLoc` nested reduction) is reported at the
//! kernel's name. Only a recursive `#[func]`, visible when the IR is built, makes `build_ir()` return
//! `BuildError::Unsupported`.

pub(crate) mod expr;
pub mod generate;
mod range;
mod stmt;
pub(crate) mod team;
#[cfg(test)]
mod tests;
pub mod types;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use std::collections::{HashMap, HashSet};

/// Why a translation stopped.
#[derive(Debug)]
pub enum Fail {
    /// A construct the IR cannot express: a compile error at its span.
    Compile(syn::Error),
    /// The IR lacks a type or value for it (a non-IR element type, a run-time scratch level, a
    /// nested reducer outside the built-in set): a compile error at the kernel's or function's name.
    Unsupported(String),
}

/// Translation result.
pub type R<T> = Result<T, Fail>;

/// A compile error at `tokens`.
pub fn reject<T>(tokens: impl ToTokens, msg: impl std::fmt::Display) -> R<T> {
    Err(Fail::Compile(syn::Error::new_spanned(tokens, msg)))
}

/// An `Unsupported` translation failure (reported at the kernel's name).
pub fn unsupported<T>(msg: impl Into<String>) -> R<T> {
    Err(Fail::Unsupported(msg.into()))
}

/// `::rokkos::ir::build`.
pub fn irb() -> TokenStream {
    quote!(::rokkos::ir::build)
}

/// `::rokkos::ir`.
pub fn ir() -> TokenStream {
    quote!(::rokkos::ir)
}

/// The fields of a struct-shaped kernel accumulator, in IR field order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccKind {
    /// `acc: &mut T`: read `*acc`, one `Acc<T>` handle.
    Scalar,
    /// `ValLoc<T>` (`val`, `loc`), `MinMaxVal<T>` (`min`, `max`) or `MinMaxLocVal<T>`
    /// (`min_val`, `max_val`, `min_loc`, `max_loc`): a tuple of `Acc` handles, one per name.
    Fields(&'static [&'static str]),
}

/// `` `.a`, `.b` `` for an accumulator's field names, in messages.
pub fn field_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`.{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a name in the body stands for, and the handle the generated code binds to it.
#[derive(Debug, Clone)]
pub enum Sym {
    /// A scalar local (`Var<T>`), declared at team-construct depth `depth`.
    Local {
        /// Team-construct depth of the declaration.
        depth: usize,
    },
    /// A local array (`ArrayVar<T>`).
    Array {
        /// Team-construct depth of the declaration.
        depth: usize,
    },
    /// A View parameter or scratch View (`ViewVar<T>`) of rank `rank` (a Rust constant expression).
    View {
        /// The rank.
        rank: TokenStream,
    },
    /// A scalar parameter (`Param<T>`).
    Param,
    /// A kernel accumulator.
    Acc(AccKind),
    /// The accumulator of a nested reduction or scan closure (`Var<T>`, read as `*acc`).
    NestedAcc,
    /// An immutable `Expr<T>` (work index, scan flag), cloned on each use.
    Expr,
    /// The team member (`Team`).
    Team,
    /// A `const NAME: [T; N]` item of the body: the IR constant table bound to `handle`
    /// (`Table<T>`).
    Table {
        /// The generated binding of the table handle.
        handle: Ident,
    },
}

/// An enclosing loop: its label and the team-construct depth it belongs to.
struct LoopCtx {
    label: Option<String>,
    depth: usize,
}

/// A translated expression: Rust tokens of type `Expr<T>` that do not borrow the builder.
#[derive(Debug, Clone)]
pub struct Val {
    /// The tokens.
    pub ts: TokenStream,
    /// Its value cannot change (literals, constants, parameters, work indices): never spilled.
    pub stable: bool,
    /// It contains an atomic (must be evaluated exactly once).
    pub effects: bool,
}

impl Val {
    fn new(ts: TokenStream) -> Val {
        Val {
            ts,
            stable: false,
            effects: false,
        }
    }
    fn stable(ts: TokenStream) -> Val {
        Val {
            ts,
            stable: true,
            effects: false,
        }
    }
}

impl ToTokens for Val {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        self.ts.to_tokens(tokens);
    }
}

/// The translator of one body (a kernel's or a `#[func]`'s).
pub struct Tx {
    /// The builder: a `&mut KernelBuilder` or `&mut FunctionBuilder` binding.
    pub b: Ident,
    code: Vec<TokenStream>,
    records: usize,
    scopes: Vec<HashMap<String, Sym>>,
    loops: Vec<LoopCtx>,
    depth: usize,
    next: usize,
    /// In a `#[func]`: `return value` records `return_value`.
    pub is_func: bool,
    /// In a `#[func]` returning several values (a tuple or an array): the component this
    /// translation returns (each component is its own IR function, see `func_items`).
    pub proj: Option<usize>,
    /// User type parameters.
    pub type_params: HashSet<String>,
}

impl Tx {
    /// A translator recording into builder binding `b`.
    pub fn new(b: Ident, is_func: bool, type_params: HashSet<String>) -> Tx {
        Tx {
            b,
            code: Vec::new(),
            records: 0,
            scopes: vec![HashMap::new()],
            loops: Vec::new(),
            depth: 0,
            next: 0,
            is_func,
            proj: None,
            type_params,
        }
    }

    /// The generated statements.
    pub fn finish(self) -> Vec<TokenStream> {
        self.code
    }

    /// A fresh hygienic Rust identifier.
    fn tmp(&mut self) -> Ident {
        self.next += 1;
        format_ident!("__rokkos_t{}", self.next, span = Span::mixed_site())
    }

    /// Emits a Rust statement that records nothing in the IR.
    pub fn emit(&mut self, ts: TokenStream) {
        self.code.push(ts);
    }

    /// Emits a Rust statement that records IR.
    pub fn record(&mut self, ts: TokenStream) {
        self.records += 1;
        self.code.push(ts);
    }

    /// Binds `name` in the innermost scope.
    pub fn bind(&mut self, name: &Ident, sym: Sym) {
        self.scopes
            .last_mut()
            .expect("scope")
            .insert(name.to_string(), sym);
    }

    /// What `name` stands for, if it is a kernel name.
    fn lookup(&self, name: &Ident) -> Option<Sym> {
        let n = name.to_string();
        self.scopes.iter().rev().find_map(|s| s.get(&n).cloned())
    }

    /// The symbol named by a plain path expression.
    fn sym_of(&self, e: &syn::Expr) -> Option<(Ident, Sym)> {
        let id = crate::parse::expr_ident(e)?;
        self.lookup(id).map(|s| (id.clone(), s))
    }

    /// Runs `f` with its own code buffer and name scope (and, with `team`, one team-construct level
    /// deeper); returns the code it emitted.
    fn scoped<T>(
        &mut self,
        team: bool,
        f: impl FnOnce(&mut Self) -> R<T>,
    ) -> R<(Vec<TokenStream>, T)> {
        let saved = std::mem::take(&mut self.code);
        self.scopes.push(HashMap::new());
        if team {
            self.depth += 1;
        }
        let r = f(self);
        if team {
            self.depth -= 1;
        }
        self.scopes.pop();
        let code = std::mem::replace(&mut self.code, saved);
        r.map(|t| (code, t))
    }

    /// Runs `f` in a nested Rust block (a new scope) and emits the block.
    fn block(&mut self, team: bool, f: impl FnOnce(&mut Self) -> R<()>) -> R<()> {
        let (code, ()) = self.scoped(team, f)?;
        self.code.push(quote!({ #(#code)* }));
        Ok(())
    }

    /// Binds `v` to a new IR local and returns its reading.
    fn spill(&mut self, v: Val) -> Val {
        let (b, t) = (self.b.clone(), self.tmp());
        self.record(quote!(let #t = #b.let_("_s", #v);));
        Val::new(quote!(#t.get()))
    }

    /// Translates expressions evaluated left to right. When one of them records IR statements, the
    /// values before it are first bound to IR locals, so that they are evaluated before those
    /// statements run, as in Rust.
    fn operands(&mut self, es: &[&syn::Expr]) -> R<Vec<Val>> {
        let mut vals: Vec<Val> = Vec::new();
        for e in es {
            let (mark, rec) = (self.code.len(), self.records);
            let v = self.value(e)?;
            if self.records > rec && vals.iter().any(|p| !p.stable) {
                let own = self.code.split_off(mark);
                for p in vals.iter_mut().filter(|p| !p.stable) {
                    *p = self.spill(p.clone());
                }
                self.code.extend(own);
            }
            vals.push(v);
        }
        Ok(vals)
    }

    /// `v`, bound to a Rust temporary (and to an IR local when it has side effects) so that it can
    /// be used more than once.
    fn reusable(&mut self, v: Val) -> Val {
        let v = if v.effects { self.spill(v) } else { v };
        let t = self.tmp();
        self.emit(quote!(let #t = #v;));
        Val {
            ts: quote!(#t.clone()),
            ..v
        }
    }

    /// The IR local name for a binding.
    fn name_of(id: &Ident) -> String {
        id.to_string()
    }
}

/// Whether the value of `e` is used as a value (not `()`, not diverging): what decides whether an
/// `if` or a `single` records a result.
pub fn has_value(e: &syn::Expr) -> bool {
    use syn::Expr as E;
    match e {
        E::Paren(p) => has_value(&p.expr),
        E::Group(g) => has_value(&g.expr),
        E::Block(b) => block_has_value(&b.block),
        E::Unsafe(u) => block_has_value(&u.block),
        E::If(i) => match &i.else_branch {
            Some((_, els)) => block_has_value(&i.then_branch) || has_value(els),
            None => false,
        },
        E::Assign(_)
        | E::While(_)
        | E::ForLoop(_)
        | E::Loop(_)
        | E::Break(_)
        | E::Continue(_)
        | E::Return(_) => false,
        E::Binary(b) => !crate::parse::subset::is_compound(&b.op),
        E::Tuple(t) => !t.elems.is_empty(),
        E::MethodCall(m) => {
            let name = m.method.to_string();
            match name.as_str() {
                "team_barrier" | "atomic_add" | "atomic_sub" | "atomic_min" | "atomic_max"
                | "atomic_and" | "atomic_or" | "atomic_xor" | "atomic_store" | "atomic_mul"
                | "atomic_div" | "atomic_mod" | "atomic_nand" | "atomic_lshift"
                | "atomic_rshift" | "atomic_inc" | "atomic_dec" | "atomic_inc_mod"
                | "atomic_dec_mod" => false,
                "single_team" | "single_thread" => match m.args.first() {
                    Some(E::Closure(c)) => has_value(&c.body),
                    _ => true,
                },
                _ => true,
            }
        }
        _ => true,
    }
}

/// Whether a block ends in an expression with a value.
pub fn block_has_value(b: &syn::Block) -> bool {
    matches!(b.stmts.last(), Some(syn::Stmt::Expr(e, None)) if has_value(e))
}
