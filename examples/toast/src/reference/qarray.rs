//! Quaternions as TOAST's qarray (spec §1.4): component order `(x, y, z, w)`, scalar last.

/// A quaternion `(x, y, z, w)`.
pub type Quat = [f64; 4];

/// The identity rotation.
pub const IDENTITY: Quat = [0.0, 0.0, 0.0, 1.0];

/// The Hamilton product `p ⊗ q` (apply `q` first, then `p`), component by component as in §1.4.
pub fn mult(p: &Quat, q: &Quat) -> Quat {
    [
        p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0],
        -p[0] * q[2] + p[1] * q[3] + p[2] * q[0] + p[3] * q[1],
        p[0] * q[1] - p[1] * q[0] + p[2] * q[3] + p[3] * q[2],
        -p[0] * q[0] - p[1] * q[1] - p[2] * q[2] + p[3] * q[3],
    ]
}

/// `v' = q v q*` for a unit `q`, by the general formula of §1.4 (no normalisation, as TOAST's C++).
pub fn rotate(q: &Quat, v: &[f64; 3]) -> [f64; 3] {
    let [x, y, z, w] = *q;
    [
        v[0] + 2.0 * (-(y * y + z * z) * v[0] + (x * y - z * w) * v[1] + (y * w + x * z) * v[2]),
        v[1] + 2.0 * ((z * w + x * y) * v[0] - (x * x + z * z) * v[1] + (y * z - x * w) * v[2]),
        v[2] + 2.0 * ((x * z - y * w) * v[0] + (x * w + y * z) * v[1] - (x * x + y * y) * v[2]),
    ]
}

/// The rotation by `angle` radians about the unit `axis`: `(n·sin(a/2), cos(a/2))`.
pub fn from_axis_angle(axis: &[f64; 3], angle: f64) -> Quat {
    let (s, c) = (0.5 * angle).sin_cos();
    [axis[0] * s, axis[1] * s, axis[2] * s, c]
}

/// Rotation about x̂.
pub fn rx(angle: f64) -> Quat {
    from_axis_angle(&[1.0, 0.0, 0.0], angle)
}

/// Rotation about ŷ.
pub fn ry(angle: f64) -> Quat {
    from_axis_angle(&[0.0, 1.0, 0.0], angle)
}

/// Rotation about ẑ.
pub fn rz(angle: f64) -> Quat {
    from_axis_angle(&[0.0, 0.0, 1.0], angle)
}

/// The Euclidean norm of `q`.
pub fn norm(q: &Quat) -> f64 {
    q.iter().map(|c| c * c).sum::<f64>().sqrt()
}

/// `q / |q|`.
pub fn normalize(q: &Quat) -> Quat {
    let n = norm(q);
    [q[0] / n, q[1] / n, q[2] / n, q[3] / n]
}
