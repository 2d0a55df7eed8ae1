"""The 7-DoF human arm of source 002: D-H model, forward kinematics, the arm (swivel) angle and the
analytic inverse kinematics from (hand pose, φ).

D-H convention (standard): A_i = R_z(θ_i) T_z(d_i) T_x(a_i) R_x(α_i); θ_i is the joint variable
[rad]; the table (002, table 1) with d_3 = −d_se (upper arm), d_5 = −d_ew (forearm), a_7 = hand:

    i   d       a      α      limits of θ_i (deg)
    1   0       0     −90     −160 … 45
    2   0       0      90     −120 … 0
    3  −d_se    0     −90     −120 … 0
    4   0       0      90     −140 … 0
    5  −d_ew    0     −90        0 … 180
    6   0       0      90       15 … 165
    7   0       a       0      −40 … 30

(002 lists "θ_i" offsets 0, −90, 0, 0, 0, 90, 0: the home posture θ = offsets lies inside the
limits, so the limits are on the full D-H angle.) Joints 1–3 meet at the shoulder S, 5–7 at the
wrist W; E is the elbow. Frames: the arm's base frame (shoulder at the origin), SI units.

Arm angle (002, eq. 1): the angle between the reference plane (S, E0, W with θ_3 = 0) and the
arm plane (S, E, W), positive when the elbow turns about SW in the right-hand sense:
φ = sgn(φ) arccos(n·n0 / |n||n0|), n = se × ew, n0 = se0 × e0w, sgn(φ) = −sgn(n0 · se).
The elbow then lies at E(φ) = C + r (cos φ u + sin φ (ŵ × u)) on the circle about SW.

Because R_x(−90°) R_z(θ) R_x(90°) = R_y(θ), the shoulder and the wrist are Z-Y-Z Euler triples:
R_02 = R_z(θ1) R_y(θ2), R_03 = R_z(θ1) R_y(θ2) R_z(θ3) R_x(−90°), R_47 = R_z(θ5) R_y(θ6) R_z(θ7) —
which is what makes the inverse closed-form.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from biped_common.rotations import wrap_angle

LIMITS_DEG = ((-160, 45), (-120, 0), (-120, 0), (-140, 0), (0, 180), (15, 165), (-40, 30))
HOME_DEG = (0, -90, 0, 0, 0, 90, 0)


def _rz(t):
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _rx(t):
    c, s = math.cos(t), math.sin(t)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def _ry(t):
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def _axis_angle(axis, angle):
    """Rotation by ``angle`` about unit ``axis`` (Rodrigues)."""
    k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


@dataclass(frozen=True)
class ArmPose:
    """Shoulder, elbow, wrist and hand positions [m] and the hand frame's rotation (base frame)."""

    shoulder: np.ndarray
    elbow: np.ndarray
    wrist: np.ndarray
    hand: np.ndarray
    hand_rotation: np.ndarray


class IkFailure(ValueError):
    """The analytic inverse has no solution within reach and joint limits (says why)."""


@dataclass(frozen=True)
class Arm:
    """The arm of 002 with its segment lengths [m] (defaults: an adult's, after Winter's
    anthropometric fractions of a 1.75 m body)."""

    upper_arm_m: float = 0.32
    forearm_m: float = 0.25
    hand_m: float = 0.08

    def __post_init__(self):
        if not (self.upper_arm_m > 0 and self.forearm_m > 0 and self.hand_m >= 0):
            raise ValueError(f"arm lengths must be positive: {self}")

    @property
    def limits_rad(self) -> np.ndarray:
        """(7, 2) joint limits [rad]."""
        return np.deg2rad(np.array(LIMITS_DEG, dtype=float))

    def dh_rows(self):
        """(d, a, α) per joint."""
        return ((0.0, 0.0, -math.pi / 2), (0.0, 0.0, math.pi / 2), (-self.upper_arm_m, 0.0, -math.pi / 2),
                (0.0, 0.0, math.pi / 2), (-self.forearm_m, 0.0, -math.pi / 2), (0.0, 0.0, math.pi / 2),
                (0.0, self.hand_m, 0.0))

    def transforms(self, q) -> list[np.ndarray]:
        """The 4×4 transforms T_0i of frames 1 … 7 at joint angles ``q`` (7,) [rad]."""
        out, t = [], np.eye(4)
        for angle, (d, a, alpha) in zip(np.asarray(q, dtype=float), self.dh_rows()):
            step = np.eye(4)
            step[:3, :3] = _rz(angle) @ _rx(alpha)
            step[:3, 3] = _rz(angle) @ np.array([a, 0.0, 0.0]) + np.array([0.0, 0.0, d])
            t = t @ step
            out.append(t)
        return out

    def forward(self, q) -> ArmPose:
        """Forward kinematics: joint positions and the hand frame."""
        t = self.transforms(q)
        return ArmPose(np.zeros(3), t[2][:3, 3].copy(), t[4][:3, 3].copy(), t[6][:3, 3].copy(), t[6][:3, :3].copy())

    def elbow_angle(self, shoulder_to_wrist_m: float) -> float:
        """θ4 [rad] (≤ 0) for a shoulder–wrist distance: |SW|² = d_se² + d_ew² + 2 d_se d_ew cos θ4."""
        c = (shoulder_to_wrist_m**2 - self.upper_arm_m**2 - self.forearm_m**2) / (2 * self.upper_arm_m * self.forearm_m)
        if c > 1 + 1e-12 or c < -1 - 1e-12:
            raise IkFailure(f"wrist {shoulder_to_wrist_m:.4f} m from the shoulder is out of reach")
        return -math.acos(min(1.0, max(-1.0, c)))

    def reference_elbow(self, wrist: np.ndarray, theta4: float) -> np.ndarray:
        """E0: the elbow with θ3 = 0 for this wrist (the θ2 branch inside its limits)."""
        v = np.array([-self.forearm_m * math.sin(theta4), 0.0, -self.upper_arm_m - self.forearm_m * math.cos(theta4)])
        length = float(np.linalg.norm(v))
        delta = math.atan2(v[0], v[2])
        base = math.acos(max(-1.0, min(1.0, wrist[2] / length)))
        lo, hi = self.limits_rad[1]
        candidates = [b - delta for b in (base, -base)]
        candidates = [wrap_angle(c) for c in candidates]
        theta2 = min(candidates, key=lambda c: 0.0 if lo <= c <= hi else min(abs(c - lo), abs(c - hi)))
        k = v[0] * math.cos(theta2) + v[2] * math.sin(theta2)
        theta1 = math.atan2(wrist[1] / k, wrist[0] / k) if abs(k) > 1e-12 else 0.0
        return _rz(theta1) @ _ry(theta2) @ np.array([0.0, 0.0, -self.upper_arm_m])

    def arm_angle(self, q) -> float:
        """φ [rad] of a posture (002, eq. 1)."""
        pose = self.forward(q)
        return self.arm_angle_of(pose.elbow, pose.wrist, float(q[3]))

    def arm_angle_of(self, elbow, wrist, theta4: float | None = None) -> float:
        """φ [rad] of elbow and wrist positions (shoulder at the origin) [m]: the angle from the
        reference plane (S, E0, W) to the arm plane (S, E, W), signed by −sgn(n0 · SE)."""
        elbow, wrist = np.asarray(elbow, dtype=float), np.asarray(wrist, dtype=float)
        if theta4 is None:
            theta4 = self.elbow_angle(float(np.linalg.norm(wrist)))
        elbow0 = self.reference_elbow(wrist, theta4)
        n, n0 = np.cross(elbow, wrist - elbow), np.cross(elbow0, wrist - elbow0)
        cosine = float(n @ n0) / max(np.linalg.norm(n) * np.linalg.norm(n0), 1e-300)
        sign = -np.sign(float(n0 @ elbow))
        return float((sign if sign != 0 else 1.0) * math.acos(max(-1.0, min(1.0, cosine))))

    def inverse(self, hand_position, hand_rotation, arm_angle_rad: float, check_limits: bool = True) -> np.ndarray:
        """The joint angles (7,) [rad] placing the hand frame at (position [m], rotation) with
        arm angle φ [rad]; :class:`IkFailure` when out of reach, at the straight-arm singularity
        (φ undefined), or — with ``check_limits`` — outside the joint limits."""
        p, rotation = np.asarray(hand_position, dtype=float), np.asarray(hand_rotation, dtype=float)
        wrist = p - self.hand_m * rotation[:, 0]
        length = float(np.linalg.norm(wrist))
        theta4 = self.elbow_angle(length)
        if abs(math.sin(theta4)) < 1e-9:
            raise IkFailure("straight arm: the arm angle is undefined")
        axis = wrist / length
        elbow0 = self.reference_elbow(wrist, theta4)
        # The elbow circle about SW: centre C, radius r, reference direction u (towards E0).
        along = (self.upper_arm_m**2 - self.forearm_m**2 + length**2) / (2 * length)
        centre = along * axis
        radius = math.sqrt(max(self.upper_arm_m**2 - along**2, 0.0))
        u = elbow0 - centre
        u /= np.linalg.norm(u)
        elbow = centre + radius * (math.cos(arm_angle_rad) * u + math.sin(arm_angle_rad) * np.cross(axis, u))
        # Shoulder: z2 points from the elbow back to the shoulder; R_02 = R_z(θ1) R_y(θ2).
        z2 = -elbow / self.upper_arm_m
        theta2 = -math.acos(max(-1.0, min(1.0, z2[2])))  # the θ2 ≤ 0 branch (its limits)
        s2 = math.sin(theta2)
        theta1 = math.atan2(z2[1] / s2, z2[0] / s2) if abs(s2) > 1e-12 else 0.0
        # θ3 from the wrist seen in frame 2: W − E = (−d_ew s4 c3, −d_ew s4 s3, −d_ew c4).
        local = (_rz(theta1) @ _ry(theta2)).T @ (wrist - elbow)
        s4 = math.sin(theta4)
        theta3 = math.atan2(-local[1] / (self.forearm_m * s4), -local[0] / (self.forearm_m * s4))
        q = np.array([theta1, theta2, theta3, theta4, 0.0, 0.0, 0.0])
        # Wrist: R_47 = R_04ᵀ R_07 = R_z(θ5) R_y(θ6) R_z(θ7), the θ6 ≥ 0 branch (its limits).
        r04 = self.transforms(q)[3][:3, :3]
        m = r04.T @ rotation
        theta6 = math.atan2(math.hypot(m[0, 2], m[1, 2]), m[2, 2])
        if abs(math.sin(theta6)) > 1e-12:
            theta5, theta7 = math.atan2(m[1, 2], m[0, 2]), math.atan2(m[2, 1], -m[2, 0])
        else:  # wrist singularity: only θ5 + θ7 matters
            theta5, theta7 = 0.0, math.atan2(m[1, 0], m[0, 0])
        q[4:] = theta5, theta6, theta7
        q = _wrap_into(q, self.limits_rad)
        if check_limits:
            low, high = self.limits_rad.T
            outside = [i + 1 for i in range(7) if not (low[i] - 1e-9 <= q[i] <= high[i] + 1e-9)]
            if outside:
                raise IkFailure(f"joints {outside} outside their limits: {np.round(np.rad2deg(q), 1).tolist()} deg")
        return q


def _wrap_into(q: np.ndarray, limits: np.ndarray) -> np.ndarray:
    """Each angle shifted by a multiple of 2π into its limits when that is possible."""
    out = q.copy()
    for i, (low, high) in enumerate(limits):
        for shift in (0.0, 2 * math.pi, -2 * math.pi):
            if low - 1e-9 <= q[i] + shift <= high + 1e-9:
                out[i] = q[i] + shift
                break
    return out
