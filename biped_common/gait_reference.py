"""The gait reference: what the gait planner asks of the robot over its preview, as one typed value.

It is the contract between the planner and everything downstream of it — the CoM MPC (contacts,
body path), the whole-body controller (pelvis, soles, upper body), the state estimator (the pelvis
pose a restarted estimator starts from). In process it is passed as is; over ROS 2 it travels as
one message, ``/gait/reference`` (:func:`biped_common.conversions.gait_reference_message`).

Frames and units: world frame, metres, radians, seconds; quaternions (w, x, y, z).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from biped_common.small_math import all_finite

SIDES = ("left", "right")


def _frozen(value, name: str, shape: tuple, dtype=float) -> np.ndarray:
    array = np.array(value, dtype=dtype)  # a copy: the producer may keep changing its own arrays
    if array.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {array.shape}")
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class GaitReference:
    """The planner's reference at ``times_s`` after ``stamp_s`` [s, sim time], one row per time.

    - ``body`` (N, 3): the planar body path x, y [m] and heading [rad] the footholds straddle (the
      horizontal pelvis position is the MPC's to choose; this path is its guide);
    - ``pelvis_height_m`` (N,), ``pelvis_quat_wxyz`` (N, 4): pelvis height and orientation;
    - per side (``left``, ``right``): ``sole_position_m`` (N, 3), ``sole_quat_wxyz`` (N, 4), the
      sole's pose, and ``in_stance`` (N,) bool;
    - ``upper_joints_rad`` (N, J): the angles of ``upper_joint_names`` (the style's upper body).

    Shapes are checked at construction (ValueError naming the field); the arrays are copied and
    read-only. Values are not range-checked here: what arrives from outside is checked where it is
    decoded (:func:`biped_common.conversions.gait_reference_from_message`).
    """

    stamp_s: float
    times_s: np.ndarray
    body: np.ndarray
    pelvis_height_m: np.ndarray
    pelvis_quat_wxyz: np.ndarray
    sole_position_m: dict[str, np.ndarray]
    sole_quat_wxyz: dict[str, np.ndarray]
    in_stance: dict[str, np.ndarray]
    upper_joint_names: tuple[str, ...] = ()
    upper_joints_rad: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))

    def __post_init__(self):
        n = np.asarray(self.times_s).size
        if n == 0:
            raise ValueError("times_s: a reference needs at least one time")
        set_ = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731 — frozen dataclass
        set_("stamp_s", float(self.stamp_s))
        set_("times_s", _frozen(self.times_s, "times_s", (n,)))
        set_("body", _frozen(self.body, "body", (n, 3)))
        set_("pelvis_height_m", _frozen(self.pelvis_height_m, "pelvis_height_m", (n,)))
        set_("pelvis_quat_wxyz", _frozen(self.pelvis_quat_wxyz, "pelvis_quat_wxyz", (n, 4)))
        for name, shape, dtype in (("sole_position_m", (n, 3), float), ("sole_quat_wxyz", (n, 4), float),
                                   ("in_stance", (n,), bool)):
            per_side = getattr(self, name)
            if set(per_side) != set(SIDES):
                raise ValueError(f"{name} must have exactly the sides {SIDES}, got {sorted(per_side)}")
            set_(name, {side: _frozen(per_side[side], f"{name}[{side}]", shape, dtype) for side in SIDES})
        names = tuple(self.upper_joint_names)
        if len(set(names)) != len(names):
            raise ValueError("upper_joint_names: duplicates")
        set_("upper_joint_names", names)
        upper = np.asarray(self.upper_joints_rad, dtype=float)
        set_("upper_joints_rad", _frozen(upper.reshape(n, len(names)) if upper.size == 0 else upper,
                                         "upper_joints_rad", (n, len(names))))

    def __len__(self) -> int:
        return self.times_s.size

    def retimed(self, stamp_s: float) -> "GaitReference":
        """The same reference with its times relative to ``stamp_s`` instead (the rows keep their
        absolute times: times_s − (stamp_s − self.stamp_s))."""
        return replace(self, stamp_s=stamp_s, times_s=self.times_s - (stamp_s - self.stamp_s))

    def finite(self) -> bool:
        """Whether every number in it is finite."""
        arrays = (self.times_s, self.body, self.pelvis_height_m, self.pelvis_quat_wxyz, self.upper_joints_rad,
                  *self.sole_position_m.values(), *self.sole_quat_wxyz.values())
        return math.isfinite(self.stamp_s) and all_finite(*arrays)
