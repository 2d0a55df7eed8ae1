"""In-process walking stack: gait planner → CoM MPC → walking WBC, wired without ROS.

The same cores the nodes wrap (:class:`GaitPlanner`, :class:`mpc_node.planning.ComPlanner`,
:class:`wbc_node.walking.WalkingWbc`), at the same rates: planner and MPC every
``planner_period_s`` (125 Hz), WBC at every control tick (500 Hz). The base state comes from a
``state_source`` callable (the simulator's ground truth for now). Messages from the cores go to
``log`` with the sim time, each distinct one at most once per second of sim time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from biped_common.repeat_filter import RepeatFilter
from biped_common.robot_model import RobotModel
from biped_common.state import BaseState, JointCommand, SensorFrame
from gait_planner_node.anchor import FollowWatch, SolePose, planner_standing_on
from gait_planner_node.planner import GaitPlanner, PlannerConfig, Pose2, reference_arrays
from gait_planner_node.style import Style
from mpc_node.planning import ComPlanner
from wbc_node.walking import WalkingWbc

FOLLOW_CHECK_EVERY_REPLANS = 5  # 25 Hz at 125 Hz, as the planner node's follow_check_hz


@dataclass
class WalkingLog:
    """Per-tick numbers for metrics and plots (appended by :class:`WalkingController`)."""

    wbc_solve_s: list = field(default_factory=list)   # the QP tick: dynamics, tasks, solve, torques
    mpc_solve_s: list = field(default_factory=list)   # OSQP's solve
    wbc_tick_s: list = field(default_factory=list)    # the whole WBC tick (reference sampling included)
    mpc_tick_s: list = field(default_factory=list)    # the whole MPC tick (CoM, support polygons, solve)
    com: list = field(default_factory=list)          # (t, x, y, z)
    com_plan: list = field(default_factory=list)     # (t, x, y)
    cop_plan: list = field(default_factory=list)     # (t, x, y)
    torques: list = field(default_factory=list)      # (t, τ...)
    fallbacks: list = field(default_factory=list)    # (t, reason)
    stance: list = field(default_factory=list)       # (t, left, right)


class WalkingController:
    """Answers each sensor frame with a joint command that walks the planner's reference."""

    def __init__(self, robot: RobotModel, style: Style, state_source: Callable[[SensorFrame], BaseState | None],
                 control_period_s: float = 0.002, planner_period_s: float = 0.008,
                 log: Callable[[str], None] = print, start: Pose2 = Pose2(0.0, 0.0, 0.0)):
        self.robot = robot
        self.state_source = state_source
        self.planner_period_s = planner_period_s
        self._now_s = 0.0
        self._log = RepeatFilter(lambda m: log(f"[{self._now_s:8.3f} s] {m}"), 1.0, clock=lambda: self._now_s)
        self.planner = GaitPlanner(style, PlannerConfig.for_robot(robot), start)
        self.com_planner = ComPlanner(robot, log=self._log)
        self.wbc = WalkingWbc(robot, control_period_s=control_period_s, log=self._log)
        self._planner_time_s: float | None = None
        self._follow_watch = FollowWatch()  # as the planner node: re-plan when the robot stopped following
        self._replans = 0
        self.log = WalkingLog()

    def reach(self, trajectory) -> None:
        """Drive one arm along a :class:`biped_common.joint_trajectory.TimedJointTrajectory` (its
        joints replace the style's upper-body curves for that arm, at sim time)."""
        self.wbc.set_arm_trajectory(trajectory)

    def set_command(self, velocity) -> None:
        """Body-frame velocity command (ẋ, ẏ, ω) [m/s, m/s, rad/s]."""
        self.planner.set_command(velocity)

    def _replan(self, now_s: float, q: np.ndarray, v: np.ndarray) -> None:
        if self._planner_time_s is not None:
            self.planner.step(now_s - self._planner_time_s)
        self._planner_time_s = now_s
        reference = self.planner.reference()
        self._replans += 1
        if self._replans % FOLLOW_CHECK_EVERY_REPLANS == 0:
            soles = {side: SolePose(*pose) for side, pose in self.robot.sole_poses(q).items()}
            if (reason := self._follow_watch.left_the_plan(reference, soles)) is not None:
                self._log(f"planner: {reason}: planning again from where it stands")
                self.planner = planner_standing_on(soles, self.planner.style, self.planner.config, self.planner.command)
                reference = self.planner.reference()
        arrays = reference_arrays(reference)
        started = time.perf_counter()
        plan = self.com_planner.update(now_s, arrays, q, v)
        self.log.mpc_tick_s.append(time.perf_counter() - started)
        if self.com_planner.last_result is not None and self.com_planner.last_result.plan is plan:
            self.log.mpc_solve_s.append(self.com_planner.last_result.solve_time_s)
        self.wbc.set_reference(arrays, now_s, self.planner.config.upper_joint_names)
        if plan is not None:
            self.wbc.set_plan(plan)

    def __call__(self, frame: SensorFrame) -> JointCommand:
        now = self._now_s = frame.stamp_s
        base = self.state_source(frame)
        if base is None:
            self._log("no base state yet: stand controller")
            return self.wbc.stand.command(frame)
        q, v = self.robot.state_from(base, frame.joint_names, frame.position_rad, frame.velocity_rad_s)
        if self._planner_time_s is None or now - self._planner_time_s >= self.planner_period_s - 1e-9:
            self._replan(now, q, v)
        started = time.perf_counter()
        command = self.wbc.command(frame, q, v)
        self.log.wbc_tick_s.append(time.perf_counter() - started)
        self._record(now)
        return command

    def _record(self, now: float) -> None:
        out, ref, log = self.wbc.last_output, self.wbc.last_reference, self.log
        if out is None or not out.ok:
            log.fallbacks.append((now, out.status if out is not None else self.wbc.fallback_reason))
        if out is None:
            return
        log.wbc_solve_s.append(out.solve_time_s)
        log.com.append((now, *self.wbc.wbc.data.com[0]))
        plan = self.wbc.plan
        log.com_plan.append((now, *plan.at(now)[0]))
        log.cop_plan.append((now, *plan.cop_at(now)))
        log.stance.append((now, ref.feet["left"].in_stance, ref.feet["right"].in_stance))
        if out.ok:
            log.torques.append((now, *out.torque_nm))
