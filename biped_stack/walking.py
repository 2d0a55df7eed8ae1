"""In-process walking controller: gait planner → CoM MPC → whole-body QP, wired without ROS.

The same cores the nodes wrap, at the same rates: planner and MPC every ``planner_period_s``
(125 Hz), WBC at every control tick (500 Hz). Base state from a ``state_source`` callable (the
simulator's ground truth for now; the estimator later). Falls back to the stand controller when
the WBC fails or its inputs are not finite (logged through ``log``).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from biped_common.robot_model import RobotModel, mujoco_to_pinocchio_q
from biped_common.state import BaseState, JointCommand, SensorFrame
from gait_planner_node.planner import GaitPlanner, PlannerConfig, Pose2, reference_arrays
from gait_planner_node.style import Style
from mpc_node.mpc import ComMpc, MpcConfig
from mpc_node.schedule import support_schedule, velocity_reference
from wbc_node.reference import sample_arrays, wbc_reference
from wbc_node.stand import StandController
from wbc_node.wbc import WholeBodyController

FINITE_DIFFERENCE_S = 0.004


def pinocchio_state(robot: RobotModel, base: BaseState, q_joints: np.ndarray, v_joints: np.ndarray):
    """Pinocchio (q, v) from a base state (linear velocity in world axes → base axes)."""
    from biped_common.rotations import quat_to_matrix
    q = robot.pinocchio_configuration(base.position_m, base.orientation_wxyz, q_joints)
    rotation = quat_to_matrix(base.orientation_wxyz)
    v = np.concatenate([rotation.T @ base.linear_velocity_world_m_s, base.angular_velocity_base_rad_s, v_joints])
    return q, v


@dataclass
class WalkingLog:
    """Per-tick numbers for metrics and plots (appended by :class:`WalkingController`)."""

    wbc_solve_s: list = field(default_factory=list)
    mpc_solve_s: list = field(default_factory=list)
    com: list = field(default_factory=list)          # (t, x, y, z)
    com_plan: list = field(default_factory=list)     # (t, x, y)
    cop_plan: list = field(default_factory=list)     # (t, x, y)
    torques: list = field(default_factory=list)      # (t, τ...)
    fallbacks: list = field(default_factory=list)    # (t, reason)
    stance: list = field(default_factory=list)       # (t, left, right)


class WalkingController:
    """Answers each sensor frame with a joint command that walks the planner's reference."""

    def __init__(self, robot: RobotModel, style: Style, state_source: Callable[[], BaseState],
                 control_period_s: float = 0.002, planner_period_s: float = 0.008,
                 log: Callable[[str], None] = print):
        self.robot = robot
        self.state_source = state_source
        self.control_period_s = control_period_s
        self.planner_period_s = planner_period_s
        self._log_message = log
        start = state_source()
        from biped_common.rotations import quats_yaw
        self.planner = GaitPlanner(style, PlannerConfig.for_robot(robot),
                                   Pose2(float(start.position_m[0]), float(start.position_m[1]),
                                         float(quats_yaw(start.orientation_wxyz))))
        self.wbc = WholeBodyController(robot)
        self.stand = StandController(robot)
        q, v = pinocchio_state(robot, start, robot.standing_posture_rad, np.zeros(robot.n_joints))
        import pinocchio as pin
        com_height = float(pin.centerOfMass(robot.pin_model, robot.pin_model.createData(),
                                          mujoco_to_pinocchio_q(robot.standing_qpos()))[2])
        self.mpc = ComMpc(MpcConfig.default(com_height), self.planner.config.foot)
        upper = self.planner.config.upper_joint_names
        self._upper_index = np.array([robot.joint_index[n] for n in upper], dtype=int)
        self._plan = None
        self._arrays = None
        self._arrays_time_s = 0.0
        self._since_plan_s = 0.0
        self._planner_time_s = None
        self.log = WalkingLog()
        self._recent_failures: deque = deque(maxlen=50)

    def set_command(self, velocity) -> None:
        """Body-frame velocity command (ẋ, ẏ, ω) [m/s, m/s, rad/s]."""
        self.planner.set_command(velocity)

    def _replan(self, now_s: float, q: np.ndarray, v: np.ndarray) -> None:
        """Planner step and MPC solve (125 Hz)."""
        if self._planner_time_s is not None:
            self.planner.step(now_s - self._planner_time_s)
        self._planner_time_s = now_s
        arrays = reference_arrays(self.planner.reference())
        if not all(np.all(np.isfinite(np.asarray(a, dtype=float))) for a in arrays.values()):
            if self._arrays is not None:
                # The previous reference and plan continue in time (sampled further along).
                self._warn(now_s, "non-finite gait reference: continuing the previous reference and plan")
                return
            raise ValueError("the first gait reference is not finite")
        com, vcom = self._com(q, v)
        cop = self._plan.cop_at(now_s) if self._plan is not None else com[:2]
        result = self.mpc.solve(now_s, np.array([com[0], vcom[0], com[1], vcom[1]]), cop,
                                support_schedule(arrays), velocity_reference(arrays))
        self.log.mpc_solve_s.append(result.solve_time_s)
        if not result.ok:
            self._warn(now_s, f"MPC solve failed ({result.status}): continuing the previous plan")
        self._plan = result.plan
        self._arrays = arrays
        self._arrays_time_s = now_s

    def _com(self, q, v):
        import pinocchio as pin
        data = self.wbc.data
        pin.centerOfMass(self.robot.pin_model, data, q, v)
        return data.com[0].copy(), data.vcom[0].copy()

    def __call__(self, frame: SensorFrame) -> JointCommand:
        now = frame.stamp_s
        base = self.state_source()
        q_joints = self.robot.joint_vector(frame.joint_names, frame.position_rad)
        v_joints = self.robot.joint_vector(frame.joint_names, frame.velocity_rad_s)
        q, v = pinocchio_state(self.robot, base, q_joints, v_joints)
        if self._planner_time_s is None or now - self._planner_time_s >= self.planner_period_s - 1e-9:
            self._replan(now, q, v)
        offset = now - self._arrays_time_s
        samples = sample_arrays(self._arrays, offset + FINITE_DIFFERENCE_S * np.arange(3))
        reference = wbc_reference(samples, FINITE_DIFFERENCE_S, self._plan.at(now), self.robot.standing_posture_rad,
                                  self._upper_index)
        out = self.wbc.solve(q, v, reference)
        self.log.wbc_solve_s.append(out.solve_time_s)
        com = self.wbc.data.com[0]
        self.log.com.append((now, *com))
        plan_c, _, _ = self._plan.at(now)
        self.log.com_plan.append((now, *plan_c))
        self.log.cop_plan.append((now, *self._plan.cop_at(now)))
        self.log.stance.append((now, reference.feet["left"].in_stance, reference.feet["right"].in_stance))
        if not out.ok:
            self._warn(now, f"WBC: {out.status}: stand controller engaged")
            return self.stand.command(frame)
        self.log.torques.append((now, *out.torque_nm))
        dt = self.control_period_s
        v_next = v_joints + out.acceleration[6:] * dt
        return JointCommand(stamp_s=now, joint_names=self.robot.joint_names,
                            position_rad=q_joints + v_joints * dt + 0.5 * out.acceleration[6:] * dt * dt,
                            velocity_rad_s=v_next, effort_nm=out.torque_nm,
                            kp=np.zeros(self.robot.n_joints), kd=np.zeros(self.robot.n_joints))

    def _warn(self, now_s: float, message: str) -> None:
        self.log.fallbacks.append((now_s, message))
        # Rate-limited: one line per distinct message per second of sim time.
        key = message.split(":")[0]
        last = self.__dict__.setdefault("_last_warn", {})
        if now_s - last.get(key, -np.inf) >= 1.0:
            last[key] = now_s
            self._log_message(f"[{now_s:8.3f} s] {message}")
