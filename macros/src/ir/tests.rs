//! Unit tests of the IR generator: what it records, and what it rejects.

use super::generate::{func_items, kernel_items};
use crate::parse::signature::{parse_kernel, KernelOptions};

fn kernel(src: &str) -> String {
    let sig = parse_kernel(KernelOptions::default(), syn::parse_str(src).unwrap()).unwrap();
    match kernel_items(&sig) {
        Ok(ts) => ts.to_string(),
        Err(e) => e.to_compile_error().to_string(),
    }
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect()
}

#[test]
fn records_triad() {
    let s = squash(&kernel(
        "fn triad<T: Float>(i: usize, a: ViewMut<T>, b: View<T>, c: View<T>, s: T) { a[i] = b[i] + s * c[i]; }",
    ));
    for want in [
        "KernelBuilder::new(\"triad\",::rokkos::ir::WorkKind::Range)",
        "leti=__rokkos_kb.work_index(0);",
        "leta=__rokkos_kb.view::<T>(\"a\",(1)asu32,::rokkos::ir::Access::Writable);",
        "lets=__rokkos_kb.scalar::<T>(\"s\");",
        "__rokkos_kb.store(a,i.clone(),(b.load(i.clone()))+((s.get())*(c.load(i.clone()))));",
        "T:::rokkos::ir::build::IrNum",
    ] {
        assert!(s.contains(want), "missing `{want}` in\n{s}");
    }
}

#[test]
fn records_bit_casts() {
    let s = squash(&kernel(
        "fn k<T: Float>(i: usize, o: ViewMut<f32>, a: View<f32>, t: ViewMut<T>) {
            o[i] = f32::from_bits(a[i].to_bits() ^ 0x8000_0000);
            t[i] = T::from_bits(t[i].to_bits());
        }",
    ));
    for want in [
        "::rokkos::ir::build::Expr::<f32>::from_bits(((a.load(i.clone())).to_bits())^(::rokkos::ir::build::Expr::lit(0x8000_0000)))",
        "::rokkos::ir::build::Expr::<T>::from_bits((t.load(i.clone())).to_bits())",
    ] {
        assert!(s.contains(want), "missing `{want}` in\n{s}");
    }
}

#[test]
fn conversions_type_their_source() {
    // `T::from_f32(0.1)` converts `0.1f32`, as natively: an untyped literal would be an f64.
    let s = squash(&kernel(
        "fn k<T: Float>(i: usize, t: ViewMut<T>, o: ViewMut<f64>) {
            t[i] = T::from_f32(0.1) + T::from_f64(0.2);
            o[i] = T::to_f64(t[i]) + f32::to_f64(0.5);
        }",
    ));
    let irb = "::rokkos::ir::build";
    for want in [
        format!("({irb}::IntoExpr::<f32>::into_expr({irb}::Expr::lit(0.1))).cast::<T>()"),
        format!("({irb}::IntoExpr::<f64>::into_expr({irb}::Expr::lit(0.2))).cast::<T>()"),
        format!("({irb}::IntoExpr::<T>::into_expr(t.load(i.clone()))).cast::<f64>()"),
        format!("({irb}::IntoExpr::<f32>::into_expr({irb}::Expr::lit(0.5))).cast::<f64>()"),
    ] {
        assert!(s.contains(&want), "missing `{want}` in\n{s}");
    }
}

#[test]
fn compound_view_assignment_reads_then_stores() {
    let s = squash(&kernel("fn k(i: usize, a: ViewMut<f64>) { a[i] += 2.0; }"));
    assert!(
        s.contains("store(a,__rokkos_t1.clone(),(a.load(__rokkos_t1.clone()))+("),
        "{s}"
    );
}

#[test]
fn if_expressions_become_statements() {
    let s = squash(&kernel(
        "fn k(i: usize, a: ViewMut<f64>, b: View<f64>) { a[i] = if i > 0 { b[i - 1] } else { 0.0 }; }",
    ));
    assert!(s.contains(".declare::<_>("), "{s}");
    assert!(!s.contains("select"), "{s}");
}

#[test]
fn rejects_what_devices_cannot_run() {
    for (body, msg) in [
        (
            "fn k(team: &TeamMember) { let mut s = 0; for j in team.thread_range(4) { s += j; } }",
            "declared outside this team construct",
        ),
        (
            "fn k(team: &TeamMember) { for j in team.thread_range(4) { break; } }",
            "`break` outside a loop",
        ),
        (
            "fn k(i: usize) { 'a: for x in 0..2 { for y in 0..2 { continue 'a; } } }",
            "labelled `continue`",
        ),
        (
            "fn k(team: &TeamMember) { team.single_team(|| { return; }); }",
            "`return` inside a team construct",
        ),
        (
            "fn k(i: usize, o: ViewMut<u32>) { o[i] = (i as u32).leading_zeros(); }",
            "no kernel IR counterpart",
        ),
    ] {
        let s = kernel(body);
        assert!(
            s.contains("compile_error") && s.contains(msg),
            "`{body}`: {s}"
        );
    }
}

#[test]
fn unsupported_types_are_compile_errors() {
    let s = kernel("fn k(i: usize, a: ViewMut<i128>) { a[i] = 1; }");
    assert!(
        s.contains("compile_error")
            && s.contains("i128")
            && !s.contains("BuildError :: Unsupported"),
        "{s}"
    );
    let s = kernel(
        "fn k(team: &TeamMember, lv: usize) { let s = team.team_scratch::<f64, 1>(lv, [4]); }",
    );
    assert!(
        s.contains("compile_error") && s.contains("is not a constant"),
        "{s}"
    );
}

#[test]
fn funcs_record_a_definition_and_a_call() {
    let f: syn::ItemFn = syn::parse_str("pub fn cube<T: Float>(x: T) -> T { x * x * x }").unwrap();
    let s = squash(&func_items(&f).to_string());
    for want in [
        "implcube{",
        "pubfnir<T:Float>(__rokkos_scope:&mutimpl::rokkos::ir::build::FuncScope,__rokkos_a0:::rokkos::ir::build::Expr<T>)->::rokkos::ir::build::Expr<T>",
        "<Tas::rokkos::ir::build::IrScalar>::TYPE.name()",
        "return_value(",
        "__rokkos_f.call(",
    ] {
        assert!(s.contains(want), "missing `{want}` in\n{s}");
    }
}
