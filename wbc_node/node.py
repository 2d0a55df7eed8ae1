"""ROS 2 shell of the controller: sensor topics in, ``/joint_commands`` out.

Pairs ``/joint_states`` and ``/imu`` by stamp (the bridge publishes both for every frame), runs the
stand controller on each complete frame and publishes the command stamped with that frame's stamp
(the lockstep handshake).
"""

from __future__ import annotations

from dataclasses import dataclass

from rclpy.node import Node
from sensor_msgs.msg import Imu, JointState
from trajectory_msgs.msg import JointTrajectory

from biped_common import conversions as conv
from biped_common.robot_model import load_robot
from biped_common.ros_node_tools import RepeatFilter, declare_config, run_node
from sim_bridge.node import SENSOR_QOS
from wbc_node.stand import StandController


@dataclass(frozen=True)
class WbcNodeConfig:
    """Controller node parameters."""

    robot: str = "humanoid"


class WbcNode(Node):
    def __init__(self):
        super().__init__("wbc")
        self.config = declare_config(self, WbcNodeConfig)
        self.robot = load_robot(self.config.robot)
        self.controller = StandController(self.robot)
        self._joints: dict[int, JointState] = {}
        self._imus: dict[int, Imu] = {}
        self._answered_ns = -1
        self._log_error = RepeatFilter(self.get_logger().error)
        self._pub = self.create_publisher(JointTrajectory, "joint_commands", SENSOR_QOS)
        self.create_subscription(JointState, "joint_states", self._on_joints, SENSOR_QOS)
        self.create_subscription(Imu, "imu", self._on_imu, SENSOR_QOS)
        self.get_logger().info(f"stand controller for {self.robot.name}")

    def _on_joints(self, msg: JointState) -> None:
        _bounded_put(self._joints, conv.stamp_to_ns(msg.header.stamp), msg)
        self._try_answer(conv.stamp_to_ns(msg.header.stamp))

    def _on_imu(self, msg: Imu) -> None:
        _bounded_put(self._imus, conv.stamp_to_ns(msg.header.stamp), msg)
        self._try_answer(conv.stamp_to_ns(msg.header.stamp))

    def _try_answer(self, stamp_ns: int) -> None:
        if stamp_ns <= self._answered_ns or stamp_ns not in self._joints or stamp_ns not in self._imus:
            return
        joints, imu = self._joints.pop(stamp_ns), self._imus.pop(stamp_ns)
        # Frames older than this one will never be answered: forget them.
        for buffer in (self._joints, self._imus):
            for old in [s for s in buffer if s <= stamp_ns]:
                del buffer[old]
        try:
            frame = conv.sensor_frame_from_messages(joints, imu)
        except ValueError as exc:
            self._log_error(f"sensor frame rejected: {exc}")
            return
        self._answered_ns = stamp_ns
        self._pub.publish(conv.joint_command_message(self.controller.command(frame)))


def _bounded_put(buffer: dict, stamp_ns: int, msg, capacity: int = 64) -> None:
    """Store ``msg`` under its stamp, dropping the oldest entries beyond ``capacity``."""
    buffer[stamp_ns] = msg
    while len(buffer) > capacity:
        del buffer[min(buffer)]


def main() -> int:
    """Entry point ``wbc_node``."""
    return run_node(WbcNode)
