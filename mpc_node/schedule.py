"""The MPC's inputs from the gait reference (arrays as decoded from the planner's messages)."""

from __future__ import annotations

import numpy as np

from biped_common.rotations import quats_yaw
from mpc_node.support import SupportSchedule


def support_schedule(arrays: dict[str, np.ndarray]) -> SupportSchedule:
    """Contacts and sole planar poses (x, y, yaw) over the reference's times."""
    def pose(side):
        return np.column_stack([arrays[f"{side}_sole_position_m"][:, :2], quats_yaw(arrays[f"{side}_sole_quat_wxyz"])])
    return SupportSchedule(np.asarray(arrays["times_s"], dtype=float), np.asarray(arrays["left_in_stance"], bool),
                           np.asarray(arrays["right_in_stance"], bool), pose("left"), pose("right"))


def velocity_reference(arrays: dict[str, np.ndarray]) -> np.ndarray:
    """World-frame horizontal velocity (N, 2) [m/s] of the planner's body path (the pelvis x, y
    the planner integrates from the command), by central differences on its times."""
    body = arrays["body"][:, :2]
    return np.gradient(body, arrays["times_s"], axis=0)
