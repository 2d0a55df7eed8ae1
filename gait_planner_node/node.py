"""ROS 2 shell of the gait planner: ``/cmd_vel`` in; the gait reference (``/gait/reference``: the
preview of pelvis, soles, contacts and upper body, one message) and rviz markers out at
``rate_hz``; style hot-reload.

The ``style`` parameter names a shipped style or a style file. Changing it (``ros2 param set``)
or calling ``~/reload_style`` (std_srvs/Trigger, re-reads the file) loads and validates the style;
an invalid one is refused with every error logged and returned, and the running style is kept.
No ``/cmd_vel`` for ``cmd_vel_timeout_s`` brings the commanded velocity to zero (the filter in
the planner makes that a smooth stop). A command beyond the style's range is clamped to it (logged).

The planner starts where the robot stands: its body pose from the first base state
(``state_source``) and its feet from the first joint state, or the origin when none arrives
within ``anchor_timeout_s`` — so a respawned planner joins a robot that has walked somewhere.
While walking it keeps watching the measured soles (:class:`gait_planner_node.anchor.FollowWatch`,
``follow_check_hz``): when the robot stands on both feet away from where the plan has them (the
whole-body controller stopped in place while the MPC was away; a foot slipped), the plan starts
again from where the robot stands.

Gait feedback (:mod:`gait_planner_node.feedback`): every tick the planner is given the robot's CoM
(Pinocchio, from the latest base and joint states) and its measured soles. Its gains are the
parameters ``feedback.<field>``, defaulting to ``feedback_file`` (empty: the shipped
``config/feedback.yaml``); ``feedback.enabled:=false`` plans open loop. The footstep adjustment allows for the sustained push
the MPC estimates (``/mpc/com_plan``'s disturbance, while that plan is fresh). A base state older than
``MAX_OBSERVATION_AGE_S`` (the estimator died) ends the adjustments until a fresh one arrives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import time

from geometry_msgs.msg import Point, Twist
from nav_msgs.msg import Odometry
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger
from std_msgs.msg import Float64MultiArray
from visualization_msgs.msg import MarkerArray

from biped_common import conversions as conv
from biped_common import markers
from biped_common.robot_model import load_robot
from biped_common.errors import ConfigError
from biped_common.rates import FOLLOW_CHECK_HZ, PLANNING_RATE_HZ
from biped_common.gait_reference import GaitReference
from biped_common.ros_node_tools import (GuardedNode, LatestReader, PLAN_QOS, RepeatFilter, declare_config,
                                         declare_section, run_node)
from gait_planner_node.anchor import FollowWatch, SolePose, planner_standing_on, ticks_between_checks
from gait_planner_node.feedback import FeedbackConfig
from gait_planner_node.planner import GaitPlanner, PlannerConfig, Pose2, gait_reference
from gait_planner_node.reachability import LegGeometry, ankle_reach_margin_m
from gait_planner_node.style import StyleError, load_style


MARKER_EVERY_TICKS = 12  # rviz needs no more than ~10 Hz
MAX_OBSERVATION_AGE_S = 0.1  # [s] of sim time: an older base state is stale (the estimator stopped)


@dataclass(frozen=True)
class GaitNodeConfig:
    """Gait planner node parameters."""

    robot: str = "humanoid"
    style: str = "neutral"           # shipped style name or path of a style file
    rate_hz: float = PLANNING_RATE_HZ
    cmd_vel_timeout_s: float = 0.5
    preview_horizon_s: float = 2.0
    preview_dt_s: float = 0.04
    publish_markers: bool = True
    state_source: str = "estimator"  # where the robot is at start: estimator (/odom) | ground_truth
    anchor_timeout_s: float = 15.0   # wall time to wait for it before planning from the origin
                                     # (long: a restart under load may take seconds to discover /odom)
    follow_check_hz: float = FOLLOW_CHECK_HZ  # how often the measured soles are compared with the plan
    feedback_file: str = ""          # gait feedback gains (empty: config/feedback.yaml); see feedback.* too

    def __post_init__(self):
        for name, low, high in (("rate_hz", 1.0, 1000.0), ("cmd_vel_timeout_s", 0.01, 10.0),
                                ("preview_horizon_s", 0.1, 10.0), ("preview_dt_s", 0.005, 1.0),
                                ("anchor_timeout_s", 0.0, 60.0), ("follow_check_hz", 1.0, 125.0)):
            if not low <= getattr(self, name) <= high:
                raise ConfigError(name, f"must be in [{low:g}, {high:g}], got {getattr(self, name)!r}")
        conv.check_state_source(self.state_source)


class GaitPlannerNode(GuardedNode):
    def __init__(self):
        super().__init__("gait_planner")
        # The style is the one parameter applied live: loading it validates the file, and an
        # invalid one is refused with every error while the running style stays.
        self.config = declare_config(self, GaitNodeConfig, live={"style": self._load})
        robot = self.robot = load_robot(self.config.robot)
        feedback = declare_section(self, "feedback", FeedbackConfig.load(self.config.feedback_file or None))
        self._planner_config = PlannerConfig.for_robot(robot, preview_horizon_s=self.config.preview_horizon_s,
                                                       preview_dt_s=self.config.preview_dt_s, feedback=feedback)
        self.style = load_style(self.config.style)
        self._report_limited(self.style)
        # The planner starts where the robot stands (a respawned planner joins a robot that has
        # walked): from the first base state and joint state, or the origin after anchor_timeout_s;
        # it keeps the latest of both to notice a robot that stopped following the plan.
        self.planner: GaitPlanner | None = None
        self._pending_command = np.zeros(3)
        self._base = LatestReader(self, Odometry, conv.STATE_TOPICS[self.config.state_source],
                                  check=conv.odometry_check(robot))
        self._joints = LatestReader(self, JointState, "joint_states", check=conv.joint_state_check(robot))
        # The MPC's push estimate δ, carried by its plan (a table: no header, its own start time).
        self._com_plan = LatestReader(self, Float64MultiArray, "mpc/com_plan", check=conv.check_com_plan,
                                      max_age_s=None)
        self._push_plan = None  # (message, its start [s], its δ): the latest plan, decoded
        self._follow_watch = FollowWatch()
        self._observing = False  # the feedback has a fresh base state
        self._follow_every_ticks = ticks_between_checks(self.config.rate_hz, self.config.follow_check_hz)
        self._started_wall_s = time.monotonic()
        self._legs = LegGeometry.from_robot(robot)
        self._log_error = RepeatFilter(self.get_logger().error)
        self._log_clamp = RepeatFilter(self.get_logger().warning, period_s=2.0)
        self._last_cmd_s: float | None = None
        self._last_tick_s: float | None = None
        self._timed_out = True
        self._ticks = 0
        self._pub_reference = self.create_publisher(Float64MultiArray, "gait/reference", PLAN_QOS)
        self._listeners: list[Callable[[GaitReference], None]] = []
        self._pub_markers = self.create_publisher(MarkerArray, "gait/markers", 10)
        self.subscribe(Twist, "cmd_vel", self._on_cmd_vel, 10, max_age_s=None)  # Twist has no stamp
        self.create_service(Trigger, "~/reload_style", self._on_reload)
        self.create_timer(1.0 / self.config.rate_hz, self._tick)
        self.get_logger().info(f"{self.style.summary()} for {robot.name}, {self.config.rate_hz:.0f} Hz")

    def add_reference_listener(self, listener: Callable[[GaitReference], None]) -> None:
        """Call ``listener(reference)`` with every reference published, for a node composed into
        this process (the MPC), which then needs no subscription to ``/gait/reference``."""
        self._listeners.append(listener)

    def _now_s(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    # -- inputs -------------------------------------------------------------------------------
    def _measured_state(self):
        """Pinocchio (q, v) of the latest base and joint states, or None."""
        base, joints = self._base.latest(), self._joints.latest()
        if base is None or joints is None:
            return None
        return self.robot.state_from(conv.base_state_from_odometry(base), joints.name, joints.position,
                                     joints.velocity)

    def _measured_soles(self) -> dict[str, SolePose] | None:
        """The soles where the latest base and joint states put them (world frame), or None."""
        state = self._measured_state()
        if state is None:
            return None
        return {side: SolePose(*pose) for side, pose in self.robot.sole_poses(state[0]).items()}

    def _observe(self, now_s: float) -> None:
        """Hand the planner's feedback the robot's CoM and soles, when the base state is fresh
        (at most ``MAX_OBSERVATION_AGE_S`` old); a stale or missing one ends the adjustments."""
        if self.planner.feedback is None:
            return
        base = self._base.latest()
        state = self._measured_state()
        if state is None or now_s - conv.stamp_to_seconds(base.header.stamp) > MAX_OBSERVATION_AGE_S:
            if self._observing:
                self.get_logger().warning("base state stale or missing: gait feedback off until it resumes")
            self._observing = False
            self.planner.lose_observations()
            return
        if not self._observing:
            self._observing = True
            self.get_logger().info("base state in: gait feedback on")
        q, v = state
        self.planner.observe_com(*self.robot.com_state(q, v))
        self.planner.observe_soles(self.robot.sole_poses(q))
        self.planner.observe_push(self._latest_push_m_s2(now_s))

    def _latest_push_m_s2(self, now_s: float) -> np.ndarray:
        """δ (2,) [m/s², world] of the latest CoM plan when it is fresh (planned at most
        ``MAX_OBSERVATION_AGE_S`` ago), else zero: a stale estimate must not keep moving steps."""
        msg = self._com_plan.latest()
        if msg is None:
            return np.zeros(2)
        if self._push_plan is None or self._push_plan[0] is not msg:  # decode each plan once, not every tick
            plan = conv.com_plan_from_message(msg)  # checked on arrival
            self._push_plan = (msg, plan.start_s, np.asarray(plan.disturbance_m_s2))
        _, start_s, push_m_s2 = self._push_plan
        if not -MAX_OBSERVATION_AGE_S <= now_s - start_s <= MAX_OBSERVATION_AGE_S:
            return np.zeros(2)
        return push_m_s2

    def _start_planner(self) -> bool:
        """Create the planner where the robot stands, once its state is in (or the wait is over)."""
        soles = self._measured_soles()
        command = self.planner.command if self.planner is not None else self._pending_command
        if soles is not None:
            self.planner = planner_standing_on(soles, self.style, self._planner_config, command)
            start = self.planner.body
            self.get_logger().info(f"planning from where the robot stands: between its feet ({start.x:.3f}, "
                                   f"{start.y:.3f}) m, heading {start.yaw:.3f} rad")
        elif time.monotonic() - self._started_wall_s >= self.config.anchor_timeout_s:
            self.get_logger().warning(f"no base state on /{conv.STATE_TOPICS[self.config.state_source]} within "
                                      f"{self.config.anchor_timeout_s:g} s: planning from the origin")
            self.planner = GaitPlanner(self.style, self._planner_config, Pose2(0.0, 0.0, 0.0))
            self.planner.set_command(command)
        else:
            return False
        self._last_tick_s = None
        return True

    def _on_cmd_vel(self, msg: Twist) -> None:
        requested = conv.velocity_command_from_twist(msg)  # ValueError → refused, logged, command kept
        if self.planner is None:
            self._pending_command = requested
            self._last_cmd_s = self._now_s()
            return
        clamped = self.planner.set_command(requested)
        if np.any(clamped != requested):
            self._log_clamp(f"cmd_vel ({', '.join(f'{x:.3g}' for x in requested)}) is beyond style "
                            f"{self.planner.style.name!r}'s range: walking ({', '.join(f'{x:.3g}' for x in clamped)})",
                            key="clamped")
        self._last_cmd_s = self._now_s()
        if self._timed_out:
            self._timed_out = False
            self.get_logger().info("cmd_vel received")

    def _load(self, name_or_path: str) -> tuple[bool, str]:
        try:
            style = load_style(name_or_path)
        except StyleError as exc:
            self.get_logger().error(f"style not loaded, keeping {self.style.name!r}: {exc}")
            return False, str(exc)
        self.style = style
        if self.planner is not None:
            self.planner.set_style(style)
        self.get_logger().info(f"style loaded: {style.summary()}")
        self._report_limited(style)
        return True, style.summary()

    def _report_limited(self, style) -> None:
        """Log what loading scaled to keep the style within the acceleration limits."""
        for reason in style.limited:
            self.get_logger().warning(f"style {style.name!r} scaled at load: {reason}")

    def _on_reload(self, request, response):
        response.success, response.message = self._load(self.get_parameter("style").value)
        return response

    # -- tick ---------------------------------------------------------------------------------
    def _tick(self) -> None:
        if self.planner is None and not self._start_planner():
            return
        now = self._now_s()
        if self._last_tick_s is None or now <= self._last_tick_s:
            self._last_tick_s = now  # first tick, or the (sim) clock has not moved
            return
        dt, self._last_tick_s = now - self._last_tick_s, now
        if self._last_cmd_s is None or now - self._last_cmd_s > self.config.cmd_vel_timeout_s:
            if not self._timed_out and self._last_cmd_s is not None:
                self.get_logger().warning(f"no cmd_vel for {self.config.cmd_vel_timeout_s} s: stopping")
            self._timed_out = True
            self.planner.set_command(np.zeros(3))
        self._observe(now)
        self.planner.step(min(dt, 0.1))
        reference = self.planner.reference()
        contract = gait_reference(reference, now)
        if not contract.finite():
            # A failed plan: publish nothing; the controllers' stale-reference fallback holds the robot.
            self._log_error(f"non-finite reference (command {self.planner.command.tolist()}): not published")
            return
        if self._ticks % self._follow_every_ticks == 0:
            # At the follow-check rate (25 Hz), not every tick: a 2 s preview changes little in 40 ms.
            self._report_unreachable(reference)
            if (soles := self._measured_soles()) is not None and \
                    (reason := self._follow_watch.left_the_plan(reference, soles)) is not None:
                self.get_logger().warning(f"{reason}: planning again from where it stands")
                self._start_planner()
                return
        self._pub_reference.publish(conv.gait_reference_message(contract))
        for listener in self._listeners:
            listener(contract)
        self._ticks += 1
        if self.config.publish_markers and self._ticks % MARKER_EVERY_TICKS == 0:
            self._pub_markers.publish(markers.gait_markers(reference, self.planner.config.foot))

    def _report_unreachable(self, reference) -> None:
        """Log (never silently publish) a reference whose feet the legs cannot reach."""
        for side, margin in ankle_reach_margin_m(reference, self._legs).items():
            if margin.min() < 0.0:
                i = int(np.argmin(margin))
                self._log_error(f"unreachable reference: {side} ankle {-margin[i] * 100:.0f} cm beyond the "
                                f"leg's reach at t + {reference.times_s[i]:.2f} s (command "
                                f"{np.round(self.planner.command, 2).tolist()}, style {self.planner.style.name!r})")

def main() -> int:
    """Entry point ``gait_planner_node``."""
    return run_node(GaitPlannerNode)
