"""The walking whole-body controller as one tick (ROS-free): the latest gait reference and CoM
plan plus the measured state in, a joint command out, at every control period.

Samples the reference at the frame's time (with its rates and accelerations), builds the WBC
reference (:mod:`wbc_node.reference`), solves the QP (:mod:`wbc_node.wbc`), and integrates the
accelerations into position/velocity setpoints. When they go stale (older than
:data:`MAX_REFERENCE_AGE_S` / :data:`MAX_PLAN_AGE_S` of sim time: a previous plan bridges a few
failed MPC solves, not more) it stops in the next double support and balances there
(:mod:`wbc_node.hold`) until fresh inputs stand where the robot stands. Until a reference and a
plan exist, and whenever the QP fails or its inputs are not finite, it answers with the stand
controller — logged.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import numpy as np

from biped_common.com_plan import ComPlan
from biped_common.gait_reference import GaitReference
from biped_common.rates import CONTROL_RATE_HZ
from biped_common.robot_model import RobotModel
from biped_common.state import JointCommand, SensorFrame
from biped_common.joint_trajectory import TimedJointTrajectory
from wbc_node.hold import StanceHold
from wbc_node.leg_posture import LegPosture
from wbc_node.reference import ReferenceTable, wbc_reference
from wbc_node.stand import StandController
from wbc_node.recovery import RecoveryLevel, ScheduledGains, blend_gains
from wbc_node.wbc import WbcGains, WbcOutput, WbcReference, WholeBodyController, tasks_from_gains

MAX_CONTROL_PERIOD_S = 0.02  # a longer gap between frames is a gap, not the rate
MAX_REFERENCE_AGE_S = 0.25   # a gait reference older than this is stale (the planner stopped)
MAX_PLAN_AGE_S = 0.5         # a CoM plan older than this is stale (the MPC stopped or keeps failing)
STAND_START_MAX_SPEED_M_S = 0.05  # faster than this, a WBC without inputs does not answer (see command)


class WalkingWbc:
    """Tracks the gait reference and CoM plan it was last given."""

    def __init__(self, robot: RobotModel, gains: WbcGains | ScheduledGains | None = None,
                 control_period_s: float = 1.0 / CONTROL_RATE_HZ, log: Callable[[str], None] = print):
        scheduled = ScheduledGains.of(gains)
        self.robot = robot
        self.wbc = WholeBodyController(robot, scheduled.style)
        self.stand = StandController(robot)
        self.leg_posture = LegPosture(robot, self.wbc.gains.leg_posture_from_tasks)
        # Gains scheduled by push (wbc_node.recovery): the tasks and legs' posture blend per level.
        self.scheduled = scheduled
        self.recovery = RecoveryLevel(scheduled.schedule) if scheduled.schedule is not None else None
        self.recovery_level = 0.0
        self._by_level = {0.0: (self.wbc.tasks, self.wbc.gains.leg_posture_from_tasks)}
        self.control_period_s = control_period_s  # until frames show the period they come at
        self._last_frame_s: float | None = None
        self._log = log
        self._arrays: ReferenceTable | None = None
        self._arrays_stamp_s = 0.0
        self._upper_index = np.zeros(0, dtype=int)
        self.plan: ComPlan | None = None
        self.last_reference: WbcReference | None = None
        self.last_output: WbcOutput | None = None
        self._zero = np.zeros(robot.n_joints)
        self.fallback_reason = ""  # why the last command came from the stand controller ("" when walking)
        self.hold: StanceHold | None = None  # stopping in place while the inputs are stale
        self.arm_trajectories: dict[tuple[str, ...], TimedJointTrajectory] = {}  # by joint names

    def set_arm_trajectory(self, trajectory: TimedJointTrajectory) -> None:
        """Joints (an arm's, from a reach) to follow instead of the gait's upper-body curves, from
        the next gait reference on; the latest trajectory for the same joints replaces the older.
        Joints that are not the robot's → ValueError naming them."""
        unknown = [n for n in trajectory.joint_names if n not in self.robot.joint_index]
        if unknown:
            raise ValueError(f"not joints of {self.robot.name}: {', '.join(unknown)}")
        self.arm_trajectories[tuple(trajectory.joint_names)] = trajectory

    def set_reference(self, reference: GaitReference) -> None:
        """A new gait reference. A non-finite one is refused (logged) and the previous one is
        kept; upper-body joints that are not the robot's raise ValueError."""
        if not reference.finite():
            self._log("WBC: non-finite gait reference: continuing the previous reference")
            return
        unknown = [n for n in reference.upper_joint_names if n not in self.robot.joint_index]
        if unknown:
            raise ValueError(f"gait reference: not joints of {self.robot.name}: {', '.join(unknown)}")
        upper_index = np.array([self.robot.joint_index[n] for n in reference.upper_joint_names], dtype=int)
        if self.arm_trajectories:
            reference = self._with_arm_trajectories(reference)
        self._upper_index = upper_index
        self._arrays, self._arrays_stamp_s = ReferenceTable(reference), reference.stamp_s

    def _with_arm_trajectories(self, reference: GaitReference) -> GaitReference:
        """The reference with the arm trajectories' joints over its times (the upper-body columns
        they name; joints that are not upper-body columns are ignored)."""
        upper = np.array(reference.upper_joints_rad, dtype=float)
        names = reference.upper_joint_names
        times = reference.stamp_s + reference.times_s
        for trajectory in self.arm_trajectories.values():
            targets = trajectory.at(times)
            for j, name in enumerate(trajectory.joint_names):
                if name in names:
                    upper[:, names.index(name)] = targets[:, j]
        return replace(reference, upper_joints_rad=upper)

    def set_plan(self, plan: ComPlan) -> None:
        self.plan = plan

    def _schedule(self, level: float) -> None:
        """The WBC's tasks and the legs' posture blend for recovery level ``level`` (logged when
        it leaves or returns to 0)."""
        if level not in self._by_level:
            gains = blend_gains(self.scheduled.style, self.scheduled.recovery, level)
            self._by_level[level] = (tasks_from_gains(gains, self.robot.joint_names), gains.leg_posture_from_tasks)
        if (level > 0.0) != (self.recovery_level > 0.0):
            self._log("WBC: push estimate: recovery gains" if level > 0.0 else "WBC: recovered: style gains")
        self.recovery_level = level
        self.wbc.tasks, self.leg_posture.blend = self._by_level[level]

    def _measure_period(self, now_s: float) -> None:
        """The period the setpoints are integrated over: the time since the previous frame, when
        that looks like a control period (not a gap or a restart) — the node does not know the
        rate the robot sends frames at."""
        if self._last_frame_s is not None and 0.0 < now_s - self._last_frame_s <= MAX_CONTROL_PERIOD_S:
            self.control_period_s = now_s - self._last_frame_s
        self._last_frame_s = now_s

    @property
    def ready(self) -> bool:
        return self._arrays is not None and self.plan is not None

    @property
    def inputs_time_s(self) -> float | None:
        """The instant [s] the older of the gait reference and the CoM plan was made for (None
        until both exist): how far the planning side has got."""
        if not self.ready:
            return None
        return min(self._arrays_stamp_s, self.plan.start_s)

    def command(self, frame: SensorFrame, q: np.ndarray, v: np.ndarray) -> JointCommand | None:
        """The command answering ``frame`` for Pinocchio state (q, v); None (no answer: the
        bridge's watchdog damps) while there are no inputs yet and the robot is moving."""
        now = frame.stamp_s
        self._measure_period(now)
        self.last_output = None
        if not self.ready:
            self.fallback_reason = "no gait reference or CoM plan yet"
            inputs = (f"reference {'in' if self._arrays is not None else 'missing'}, "
                      f"plan {'in' if self.plan is not None else 'missing'}")
            speed = float(np.hypot(v[0], v[1]))  # base axes; its norm is the world's horizontal speed near upright
            if speed > STAND_START_MAX_SPEED_M_S:
                # A WBC that (re)starts under a walking robot: the joint-space stand controller
                # would pull its feet together mid-stride. No answer: the bridge damps (and in
                # lockstep holds) until the reference and plan arrive and walking resumes.
                self._log(f"WBC: {self.fallback_reason} ({inputs}) and the robot moves at {speed:.2f} m/s: "
                          f"not answering until they arrive")
                return None
            self._log(f"WBC: {self.fallback_reason} ({inputs}): stand controller")
            return self.stand.command(frame)
        offset = now - self._arrays_stamp_s
        fresh = offset <= MAX_REFERENCE_AGE_S and now - self.plan.start_s <= MAX_PLAN_AGE_S
        if self.hold is not None and fresh and self.hold.released_by(self._arrays.sample(np.array([offset]))):
            self._log("WBC: fresh gait reference and CoM plan from where the robot stands: walking on")
            self.hold = None
        if self.hold is None and not fresh:
            self.hold = StanceHold.start(self._arrays, self._arrays_stamp_s, now, self.plan)
            if self.hold is None:
                self.fallback_reason = "stale gait reference or CoM plan, no double support left in it"
                self._log(f"WBC: {self.fallback_reason}: stand controller engaged")
                return self.stand.command(frame)
            self._log(f"WBC: stale gait reference or CoM plan: stopping in the double support at "
                      f"t = {self.hold.hold_at_s:.3f} s")
        if self.hold is not None:
            reference = self.hold.reference(now, self.robot.standing_posture_rad, self._upper_index)
        else:
            reference = wbc_reference(self._arrays.motion(offset), self.plan.at(now),
                                      self.robot.standing_posture_rad, self._upper_index)
        if self.recovery is not None:
            self._schedule(self.recovery.update(self.control_period_s, self.plan.disturbance_m_s2))
        reference = self.leg_posture.apply(reference, q, v)
        self.last_reference = reference
        out = self.wbc.solve(q, v, reference)
        self.last_output = out
        if not out.ok:
            self.fallback_reason = out.status
            self._log(f"WBC: {out.status}: stand controller engaged")
            return self.stand.command(frame)
        if out.status != "ok":
            self._log(f"WBC: {out.status}")
        self.fallback_reason = ""
        dt = self.control_period_s
        acceleration = out.acceleration[6:]
        q_joints, v_joints = q[7:], v[6:]
        # Torque is the command; the integrated setpoints serve drivers that close their own loop
        # (gains zero here: MuJoCo applies the torque exactly).
        return JointCommand(stamp_s=now, joint_names=self.robot.joint_names,
                            position_rad=q_joints + v_joints * dt + 0.5 * acceleration * dt * dt,
                            velocity_rad_s=v_joints + acceleration * dt, effort_nm=out.torque_nm,
                            kp=self._zero, kd=self._zero)
