//! Snapshot tests of the libraries' emitted text: every function's helpers, in name order, as the
//! WGSL target emits them, against `snapshots/<lib>.wgsl`, so that a change of the text is a
//! reviewable diff (and a refactoring of the generators provably changes nothing).

use super::MathHelpers;
use crate::emit::HelperSet;
use rokkos_core::ir::MathFn;

/// The helpers as WGSL text, as the WGSL target keeps them.
#[derive(Default)]
pub(super) struct Wgsl(HelperSet);

impl MathHelpers for Wgsl {
    fn add_wgsl(&mut self, name: &str, wgsl: impl FnOnce() -> String) -> String {
        self.0.add(name, wgsl)
    }
}

/// Renders every function `call` implements into one set and compares it with
/// `snapshots/{lib}.wgsl`; `ROKKOS_BLESS=1` rewrites the file first (for an intended change:
/// `ROKKOS_BLESS=1 cargo test -p rokkos-core library_snapshot`).
pub(super) fn check(lib: &str, call: fn(&mut Wgsl, MathFn, &[String]) -> Option<String>) {
    let mut h = Wgsl::default();
    for f in MathFn::ALL {
        let args: Vec<String> = (0..f.arity()).map(|i| format!("b[{i}]")).collect();
        call(&mut h, f, &args);
    }
    let got = h.0.render();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("src/emit/mathlib/snapshots/{lib}.wgsl"));
    if std::env::var_os("ROKKOS_BLESS").is_some() {
        std::fs::write(&path, &got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        got == want,
        "the emitted {lib} library differs from {} (regenerate with ROKKOS_BLESS=1 if the change is intended)",
        path.display()
    );
}
