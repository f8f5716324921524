//! Two TOAST-like time-stream kernels over irregular intervals (the samples a detector takes
//! while scanning, cut into intervals of different lengths): noise weighting of the samples inside
//! the intervals, and the projection of the signal onto per-interval offset templates (the mean of
//! each interval's weighted samples), one team per interval.

use super::{ensure, Outcome};
use rokkos::prelude::*;

/// Weights every sample inside an interval by its detector's inverse noise; samples outside all
/// intervals are flagged to zero. One team per interval, its samples split over the threads.
#[kernel]
fn noise_weight(
    team: &TeamMember,
    signal: ViewMut<f64, 2>,
    starts: View<u64>,
    ends: View<u64>,
    inv_noise: View<f64>,
) {
    let iv = team.league_rank();
    let (s, e) = (starts[iv] as usize, ends[iv] as usize);
    for d in 0..signal.extent(0) {
        for t in team.thread_range(s..e) {
            // SAFETY (the kernel author's): the intervals are disjoint, so the samples of one
            // team are no other team's, and a thread range gives each sample one thread.
            unsafe {
                signal[(d, t)] = signal[(d, t)] * inv_noise[d];
            }
        }
    }
}

/// The offset amplitude of every (detector, interval): the mean of the interval's samples.
#[kernel]
fn offsets(
    team: &TeamMember,
    amp: ViewMut<f64, 2>,
    signal: View<f64, 2>,
    starts: View<u64>,
    ends: View<u64>,
) {
    let iv = team.league_rank();
    let (s, e) = (starts[iv] as usize, ends[iv] as usize);
    for d in 0..signal.extent(0) {
        let sum = team.thread_reduce(s..e, Sum, |t, acc: &mut f64| {
            *acc += signal[(d, t)];
        });
        team.single_team(|| {
            amp[(d, iv)] = if e > s { sum / (e - s) as f64 } else { 0.0 };
        });
        team.team_barrier();
    }
}

pub fn run(dev: &Device, n: usize) -> Outcome {
    let dets = 3;
    let samples = n.max(64);
    // Irregular intervals with gaps between them.
    let mut bounds = Vec::new();
    let mut t = 3;
    let mut k = 0;
    while t < samples {
        let len = 5 + (k * 37) % 61;
        let end = (t + len).min(samples);
        bounds.push((t as u64, end as u64));
        t = end + 1 + k % 4;
        k += 1;
    }
    let ni = bounds.len();
    let hs = View::<f64, 2>::from_fn("signal", [dets, samples], |[d, t]| {
        ((d + 1) * t % 97) as f64
    })?;
    let starts = create_mirror_view_and_copy_in(
        dev,
        &View::<u64>::from_vec("starts", [ni], bounds.iter().map(|b| b.0).collect())?,
    )?;
    let ends = create_mirror_view_and_copy_in(
        dev,
        &View::<u64>::from_vec("ends", [ni], bounds.iter().map(|b| b.1).collect())?,
    )?;
    let inv = create_mirror_view_and_copy_in(
        dev,
        &View::<f64>::from_fn("inv_noise", [dets], |[d]| 1.0 / (d + 1) as f64)?,
    )?;
    let signal = create_mirror_view_and_copy_in(dev, &hs)?;
    let amp = DeviceView::<f64, 2>::new_on(dev, "amplitudes", [dets, ni])?;
    parallel_for(
        "noise_weight",
        TeamPolicy::new(dev, ni, TeamSize::Auto),
        noise_weight(&signal, &starts, &ends, &inv),
    )?;
    parallel_for(
        "offsets",
        TeamPolicy::new(dev, ni, TeamSize::Auto),
        offsets(&amp, &signal, &starts, &ends),
    )?;
    // The same on the host.
    let mut w = hs.to_vec();
    for d in 0..dets {
        for &(s, e) in &bounds {
            for t in s as usize..e as usize {
                w[d * samples + t] /= (d + 1) as f64;
            }
        }
    }
    let got_w = create_mirror_view_and_copy(&signal)?.to_vec();
    ensure(
        got_w
            .iter()
            .zip(&w)
            .all(|(a, b)| (a - b).abs() <= 1e-12 * b.abs()),
        || "weighted samples".into(),
    )?;
    let got_a = create_mirror_view_and_copy(&amp)?;
    for d in 0..dets {
        for (i, &(s, e)) in bounds.iter().enumerate() {
            let mean = (s as usize..e as usize)
                .map(|t| w[d * samples + t])
                .sum::<f64>()
                / (e - s) as f64;
            let g = got_a.get((d, i));
            ensure((g - mean).abs() <= 1e-12 * mean.abs().max(1.0), || {
                format!("amplitude ({d}, {i}): {g} vs {mean}")
            })?;
        }
    }
    Ok(format!(
        "{dets} detectors, {samples} samples, {ni} intervals"
    ))
}
