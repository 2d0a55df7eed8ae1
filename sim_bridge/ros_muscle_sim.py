"""``muscle_sim``: a MuJoCo musculoskeletal model (myo-sim's MyoElbow by default) that takes
muscle activations over ROS 2 — the sim bridge for models with muscle actuators.

Steps the model in real time on a wall timer (one physics step per tick), publishes
``/joint_states`` (sim-time stamps; position, velocity, and the joint torque the muscles apply as
effort) and takes ``/muscles/activations``: each step's excitation is the one that reaches the
desired activations through MuJoCo's activation dynamics (:class:`MuscleDrive`); without a fresh
command for ``command_timeout_s`` the muscles relax. Unknown muscle names or bad values are
refused with a logged warning.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
from sensor_msgs.msg import JointState

from biped_common import conversions as conv
from biped_common.ros_node_tools import GuardedNode, RepeatFilter, SENSOR_QOS, declare_config, run_node
from muscle_allocator_node.mujoco_muscles import load_model
from muscle_allocator_node.controller import MuscleDrive, one_dof_joints


@dataclass(frozen=True)
class MuscleSimConfig:
    """Muscle simulator parameters."""

    model: str = "myoelbow"
    initial_position_rad: float = 0.2   # every 1-dof joint starts here (clipped to its range)
    command_timeout_s: float = 0.1


class MuscleSimNode(GuardedNode):
    def __init__(self):
        super().__init__("muscle_sim")
        self.config = declare_config(self, MuscleSimConfig)
        self.model = load_model(self.config.model)
        self.data = mujoco.MjData(self.model)
        self.joints = one_dof_joints(self.model)
        for name, (q, _) in self.joints.items():
            low, high = self.model.jnt_range[self.model.joint(name).id] if self.model.jnt_limited[self.model.joint(name).id] else (-1e9, 1e9)
            self.data.qpos[q] = min(max(self.config.initial_position_rad, low), high)
        mujoco.mj_forward(self.model, self.data)
        self.drive = MuscleDrive(self.model, self.config.command_timeout_s)
        self._warn = RepeatFilter(self.get_logger().warning)
        self._pub = self.create_publisher(JointState, "joint_states", SENSOR_QOS)
        self.create_subscription(JointState, "muscles/activations", self._on_activations, SENSOR_QOS)
        self.create_timer(self.model.opt.timestep, self._step)
        self.get_logger().info(f"muscle sim: {self.config.model}, {self.model.nu} muscles, "
                               f"{self.model.opt.timestep * 1e3:.1f} ms steps in real time")

    def _on_activations(self, msg: JointState) -> None:
        try:
            names, values = conv.muscle_activations_from_message(msg)
            self.drive.set_activations(self.data.time, names, values)
        except ValueError as error:
            self._warn(f"activations refused: {error}")

    def _step(self) -> None:
        dt = self.model.opt.timestep
        self.data.ctrl[:] = self.drive.excitation(self.data.time, self.data.act, dt)
        mujoco.mj_step(self.model, self.data)
        msg = JointState()
        msg.header.stamp = conv.seconds_to_stamp(self.data.time)
        msg.name = list(self.joints)
        msg.position = [float(self.data.qpos[q]) for q, _ in self.joints.values()]
        msg.velocity = [float(self.data.qvel[d]) for _, d in self.joints.values()]
        msg.effort = [float(self.data.qfrc_actuator[d]) for _, d in self.joints.values()]
        self._pub.publish(msg)


def main() -> int:
    """Entry point ``muscle_sim``."""
    return run_node(MuscleSimNode)
