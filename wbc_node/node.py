"""ROS 2 shell of the controller: sensor topics (and, walking, the gait reference and CoM plan)
in, ``/joint_commands`` out.

Pairs ``/joint_states`` and ``/imu`` — and in ``walk`` mode with ``state_source:=ground_truth``
also ``/ground_truth/odom`` — by stamp (the bridge publishes all of them for every frame), runs
the controller on each complete frame and publishes the command stamped with that frame's stamp
(the lockstep handshake). ``mode``: ``stand`` runs the stand controller; ``walk`` the walking
whole-body controller (:class:`wbc_node.walking.WalkingWbc`), which stands until the first
reference and CoM plan arrive (or, when it starts under a moving robot, does not answer until
then). With the estimator as state source it does not answer a frame whose latest base state is
more than ``MAX_BASE_STATE_AGE_S`` older (the estimator stopped), nor one stamped after
``FRESH_START_S`` before any base state (respawned under a robot that walked): the bridge's
watchdog damps.
Its solve times go to ``/diagnostics`` every second, with the controller it runs (``wbc/controller``:
"walking", or why it fell back to the stand controller).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from rclpy.clock import Clock, ClockType
from diagnostic_msgs.msg import DiagnosticArray
from nav_msgs.msg import Odometry
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory

from biped_common import conversions as conv
from biped_common.ros_cdr_writers import JointCommandWriter
from biped_common.errors import ConfigError
from biped_common.rates import FRESH_START_S
from biped_common.robot_model import load_robot
from biped_common.ros_node_tools import (GuardedNode, PLAN_QOS, RepeatFilter, SENSOR_QOS, declare_config,
                                        declare_section, run_node)
from biped_common.state import BaseState
from wbc_node.stand import StandController
from wbc_node.walking import WalkingWbc
from wbc_node.recovery import ScheduledGains

# Lockstep pacing: the bridge steps when the WBC answers, the planner runs on /clock in another
# process. A frame more than LOCKSTEP_MAX_INPUT_LAG_S of sim time ahead of the gait reference and
# CoM plan is answered once they catch up (the simulation waits for the planning side, as it waits
# for this node), or after LOCKSTEP_MAX_WAIT_S of wall time (below the bridge's 0.25 s lockstep
# timeout; the stale-input hold then applies). Without it a faster control chain ran ahead of a
# CPU-starved planner: 4–14 stale-reference holds per teleop run, and one fall.
LOCKSTEP_MAX_INPUT_LAG_S = 0.06  # three planning periods
LOCKSTEP_MAX_WAIT_S = 0.15
MAX_BASE_STATE_AGE_S = 0.05  # [s] of sim time: 25 control periods (an estimator lagging under load passes)


@dataclass(frozen=True)
class WbcNodeConfig:
    """Controller node parameters."""

    robot: str = "humanoid"
    mode: str = "stand"                  # stand | walk
    state_source: str = "estimator"      # estimator (/odom) | ground_truth (walk mode)
    gains_file: str = ""                 # task weights and gains (empty: config/wbc.yaml); see gains.*, recovery.* too

    def __post_init__(self):
        if self.mode not in ("stand", "walk"):
            raise ConfigError("mode", f"must be stand or walk, got {self.mode!r}")
        conv.check_state_source(self.state_source)


class WbcNode(GuardedNode):
    def _declare_gains(self) -> ScheduledGains:
        """The gains file's gains as parameters ``gains.<field>`` and, when it schedules gains by
        push, its schedule as ``recovery.<field>`` (the recovery gains are the file's it names)."""
        loaded = ScheduledGains.load(self.config.gains_file or None)
        style = declare_section(self, "gains", loaded.style)
        if loaded.schedule is None:
            return ScheduledGains(style)
        return ScheduledGains(style, declare_section(self, "recovery", loaded.schedule), loaded.recovery)

    def __init__(self, frames_from=None):
        """``frames_from``: a :class:`state_estimator_node.node.StateEstimatorNode` in this process
        (composed): the walking WBC on the estimator's state then takes each sensor frame and
        estimate from it directly instead of subscribing to ``/joint_states``, ``/imu`` and
        ``/odom`` (which the estimator still publishes)."""
        super().__init__("wbc")
        self.config = declare_config(self, WbcNodeConfig)
        self.robot = load_robot(self.config.robot)
        self.walking = self.config.mode == "walk"
        self._warn = RepeatFilter(self.get_logger().warning)
        self._log_error = RepeatFilter(self.get_logger().error)
        self.stand = StandController(self.robot)
        gains = self._declare_gains() if self.walking else None
        self.walker = WalkingWbc(self.robot, gains, log=self._warn) if self.walking else None
        # Pair the base state with the frame by stamp for either source (the estimator stamps its
        # /odom with the frame it estimates), so every answer uses the state of its own frame.
        self._pair_truth = self.walking
        self._buffers: dict[str, dict[int, object]] = {"joints": {}, "imu": {}, "odom": {}}
        self._latest_odom: Odometry | None = None
        self._answered_ns = -1
        self._solve_s: list[float] = []
        self._last_report = time.monotonic()
        self._pub = self.create_publisher(JointTrajectory, "joint_commands", SENSOR_QOS)
        self._command_writer = JointCommandWriter(self.robot.joint_names)  # commands go out serialized
        self._pub_timing = self.create_publisher(DiagnosticArray, "diagnostics", 10)
        self._lockstep = bool(self.get_parameter("use_sim_time").value)
        self._pending: tuple | None = None  # (frame, base, wall time) waiting for the planning side
        if self.walking and self._lockstep:
            self.create_timer(0.01, self._answer_pending_if_waited, clock=Clock(clock_type=ClockType.STEADY_TIME))
        direct = frames_from is not None and self.walking and self.config.state_source == "estimator"
        if direct:
            frames_from.add_frame_listener(self._on_estimated_frame)
        else:
            self.subscribe(JointState, "joint_states", lambda m: self._on_sensor("joints", m), SENSOR_QOS,
                           check=conv.joint_state_check(self.robot))
            self.subscribe(Imu, "imu", lambda m: self._on_sensor("imu", m), SENSOR_QOS, check=conv.imu_check(self.robot))
        if self.walking:
            if not direct:
                self.subscribe(Odometry, conv.STATE_TOPICS[self.config.state_source], self._on_odom, SENSOR_QOS,
                               check=conv.odometry_check(self.robot))
            self.subscribe_decoded(Float64MultiArray, "gait/reference",
                                   lambda m: conv.gait_reference_from_message(m, self.robot),
                                   self._on_reference, PLAN_QOS)
            self.subscribe_decoded(Float64MultiArray, "mpc/com_plan", conv.com_plan_from_message,
                                   self._on_plan, PLAN_QOS, stamp_s_of=lambda plan: plan.start_s)
            # A reach trajectory may start in the future and last long: no stamp window. Latched
            # (PLAN_QOS): a WBC that discovery matches to the reach planner after it published
            # (seen in CI: seconds on a loaded machine), or a respawned one, still gets the arms'
            # latest plans, applied in order (the latest per arm wins).
            self.subscribe(JointTrajectory, "reach/arm_trajectory", self._on_arm_trajectory, PLAN_QOS,
                           check=conv.upper_body_check(self.robot), max_age_s=None)
        self.get_logger().info(f"{self.config.mode} controller for {self.robot.name}"
                               + (f", state from {self.config.state_source}" if self.walking else "")
                               + (" (frames and estimates from the estimator in this process)" if direct else ""))

    # -- inputs -------------------------------------------------------------------------------
    def _on_odom(self, msg: Odometry) -> None:
        self._latest_odom = msg
        if self._pair_truth:
            self._on_sensor("odom", msg)

    def _on_reference(self, reference) -> None:
        self.walker.set_reference(reference)
        self._answer_pending_if_caught_up()

    def _on_plan(self, plan) -> None:
        self.walker.set_plan(plan)
        self._answer_pending_if_caught_up()

    def _on_arm_trajectory(self, msg: JointTrajectory) -> None:
        self.walker.set_arm_trajectory(conv.timed_joint_trajectory_from_message(msg))

    def _on_sensor(self, kind: str, msg) -> None:
        stamp = conv.stamp_to_ns(msg.header.stamp)
        _bounded_put(self._buffers[kind], stamp, msg)
        self._try_answer(stamp)

    # -- the answer ---------------------------------------------------------------------------
    def _try_answer(self, stamp_ns: int) -> None:
        needed = ("joints", "imu", "odom") if self._pair_truth else ("joints", "imu")
        # The same frame again is answered again: a simulator re-publishes the frame it waits on
        # (before the first command, or holding), and the first answer may have been lost before
        # discovery matched us to it.
        if stamp_ns < self._answered_ns or any(stamp_ns not in self._buffers[k] for k in needed):
            return
        joints, imu = self._buffers["joints"].pop(stamp_ns), self._buffers["imu"].pop(stamp_ns)
        odom = self._buffers["odom"].pop(stamp_ns) if self._pair_truth else self._latest_odom
        for buffer in self._buffers.values():  # frames older than this one will never be answered
            for old in [s for s in buffer if s <= stamp_ns]:
                del buffer[old]
        try:
            frame = conv.sensor_frame_from_messages(joints, imu)
        except ValueError as exc:
            self._log_error(f"sensor frame rejected: {exc}")
            return
        base = None
        if odom is not None:
            try:
                base = conv.base_state_from_odometry(odom)
            except ValueError as exc:
                self._log_error(f"base state rejected ({exc}): standing")
        self._answered_ns = stamp_ns
        self._answer(frame, base)

    def _on_estimated_frame(self, stamp_ns: int, frame, base: BaseState | None) -> None:
        """A frame and the latest estimate from the estimator in this process (composed)."""
        if stamp_ns < self._answered_ns:
            return
        self._answered_ns = stamp_ns
        self._answer(frame, base)

    def _publish_command(self, command) -> None:
        if command.joint_names == self._command_writer.joint_names:
            self._pub.publish(self._command_writer.write(command))
        else:  # (every command here names the robot's joints in order; any other goes the general way)
            self._pub.publish(conv.joint_command_message(command))

    def _inputs_behind(self, stamp_s: float) -> bool:
        """Lockstep: whether the gait reference and CoM plan lag the frame at ``stamp_s`` by more
        than :data:`LOCKSTEP_MAX_INPUT_LAG_S`."""
        inputs_s = self.walker.inputs_time_s
        return self._lockstep and inputs_s is not None and stamp_s - inputs_s > LOCKSTEP_MAX_INPUT_LAG_S

    def _answer_pending_if_caught_up(self) -> None:
        if self._pending is not None and not self._inputs_behind(self._pending[0].stamp_s):
            frame, base, _ = self._pending
            self._pending = None
            self._answer(frame, base)

    def _answer_pending_if_waited(self) -> None:
        if self._pending is not None and time.monotonic() - self._pending[2] >= LOCKSTEP_MAX_WAIT_S:
            frame, base, _ = self._pending
            self._pending = None
            self._warn(f"lockstep: the gait reference and CoM plan lag the frame by more than "
                       f"{LOCKSTEP_MAX_INPUT_LAG_S * 1e3:.0f} ms after {LOCKSTEP_MAX_WAIT_S:.2f} s of waiting: answering")
            self._answer(frame, base, waited=True)

    def _answer(self, frame, base: BaseState | None, waited: bool = False) -> None:
        if not self.walking:
            self._publish_command(self.stand.command(frame))
            return
        if not waited and self._inputs_behind(frame.stamp_s):
            if self._pending is None or self._pending[0].stamp_s != frame.stamp_s:
                self._pending = (frame, base, time.monotonic())
            else:  # the bridge re-published the frame it waits on: keep the first wait's start
                self._pending = (frame, base, self._pending[2])
            return
        self._pending = None
        started = time.perf_counter()
        command = self._walk(frame, base)
        self._solve_s.append(time.perf_counter() - started)
        if command is None:
            return  # no answer: the bridge's watchdog damps (and in lockstep holds) — logged in _walk
        self._publish_command(command)
        if time.monotonic() - self._last_report >= 1.0:
            self._last_report = time.monotonic()
            report = conv.timing_status_message(frame.stamp_s, "wbc", self._solve_s[-5000:])
            report.status.append(conv.controller_status("wbc", self.walker.fallback_reason))
            self._pub_timing.publish(report)

    def _walk(self, frame, base: BaseState | None):
        if base is None:
            if frame.stamp_s >= FRESH_START_S:
                # A WBC respawned under a robot that may walk, before its estimator has joined: the
                # stand controller would let a lockstep simulation run on while the planner walks
                # away from the robot. No answer: the bridge damps (in lockstep holds) until then.
                self._warn("no base state yet: not answering until the state estimate starts", key="no base state")
                return None
            self._warn("no base state yet: standing")
            return self.stand.command(frame)
        base_age_s = frame.stamp_s - base.stamp_s
        if base_age_s > MAX_BASE_STATE_AGE_S:
            # The estimator stopped (died, respawning): walking on a frozen base state steers the
            # robot blind. No answer: the bridge damps, and in lockstep holds, until it returns.
            self._warn(f"base state {base_age_s * 1e3:.0f} ms older than the sensor frame: not answering "
                       f"until /{conv.STATE_TOPICS[self.config.state_source]} resumes", key="stale base state")
            return None
        try:
            q, v = self.robot.state_from(base, frame.joint_names, frame.position_rad, frame.velocity_rad_s)
        except ValueError as exc:
            self._log_error(f"state rejected ({exc}): standing")
            return self.stand.command(frame)
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(v))):
            self._log_error("non-finite base state: standing")
            return self.stand.command(frame)
        return self.walker.command(frame, q, v)


def _bounded_put(buffer: dict, stamp_ns: int, msg, capacity: int = 64) -> None:
    """Store ``msg`` under its stamp, dropping the oldest entries beyond ``capacity``."""
    buffer[stamp_ns] = msg
    while len(buffer) > capacity:
        del buffer[min(buffer)]


def main() -> int:
    """Entry point ``wbc_node``."""
    return run_node(WbcNode)
