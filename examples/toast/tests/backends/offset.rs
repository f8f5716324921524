//! The offset template's kernels against the reference (which runs detector by detector, as
//! TOAST calls it; the kernels take every detector in one launch).

use crate::{abs, cases, check, close, ok, per_backend, problem};
use rokkos::ExecutionSpace;
use rokkos_toast::kernels::upload;
use rokkos_toast::observation::{download, Observation};

fn add_to_signal_matches_reference<E: ExecutionSpace>(space: E) {
    check(16, cases(), |c| {
        let p = problem(&c);
        let obs = ok(Observation::new(&space, &p))?;
        ok(obs.add_to_signal(&space, c.4, &obs.amplitudes))?;
        let want = p.reference_add_to_signal(&p.amplitudes, &p.det_data);
        let mask = p.domain_mask(&p.data_index);
        close("det_data", &ok(download(&obs.det_data))?, &want, |i| {
            if mask[i] {
                1e-15 * (1.0 + want[i].abs())
            } else {
                0.0
            }
        })
    });
}
per_backend!(add_to_signal_matches_reference);

fn project_signal_matches_reference<E: ExecutionSpace>(space: E) {
    check(16, cases(), |c| {
        let p = problem(&c);
        let obs = ok(Observation::new(&space, &p))?;
        // Accumulates onto what is there.
        let start = p.amplitudes.clone();
        let out = ok(upload(&space, "out", [p.n_amp()], start.clone()))?;
        ok(obs.project_signal(&space, c.4, &out))?;
        let want = p.reference_project(&p.det_data, &start);
        let magnitude = p.reference_project(&abs(&p.det_data), &abs(&start));
        let n = (p.step_length as f64).sqrt();
        close("amplitudes", &ok(download(&out))?, &want, |i| {
            1e-12 * n * magnitude[i]
        })
    });
}
per_backend!(project_signal_matches_reference);

fn apply_diag_precond_matches_reference<E: ExecutionSpace>(space: E) {
    check(8, cases(), |c| {
        let p = problem(&c);
        let obs = ok(Observation::new(&space, &p))?;
        ok(obs.apply_diag_precond(&space, &obs.amplitudes, &obs.amp_out))?;
        close(
            "amplitudes",
            &ok(download(&obs.amp_out))?,
            &p.reference_precond(&p.amplitudes),
            |_| 0.0,
        )
    });
}
per_backend!(apply_diag_precond_matches_reference);

/// ⟨M a, d⟩ = ⟨a, Mᵀ d⟩ through the kernels (spec §3), no flags.
fn add_and_project_are_adjoint<E: ExecutionSpace>(space: E) {
    check(8, cases(), |c| {
        let mut p = problem(&c);
        p.offset_flags = false;
        let d = p.det_data.clone();
        p.det_data = vec![0.0; d.len()];
        let obs = ok(Observation::new(&space, &p))?;
        ok(obs.add_to_signal(&space, c.4, &obs.amplitudes))?;
        let ma = ok(download(&obs.det_data))?;
        ok(rokkos::deep_copy(
            &obs.det_data,
            &ok(upload(&space, "d", [p.n_rows, p.n_samp], d.clone()))?,
        ))?;
        ok(obs.project_signal(&space, c.4, &obs.amp_out))?;
        let mtd = ok(download(&obs.amp_out))?;
        let lhs: f64 = ma.iter().zip(&d).map(|(x, y)| x * y).sum();
        let rhs: f64 = p.amplitudes.iter().zip(&mtd).map(|(x, y)| x * y).sum();
        let scale: f64 = ma.iter().zip(&d).map(|(x, y)| (x * y).abs()).sum();
        proptest::prop_assert!(
            (lhs - rhs).abs() <= 1e-13 * scale.max(1e-300),
            "{} vs {}",
            lhs,
            rhs
        );
        Ok(())
    });
}
per_backend!(add_and_project_are_adjoint);
