//! The kernel signature model: what `#[kernel]` learns from `fn name(work, accs.., args..)`.

use super::Errors;
use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::{
    Attribute, Block, FnArg, GenericArgument, GenericParam, Generics, Ident, ItemFn, Pat,
    PathArguments, Type, Visibility,
};

/// Options of `#[kernel(...)]`.
#[derive(Debug, Default, Clone, Copy)]
pub struct KernelOptions {
    /// `#[kernel(scan)]`.
    pub scan: bool,
    /// `#[kernel(debug)]`: print the expansion.
    pub debug: bool,
}

impl KernelOptions {
    /// Parses the attribute arguments.
    pub fn parse(attr: TokenStream) -> syn::Result<Self> {
        let mut o = KernelOptions::default();
        let parser = syn::meta::parser(|meta| {
            if meta.path.is_ident("scan") {
                o.scan = true;
                Ok(())
            } else if meta.path.is_ident("debug") {
                o.debug = true;
                Ok(())
            } else {
                Err(meta.error(format!(
                    "unknown kernel option `{}`: expected `scan` and/or `debug`, e.g. `#[kernel(scan, debug)]`",
                    meta.path.to_token_stream()
                )))
            }
        });
        syn::parse::Parser::parse2(parser, attr)?;
        Ok(o)
    }
}

/// The work item parameter.
#[derive(Debug, Clone)]
pub enum Work {
    /// `i: usize`.
    Range(Ident),
    /// `(i, j, ..): (usize, usize, ..)`.
    Md(Vec<Ident>),
    /// `team: &TeamMember`.
    Team(Ident),
}

impl Work {
    /// The names the work item binds.
    pub fn idents(&self) -> Vec<&Ident> {
        match self {
            Work::Range(i) | Work::Team(i) => vec![i],
            Work::Md(v) => v.iter().collect(),
        }
    }
    /// The `::rokkos::__private` work-kind type.
    pub fn kind_tokens(&self) -> TokenStream {
        match self {
            Work::Range(_) => quote!(::rokkos::__private::RangeWork),
            Work::Md(v) => {
                let n = proc_macro2::Literal::usize_unsuffixed(v.len());
                quote!(::rokkos::__private::MDWork<#n>)
            }
            Work::Team(_) => quote!(::rokkos::__private::TeamWork),
        }
    }
}

/// A `View<T, R>` / `ViewMut<T, R>` parameter.
#[derive(Debug, Clone)]
pub struct ViewParam {
    /// Parameter name.
    pub name: Ident,
    /// Element type.
    pub elem: Type,
    /// Rank (a const expression; `1` when omitted).
    pub rank: TokenStream,
    /// `ViewMut`.
    pub writable: bool,
    /// `InjectiveView<T>` / `DisjointRanges<T>`: a checked read-only index View (no layout
    /// parameter); `None` for `View` / `ViewMut`.
    pub checked: Option<Checked>,
    /// `ScatterSum<T, R>` / `ScatterProd` / `ScatterMin` / `ScatterMax`: a scatter container's
    /// accessor (contributions only; row-major, no layout parameter); `None` otherwise.
    pub scatter: Option<Scatter>,
    /// The generated layout type parameter (`__LName`).
    pub layout: Ident,
}

/// The checked read-only index View types a kernel may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checked {
    /// `InjectiveView<T>`: rank 1, entries pairwise distinct.
    Injective,
    /// `DisjointRanges<T>`: rank 2 (`[n, 2]`, first and last of each range), ranges disjoint.
    Ranges,
}

impl Checked {
    /// The type's name.
    pub fn type_name(self) -> &'static str {
        match self {
            Checked::Injective => "InjectiveView",
            Checked::Ranges => "DisjointRanges",
        }
    }

    /// The rank a kernel indexes it with.
    pub fn rank(self) -> usize {
        match self {
            Checked::Injective => 1,
            Checked::Ranges => 2,
        }
    }
}

/// The scatter accessor types a kernel may take, by operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scatter {
    /// `ScatterSum<T, R>`: `h.atomic_add(idx, v)`, `h.atomic_sub(idx, v)`.
    Sum,
    /// `ScatterProd<T, R>`: `h.atomic_mul(idx, v)`.
    Prod,
    /// `ScatterMin<T, R>`: `h.atomic_min(idx, v)`.
    Min,
    /// `ScatterMax<T, R>`: `h.atomic_max(idx, v)`.
    Max,
}

impl Scatter {
    /// The accessor type for parameter type name `name`, if it is one.
    pub fn of(name: &str) -> Option<Scatter> {
        Some(match name {
            "ScatterSum" => Scatter::Sum,
            "ScatterProd" => Scatter::Prod,
            "ScatterMin" => Scatter::Min,
            "ScatterMax" => Scatter::Max,
            _ => return None,
        })
    }
    /// The parameter type's name.
    pub fn type_name(self) -> &'static str {
        match self {
            Scatter::Sum => "ScatterSum",
            Scatter::Prod => "ScatterProd",
            Scatter::Min => "ScatterMin",
            Scatter::Max => "ScatterMax",
        }
    }
    /// The core reducer type naming the operation (`Sum`, ...).
    pub fn op_type(self) -> &'static str {
        match self {
            Scatter::Sum => "Sum",
            Scatter::Prod => "Prod",
            Scatter::Min => "Min",
            Scatter::Max => "Max",
        }
    }
    /// The methods a kernel contributes with.
    pub fn methods(self) -> &'static [&'static str] {
        match self {
            Scatter::Sum => &["atomic_add", "atomic_sub"],
            Scatter::Prod => &["atomic_mul"],
            Scatter::Min => &["atomic_min"],
            Scatter::Max => &["atomic_max"],
        }
    }
}

/// A by-value scalar parameter.
#[derive(Debug, Clone)]
pub struct ScalarParam {
    /// Parameter name.
    pub name: Ident,
    /// Declared `mut`.
    pub mutable: bool,
    /// Type.
    pub ty: Type,
}

/// A kernel argument after the work item and the accumulators.
#[derive(Debug, Clone)]
pub enum Arg {
    /// A View.
    View(ViewParam),
    /// A scalar.
    Scalar(ScalarParam),
}

impl Arg {
    /// Parameter name.
    pub fn name(&self) -> &Ident {
        match self {
            Arg::View(v) => &v.name,
            Arg::Scalar(s) => &s.name,
        }
    }
}

/// An accumulator parameter `acc: &mut T`.
#[derive(Debug, Clone)]
pub struct Accum {
    /// Parameter name.
    pub name: Ident,
    /// `T`.
    pub ty: Type,
}

/// The parallel pattern the kernel implements.
#[derive(Debug, Clone)]
pub enum PatternKind {
    /// `parallel_for`.
    For,
    /// `parallel_reduce` with one or more accumulators.
    Reduce(Vec<Accum>),
    /// `parallel_scan`: the partial sum and the final flag.
    Scan {
        /// The partial sum.
        acc: Box<Accum>,
        /// The `is_final` flag.
        flag: Ident,
    },
}

/// Everything the generators need to know about a kernel.
#[derive(Debug, Clone)]
pub struct KernelSignature {
    /// Doc comments of the kernel.
    pub docs: Vec<Attribute>,
    /// Other attributes (copied to the constructor).
    pub attrs: Vec<Attribute>,
    /// Visibility.
    pub vis: Visibility,
    /// Function name.
    pub name: Ident,
    /// User generics (type and const parameters, where clause).
    pub generics: Generics,
    /// The work item.
    pub work: Work,
    /// The pattern.
    pub pattern: PatternKind,
    /// Views and scalars, in order.
    pub args: Vec<Arg>,
    /// The body.
    pub body: Block,
    /// Options.
    pub options: KernelOptions,
}

impl KernelSignature {
    /// The user's type and const parameters (lifetimes are rejected earlier), as declared.
    pub fn user_generic_params(&self) -> Vec<&syn::GenericParam> {
        self.generics
            .params
            .iter()
            .filter(|g| !matches!(g, syn::GenericParam::Lifetime(_)))
            .collect()
    }

    /// The user's type and const parameters as arguments (`T`, `N`).
    pub fn user_generic_args(&self) -> Vec<&Ident> {
        self.generics
            .params
            .iter()
            .filter_map(|g| match g {
                syn::GenericParam::Type(t) => Some(&t.ident),
                syn::GenericParam::Const(c) => Some(&c.ident),
                syn::GenericParam::Lifetime(_) => None,
            })
            .collect()
    }

    /// Names of the user's type parameters.
    pub fn type_param_names(&self) -> Vec<String> {
        self.generics
            .type_params()
            .map(|t| t.ident.to_string())
            .collect()
    }
    /// The View parameters with a layout type parameter (every one but `InjectiveView`s).
    pub fn layout_views(&self) -> impl Iterator<Item = &ViewParam> {
        self.views()
            .filter(|v| v.checked.is_none() && v.scatter.is_none())
    }
    /// The View parameters.
    pub fn views(&self) -> impl Iterator<Item = &ViewParam> {
        self.args.iter().filter_map(|a| match a {
            Arg::View(v) => Some(v),
            Arg::Scalar(_) => None,
        })
    }
    /// The accumulators (empty for `parallel_for`).
    pub fn accums(&self) -> Vec<&Accum> {
        match &self.pattern {
            PatternKind::For => vec![],
            PatternKind::Reduce(a) => a.iter().collect(),
            PatternKind::Scan { acc, .. } => vec![acc],
        }
    }
}

const WORK_HELP: &str =
    "the first parameter of a kernel is its work item: `i: usize` (RangePolicy), \
`(i, j): (usize, usize)` (MDRangePolicy, 2 to 6 indices) or `team: &TeamMember` (TeamPolicy)";
const SCAN_HELP: &str =
    "a scan kernel is written `#[kernel(scan)] fn name(i: usize, partial: &mut T, is_final: bool, ..)`";

/// Upper-camel-case of a snake-case name: `my_kernel` → `MyKernel`.
pub fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for c in name.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn is_path_named(ty: &Type, name: &str) -> bool {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.is_ident(name),
        Type::Group(g) => is_path_named(&g.elem, name),
        Type::Paren(p) => is_path_named(&p.elem, name),
        _ => false,
    }
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        Type::Group(g) => last_segment(&g.elem),
        _ => None,
    }
}

/// A plain identifier pattern; returns the ident and whether it is `mut`.
fn ident_pat(pat: &Pat) -> Option<(&Ident, bool)> {
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
            Some((&p.ident, p.mutability.is_some()))
        }
        _ => None,
    }
}

fn parse_work(pat: &Pat, ty: &Type) -> syn::Result<Work> {
    // `team: &TeamMember`
    if let Type::Reference(r) = ty {
        if last_segment(&r.elem).is_some_and(|s| s.ident == "TeamMember") {
            if r.mutability.is_some() {
                return Err(syn::Error::new_spanned(
                    ty,
                    "write `team: &TeamMember` (not `&mut`)",
                ));
            }
            return match ident_pat(pat) {
                Some((id, false)) => Ok(Work::Team(id.clone())),
                Some((_, true)) => Err(syn::Error::new_spanned(
                    pat,
                    "the team member must not be `mut`: write `team: &TeamMember`",
                )),
                None => Err(syn::Error::new_spanned(pat, "write `team: &TeamMember`")),
            };
        }
    }
    if is_path_named(ty, "usize") {
        return match ident_pat(pat) {
            Some((id, false)) => Ok(Work::Range(id.clone())),
            Some((id, true)) => Err(syn::Error::new_spanned(
                pat,
                format!(
                    "the work index must not be `mut`: write `{id}: usize` and copy it into a local if needed"
                ),
            )),
            None => Err(syn::Error::new_spanned(pat, WORK_HELP)),
        };
    }
    if let Type::Tuple(t) = ty {
        if t.elems.iter().all(|e| is_path_named(e, "usize")) && (2..=6).contains(&t.elems.len()) {
            let Pat::Tuple(pt) = pat else {
                return Err(syn::Error::new_spanned(
                    pat,
                    "destructure the multi-index: `(i, j): (usize, usize)`",
                ));
            };
            if pt.elems.len() != t.elems.len() {
                return Err(syn::Error::new_spanned(
                    pat,
                    "the pattern and the type of the multi-index have different lengths",
                ));
            }
            let mut ids = Vec::new();
            for p in &pt.elems {
                match ident_pat(p) {
                    Some((id, false)) => ids.push(id.clone()),
                    Some((id, true)) => {
                        return Err(syn::Error::new_spanned(
                            p,
                            format!("the work index `{id}` must not be `mut`"),
                        ))
                    }
                    None => {
                        return Err(syn::Error::new_spanned(
                            p,
                            "each work index must be a plain name, as in `(i, j): (usize, usize)`",
                        ))
                    }
                }
            }
            return Ok(Work::Md(ids));
        }
    }
    Err(syn::Error::new_spanned(ty, WORK_HELP))
}

fn parse_view(
    name: &Ident,
    ty: &Type,
    writable: bool,
    scatter: Option<Scatter>,
    generics: &Generics,
) -> syn::Result<ViewParam> {
    let seg = last_segment(ty).expect("checked by caller");
    let which = match scatter {
        Some(s) => s.type_name(),
        None if writable => "ViewMut",
        None => "View",
    };
    let help = format!("write `{which}<T>` or `{which}<T, R>` (element type `T`, rank `R`)");
    let PathArguments::AngleBracketed(args) = &seg.arguments else {
        return Err(syn::Error::new_spanned(ty, help));
    };
    let mut it = args.args.iter();
    let elem = match it.next() {
        Some(GenericArgument::Type(t)) => t.clone(),
        _ => return Err(syn::Error::new_spanned(ty, help)),
    };
    let rank =
        match it.next() {
            None => quote!(1),
            Some(GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }))) if !matches!(n.base10_parse::<u64>(), Ok(0..=8)) => {
                return Err(syn::Error::new_spanned(n, "View ranks are 0 to 8"))
            }
            Some(GenericArgument::Const(e)) => e.to_token_stream(),
            Some(GenericArgument::Type(Type::Path(p)))
                if p.qself.is_none()
                    && p.path
                        .get_ident()
                        .is_some_and(|id| generics.const_params().any(|c| &c.ident == id)) =>
            {
                p.to_token_stream()
            }
            Some(other) => return Err(syn::Error::new_spanned(
                other,
                "the rank must be an integer literal or a const generic parameter of the kernel",
            )),
        };
    if let Some(extra) = it.next() {
        return Err(syn::Error::new_spanned(
            extra,
            format!(
                "`{which}` takes the element type and the rank only: the layout and the memory space are generic (any layout is accepted)"
            ),
        ));
    }
    Ok(ViewParam {
        name: name.clone(),
        elem,
        rank,
        writable,
        checked: None,
        scatter,
        layout: Ident::new(
            &format!("__L{}", camel(&name.to_string())),
            Span::call_site(),
        ),
    })
}

/// `InjectiveView<T>` / `DisjointRanges<T>`: the element type only (fixed rank, row-major,
/// read-only).
fn parse_checked(name: &Ident, ty: &Type, which: Checked) -> syn::Result<ViewParam> {
    let seg = last_segment(ty).expect("checked by caller");
    let help = match which {
        Checked::Injective => "write `InjectiveView<i32>` or `InjectiveView<u32>`: the element type only (an injective View has rank 1)",
        Checked::Ranges => "write `DisjointRanges<i32>` or `DisjointRanges<u32>`: the element type only (its View is `[n, 2]`, first and last of each range)",
    };
    let PathArguments::AngleBracketed(args) = &seg.arguments else {
        return Err(syn::Error::new_spanned(ty, help));
    };
    let mut it = args.args.iter();
    let elem = match (it.next(), it.next()) {
        (Some(GenericArgument::Type(t)), None) => t.clone(),
        _ => return Err(syn::Error::new_spanned(ty, help)),
    };
    Ok(ViewParam {
        name: name.clone(),
        elem,
        rank: {
            let r = proc_macro2::Literal::usize_unsuffixed(which.rank());
            quote!(#r)
        },
        writable: false,
        checked: Some(which),
        scatter: None,
        layout: Ident::new(
            &format!("__L{}", camel(&name.to_string())),
            Span::call_site(),
        ),
    })
}

fn parse_arg(pat: &Pat, ty: &Type, generics: &Generics) -> syn::Result<Arg> {
    let (name, mutable) = ident_pat(pat).ok_or_else(|| {
        syn::Error::new_spanned(pat, "kernel parameters must be plain names (`x: f64`)")
    })?;
    if let Some(seg) = last_segment(ty) {
        let view = seg.ident == "View";
        if view || seg.ident == "ViewMut" {
            if mutable {
                return Err(syn::Error::new_spanned(
                    pat,
                    "a View parameter is never `mut`: write `ViewMut<T>` to write its elements",
                ));
            }
            return parse_view(name, ty, !view, None, generics).map(Arg::View);
        }
        if let Some(op) = Scatter::of(&seg.ident.to_string()) {
            if mutable {
                return Err(syn::Error::new_spanned(
                    pat,
                    format!(
                        "a `{}` parameter is never `mut`: contribute with `{}.{}(idx, v)`",
                        op.type_name(),
                        name,
                        op.methods()[0]
                    ),
                ));
            }
            return parse_view(name, ty, true, Some(op), generics).map(Arg::View);
        }
        let checked = if seg.ident == "InjectiveView" {
            Some(Checked::Injective)
        } else if seg.ident == "DisjointRanges" {
            Some(Checked::Ranges)
        } else {
            None
        };
        if let Some(which) = checked {
            if mutable {
                return Err(syn::Error::new_spanned(
                    pat,
                    format!(
                        "an `{}` parameter is never `mut`: it is read-only",
                        which.type_name()
                    ),
                ));
            }
            return parse_checked(name, ty, which).map(Arg::View);
        }
    }
    match crate::ir::types::strip(ty) {
        Type::Path(p) if p.qself.is_none() => Ok(Arg::Scalar(ScalarParam {
            name: name.clone(),
            mutable,
            ty: ty.clone(),
        })),
        Type::Reference(r) if r.mutability.is_some() => Err(syn::Error::new_spanned(
            ty,
            "accumulators (`acc: &mut T`) come right after the work item",
        )),
        Type::Reference(_) => Err(syn::Error::new_spanned(
            ty,
            "kernel arguments cannot be references: pass Views as `View<T>` / `ViewMut<T>` and scalars by value",
        )),
        Type::ImplTrait(_) => Err(syn::Error::new_spanned(
            ty,
            "`impl Trait` parameters are not supported: use a named type parameter",
        )),
        _ => Err(syn::Error::new_spanned(
            ty,
            "kernel arguments are `View<T, R>`, `ViewMut<T, R>` or scalars passed by value (`f64`, `i32`, `T`, ...)",
        )),
    }
}

/// Parses and validates a kernel function.
pub fn parse_kernel(options: KernelOptions, item: ItemFn) -> syn::Result<KernelSignature> {
    let mut errs = Errors::default();
    let sig = &item.sig;
    if let Some(c) = &sig.constness {
        errs.spanned(c, "kernels cannot be `const fn`");
    }
    if let Some(a) = &sig.asyncness {
        errs.spanned(a, "kernels cannot be `async`");
    }
    if let Some(u) = &sig.unsafety {
        errs.spanned(
            u,
            "kernels cannot be `unsafe fn`: use `unsafe { }` blocks inside the body",
        );
    }
    if let Some(a) = &sig.abi {
        errs.spanned(a, "kernels cannot declare an ABI");
    }
    if let Some(v) = &sig.variadic {
        errs.spanned(v, "kernels cannot be variadic");
    }
    if let syn::ReturnType::Type(_, t) = &sig.output {
        errs.spanned(
            t,
            "kernels return nothing: reduce through accumulator parameters (`acc: &mut T`) or write a View",
        );
    }
    for p in &sig.generics.params {
        if let GenericParam::Lifetime(l) = p {
            errs.spanned(l, "kernels cannot have lifetime parameters");
        }
    }

    let mut inputs = sig.inputs.iter().peekable();
    let mut typed = Vec::new();
    for input in inputs.by_ref() {
        match input {
            FnArg::Receiver(r) => errs.spanned(r, "kernels are free functions: remove `self`"),
            FnArg::Typed(t) => typed.push(t),
        }
    }
    let mut typed = typed.into_iter().peekable();
    let Some(first) = typed.next() else {
        errs.at(sig.paren_token.span.join(), WORK_HELP);
        return Err(errs.finish().unwrap_err());
    };
    let work = match parse_work(&first.pat, &first.ty) {
        Ok(w) => Some(w),
        Err(e) => {
            errs.push(e);
            None
        }
    };

    let mut accs = Vec::new();
    while let Some(t) = typed.peek() {
        let Type::Reference(r) = &*t.ty else { break };
        if r.mutability.is_none() {
            break;
        }
        match ident_pat(&t.pat) {
            Some((id, false)) => accs.push(Accum {
                name: id.clone(),
                ty: (*r.elem).clone(),
            }),
            Some((_, true)) => errs.spanned(&t.pat, "write `acc: &mut T` (the name is not `mut`)"),
            None => errs.spanned(&t.pat, "accumulators must be plain names: `acc: &mut T`"),
        }
        if let Some(l) = &r.lifetime {
            errs.spanned(l, "remove the lifetime: write `acc: &mut T`");
        }
        typed.next();
    }

    let pattern = if options.scan {
        if accs.len() != 1 {
            errs.at(
                sig.ident.span(),
                format!("{SCAN_HELP}: exactly one accumulator"),
            );
            None
        } else {
            match typed.peek() {
                Some(t) if is_path_named(&t.ty, "bool") && ident_pat(&t.pat).is_some() => {
                    let flag = ident_pat(&t.pat).unwrap().0.clone();
                    typed.next();
                    Some(PatternKind::Scan {
                        acc: Box::new(accs.pop().unwrap()),
                        flag,
                    })
                }
                _ => {
                    errs.at(
                        accs[0].name.span(),
                        format!("{SCAN_HELP}: the accumulator must be followed by the final flag `is_final: bool`"),
                    );
                    None
                }
            }
        }
    } else if accs.is_empty() {
        Some(PatternKind::For)
    } else {
        Some(PatternKind::Reduce(accs))
    };
    if options.scan {
        if let Some(w @ (Work::Md(_) | Work::Team(_))) = &work {
            let span = w.idents()[0].span();
            errs.at(
                span,
                "scan kernels run over a RangePolicy only: the work item must be `i: usize`",
            );
        }
    }

    let mut args = Vec::new();
    for t in typed {
        match parse_arg(&t.pat, &t.ty, &sig.generics) {
            Ok(a) => args.push(a),
            Err(e) => errs.push(e),
        }
    }
    // Parameters spelled alike would be one name to every check of the body (which compare
    // spellings) and two to rustc when macro hygiene keeps them apart.
    let mut seen: Vec<&Ident> = Vec::new();
    let names = work
        .iter()
        .flat_map(|w| w.idents())
        .chain(match &pattern {
            Some(PatternKind::Reduce(accs)) => accs.iter().map(|a| &a.name).collect(),
            Some(PatternKind::Scan { acc, flag }) => vec![&acc.name, flag],
            _ => vec![],
        })
        .chain(args.iter().map(|a| a.name()));
    for id in names {
        if let Some(first) = seen.iter().find(|s| **s == id) {
            let mut e = syn::Error::new(
                id.span(),
                format!(
                    "the kernel has two parameters named `{id}`: rename one (the kernel's checks \
                     know variables by spelling, also where macro hygiene keeps two apart)"
                ),
            );
            e.combine(syn::Error::new(first.span(), format!("the other `{id}`")));
            errs.push(e);
        } else {
            seen.push(id);
        }
    }
    errs.finish()?;

    let (docs, attrs) = item
        .attrs
        .into_iter()
        .partition(|a| a.path().is_ident("doc"));
    Ok(KernelSignature {
        docs,
        attrs,
        vis: item.vis,
        name: item.sig.ident.clone(),
        generics: item.sig.generics.clone(),
        work: work.expect("no error"),
        pattern: pattern.expect("no error"),
        args,
        body: *item.block,
        options,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(opts: KernelOptions, src: &str) -> syn::Result<KernelSignature> {
        parse_kernel(opts, syn::parse_str(src).unwrap())
    }

    /// Scatter accessors are writable Views with their operation, a rank, and no layout
    /// parameter; `mut` is refused.
    #[test]
    fn scatter_parameters() {
        let s = parse(
            KernelOptions::default(),
            "fn k(i: usize, h: ScatterSum<f64, 2>, m: ScatterMax<i32>, a: ViewMut<f64>) {}",
        )
        .unwrap();
        let views: Vec<_> = s.views().collect();
        assert_eq!(views[0].scatter, Some(Scatter::Sum));
        assert_eq!(views[0].rank.to_string(), "2");
        assert_eq!(views[1].scatter, Some(Scatter::Max));
        assert!(views[0].writable && views[1].writable && views[2].scatter.is_none());
        let layouts: Vec<String> = s.layout_views().map(|v| v.name.to_string()).collect();
        assert_eq!(layouts, ["a"]);
        let Err(e) = parse(
            KernelOptions::default(),
            "fn k(i: usize, mut h: ScatterProd<u32>) {}",
        ) else {
            panic!("a `mut` scatter parameter is refused")
        };
        assert!(e.to_string().contains("never `mut`"), "{e}");
    }

    #[test]
    fn range_for_kernel() {
        let s = parse(
            KernelOptions::default(),
            "pub fn triad<T: Float>(i: usize, a: ViewMut<T>, b: View<T>, c: View<T, 2>, s: T) {}",
        )
        .unwrap();
        assert!(matches!(s.work, Work::Range(ref i) if i == "i"));
        assert!(matches!(s.pattern, PatternKind::For));
        let views: Vec<_> = s.views().collect();
        assert_eq!(views.len(), 3);
        assert!(views[0].writable && !views[1].writable);
        assert_eq!(views[2].rank.to_string(), "2");
        assert_eq!(views[0].layout, "__LA");
        assert!(matches!(&s.args[3], Arg::Scalar(p) if p.name == "s"));
    }

    #[test]
    fn reduce_md_team_scan() {
        let s = parse(
            KernelOptions::default(),
            "fn mm((i, j): (usize, usize), lo: &mut f64, hi: &mut f64, a: View<f64, 2>) {}",
        )
        .unwrap();
        assert!(matches!(&s.work, Work::Md(v) if v.len() == 2));
        assert!(matches!(&s.pattern, PatternKind::Reduce(v) if v.len() == 2));
        let s = parse(
            KernelOptions::default(),
            "fn t(team: &TeamMember<'_>, a: View<f64, 2>) {}",
        )
        .unwrap();
        assert!(matches!(&s.work, Work::Team(t) if t == "team"));
        let scan = KernelOptions {
            scan: true,
            debug: false,
        };
        let s = parse(
            scan,
            "fn p(i: usize, part: &mut i64, fin: bool, x: View<i64>) {}",
        )
        .unwrap();
        assert!(matches!(&s.pattern, PatternKind::Scan { flag, .. } if flag == "fin"));
    }

    #[test]
    fn rejections() {
        let d = KernelOptions::default();
        let scan = KernelOptions {
            scan: true,
            debug: false,
        };
        for (opts, src, msg) in [
            (d, "fn k(mut i: usize) {}", "must not be `mut`"),
            (d, "fn k(i: f64) {}", "work item"),
            (d, "fn k(i: usize, x: &f64) {}", "references"),
            (d, "fn k(i: usize) -> f64 {}", "return nothing"),
            (d, "fn k<'a>(i: usize) {}", "lifetime"),
            (d, "fn k(i: usize, x: impl Copy) {}", "impl Trait"),
            (d, "fn k(i: usize, v: View) {}", "View<T>"),
            (
                scan,
                "fn k(i: usize, p: &mut i64, x: View<i64>) {}",
                "is_final",
            ),
            (
                scan,
                "fn k(t: &TeamMember, p: &mut i64, f: bool) {}",
                "RangePolicy only",
            ),
            (d, "async fn k(i: usize) {}", "async"),
            (
                d,
                "fn k(i: usize, a: ViewMut<f64>, i: usize) {}",
                "two parameters named `i`",
            ),
            (
                scan,
                "fn k(i: usize, p: &mut i64, f: bool, f: bool) {}",
                "two parameters named `f`",
            ),
            (
                d,
                "fn k((i, i): (usize, usize)) {}",
                "two parameters named `i`",
            ),
        ] {
            let e = parse(opts, src)
                .err()
                .unwrap_or_else(|| panic!("accepted {src}"));
            let text = e
                .into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n");
            assert!(text.contains(msg), "{src}: {text}");
        }
    }

    #[test]
    fn camel_case() {
        assert_eq!(camel("my_kernel"), "MyKernel");
        assert_eq!(camel("dot"), "Dot");
    }
}
