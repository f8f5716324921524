//! Golden tests of the pretty printer.

use super::kernels;

#[test]
fn triad() {
    assert_eq!(
        kernels::triad().to_string(),
        "\
kernel triad(range) for {
  view a: [f64; 1] writable
  view b: [f64; 1] read_only
  view c: [f64; 1] read_only
  scalar s: f64
  body {
    a[i0] = (b[i0] + (s * c[i0]));
  }
}
"
    );
}

#[test]
fn min_loc() {
    assert_eq!(
        kernels::min_loc().to_string(),
        "\
kernel min_loc(range) reduce {
  view a: [f32; 1] read_only
  acc acc: ValLoc<f32>
  body {
    if (a[i0] < acc.val) {
      acc.val = a[i0];
      acc.loc = i0;
    }
  }
}
"
    );
}

#[test]
fn team_kernel() {
    assert_eq!(
        kernels::team_rows().to_string(),
        "\
kernel row_sums(team) for {
  view a: [f64; 2] read_only
  view out: [f64; 1] writable
  scratch0: [f64; 1] team level 0
  body {
    let r_0: u64 = team.league_rank();
    let m_1: u64 = a.extent(1);
    scratch0 = alloc_scratch([m_1]);
    for j_2 in thread_range(0u64..m_1) {
      scratch0[j_2] = (a[r_0, j_2] * 2.0f64);
    }
    team_barrier();
    let sum_3: f64;
    sum_3 = thread_reduce(0u64..m_1, Sum, |j_4, acc_5: f64| {
      acc_5 = (acc_5 + scratch0[j_4]);
    });
    let first_6: f64;
    first_6 = team_broadcast(scratch0[0u64], 0u64);
    single_team(|| {
      out[r_0] = (sum_3 + first_6);
    });
  }
}
"
    );
}

#[test]
fn functions_and_control_flow() {
    let text = kernels::with_helpers().to_string();
    assert!(
        text.contains("  fn sq(x_0: f64) -> f64 {\n    return (x_0 * x_0);\n  }\n"),
        "{text}"
    );
    assert!(
        text.contains("    return sqrt((sq(x_0) + sq(y_1)));\n"),
        "{text}"
    );
    assert!(
        text.contains("    out[i0] = norm(a[i0], b[i0]);\n"),
        "{text}"
    );
    let text = kernels::control().to_string();
    for line in [
        "    for k_1: i32 in (0i32..10i32) {",
        "        continue;",
        "    while ((n_2 > 1i32) && (steps_3 < 1000i32)) {",
        "    let d_4: [i32; 3] = [0i32; 3];",
        "      d_4[t_5] = (s_0 << t_5);",
        "    loop {",
        "    for k_6: i32 in (0i32..6i32).step_by(2i32).rev() {",
        "    out[i0] = (((((s_0 + steps_3) + d_4[0u64]) + d_4[2u64]) - abs((-n_2))) + select((n_2 == 1i32), 1i32, 0i32));",
    ] {
        assert!(text.contains(&format!("{line}\n")), "missing {line:?} in\n{text}");
    }
}

#[test]
fn printing_is_deterministic() {
    assert_eq!(
        kernels::control().to_string(),
        kernels::control().to_string()
    );
}

/// A kernel with overflow checks says so in a line of its own; wrapping methods print as methods.
#[test]
fn overflow_mode_and_wrapping_methods() {
    use crate::ir::build::KernelBuilder;
    use crate::ir::{Access, WorkKind};
    let build = |checks: bool| {
        let mut k = KernelBuilder::new("wrap", WorkKind::Range);
        k.overflow_checks(checks);
        let i = k.work_index(0);
        let out = k.view::<u64>("out", 1, Access::Writable);
        k.store(
            out,
            i.clone(),
            (i.clone().wrapping_mul(3usize) + i).cast::<u64>(),
        );
        k.finish().unwrap()
    };
    let wrapping = build(false).to_string();
    assert!(!wrapping.contains("overflow"), "{wrapping}");
    assert!(
        wrapping.contains("    out[i0] = ((i0.wrapping_mul(3u64) + i0) as u64);\n"),
        "{wrapping}"
    );
    let checked = build(true).to_string();
    assert_eq!(
        checked,
        wrapping.replacen("for {\n", "for {\n  overflow: checked\n", 1)
    );
}
