"""The sensor messages read from their bytes agree with rclpy's deserializer, field by field."""

import numpy as np
import pytest
from geometry_msgs.msg import WrenchStamped
from rclpy.serialization import serialize_message
from sensor_msgs.msg import Imu, JointState

from biped_common import conversions as conv
from biped_common.cdr_views import JointStateReader, imu_view, leading_stamp_ns, wrench_stamped_view
from biped_common.state import BaseState, JointCommand

RNG = np.random.default_rng(7)


def random_joint_state(names, frame_id="", efforts=True):
    msg = JointState()
    msg.header.stamp.sec, msg.header.stamp.nanosec = int(RNG.integers(0, 2**31 - 1)), int(RNG.integers(0, 10**9))
    msg.header.frame_id = frame_id
    msg.name = list(names)
    msg.position = RNG.normal(size=len(names)).tolist()
    msg.velocity = RNG.normal(size=len(names)).tolist()
    msg.effort = RNG.normal(size=len(names)).tolist() if efforts else []
    return msg


@pytest.mark.parametrize("frame_id", ["", "a", "abc", "abcd", "base_link_x"])  # every string padding
def test_joint_states_read_from_bytes_equal_rclpys(frame_id):
    read = JointStateReader()
    names = [f"joint_{'x' * k}{k}" for k in range(27)]
    for efforts in (True, False):
        for _ in range(5):
            msg = random_joint_state(names, frame_id, efforts)
            view = read(serialize_message(msg))
            assert (view.header.stamp.sec, view.header.stamp.nanosec) == (msg.header.stamp.sec, msg.header.stamp.nanosec)
            assert view.header.frame_id == msg.header.frame_id and list(view.name) == list(msg.name)
            for field in ("position", "velocity", "effort"):
                np.testing.assert_array_equal(getattr(view, field), np.asarray(getattr(msg, field)))
    renamed = random_joint_state(names[:-1] + ["other"])  # new names: decoded again, not reused
    assert read(serialize_message(renamed)).name[-1] == "other"


def test_odd_shapes_read_as_rclpy_writes_them():
    read = JointStateReader()
    for msg in (random_joint_state([]), random_joint_state(["a"]), random_joint_state(["é_joint", "b"])):
        msg.velocity = []  # a zero-length sequence between two others
        view = read(serialize_message(msg))
        assert list(view.name) == list(msg.name) and view.velocity.size == 0
        np.testing.assert_array_equal(view.position, np.asarray(msg.position))
        np.testing.assert_array_equal(view.effort, np.asarray(msg.effort))


@pytest.mark.parametrize("frame_id", ["", "imu", "imu_link", "pelvis_imu"])
def test_imu_and_wrench_read_from_bytes_equal_rclpys(frame_id):
    imu = Imu()
    imu.header.frame_id, imu.header.stamp.sec = frame_id, 12
    imu.orientation.x, imu.orientation.y, imu.orientation.z, imu.orientation.w = RNG.normal(size=4).tolist()
    imu.angular_velocity.x, imu.angular_velocity.y, imu.angular_velocity.z = RNG.normal(size=3).tolist()
    imu.linear_acceleration.x, imu.linear_acceleration.y, imu.linear_acceleration.z = RNG.normal(size=3).tolist()
    imu.orientation_covariance = RNG.normal(size=9).tolist()
    imu.angular_velocity_covariance = RNG.normal(size=9).tolist()
    imu.linear_acceleration_covariance = RNG.normal(size=9).tolist()
    view = imu_view(serialize_message(imu))
    assert view.header.frame_id == frame_id and view.header.stamp.sec == 12
    for part in ("orientation", "angular_velocity", "linear_acceleration"):
        for axis in ("x", "y", "z") + (("w",) if part == "orientation" else ()):
            assert getattr(getattr(view, part), axis) == getattr(getattr(imu, part), axis)
        np.testing.assert_array_equal(getattr(view, f"{part}_covariance"), np.asarray(getattr(imu, f"{part}_covariance")))
    wrench = WrenchStamped()
    wrench.header.frame_id = frame_id
    wrench.wrench.force.x, wrench.wrench.force.y, wrench.wrench.force.z = RNG.normal(size=3).tolist()
    wrench.wrench.torque.x, wrench.wrench.torque.y, wrench.wrench.torque.z = RNG.normal(size=3).tolist()
    view = wrench_stamped_view(serialize_message(wrench))
    assert view.header.frame_id == frame_id and view.wrench.force.z == wrench.wrench.force.z
    assert view.wrench.torque == (wrench.wrench.torque.x, wrench.wrench.torque.y, wrench.wrench.torque.z)


def test_truncated_or_foreign_bytes_are_refused():
    data = serialize_message(random_joint_state(["a", "b"]))
    read = JointStateReader()
    for bad in (data[:20], b"\x01\x00" + data[2:], b"", data[: len(data) - 8]):
        with pytest.raises(ValueError):
            read(bad)
    with pytest.raises(ValueError):
        imu_view(data[:30])


NAMES = ("a", "b", "c")


@pytest.mark.parametrize("make", [
    conv.clock_message,
    lambda t: conv.joint_command_message(JointCommand(t, NAMES, *(np.zeros(3) for _ in range(5)))),
    lambda t: conv.odometry_message(BaseState(t, np.zeros(3), np.array([1.0, 0, 0, 0]), np.zeros(3), np.zeros(3)),
                                    "pelvis"),
], ids=["clock", "joint command", "odometry"])
def test_the_serialized_stamp_is_the_messages_stamp(make):
    from rclpy.serialization import serialize_message
    for t in (0.0, 1.234, 86400.000000001, 12.5):
        msg = make(t)
        stamp = msg.clock if hasattr(msg, "clock") else msg.header.stamp
        assert leading_stamp_ns(serialize_message(msg)) == conv.stamp_to_ns(stamp)
    with pytest.raises(ValueError, match="leading stamp"):
        leading_stamp_ns(b"\x01\x00\x00")
