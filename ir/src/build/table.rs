//! Constant tables: read-only data recorded once per kernel and read by index.

use super::expr::{Expr, IntoExpr};
use super::scalar::IrScalar;
use crate::expr::{Expr as IrExpr, TableId};
use crate::ConstTable;
use std::marker::PhantomData;

/// A constant table of `T` ([`crate::Kernel::tables`]), defined with [`super::FuncScope::table`].
///
/// ```
/// use rokkos_ir::build::{Expr, KernelBuilder};
/// use rokkos_ir::{Access, WorkKind};
///
/// // out[i] = SQUARES[i % 4]
/// let mut k = KernelBuilder::new("squares", WorkKind::Range);
/// let out = k.view::<u32>("out", 1, Access::Writable);
/// let squares = k.table::<u32>("squares", &[0, 1, 4, 9]);
/// let i = k.work_index(0);
/// let v = squares.load(i.clone() % Expr::lit(4usize));
/// k.store(out, i, v);
/// let kernel = k.finish().unwrap();
/// assert!(rokkos_ir::valid::validate(&kernel).is_ok());
/// assert_eq!(kernel.tables[0].values.len(), 4);
/// ```
pub struct Table<T> {
    /// The table.
    pub id: TableId,
    _ty: PhantomData<fn() -> T>,
}
impl<T> Clone for Table<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Table<T> {}

impl<T> Table<T> {
    /// `table[index]`; an index at or past the table's length fails the work item with an
    /// out-of-bounds error.
    pub fn load(self, index: impl IntoExpr<usize>) -> Expr<T> {
        Expr::from_ir(IrExpr::TableLoad {
            table: self.id,
            index: Box::new(index.into_expr().into_ir()),
        })
    }
}

/// Defines a table of `values` named `name`, or finds an equal one defined before: tables are
/// values, so two bodies' tables of one name but different contents (two `#[func]`s with a
/// `const C` each) are two tables, and a helper function defined twice records its table once.
pub(crate) fn define_table<T: IrScalar>(
    tables: &mut Vec<ConstTable>,
    name: &str,
    values: &[T],
) -> Table<T> {
    let t = ConstTable {
        name: name.to_string(),
        ty: T::TYPE,
        values: values.iter().map(|v| v.to_value()).collect(),
    };
    let id = match tables.iter().position(|x| *x == t) {
        Some(i) => i,
        None => {
            tables.push(t);
            tables.len() - 1
        }
    };
    Table {
        id: TableId(u32::try_from(id).unwrap_or(u32::MAX)),
        _ty: PhantomData,
    }
}
