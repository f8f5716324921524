//! Team methods (queries, barrier, broadcast, nested reductions and scans, `single`, scratch) and
//! View methods (`extent`, `size`, atomics).

use super::expr::strip;
use super::range::nested_kind;
use super::types;
use super::{has_value, ir, irb, reject, unsupported, Sym, Tx, Val, R};
use crate::parse::env::pat_ident;
use crate::parse::NestedKind;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, GenericArgument, Pat, Type};

/// The reducers a nested team reduction may name (the IR's `ReducerKind`s).
pub(crate) const REDUCERS: &[&str] = &["Sum", "Prod", "Min", "Max", "LAnd", "LOr", "BAnd", "BOr"];

/// The closure argument of a team method, with its parameters.
fn closure(m: &syn::ExprMethodCall, n: usize) -> R<(&syn::ExprClosure, Vec<&Pat>)> {
    match m.args.last().map(strip) {
        Some(Expr::Closure(c)) if c.inputs.len() == n => Ok((c, c.inputs.iter().collect())),
        _ => reject(m, "pass a closure with the documented parameters"),
    }
}

/// The type annotated on closure parameter `p` (`acc: &mut T` gives `T`).
fn param_type(p: &Pat) -> Option<&Type> {
    match p {
        Pat::Type(t) => Some(match types::strip(&t.ty) {
            Type::Reference(r) => &r.elem,
            other => other,
        }),
        _ => None,
    }
}

impl Tx {
    /// The IR type of a nested accumulator (`_` when not annotated).
    fn nested_type(&self, p: &Pat, what: &str) -> R<TokenStream> {
        match param_type(p) {
            None => Ok(quote!(_)),
            Some(t) => match types::scalar(t, &self.type_params) {
                Some(t) => Ok(t.to_token_stream()),
                None => unsupported(format!(
                    "{what}: {}; the IR's nested reductions and scans have scalar values",
                    types::unsupported_type("its value", t)
                )),
            },
        }
    }

    /// Binds closure parameter `p` to the handle `h.field` for the closure body.
    fn bind_param(&mut self, p: &Pat, h: &Ident, field: &str, sym: Sym) {
        if let Some(id) = pat_ident(p) {
            let f = format_ident!("{}", field);
            self.emit(quote!(let #id = #h.#f;));
            self.bind(id, sym);
        }
    }

    /// A method of the team member; the value when `want` and it has one.
    pub fn team_call(&mut self, m: &syn::ExprMethodCall, want: bool, hint: &str) -> R<Option<Val>> {
        let b = self.b.clone();
        let team = strip(&m.receiver);
        let name = m.method.to_string();
        let span = m.span();
        match name.as_str() {
            "league_rank" | "league_size" | "team_rank" | "team_size" | "vector_length" => {
                let method = &m.method;
                Ok(Some(Val::new(quote_spanned!(span=> #team.#method()))))
            }
            "team_barrier" => {
                self.record(quote_spanned!(span=> #b.barrier();));
                Ok(None)
            }
            "team_broadcast" => {
                let args: Vec<&Expr> = m.args.iter().collect();
                if args.len() != 2 {
                    return reject(m, "write `team.team_broadcast(value, src)`");
                }
                let v = self.operands(&args)?;
                let t = self.tmp();
                let (x, src) = (&v[0], &v[1]);
                self.record(quote_spanned!(span=> let #t = #b.broadcast::<_>(#hint, #x, #src);));
                Ok(Some(Val::new(quote!(#t.get()))))
            }
            "single_team" | "single_thread" => self.single(m, &name, want, hint),
            "team_scratch" | "thread_scratch" => reject(
                m,
                "bind scratch Views with `let`: `let s = team.team_scratch::<f64, 1>(0, [n]);`",
            ),
            _ => match NestedKind::of_nested_reduce(&name) {
                Some((kind, false)) => self.nested_reduce(m, kind, hint).map(Some),
                Some((kind, true)) => self.nested_scan(m, kind, hint).map(Some),
                None => reject(
                    m,
                    format!("`team.{name}` is used as `for j in team.{name}(n) {{ .. }}`"),
                ),
            },
        }
    }

    fn nested_reduce(&mut self, m: &syn::ExprMethodCall, kind: NestedKind, hint: &str) -> R<Val> {
        let b = self.b.clone();
        let (c, params) = closure(m, 2)?;
        if m.args.len() != 3 {
            return reject(m, "write `team.thread_reduce(n, Sum, |j, acc: &mut T| ..)`");
        }
        let reducer = match strip(&m.args[1]) {
            Expr::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.clone()),
            _ => None,
        };
        let Some(reducer) = reducer.filter(|r| REDUCERS.contains(&&*r.to_string())) else {
            return unsupported(format!(
                "nested reduction with reducer `{}`; the IR's nested reducers are {}",
                m.args[1].to_token_stream(),
                REDUCERS.join(", ")
            ));
        };
        let ty = self.nested_type(params[1], "a nested reduction")?;
        let (s, e, suffix) = self.nested_bounds(&m.args[0])?;
        let (k, h, ir) = (nested_kind(kind), self.tmp(), ir());
        let open = format_ident!("nested_reduce{suffix}");
        self.record(quote_spanned!(m.span()=>
            let #h = #b.#open::<#ty>(#k, #hint, #s, #e, #ir::ReducerKind::#reducer);
        ));
        self.block(true, |t| {
            let depth = t.depth;
            t.bind_param(params[0], &h, "index", Sym::Local { depth });
            t.bind_param(params[1], &h, "acc", Sym::NestedAcc);
            t.effect(&c.body)
        })?;
        self.record(quote!(#b.end();));
        Ok(Val::new(quote!(#h.result.get())))
    }

    fn nested_scan(&mut self, m: &syn::ExprMethodCall, kind: NestedKind, hint: &str) -> R<Val> {
        let b = self.b.clone();
        let (c, params) = closure(m, 3)?;
        if m.args.len() != 2 {
            return reject(
                m,
                "write `team.thread_scan(n, |j, partial: &mut T, is_final: bool| ..)`",
            );
        }
        let ty = self.nested_type(params[1], "a nested scan")?;
        let (s, e, suffix) = self.nested_bounds(&m.args[0])?;
        let (k, h) = (nested_kind(kind), self.tmp());
        let open = format_ident!("nested_scan{suffix}");
        self.record(quote_spanned!(m.span()=> let #h = #b.#open::<#ty>(#k, #hint, #s, #e);));
        self.block(true, |t| {
            let depth = t.depth;
            t.bind_param(params[0], &h, "index", Sym::Local { depth });
            t.bind_param(params[1], &h, "partial", Sym::NestedAcc);
            t.bind_param(params[2], &h, "is_final", Sym::Local { depth });
            t.effect(&c.body)
        })?;
        self.record(quote!(#b.end();));
        Ok(Val::new(quote!(#h.total.get())))
    }

    fn single(
        &mut self,
        m: &syn::ExprMethodCall,
        name: &str,
        want: bool,
        hint: &str,
    ) -> R<Option<Val>> {
        let b = self.b.clone();
        let (c, _) = closure(m, 0)?;
        let ir = ir();
        let kind = if name == "single_team" {
            quote!(#ir::SingleKind::Team)
        } else {
            quote!(#ir::SingleKind::Thread)
        };
        if !(want && has_value(&c.body)) {
            self.record(quote_spanned!(m.span()=> #b.single(#kind);));
            self.block(true, |t| t.effect(&c.body))?;
            self.record(quote!(#b.end();));
            return Ok(None);
        }
        let h = self.tmp();
        self.record(quote_spanned!(m.span()=> let #h = #b.single_with::<_>(#kind, #hint);));
        self.block(true, |t| {
            let v = match strip(&c.body) {
                Expr::Block(x) => t.stmts(&x.block.stmts, true)?,
                body => Some(t.value(body)?),
            };
            if let Some(v) = v {
                t.record(quote!(#b.assign(#h, #v);));
            }
            Ok(())
        })?;
        self.record(quote!(#b.end();));
        Ok(Some(Val::new(quote!(#h.get()))))
    }

    /// `let name = team.team_scratch::<T, R>(level, [extents..]);`
    pub fn scratch(&mut self, name: &Ident, m: &syn::ExprMethodCall) -> R<()> {
        let b = self.b.clone();
        let scope = if m.method == "team_scratch" {
            quote!(Team)
        } else {
            quote!(Thread)
        };
        let elem = match m.turbofish.as_ref().and_then(|t| t.args.first()) {
            Some(GenericArgument::Type(t)) => match types::element(t, &self.type_params) {
                Some(t) => t.to_token_stream(),
                None => return unsupported(types::unsupported_type("a scratch View", t)),
            },
            _ => quote!(_),
        };
        let args: Vec<&Expr> = m.args.iter().collect();
        let [level, extents] = args[..] else {
            return reject(m, "write `team.team_scratch::<T, R>(level, [extents..])`");
        };
        let level = match strip(level) {
            Expr::Lit(l) => quote!((#l) as u32),
            Expr::Path(p) if self.sym_of(strip(level)).is_none() => quote!((#p) as u32),
            other => {
                return unsupported(format!(
                    "scratch level `{}` is not a constant; the IR fixes each scratch View's level",
                    other.to_token_stream()
                ))
            }
        };
        let Expr::Array(a) = strip(extents) else {
            return reject(extents, "write the extents as an array: `[n]`, `[2, n]`");
        };
        let v = self.operands(&a.elems.iter().collect::<Vec<_>>())?;
        let (ir, n) = (ir(), a.elems.len());
        self.record(quote_spanned!(m.span()=>
            let #name = #b.scratch::<#elem>(#level, #ir::ScratchScope::#scope, [#(#v),*]);
        ));
        self.bind(name, Sym::View { rank: quote!(#n) });
        Ok(())
    }

    /// A method of View `id` of rank `rank`: `extent`, `size` or an atomic.
    pub fn view_call(
        &mut self,
        m: &syn::ExprMethodCall,
        id: &Ident,
        rank: &TokenStream,
        want: bool,
    ) -> R<Option<Val>> {
        let irb = irb();
        let name = m.method.to_string();
        let span = m.span();
        let args: Vec<&Expr> = m.args.iter().collect();
        match name.as_str() {
            "extent" => {
                let [dim] = args[..] else {
                    return reject(m, "write `view.extent(k)`");
                };
                let ts = match strip(dim) {
                    Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(l),
                        ..
                    }) => {
                        let d = proc_macro2::Literal::u32_unsuffixed(
                            l.base10_parse::<u32>().map_err(super::Fail::Compile)?,
                        );
                        quote_spanned!(span=> #id.extent(#d))
                    }
                    Expr::Path(p) if self.sym_of(strip(dim)).is_none() => {
                        quote_spanned!(span=> #id.extent((#p) as u32))
                    }
                    _ => {
                        let d = self.value(dim)?;
                        let d = self.reusable(d);
                        quote_spanned!(span=> {
                            let mut __e = #irb::Expr::lit(0usize);
                            for __k in (0..(#rank) as u32).rev() {
                                __e = #irb::select(#d.eq_(__k as usize), #id.extent(__k), __e);
                            }
                            __e
                        })
                    }
                };
                Ok(Some(Val::new(ts)))
            }
            "size" => Ok(Some(Val::new(quote_spanned!(span=> {
                let mut __s = #irb::Expr::lit(1usize);
                for __k in 0..(#rank) as u32 {
                    __s = __s * #id.extent(__k);
                }
                __s
            })))),
            _ => self.atomic(m, id, &name, &args, want),
        }
    }

    fn atomic(
        &mut self,
        m: &syn::ExprMethodCall,
        id: &Ident,
        name: &str,
        args: &[&Expr],
        want: bool,
    ) -> R<Option<Val>> {
        let b = self.b.clone();
        let op = name.strip_prefix("atomic_").unwrap_or(name);
        // `atomic_fetch_<op>` yields the old value, `atomic_<op>_fetch` the new one (Kokkos).
        let (op, fetch, new_value) = match (op.strip_prefix("fetch_"), op.strip_suffix("_fetch")) {
            (Some(o), _) => (o, true, false),
            (None, Some(o)) => (o, true, true),
            (None, None) => (
                op,
                matches!(op, "load" | "exchange" | "compare_exchange"),
                false,
            ),
        };
        let (variant, nargs) = match op {
            "add" => ("Add", 1),
            "sub" => ("Sub", 1),
            "min" => ("Min", 1),
            "max" => ("Max", 1),
            "and" => ("And", 1),
            "or" => ("Or", 1),
            "xor" => ("Xor", 1),
            "mul" => ("Mul", 1),
            "div" => ("Div", 1),
            "mod" => ("Mod", 1),
            "nand" => ("Nand", 1),
            "lshift" => ("Lshift", 1),
            "rshift" => ("Rshift", 1),
            "inc" => ("Inc", 0),
            "dec" => ("Dec", 0),
            "inc_mod" => ("IncMod", 1),
            "dec_mod" => ("DecMod", 1),
            "exchange" if !new_value => ("Exchange", 1),
            "compare_exchange" if !new_value => ("CompareExchange", 2),
            "load" if !new_value => ("Load", 0),
            "store" if !new_value => ("Store", 1),
            _ => {
                return reject(
                    &m.method,
                    format!("`{name}` is not a View method in kernels"),
                )
            }
        };
        if args.len() != nargs + 1 {
            return reject(m, format!("`{name}` takes an index and {nargs} value(s)"));
        }
        let (idx, vals) = self.atomic_args(args)?;
        let (ir, variant) = (ir(), format_ident!("{}", variant));
        let op = quote!(#ir::AtomicOp::#variant);
        let span = m.span();
        if !want {
            self.record(quote_spanned!(span=> #b.atomic(#op, #id, #idx, vec![#(#vals),*]);));
            return Ok(None);
        }
        if !fetch {
            return reject(
                m,
                format!("`{name}` returns nothing; use `atomic_fetch_{op}`"),
            );
        }
        let t = self.tmp();
        let builder = if new_value {
            quote!(atomic_new_fetch)
        } else {
            quote!(atomic_fetch)
        };
        self.emit(quote_spanned!(span=> let #t = #b.#builder(#op, #id, #idx, vec![#(#vals),*]);));
        Ok(Some(Val {
            ts: quote!(#t),
            stable: false,
            effects: true,
        }))
    }

    /// The index and value arguments of an atomic, evaluated in order.
    fn atomic_args(&mut self, args: &[&Expr]) -> R<(TokenStream, Vec<Val>)> {
        let comps: Vec<&Expr> = match strip(args[0]) {
            Expr::Tuple(t) => t.elems.iter().collect(),
            Expr::Array(a) => a.elems.iter().collect(),
            x => vec![x],
        };
        let mut all = comps.clone();
        all.extend(&args[1..]);
        let mut v = self.operands(&all)?;
        let vals = v.split_off(comps.len());
        let idx = match strip(args[0]) {
            Expr::Tuple(t) if t.elems.len() == 1 => v[0].ts.clone(),
            Expr::Tuple(_) => quote!((#(#v,)*)),
            Expr::Array(_) => quote!([#(#v),*]),
            _ => v[0].ts.clone(),
        };
        let idx = if v.is_empty() { quote!(()) } else { idx };
        Ok((idx, vals))
    }
}
