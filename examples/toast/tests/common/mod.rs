//! The spec's fixed-case inputs (toast-kernels.md §2) that more than one test file uses.

#![allow(dead_code)]

use rokkos_toast::reference::qarray::Quat;

/// The five directions of §2.2, as `(θ, φ, quaternion)`.
pub const PIXEL_CASE: [(f64, f64, Quat); 5] = [
    (
        0.3,
        1.0,
        [
            -0.07164445714916154,
            0.1311442991402941,
            0.4740421065957454,
            0.8677282556982174,
        ],
    ),
    (
        1.2,
        2.5,
        [
            -0.5358370226867843,
            0.1780443986196302,
            0.7832308043556697,
            0.2602467758622715,
        ],
    ),
    (
        2.9,
        -2.0,
        [
            0.8353391781999921,
            0.536365118122867,
            -0.10139958401163682,
            0.06510792415268482,
        ],
    ),
    (
        1.0,
        -0.5,
        [
            0.11861177641841196,
            0.46452135963892854,
            -0.21711740038440563,
            0.8503006452922328,
        ],
    ),
    (
        2.0,
        4.0,
        [
            -0.7651474012342926,
            -0.35017548837401463,
            0.49129549643388193,
            -0.2248450953661529,
        ],
    ),
];

/// §2.2: nest pixels of [`PIXEL_CASE`] at nside 4 (sample 3 flagged) and their hit submaps.
pub const PIXEL_NEST_4: [i64; 5] = [15, 17, 160, -1, 172];
/// §2.2: ring pixels at nside 4.
pub const PIXEL_RING_4: [i64; 5] = [0, 62, 190, -1, 146];
/// §2.2: hit submaps (16 pixels each) of the nest case.
pub const HITS_NEST_4: [usize; 3] = [0, 1, 10];
/// §2.2: hit submaps of the ring case.
pub const HITS_RING_4: [usize; 4] = [0, 3, 9, 11];
/// §2.2: the five directions unflagged at nside 1024 (equal to healpy), nest.
pub const PIXEL_NEST_1024: [i64; 5] = [988951, 1154960, 10515277, 3455329, 11327061];
/// §2.2: the same, ring.
pub const PIXEL_RING_1024: [i64; 5] = [280738, 4009566, 12400723, 2893498, 8913455];

/// §2.2 φ-snap regression (toast HEAD): at nside 4096 nest 143138818, ring 187529588.
pub const SNAP_QUAT: Quat = [
    -0.5130854625967909,
    0.817484199844597,
    -0.1390968346448043,
    0.2216189560215288,
];

/// §2.3 detector 0: ε = 0.1, `Rz(20°)⊗Ry(50°)⊗Rz(30°)`.
pub const STOKES_Q0: Quat = [
    0.03683360850073486,
    0.4210100716628344,
    0.38302222155948895,
    0.8213938048432696,
];
/// §2.3 detector 1: ε = 0, `Rz(−60°)⊗Ry(100°)⊗Rz(−45°)`.
pub const STOKES_Q1: Quat = [
    0.09998886423164999,
    0.7594908267142729,
    -0.5099576972426347,
    0.39130430382187753,
];
