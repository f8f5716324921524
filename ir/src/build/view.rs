//! View handles and multi-indices.

use super::expr::{Expr, IntoExpr};
use crate::expr::Expr as IrExpr;
use crate::ops::ViewRef;
use std::marker::PhantomData;

/// A View parameter or scratch View with elements of type `T`.
pub struct ViewVar<T> {
    /// What it refers to.
    pub view: ViewRef,
    _ty: PhantomData<fn() -> T>,
}
impl<T> Clone for ViewVar<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ViewVar<T> {}
impl<T> std::fmt::Debug for ViewVar<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ViewVar({:?})", self.view)
    }
}

impl<T> ViewVar<T> {
    /// The handle of `view` (asserting its element type is `T`).
    pub fn from_ref(view: ViewRef) -> Self {
        ViewVar {
            view,
            _ty: PhantomData,
        }
    }
    /// `view[index]`.
    pub fn load(self, index: impl IntoIndex) -> Expr<T> {
        Expr::from_ir(IrExpr::Load {
            view: self.view,
            index: index.into_index(),
        })
    }
    /// `view.extent(dim)`.
    pub fn extent(self, dim: u32) -> Expr<usize> {
        Expr::from_ir(IrExpr::Extent {
            view: self.view,
            dim,
        })
    }
}

/// A multi-index: `()` (rank 0), one `usize` expression (rank 1), a tuple of them, an array of them,
/// or a `Vec` of expressions.
pub trait IntoIndex {
    /// One IR expression per dimension.
    fn into_index(self) -> Vec<IrExpr>;
}

impl IntoIndex for () {
    fn into_index(self) -> Vec<IrExpr> {
        Vec::new()
    }
}
impl IntoIndex for Expr<usize> {
    fn into_index(self) -> Vec<IrExpr> {
        vec![self.into_ir()]
    }
}
impl IntoIndex for &Expr<usize> {
    fn into_index(self) -> Vec<IrExpr> {
        vec![self.clone().into_ir()]
    }
}
impl IntoIndex for usize {
    fn into_index(self) -> Vec<IrExpr> {
        vec![Expr::lit(self).into_ir()]
    }
}
impl IntoIndex for super::body::Var<usize> {
    fn into_index(self) -> Vec<IrExpr> {
        vec![self.get().into_ir()]
    }
}
impl IntoIndex for Vec<Expr<usize>> {
    fn into_index(self) -> Vec<IrExpr> {
        self.into_iter().map(Expr::into_ir).collect()
    }
}
impl<A: IntoExpr<usize>, const N: usize> IntoIndex for [A; N] {
    fn into_index(self) -> Vec<IrExpr> {
        self.into_iter().map(|a| a.into_expr().into_ir()).collect()
    }
}
macro_rules! tuple_index {
    ($($a:ident),+) => {
        impl<$($a: IntoExpr<usize>),+> IntoIndex for ($($a,)+) {
            #[allow(non_snake_case)]
            fn into_index(self) -> Vec<IrExpr> {
                let ($($a,)+) = self;
                vec![$($a.into_expr().into_ir()),+]
            }
        }
    };
}
tuple_index!(A, B);
tuple_index!(A, B, C);
tuple_index!(A, B, C, D);
tuple_index!(A, B, C, D, E);
tuple_index!(A, B, C, D, E, F);
tuple_index!(A, B, C, D, E, F, G);
tuple_index!(A, B, C, D, E, F, G, H);
