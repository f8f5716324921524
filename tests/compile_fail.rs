//! Compile-fail tests of `#[rokkos::kernel]`: the owner-computes rule and the accepted subset
//! (`tests/ui/*.rs`, expected messages in the `.stderr` files beside them), plus kernels that must
//! compile (`tests/ui/pass/*.rs`). Regenerate the messages with
//! `TRYBUILD=overwrite cargo test --test compile_fail` and review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
