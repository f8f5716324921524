//! Expressions: literals, names, operators, casts, math methods, associated functions, `#[func]`
//! calls, View and array reads, accumulator reads, and `if` / block expressions.

use super::types::{self, IR_SUFFIXES};
use super::{has_value, irb, reject, unsupported, AccKind, Fail, Sym, Tx, Val, R};
use crate::parse::{MATH_METHODS, SCALAR_TYPES};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Lit, UnOp};

/// Math methods of the accepted subset (`MATH_METHODS`) that the IR has no operation for; every
/// other one maps to a builder method of the same name.
const NO_IR_MATH: &[&str] = &["count_ones", "leading_zeros", "trailing_zeros"];

/// Builder methods that evaluate their receiver or arguments more than once.
const DUPLICATING: &[&str] = &["rem_euclid"];

pub fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

/// The Rust operator of a (non-compound) arithmetic or bitwise binary operator.
pub fn op_tokens(op: &BinOp) -> Option<TokenStream> {
    Some(match op {
        BinOp::Add(_) | BinOp::AddAssign(_) => quote!(+),
        BinOp::Sub(_) | BinOp::SubAssign(_) => quote!(-),
        BinOp::Mul(_) | BinOp::MulAssign(_) => quote!(*),
        BinOp::Div(_) | BinOp::DivAssign(_) => quote!(/),
        BinOp::Rem(_) | BinOp::RemAssign(_) => quote!(%),
        BinOp::BitAnd(_) | BinOp::BitAndAssign(_) => quote!(&),
        BinOp::BitOr(_) | BinOp::BitOrAssign(_) => quote!(|),
        BinOp::BitXor(_) | BinOp::BitXorAssign(_) => quote!(^),
        BinOp::Shl(_) | BinOp::ShlAssign(_) => quote!(<<),
        BinOp::Shr(_) | BinOp::ShrAssign(_) => quote!(>>),
        _ => return None,
    })
}

fn cmp_method(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Lt(_) => "lt",
        BinOp::Le(_) => "le",
        BinOp::Gt(_) => "gt",
        BinOp::Ge(_) => "ge",
        BinOp::Eq(_) => "eq_",
        BinOp::Ne(_) => "ne_",
        _ => return None,
    })
}

impl Tx {
    /// Translates an expression used as a value.
    pub fn value(&mut self, e: &Expr) -> R<Val> {
        self.value_named(e, "_t")
    }

    /// Translates an expression used as a value; `hint` names the IR local of a recorded result.
    pub fn value_named(&mut self, e: &Expr, hint: &str) -> R<Val> {
        let span = e.span();
        match e {
            Expr::Paren(p) => self.value_named(&p.expr, hint),
            Expr::Group(g) => self.value_named(&g.expr, hint),
            Expr::Lit(l) => lit(&l.lit, false),
            Expr::Path(p) => self.path_value(p),
            Expr::Unary(u) => match u.op {
                UnOp::Neg(_) => match strip(&u.expr) {
                    Expr::Lit(l) => lit(&l.lit, true),
                    x => {
                        let v = self.value(x)?;
                        Ok(Val {
                            ts: quote_spanned!(span=> -(#v)),
                            ..v
                        })
                    }
                },
                UnOp::Not(_) => {
                    let v = self.value(&u.expr)?;
                    Ok(Val {
                        ts: quote_spanned!(span=> !(#v)),
                        ..v
                    })
                }
                UnOp::Deref(_) => self.deref_value(&u.expr),
                _ => reject(u, "this operator is not supported by the kernel IR"),
            },
            Expr::Binary(b) => self.binary(b),
            Expr::Cast(c) => {
                let Some(ty) = types::scalar(&c.ty, &self.type_params) else {
                    return unsupported(types::unsupported_type("a cast", &c.ty));
                };
                let v = self.value(&c.expr)?;
                Ok(Val {
                    ts: quote_spanned!(span=> (#v).cast::<#ty>()),
                    ..v
                })
            }
            Expr::MethodCall(m) => self.method_value(m, hint),
            Expr::Call(c) => self.call_value(c),
            Expr::Index(i) => self.index_value(i),
            Expr::Field(f) => self.field_value(f),
            Expr::If(i) => match self.if_value(i, hint)? {
                Some(v) => Ok(v),
                None => reject(i, "this `if` has no value: add an `else` branch"),
            },
            Expr::Block(b) => self.block_value(&b.block, e),
            Expr::Unsafe(u) => self.block_value(&u.block, e),
            Expr::Array(_) | Expr::Repeat(_) => reject(
                e,
                "local arrays are bound with `let` (`let w = [0.0; 4];`) and then indexed",
            ),
            _ => reject(e, "this expression has no value in the kernel IR"),
        }
    }

    fn block_value(&mut self, block: &syn::Block, e: &Expr) -> R<Val> {
        let (code, v) = self.scoped(false, |t| t.stmts(&block.stmts, true))?;
        let Some(v) = v else {
            return reject(e, "this block has no value");
        };
        let t = self.tmp();
        self.emit(quote!(let #t = { #(#code)* #v };));
        Ok(Val {
            ts: quote!(#t),
            stable: false,
            effects: v.effects,
        })
    }

    fn path_value(&mut self, p: &syn::ExprPath) -> R<Val> {
        let span = p.span();
        if let Some(id) = p.path.get_ident().filter(|_| p.qself.is_none()) {
            if let Some(sym) = self.lookup(id) {
                return match sym {
                    Sym::Local { .. } | Sym::NestedAcc => {
                        Ok(Val::new(quote_spanned!(span=> #id.get())))
                    }
                    Sym::Acc(AccKind::Scalar) => Ok(Val::new(quote_spanned!(span=> #id.get()))),
                    Sym::Param => Ok(Val::stable(quote_spanned!(span=> #id.get()))),
                    Sym::Expr => Ok(Val::stable(quote_spanned!(span=> #id.clone()))),
                    Sym::Array { .. } => reject(p, "local arrays can only be indexed (`w[k]`)"),
                    Sym::Table { .. } => {
                        reject(p, "constant tables can only be indexed (`TABLE[k]`)")
                    }
                    Sym::View { .. } | Sym::Team | Sym::Acc(_) => {
                        reject(p, "this name has no value in the kernel IR")
                    }
                };
            }
        }
        // A constant of the host program: `N`, `f64::MAX`, `std::f64::consts::PI`, `T::ZERO`.
        let irb = irb();
        Ok(Val::stable(quote_spanned!(span=> #irb::Expr::lit(#p))))
    }

    fn deref_value(&mut self, inner: &Expr) -> R<Val> {
        match self.sym_of(strip(inner)) {
            Some((id, Sym::Acc(AccKind::Scalar) | Sym::NestedAcc)) => {
                Ok(Val::new(quote!(#id.get())))
            }
            Some((_, Sym::Acc(AccKind::Fields(f)))) => reject(
                inner,
                format!(
                    "read the accumulator's fields ({}) one by one",
                    super::field_list(f)
                ),
            ),
            _ => reject(inner, "`*` applies to accumulators only"),
        }
    }

    fn field_value(&mut self, f: &syn::ExprField) -> R<Val> {
        let (id, k) = self.acc_field(f)?;
        Ok(Val::new(quote_spanned!(f.span()=> #id.#k.get())))
    }

    /// `acc.val` / `(*acc).loc`: the accumulator and the field's position.
    pub fn acc_field(&mut self, f: &syn::ExprField) -> R<(syn::Ident, syn::Index)> {
        let base = match strip(&f.base) {
            Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => strip(&u.expr),
            b => b,
        };
        let member = f.member.to_token_stream().to_string();
        match self.sym_of(base) {
            Some((id, Sym::Acc(AccKind::Fields(names)))) => {
                match names.iter().position(|n| *n == member) {
                    Some(k) => Ok((id, syn::Index::from(k))),
                    None => reject(&f.member, format!("unknown field `{member}`")),
                }
            }
            _ => reject(
                f,
                "fields are supported on `ValLoc`, `MinMaxVal` and `MinMaxLocVal` accumulators only",
            ),
        }
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> R<Val> {
        let span = b.span();
        if crate::parse::subset::is_compound(&b.op) {
            return reject(b, "compound assignments are statements, not values");
        }
        if let BinOp::And(_) | BinOp::Or(_) = b.op {
            return self.short_circuit(b);
        }
        let v = self.operands(&[&b.left, &b.right])?;
        let (l, r) = (&v[0], &v[1]);
        let ts = if let Some(m) = cmp_method(&b.op) {
            let m = format_ident!("{}", m, span = span);
            quote_spanned!(span=> (#l).#m(#r))
        } else {
            let op = op_tokens(&b.op).expect("binary operator");
            quote_spanned!(span=> (#l) #op (#r))
        };
        Ok(Val {
            ts,
            stable: l.stable && r.stable,
            effects: l.effects || r.effects,
        })
    }

    /// `a && b`, `a || b`: when `b` records statements, they run only when `a` does not decide.
    fn short_circuit(&mut self, b: &syn::ExprBinary) -> R<Val> {
        let span = b.span();
        let and = matches!(b.op, BinOp::And(_));
        let l = self.value(&b.left)?;
        let (mark, rec) = (self.code.len(), self.records);
        let r = self.value(&b.right)?;
        if self.records == rec {
            let ts = if and {
                quote_spanned!(span=> (#l).and(#r))
            } else {
                quote_spanned!(span=> (#l).or(#r))
            };
            return Ok(Val {
                ts,
                stable: l.stable && r.stable,
                effects: l.effects || r.effects,
            });
        }
        let own = self.code.split_off(mark);
        let (bld, t) = (self.b.clone(), self.tmp());
        self.record(quote!(let #t = #bld.let_::<bool>("_sc", #l);));
        let cond = if and {
            quote!(#t.get())
        } else {
            quote!(!#t.get())
        };
        self.record(quote!(#bld.if_(#cond);));
        self.record(quote!({ #(#own)* #bld.assign(#t, #r); }));
        self.record(quote!(#bld.end();));
        Ok(Val::new(quote!(#t.get())))
    }

    fn method_value(&mut self, m: &syn::ExprMethodCall, hint: &str) -> R<Val> {
        match self.sym_of(strip(&m.receiver)) {
            Some((_, Sym::Team)) => match self.team_call(m, true, hint)? {
                Some(v) => Ok(v),
                None => reject(m, "this team method has no value"),
            },
            Some((id, Sym::View { rank })) => match self.view_call(m, &id, &rank, true)? {
                Some(v) => Ok(v),
                None => reject(m, "this View method has no value"),
            },
            _ => {
                let mut es: Vec<&Expr> = vec![&*m.receiver];
                es.extend(m.args.iter());
                let name = m.method.to_string();
                self.math(&m.method, &name, &es)
            }
        }
    }

    /// `x.name(args..)` with `es = [x, args..]`.
    fn math(&mut self, at: &syn::Ident, name: &str, es: &[&Expr]) -> R<Val> {
        if !MATH_METHODS.contains(&name) || NO_IR_MATH.contains(&name) {
            return if MATH_METHODS.contains(&name) {
                reject(
                    at,
                    format!("`{name}` has no kernel IR counterpart (device backends cannot run it); compute it with a loop over the bits"),
                )
            } else {
                reject(at, format!("method `{name}` is not supported in kernels"))
            };
        }
        let mut v = self.operands(es)?;
        if DUPLICATING.contains(&name) {
            v = v.into_iter().map(|x| self.reusable(x)).collect();
        }
        let (recv, args) = (&v[0], &v[1..]);
        let method = format_ident!("{}", name, span = at.span());
        Ok(Val {
            ts: quote_spanned!(at.span()=> (#recv).#method(#(#args),*)),
            stable: v.iter().all(|x| x.stable),
            effects: v.iter().any(|x| x.effects),
        })
    }

    fn call_value(&mut self, c: &syn::ExprCall) -> R<Val> {
        let Expr::Path(p) = strip(&c.func) else {
            return reject(&c.func, "only `#[rokkos::func]` functions can be called");
        };
        let args: Vec<&Expr> = c.args.iter().collect();
        let assoc_ty: Option<TokenStream> = match &p.qself {
            Some(q) => Some(q.ty.to_token_stream()),
            None if p.path.segments.len() >= 2 => {
                let first = &p.path.segments[0].ident;
                let f = first.to_string();
                (SCALAR_TYPES.contains(&f.as_str()) || self.type_params.contains(&f))
                    .then(|| first.to_token_stream())
            }
            None => None,
        };
        let last = &p.path.segments.last().expect("path").ident;
        if let Some(ty) = assoc_ty {
            return self.assoc_call(ty, last, &args);
        }
        let (path, args) = self.func_marker(c)?;
        let v = self.call_args(&args, false)?;
        let (b, t) = (self.b.clone(), self.tmp());
        self.emit(quote_spanned!(c.span()=> let #t = #path(&mut *#b, #(#v),*);));
        Ok(Val {
            ts: quote!(#t),
            stable: false,
            effects: v.iter().any(|x| x.effects),
        })
    }

    /// A `#[rokkos::func]` call's IR recorder and arguments: `a::f::<T>(x)` → `a::f::ir::<T>`
    /// (see [`crate::native::calls`]) and `[x]`.
    pub(super) fn func_marker<'c>(&self, c: &'c syn::ExprCall) -> R<(TokenStream, Vec<&'c Expr>)> {
        let Expr::Path(p) = strip(&c.func) else {
            return reject(&c.func, "only `#[rokkos::func]` functions can be called");
        };
        Ok((
            crate::native::calls::call_target(c, &p.path, &self.type_params, "ir"),
            c.args.iter().collect(),
        ))
    }

    /// The arguments of a `#[func]` call as its marker function takes them: a scalar's value; for
    /// an array parameter `[T; N]`, the values of an array literal (`[a, b]`, `[x; 3]`) or a local
    /// array's elements (`w`). Evaluated left to right: when an argument records IR statements,
    /// the values before it are bound to IR locals first and a local array before it is copied
    /// (the statements could write to it; Rust passes its value at its place in the list), as
    /// [`Tx::operands`] does for operands. With `settle`, every value that is not a plain one is
    /// bound (and every local array copied) at the end too, for arguments used by several calls.
    pub(super) fn call_args(&mut self, args: &[&Expr], settle: bool) -> R<Vec<Val>> {
        enum Arg {
            Scalar(Val),
            Elems(Vec<Val>),
            Local(TokenStream),
        }
        let mut out: Vec<Arg> = Vec::new();
        let settle_all = |tx: &mut Self, out: &mut Vec<Arg>| {
            for prev in out.iter_mut() {
                match prev {
                    Arg::Scalar(v) if !v.stable => *v = tx.spill(v.clone()),
                    Arg::Elems(vs) => {
                        for v in vs.iter_mut().filter(|v| !v.stable) {
                            *v = tx.spill(v.clone());
                        }
                    }
                    Arg::Local(id) => {
                        let (b, t) = (tx.b.clone(), tx.tmp());
                        tx.record(quote!(let #t = #b.array_copy("_a", #id);));
                        *id = quote!(#t);
                    }
                    Arg::Scalar(_) => {}
                }
            }
        };
        for a in args {
            let (mark, rec) = (self.code.len(), self.records);
            let arg = match strip(a) {
                Expr::Array(arr) => {
                    Arg::Elems(self.operands(&arr.elems.iter().collect::<Vec<_>>())?)
                }
                Expr::Repeat(r) => {
                    let n: usize = match strip(&r.len) {
                        Expr::Lit(syn::ExprLit {
                            lit: Lit::Int(n), ..
                        }) => n.base10_parse().map_err(Fail::Compile)?,
                        _ => 0,
                    };
                    if !(1..=16).contains(&n) {
                        return reject(
                            &r.len,
                            "an array argument has a literal length from 1 to 16: `[0.0; 3]`",
                        );
                    }
                    let v = self.value(&r.expr)?;
                    let v = self.reusable(v);
                    Arg::Elems(vec![v; n])
                }
                x => match self.sym_of(x) {
                    Some((id, Sym::Array { .. })) => Arg::Local(quote!(#id)),
                    _ => Arg::Scalar(self.value(a)?),
                },
            };
            if self.records > rec {
                let own = self.code.split_off(mark);
                settle_all(self, &mut out);
                self.code.extend(own);
            }
            out.push(arg);
        }
        if settle {
            settle_all(self, &mut out);
        }
        Ok(out
            .into_iter()
            .map(|a| match a {
                Arg::Scalar(v) => v,
                Arg::Elems(v) => Val {
                    ts: quote!([#(#v),*]),
                    stable: v.iter().all(|x| x.stable),
                    effects: v.iter().any(|x| x.effects),
                },
                Arg::Local(id) => Val {
                    ts: quote!(#id.elements()),
                    stable: false,
                    effects: false,
                },
            })
            .collect())
    }

    /// `f64::max(a, b)`, `T::from_f64(x)`, `<T as Float>::sqrt(x)`, `i32::from(b)`.
    fn assoc_call(&mut self, ty: TokenStream, f: &syn::Ident, args: &[&Expr]) -> R<Val> {
        let name = f.to_string();
        // The target of a conversion, and its source where the name fixes it: a literal
        // argument then has the type the native call gives it (`T::from_f32(0.1)` converts
        // `0.1f32`, not `0.1f64`), and a kernel of `f32`s records no `f64`.
        let (target, source) = match name.as_str() {
            "from" => (Some(ty.clone()), None),
            "from_f64" => (Some(ty.clone()), Some(quote!(f64))),
            "from_f32" => (Some(ty.clone()), Some(quote!(f32))),
            "to_f64" => (Some(quote!(f64)), Some(ty.clone())),
            "to_f32" => (Some(quote!(f32)), Some(ty.clone())),
            _ => (None, None),
        };
        match (target, args) {
            // The result type is the path's (`T::from_bits(b)`), which `b`'s does not decide.
            (None, [x]) if name == "from_bits" => {
                let v = self.value(x)?;
                let irb = irb();
                Ok(Val {
                    ts: quote_spanned!(f.span()=> #irb::Expr::<#ty>::from_bits(#v)),
                    ..v
                })
            }
            (Some(target), [x]) => {
                let v = self.value(x)?;
                let irb = irb();
                let arg = match source {
                    Some(s) => quote!(#irb::IntoExpr::<#s>::into_expr(#v)),
                    None => quote!(#v),
                };
                Ok(Val {
                    ts: quote_spanned!(f.span()=> (#arg).cast::<#target>()),
                    ..v
                })
            }
            (None, [_, ..]) => self.math(f, &name, args),
            _ => reject(
                f,
                format!("associated function `{name}` is not supported by the kernel IR"),
            ),
        }
    }

    fn index_value(&mut self, i: &syn::ExprIndex) -> R<Val> {
        let span = i.span();
        match self.sym_of(strip(&i.expr)) {
            Some((id, Sym::View { .. })) => {
                let (idx, vals) = self.view_index(&i.index)?;
                Ok(Val {
                    ts: quote_spanned!(span=> #id.load(#idx)),
                    stable: false,
                    effects: vals.iter().any(|v| v.effects),
                })
            }
            Some((id, Sym::Array { .. })) => {
                let k = self.value(&i.index)?;
                Ok(Val {
                    ts: quote_spanned!(span=> #id.load(#k)),
                    stable: false,
                    effects: k.effects,
                })
            }
            Some((_, Sym::Table { handle })) => {
                let k = self.value(&i.index)?;
                Ok(Val {
                    ts: quote_spanned!(span=> #handle.load(#k)),
                    stable: false,
                    effects: k.effects,
                })
            }
            _ => reject(
                &i.expr,
                "only Views, local arrays and constant tables can be indexed",
            ),
        }
    }

    /// A View multi-index: `i`, `(i, j)`, `[i, j]` or `()`; the tokens and the component values.
    pub fn view_index(&mut self, e: &Expr) -> R<(TokenStream, Vec<Val>)> {
        match strip(e) {
            Expr::Tuple(t) if t.elems.is_empty() => Ok((quote!(()), Vec::new())),
            Expr::Tuple(t) if t.elems.len() == 1 => self.view_index(&t.elems[0]),
            Expr::Tuple(t) => {
                let v = self.operands(&t.elems.iter().collect::<Vec<_>>())?;
                Ok((quote!((#(#v,)*)), v))
            }
            Expr::Array(a) => {
                let v = self.operands(&a.elems.iter().collect::<Vec<_>>())?;
                Ok((quote!([#(#v),*]), v))
            }
            x => {
                let v = self.value(x)?;
                Ok((v.ts.clone(), vec![v]))
            }
        }
    }

    /// `if c { a } else { b }` as a value: an IR local assigned in each branch (never `select`, which
    /// would evaluate both branches). `None` when the `if` has no value.
    pub fn if_value(&mut self, i: &syn::ExprIf, hint: &str) -> R<Option<Val>> {
        if !has_value(&Expr::If(i.clone())) {
            self.if_stmt(i)?;
            return Ok(None);
        }
        let (b, t) = (self.b.clone(), self.tmp());
        self.record(quote!(let #t = #b.declare::<_>(#hint);));
        self.if_branches(i, Some(&t))?;
        Ok(Some(Val::new(quote!(#t.get()))))
    }
}

/// A literal (negated when `neg`).
fn lit(l: &Lit, neg: bool) -> R<Val> {
    let minus = if neg { quote!(-) } else { quote!() };
    let ok = match l {
        Lit::Int(i) => IR_SUFFIXES.contains(&i.suffix()),
        Lit::Float(f) => ["", "f32", "f64"].contains(&f.suffix()),
        Lit::Bool(_) if !neg => true,
        _ => return reject(l, "this literal is not supported by the kernel IR"),
    };
    if !ok {
        return unsupported(format!(
            "literal `{}` has a type the IR lacks (its types are {})",
            l.to_token_stream(),
            types::IR_SCALARS.join(", ")
        ));
    }
    let irb = irb();
    let ts = quote_spanned!(l.span()=> #irb::Expr::lit(#minus #l));
    Ok(Val::stable(ts))
}
