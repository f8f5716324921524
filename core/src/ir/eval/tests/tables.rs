//! Constant tables: built once per kernel (shared by the body and its helper functions, equal
//! tables recorded once), printed, hashed by content, validated (length and element types) and
//! evaluated with out-of-bounds reads failing as for local arrays.

use crate::ir::build::KernelBuilder;
use crate::ir::eval::{eval_for, ArgValue, EvalError, WorkSet};
use crate::ir::valid::validate;
use crate::ir::{Access, ConstTable, Kernel, ScalarType, Value, WorkKind};

/// `out[i] = T[i] + f(i)` with `f(k) = T[k] * 10`: one table read by the body and a function.
fn kernel(values: &[u32]) -> Kernel {
    let mut k = KernelBuilder::new("tab", WorkKind::Range);
    let i = k.work_index(0);
    let out = k.view::<u32>("out", 1, Access::Writable);
    let t = k.table::<u32>("T", values);
    let owned = values.to_vec();
    let f = k.func::<u32>("f", |fb| {
        let x = fb.param::<usize>("k");
        let t = fb.table::<u32>("T", &owned);
        let v = t.load(x.get()) * crate::ir::build::Expr::lit(10u32);
        fb.return_value(v);
    });
    let v = t.load(i.clone()) + f.call(vec![i.clone().into_ir()]);
    k.store(out, i, v);
    k.finish().unwrap()
}

fn run(k: &Kernel, n: u64) -> Result<Vec<u32>, EvalError> {
    let mut out = vec![0u32; n as usize];
    let ext = [n as usize];
    let mut args = [ArgValue::view(&mut out, &ext)];
    eval_for(k, &WorkSet::Range { begin: 0, end: n }, &mut args)?;
    Ok(out)
}

#[test]
fn one_table_serves_body_and_function() {
    let k = kernel(&[3, 5, 7]);
    assert_eq!(k.tables.len(), 1, "{k}");
    validate(&k).unwrap();
    assert_eq!(run(&k, 3).unwrap(), [33, 55, 77]);
    let text = k.to_string();
    assert!(
        text.contains("table0 T: [u32; 3] = [3u32, 5u32, 7u32]"),
        "{text}"
    );
    assert!(text.contains("table0_T["), "{text}");
}

#[test]
fn reads_past_the_end_fail() {
    let k = kernel(&[3, 5, 7]);
    match run(&k, 4) {
        Err(EvalError::OutOfBounds {
            view,
            index,
            extents,
        }) => {
            assert_eq!(view, "constant table `T`");
            assert_eq!((index, extents), (vec![3], vec![3]));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn hash_follows_the_contents() {
    let (a, b) = (kernel(&[3, 5, 7]), kernel(&[3, 5, 8]));
    assert_ne!(a.stable_hash(), b.stable_hash());
    assert_eq!(a.stable_hash(), kernel(&[3, 5, 7]).stable_hash());
}

#[test]
fn two_tables_of_one_name_and_different_contents_are_two_tables() {
    let mut k = KernelBuilder::new("two", WorkKind::Range);
    let a = k.table::<f64>("C", &[1.0]);
    let b = k.table::<f64>("C", &[2.0]);
    let c = k.table::<f64>("C", &[1.0]);
    assert_ne!(a.id, b.id);
    assert_eq!(a.id, c.id);
}

#[test]
fn validation_checks_length_and_element_types() {
    let mut k = kernel(&[1]);
    k.tables.push(ConstTable {
        name: "empty".into(),
        ty: ScalarType::U32,
        values: vec![],
    });
    assert!(validate(&k)
        .unwrap_err()
        .to_string()
        .contains("length of constant table `empty`"));
    k.tables.pop();
    k.tables.push(ConstTable {
        name: "mixed".into(),
        ty: ScalarType::U32,
        values: vec![Value::U32(1), Value::I32(-1)],
    });
    let e = validate(&k).unwrap_err().to_string();
    assert!(e.contains("constant table 1 `mixed`"), "{e}");
    k.tables.pop();
    k.tables.push(ConstTable {
        name: "long".into(),
        ty: ScalarType::U32,
        values: vec![Value::U32(0); ConstTable::MAX_LEN + 1],
    });
    assert!(validate(&k).is_err());
}
