//! A stable 64-bit content hash of a kernel, the key of the compiled-kernel caches.
//!
//! The hash is FNV-1a (64-bit) over a canonical byte encoding of the whole kernel: every enum variant
//! is a fixed tag byte, integers are little-endian of fixed width, strings and lists are prefixed by
//! their length, floats by their bit patterns. It depends on nothing but the kernel's content (no
//! addresses, no `HashMap` order, no host endianness or pointer width), so it is the same in every
//! process, on every platform and in every build. Names are part of the content (they appear in the
//! emitted source). Fieldless enums (operators, math functions, ...) are encoded by declaration index:
//! add new variants at the end, or bump `ENCODING_VERSION`. A change of the encoding changes every
//! hash, which only costs a recompile.

use crate::expr::{AccField, AtomicAccess, Expr, LocalId};
use crate::ops::{Access, BinaryOp, NestedKind, ScratchScope, ViewRef};
use crate::stmt::{ArrayInit, Block, LocalDecl, Stmt};
use crate::{AccShape, Kernel, ScalarType, Value, WorkKind};

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// Version of the encoding, hashed first.
const ENCODING_VERSION: u8 = 2;

struct Fnv(u64);

impl Fnv {
    fn byte(&mut self, b: u8) {
        self.0 ^= b as u64;
        self.0 = self.0.wrapping_mul(FNV_PRIME);
    }
    fn u32(&mut self, v: u32) {
        v.to_le_bytes().into_iter().for_each(|b| self.byte(b));
    }
    fn u64(&mut self, v: u64) {
        v.to_le_bytes().into_iter().for_each(|b| self.byte(b));
    }
    fn len(&mut self, n: usize) {
        self.u64(n as u64);
    }
    fn bool(&mut self, b: bool) {
        self.byte(b as u8);
    }
    fn str(&mut self, s: &str) {
        self.len(s.len());
        s.bytes().for_each(|b| self.byte(b));
    }
    /// A tag: the position of a variant in a declaration (`as u8` of a fieldless enum is its index).
    fn tag(&mut self, t: u8) {
        self.byte(t);
    }

    fn ty(&mut self, t: ScalarType) {
        self.tag(t as u8);
    }
    fn value(&mut self, v: Value) {
        self.ty(v.ty());
        self.u64(v.to_bits());
    }
    fn local(&mut self, l: LocalId) {
        self.u32(l.0);
    }
    fn view(&mut self, v: ViewRef) {
        match v {
            ViewRef::Param(id) => {
                self.tag(0);
                self.u32(id.0);
            }
            ViewRef::Scratch(id) => {
                self.tag(1);
                self.u32(id.0);
            }
        }
    }
    fn acc(&mut self, a: AccField) {
        self.u32(a.acc);
        self.u32(a.field);
    }
    fn exprs(&mut self, es: &[Expr]) {
        self.len(es.len());
        es.iter().for_each(|e| self.expr(e));
    }
    fn atomic(&mut self, a: &AtomicAccess) {
        self.tag(a.op as u8);
        self.tag(a.result as u8);
        self.view(a.view);
        self.exprs(&a.index);
        self.exprs(&a.args);
    }
    fn binary_op(&mut self, op: BinaryOp) {
        match op {
            BinaryOp::Arith(o) => {
                self.tag(0);
                self.tag(o as u8);
            }
            BinaryOp::Bitwise(o) => {
                self.tag(1);
                self.tag(o as u8);
            }
            BinaryOp::Cmp(o) => {
                self.tag(2);
                self.tag(o as u8);
            }
            BinaryOp::Logic(o) => {
                self.tag(3);
                self.tag(o as u8);
            }
        }
    }

    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Lit(v) => {
                self.tag(0);
                self.value(*v);
            }
            Expr::Local(l) => {
                self.tag(1);
                self.local(*l);
            }
            Expr::Param(p) => {
                self.tag(2);
                self.u32(p.0);
            }
            Expr::WorkIndex(k) => {
                self.tag(3);
                self.u32(*k);
            }
            Expr::AccRead(a) => {
                self.tag(4);
                self.acc(*a);
            }
            Expr::Binary { op, lhs, rhs } => {
                self.tag(5);
                self.binary_op(*op);
                self.expr(lhs);
                self.expr(rhs);
            }
            Expr::Unary { op, arg } => {
                self.tag(6);
                self.tag(*op as u8);
                self.expr(arg);
            }
            Expr::Cast { ty, arg } => {
                self.tag(7);
                self.ty(*ty);
                self.expr(arg);
            }
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => {
                self.tag(8);
                self.expr(cond);
                self.expr(on_true);
                self.expr(on_false);
            }
            Expr::Math { func, args } => {
                self.tag(9);
                self.tag(*func as u8);
                self.exprs(args);
            }
            Expr::Load { view, index } => {
                self.tag(10);
                self.view(*view);
                self.exprs(index);
            }
            Expr::Extent { view, dim } => {
                self.tag(11);
                self.view(*view);
                self.u32(*dim);
            }
            Expr::ArrayLoad { array, index } => {
                self.tag(12);
                self.local(*array);
                self.expr(index);
            }
            Expr::Call { func, args } => {
                self.tag(13);
                self.u32(func.0);
                self.exprs(args);
            }
            Expr::Team(q) => {
                self.tag(14);
                self.tag(*q as u8);
            }
            Expr::IsFinal => self.tag(15),
            Expr::Atomic(a) => {
                self.tag(16);
                self.atomic(a);
            }
            Expr::TableLoad { table, index } => {
                self.tag(17);
                self.u32(table.0);
                self.expr(index);
            }
        }
    }

    fn block(&mut self, b: &Block) {
        self.len(b.len());
        b.iter().for_each(|s| self.stmt(s));
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let { local, init } => {
                self.tag(0);
                self.local(*local);
                self.bool(init.is_some());
                if let Some(e) = init {
                    self.expr(e);
                }
            }
            Stmt::LetArray { local, init } => {
                self.tag(1);
                self.local(*local);
                match init {
                    ArrayInit::Fill(e) => {
                        self.tag(0);
                        self.expr(e);
                    }
                    ArrayInit::Elems(es) => {
                        self.tag(1);
                        self.exprs(es);
                    }
                }
            }
            Stmt::Assign { local, value } => {
                self.tag(2);
                self.local(*local);
                self.expr(value);
            }
            Stmt::ArrayStore {
                array,
                index,
                value,
            } => {
                self.tag(3);
                self.local(*array);
                self.expr(index);
                self.expr(value);
            }
            Stmt::AccStore { field, value } => {
                self.tag(4);
                self.acc(*field);
                self.expr(value);
            }
            Stmt::Store { view, index, value } => {
                self.tag(5);
                self.view(*view);
                self.exprs(index);
                self.expr(value);
            }
            Stmt::Atomic(a) => {
                self.tag(6);
                self.atomic(a);
            }
            Stmt::If { cond, then, else_ } => {
                self.tag(7);
                self.expr(cond);
                self.block(then);
                self.block(else_);
            }
            Stmt::For {
                var,
                start,
                end,
                step,
                reverse,
                inclusive,
                body,
            } => {
                self.tag(8);
                self.local(*var);
                self.expr(start);
                self.expr(end);
                self.expr(step);
                // Both flags in the byte that once held `reverse` alone: half-open loops keep the
                // hashes they had before inclusive ranges existed (cached pipelines, golden files).
                self.byte(*reverse as u8 | (*inclusive as u8) << 1);
                self.block(body);
            }
            Stmt::While { cond, body } => {
                self.tag(9);
                self.expr(cond);
                self.block(body);
            }
            Stmt::Loop { body } => {
                self.tag(10);
                self.block(body);
            }
            Stmt::Break => self.tag(11),
            Stmt::Continue => self.tag(12),
            Stmt::Return(e) => {
                self.tag(13);
                self.bool(e.is_some());
                if let Some(e) = e {
                    self.expr(e);
                }
            }
            Stmt::Barrier => self.tag(14),
            Stmt::NestedFor {
                kind,
                var,
                start,
                end,
                inclusive,
                body,
            } => {
                // Inclusive ranges have tags of their own, so that the hashes of kernels
                // without them did not change when they were added.
                self.tag(if *inclusive { 21 } else { 15 });
                self.nested(*kind, *var, start, end);
                self.block(body);
            }
            Stmt::NestedReduce {
                kind,
                var,
                start,
                end,
                inclusive,
                reducer,
                acc,
                body,
                result,
            } => {
                // Inclusive ranges have tags of their own, so that the hashes of kernels
                // without them did not change when they were added.
                self.tag(if *inclusive { 22 } else { 16 });
                self.nested(*kind, *var, start, end);
                self.tag(*reducer as u8);
                self.local(*acc);
                self.block(body);
                self.local(*result);
            }
            Stmt::NestedScan {
                kind,
                var,
                start,
                end,
                inclusive,
                partial,
                is_final,
                body,
                total,
            } => {
                // Inclusive ranges have tags of their own, so that the hashes of kernels
                // without them did not change when they were added.
                self.tag(if *inclusive { 23 } else { 17 });
                self.nested(*kind, *var, start, end);
                self.local(*partial);
                self.local(*is_final);
                self.block(body);
                self.local(*total);
            }
            Stmt::Single { kind, body, result } => {
                self.tag(18);
                self.tag(*kind as u8);
                self.block(body);
                self.bool(result.is_some());
                if let Some(r) = result {
                    self.local(*r);
                }
            }
            Stmt::Broadcast { local, value, src } => {
                self.tag(19);
                self.local(*local);
                self.expr(value);
                self.expr(src);
            }
            Stmt::Scratch { id, extents } => {
                self.tag(20);
                self.u32(id.0);
                self.exprs(extents);
            }
        }
    }

    fn nested(&mut self, kind: NestedKind, var: LocalId, start: &Expr, end: &Expr) {
        self.tag(kind as u8);
        self.local(var);
        self.expr(start);
        self.expr(end);
    }

    fn locals(&mut self, locals: &[LocalDecl]) {
        self.len(locals.len());
        for l in locals {
            self.str(&l.name);
            self.ty(l.ty);
            self.bool(l.array_len.is_some());
            self.u32(l.array_len.unwrap_or(0));
        }
    }

    fn kernel(&mut self, k: &Kernel) {
        self.byte(ENCODING_VERSION);
        self.str(&k.name);
        match k.work {
            WorkKind::Range => self.tag(0),
            WorkKind::MDRange(n) => {
                self.tag(1);
                self.u32(n);
            }
            WorkKind::Team => self.tag(2),
        }
        self.len(k.views.len());
        for v in &k.views {
            self.str(&v.name);
            self.ty(v.elem);
            self.u32(v.rank);
            self.tag(match v.access {
                Access::ReadOnly => 0,
                Access::Writable => 1,
            });
            self.bool(v.used_atomically);
        }
        self.len(k.scalars.len());
        for s in &k.scalars {
            self.str(&s.name);
            self.ty(s.ty);
        }
        self.len(k.accumulators.len());
        for a in &k.accumulators {
            self.str(&a.name);
            let (tag, t) = match a.shape {
                AccShape::Scalar(t) => (0, t),
                AccShape::ValLoc(t) => (1, t),
                AccShape::MinMaxVal(t) => (2, t),
            };
            self.tag(tag);
            self.ty(t);
        }
        self.bool(k.is_scan);
        self.len(k.scratch.len());
        for s in &k.scratch {
            self.ty(s.elem);
            self.u32(s.rank);
            self.u32(s.level);
            self.tag(match s.scope {
                ScratchScope::Team => 0,
                ScratchScope::Thread => 1,
            });
        }
        self.len(k.functions.len());
        for f in &k.functions {
            self.str(&f.name);
            self.len(f.params.len());
            f.params.iter().for_each(|&p| self.local(p));
            self.ty(f.ret);
            self.locals(&f.locals);
            self.block(&f.body);
        }
        self.locals(&k.locals);
        self.block(&k.body);
        self.bool(k.overflow_checks);
        // Last and only when present, so that kernels without tables keep the hashes (and the
        // compiled-kernel cache entries) they had before tables existed; the encoding stays
        // unambiguous because it is the end of the input.
        if !k.tables.is_empty() {
            self.len(k.tables.len());
            for t in &k.tables {
                self.str(&t.name);
                self.ty(t.ty);
                self.len(t.values.len());
                t.values.iter().for_each(|&v| self.value(v));
            }
        }
    }
}

impl Kernel {
    /// The kernel's stable 64-bit content hash (see the module documentation of `ir::hash`): equal for
    /// equal kernels in every process and on every platform, different (up to FNV collisions) when any
    /// part of the kernel differs.
    pub fn stable_hash(&self) -> u64 {
        let mut h = Fnv(FNV_OFFSET);
        h.kernel(self);
        h.0
    }
}
