//! Bad input answers `Err` naming what is wrong, launches nothing and leaves the outputs as
//! they were: non-injective or negative row indices, overlapping, unsorted, empty or negative
//! intervals, buffers too small for the rows or the intervals, a bad nside or submap count, a
//! zero step length.

use rokkos::Serial;
use rokkos_toast::kernels::*;
use rokkos_toast::observation::{download, filled};
use rokkos_toast::Interval;

fn message<T>(r: rokkos::Result<T>) -> String {
    match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn row_index_must_be_injective_and_non_negative() {
    let s = Serial;
    assert!(message(row_index(&s, &[0, 2, 2])).contains("value 2 appears twice"));
    assert!(message(row_index(&s, &[1, -1])).contains("negative"));
    let r = row_index(&s, &[3, 0, 1]).unwrap();
    assert_eq!(r.len(), 3);
    assert!(row_index(&s, &[]).unwrap().is_empty());
}

#[test]
fn intervals_must_be_sorted_disjoint_and_non_empty() {
    let s = Serial;
    for bad in [
        vec![(0, 5), (5, 9)],
        vec![(6, 9), (0, 2)],
        vec![(3, 2)],
        vec![(-1, 4)],
    ] {
        let e = message(Intervals::new(&s, &Interval::list(&bad)));
        assert!(
            e.contains("must satisfy 0 <= first <= last"),
            "{bad:?}: {e}"
        );
    }
    let iv = Intervals::new(&s, &Interval::list(&[(0, 5), (7, 7), (9, 12)])).unwrap();
    assert_eq!(
        (iv.n_view(), iv.total(), iv.max_len(), iv.end()),
        (3, 11, 6, 13)
    );
    assert_eq!(iv.lens(), [6, 1, 4]);
    assert!(message(OffsetTemplate::new(&s, &iv, 0)).contains("step_length is 0"));
}

#[test]
fn shapes_are_checked_before_launch() {
    let s = Serial;
    let iv = Intervals::new(&s, &Interval::list(&[(0, 3)])).unwrap();
    let fp = filled(&s, "fp", [2, 4], 0.0).unwrap();
    let bore = filled(&s, "bore", [4, 4], 0.0).unwrap();
    let flags = filled(&s, "flags", [1], 0).unwrap();
    let run = |rows: &[i32], quats, bore, iv| {
        PointingDetector {
            focalplane: &fp,
            boresight: bore,
            quat_index: &row_index(&s, rows).unwrap(),
            quats,
            intervals: iv,
            shared_flags: &flags,
            shared_flag_mask: 1,
        }
        .run(&s, Design::Flat)
    };
    let quats = filled(&s, "quats", [2, 4, 4], -3.0).unwrap();
    assert!(message(run(&[0, 2], &quats, &bore, &iv))
        .contains("quats has 2 rows but the row index names row 2"));
    let q_three = filled(&s, "q", [3, 4, 4], 0.0).unwrap();
    assert!(message(run(&[0, 1, 2], &q_three, &bore, &iv)).contains("focalplane has 2 entries"));
    let short = filled(&s, "bore", [3, 4], 0.0).unwrap();
    let q3 = filled(&s, "q", [2, 3, 4], 0.0).unwrap();
    assert!(message(run(&[0, 1], &q3, &short, &iv)).contains("intervals reach sample 3"));
    let q_narrow = filled(&s, "q", [2, 4, 3], 0.0).unwrap();
    assert!(message(run(&[0, 1], &q_narrow, &bore, &iv))
        .contains("extent 3 in dimension 2, expected 4"));
    // Nothing ran.
    assert!(download(&quats).unwrap().iter().all(|&x| x == -3.0));
    run(&[0, 1], &quats, &bore, &iv).unwrap();
    assert!(download(&quats).unwrap().iter().all(|&x| x != -3.0));
}

#[test]
fn pixel_geometry_is_checked() {
    let s = Serial;
    let iv = Intervals::new(&s, &Interval::list(&[(0, 1)])).unwrap();
    let r = row_index(&s, &[0]).unwrap();
    let quats = filled(&s, "quats", [1, 2, 4], 0.5).unwrap();
    let pixels = filled(&s, "pixels", [1, 2], -5i64).unwrap();
    let flags = filled(&s, "flags", [1], 0).unwrap();
    let run = |nside, n_pix_submap, n_hits| {
        PixelsHealpix {
            quat_index: &r,
            quats: &quats,
            shared_flags: &flags,
            shared_flag_mask: 1,
            pixel_index: &r,
            pixels: &pixels,
            intervals: &iv,
            hit_submaps: &filled(&s, "hits", [n_hits], 0).unwrap(),
            n_pix_submap,
            nside,
            nest: true,
        }
        .run(&s, Design::Team)
    };
    for nside in [0, 3, 12, 1 << 30] {
        assert!(message(run(nside, 1, 1 << 20)).contains("is not a power of two"));
    }
    assert!(message(run(4, 16, 11)).contains("11 submaps of 16 pixels do not cover the 192 pixels"));
    assert!(message(run(4, 0, 11)).contains("submaps of 0 pixels"));
    assert!(download(&pixels).unwrap().iter().all(|&x| x == -5));
    run(4, 16, 12).unwrap();
    assert!(download(&pixels)
        .unwrap()
        .iter()
        .all(|&x| (0..192).contains(&x)));
}
