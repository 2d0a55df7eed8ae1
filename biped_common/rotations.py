"""Rotations in SO(3): quaternions, matrices, roll-pitch-yaw, exponential and logarithm maps.

Quaternions are numpy arrays in (w, x, y, z) order everywhere inside biped_stack (MuJoCo's order);
the two edges that differ — Pinocchio's free-flyer configuration and ROS messages, both (x, y, z, w)
— convert with :func:`quat_wxyz_to_xyzw` / :func:`quat_xyzw_to_wxyz`. Quaternions are unit norm and
map vectors from the rotated (child) frame to the reference (parent) frame: v_parent = R(q) v_child.
"""

from __future__ import annotations

import math

import numpy as np


def skew(v: np.ndarray) -> np.ndarray:
    """The 3×3 matrix [v]× such that [v]× w = v × w."""
    x, y, z = v
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def quat_wxyz_to_xyzw(q_wxyz: np.ndarray) -> np.ndarray:
    """Reorder (w, x, y, z) → (x, y, z, w)."""
    return np.array([q_wxyz[1], q_wxyz[2], q_wxyz[3], q_wxyz[0]])


def quat_xyzw_to_wxyz(q_xyzw: np.ndarray) -> np.ndarray:
    """Reorder (x, y, z, w) → (w, x, y, z)."""
    return np.array([q_xyzw[3], q_xyzw[0], q_xyzw[1], q_xyzw[2]])


def quat_normalize(q_wxyz: np.ndarray) -> np.ndarray:
    """Unit quaternion with w ≥ 0 (the hemisphere is chosen so equal rotations compare equal)."""
    q = np.asarray(q_wxyz, dtype=float)
    n = math.sqrt(q @ q)  # np.linalg.norm's own formula for a vector, without its dispatch
    if not math.isfinite(n) or n < 1e-12:
        raise ValueError(f"cannot normalize quaternion {q}")
    q = q / n
    return q if q[0] >= 0.0 else -q


def quat_multiply(a_wxyz: np.ndarray, b_wxyz: np.ndarray) -> np.ndarray:
    """Hamilton product a ⊗ b (rotation b first, then a)."""
    aw, ax, ay, az = a_wxyz
    bw, bx, by, bz = b_wxyz
    return np.array([
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ])


def quat_conjugate(q_wxyz: np.ndarray) -> np.ndarray:
    """Inverse of a unit quaternion."""
    return np.array([q_wxyz[0], -q_wxyz[1], -q_wxyz[2], -q_wxyz[3]])


def quat_to_matrix(q_wxyz: np.ndarray) -> np.ndarray:
    """Rotation matrix of a unit quaternion (w, x, y, z)."""
    w, x, y, z = q_wxyz
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def quats_to_matrices(q_wxyz: np.ndarray) -> np.ndarray:
    """Rotation matrices (N, 3, 3) of unit quaternions (N, 4) in (w, x, y, z) order."""
    w, x, y, z = np.moveaxis(np.asarray(q_wxyz, dtype=float), -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], axis=-1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], axis=-1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=-1),
    ], axis=-2)


def matrix_to_quat(rotation: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z), w ≥ 0, of a rotation matrix (Shepperd's method)."""
    m = np.asarray(rotation, dtype=float)
    trace = np.trace(m)
    if trace > 0.0:
        s = 2.0 * np.sqrt(1.0 + trace)
        q = [0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
        q = [(m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s]
    elif m[1, 1] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
        q = [(m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s]
    else:
        s = 2.0 * np.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
        q = [(m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s]
    return quat_normalize(np.array(q))


def rpy_to_matrix(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """R = Rz(yaw) Ry(pitch) Rx(roll) (extrinsic x-y-z, the ROS/URDF convention)."""
    cr, sr = np.cos(roll), np.sin(roll)
    cp, sp = np.cos(pitch), np.sin(pitch)
    cy, sy = np.cos(yaw), np.sin(yaw)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def matrix_to_rpy(rotation: np.ndarray) -> np.ndarray:
    """(roll, pitch, yaw) [rad] with R = Rz(yaw) Ry(pitch) Rx(roll); pitch in [-π/2, π/2]."""
    m = rotation
    pitch = np.arcsin(np.clip(-m[2, 0], -1.0, 1.0))
    roll = np.arctan2(m[2, 1], m[2, 2])
    yaw = np.arctan2(m[1, 0], m[0, 0])
    return np.array([roll, pitch, yaw])


def rotation_vector_to_quat(rotation_vector: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z) of the rotation by a rotation vector ω [rad], |ω| < π (so
    w > 0): (cos(|ω|/2), sin(|ω|/2) ω/|ω|) — the quaternion of :func:`so3_exp`, without the matrix."""
    x, y, z = rotation_vector.tolist()
    theta = math.sqrt(x * x + y * y + z * z)
    # sin(θ/2)/θ → 1/2 − θ²/48 as θ → 0 (its Taylor series; exact to round-off below 1e-4 rad).
    scale = math.sin(theta / 2) / theta if theta > 1e-4 else 0.5 - theta * theta / 48.0
    return np.array([math.cos(theta / 2), scale * x, scale * y, scale * z])


def so3_exp(rotation_vector: np.ndarray) -> np.ndarray:
    """Rotation matrix exp([ω]×) of a rotation vector ω [rad] (Rodrigues' formula)."""
    theta = float(np.linalg.norm(rotation_vector))
    k = skew(rotation_vector)
    if theta < 1e-8:
        return np.eye(3) + k + 0.5 * k @ k
    return np.eye(3) + np.sin(theta) / theta * k + (1 - np.cos(theta)) / theta**2 * k @ k


def so3_log(rotation: np.ndarray) -> np.ndarray:
    """Rotation vector ω [rad], |ω| ≤ π, with exp([ω]×) = R."""
    q = matrix_to_quat(rotation)
    vec = q[1:]
    s = float(np.linalg.norm(vec))
    if s < 1e-12:
        return 2.0 * vec  # first order, exact in the limit
    angle = 2.0 * np.arctan2(s, q[0])
    return angle * vec / s


def quats_yaw(q_wxyz: np.ndarray) -> np.ndarray:
    """Yaw [rad] (rotation about world z, ZYX convention) of quaternions (..., 4) (w, x, y, z)."""
    q = np.asarray(q_wxyz, dtype=float)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.arctan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def quats_sole_pitch(q_wxyz: np.ndarray) -> np.ndarray:
    """Pitch [rad] of frames (…, 4) about their own lateral (y) axis, positive x axis down (for a
    sole: heel up, the style's toe-off pitch): −asin of the frame x axis's world z component."""
    q = np.asarray(q_wxyz, dtype=float)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return -np.arcsin(np.clip(2.0 * (x * z - w * y), -1.0, 1.0))


def quat_slerp(a_wxyz: np.ndarray, b_wxyz: np.ndarray, fraction) -> np.ndarray:
    """Spherical linear interpolation from ``a`` (fraction 0) to ``b`` (fraction 1), (w, x, y, z),
    the short way: when a·b < 0, b is negated first (the same rotation; without this check the
    interpolation can take the 2π − θ path — source 003's caution). ``fraction`` scalar or (N,)
    → (4,) or (N, 4)."""
    a, b = quat_normalize(np.asarray(a_wxyz, dtype=float)), quat_normalize(np.asarray(b_wxyz, dtype=float))
    dot = float(a @ b)
    if dot < 0.0:
        b, dot = -b, -dot
    t = np.asarray(fraction, dtype=float)[..., None]
    if dot > 1.0 - 1e-12:  # nearly equal: linear, renormalized
        out = (1 - t) * a + t * b
        return out / np.linalg.norm(out, axis=-1, keepdims=True)
    angle = np.arccos(dot)
    return (np.sin((1 - t) * angle) * a + np.sin(t * angle) * b) / np.sin(angle)


def wrap_angle(angle):
    """Angle wrapped to [−π, π)."""
    if isinstance(angle, float):
        return (angle + math.pi) % (2 * math.pi) - math.pi
    return np.mod(np.asarray(angle) + math.pi, 2 * math.pi) - math.pi
