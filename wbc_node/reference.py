"""The WBC's reference at one instant, from gait-reference arrays and the MPC's CoM plan.

The planner samples its reference on a time grid (dense over the first tenths of a second); the
WBC needs it — with its velocity and acceleration, fed forward to every task — at each control
tick between two grid times. :class:`ReferenceTable` interpolates the grid with a piecewise cubic
Hermite spline whose knot slopes are those of the parabola through each knot and its neighbours
(C¹; exact for quadratics, on non-uniform grids too), so the rates are continuous and the
accelerations finite — linear interpolation had zero acceleration inside a grid interval and a
spike at every knot. Angular rates of the pelvis and soles follow from the quaternions' derivatives
(ω = 2 vec(q̇ ⊗ q̄), α = 2 vec(q̈ ⊗ q̄), world axes).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

import numpy as np

from biped_common.gait_reference import GaitReference
from biped_common.rotations import quat_conjugate, quat_multiply
from wbc_node.wbc import SIDES, FootTarget, WbcReference


def knot_slopes(times_s: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Slopes (N, C) at the knots ``times_s`` (N,) of the columns ``values`` (N, C): at an inner
    knot the derivative of the parabola through it and its two neighbours (the three-point formula
    for non-uniform spacing), at the ends the end interval's slope."""
    n = times_s.size
    if n < 2:
        return np.zeros_like(values)
    h = np.diff(times_s)[:, None]
    secant = np.diff(values, axis=0) / h
    slopes = np.empty_like(values)
    slopes[0], slopes[-1] = secant[0], secant[-1]
    if n > 2:
        slopes[1:-1] = (h[1:] * secant[:-1] + h[:-1] * secant[1:]) / (h[:-1] + h[1:])
    return slopes


@dataclass(frozen=True)
class ReferenceMotion:
    """The reference at one instant: per key (as :meth:`ReferenceTable.sample`'s) its value, rate
    [per s] and acceleration [per s²]; stance flags in ``value`` only; quaternions normalized in
    ``value``, their raw derivatives in ``rate`` and ``acceleration``."""

    value: dict[str, np.ndarray]
    rate: dict[str, np.ndarray]
    acceleration: dict[str, np.ndarray]

    def frozen(self) -> "ReferenceMotion":
        """The same pose, at rest (zero rates and accelerations)."""
        zero = {k: np.zeros_like(v) for k, v in self.rate.items()}
        return ReferenceMotion(self.value, zero, {k: v.copy() for k, v in zero.items()})


def angular_rates(quat_wxyz: np.ndarray, quat_rate: np.ndarray, quat_acceleration: np.ndarray):
    """Angular velocity [rad/s] and acceleration [rad/s²] (3,) in world axes of a unit quaternion
    moving at q̇, q̈: ω = 2 vec(q̇ ⊗ q̄), α = 2 vec(q̈ ⊗ q̄) (the q̇ ⊗ q̇̄ term of α is real for a
    unit quaternion). vec(p ⊗ q̄) = E(q) p with E(q) = [−q_v | q_w I + [q_v]×], so both are one
    product (this runs three times a control tick)."""
    w, x, y, z = quat_wxyz
    rates = np.array([[-x, w, -z, y], [-y, z, w, -x], [-z, -y, x, w]]) @ np.column_stack((quat_rate, quat_acceleration))
    return 2.0 * rates[:, 0], 2.0 * rates[:, 1]


class ReferenceTable:
    """A gait reference prepared for fast sampling: every float array in one (N, columns) matrix,
    so sampling at a few times is one interpolation (the WBC does it at 500 Hz). Samples are
    dicts keyed ``pelvis_height_m``, ``pelvis_quat_wxyz``, ``<side>_sole_position_m``,
    ``<side>_sole_quat_wxyz``, ``<side>_in_stance``, ``body``, ``upper_joints_rad``."""

    def __init__(self, reference: GaitReference):
        self.times_s = reference.times_s
        n = self.times_s.size
        arrays = {"pelvis_height_m": reference.pelvis_height_m, "pelvis_quat_wxyz": reference.pelvis_quat_wxyz,
                  "body": reference.body, "upper_joints_rad": reference.upper_joints_rad}
        for side in SIDES:
            arrays[f"{side}_sole_position_m"] = reference.sole_position_m[side]
            arrays[f"{side}_sole_quat_wxyz"] = reference.sole_quat_wxyz[side]
        self._flags = {f"{side}_in_stance": reference.in_stance[side] for side in SIDES}
        blocks, self._layout = [], []
        column = 0
        for key, value in arrays.items():
            flat = value.reshape(n, -1).astype(float)
            blocks.append(flat)
            self._layout.append((key, slice(column, column + flat.shape[1]), value.shape[1:]))
            column += flat.shape[1]
        self._matrix = np.hstack(blocks) if blocks else np.zeros((n, 0))
        self._slopes = knot_slopes(np.asarray(self.times_s, dtype=float), self._matrix)
        # Per interval its two knots' values and slopes (N − 1, 4, columns): value, rate and
        # acceleration at a time are then one (3, 4) @ (4, columns) product.
        self._intervals = np.stack((self._matrix[:-1], self._matrix[1:], self._slopes[:-1], self._slopes[1:]), axis=1)
        self._times_list = self.times_s.tolist()  # bisect on a list: ≈ 20× cheaper than np.searchsorted for 3 times
        # Every quaternion's 4 columns, to normalize them all in one operation.
        self._quat_columns = np.array([np.arange(c.start, c.stop) for key, c, _ in self._layout
                                       if key.endswith("quat_wxyz")], dtype=int).reshape(-1, 4)

    def _interval(self, time_s: float) -> tuple[int, float, float]:
        """The grid interval (its first knot's index) holding ``time_s``, its length [s] and the
        position s ∈ [0, 1] in it (clamped: held constant outside the grid)."""
        src = self._times_list  # (at least two knots: the callers hold a single one)
        above = min(max(bisect_right(src, time_s), 1), len(src) - 1)
        span = max(src[above] - src[above - 1], 1e-12)
        return above - 1, span, min(max((time_s - src[above - 1]) / span, 0.0), 1.0)

    def _unpack(self, values: np.ndarray, times: np.ndarray, normalize: bool) -> dict[str, np.ndarray]:
        if normalize and self._quat_columns.size:
            quats = values[:, self._quat_columns]
            values[:, self._quat_columns] = quats / np.sqrt((quats * quats).sum(axis=-1, keepdims=True))
        out = {"times_s": times}
        for key, columns, shape in self._layout:
            out[key] = values[:, columns].reshape((times.size,) + shape)
        return out

    def _flag_index(self, time_s: float) -> int:
        return min(max(bisect_right(self._times_list, time_s + 1e-9) - 1, 0), len(self._times_list) - 1)

    def sample(self, times_s: np.ndarray) -> dict[str, np.ndarray]:
        """The arrays at ``times_s`` (relative to the arrays' own time origin; held constant
        outside it) on the cubic spline through the grid (see the module docstring); stance flags
        from the latest sample at or before each time; quaternions normalized."""
        t = np.asarray(times_s, dtype=float)
        rows = np.empty((t.size, self._matrix.shape[1]))
        for k, time_s in enumerate(t.tolist()):
            i, h, s = self._interval(time_s)
            if len(self._times_list) == 1:
                rows[k] = self._matrix[0]
                continue
            s2, s3 = s * s, s * s * s
            rows[k] = ((2 * s3 - 3 * s2 + 1) * self._matrix[i] + (-2 * s3 + 3 * s2) * self._matrix[i + 1]
                       + h * ((s3 - 2 * s2 + s) * self._slopes[i] + (s3 - s2) * self._slopes[i + 1]))
        out = self._unpack(rows, t, normalize=True)
        flags = [self._flag_index(time_s) for time_s in t.tolist()]
        for key, values in self._flags.items():
            out[key] = values[flags]
        return out

    def motion(self, time_s: float) -> ReferenceMotion:
        """Value, rate and acceleration of every array at one time ``time_s`` (relative) on the
        spline; outside the grid the value is held and the rates are zero."""
        times = np.array([time_s], dtype=float)
        if len(self._times_list) == 1 or not self._times_list[0] <= time_s <= self._times_list[-1]:
            value = self.sample(times)
            zero = self._unpack(np.zeros((1, self._matrix.shape[1])), times, normalize=False)
            return ReferenceMotion(value, zero, {k: v.copy() for k, v in zero.items()})
        i, h, s = self._interval(time_s)
        s2, s3 = s * s, s * s * s
        # The cubic Hermite basis (rows: value, d/dt, d²/dt²) on [m_i, m_i+1, d_i, d_i+1].
        basis = np.array([[2 * s3 - 3 * s2 + 1, -2 * s3 + 3 * s2, h * (s3 - 2 * s2 + s), h * (s3 - s2)],
                          [(6 * s2 - 6 * s) / h, (6 * s - 6 * s2) / h, 3 * s2 - 4 * s + 1, 3 * s2 - 2 * s],
                          [(12 * s - 6) / (h * h), (6 - 12 * s) / (h * h), (6 * s - 4) / h, (6 * s - 2) / h]])
        rows = basis @ self._intervals[i]
        if self._quat_columns.size:
            quats = rows[0, self._quat_columns]
            rows[0, self._quat_columns] = quats / np.sqrt((quats * quats).sum(axis=-1, keepdims=True))
        value, rate, acceleration = {"times_s": times}, {"times_s": times}, {"times_s": times}
        for key, columns, shape in self._layout:
            block = rows[:, columns].reshape((3, 1) + shape)
            value[key], rate[key], acceleration[key] = block[0], block[1], block[2]
        flag = self._flag_index(time_s)
        for key, flags in self._flags.items():
            value[key] = flags[flag:flag + 1]
        return ReferenceMotion(value, rate, acceleration)

    def first_double_support_s(self, offset_s: float) -> float | None:
        """The first time [s] (relative, like :meth:`sample`) at or after ``offset_s`` with both
        feet in stance: ``offset_s`` itself when they are then; None when the table has none left."""
        both = np.logical_and(*(self._flags[f"{side}_in_stance"] for side in SIDES))
        index = int(np.clip(np.searchsorted(self.times_s, offset_s + 1e-9, side="right") - 1, 0, self.times_s.size - 1))
        if both[index]:
            return float(max(offset_s, self.times_s[index]))
        later = np.flatnonzero(both[index:])
        return float(self.times_s[index + later[0]]) if later.size else None


def wbc_reference(motion: ReferenceMotion, com_plan_sample, joint_posture_rad: np.ndarray,
                  upper_index: np.ndarray | None = None) -> WbcReference:
    """The WBC reference from the gait reference's ``motion`` at one instant (values, rates and
    accelerations fed forward) and ``com_plan_sample`` (position, velocity, acceleration of the
    horizontal CoM from the MPC plan). Upper-body joint angles replace ``joint_posture_rad`` at
    ``upper_index`` (robot order), with their rates and accelerations (zero for the other joints)."""
    value, rate, accel = motion.value, motion.rate, motion.acceleration
    feet = {}
    for side in SIDES:
        quat = value[f"{side}_sole_quat_wxyz"][0]
        omega, alpha = angular_rates(quat, rate[f"{side}_sole_quat_wxyz"][0], accel[f"{side}_sole_quat_wxyz"][0])
        feet[side] = FootTarget(bool(value[f"{side}_in_stance"][0]), value[f"{side}_sole_position_m"][0],
                                rate[f"{side}_sole_position_m"][0], accel[f"{side}_sole_position_m"][0], quat,
                                omega, alpha)
    posture = np.array(joint_posture_rad, dtype=float)
    posture_rate, posture_accel = np.zeros(posture.size), np.zeros(posture.size)
    if upper_index is not None and "upper_joints_rad" in value and value["upper_joints_rad"].shape[1]:
        posture[upper_index] = value["upper_joints_rad"][0]
        posture_rate[upper_index] = rate["upper_joints_rad"][0]
        posture_accel[upper_index] = accel["upper_joints_rad"][0]
    pelvis_quat = value["pelvis_quat_wxyz"][0]
    omega, alpha = angular_rates(pelvis_quat, rate["pelvis_quat_wxyz"][0], accel["pelvis_quat_wxyz"][0])
    c, v, a = com_plan_sample
    return WbcReference(np.asarray(c), np.asarray(v), np.asarray(a), float(value["pelvis_height_m"][0]),
                        float(rate["pelvis_height_m"][0]), pelvis_quat, feet, posture, posture_rate, posture_accel,
                        pelvis_height_accel_m_s2=float(accel["pelvis_height_m"][0]),
                        pelvis_angular_velocity_rad_s=omega, pelvis_angular_acceleration_rad_s2=alpha)
