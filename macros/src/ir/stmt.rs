//! Statements: `let`, assignments (locals, arrays, View elements, accumulators), `if`, loops,
//! `break` / `continue` / `return`.

use super::expr::{op_tokens, strip};
use super::types;
use super::{has_value, reject, unsupported, AccKind, LoopCtx, Sym, Tx, Val, R};
use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, Pat, Stmt, Type, UnOp};

/// The left side of an assignment.
enum Place {
    /// A scalar local (or nested accumulator).
    Local(Ident),
    /// A kernel accumulator field: the `Acc` handle expression.
    Acc(TokenStream),
    /// `view[index]`.
    View(Ident, Expr),
    /// `array[index]`.
    Array(Ident, Expr),
}

impl Tx {
    /// Translates statements; with `want`, a final expression with a value is returned instead.
    pub fn stmts(&mut self, stmts: &[Stmt], want: bool) -> R<Option<Val>> {
        // An item is in scope in its whole block, before its declaration too.
        for s in stmts {
            if let Stmt::Item(syn::Item::Const(c)) = s {
                self.const_table(c)?;
            }
        }
        for (k, s) in stmts.iter().enumerate() {
            if let (true, true, Stmt::Expr(e, None)) = (want, k + 1 == stmts.len(), s) {
                if has_value(e) {
                    return self.value(e).map(Some);
                }
            }
            self.stmt(s)?;
        }
        Ok(None)
    }

    fn stmt(&mut self, s: &Stmt) -> R<()> {
        match s {
            Stmt::Local(l) => match &l.init {
                Some(init) if init.diverge.is_none() => self.let_bind(&l.pat, None, &init.expr),
                _ => reject(l, "initialize locals where they are declared"),
            },
            Stmt::Expr(e, _) => self.effect(e),
            // Recorded when its block began (`stmts`).
            Stmt::Item(syn::Item::Const(_)) => Ok(()),
            Stmt::Item(i) => reject(i, "items are not supported in kernels"),
            Stmt::Macro(m) => reject(m, "macros are not supported in kernels"),
        }
    }

    /// `const NAME: [T; N] = ..;`: the item itself (so that `rustc` evaluates it, as on the native
    /// path) and the constant table of its elements; `const NAME: T = ..;` of a scalar `T`: the
    /// item, whose uses are literals as those of any constant outside the kernel.
    fn const_table(&mut self, c: &syn::ItemConst) -> R<()> {
        if types::scalar(&c.ty, &Default::default()).is_some() {
            self.emit(quote!(#c));
            return Ok(());
        }
        let Type::Array(a) = types::strip(&c.ty) else {
            return reject(
                &c.ty,
                "a `const` in a kernel is a scalar (`const K: u32 = 3;`) or a constant table (`const T: [f64; 2] = [0.5, 1.5];`)",
            );
        };
        let Some(el) = types::scalar(&a.elem, &Default::default()) else {
            return reject(
                &a.elem,
                "the elements of a constant table are a scalar type (`u32`, `f64`, ..)",
            );
        };
        let b = self.b.clone();
        let name = &c.ident;
        let handle = self.tmp();
        let label = name.to_string();
        self.emit(quote!(#c));
        self.record(quote_spanned!(c.span()=> let #handle = #b.table::<#el>(#label, &#name);));
        self.bind(name, Sym::Table { handle });
        Ok(())
    }

    /// An expression in statement position (its value, if any, is discarded).
    pub fn effect(&mut self, e: &Expr) -> R<()> {
        let b = self.b.clone();
        match e {
            Expr::Paren(p) => self.effect(&p.expr),
            Expr::Group(g) => self.effect(&g.expr),
            Expr::Assign(a) => self.assign(&a.left, None, &a.right),
            Expr::Binary(x) if crate::parse::subset::is_compound(&x.op) => {
                self.assign(&x.left, op_tokens(&x.op), &x.right)
            }
            Expr::If(i) => self.if_stmt(i),
            Expr::Block(x) => self.block(false, |t| t.stmts(&x.block.stmts, false).map(drop)),
            Expr::Unsafe(x) => self.block(false, |t| t.stmts(&x.block.stmts, false).map(drop)),
            Expr::While(w) => self.while_loop(w),
            Expr::Loop(l) => {
                self.record(quote!(#b.loop_();));
                self.loop_body(l.label.as_ref(), |t| {
                    t.stmts(&l.body.stmts, false).map(drop)
                })
            }
            Expr::ForLoop(f) => self.for_loop(f),
            Expr::Break(x) => self.jump(x.label.as_ref(), x, "break"),
            Expr::Continue(x) => self.jump(x.label.as_ref(), x, "continue"),
            Expr::Return(r) => self.ret(r),
            Expr::MethodCall(m) => match self.sym_of(strip(&m.receiver)) {
                Some((_, Sym::Team)) => self.team_call(m, false, "_t").map(drop),
                Some((id, Sym::View { rank })) => self.view_call(m, &id, &rank, false).map(drop),
                _ => self.discard(e),
            },
            _ => self.discard(e),
        }
    }

    /// Evaluates `e` for its side effects only.
    fn discard(&mut self, e: &Expr) -> R<()> {
        let v = self.value(e)?;
        if v.effects {
            self.spill(v);
        }
        Ok(())
    }

    /// `let pat = init;` (`ty`: the annotated type, if any).
    fn let_bind(&mut self, pat: &Pat, ty: Option<&Type>, init: &Expr) -> R<()> {
        match pat {
            Pat::Type(t) => self.let_bind(&t.pat, Some(&t.ty), init),
            Pat::Wild(_) => self.effect(init),
            Pat::Ident(p) => self.let_name(&p.ident, ty, init),
            Pat::Tuple(pt) if matches!(strip(init), Expr::Call(_)) => {
                self.let_multi(pt.elems.iter().collect(), ty, init)
            }
            Pat::Slice(ps) if matches!(strip(init), Expr::Call(_)) => {
                self.let_multi(ps.elems.iter().collect(), ty, init)
            }
            Pat::Tuple(pt) => {
                let Expr::Tuple(t) = strip(init) else {
                    return reject(
                        init,
                        "bind a tuple of names to a tuple: `let (a, b) = (x, y);`",
                    );
                };
                if t.elems.len() != pt.elems.len() {
                    return reject(init, "the tuple and the pattern have different lengths");
                }
                let tys: Vec<Option<&Type>> = match ty.map(types::strip) {
                    Some(Type::Tuple(tt)) => tt.elems.iter().map(Some).collect(),
                    _ => vec![None; pt.elems.len()],
                };
                let vals = self.operands(&t.elems.iter().collect::<Vec<_>>())?;
                for ((p, v), ty) in pt.elems.iter().zip(vals).zip(tys) {
                    let (p, ty) = match p {
                        Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
                        p => (p, ty),
                    };
                    match p {
                        Pat::Ident(id) => self.let_val(&id.ident, ty, v)?,
                        Pat::Wild(_) if v.effects => drop(self.spill(v)),
                        Pat::Wild(_) => {}
                        _ => return reject(p, "patterns are names or tuples of names"),
                    }
                }
                Ok(())
            }
            _ => reject(pat, "patterns are names or tuples of names"),
        }
    }

    /// `let (a, b) = f(..);` / `let [x, y, z] = f(..);` with `f` a `#[func]` returning several
    /// values: its marker returns one IR call per component (each its own IR function), bound
    /// here in order. A component bound to `_` is still evaluated, as in Rust.
    fn let_multi(&mut self, pats: Vec<&Pat>, ty: Option<&Type>, init: &Expr) -> R<()> {
        let Expr::Call(c) = strip(init) else {
            unreachable!("checked by the caller")
        };
        let tys: Vec<Option<&Type>> = match ty.map(types::strip) {
            Some(Type::Tuple(tt)) => tt.elems.iter().map(Some).collect(),
            Some(Type::Array(a)) => vec![Some(&*a.elem); pats.len()],
            _ => vec![None; pats.len()],
        };
        let (path, args) = self.func_marker(c)?;
        // Every component's call takes the arguments: bind those that are not plain values
        // once, so that they are evaluated once, before the calls, as in Rust.
        let v = self.call_args(&args, true)?;
        let (b, t) = (self.b.clone(), self.tmp());
        self.emit(quote_spanned!(c.span()=> let #t = #path(&mut *#b, #(#v),*);));
        for (k, (p, ty)) in pats.into_iter().zip(tys).enumerate() {
            let idx = syn::Index::from(k);
            let val = Val {
                ts: quote!(#t.#idx),
                stable: false,
                effects: true,
            };
            let (p, ty) = match p {
                Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
                p => (p, ty),
            };
            match p {
                Pat::Ident(id) => self.let_val(&id.ident, ty, val)?,
                Pat::Wild(_) => drop(self.spill(val)),
                _ => return reject(p, "bind the results to names: `let (a, b) = f(..);`"),
            }
        }
        Ok(())
    }

    fn let_name(&mut self, name: &Ident, ty: Option<&Type>, init: &Expr) -> R<()> {
        let b = self.b.clone();
        let n = Self::name_of(name);
        let elem = |t: &Tx| -> R<TokenStream> {
            match ty.map(types::strip) {
                Some(Type::Array(a)) => match types::scalar(&a.elem, &t.type_params) {
                    Some(e) => Ok(e.to_token_stream()),
                    None => unsupported(types::unsupported_type("a local array", &a.elem)),
                },
                Some(other) => reject(other, "a local array has an array type `[T; N]`"),
                None => Ok(quote!(_)),
            }
        };
        match strip(init) {
            Expr::Repeat(r) => {
                let el = elem(self)?;
                let v = self.value(&r.expr)?;
                let len = &r.len;
                self.record(
                    quote_spanned!(init.span()=> let #name = #b.array_fill::<#el>(#n, (#len) as u32, #v);),
                );
                let depth = self.depth;
                self.bind(name, Sym::Array { depth });
                Ok(())
            }
            Expr::Array(a) => {
                let el = elem(self)?;
                let v = self.operands(&a.elems.iter().collect::<Vec<_>>())?;
                self.record(
                    quote_spanned!(init.span()=> let #name = #b.array_from::<#el>(#n, vec![#(#v),*]);),
                );
                let depth = self.depth;
                self.bind(name, Sym::Array { depth });
                Ok(())
            }
            Expr::MethodCall(m)
                if matches!(self.sym_of(strip(&m.receiver)), Some((_, Sym::Team)))
                    && (m.method == "team_scratch" || m.method == "thread_scratch") =>
            {
                self.scratch(name, m)
            }
            x if matches!(self.sym_of(x), Some((_, Sym::Array { .. }))) => reject(
                x,
                "local arrays cannot be copied in kernels: copy the elements in a loop",
            ),
            _ => {
                let v = self.value_named(init, &n)?;
                self.let_val(name, ty, v)
            }
        }
    }

    /// `let name: ty = v;` for a scalar value.
    fn let_val(&mut self, name: &Ident, ty: Option<&Type>, v: Val) -> R<()> {
        let b = self.b.clone();
        let ty = match ty {
            None => quote!(_),
            Some(t) => match types::scalar(t, &self.type_params) {
                Some(t) => t.to_token_stream(),
                None => return unsupported(types::unsupported_type("a local", t)),
            },
        };
        let n = Self::name_of(name);
        self.record(quote_spanned!(name.span()=> let #name = #b.let_::<#ty>(#n, #v);));
        let depth = self.depth;
        self.bind(name, Sym::Local { depth });
        Ok(())
    }

    fn place(&mut self, e: &Expr) -> R<Place> {
        let e = strip(e);
        let outer = |t: &Tx, depth: usize| depth < t.depth;
        match e {
            Expr::Path(_) => match self.sym_of(e) {
                Some((id, Sym::Local { depth })) if outer(self, depth) => reject(
                    e,
                    format!("`{id}` is declared outside this team construct (nested range, reduction, scan or single): device backends run its body in many threads at once, so it cannot assign `{id}`; return the value from a reduction or `single_team` instead"),
                ),
                Some((id, Sym::Local { .. })) => Ok(Place::Local(id)),
                _ => reject(e, "assign to a local, an accumulator or a View element"),
            },
            Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => match self.sym_of(strip(&u.expr)) {
                Some((id, Sym::Acc(AccKind::Scalar))) => Ok(Place::Acc(quote!(#id))),
                Some((id, Sym::NestedAcc)) => Ok(Place::Local(id)),
                Some((_, Sym::Acc(AccKind::Fields(f)))) => reject(
                    e,
                    format!("assign the accumulator's fields ({}) one by one", super::field_list(f)),
                ),
                _ => reject(e, "`*` applies to accumulators only"),
            },
            Expr::Field(f) => {
                let (id, k) = self.acc_field(f)?;
                Ok(Place::Acc(quote!(#id.#k)))
            }
            Expr::Index(i) => match self.sym_of(strip(&i.expr)) {
                Some((id, Sym::View { .. })) => Ok(Place::View(id, (*i.index).clone())),
                Some((id, Sym::Array { depth })) if outer(self, depth) => reject(
                    e,
                    format!("`{id}` is declared outside this team construct and cannot be assigned inside it"),
                ),
                Some((id, Sym::Array { .. })) => Ok(Place::Array(id, (*i.index).clone())),
                Some((id, Sym::Table { .. })) => reject(
                    e,
                    format!("`{id}` is a constant table: its elements cannot be assigned (copy them into a local array first: `let mut w = [{id}[0], {id}[1]];`)"),
                ),
                _ => reject(e, "only Views and local arrays can be indexed"),
            },
            _ => reject(e, "assign to a local, an accumulator or a View element"),
        }
    }

    /// `left = right`, or `left op= right` when `op` is given.
    fn assign(&mut self, left: &Expr, op: Option<TokenStream>, right: &Expr) -> R<()> {
        let b = self.b.clone();
        let span = left.span();
        let combine = |cur: TokenStream, v: &Val| match &op {
            Some(op) => quote_spanned!(span=> (#cur) #op (#v)),
            None => v.ts.clone(),
        };
        match self.place(left)? {
            Place::Local(id) => {
                let v = self.value(right)?;
                let new = combine(quote!(#id.get()), &v);
                self.record(quote_spanned!(span=> #b.assign(#id, #new);));
            }
            Place::Acc(h) => {
                let v = self.value(right)?;
                let new = combine(quote!(#h.get()), &v);
                self.record(quote_spanned!(span=> #b.acc_set(#h, #new);));
            }
            Place::View(id, index) => {
                let (idx, mut vals) = self.indexed(&index, right)?;
                let v = vals.pop().expect("value");
                let (idx, new) = self.reread(idx, |k| combine(quote!(#id.load(#k)), &v), &op);
                self.record(quote_spanned!(span=> #b.store(#id, #idx, #new);));
            }
            Place::Array(id, index) => {
                let v = self.operands(&[&index, right])?;
                let idx = v[0].ts.clone();
                let (idx, new) = self.reread(idx, |k| combine(quote!(#id.load(#k)), &v[1]), &op);
                self.record(quote_spanned!(span=> #b.array_store(#id, #idx, #new);));
            }
        }
        Ok(())
    }

    /// For `a[idx] op= v`: binds the index to a Rust temporary used twice (the IR evaluates the
    /// pure index expression for the load and for the store); for `a[idx] = v`, uses it as is.
    fn reread(
        &mut self,
        idx: TokenStream,
        value: impl FnOnce(TokenStream) -> TokenStream,
        op: &Option<TokenStream>,
    ) -> (TokenStream, TokenStream) {
        if op.is_none() {
            return (idx, value(quote!()));
        }
        let k = self.tmp();
        self.emit(quote!(let #k = #idx;));
        (quote!(#k.clone()), value(quote!(#k.clone())))
    }

    /// The View index `index` and the value `right`, evaluated in that order.
    fn indexed(&mut self, index: &Expr, right: &Expr) -> R<(TokenStream, Vec<Val>)> {
        let comps: Vec<&Expr> = match strip(index) {
            Expr::Tuple(t) if t.elems.len() != 1 => t.elems.iter().collect(),
            Expr::Tuple(t) => vec![&t.elems[0]],
            Expr::Array(a) => a.elems.iter().collect(),
            x => vec![x],
        };
        let mut all = comps.clone();
        all.push(right);
        let mut v = self.operands(&all)?;
        let value = v.pop().expect("value");
        let idx = match strip(index) {
            Expr::Tuple(t) if t.elems.is_empty() => quote!(()),
            Expr::Tuple(t) if t.elems.len() > 1 => quote!((#(#v,)*)),
            Expr::Array(_) => quote!([#(#v),*]),
            _ => v[0].ts.clone(),
        };
        v.push(value);
        Ok((idx, v))
    }

    /// `if` in statement position.
    pub fn if_stmt(&mut self, i: &syn::ExprIf) -> R<()> {
        self.if_branches(i, None)
    }

    /// Records `if cond { .. } else { .. }`; with `result`, each branch's value is assigned to it.
    pub fn if_branches(&mut self, i: &syn::ExprIf, result: Option<&Ident>) -> R<()> {
        let b = self.b.clone();
        let c = self.value(&i.cond)?;
        self.record(quote_spanned!(i.cond.span()=> #b.if_(#c);));
        self.branch(&i.then_branch.stmts, result)?;
        if let Some((_, els)) = &i.else_branch {
            self.record(quote!(#b.else_();));
            match strip(els) {
                Expr::If(inner) => self.block(false, |t| t.if_branches(inner, result))?,
                Expr::Block(x) => self.branch(&x.block.stmts, result)?,
                other => return reject(other, "`else` takes a block"),
            }
        }
        self.record(quote!(#b.end();));
        Ok(())
    }

    fn branch(&mut self, stmts: &[Stmt], result: Option<&Ident>) -> R<()> {
        let b = self.b.clone();
        self.block(false, |t| {
            if let Some(v) = t.stmts(stmts, result.is_some())? {
                let r = result.expect("result");
                t.record(quote!(#b.assign(#r, #v);));
            }
            Ok(())
        })
    }

    /// Runs `f` as the body of a loop (labelled `label`) and closes it.
    pub fn loop_body(
        &mut self,
        label: Option<&syn::Label>,
        f: impl FnOnce(&mut Self) -> R<()>,
    ) -> R<()> {
        let b = self.b.clone();
        self.loops.push(LoopCtx {
            label: label.map(|l| l.name.ident.to_string()),
            depth: self.depth,
        });
        let r = self.block(false, f);
        self.loops.pop();
        r?;
        self.record(quote!(#b.end();));
        Ok(())
    }

    fn while_loop(&mut self, w: &syn::ExprWhile) -> R<()> {
        let b = self.b.clone();
        let (mark, rec) = (self.code.len(), self.records);
        let c = self.value(&w.cond)?;
        if self.records == rec {
            self.record(quote_spanned!(w.cond.span()=> #b.while_(#c);));
            return self.loop_body(w.label.as_ref(), |t| {
                t.stmts(&w.body.stmts, false).map(drop)
            });
        }
        // The condition records statements: `loop { <cond>; if !c { break; } body }`.
        let pre = self.code.split_off(mark);
        self.record(quote!(#b.loop_();));
        self.loop_body(w.label.as_ref(), |t| {
            t.code.extend(pre);
            t.record(quote!(#b.if_(!(#c)); #b.break_(); #b.end();));
            t.stmts(&w.body.stmts, false).map(drop)
        })
    }

    fn jump(&mut self, label: Option<&syn::Lifetime>, at: &dyn ToTokens, what: &str) -> R<()> {
        let b = self.b.clone();
        let Some(lp) = self.loops.last() else {
            return reject(
                at,
                format!("`{what}` outside a loop: nested team ranges (`team.thread_range`) and closures cannot be left early on device backends"),
            );
        };
        if lp.depth != self.depth {
            return reject(
                at,
                format!("`{what}` inside a team construct (nested range, reduction, scan or single) cannot reach the loop around it on device backends"),
            );
        }
        if let Some(l) = label {
            if lp.label.as_deref() != Some(&*l.ident.to_string()) {
                return reject(
                    l,
                    format!("the kernel IR has no labelled `{what}` to an outer loop: set a flag and `{what}` loop by loop"),
                );
            }
        }
        let call = if what == "break" {
            quote!(#b.break_();)
        } else {
            quote!(#b.continue_();)
        };
        self.record(call);
        Ok(())
    }

    fn ret(&mut self, r: &syn::ExprReturn) -> R<()> {
        let b = self.b.clone();
        if self.depth > 0 {
            return reject(
                r,
                "`return` inside a team construct (nested range, reduction, scan or single) is not supported: device backends cannot end the work item there",
            );
        }
        match (&r.expr, self.is_func) {
            (Some(v), true) => {
                let v = match self.proj {
                    Some(k) => self.value(component(v, k)?)?,
                    None => self.value(v)?,
                };
                self.record(quote_spanned!(r.span()=> #b.return_value(#v);));
            }
            (None, false) => self.record(quote!(#b.return_();)),
            (Some(v), false) => return reject(v, "kernels return nothing"),
            (None, true) => return reject(r, "return a value"),
        }
        Ok(())
    }
}

/// Component `k` of a `#[func]`'s tuple or array result, written as a literal.
pub fn component(v: &Expr, k: usize) -> R<&Expr> {
    match strip(v) {
        Expr::Tuple(t) => Ok(&t.elems[k]),
        Expr::Array(a) => Ok(&a.elems[k]),
        other => reject(
            other,
            "a function returning several values returns them as a literal: `return (a, b);` or `return [x, y, z];` (ending with `(a, b)` or `[x, y, z]`)",
        ),
    }
}
