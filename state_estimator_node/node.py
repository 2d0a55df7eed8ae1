"""ROS 2 shell of the state estimator: ``/joint_states``, ``/imu`` and the foot wrenches in,
``/odom`` (nav_msgs/Odometry with covariances, stamped with the frame it estimates) out.

Pairs the four messages of a sensor frame by stamp (the bridge, or a robot's broadcasters,
publish them together); a frame that does not advance time, or holds NaN, is refused with a
logged warning (:class:`StateEstimator` never raises on bad input).
"""

from __future__ import annotations

from dataclasses import dataclass

from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
from rclpy.node import Node
from sensor_msgs.msg import Imu, JointState

from biped_common import conversions as conv
from biped_common.robot_model import load_robot
from biped_common.ros_node_tools import RepeatFilter, declare_config, run_node
from biped_common.rotations import quat_to_matrix
from biped_common.stamp_pairing import StampedParts
from sim_bridge.node import SENSOR_QOS
from state_estimator_node.estimator import SIDES, StateEstimator

PARTS = ("joints", "imu", "left", "right")


@dataclass(frozen=True)
class EstimatorNodeConfig:
    """State estimator node parameters."""

    robot: str = "humanoid"


class StateEstimatorNode(Node):
    def __init__(self):
        super().__init__("state_estimator")
        self.config = declare_config(self, EstimatorNodeConfig)
        self.robot = load_robot(self.config.robot)
        self.estimator = StateEstimator(self.robot)
        self._warn = RepeatFilter(self.get_logger().warning)
        self._frames = StampedParts(PARTS)
        self._pub = self.create_publisher(Odometry, "odom", SENSOR_QOS)
        self.create_subscription(JointState, "joint_states", lambda m: self._on("joints", m), SENSOR_QOS)
        self.create_subscription(Imu, "imu", lambda m: self._on("imu", m), SENSOR_QOS)
        for side in SIDES:
            self.create_subscription(WrenchStamped, f"foot/{side}/wrench", lambda m, s=side: self._on(s, m), SENSOR_QOS)
        self.get_logger().info(f"state estimator for {self.robot.name}: IMU attitude EKF + leg odometry")

    def _on(self, part: str, msg) -> None:
        parts = self._frames.add(part, conv.stamp_to_ns(msg.header.stamp), msg)
        if parts is None:
            return
        try:
            frame = conv.sensor_frame_from_messages(parts["joints"], parts["imu"], {s: parts[s] for s in SIDES})
        except ValueError as exc:
            self._warn(f"sensor frame rejected: {exc}")
            return
        estimate = self.estimator.update(frame)
        for warning in self.estimator.status.warnings:
            self._warn(warning)
        if estimate is None:
            return
        rotation = quat_to_matrix(estimate.orientation_wxyz)
        twist = self.estimator.twist_covariance()
        twist[:3, :3] = rotation.T @ twist[:3, :3] @ rotation  # linear velocity: world → base axes
        self._pub.publish(conv.odometry_message(estimate, self.robot.description.base_body,
                                                pose_covariance=self.estimator.pose_covariance(),
                                                twist_covariance=twist))


def main() -> int:
    """Entry point ``state_estimator_node``."""
    return run_node(StateEstimatorNode)
