//! The default build needs no MPI library: without the `mpi` feature neither this crate nor the
//! facade pulls in `mpi-sys` (the bindings that link libmpi), while with it this crate does
//! (the control that shows the check can fail).

use std::process::Command;

fn tree(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml");
    let out = Command::new(cargo)
        .args(["tree", "--manifest-path", manifest, "-e", "normal,build"])
        .args(["--prefix", "none", "--format", "{p}"])
        .args(args)
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn links_mpi(tree: &str) -> bool {
    tree.lines()
        .any(|l| l.starts_with("mpi-sys ") || l.starts_with("mpi "))
}

#[test]
fn default_builds_need_no_mpi() {
    assert!(
        !links_mpi(&tree(&["-p", "rokkos-mpi"])),
        "rokkos-mpi without `mpi`"
    );
    assert!(
        !links_mpi(&tree(&["-p", "rokkos"])),
        "the facade's default features"
    );
    assert!(
        links_mpi(&tree(&["-p", "rokkos-mpi", "--features", "mpi"])),
        "the control"
    );
}
