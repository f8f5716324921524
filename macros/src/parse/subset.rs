//! The accepted subset of Rust in kernel and `#[func]` bodies.
//!
//! Everything outside the subset is reported at its span with what to write instead. The check also
//! collects the paths of called functions, which the generators turn into `#[func]` marker checks.

use super::env::{pat_ident, BodyEnv, ViewKind};
use super::{
    expr_ident, Errors, NestedKind, ATOMIC_METHODS, MATH_METHODS, SCALAR_TYPES, TEAM_PLAIN_METHODS,
    VIEW_METHODS,
};
use syn::visit::Visit;
use syn::{BinOp, Expr, Lit, Pat, Stmt, Type, UnOp};

/// Result of a successful subset check.
#[derive(Debug, Default)]
pub struct SubsetInfo {
    /// Paths of called `#[func]` functions, in order of appearance.
    pub func_calls: Vec<syn::Path>,
    /// Scratch levels given as constants, which the generated code asserts to be 0 or 1.
    pub levels: Vec<Expr>,
}

/// Checks `body` against the subset.
pub fn check_block(env: &BodyEnv, body: &syn::Block) -> syn::Result<SubsetInfo> {
    let mut c = Subset {
        env,
        errs: Errors::default(),
        info: SubsetInfo::default(),
        nested_accs: Vec::new(),
    };
    c.visit_block(body);
    c.errs.finish()?;
    Ok(c.info)
}

struct Subset<'a> {
    env: &'a BodyEnv,
    errs: Errors,
    info: SubsetInfo,
    /// The accumulators of the nested reduce / scan closures being visited, innermost last.
    nested_accs: Vec<String>,
}

impl Subset<'_> {
    /// Whether `name` is an accumulator here: the kernel's, or that of an enclosing nested
    /// reduce / scan closure.
    fn is_acc_name(&self, name: &str) -> bool {
        self.env.accs.contains(name) || self.nested_accs.iter().any(|a| a == name)
    }
    /// Whether `e` names an accumulator here.
    fn is_acc(&self, e: &Expr) -> bool {
        expr_ident(e).is_some_and(|id| self.is_acc_name(&id.to_string()))
    }
}

/// Whether `op` is a compound assignment (`+=` ...).
pub fn is_compound(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

fn read_only_msg(env: &BodyEnv, name: &str) -> String {
    if env.injective.contains(name) {
        return format!(
            "`{name}` is an `InjectiveView`, read-only everywhere: its entries stay pairwise distinct only because nothing writes them"
        );
    }
    if env.ranges.contains(name) {
        return format!(
            "`{name}` is a `DisjointRanges`, read-only everywhere: its ranges stay disjoint only because nothing writes them"
        );
    }
    format!("View `{name}` is read-only in this kernel; declare it `ViewMut<..>` to write it")
}

impl Subset<'_> {
    fn macro_error(&mut self, mac: &syn::Macro) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let msg = match name.as_str() {
            "println" | "print" | "eprintln" | "eprint" | "dbg" | "format" | "write" | "writeln" => {
                "printing is not available on GPU backends; return a value through a View".to_string()
            }
            "assert" | "assert_eq" | "assert_ne" | "debug_assert" | "debug_assert_eq"
            | "debug_assert_ne" | "panic" | "unreachable" | "todo" | "unimplemented" => format!(
                "`{name}!` is not available in kernels (GPU backends cannot panic); check the results on the host"
            ),
            _ => format!(
                "macros (`{name}!`) are not supported in kernel bodies; write the code out or use a `#[rokkos::func]` function"
            ),
        };
        self.errs.spanned(mac, msg);
    }

    fn check_binding(&mut self, p: &Pat, allow_tuple: bool) {
        match p {
            Pat::Ident(i) => {
                if i.by_ref.is_some() || i.subpat.is_some() {
                    self.errs.spanned(p, "bind a plain name: `let x = ..` or `let mut x = ..`");
                }
            }
            Pat::Wild(_) => {}
            Pat::Type(t) => {
                self.check_binding(&t.pat, allow_tuple);
                self.check_type(&t.ty);
            }
            Pat::Tuple(t) if allow_tuple => {
                for e in &t.elems {
                    self.check_binding(e, true);
                }
            }
            // `let [x, y, z] = f(..);` for a `#[func]` returning an array.
            Pat::Slice(t) if allow_tuple => {
                for e in &t.elems {
                    self.check_binding(e, false);
                }
            }
            _ => self.errs.spanned(
                p,
                "patterns are limited to names and tuples of names (`let x = ..`, `let (a, b) = ..`); use if / else instead of pattern matching",
            ),
        }
    }

    fn check_type(&mut self, t: &Type) {
        match t {
            Type::Group(g) => self.check_type(&g.elem),
            Type::Path(_) => {}
            Type::Array(a) => self.check_type(&a.elem),
            Type::Tuple(t) => t.elems.iter().for_each(|e| self.check_type(e)),
            Type::Paren(p) => self.check_type(&p.elem),
            Type::Infer(_) => {}
            Type::Reference(_) | Type::Ptr(_) => self.errs.spanned(
                t,
                "references and pointers are not available in kernels: use values (scalars and local arrays)",
            ),
            _ => self
                .errs
                .spanned(t, "local types are limited to scalars, type parameters and arrays `[T; N]`"),
        }
    }

    /// The left side of an assignment.
    fn check_place(&mut self, e: &Expr) {
        match e {
            Expr::Paren(p) => self.check_place(&p.expr),
            Expr::Group(g) => self.check_place(&g.expr),
            Expr::Path(p) => {
                if let Some(id) = p.path.get_ident() {
                    let name = id.to_string();
                    if self.env.views.contains_key(&name) {
                        self.errs.spanned(
                            e,
                            format!("`{name}` is a View: assign its elements (`{name}[i] = ..`)"),
                        );
                    } else if self.is_acc_name(&name) {
                        self.errs.spanned(
                            e,
                            format!("`{name}` is an accumulator (a `&mut`): assign through it, `*{name} = ..`"),
                        );
                    } else if self.env.team.as_deref() == Some(name.as_str()) {
                        self.errs.spanned(e, "the team member cannot be assigned");
                    }
                } else {
                    self.errs.spanned(e, "assign to a local, an accumulator or a View element");
                }
            }
            Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => self.visit_expr(e),
            Expr::Field(f) => {
                if let Expr::Index(i) = strip(&f.base) {
                    if self.env.view_of(&i.expr).is_some() {
                        self.errs.spanned(
                            e,
                            "fields of View elements cannot be assigned in place: load the element into a local, change it and store it back whole",
                        );
                        return;
                    }
                }
                self.check_field_base(&f.base, true);
            }
            Expr::Index(i) => self.check_index(i, true),
            _ => self.errs.spanned(
                e,
                "cannot assign to this expression: assign to a local (`x = ..`), an accumulator (`*acc = ..`) or a View element (`a[i] = ..`)",
            ),
        }
    }

    fn check_field_base(&mut self, base: &Expr, place: bool) {
        if self.is_acc(base) {
            return;
        }
        match strip(base) {
            Expr::Field(f) => self.check_field_base(&f.base, place),
            b if place => self.check_place(b),
            b => self.visit_expr(b),
        }
    }

    /// A View index: a single expression or a tuple / array of components.
    fn check_view_index(&mut self, e: &Expr) {
        match strip(e) {
            Expr::Tuple(t) => t.elems.iter().for_each(|c| self.visit_expr(c)),
            Expr::Array(a) => a.elems.iter().for_each(|c| self.visit_expr(c)),
            other => self.visit_expr(other),
        }
    }

    fn check_index(&mut self, i: &syn::ExprIndex, place: bool) {
        if let Some((name, kind)) = self.env.view_of(&i.expr) {
            if place && kind == ViewKind::Read {
                self.errs.spanned(i, read_only_msg(self.env, &name));
            }
            self.check_view_index(&i.index);
            return;
        }
        if self.env.is_team(&i.expr) || self.is_acc(&i.expr) {
            self.errs
                .spanned(&i.expr, "only Views and local arrays can be indexed");
        } else if place {
            self.check_place(&i.expr);
        } else {
            self.visit_expr(&i.expr);
        }
        self.visit_expr(&i.index);
    }

    /// Arguments of nested-range methods may be ranges.
    fn visit_range_arg(&mut self, e: &Expr) {
        match strip(e) {
            Expr::Range(r) => self.check_range(r),
            other => self.visit_expr(other),
        }
    }

    fn check_range(&mut self, r: &syn::ExprRange) {
        match (&r.start, &r.end) {
            (Some(s), Some(e)) => {
                self.visit_expr(s);
                self.visit_expr(e);
            }
            _ => self
                .errs
                .spanned(r, "ranges must be bounded on both sides: `a..b` or `a..=b`"),
        }
    }

    fn check_for_iter(&mut self, e: &Expr) {
        match e {
            Expr::Paren(p) => self.check_for_iter(&p.expr),
            Expr::Group(g) => self.check_for_iter(&g.expr),
            Expr::Range(r) => self.check_range(r),
            Expr::MethodCall(m) if self.env.is_team(&m.receiver) => {
                if NestedKind::of_range(&m.method.to_string()).is_some() {
                    m.args.iter().for_each(|a| self.visit_range_arg(a));
                } else {
                    self.errs.spanned(
                        e,
                        "a `for` loop over the team iterates a nested range: `team.thread_range(n)`, `team.vector_range(n)` or `team.team_vector_range(n)`",
                    );
                }
            }
            Expr::MethodCall(m)
                if (m.method == "step_by" && m.args.len() == 1)
                    || (m.method == "rev" && m.args.is_empty()) =>
            {
                self.check_for_iter(&m.receiver);
                m.args.iter().for_each(|a| self.visit_expr(a));
            }
            _ => self.errs.spanned(
                e,
                "`for` loops iterate over integer ranges (`a..b`, `a..=b`, `(a..b).step_by(k)`, `(a..b).rev()`) or nested ranges (`team.thread_range(n)`)",
            ),
        }
    }

    fn check_closure_arg(&mut self, e: &Expr, params: usize, what: &str) {
        let Expr::Closure(c) = strip(e) else {
            self.errs.spanned(e, format!("pass a closure: {what}"));
            return;
        };
        if c.asyncness.is_some() || c.constness.is_some() || c.lifetimes.is_some() {
            self.errs
                .spanned(c, format!("write a plain closure: {what}"));
        }
        if c.inputs.len() != params {
            self.errs.spanned(
                &c.inputs,
                format!("the closure takes {params} parameter(s): {what}"),
            );
        }
        for p in &c.inputs {
            match p {
                Pat::Type(t) if pat_ident(&t.pat).is_some() => {}
                Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {}
                _ => self
                    .errs
                    .spanned(p, format!("closure parameters are plain names: {what}")),
            }
        }
        // The second parameter of a nested reduce / scan closure is its accumulator, there only.
        let acc = match params {
            2 | 3 => c
                .inputs
                .iter()
                .nth(1)
                .and_then(pat_ident)
                .map(|i| i.to_string()),
            _ => None,
        };
        let pushed = acc.is_some();
        self.nested_accs.extend(acc);
        self.visit_expr(&c.body);
        if pushed {
            self.nested_accs.pop();
        }
    }

    fn check_team_method(&mut self, m: &syn::ExprMethodCall) {
        let method = m.method.to_string();
        if let Some((_, scan)) = NestedKind::of_nested_reduce(&method) {
            let (n, what) = if scan {
                (
                    2,
                    format!("`team.{method}(n, |j, partial: &mut T, is_final: bool| ..)`"),
                )
            } else {
                (3, format!("`team.{method}(n, Sum, |j, acc: &mut T| ..)`"))
            };
            if m.args.len() != n {
                self.errs.spanned(m, format!("write {what}"));
                return;
            }
            let args: Vec<&Expr> = m.args.iter().collect();
            self.visit_range_arg(args[0]);
            if !scan {
                self.visit_expr(args[1]);
            }
            self.check_closure_arg(args[n - 1], if scan { 3 } else { 2 }, &what);
        } else if method == "single_team" || method == "single_thread" {
            let what = format!("`team.{method}(|| {{ .. }})`");
            if m.args.len() != 1 {
                self.errs.spanned(m, format!("write {what}"));
                return;
            }
            self.check_closure_arg(&m.args[0], 0, &what);
        } else if method == "team_scratch" || method == "thread_scratch" {
            if let Some(level) = m.args.first() {
                self.check_scratch_level(level);
            }
            m.args.iter().skip(1).for_each(|a| self.visit_range_arg(a));
        } else if TEAM_PLAIN_METHODS.contains(&method.as_str()) {
            m.args.iter().for_each(|a| self.visit_range_arg(a));
        } else if matches!(
            method.as_str(),
            "thread_md_range" | "vector_md_range" | "team_vector_md_range"
        ) {
            // Loops over them were rewritten before this check (`super::md_range`).
            self.errs.spanned(
                m,
                format!("`{method}` is written as a loop: `for [i, j] in team.{method}([n0, n1]) {{ .. }}`"),
            );
        } else if method == "team_broadcast_with" {
            // Well-formed calls were rewritten before this check (`super::broadcast`).
            self.errs.spanned(
                m,
                "write `team.team_broadcast_with(value, src, |v| ..)`: the value, the source thread and a closure of one parameter that returns the value to broadcast",
            );
        } else {
            self.errs.spanned(
                &m.method,
                format!(
                    "`{method}` is not a team method available in kernels; available: {}, thread_reduce, vector_reduce, team_vector_reduce, thread_scan, vector_scan, team_vector_scan, single_team, single_thread",
                    TEAM_PLAIN_METHODS.join(", ")
                ),
            );
        }
    }

    /// A scratch level is 0 or 1, fixed for the kernel (each device backend places each level in
    /// its own memory): a literal, checked here, or a constant, checked when the kernel is
    /// launched ([`SubsetInfo::levels`]).
    fn check_scratch_level(&mut self, level: &Expr) {
        match strip(level) {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Int(n), ..
            }) => {
                if !matches!(n.base10_parse::<u64>(), Ok(0 | 1)) {
                    self.errs.spanned(
                        level,
                        "scratch levels are 0 (small and fast: workgroup or shared memory) and 1 (large: a global pool)",
                    );
                }
            }
            Expr::Path(p) if p.qself.is_none() => self.info.levels.push(level.clone()),
            _ => self.errs.spanned(
                level,
                "the scratch level is fixed for the kernel: write 0 or 1, or a constant",
            ),
        }
    }

    fn check_method(&mut self, m: &syn::ExprMethodCall) {
        let method = m.method.to_string();
        if self.env.is_team(&m.receiver) {
            return self.check_team_method(m);
        }
        if let Some((name, kind)) = self.env.view_of(&m.receiver) {
            if ATOMIC_METHODS.contains(&method.as_str()) {
                if kind == ViewKind::Read {
                    self.errs.spanned(&m.method, read_only_msg(self.env, &name));
                }
                let mut args = m.args.iter();
                if let Some(idx) = args.next() {
                    self.check_view_index(idx);
                }
                args.for_each(|a| self.visit_expr(a));
            } else if VIEW_METHODS.contains(&method.as_str()) {
                m.args.iter().for_each(|a| self.visit_expr(a));
            } else {
                self.errs.spanned(
                    &m.method,
                    format!(
                        "`{method}` is not available on Views in kernels; available: {}, {}",
                        VIEW_METHODS.join(", "),
                        ATOMIC_METHODS.join(", ")
                    ),
                );
            }
            return;
        }
        if !MATH_METHODS.contains(&method.as_str()) {
            let hint = match method.as_str() {
                "clone" | "to_owned" => "values are copied implicitly: drop the `.clone()`".to_string(),
                "iter" | "into_iter" | "map" | "sum" | "fold" | "for_each" | "len" => {
                    "kernels have no iterators or slices: write a `for k in 0..n` loop".to_string()
                }
                _ => format!(
                    "methods available on values in kernels: {}; or call a `#[rokkos::func]` function",
                    MATH_METHODS.join(", ")
                ),
            };
            self.errs.spanned(
                &m.method,
                format!("method `{method}` is not available in kernels; {hint}"),
            );
            self.visit_expr(&m.receiver);
            m.args.iter().for_each(|a| self.visit_expr(a));
            return;
        }
        if let Some(t) = &m.turbofish {
            self.errs
                .spanned(t, "remove the turbofish: annotate the local's type instead");
        }
        if !self.is_acc(&m.receiver) {
            self.visit_expr(&m.receiver);
        }
        m.args.iter().for_each(|a| self.visit_expr(a));
    }

    fn check_call(&mut self, c: &syn::ExprCall) {
        let Expr::Path(p) = strip(&c.func) else {
            self.errs.spanned(
                &c.func,
                "only `#[rokkos::func]` functions and associated functions of scalar types can be called in kernels",
            );
            return;
        };
        if let Some(q) = &p.qself {
            // `<T>::f(..)`: an associated function, as `T::f(..)`. Through a named trait
            // (`<f64 as Tr>::max(..)`) the host would run the trait's function while the IR
            // records the built-in one of that name: one kernel, two results.
            if q.position > 0 {
                self.errs.spanned(
                    &c.func,
                    "associated functions are called through the type in kernels (`f64::max(a, b)`, `T::from_f64(x)`), not through a trait: `<T as Trait>::f(..)` could run another function on the host than the devices run",
                );
                return;
            }
        } else if p.path.segments.len() == 1 {
            let name = p.path.segments[0].ident.to_string();
            if name.chars().next().is_some_and(|c| c.is_uppercase()) {
                self.errs.spanned(
                    &c.func,
                    format!("constructors (`{name}(..)`) are not supported in kernels: use scalars, arrays and tuples of locals"),
                );
                return;
            }
            if self.env.views.contains_key(&name)
                || self.is_acc_name(&name)
                || self.env.team.as_deref() == Some(name.as_str())
            {
                self.errs
                    .spanned(&c.func, format!("`{name}` is not a function"));
                return;
            }
            self.info.func_calls.push(p.path.clone());
        } else {
            let first = p.path.segments[0].ident.to_string();
            if !(SCALAR_TYPES.contains(&first.as_str()) || self.env.type_params.contains(&first)) {
                self.info.func_calls.push(p.path.clone());
            }
        }
        c.args.iter().for_each(|a| self.visit_expr(a));
    }

    fn check_path(&mut self, e: &Expr, p: &syn::ExprPath) {
        let Some(id) = p.path.get_ident() else { return };
        let name = id.to_string();
        if name == "self" {
            self.errs.spanned(e, "kernels have no `self`");
        } else if self.env.views.contains_key(&name) {
            self.errs.spanned(
                e,
                format!("View `{name}` can only be indexed (`{name}[i]`) or used through its methods (`{name}.extent(0)`, `{name}.atomic_add(i, v)`)"),
            );
        } else if self.env.team.as_deref() == Some(name.as_str()) {
            self.errs.spanned(
                e,
                format!("the team member can only be used through its methods (`{name}.league_rank()`, `{name}.thread_range(n)`, ..)"),
            );
        } else if self.is_acc_name(&name) {
            self.errs.spanned(
                e,
                format!("`{name}` is an accumulator (a `&mut`): read and update it through `*{name}` (or `{name}.field`)"),
            );
        }
    }
}

impl<'ast> Visit<'ast> for Subset<'_> {
    fn visit_stmt(&mut self, s: &'ast Stmt) {
        match s {
            Stmt::Local(l) => {
                let tuple = matches!(&l.pat, Pat::Tuple(_))
                    || matches!(&l.pat, Pat::Type(t) if matches!(&*t.pat, Pat::Tuple(_)));
                self.check_binding(&l.pat, true);
                match &l.init {
                    None => self.errs.spanned(l, "initialize locals where they are declared: `let x = 0.0;`"),
                    Some(init) => {
                        if let Some((_, d)) = &init.diverge {
                            self.errs.spanned(d, "`let .. else` is not supported: use if / else");
                        }
                        match strip(&init.expr) {
                            Expr::Tuple(t) if tuple => t.elems.iter().for_each(|e| self.visit_expr(e)),
                            e => self.visit_expr(e),
                        }
                    }
                }
            }
            // A constant table: `rustc` evaluates its value (any constant expression), the IR
            // records the elements (see `ir::stmt`, which checks the type).
            Stmt::Item(syn::Item::Const(c)) if c.generics.params.is_empty() => {}
            Stmt::Item(i) => self.errs.spanned(
                i,
                "items (fn, struct, use, ..) cannot be declared inside a kernel: declare them outside, and helper functions as `#[rokkos::func]`; a `const NAME: [T; N] = [..];` is a constant table",
            ),
            Stmt::Expr(e, _) => self.visit_expr(e),
            Stmt::Macro(m) => self.macro_error(&m.mac),
        }
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Array(a) => a.elems.iter().for_each(|x| self.visit_expr(x)),
            Expr::Assign(a) => {
                self.check_place(&a.left);
                self.visit_expr(&a.right);
            }
            Expr::Binary(b) => {
                if is_compound(&b.op) {
                    self.check_place(&b.left);
                } else {
                    self.visit_expr(&b.left);
                }
                self.visit_expr(&b.right);
            }
            Expr::Block(b) => {
                if let Some(l) = &b.label {
                    self.errs.spanned(l, "labeled blocks are not supported: use a labeled loop");
                }
                self.visit_block(&b.block);
            }
            Expr::Break(b) => {
                if let Some(v) = &b.expr {
                    self.errs.spanned(v, "`break` with a value is not supported: assign a local before breaking");
                }
            }
            Expr::Call(c) => self.check_call(c),
            Expr::Cast(c) => {
                self.visit_expr(&c.expr);
                // `as $t` from a `macro_rules!` `ty` fragment comes in an invisible group.
                let ok = match crate::ir::types::strip(&c.ty) {
                    Type::Path(p) if p.qself.is_none() => p.path.get_ident().is_some_and(|id| {
                        let s = id.to_string();
                        SCALAR_TYPES.contains(&s.as_str()) || self.env.type_params.contains(&s)
                    }),
                    _ => false,
                };
                if !ok {
                    self.errs.spanned(
                        &c.ty,
                        format!("casts are between scalar types: {}", SCALAR_TYPES.join(", ")),
                    );
                }
            }
            Expr::Closure(c) => self.errs.spanned(
                c,
                "closures are only accepted as arguments of team methods (`team.thread_reduce(n, Sum, |j, acc| ..)`, `team.single_team(|| ..)`); use a loop or a `#[rokkos::func]` function",
            ),
            Expr::Continue(_) => {}
            Expr::Field(f) => self.check_field_base(&f.base, false),
            Expr::ForLoop(f) => {
                match &*f.pat {
                    Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {}
                    Pat::Wild(_) => {}
                    p => self.errs.spanned(p, "the loop variable must be a plain name: `for k in 0..n`"),
                }
                self.check_for_iter(&f.expr);
                self.visit_block(&f.body);
            }
            Expr::Group(g) => self.visit_expr(&g.expr),
            Expr::If(i) => {
                if let Expr::Let(l) = strip(&i.cond) {
                    self.errs.spanned(l, "`if let` is not supported in kernels: use if / else");
                } else {
                    self.visit_expr(&i.cond);
                }
                self.visit_block(&i.then_branch);
                if let Some((_, e)) = &i.else_branch {
                    self.visit_expr(e);
                }
            }
            Expr::Index(i) => self.check_index(i, false),
            Expr::Lit(l) => match &l.lit {
                Lit::Int(_) | Lit::Float(_) | Lit::Bool(_) => {}
                Lit::Str(_) | Lit::ByteStr(_) | Lit::CStr(_) => self.errs.spanned(
                    l,
                    "string literals are not available in kernels (GPU backends have no strings)",
                ),
                _ => self.errs.spanned(
                    l,
                    "only integer, floating-point and boolean literals are available in kernels",
                ),
            },
            Expr::Loop(l) => self.visit_block(&l.body),
            Expr::Macro(m) => self.macro_error(&m.mac),
            Expr::Match(m) => self.errs.spanned(
                m.match_token,
                "`match` is not supported in kernels: use if / else",
            ),
            Expr::MethodCall(m) => self.check_method(m),
            Expr::Paren(p) => self.visit_expr(&p.expr),
            Expr::Path(p) => self.check_path(e, p),
            Expr::Range(r) => self.errs.spanned(
                r,
                "ranges are only accepted in `for` loops (`for k in a..b`) and as nested-range arguments (`team.thread_range(a..b)`)",
            ),
            Expr::Reference(r) => self.errs.spanned(
                r,
                "references (`&x`) are not available in kernels: pass values",
            ),
            Expr::Repeat(r) => {
                self.visit_expr(&r.expr);
                self.visit_expr(&r.len);
            }
            Expr::Return(r) => {
                if let Some(v) = &r.expr {
                    if self.env.is_func {
                        self.visit_expr(v);
                    } else {
                        self.errs.spanned(
                            v,
                            "kernels return nothing: write results to a View or an accumulator, then `return;`",
                        );
                    }
                }
            }
            Expr::Struct(s) => self.errs.spanned(
                s,
                "struct literals are not supported in kernels: use scalars, local arrays and tuples of locals",
            ),
            Expr::Try(t) => self.errs.spanned(
                t.question_token,
                "`?` is not available in kernels: there are no errors to propagate",
            ),
            // A `#[func]` may return several values as a tuple (its IR translation accepts one
            // only as the returned value).
            Expr::Tuple(t) if self.env.is_func => t.elems.iter().for_each(|c| self.visit_expr(c)),
            Expr::Tuple(t) => {
                if !t.elems.is_empty() {
                    self.errs.spanned(
                        t,
                        "tuples are only accepted as View indices (`a[(i, j)]`) and in `let (a, b) = (x, y);`",
                    );
                }
            }
            Expr::Unary(u) => match u.op {
                UnOp::Deref(_) => {
                    if !self.is_acc(&u.expr) {
                        self.errs.spanned(
                            u,
                            "`*` only applies to accumulators (`*acc += x`): kernels have no references",
                        );
                    }
                }
                _ => self.visit_expr(&u.expr),
            },
            Expr::Unsafe(u) => self.visit_block(&u.block),
            Expr::While(w) => {
                if let Expr::Let(l) = strip(&w.cond) {
                    self.errs.spanned(l, "`while let` is not supported in kernels: use `while` with a condition");
                } else {
                    self.visit_expr(&w.cond);
                }
                self.visit_block(&w.body);
            }
            Expr::Let(l) => self.errs.spanned(
                l,
                "`let` in conditions (`if let`, `while let`) is not supported in kernels: use if / else",
            ),
            Expr::Async(_) | Expr::Await(_) => self
                .errs
                .spanned(e, "`async` / `.await` are not available in kernels"),
            Expr::RawAddr(_) => self
                .errs
                .spanned(e, "raw pointers are not available in kernels: use Views"),
            _ => self.errs.spanned(e, "this expression is not supported in kernels"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::signature::{parse_kernel, KernelOptions};

    fn check(src: &str) -> Result<SubsetInfo, String> {
        let sig = parse_kernel(KernelOptions::default(), syn::parse_str(src).unwrap()).unwrap();
        let env = BodyEnv::for_kernel(&sig);
        check_block(&env, &sig.body).map_err(|e| {
            e.into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    #[test]
    fn accepts_the_subset() {
        let info = check(
            "fn k(i: usize, acc: &mut f64, a: View<f64>, b: ViewMut<f64, 2>, s: f64) {
                let mut w = [0.0f64; 4];
                let (x, y) = (1.0, 2.0);
                for k in (0..4).step_by(2) { w[k] = a[i] * s + x + y; }
                for k in (0..=3).rev() { if w[k] > 0.0 { *acc += w[k].sqrt(); } else if k == 0 { break; } }
                b[(i, 0)] += sq(a[i]) + std::f64::consts::PI + f64::max(x, y) + (i as f64).powi(2);
                b.atomic_add((i, 1), 1.0);
                let n = b.extent(1);
                while n > 10 { return; }
                unsafe { b[(0, 0)] = 1.0; }
                util::helper(1.0);
            }",
        )
        .unwrap();
        let names: Vec<String> = info
            .func_calls
            .iter()
            .map(|p| quote::quote!(#p).to_string())
            .collect();
        assert_eq!(names, ["sq", "util :: helper"]);
        check(
            "fn t(team: &TeamMember, a: View<f64, 2>, out: ViewMut<f64>) {
                let l = team.league_rank();
                let s = team.thread_reduce(a.extent(1), Sum, |j, acc: &mut f64| { *acc += a[(l, j)]; });
                let sc = team.team_scratch::<f64, 1>(0, [4]);
                for j in team.thread_range(0..4) { sc[j] = 1.0; }
                team.team_barrier();
                team.single_team(|| { out[l] = s + sc[0]; });
            }",
        )
        .unwrap();
    }

    /// A nested closure's accumulator is one inside its closure only: a local of the same name
    /// outside it is a plain local; inside, the bare name is still refused.
    #[test]
    fn nested_accumulators_are_scoped_to_their_closure() {
        check(
            "fn t(team: &TeamMember, a: View<f64, 2>, out: ViewMut<f64>) {
                let l = team.league_rank();
                let m = team.thread_reduce(a.extent(1), Max, |j, m: &mut f64| { if a[(l, j)] > *m { *m = a[(l, j)]; } });
                team.single_team(|| { out[l] = if m > 0.0 { m } else { 0.0 }; });
            }",
        )
        .unwrap();
        let err = check(
            "fn t(team: &TeamMember, a: View<f64, 2>, out: ViewMut<f64>) {
                let l = team.league_rank();
                let m = team.thread_reduce(a.extent(1), Max, |j, m: &mut f64| { if a[(l, j)] > m { *m = a[(l, j)]; } });
                team.single_team(|| { out[l] = m; });
            }",
        )
        .unwrap_err();
        assert!(err.contains("`m` is an accumulator"), "{err}");
    }

    #[test]
    fn rejects_outside_the_subset() {
        for (body, msg) in [
            ("match i { _ => {} }", "use if / else"),
            ("println!(\"x\");", "printing is not available"),
            ("let f = |x: f64| x;", "closures are only accepted"),
            ("let x = a[i].to_string();", "`to_string` is not available"),
            ("let x = &a[i];", "references"),
            ("let s = \"hi\";", "string literals"),
            ("if let Some(x) = y {}", "if let"),
            ("a[i] = 1.0;", "read-only"),
            ("a.atomic_add(i, 1.0);", "read-only"),
            ("let x = a;", "can only be indexed"),
            ("return 1.0;", "return nothing"),
            ("let v = Some(1.0);", "constructors"),
            ("fn inner() {}", "items"),
            ("let x = y?;", "`?`"),
            ("let p = P { x: 1 };", "struct literals"),
            ("let x = 1.0 as f16;", "casts"),
            ("for k in v.iter() {}", "`for` loops iterate"),
        ] {
            let err = check(&format!("fn k(i: usize, a: View<f64>) {{ {body} }}"))
                .err()
                .unwrap_or_else(|| panic!("accepted `{body}`"));
            assert!(err.contains(msg), "`{body}`: {err}");
        }
    }
}
