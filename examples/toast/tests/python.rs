//! The Python extension's own tests (`python/tests`: pytest, `rokkos_toast` against TOAST 3.0.6's
//! compiled kernels in `toast._libtoast` on the same NumPy arrays), run from `cargo test` so that
//! the README's one test command covers them.
//!
//! `ROKKOS_PYTHON` names a Python interpreter that has `toast==3.0.6`, `pytest` and `rokkos_toast`
//! (`pip install ./python`) installed; `.ci/run` makes one. The extension is whatever that
//! interpreter imports, so after changing the Rust sources reinstall it before running this test.
//! Without `ROKKOS_PYTHON` the test prints why and passes, unless `ROKKOS_REQUIRE_PYTHON=1` (CI),
//! where that is a failure. pytest gets a hard time limit, so that a hang fails instead of
//! holding CI.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Seconds pytest may take (the suite takes about ten on two cores).
const LIMIT: Duration = Duration::from_secs(300);

#[test]
fn pytest_against_toast_compiled_kernels() {
    let Some(python) = std::env::var_os("ROKKOS_PYTHON") else {
        let why = "ROKKOS_PYTHON is not set (a Python with toast==3.0.6, pytest and rokkos_toast)";
        if std::env::var("ROKKOS_REQUIRE_PYTHON").as_deref() == Ok("1") {
            panic!("ROKKOS_REQUIRE_PYTHON=1 but {why}");
        }
        eprintln!("python tests skipped: {why}");
        return;
    };
    let tests = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/tests");
    let mut child = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", tests])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {python:?} -m pytest: {e}"));
    // pytest's report is short; reading it on a thread keeps the pipe from filling while we wait.
    let mut stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        stdout.read_to_string(&mut s).map(|_| s)
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() > LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(200)),
            Err(e) => panic!("waiting for pytest: {e}"),
        }
    };
    let report = reader
        .join()
        .expect("reader thread")
        .unwrap_or_else(|e| format!("(pytest's output could not be read: {e})"));
    println!("{report}");
    match status {
        None => panic!(
            "pytest did not finish within {} s (killed)",
            LIMIT.as_secs()
        ),
        Some(s) => assert!(s.success(), "pytest failed ({s}); its report is above"),
    }
    // pytest's summary line names how many ran: a run that collected nothing is no test.
    assert!(
        report.contains(" passed"),
        "pytest reported no passed test:\n{report}"
    );
}
