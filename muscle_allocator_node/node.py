"""ROS 2 shell of the muscle allocator: ``/joint_states`` and ``/muscles/torque_setpoint`` in,
``/muscles/activations`` out (encodings in :mod:`biped_common.conversions`).

At every joint state (the simulator's or robot's rate — the controller rate) with a torque
setpoint no older than ``setpoint_timeout_s`` (message stamps), the activations that produce the
setpoint are published, stamped with the joint state they answer. A malformed or non-finite
message is refused with a logged warning; a stale setpoint publishes nothing (the simulator then
relaxes the muscles after its own timeout) — never a crash.
"""

from __future__ import annotations

from dataclasses import dataclass

from sensor_msgs.msg import JointState

from biped_common import conversions as conv
from biped_common.ros_node_tools import GuardedNode, RepeatFilter, SENSOR_QOS, declare_config, run_node
from muscle_allocator_node.mujoco_muscles import load_model
from muscle_allocator_node.controller import MuscleAllocatorCore


@dataclass(frozen=True)
class MuscleAllocatorConfig:
    """Muscle allocator node parameters."""

    model: str = "myoelbow"
    criterion: str = "activation_squared"
    setpoint_timeout_s: float = 0.1


class MuscleAllocatorNode(GuardedNode):
    def __init__(self):
        super().__init__("muscle_allocator")
        self.config = declare_config(self, MuscleAllocatorConfig)
        self.core = MuscleAllocatorCore(load_model(self.config.model), self.config.criterion)
        self._warn = RepeatFilter(self.get_logger().warning)
        self._setpoint = None  # (stamp s, names, torques)
        self._pub = self.create_publisher(JointState, "muscles/activations", SENSOR_QOS)
        self.create_subscription(JointState, "muscles/torque_setpoint", self._on_setpoint, SENSOR_QOS)
        self.create_subscription(JointState, "joint_states", self._on_joints, SENSOR_QOS)
        self.get_logger().info(f"muscle allocator: {self.config.model}, {len(self.core.muscle_names)} muscles, "
                               f"criterion {self.config.criterion}")

    def _on_setpoint(self, msg: JointState) -> None:
        try:
            names, torques = conv.torque_setpoint_from_message(msg)
        except ValueError as error:
            self._warn(f"torque setpoint refused: {error}")
            return
        self._setpoint = (conv.stamp_to_seconds(msg.header.stamp), names, torques)

    def _on_joints(self, msg: JointState) -> None:
        stamp = conv.stamp_to_seconds(msg.header.stamp)
        if self._setpoint is None:
            return
        setpoint_stamp, names, torques = self._setpoint
        if stamp - setpoint_stamp > self.config.setpoint_timeout_s:
            self._warn(f"torque setpoint is {stamp - setpoint_stamp:.3f} s old: no activations published")
            return
        try:
            allocation = self.core.allocate(msg.name, msg.position, msg.velocity, names, torques)
        except ValueError as error:
            self._warn(f"allocation refused: {error}")
            return
        if allocation.status != "optimal":
            self._warn(f"allocation {allocation.status}: residual {allocation.residual_torque.round(3).tolist()} N·m")
        self._pub.publish(conv.muscle_activations_message(stamp, self.core.muscle_names, allocation.activations))


def main() -> int:
    """Entry point ``muscle_allocator_node``."""
    return run_node(MuscleAllocatorNode)
