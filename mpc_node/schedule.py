"""The MPC's inputs from the gait reference."""

from __future__ import annotations

import numpy as np

from biped_common.gait_reference import GaitReference
from biped_common.rotations import quats_yaw
from mpc_node.support import SupportSchedule


def support_schedule(reference: GaitReference) -> SupportSchedule:
    """Contacts and sole planar poses (x, y, yaw) over the reference's times."""
    def pose(side):
        return np.column_stack([reference.sole_position_m[side][:, :2], quats_yaw(reference.sole_quat_wxyz[side])])
    return SupportSchedule(reference.times_s, reference.in_stance["left"], reference.in_stance["right"],
                           pose("left"), pose("right"))


def velocity_reference(reference: GaitReference) -> np.ndarray:
    """World-frame horizontal velocity (N, 2) [m/s] of the planner's body path (the pelvis x, y
    the planner integrates from the command), by central differences on its times."""
    return np.gradient(reference.body[:, :2], reference.times_s, axis=0)
