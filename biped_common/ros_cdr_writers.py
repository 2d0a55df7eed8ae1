"""The control-rate messages written straight into their serialized bytes (the writing twin of
:mod:`biped_common.cdr_views`).

Publishing a Python message makes rclpy convert it field by field into a C message before the
middleware serializes it; built and converted, a sensor frame's messages cost the bridge most of its
tick. After the 5 ms a real-time process sleeps between frames, that code runs cold on this VM: a
25-joint JointState costs ≈ 126 µs to publish as a message, ≈ 80 µs as bytes (p50; 8.9 / 2.5 µs
warm; measured 2026-12-03). A control-rate message keeps its layout from frame to frame — the same
joint names, frame ids and array lengths — so its serialization is written once and only the numbers
are overwritten: each writer here serializes the message :mod:`biped_common.conversions` builds
(the one place that knows how a message encodes our data), finds where its numbers sit by writing
distinctive values into a copy (:class:`SerializedTemplate`), and from then on fills those places
from numpy. ``rclpy`` publishes the bytes as they are (``Publisher.publish(bytes)``); subscribers
receive what rclpy would have serialized (tests compare every writer with ``serialize_message`` of
the conversion: the same length, and the same fields to the bit once read back — rclpy leaves the
alignment padding uninitialized, so the bytes themselves differ there).
"""

from __future__ import annotations

import copy
import struct
from typing import Callable

import numpy as np
from rclpy.serialization import serialize_message

from biped_common import conversions as conv
from biped_common.state import BaseState, ImuReading, JointCommand, SensorFrame, Wrench

# Distinctive doubles (subnormal-free, far from any physical value) marking a probed field.
_SENTINEL = 1.234567890123e-250
_STAMP_SENTINEL = (0x1A2B3C4D, 0x0E1F2A3B)


class SerializedTemplate:
    """The serialization of ``message``, with writable numpy views onto the places of chosen
    float64 fields. The views are valid while every string and sequence length stays as in
    ``message`` (the writers below fix them at construction)."""

    def __init__(self, message):
        self._message = message
        self.buffer = bytearray(serialize_message(message))
        if len(self.buffer) < 4 or self.buffer[1] not in (0, 1):
            raise ValueError("not a CDR-serialized message")
        self._order = "<" if self.buffer[1] == 1 else ">"
        self._stamp_offset: int | None = None

    def _find(self, assign: Callable, key: bytes) -> int:
        probe = copy.deepcopy(self._message)
        assign(probe)
        probed = serialize_message(probe)
        offset = probed.find(key)
        if len(probed) != len(self.buffer) or offset < 0 or probed.find(key, offset + 1) >= 0:
            raise ValueError("the probed field is not a fixed place of the serialization")
        return offset

    def doubles(self, assign: Callable[[object, list], None], count: int) -> np.ndarray:
        """A writable view (count,) of the float64 fields that ``assign(message, values)`` sets
        from ``values`` (a list of ``count`` floats), which must lie contiguously in that order."""
        values = [_SENTINEL * (1 + i) for i in range(count)]
        offset = self._find(lambda m: assign(m, values), np.asarray(values, dtype=self._order + "f8").tobytes())
        return np.frombuffer(self.buffer, dtype=self._order + "f8", count=count, offset=offset)

    def locate_stamp(self, assign: Callable[[object, int, int], None]) -> None:
        """Where ``assign(message, sec, nanosec)`` puts the header stamp (for :meth:`set_stamp`)."""
        key = struct.pack(self._order + "iI", *_STAMP_SENTINEL)
        self._stamp_offset = self._find(lambda m: assign(m, *_STAMP_SENTINEL), key)

    def set_stamp(self, seconds: float) -> None:
        """The header stamp, rounded as :func:`biped_common.conversions.seconds_to_stamp` does."""
        struct.pack_into(self._order + "iI", self.buffer, self._stamp_offset, *conv.stamp_parts(seconds))

    def bytes(self) -> bytes:
        """The serialized message as it stands."""
        return bytes(self.buffer)


def _header_stamp(message, sec: int, nanosec: int) -> None:
    message.header.stamp.sec, message.header.stamp.nanosec = sec, nanosec


def _set_list(attribute: str) -> Callable:
    def assign(message, values):
        setattr(message, attribute, values)
    return assign


class JointStateWriter:
    """``sensor_msgs/JointState`` of sensor frames with the given joints (as
    :func:`conversions.joint_state_message`)."""

    def __init__(self, joint_names):
        n = len(joint_names)
        zeros = np.zeros(n)
        frame = SensorFrame(0.0, tuple(joint_names), zeros, zeros, zeros,
                            ImuReading(np.array([1.0, 0.0, 0.0, 0.0]), np.zeros(3), np.zeros(3)), {})
        self.joint_names = tuple(joint_names)
        self._template = SerializedTemplate(conv.joint_state_message(frame))
        self._template.locate_stamp(_header_stamp)
        self._position = self._template.doubles(_set_list("position"), n)
        self._velocity = self._template.doubles(_set_list("velocity"), n)
        self._effort = self._template.doubles(_set_list("effort"), n)

    def write(self, frame: SensorFrame) -> bytes:
        if tuple(frame.joint_names) != self.joint_names:
            raise ValueError("the frame's joints are not the writer's")
        self._template.set_stamp(frame.stamp_s)
        self._position[:] = frame.position_rad
        self._velocity[:] = frame.velocity_rad_s
        self._effort[:] = frame.effort_nm
        return self._template.bytes()


class ImuWriter:
    """``sensor_msgs/Imu`` in ``frame_id`` with fixed diagonal covariances (as
    :func:`conversions.imu_message`)."""

    def __init__(self, frame_id: str, gyro_std_rad_s: float = 0.0, accel_std_m_s2: float = 0.0,
                 orientation_std_rad: float = 0.0):
        reading = ImuReading(np.array([1.0, 0.0, 0.0, 0.0]), np.zeros(3), np.zeros(3))
        self._template = SerializedTemplate(conv.imu_message(0.0, reading, frame_id, gyro_std_rad_s,
                                                             accel_std_m_s2, orientation_std_rad))
        self._template.locate_stamp(_header_stamp)

        def orientation(m, v):
            m.orientation.x, m.orientation.y, m.orientation.z, m.orientation.w = v

        def angular_velocity(m, v):
            m.angular_velocity.x, m.angular_velocity.y, m.angular_velocity.z = v

        def linear_acceleration(m, v):
            m.linear_acceleration.x, m.linear_acceleration.y, m.linear_acceleration.z = v
        self._orientation_xyzw = self._template.doubles(orientation, 4)
        self._angular_velocity = self._template.doubles(angular_velocity, 3)
        self._linear_acceleration = self._template.doubles(linear_acceleration, 3)

    def write(self, stamp_s: float, imu: ImuReading) -> bytes:
        self._template.set_stamp(stamp_s)
        q = imu.orientation_wxyz
        self._orientation_xyzw[:3] = q[1:]
        self._orientation_xyzw[3] = q[0]
        self._angular_velocity[:] = imu.angular_velocity_rad_s
        self._linear_acceleration[:] = imu.linear_acceleration_m_s2
        return self._template.bytes()


class WrenchWriter:
    """``geometry_msgs/WrenchStamped`` in ``frame_id`` (as :func:`conversions.wrench_message`)."""

    def __init__(self, frame_id: str):
        self._template = SerializedTemplate(conv.wrench_message(0.0, Wrench(np.zeros(3), np.zeros(3)), frame_id))
        self._template.locate_stamp(_header_stamp)

        def force_torque(m, v):
            f, t = m.wrench.force, m.wrench.torque
            f.x, f.y, f.z, t.x, t.y, t.z = v
        self._force_torque = self._template.doubles(force_torque, 6)

    def write(self, stamp_s: float, wrench: Wrench) -> bytes:
        self._template.set_stamp(stamp_s)
        self._force_torque[:3] = wrench.force_n
        self._force_torque[3:] = wrench.torque_nm
        return self._template.bytes()


class OdometryWriter:
    """``nav_msgs/Odometry`` from ``frame_id`` to ``child_frame_id``, with or without covariances
    (as :func:`conversions.odometry_message`; the covariances' presence is fixed here)."""

    def __init__(self, child_frame_id: str, frame_id: str = conv.WORLD_FRAME, covariances: bool = False):
        state = BaseState(0.0, np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0]), np.zeros(3), np.zeros(3))
        self._covariances = covariances
        self._template = SerializedTemplate(conv.odometry_message(state, child_frame_id, frame_id))
        self._template.locate_stamp(_header_stamp)

        def pose(m, v):
            p, o = m.pose.pose.position, m.pose.pose.orientation
            p.x, p.y, p.z, o.x, o.y, o.z, o.w = v

        def twist(m, v):
            lin, ang = m.twist.twist.linear, m.twist.twist.angular
            lin.x, lin.y, lin.z, ang.x, ang.y, ang.z = v

        def pose_covariance(m, v):
            m.pose.covariance = v

        def twist_covariance(m, v):
            m.twist.covariance = v
        self._pose = self._template.doubles(pose, 7)
        self._twist = self._template.doubles(twist, 6)
        self._pose_covariance = self._template.doubles(pose_covariance, 36)
        self._twist_covariance = self._template.doubles(twist_covariance, 36)

    def write(self, state: BaseState, pose_covariance=None, twist_covariance=None) -> bytes:
        if (pose_covariance is not None or twist_covariance is not None) != self._covariances:
            raise ValueError("this writer was made " + ("with" if self._covariances else "without") + " covariances")
        self._template.set_stamp(state.stamp_s)
        pose, twist = conv.odometry_numbers(state)
        self._pose[:] = pose
        self._twist[:] = twist
        if self._covariances:
            self._pose_covariance[:] = np.asarray(pose_covariance, dtype=float).reshape(36)
            self._twist_covariance[:] = np.asarray(twist_covariance, dtype=float).reshape(36)
        return self._template.bytes()


class JointCommandWriter:
    """``trajectory_msgs/JointTrajectory`` of joint commands for the given joints (as
    :func:`conversions.joint_command_message`: a setpoint point and a gains point)."""

    def __init__(self, joint_names):
        n = len(joint_names)
        zeros = np.zeros(n)
        self.joint_names = tuple(joint_names)
        self._template = SerializedTemplate(conv.joint_command_message(
            JointCommand(0.0, self.joint_names, zeros, zeros, zeros, zeros, zeros)))
        self._template.locate_stamp(_header_stamp)

        def point_field(point: int, field: str):
            def assign(m, v):
                setattr(m.points[point], field, v)
            return assign
        self._arrays = [self._template.doubles(point_field(point, field), n)
                        for point, field in ((0, "positions"), (0, "velocities"), (0, "effort"),
                                             (1, "positions"), (1, "velocities"))]

    def write(self, command: JointCommand) -> bytes:
        if command.joint_names != self.joint_names:
            raise ValueError("the command's joints are not the writer's")
        self._template.set_stamp(command.stamp_s)
        for view, values in zip(self._arrays, (command.position_rad, command.velocity_rad_s, command.effort_nm,
                                               command.kp, command.kd)):
            view[:] = values
        return self._template.bytes()
