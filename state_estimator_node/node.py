"""ROS 2 shell of the state estimator: ``/joint_states``, ``/imu`` and the foot wrenches in,
``/odom`` (nav_msgs/Odometry with covariances, stamped with the frame it estimates) out.

Pairs the four messages of a sensor frame by stamp (the bridge, or a robot's broadcasters,
publish them together); a frame that does not advance time, or holds NaN, is refused with a
logged warning (:class:`StateEstimator` never raises on bad input).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
import time

import numpy as np
from std_msgs.msg import Float64MultiArray
from sensor_msgs.msg import Imu, JointState

from biped_common import conversions as conv
from biped_common.cdr_views import JointStateReader, imu_view, wrench_stamped_view
from biped_common.ros_cdr_writers import OdometryWriter
from biped_common.errors import ConfigError
from biped_common.rates import FRESH_START_S
from biped_common.gait_reference import GaitReference
from biped_common.robot_model import load_robot
from biped_common.ros_node_tools import GuardedNode, PLAN_QOS, RepeatFilter, SENSOR_QOS, declare_config, run_node
from biped_common.rotations import quat_to_matrix, quats_yaw
from biped_common.stamp_pairing import StampedParts
from biped_common.state import BaseState, SensorFrame
from state_estimator_node.estimator import SIDES, StateEstimator

PARTS = ("joints", "imu", "left", "right")
PLANNER_GRACE_S = 1.0  # a planner discovered this long ago without a latched reference has none


@dataclass(frozen=True)
class EstimatorNodeConfig:
    """State estimator node parameters."""

    robot: str = "humanoid"
    anchor_timeout_s: float = 10.0  # wall time to wait for a gait reference to start from

    def __post_init__(self):
        if not 0.0 <= self.anchor_timeout_s <= 60.0:
            raise ConfigError("anchor_timeout_s", f"must be in [0, 60] s, got {self.anchor_timeout_s}")


class StateEstimatorNode(GuardedNode):
    def __init__(self):
        super().__init__("state_estimator")
        self.config = declare_config(self, EstimatorNodeConfig)
        self.robot = load_robot(self.config.robot)
        # The estimate starts where the gait planner's body path is (a respawned estimator joins a
        # robot that has walked, and must stay in the frame the planner's footholds are in); at the
        # origin in a simulation that has just started (frames stamped before FRESH_START_S: the
        # planner waits for this estimator's /odom then), or when no reference arrives within
        # anchor_timeout_s.
        self.estimator: StateEstimator | None = None
        self._started_wall_s = time.monotonic()
        self._reference_body = None
        self._planner_seen_wall_s: float | None = None
        self._anchor_subscription = self.subscribe_decoded(
            Float64MultiArray, "gait/reference", lambda m: conv.gait_reference_from_message(m, self.robot),
            self._on_reference, PLAN_QOS)
        self._warn = RepeatFilter(self.get_logger().warning)
        self._frames = StampedParts(PARTS)
        self._last_good = None
        self._last_published: tuple[int, bytes] | None = None  # (frame stamp ns, its /odom serialized)
        self._last_frame: tuple[int, SensorFrame] | None = None
        self._listeners: list[Callable[[int, SensorFrame, BaseState | None], None]] = []
        self._pub = self.create_publisher(Odometry, "odom", SENSOR_QOS)
        self._odometry_writer = OdometryWriter(self.robot.description.base_body, covariances=True)
        # The frame's four messages read from their bytes (cdr_views): rclpy's deserializer cost more
        # than the filter step.
        self.subscribe(JointState, "joint_states", lambda m: self._on("joints", m), SENSOR_QOS,
                       check=conv.joint_state_check(self.robot), read=JointStateReader())
        self.subscribe(Imu, "imu", lambda m: self._on("imu", m), SENSOR_QOS, check=conv.imu_check(self.robot),
                       read=imu_view)
        for side in SIDES:
            self.subscribe(WrenchStamped, f"foot/{side}/wrench", lambda m, s=side: self._on(s, m), SENSOR_QOS,
                           check=conv.wrench_check(self.robot, side), read=wrench_stamped_view)
        self.get_logger().info(f"state estimator for {self.robot.name}: IMU attitude EKF + leg odometry")

    def _on_reference(self, reference: GaitReference) -> None:
        x, y = reference.body[0, :2]  # the pelvis is on the body path
        self._reference_body = (float(x), float(y), reference.pelvis_quat_wxyz[0].copy())

    def _planner_waits_for_us(self) -> bool:
        """A gait planner is there (its reference publisher discovered ``PLANNER_GRACE_S`` ago) and
        has published no reference: it has not started either — it waits for this estimator's
        /odom. Both are starting, so the robot is where the odometry frame begins. (A planner with
        a history latches its reference, which arrives within the grace period.)"""
        if self.count_publishers("gait/reference") == 0:
            self._planner_seen_wall_s = None
            return False
        if self._planner_seen_wall_s is None:
            self._planner_seen_wall_s = time.monotonic()
        return time.monotonic() - self._planner_seen_wall_s >= PLANNER_GRACE_S

    def _start_estimator(self, frame_stamp_s: float) -> bool:
        quat = None
        if frame_stamp_s < FRESH_START_S and self._reference_body is None:
            x, y = 0.0, 0.0  # a simulation that has just started: the robot is at the origin
        elif self._reference_body is None and self._planner_waits_for_us():
            x, y = 0.0, 0.0  # on the wall clock (a robot, real time): both starting
            self.get_logger().info("the gait planner waits for this estimator: starting at the origin")
        elif self._reference_body is not None:
            # A robot that may be walking: its planned pelvis pose, orientation included (the
            # accelerometer mid-stride is not gravity).
            x, y, quat = self._reference_body
            self.get_logger().info(f"estimating from the gait planner's pelvis pose ({x:.3f}, {y:.3f}) m, "
                                   f"yaw {float(quats_yaw(quat)):.3f} rad")
        elif time.monotonic() - self._started_wall_s >= self.config.anchor_timeout_s:
            x, y = 0.0, 0.0
        else:
            return False
        self.estimator = StateEstimator(self.robot, initial_xy_m=(x, y), initial_quat_wxyz=quat)
        self.destroy_subscription(self._anchor_subscription)
        return True

    def add_frame_listener(self, listener: Callable[[int, SensorFrame, BaseState | None], None]) -> None:
        """Call ``listener(stamp_ns, frame, estimate)`` for every complete sensor frame, once it is
        estimated and before its /odom is published (the robot waits for the command, not for
        /odom): ``estimate`` is the latest good one (this frame's, or an older one when this frame
        could not be estimated; None before the first). For a node composed into this process
        (the walking WBC), which then needs no sensor subscriptions of its own: one
        deserialization per message, no second DDS hop, no /odom to decode."""
        self._listeners.append(listener)

    def _on(self, part: str, msg) -> None:
        stamp_ns = conv.stamp_to_ns(msg.header.stamp)
        parts = self._frames.add(part, stamp_ns, msg)
        if parts is None:
            return
        if self._last_published is not None and stamp_ns == self._last_published[0]:
            # The same frame again: a lockstep simulator holding (a controller is restarting)
            # re-publishes it; so does its estimate, for a controller that missed it.
            if self._last_frame is not None and self._last_frame[0] == stamp_ns:
                self._notify(stamp_ns, self._last_frame[1])
            self._pub.publish(self._last_published[1])
            return
        try:
            frame = conv.sensor_frame_from_messages(parts["joints"], parts["imu"], {s: parts[s] for s in SIDES})
        except ValueError as exc:
            self._warn(f"sensor frame rejected: {exc}")
            return
        self._last_frame = (stamp_ns, frame)
        estimate = self._estimate(stamp_ns, frame)
        self._notify(stamp_ns, frame)
        if estimate is not None:
            self._publish(stamp_ns, estimate)

    def _notify(self, stamp_ns: int, frame: SensorFrame) -> None:
        for listener in self._listeners:
            listener(stamp_ns, frame, self._last_good)

    def _estimate(self, stamp_ns: int, frame: SensorFrame) -> BaseState | None:
        """Update the estimate with ``frame``: the new estimate, or None (not started, or failed:
        logged, and the estimator restarted)."""
        if self.estimator is None and not self._start_estimator(stamp_ns * 1e-9):
            return None
        estimate = self.estimator.update(frame)
        for warning in self.estimator.status.warnings:
            self._warn(warning)
        if estimate is None:
            return None
        if not all(np.all(np.isfinite(a)) for a in (estimate.position_m, estimate.orientation_wxyz,
                                                      estimate.linear_velocity_world_m_s,
                                                      estimate.angular_velocity_base_rad_s)):
            # A failed update: publish nothing (the controllers' stale-state fallback holds the
            # robot) and start over from the next frame, where the last good estimate was.
            last = self._last_good
            self.get_logger().error("non-finite state estimate: not published; estimator restarted at the last "
                                    "good estimate")
            self.estimator = StateEstimator(self.robot, initial_yaw_rad=float(quats_yaw(last.orientation_wxyz)) if last else 0.0,
                                            initial_xy_m=tuple(last.position_m[:2]) if last else (0.0, 0.0))
            return None
        self._last_good = estimate
        return estimate

    def _publish(self, stamp_ns: int, estimate: BaseState) -> None:
        """/odom of ``estimate`` with its covariances."""
        rotation = quat_to_matrix(estimate.orientation_wxyz)
        twist = self.estimator.twist_covariance()
        twist[:3, :3] = rotation.T @ twist[:3, :3] @ rotation  # linear velocity: world → base axes
        message = self._odometry_writer.write(estimate, self.estimator.pose_covariance(), twist)  # serialized
        self._pub.publish(message)
        self._last_published = (stamp_ns, message)


def main() -> int:
    """Entry point ``state_estimator_node``."""
    return run_node(StateEstimatorNode)
