//! TOAST 3's offset project_signal as a work item per amplitude: every amplitude's samples are
//! added one at a time in interval and sample order, TOAST's own order, so the result is a plain
//! sequential loop's bit for bit on every backend. Also: steps of two intervals sharing an
//! amplitude (`n_amp_views` smaller than the steps an interval needs), flagged samples holding
//! NaN skipped, and an `n_amp_views` too large to index refused with an error.

use crate::per_backend;
use rokkos::ExecutionSpace;
use rokkos_toast::kernels::{toast3, upload, Design};
use rokkos_toast::observation::download;
use rokkos_toast::Interval;

/// TOAST's loop: intervals in order, samples in order, each added into its amplitude.
#[allow(clippy::too_many_arguments)]
fn reference(
    ivs: &[(i64, i64)],
    n_amp_views: &[i64],
    step: i64,
    amp_offset: usize,
    det: &[f64],
    flags: Option<(&[u8], u8)>,
    amp_flags: &[u8],
    amps: &mut [f64],
) {
    let mut start = 0i64;
    for (&(first, last), &n) in ivs.iter().zip(n_amp_views) {
        for s in first..last {
            let a = amp_offset + (start + (s - first) / step) as usize;
            let flagged = flags.is_some_and(|(f, m)| f[s as usize] & m != 0);
            if amp_flags[a] == 0 && !flagged {
                amps[a] += det[s as usize];
            }
        }
        start += n;
    }
}

/// A reproducible, not exactly summable value for sample `i`.
fn value(i: usize) -> f64 {
    ((i * 2654435761) % 1000) as f64 / 7.0 - 70.0
}

fn project<E: ExecutionSpace>(
    space: &E,
    ivs: &[(i64, i64)],
    n_amp_views: &[i64],
    step: i64,
    with_flags: bool,
) {
    let n_samp = ivs.iter().map(|&(_, l)| l as usize).max().unwrap_or(0) + 3;
    let amp_offset = 2;
    let layout = toast3::OffsetLayout::new(space, &Interval::list(ivs), n_amp_views, step).unwrap();
    let n_amp = amp_offset + layout.n_amp() + 1;
    let mut det: Vec<f64> = (0..n_samp).map(value).collect();
    let flags: Vec<u8> = (0..n_samp).map(|i| u8::from(i % 5 == 1) * 2).collect();
    if with_flags {
        // A flagged sample is skipped, not multiplied by 0: its NaN reaches no amplitude.
        for (d, f) in det.iter_mut().zip(&flags) {
            if *f != 0 {
                *d = f64::NAN;
            }
        }
    }
    let amp_flags: Vec<u8> = (0..n_amp).map(|a| u8::from(a % 7 == 4)).collect();
    let init: Vec<f64> = (0..n_amp).map(|a| a as f64 * 0.25).collect();
    let mut want = init.clone();
    let f = with_flags.then_some((&flags[..], 2u8));
    reference(
        ivs,
        n_amp_views,
        step,
        amp_offset,
        &det,
        f,
        &amp_flags,
        &mut want,
    );
    for design in Design::ALL {
        let amplitudes = upload(space, "amplitudes", [n_amp], init.clone()).unwrap();
        toast3::OffsetProjectSignal {
            data_index: 1,
            det_data: &upload(
                space,
                "det",
                [2, n_samp],
                [vec![9.0; n_samp], det.clone()].concat(),
            )
            .unwrap(),
            flag_index: if with_flags { 0 } else { -1 },
            flag_data: &upload(space, "flags", [1, n_samp], flags.clone()).unwrap(),
            flag_mask: 2,
            layout: &layout,
            amp_offset: amp_offset as i64,
            amplitudes: &amplitudes,
            amplitude_flags: &upload(space, "amp flags", [n_amp], amp_flags.clone()).unwrap(),
        }
        .run(space, design)
        .unwrap();
        let got = download(&amplitudes).unwrap();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            bits(&got),
            bits(&want),
            "{ivs:?} {n_amp_views:?} step {step} {design:?}"
        );
    }
}

pub fn offset_project_owned<E: ExecutionSpace>(space: E) {
    // Several intervals, an empty one, steps that do not divide the lengths.
    project(
        &space,
        &[(0, 10), (10, 10), (12, 40), (41, 42)],
        &[4, 0, 10, 1],
        3,
        true,
    );
    project(&space, &[(0, 10), (12, 40)], &[4, 10], 3, false);
    // n_amp_views smaller than the steps: the first interval's last steps share amplitudes
    // with the second's first ones (added in interval order).
    project(&space, &[(0, 20), (20, 33)], &[2, 5], 4, true);
    // One amplitude for everything, and a step longer than any interval.
    project(&space, &[(3, 30)], &[1], 1000, true);
    project(&space, &[(3, 30)], &[1], i64::MAX, false);
    // No samples at all.
    project(&space, &[], &[], 2, false);
}
per_backend!(offset_project_owned);

/// `n_amp_views` that put an amplitude past what can be indexed is an error, not an abort.
pub fn offset_layout_refuses_absurd_counts<E: ExecutionSpace>(space: E) {
    let list = Interval::list(&[(0, 4), (4, 8)]);
    assert!(toast3::OffsetLayout::new(&space, &list, &[i64::MAX, 1], 2).is_err());
    assert!(toast3::OffsetLayout::new(&space, &list, &[i64::MAX / 2, 1], 2).is_err());
}
per_backend!(offset_layout_refuses_absurd_counts);
