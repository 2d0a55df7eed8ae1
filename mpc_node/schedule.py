"""The MPC's inputs from the gait reference (arrays as decoded from the planner's messages)."""

from __future__ import annotations

import numpy as np

from biped_common.com_plan import GRAVITY_M_S2
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


# A style may bob the pelvis, but the pendulum model (and the feet) need the legs loaded: the
# vertical acceleration the MPC assumes is kept above −(1 − MIN_LOAD_FRACTION)·g.
MIN_LOAD_FRACTION = 0.2


def pendulum_profile(arrays: dict[str, np.ndarray], dt_s: float, steps: int, com_height_m: float,
                     nominal_pelvis_height_m: float) -> tuple[np.ndarray, np.ndarray]:
    """Per MPC step (``steps`` of ``dt_s`` [s] from now) the CoM height [m] at the step's middle
    and the CoM's mean vertical acceleration [m/s²] over the step, from the reference's pelvis
    height: the CoM is taken to move vertically with the pelvis (h = com_height_m + pelvis −
    nominal pelvis height). The mean acceleration over a step is exact for the sampled curve's
    rate: (ż(t_{k+1}) − ż(t_k)) / dt."""
    times = np.asarray(arrays["times_s"], dtype=float)
    pelvis = np.asarray(arrays["pelvis_height_m"], dtype=float)
    rate = np.gradient(pelvis, times) if times.size > 1 else np.zeros_like(pelvis)
    bounds = dt_s * np.arange(steps + 1)
    middles = bounds[:-1] + dt_s / 2
    heights = com_height_m + np.interp(middles, times, pelvis) - nominal_pelvis_height_m
    accels = np.diff(np.interp(bounds, times, rate)) / dt_s
    return heights, np.maximum(accels, -(1.0 - MIN_LOAD_FRACTION) * GRAVITY_M_S2)
