"""One MPC tick: the gait reference and the robot's state in, a CoM plan out (ROS-free).

The node (:mod:`mpc_node.node`) and the in-process stack (:mod:`biped_stack.walking`) both run
this at 125 Hz. It computes the CoM from the full configuration (Pinocchio), resamples the
reference's contacts, and keeps the previous plan — logged — when the reference is not finite or
OSQP fails.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pinocchio as pin

from biped_common.com_plan import ComPlan
from biped_common.gait_reference import GaitReference
from biped_common.robot_model import FootGeometry, RobotModel, mujoco_to_pinocchio_q
from mpc_node.mpc import ComMpc, MpcConfig, MpcResult
from mpc_node.schedule import support_schedule, velocity_reference


def standing_com_height_m(robot: RobotModel) -> float:
    """CoM height [m] of the robot standing in its posture (the pendulum height)."""
    return float(pin.centerOfMass(robot.pin_model, robot.pin_model.createData(),
                                  mujoco_to_pinocchio_q(robot.standing_qpos()))[2])


class ComPlanner:
    """The MPC for one robot, with its inputs prepared and its failures handled."""

    def __init__(self, robot: RobotModel, config: MpcConfig | None = None, log: Callable[[str], None] = print):
        self.robot = robot
        self.mpc = ComMpc(config or MpcConfig.default(standing_com_height_m(robot)), FootGeometry.from_robot(robot))
        self._data = robot.pin_model.createData()
        self._log = log
        self.plan: ComPlan | None = None
        self.last_result: MpcResult | None = None

    def com_state(self, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """CoM position and velocity [m, m/s] in the world from Pinocchio (q, v)."""
        pin.centerOfMass(self.robot.pin_model, self._data, q, v)
        return self._data.com[0].copy(), self._data.vcom[0].copy()

    def update(self, now_s: float, reference: GaitReference, q: np.ndarray, v: np.ndarray) -> ComPlan | None:
        """Re-plan at ``now_s`` [s, sim time] — the instant of the state (q, v) — from the gait
        ``reference`` (re-timed to ``now_s`` when it was stamped at another instant, as over DDS).
        Returns the plan to follow (the previous one when this tick could not plan; None before
        any plan exists)."""
        if not reference.finite():
            self._log("MPC: non-finite gait reference: continuing the previous plan")
            return self.plan
        if reference.stamp_s != now_s:
            reference = reference.retimed(now_s)
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(v))):
            self._log("MPC: non-finite state: continuing the previous plan")
            return self.plan
        com, vcom = self.com_state(q, v)
        cop = self.plan.cop_at(now_s) if self.plan is not None else com[:2]
        try:
            result = self.mpc.solve(now_s, np.array([com[0], vcom[0], com[1], vcom[1]]), cop,
                                    support_schedule(reference), velocity_reference(reference), reference.body)
        except ValueError as error:
            self._log(f"MPC: reference rejected ({error}): continuing the previous plan")
            return self.plan
        self.last_result = result
        if not result.ok:
            self._log(f"MPC solve failed ({result.status}): continuing the previous plan")
        self.plan = result.plan
        return self.plan
