"""ROS 2 shell of the TF publisher (``tf_publisher``): ``/joint_states``, ``/odom`` (the state
estimator's) and ``/ground_truth/odom`` (the simulator's, when there is one) in; ``/tf`` and
``/tf_static`` (tf2_msgs/TFMessage) out — the frame tree of :mod:`biped_common.tf_frames`.

- ``/tf_static`` once at start, latched: ``world → odom`` and every site and welded body;
- on each joint state, stamped with it: every joint-moved edge, and ``odom → com`` (the CoM from
  those joints and the latest base estimate, once one has come);
- on each ``/odom``, stamped with it: ``odom → pelvis``; on each ground truth: ``world →
  pelvis_ground_truth``.

A malformed message (unknown joint, NaN, a pose off the unit quaternion) is refused and logged;
nothing is published for it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from nav_msgs.msg import Odometry
from sensor_msgs.msg import JointState
from tf2_msgs.msg import TFMessage

from biped_common import conversions as conv
from biped_common.robot_model import load_robot
from biped_common.ros_node_tools import LATCHED_QOS, SENSOR_QOS, GuardedNode, declare_config, run_node
from biped_common.tf_frames import FrameTree


@dataclass(frozen=True)
class TfPublisherConfig:
    """TF publisher parameters."""

    robot: str = "humanoid"
    odom_topic: str = "/odom"
    ground_truth_topic: str = "/ground_truth/odom"  # empty: no ground-truth frame


class TfPublisherNode(GuardedNode):
    def __init__(self):
        super().__init__("tf_publisher")
        self.config = declare_config(self, TfPublisherConfig)
        self.robot = load_robot(self.config.robot)
        self.tree = FrameTree(self.robot)
        self._base: tuple[np.ndarray, np.ndarray] | None = None  # latest estimated (position, quat wxyz)
        self._tf = self.create_publisher(TFMessage, "/tf", 100)
        self._tf_static = self.create_publisher(TFMessage, "/tf_static", LATCHED_QOS)
        self._tf_static.publish(conv.tf_message(0.0, self.tree.static_transforms()))
        base = self.tree.base_frame
        self.subscribe(JointState, "/joint_states", self._on_joints, SENSOR_QOS, check=conv.joint_state_check(self.robot),
                       max_age_s=None)
        self.subscribe(Odometry, self.config.odom_topic, self._on_odom, SENSOR_QOS,
                       check=lambda m: conv.check_odometry(m, base), max_age_s=None)
        if self.config.ground_truth_topic:
            self.subscribe(Odometry, self.config.ground_truth_topic, self._on_ground_truth, SENSOR_QOS,
                           check=lambda m: conv.check_odometry(m, base), max_age_s=None)
        self.get_logger().info(f"{self.robot.name}: {len(self.tree.frame_names)} frames on /tf and /tf_static")

    def _on_joints(self, msg: JointState) -> None:
        joints = self.robot.joint_vector(tuple(msg.name), np.asarray(msg.position, dtype=float))
        transforms = self.tree.joint_transforms(joints)
        if self._base is not None:
            q = self.robot.pinocchio_configuration(*self._base, joints)
            transforms.append(self.tree.com_transform(self.robot.com_state(q, np.zeros(self.robot.pin_model.nv))[0]))
        self._tf.publish(conv.tf_message(conv.stamp_to_seconds(msg.header.stamp), transforms))

    def _on_odom(self, msg: Odometry) -> None:
        state = conv.base_state_from_odometry(msg)
        self._base = (state.position_m, state.orientation_wxyz)
        self._tf.publish(conv.tf_message(state.stamp_s, [self.tree.base_transform(*self._base)]))

    def _on_ground_truth(self, msg: Odometry) -> None:
        state = conv.base_state_from_odometry(msg)
        self._tf.publish(conv.tf_message(state.stamp_s, [
            self.tree.base_transform(state.position_m, state.orientation_wxyz, ground_truth=True)]))


def main() -> int:
    """Entry point ``tf_publisher``."""
    return run_node(TfPublisherNode)
