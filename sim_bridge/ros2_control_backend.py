"""Hardware backend: a robot run by ros2_control, spoken to in its conventions.

The robot side is expected to run (names relative to its namespace, ``/robot`` by default):
``joint_state_broadcaster`` → ``joint_states`` (sensor_msgs/JointState),
``imu_sensor_broadcaster`` → ``imu_sensor_broadcaster/imu`` (sensor_msgs/Imu),
``force_torque_sensor_broadcaster`` per foot → ``<side>_foot_ft/wrench`` (geometry_msgs/WrenchStamped,
in the sole frame), and one forward command controller taking std_msgs/Float64MultiArray in the
robot's joint order: ``effort_controller/commands`` (``command_interface: effort``: the joint PD is
closed here, on every joint state, and efforts are sent) or ``position_controller/commands``
(``command_interface: position``: positions are sent and the robot's own joint loop tracks them;
velocity, effort and gains of the command are then not used, and the watchdog's "damping" becomes
"hold the joint positions measured when the command stream went stale", the safe state a position
controller can express).

A forward command controller holds its last command, so a setpoint that does not depend on the
robot's state (a feed-forward torque, a position) is published when it is new — the bridge sends a
command the moment it arrives, not at the next joint state (a period of latency) — and again only
when a whole joint-state period passed without a publication (a robot-side watchdog stays fed).
Setpoints whose effort depends on the state (the joint PD closed here, damping) are published on
every joint state.

This module is ROS-free: the node feeds it decoded measurements and gives it a ``publish``
callback.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from biped_common.state import ImuReading, SensorFrame, Wrench
from sim_bridge.backend import Backend
from sim_bridge.commands import JointSetpoints

CONTROLLER_TOPICS = {"effort": "effort_controller/commands",
                     "position": "position_controller/commands"}


class Ros2ControlBackend(Backend):
    """Drives a ros2_control robot; ``publish(values)`` sends one forward-command array."""

    def __init__(self, joint_names: tuple[str, ...], torque_limit_nm: np.ndarray,
                 command_interface: str, publish: Callable[[np.ndarray], None],
                 clock: Callable[[], float]):
        if command_interface not in CONTROLLER_TOPICS:
            raise ValueError(f"command_interface must be one of {tuple(CONTROLLER_TOPICS)}")
        self.joint_names = tuple(joint_names)
        self._index = {n: i for i, n in enumerate(self.joint_names)}
        self.torque_limit_nm = np.asarray(torque_limit_nm, dtype=float)
        self.command_interface = command_interface
        self._publish = publish
        self._clock = clock
        self._joints: tuple[float, np.ndarray, np.ndarray, np.ndarray] | None = None
        self._imu: ImuReading | None = None
        self._wrenches: dict[str, Wrench] = {}
        self._hold_position: np.ndarray | None = None
        self._last_sent: JointSetpoints | None = None
        self._sent_in_period = False           # published since the latest joint state
        self._sent_in_previous_period = False  # published between the two latest joint states

    def now_s(self) -> float:
        return self._clock()

    def on_joint_state(self, stamp_s: float, names, position, velocity, effort) -> None:
        """Store a joint state from the robot, reordered to our joint order; ValueError when it
        lacks one of our joints (extra joints, e.g. grippers, are ignored)."""
        missing = [n for n in self.joint_names if n not in names]
        if missing:
            raise ValueError(f"robot joint_states lacks joints {missing}")
        order = [list(names).index(n) for n in self.joint_names]
        position = np.asarray(position, float)[order]
        velocity = np.asarray(velocity, float)[order] if len(velocity) == len(names) else np.zeros(len(order))
        effort = np.asarray(effort, float)[order] if len(effort) == len(names) else np.zeros(len(order))
        if not (np.all(np.isfinite(position)) and np.all(np.isfinite(velocity))):
            raise ValueError("robot joint_states holds non-finite values")
        self._joints = (stamp_s, position, velocity, effort)
        self._sent_in_previous_period, self._sent_in_period = self._sent_in_period, False

    def on_imu(self, reading: ImuReading) -> None:
        self._imu = reading

    def on_wrench(self, side: str, wrench: Wrench) -> None:
        self._wrenches[side] = wrench

    def measure(self) -> SensorFrame | None:
        if self._joints is None or self._imu is None:
            return None
        stamp, position, velocity, effort = self._joints
        return SensorFrame(stamp, self.joint_names, position, velocity, effort, self._imu,
                           dict(self._wrenches))

    def depends_on_state(self, setpoints: JointSetpoints) -> bool:
        """Whether the command these setpoints make changes with the robot's state: the effort
        interface with gains (the joint PD, damping, closed here)."""
        return self.command_interface == "effort" and bool(setpoints.kp.any() or setpoints.kd.any())

    def send(self, setpoints: JointSetpoints) -> None:
        """Publish the forward command for these setpoints (nothing before the first state; a
        state-independent one already published is held by the robot, see the module)."""
        if self._joints is None:
            return
        if (setpoints is self._last_sent and not self.depends_on_state(setpoints)
                and (self._sent_in_period or self._sent_in_previous_period)):
            return
        self._last_sent = setpoints
        self._sent_in_period = True
        if self.command_interface == "position":
            # A position controller cannot damp: without position feedback (watchdog damping,
            # waiting) the robot holds the joint positions measured when that began.
            if np.all(setpoints.kp == 0.0):
                if self._hold_position is None:
                    self._hold_position = self._joints[1].copy()
                self._publish(self._hold_position)
            else:
                self._hold_position = None
                self._publish(setpoints.position_rad)
        else:
            _, position, velocity, _ = self._joints
            self._publish(setpoints.torque(position, velocity, self.torque_limit_nm))
