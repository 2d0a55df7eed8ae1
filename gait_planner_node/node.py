"""ROS 2 shell of the gait planner: ``/cmd_vel`` in; the reference preview, contact schedule,
upper-body trajectory and rviz markers out at ``rate_hz``; style hot-reload.

The ``style`` parameter names a shipped style or a style file. Changing it (``ros2 param set``)
or calling ``~/reload_style`` (std_srvs/Trigger, re-reads the file) loads and validates the style;
an invalid one is refused with every error logged and returned, and the running style is kept.
No ``/cmd_vel`` for ``cmd_vel_timeout_s`` brings the commanded velocity to zero (the filter in
the planner makes that a smooth stop).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from geometry_msgs.msg import Point, Twist
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory, MultiDOFJointTrajectory
from visualization_msgs.msg import Marker, MarkerArray

from biped_common import conversions as conv
from biped_common.robot_model import load_robot
from biped_common.ros_node_tools import RepeatFilter, declare_config, run_node
from gait_planner_node.planner import GaitPlanner, PlannerConfig
from gait_planner_node.reachability import LegGeometry, ankle_reach_margin_m
from gait_planner_node.style import StyleError, load_style


MARKER_EVERY_TICKS = 12  # rviz needs no more than ~10 Hz


@dataclass(frozen=True)
class GaitNodeConfig:
    """Gait planner node parameters."""

    robot: str = "humanoid"
    style: str = "neutral"           # shipped style name or path of a style file
    rate_hz: float = 125.0
    cmd_vel_timeout_s: float = 0.5
    preview_horizon_s: float = 2.0
    preview_dt_s: float = 0.04
    publish_markers: bool = True


class GaitPlannerNode(Node):
    def __init__(self):
        super().__init__("gait_planner")
        self.config = declare_config(self, GaitNodeConfig)
        robot = load_robot(self.config.robot)
        planner_config = PlannerConfig.for_robot(robot, preview_horizon_s=self.config.preview_horizon_s,
                                                 preview_dt_s=self.config.preview_dt_s)
        self.planner = GaitPlanner(load_style(self.config.style), planner_config)
        self._legs = LegGeometry.from_robot(robot)
        self._log_error = RepeatFilter(self.get_logger().error)
        self._last_cmd_s: float | None = None
        self._last_tick_s: float | None = None
        self._timed_out = True
        self._ticks = 0
        self._pub_reference = self.create_publisher(MultiDOFJointTrajectory, "gait/reference", 10)
        self._pub_contacts = self.create_publisher(JointTrajectory, "gait/contacts", 10)
        self._pub_upper = self.create_publisher(JointTrajectory, "gait/upper_body", 10)
        self._pub_markers = self.create_publisher(MarkerArray, "gait/markers", 10)
        self.create_subscription(Twist, "cmd_vel", self._on_cmd_vel, 10)
        self.create_service(Trigger, "~/reload_style", self._on_reload)
        self.add_on_set_parameters_callback(self._on_parameters)
        self.create_timer(1.0 / self.config.rate_hz, self._tick)
        self.get_logger().info(f"{self.planner.style.summary()} for {robot.name}, {self.config.rate_hz:.0f} Hz")

    def _now_s(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    # -- inputs -------------------------------------------------------------------------------
    def _on_cmd_vel(self, msg: Twist) -> None:
        try:
            self.planner.set_command(conv.velocity_command_from_twist(msg))
        except ValueError as exc:
            self._log_error(f"rejected cmd_vel (keeping the previous command): {exc}")
            return
        self._last_cmd_s = self._now_s()
        if self._timed_out:
            self._timed_out = False
            self.get_logger().info("cmd_vel received")

    def _load(self, name_or_path: str) -> tuple[bool, str]:
        try:
            style = load_style(name_or_path)
        except StyleError as exc:
            self.get_logger().error(f"style not loaded, keeping {self.planner.style.name!r}: {exc}")
            return False, str(exc)
        self.planner.set_style(style)
        self.get_logger().info(f"style loaded: {style.summary()}")
        return True, style.summary()

    def _on_reload(self, request, response):
        response.success, response.message = self._load(self.get_parameter("style").value)
        return response

    def _on_parameters(self, parameters) -> SetParametersResult:
        for parameter in parameters:
            if parameter.name == "style":
                ok, message = self._load(parameter.value)
                return SetParametersResult(successful=ok, reason=message)
        return SetParametersResult(successful=True)

    # -- tick ---------------------------------------------------------------------------------
    def _tick(self) -> None:
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
        self.planner.step(min(dt, 0.1))
        reference = self.planner.reference()
        self._report_unreachable(reference)
        for publisher, msg in zip((self._pub_reference, self._pub_contacts, self._pub_upper),
                                  conv.gait_reference_messages(now, reference)):
            publisher.publish(msg)
        self._ticks += 1
        if self.config.publish_markers and self._ticks % MARKER_EVERY_TICKS == 0:
            self._pub_markers.publish(self._markers(reference))

    def _report_unreachable(self, reference) -> None:
        """Log (never silently publish) a reference whose feet the legs cannot reach."""
        for side, margin in ankle_reach_margin_m(reference, self._legs).items():
            if margin.min() < 0.0:
                i = int(np.argmin(margin))
                self._log_error(f"unreachable reference: {side} ankle {-margin[i] * 100:.0f} cm beyond the "
                                f"leg's reach at t + {reference.times_s[i]:.2f} s (command "
                                f"{np.round(self.planner.command, 2).tolist()}, style {self.planner.style.name!r})")

    def _markers(self, reference) -> MarkerArray:
        """Footprints of the planned touch-downs (cubes) and the swing paths (line strips)."""
        g = self.planner.config.foot
        markers = []
        for i, foothold in enumerate(reference.footholds):
            m = Marker(ns="footholds", id=i, type=Marker.CUBE, action=Marker.ADD)
            m.header.frame_id = conv.WORLD_FRAME
            m.pose.position.x, m.pose.position.y, m.pose.position.z = foothold.pose.x, foothold.pose.y, 0.002
            m.pose.orientation.w, m.pose.orientation.z = np.cos(foothold.pose.yaw / 2), np.sin(foothold.pose.yaw / 2)
            m.scale.x, m.scale.y, m.scale.z = g.toe_x_m - g.heel_x_m, 2 * g.half_width_m, 0.004
            m.color.a, m.color.r, m.color.b = 0.6, float(foothold.side == "right"), float(foothold.side == "left")
            markers.append(m)
        for j, side in enumerate(("left", "right")):
            m = Marker(ns="sole_paths", id=j, type=Marker.LINE_STRIP, action=Marker.ADD)
            m.header.frame_id = conv.WORLD_FRAME
            m.scale.x = 0.005
            m.color.a, m.color.r, m.color.b = 1.0, float(side == "right"), float(side == "left")
            m.points = [Point(x=float(p[0]), y=float(p[1]), z=float(p[2])) for p in reference.foot_position_m[side]]
            markers.append(m)
        return MarkerArray(markers=markers)


def main() -> int:
    """Entry point ``gait_planner_node``."""
    return run_node(GaitPlannerNode)
