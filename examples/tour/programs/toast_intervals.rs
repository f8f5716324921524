//! Two TOAST-like time-stream kernels over irregular intervals (the samples a detector takes
//! while scanning, cut into intervals of different lengths): noise weighting of the samples inside
//! the intervals, and the projection of the signal onto per-interval offset templates (the mean of
//! each interval's weighted samples), one team per interval.

use super::{ensure, Outcome};
use rokkos::prelude::*;

/// Weights every sample inside an interval by its detector's inverse noise; samples outside all
/// intervals keep their value. One team per interval, its samples split over the threads. The
/// intervals are `DisjointRanges` (inclusive, checked pairwise disjoint when made), so a sample
/// of the team's own interval is the team's own: `#[kernel]` accepts the write without `unsafe`.
#[kernel]
fn noise_weight(
    team: &TeamMember,
    signal: ViewMut<f64, 2>,
    intervals: DisjointRanges<u32>,
    inv_noise: View<f64>,
) {
    let iv = team.league_rank();
    for t in team.thread_range(intervals[(iv, 0)] as usize..=intervals[(iv, 1)] as usize) {
        for d in 0..signal.extent(0) {
            signal[(d, t)] = signal[(d, t)] * inv_noise[d];
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
    // The same intervals, inclusive (each holds at least one sample).
    let inclusive: Vec<(u32, u32)> = bounds
        .iter()
        .map(|&(s, e)| (s as u32, e as u32 - 1))
        .collect();
    let intervals = DisjointRanges::new_on(dev, "intervals", &inclusive)?;
    let amp = DeviceView::<f64, 2>::new_on(dev, "amplitudes", [dets, ni])?;
    parallel_for(
        "noise_weight",
        TeamPolicy::new(dev, ni, TeamSize::Auto),
        noise_weight(&signal, &intervals, &inv),
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
