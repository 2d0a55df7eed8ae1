"""The WBC's reference at one instant, from gait-reference arrays and the MPC's CoM plan."""

from __future__ import annotations

from bisect import bisect_right

import numpy as np

from biped_common.gait_reference import GaitReference
from wbc_node.wbc import SIDES, FootTarget, WbcReference


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
        self._times_list = self.times_s.tolist()  # bisect on a list: ≈ 20× cheaper than np.searchsorted for 3 times
        # Every quaternion's 4 columns, to normalize them all in one operation.
        self._quat_columns = np.array([np.arange(c.start, c.stop) for key, c, _ in self._layout
                                       if key.endswith("quat_wxyz")], dtype=int).reshape(-1, 4)

    def sample(self, times_s: np.ndarray) -> dict[str, np.ndarray]:
        """The arrays linearly interpolated at ``times_s`` (relative to the arrays' own time
        origin; held constant outside it); stance flags from the latest sample at or before each
        time; quaternions normalized after interpolation (the samples are close)."""
        t = np.asarray(times_s, dtype=float)
        src, last = self._times_list, len(self._times_list) - 1
        lower, upper, weight, flag_index = [], [], [], []
        for time_s in t.tolist():
            above = min(max(bisect_right(src, time_s), 1), max(last, 1))
            span = max(src[above] - src[above - 1], 1e-12)
            lower.append(above - 1)
            upper.append(above)
            weight.append(min(max((time_s - src[above - 1]) / span, 0.0), 1.0))
            flag_index.append(min(max(bisect_right(src, time_s + 1e-9) - 1, 0), last))
        w = np.array(weight)[:, None]
        values = (1.0 - w) * self._matrix[lower] + w * self._matrix[upper]
        if self._quat_columns.size:
            quats = values[:, self._quat_columns]
            values[:, self._quat_columns] = quats / np.sqrt((quats * quats).sum(axis=-1, keepdims=True))
        out = {"times_s": t}
        for key, columns, shape in self._layout:
            out[key] = values[:, columns].reshape((t.size,) + shape)
        for key, flags in self._flags.items():
            out[key] = flags[flag_index]
        return out

    def first_double_support_s(self, offset_s: float) -> float | None:
        """The first time [s] (relative, like :meth:`sample`) at or after ``offset_s`` with both
        feet in stance: ``offset_s`` itself when they are then; None when the table has none left."""
        both = np.logical_and(*(self._flags[f"{side}_in_stance"] for side in SIDES))
        index = int(np.clip(np.searchsorted(self.times_s, offset_s + 1e-9, side="right") - 1, 0, self.times_s.size - 1))
        if both[index]:
            return float(max(offset_s, self.times_s[index]))
        later = np.flatnonzero(both[index:])
        return float(self.times_s[index + later[0]]) if later.size else None


def wbc_reference(samples: dict[str, np.ndarray], step_s: float, com_plan_sample, joint_posture_rad: np.ndarray,
                  upper_index: np.ndarray | None = None) -> WbcReference:
    """The reference at ``samples``' first time, with rates and accelerations by finite
    differences over its first three samples (spaced ``step_s`` [s]). ``com_plan_sample`` is
    (position, velocity, acceleration) of the horizontal CoM from the MPC plan. Upper-body joint
    angles from the samples replace ``joint_posture_rad`` at ``upper_index`` (robot order), with
    their rates and accelerations (zero for the other joints)."""
    feet = {}
    for side in SIDES:
        p = samples[f"{side}_sole_position_m"]
        feet[side] = FootTarget(bool(samples[f"{side}_in_stance"][0]), p[0], (p[1] - p[0]) / step_s,
                                (p[2] - 2 * p[1] + p[0]) / step_s**2, samples[f"{side}_sole_quat_wxyz"][0])
    posture = np.array(joint_posture_rad, dtype=float)
    rate, accel = np.zeros(posture.size), np.zeros(posture.size)
    if upper_index is not None and "upper_joints_rad" in samples and samples["upper_joints_rad"].shape[1]:
        upper = samples["upper_joints_rad"]
        posture[upper_index] = upper[0]
        rate[upper_index] = (upper[1] - upper[0]) / step_s
        accel[upper_index] = (upper[2] - 2 * upper[1] + upper[0]) / step_s**2
    height = samples["pelvis_height_m"]
    c, v, a = com_plan_sample
    return WbcReference(np.asarray(c), np.asarray(v), np.asarray(a), float(height[0]),
                        float((height[1] - height[0]) / step_s), samples["pelvis_quat_wxyz"][0], feet, posture,
                        rate, accel)
